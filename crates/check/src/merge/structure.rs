//! The `difference_blocks` check (grading.md §6.8): the candidate has the reference's template-method
//! shape. `Calculate.compute()` calls `self.custom_compute_<i>(…)` once for each difference, the two
//! subclasses define exactly the reference's `custom_compute_<i>` methods, each as many statements
//! long as the reference's (one `return`), and neither subclass keeps a `compute()`. Every failure
//! names the class, the method and the line.
//!
//! Pure (it reads the parsed programs of `check::program`): the static rubric runs it in the browser's
//! checker, and the grader runs it natively, so both give the same verdict.

use crate::grade::CheckOutcome;
use crate::program::Program;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt, StmtClassDef, StmtFunctionDef};
use serde_json::json;
use std::collections::BTreeMap;

/// The two subclasses, in order.
const CHILDREN: [&str; 2] = ["CalculateA", "CalculateB"];

/// A `custom_compute_<digits>` index, compared as the integer the digits spell (so `_01` is `_1`,
/// and indices too long for a machine integer still compare correctly).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Index {
    len: usize,
    digits: String,
}

impl Index {
    fn parse(name: &str) -> Option<Index> {
        let d = name.strip_prefix("custom_compute_")?;
        if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits = d.trim_start_matches('0');
        let digits = if digits.is_empty() { "0" } else { digits };
        Some(Index { len: digits.len(), digits: digits.to_string() })
    }
}

impl std::fmt::Display for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.digits)
    }
}

/// One problem, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// The reference scorer's name of the failed check (`difference_block_line_counts`, …).
    pub check: &'static str,
    pub class: Option<&'static str>,
    pub method: Option<String>,
    /// 1-based line in the candidate.
    pub line: Option<usize>,
    pub message: String,
}

/// The verdict: pass, fail (with the issues, the first one first), or error (a class is missing,
/// or a program does not parse), as the reference scorer reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct StructureVerdict {
    pub outcome: CheckOutcome,
    pub issues: Vec<Issue>,
    /// The reference scorer's metadata: `expected`, `actual` and `issues`.
    pub metadata: serde_json::Value,
}

impl StructureVerdict {
    /// A one-line reason (the first issue, and how many more).
    pub fn message(&self) -> String {
        match self.issues.as_slice() {
            [] => "Calculate.compute() calls one custom_compute method per difference; the subclasses keep only those"
                .into(),
            [one] => one.message.clone(),
            [first, rest @ ..] => format!("{} (and {} more)", first.message, rest.len()),
        }
    }
}

/// What the check reads of a program.
struct Shape<'a> {
    classes: [Option<&'a StmtClassDef>; 3],
    /// Per subclass: index → the method (the last definition wins, as in Python).
    custom: [BTreeMap<Index, &'a StmtFunctionDef>; 2],
    /// `Calculate`'s own custom methods.
    parent_custom: BTreeMap<Index, &'a StmtFunctionDef>,
    compute: Option<&'a StmtFunctionDef>,
    /// `self.custom_compute_<k>(…)` calls anywhere in `Calculate.compute`: index and line offset.
    calls: Vec<(Index, ruff_text_size::TextSize)>,
    child_compute: [Option<&'a StmtFunctionDef>; 2],
    subclasses: [bool; 2],
}

fn class<'a>(p: &'a Program<'_>, name: &str) -> Option<&'a StmtClassDef> {
    p.body()
        .iter()
        .filter_map(|s| match s {
            Stmt::ClassDef(c) if c.name.as_str() == name => Some(c),
            _ => None,
        })
        .next_back()
}

fn methods(c: &StmtClassDef) -> impl Iterator<Item = &StmtFunctionDef> {
    c.body.iter().filter_map(|s| match s {
        Stmt::FunctionDef(f) if !f.is_async => Some(f),
        _ => None,
    })
}

/// The first method of this name (the reference's `_method_def`).
fn method<'a>(c: &'a StmtClassDef, name: &str) -> Option<&'a StmtFunctionDef> {
    methods(c).find(|f| f.name.as_str() == name)
}

fn custom(c: &StmtClassDef) -> BTreeMap<Index, &StmtFunctionDef> {
    methods(c).filter_map(|f| Index::parse(f.name.as_str()).map(|i| (i, f))).collect()
}

struct Calls(Vec<(Index, ruff_text_size::TextSize)>);

impl<'a> Visitor<'a> for Calls {
    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Call(call) = e {
            if let Expr::Attribute(a) = &*call.func {
                if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == "self") {
                    if let Some(i) = Index::parse(a.attr.as_str()) {
                        self.0.push((i, ruff_text_size::Ranged::start(call)));
                    }
                }
            }
        }
        visitor::walk_expr(self, e);
    }
}

fn shape<'a>(p: &'a Program<'_>) -> Shape<'a> {
    let classes = ["Calculate", CHILDREN[0], CHILDREN[1]].map(|n| class(p, n));
    let compute = classes[0].and_then(|c| method(c, "compute"));
    let mut calls = Calls(Vec::new());
    // The whole definition, as `ast.walk` sees it: decorators, defaults and annotations too.
    let compute_stmt = classes[0].and_then(|c| {
        c.body.iter().find(|s| matches!(s, Stmt::FunctionDef(f) if !f.is_async && f.name.as_str() == "compute"))
    });
    if let Some(s) = compute_stmt {
        calls.visit_stmt(s);
    }
    calls.0.sort_by(|a, b| a.0.cmp(&b.0));
    let child = |i: usize| classes[i + 1];
    Shape {
        custom: [0, 1].map(|i| child(i).map(custom).unwrap_or_default()),
        parent_custom: classes[0].map(custom).unwrap_or_default(),
        compute,
        calls: calls.0,
        child_compute: [0, 1].map(|i| child(i).and_then(|c| method(c, "compute"))),
        subclasses: [0, 1].map(|i| {
            child(i).is_some_and(|c| {
                c.bases().iter().any(|b| match b {
                    Expr::Name(n) => n.id.as_str() == "Calculate",
                    Expr::Attribute(a) => a.attr.as_str() == "Calculate",
                    _ => false,
                })
            })
        }),
        classes,
    }
}

/// Statements of a method that count: not a leading docstring, not `pass`, not a bare `...`.
fn statements(f: &StmtFunctionDef) -> usize {
    f.body
        .iter()
        .enumerate()
        .filter(|(i, s)| match s {
            Stmt::Expr(e) if *i == 0 && e.value.is_string_literal_expr() => false,
            Stmt::Pass(_) => false,
            Stmt::Expr(e) => !matches!(&*e.value, Expr::EllipsisLiteral(_)),
            _ => true,
        })
        .count()
}

fn indices<'a>(keys: impl Iterator<Item = &'a Index>) -> Vec<String> {
    keys.map(|i| i.to_string()).collect()
}

/// The reference scorer's summary of a program (its metadata's `expected` / `actual`).
fn summary(s: &Shape) -> serde_json::Value {
    let union: std::collections::BTreeSet<&Index> = s.custom.iter().flat_map(|m| m.keys()).collect();
    let counts = |m: &BTreeMap<Index, &StmtFunctionDef>| -> serde_json::Map<String, serde_json::Value> {
        m.iter().map(|(i, f)| (i.to_string(), json!(statements(f)))).collect()
    };
    json!({
        "num_difference_blocks": union.len(),
        "difference_indices": indices(union.iter().copied()),
        "child_difference_indices": { "CalculateA": indices(s.custom[0].keys()), "CalculateB": indices(s.custom[1].keys()) },
        "difference_block_line_counts": { "CalculateA": counts(&s.custom[0]), "CalculateB": counts(&s.custom[1]) },
        "calculate_custom_indices": indices(s.parent_custom.keys()),
        "calculate_compute_call_indices": indices(s.calls.iter().map(|c| &c.0)),
        "has_calculate_compute": s.compute.is_some(),
        "child_compute_methods": { "CalculateA": s.child_compute[0].is_some(), "CalculateB": s.child_compute[1].is_some() },
        "subclasses": { "CalculateA": s.subclasses[0], "CalculateB": s.subclasses[1] },
    })
}

fn list(xs: &[String]) -> String {
    if xs.is_empty() {
        "none".into()
    } else {
        xs.join(", ")
    }
}

/// The check of a candidate against the reference solution.
pub fn difference_blocks(candidate: &Program, reference: &Program) -> StructureVerdict {
    let (c, r) = (shape(candidate), shape(reference));
    let missing: Vec<&str> = ["Calculate", CHILDREN[0], CHILDREN[1]]
        .iter()
        .zip(&c.classes)
        .filter(|(_, k)| k.is_none())
        .map(|(n, _)| *n)
        .collect();
    if !missing.is_empty() || r.classes.iter().any(Option::is_none) {
        let message = if missing.is_empty() {
            "the reference solution lacks one of Calculate, CalculateA and CalculateB".to_string()
        } else {
            format!(
                "class {} missing: Calculate, CalculateA and CalculateB must all be defined at module level",
                missing.join(", ")
            )
        };
        let issue = Issue { check: "classes", class: None, method: None, line: None, message };
        return StructureVerdict {
            outcome: CheckOutcome::Error,
            metadata: json!({ "error": issue.message }),
            issues: vec![issue],
        };
    }
    let line = |f: &StmtFunctionDef| candidate.line_of(f);
    let mut issues: Vec<Issue> = Vec::new();
    // Subclass shape first: the most common mistakes are a leftover compute() and a long method.
    for (i, name) in CHILDREN.iter().enumerate() {
        if let Some(f) = c.child_compute[i] {
            issues.push(Issue {
                check: "child_compute_removed",
                class: Some(name),
                method: Some("compute".into()),
                line: Some(line(f)),
                message: format!(
                    "{name}.compute (line {}) is still defined: the subclasses keep only their custom_compute methods",
                    line(f)
                ),
            });
        }
        if !c.subclasses[i] {
            let at = c.classes[i + 1].map(|k| candidate.line_of(k));
            issues.push(Issue {
                check: "subclass",
                class: Some(name),
                method: None,
                line: at,
                message: format!("{name} (line {}) is not a direct subclass of Calculate", at.unwrap_or(0)),
            });
        }
        let expected: Vec<&Index> = r.custom[i].keys().collect();
        let actual: Vec<&Index> = c.custom[i].keys().collect();
        if expected != actual {
            let extra: Vec<String> = actual.iter().filter(|x| !expected.contains(x)).map(|x| x.to_string()).collect();
            let absent: Vec<String> = expected.iter().filter(|x| !actual.contains(x)).map(|x| x.to_string()).collect();
            let at = c.custom[i].iter().find(|(k, _)| !expected.contains(k)).map(|(_, f)| line(f));
            let mut parts = Vec::new();
            if !absent.is_empty() {
                parts.push(format!("lacks custom_compute_{}", absent.join(", custom_compute_")));
            }
            if !extra.is_empty() {
                parts.push(format!(
                    "defines custom_compute_{} (line {}), which the task has no difference for",
                    extra.join(", custom_compute_"),
                    at.unwrap_or(0)
                ));
            }
            issues.push(Issue {
                check: "child_difference_indices",
                class: Some(name),
                method: None,
                line: at.or_else(|| c.classes[i + 1].map(|k| candidate.line_of(k))),
                message: format!(
                    "{name} {} (one custom_compute method per difference: {})",
                    parts.join(" and "),
                    list(&indices(expected.into_iter()))
                ),
            });
        }
        for (idx, f) in &c.custom[i] {
            let want = r.custom[i].get(idx).map(|g| statements(g));
            let got = statements(f);
            if want.is_some_and(|w| w != got) {
                issues.push(Issue {
                    check: "difference_block_line_counts",
                    class: Some(name),
                    method: Some(f.name.to_string()),
                    line: Some(line(f)),
                    message: format!(
                        "{name}.{} (line {}) has {got} statements; it must be {} (only the differing line, as one return)",
                        f.name,
                        line(f),
                        match want {
                            Some(1) => "a single return".to_string(),
                            Some(w) => format!("{w} statements"),
                            None => String::new(),
                        }
                    ),
                });
            }
        }
    }
    let union = |s: &Shape| -> Vec<Index> {
        let set: std::collections::BTreeSet<Index> = s.custom.iter().flat_map(|m| m.keys().cloned()).collect();
        set.into_iter().collect()
    };
    let (ru, cu) = (union(&r), union(&c));
    if ru != cu {
        issues.push(Issue {
            check: "difference_indices",
            class: None,
            method: None,
            line: None,
            message: format!(
                "the subclasses define custom_compute methods {} together; the task has {} difference{} ({})",
                list(&indices(cu.iter())),
                ru.len(),
                if ru.len() == 1 { "" } else { "s" },
                list(&indices(ru.iter()))
            ),
        });
    }
    match c.compute {
        None => issues.push(Issue {
            check: "has_calculate_compute",
            class: Some("Calculate"),
            method: Some("compute".into()),
            line: c.classes[0].map(|k| candidate.line_of(k)),
            message: format!(
                "Calculate (line {}) defines no compute(): the shared calculation belongs there",
                c.classes[0].map(|k| candidate.line_of(k)).unwrap_or(0)
            ),
        }),
        Some(f) => {
            let want: Vec<&Index> = r.calls.iter().map(|c| &c.0).collect();
            let got: Vec<&Index> = c.calls.iter().map(|c| &c.0).collect();
            if want != got {
                // The first index called too often, too rarely, or not expected.
                let mut counts: BTreeMap<&Index, (usize, usize)> = BTreeMap::new();
                for i in &want {
                    counts.entry(i).or_default().0 += 1;
                }
                for i in &got {
                    counts.entry(i).or_default().1 += 1;
                }
                let (idx, (w, g)) =
                    counts.iter().find(|(_, (w, g))| w != g).map(|(i, x)| (*i, *x)).unwrap_or((want[0], (1, 0)));
                let at = c.calls.iter().find(|x| &x.0 == idx).map(|x| candidate.line(x.1));
                let message = match (w, g) {
                    (_, 0) => format!(
                        "Calculate.compute (line {}) never calls self.custom_compute_{idx}(…): every difference is called once",
                        line(f)
                    ),
                    (0, _) => format!(
                        "Calculate.compute calls self.custom_compute_{idx}(…) (line {}), but the task has no such difference",
                        at.unwrap_or(0)
                    ),
                    (w, g) => format!(
                        "Calculate.compute calls self.custom_compute_{idx}(…) {g} times (first at line {}); it must call it {}",
                        at.unwrap_or(0),
                        if w == 1 { "exactly once".to_string() } else { format!("{w} times") }
                    ),
                };
                issues.push(Issue {
                    check: "calculate_compute_call_indices",
                    class: Some("Calculate"),
                    method: Some("compute".into()),
                    line: at.or(Some(line(f))),
                    message,
                });
            }
        }
    }
    let meta_issues: Vec<serde_json::Value> = issues
        .iter()
        .map(|i| json!({ "check": i.check, "class_name": i.class, "method": i.method, "line": i.line, "message": i.message }))
        .collect();
    let metadata = json!({ "expected": summary(&r), "actual": summary(&c), "issues": meta_issues });
    StructureVerdict {
        outcome: if issues.is_empty() { CheckOutcome::Pass } else { CheckOutcome::Fail },
        issues,
        metadata,
    }
}

/// [`difference_blocks`] on sources: a program that does not parse is an error.
pub fn difference_blocks_src(candidate: &str, reference: &str) -> StructureVerdict {
    match (Program::parse(candidate), Program::parse(reference)) {
        (Ok(c), Ok(r)) => difference_blocks(&c, &r),
        (c, r) => {
            let (line, message) = match (c, r) {
                (Err(e), _) => (Some(e.line), format!("the candidate does not parse (line {}: {})", e.line, e.message)),
                (_, Err(e)) => {
                    (None, format!("the reference solution does not parse (line {}: {})", e.line, e.message))
                }
                _ => (None, String::new()),
            };
            let issue = Issue { check: "parse", class: None, method: None, line, message };
            StructureVerdict {
                outcome: CheckOutcome::Error,
                metadata: json!({ "error": issue.message }),
                issues: vec![issue],
            }
        }
    }
}

/// The static rubric's `difference_blocks` item.
pub fn rubric_item(c: &crate::rubric::Ctx) -> crate::rubric::RubricOutcome {
    let v = difference_blocks(c.candidate, c.reference);
    crate::rubric::RubricOutcome {
        passed: v.outcome == CheckOutcome::Pass,
        reason: v.message(),
        line: v.issues.first().and_then(|i| i.line),
    }
}

/// The static rubric's `merge_module_code` item: at module level only the imports, the three classes
/// (once each) and the `__main__` block: no other class, function, variable or code.
pub fn module_code(c: &crate::rubric::Ctx) -> crate::rubric::RubricOutcome {
    let p = c.candidate;
    let mut seen: Vec<&str> = Vec::new();
    for s in p.body() {
        let problem = match s {
            Stmt::Import(_) | Stmt::ImportFrom(_) => None,
            Stmt::Expr(e) if e.value.is_string_literal_expr() => None,
            s if crate::program::is_main_guard(s) => None,
            Stmt::ClassDef(k) if ["Calculate", CHILDREN[0], CHILDREN[1]].contains(&k.name.as_str()) => {
                if seen.contains(&k.name.as_str()) {
                    Some(format!("class {} is defined twice", k.name))
                } else {
                    seen.push(k.name.as_str());
                    None
                }
            }
            Stmt::ClassDef(k) => Some(format!("a new class `{}`", k.name)),
            Stmt::FunctionDef(f) => Some(format!("a module-level function `{}`", f.name)),
            other => Some(format!("module-level code `{}`", p.text(other))),
        };
        if let Some(what) = problem {
            return crate::rubric::RubricOutcome {
                passed: false,
                reason: format!(
                    "{what}: keep only Calculate, CalculateA and CalculateB (helper methods go inside them)"
                ),
                line: Some(p.line_of(s)),
            };
        }
    }
    crate::rubric::RubricOutcome {
        passed: true,
        reason: "only the three classes, the imports and the main block at module level".into(),
        line: None,
    }
}
