//! The static rubric: checks of a candidate `solution.py` that need no execution, on what every task
//! record has (so reference records read too, D11). Each item is a must-have or a diagnostic and says
//! why it passed or failed, and where.
//!
//! The items are one table, [`CHECKS`]; a kind's or an axis's own items have their function in the
//! module of their concern (`merge`, `renames`, `branches`, …). Kinds and axes name the items they use
//! by id (`TaskKind::rubric`, `AxisDef::rubric`), since the generator is below this crate; a test
//! checks every id exists.

use super::program::{same_expr, same_function, same_shape, same_stmt, snippet, with_stack, Program, ProgramError};
use cabrito_gen::words::count;
use cabrito_gen::{Axis, Domain, Kind};
use ruff_python_ast::{self as ast, Expr, Stmt, StmtFunctionDef};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// What the rubric needs to know about a task.
#[derive(Clone, Copy, Debug)]
pub struct TaskRef<'a> {
    pub kind: Kind,
    pub domain: Domain,
    /// The scaling axis (its own rubric items join the kind's).
    pub axis: Axis,
    pub starter: &'a str,
    pub reference: &'a str,
    /// The record's `metadata` (`Value::Null` when the record has none).
    pub metadata: &'a serde_json::Value,
}

impl<'a> TaskRef<'a> {
    /// The parts of a Cabrito task the static checks read.
    pub fn of(task: &'a cabrito_gen::Task) -> TaskRef<'a> {
        TaskRef {
            kind: task.spec.kind,
            domain: task.spec.domain,
            axis: task.spec.axis,
            starter: &task.starter_code,
            reference: &task.solution_code,
            metadata: &task.metadata,
        }
    }
}

/// One rubric item: the one type the rubric, the worker's protocol (`protocol::Check` wraps it with
/// its source) and the playground's checker share, serialised the same way everywhere.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RubricItem {
    /// The check's id (`compilation`, `edit_path`, …): a static name when the rubric made it, owned
    /// when read back from JSON.
    pub id: Cow<'static, str>,
    pub title: String,
    pub must_have: bool,
    pub passed: bool,
    pub reason: String,
    /// 1-based line in the candidate the reason is about.
    pub line: Option<usize>,
}

/// The rubric of one candidate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rubric {
    pub items: Vec<RubricItem>,
}

impl Rubric {
    /// Do all must-have items pass?
    pub fn passed(&self) -> bool {
        self.items.iter().all(|i| i.passed || !i.must_have)
    }
    /// The item with this id.
    pub fn item(&self, id: &str) -> Option<&RubricItem> {
        self.items.iter().find(|i| i.id == id)
    }
    /// An item's verdict in the reference scorer's terms (`pass`, `fail`, or `error` when the candidate
    /// does not parse, as the reference reports parse failures of `compilation`, `function_existence` and
    /// `edit_path`). `None` for an id the rubric does not have.
    pub fn reference_type(&self, id: &str) -> Option<&'static str> {
        let item = self.item(id)?;
        let parsed = self.item("compilation").is_some_and(|c| c.passed);
        Some(if !parsed {
            "error"
        } else if item.passed {
            "pass"
        } else {
            "fail"
        })
    }
    /// The must-have items that failed.
    pub fn failed_must_haves(&self) -> impl Iterator<Item = &RubricItem> {
        self.items.iter().filter(|i| i.must_have && !i.passed)
    }
}

/// Everything a check sees: the task, and the three programs parsed.
pub struct Ctx<'a> {
    pub task: &'a TaskRef<'a>,
    pub starter: &'a Program<'a>,
    pub reference: &'a Program<'a>,
    pub candidate: &'a Program<'a>,
}

/// A check's verdict.
pub struct RubricOutcome {
    pub passed: bool,
    pub reason: String,
    pub line: Option<usize>,
}

fn pass(reason: impl Into<String>) -> RubricOutcome {
    RubricOutcome { passed: true, reason: reason.into(), line: None }
}

fn fail(reason: impl Into<String>, line: Option<usize>) -> RubricOutcome {
    RubricOutcome { passed: false, reason: reason.into(), line }
}

pub use cabrito_gen::kinds::Level;

/// When a check is in the rubric. A kind may list any check in [`cabrito_gen::kinds::TaskKind::rubric`]
/// with a level, which overrides this.
#[derive(Clone, Copy)]
pub enum Applies {
    /// Every kind, at this level.
    All(Level),
    /// Only the kinds that list it.
    Listed,
}

impl Check {
    /// Whether this check is in a task's rubric, and as a must-have: the kind's listing, else the
    /// axis's, else [`Check::applies`].
    fn must_have_for(&self, task: &TaskRef) -> Option<bool> {
        let find = |list: &[(&str, Level)]| list.iter().find(|(id, _)| *id == self.id).map(|&(_, level)| level);
        let listed = find(task.kind.def().rubric()).or_else(|| find(task.axis.def().rubric()));
        match (listed, self.applies) {
            (Some(Level::Off), _) | (None, Applies::All(Level::Off)) | (None, Applies::Listed) => None,
            (Some(level), _) | (None, Applies::All(level)) => Some(level == Level::Must),
        }
    }
}

/// One entry of the rubric table.
pub struct Check {
    pub id: &'static str,
    pub applies: Applies,
    pub title: fn(&TaskRef) -> String,
    pub run: fn(&Ctx) -> RubricOutcome,
}

/// The rubric, in report order (after `compilation`, which gates the rest).
pub const CHECKS: &[Check] = &[
    Check {
        id: "function_existence",
        applies: Applies::All(Level::Nice),
        title: |_| "Function existence (the reference's dead-code rule)".into(),
        run: function_existence,
    },
    Check {
        id: "no_missing_functions",
        applies: Applies::All(Level::Must),
        title: |_| "Every function of the reference exists".into(),
        run: no_missing_functions,
    },
    Check {
        id: "no_new_functions",
        applies: Applies::All(Level::Must),
        title: |_| "No new top-level functions".into(),
        run: no_new_functions,
    },
    Check {
        id: "function_names",
        applies: Applies::All(Level::Must),
        title: |_| "Function names preserved".into(),
        run: function_names,
    },
    Check {
        id: "no_new_imports",
        applies: Applies::All(Level::Must),
        title: |_| "No new imports".into(),
        run: no_new_imports,
    },
    Check {
        id: "no_module_names",
        applies: Applies::All(Level::Must),
        title: |_| "No module-level variables or other module code".into(),
        run: no_module_names,
    },
    Check {
        id: "main_unchanged",
        applies: Applies::All(Level::Must),
        title: |_| "main() unchanged".into(),
        run: main_unchanged,
    },
    Check {
        id: "main_guard_unchanged",
        applies: Applies::All(Level::Must),
        title: |_| "The `if __name__ == '__main__':` block unchanged".into(),
        run: main_guard_unchanged,
    },
    Check {
        id: "required_parameter",
        applies: Applies::Listed,
        title: |t| {
            let (p, d) = required_parameter_name(t);
            format!("The `{p}` parameter added with its default ({d}) exactly where the reference has it")
        },
        run: required_parameter,
    },
    Check {
        id: "parameter_passed",
        applies: Applies::Listed,
        title: |t| {
            format!("`{}` handed on in exactly the calls where the reference passes it", required_parameter_name(t).0)
        },
        run: parameter_passed,
    },
    Check {
        id: "library_calls",
        applies: Applies::Listed,
        title: |t| {
            let f = t.kind.def().library(t.domain).unwrap_or("mylibrary");
            format!("The library call (`{f}()`) made in exactly the functions where the reference makes it")
        },
        run: library_calls,
    },
    Check {
        id: "return_annotations",
        applies: Applies::Listed,
        title: |t| {
            let shape = t.kind.def().tuple_return().unwrap_or("tuple[…]");
            format!("Return annotations `{shape}` exactly where the reference has them")
        },
        run: return_annotations,
    },
    Check {
        id: "constraint_structure",
        applies: Applies::Listed,
        title: |_| "Every requirement line in every function it applies to, in the prescribed order".into(),
        run: super::constraints::constraint_structure,
    },
    Check {
        id: "difference_blocks",
        applies: Applies::Listed,
        title: |_| {
            "Template method: Calculate.compute() calls one custom_compute method per difference; the subclasses keep only those, one return each".into()
        },
        run: crate::merge::structure::rubric_item,
    },
    Check {
        id: "merge_module_code",
        applies: Applies::Listed,
        title: |_| "Only the three classes at module level (no other classes, functions or variables)".into(),
        run: crate::merge::structure::module_code,
    },
    Check {
        id: "edit_path",
        applies: Applies::All(Level::Nice),
        title: |_| "Edit path: the same functions changed as in the reference (diagnostic)".into(),
        run: edit_path,
    },
    Check {
        id: "branch_placement",
        applies: Applies::Listed,
        title: |_| "Edits only in the branches that run, and every edit the reference makes there".into(),
        run: super::branches::branch_placement,
    },
    Check {
        id: "comment_copy",
        applies: Applies::Listed,
        title: |_| "The comment copied word for word, on a line of its own, into every function to change".into(),
        run: super::comment::comment_copy,
    },
    Check {
        id: "renames",
        applies: Applies::Listed,
        title: |_| "Each listed variable renamed where it is defined and wherever it is used, and no other name".into(),
        run: super::renames::renames,
    },
];

/// Run the static rubric on a candidate program.
pub fn static_checks(task: &TaskRef, candidate: &str) -> Rubric {
    let mut items = Vec::new();
    let cand = Program::parse(candidate);
    items.push(compilation_item(&cand));
    let starter = Program::parse(task.starter);
    let reference = Program::parse(task.reference);
    let depth = [&cand, &starter, &reference].iter().filter_map(|p| p.as_ref().ok()).map(|p| p.depth()).max();
    let blocked: Option<String> = match (&cand, &starter, &reference) {
        (Err(_), _, _) => Some("not checked: the candidate does not parse".into()),
        (_, Err(e), _) => {
            Some(format!("not checked: the task's starter code does not parse (line {}: {})", e.line, e.message))
        }
        (_, _, Err(e)) => {
            Some(format!("not checked: the task's reference solution does not parse (line {}: {})", e.line, e.message))
        }
        _ => None,
    };
    with_stack(depth.unwrap_or(0), || run_checks(task, &cand, &starter, &reference, &blocked, &mut items));
    Rubric { items }
}

/// The `compilation` item: what CPython 3.11's `compile()` says, through the one front end.
pub fn compilation_item(cand: &Result<Program, ProgramError>) -> RubricItem {
    RubricItem {
        id: Cow::Borrowed("compilation"),
        title: "The file parses and compiles".into(),
        must_have: true,
        passed: cand.is_ok(),
        reason: match cand {
            Ok(_) => "parses; no compile-time errors found".into(),
            Err(e) => e.message.clone(),
        },
        line: cand.as_ref().err().map(|e| e.line),
    }
}

fn run_checks(
    task: &TaskRef,
    cand: &Result<Program, ProgramError>,
    starter: &Result<Program, ProgramError>,
    reference: &Result<Program, ProgramError>,
    blocked: &Option<String>,
    items: &mut Vec<RubricItem>,
) {
    for check in CHECKS {
        let Some(must_have) = check.must_have_for(task) else { continue };
        let outcome = match (blocked, cand, starter, reference) {
            (None, Ok(c), Ok(s), Ok(r)) => (check.run)(&Ctx { task, starter: s, reference: r, candidate: c }),
            (b, ..) => fail(b.clone().unwrap_or_default(), None),
        };
        items.push(RubricItem {
            id: Cow::Borrowed(check.id),
            title: (check.title)(task),
            must_have,
            passed: outcome.passed,
            reason: outcome.reason,
            line: outcome.line,
        });
    }
}

/// `a, b, c and 4 more`
fn list<S: AsRef<str>>(names: &[S]) -> String {
    const SHOWN: usize = 6;
    let shown: Vec<String> = names.iter().take(SHOWN).map(|n| format!("`{}`", n.as_ref())).collect();
    let mut s = shown.join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

// ------------------------------------------------------------------------------------------------
// Function sets
// ------------------------------------------------------------------------------------------------

/// grading.md §4.2, exactly (one implementation, shared with the behavioural grader).
fn function_existence(c: &Ctx) -> RubricOutcome {
    let e = super::existence::function_existence(c.starter, c.reference, c.candidate);
    if e.passed() {
        pass(e.message())
    } else {
        fail(e.message(), e.line)
    }
}

/// D6: every reference function except `main` exists in the candidate (`main` too when the kind's
/// behavioural check calls it).
fn no_missing_functions(c: &Ctx) -> RubricOutcome {
    let cand = c.candidate.function_names();
    let with_main = c.task.kind.def().grades_main();
    let refs: Vec<&str> = c.reference.function_names().into_iter().filter(|n| with_main || *n != "main").collect();
    let missing: Vec<&str> = refs.iter().filter(|n| !cand.contains(*n)).copied().collect();
    if missing.is_empty() {
        let besides = if with_main { "" } else { " (besides main)" };
        pass(format!(
            "all {} {} of the reference{besides} {} defined",
            refs.len(),
            if refs.len() == 1 { "function" } else { "functions" },
            if refs.len() == 1 { "is" } else { "are" }
        ))
    } else {
        fail(
            format!(
                "{} of the reference {} missing: {}",
                count(missing.len(), "function", "functions"),
                if missing.len() == 1 { "is" } else { "are" },
                list(&missing)
            ),
            None,
        )
    }
}

/// No top-level function that neither the starter nor the reference has, and none defined twice.
fn no_new_functions(c: &Ctx) -> RubricOutcome {
    let known: BTreeSet<&str> = c.starter.function_names().union(&c.reference.function_names()).copied().collect();
    let fns = c.candidate.functions();
    let new: Vec<&StmtFunctionDef> = fns.iter().filter(|f| !known.contains(f.name.as_str())).copied().collect();
    if let Some(first) = new.first() {
        let names: Vec<&str> = new.iter().map(|f| f.name.as_str()).collect();
        return fail(
            format!(
                "{} that the task does not have: {}",
                count(new.len(), "new function", "new functions"),
                list(&names)
            ),
            Some(c.candidate.line_of(*first)),
        );
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let ref_counts = def_counts(c.reference);
    for f in &fns {
        let n = f.name.as_str();
        *seen.entry(n).or_default() += 1;
        if seen[n] == 2 && ref_counts.get(n).copied().unwrap_or(0) < 2 {
            let first = fns.iter().find(|g| g.name.as_str() == n).map(|g| c.candidate.line_of(*g)).unwrap_or(0);
            return fail(
                format!(
                    "`{n}` is defined twice (lines {first} and {}); only the last definition counts",
                    c.candidate.line_of(*f)
                ),
                Some(c.candidate.line_of(*f)),
            );
        }
    }
    pass("no functions beyond the task's, none defined twice")
}

fn def_counts<'a>(p: &'a Program) -> BTreeMap<&'a str, usize> {
    let mut m = BTreeMap::new();
    for f in p.functions() {
        *m.entry(f.name.as_str()).or_default() += 1;
    }
    m
}

/// A function missing from the candidate while a new one appears: a rename.
fn function_names(c: &Ctx) -> RubricOutcome {
    let cand = c.candidate.function_names();
    let known: BTreeSet<&str> = c.starter.function_names().union(&c.reference.function_names()).copied().collect();
    let missing: Vec<&str> = c.reference.function_names().into_iter().filter(|n| !cand.contains(*n)).collect();
    let new: Vec<&str> = cand.iter().filter(|n| !known.contains(*n)).copied().collect();
    if missing.is_empty() || new.is_empty() {
        return pass("no function was renamed");
    }
    // Pair each new function with a missing one of the same shape (reference or starter version).
    let mut pairs = Vec::new();
    // Shape comparisons cost a tree walk each; a handful of renames is all a message needs.
    for n in new.iter().take(20) {
        let Some(f) = c.candidate.function(n) else { continue };
        let twin = missing.iter().find(|m| {
            c.reference.function(m).is_some_and(|r| same_shape(r, f))
                || c.starter.function(m).is_some_and(|s| same_shape(s, f))
        });
        if let Some(m) = twin {
            pairs.push(format!("`{m}` → `{n}`"));
        }
    }
    let line = c.candidate.function(new[0]).map(|f| c.candidate.line_of(f));
    if pairs.is_empty() {
        fail(format!("names changed: {} gone, {} new; keep every function name", list(&missing), list(&new)), line)
    } else {
        fail(format!("renamed: {}; keep every function name", pairs.join(", ")), line)
    }
}

// ------------------------------------------------------------------------------------------------
// Module-level code
// ------------------------------------------------------------------------------------------------

/// Every import of the candidate (at any depth) is one the starter or the reference has.
fn no_new_imports(c: &Ctx) -> RubricOutcome {
    let known: BTreeSet<String> =
        c.starter.imports().into_iter().chain(c.reference.imports()).map(|(s, _)| s).collect();
    let new: Vec<(String, usize)> = c.candidate.imports().into_iter().filter(|(s, _)| !known.contains(s)).collect();
    match new.first() {
        None => pass("imports only what the task imports"),
        Some((_, line)) => {
            let names: Vec<&str> = new.iter().map(|(s, _)| s.as_str()).collect();
            fail(format!("{}: {}", count(new.len(), "new import", "new imports"), list(&names)), Some(*line))
        }
    }
}

/// No module-level statement (beyond defs, imports and the main guard) that the reference does not have,
/// and no `global` declaration the reference does not have.
fn no_module_names(c: &Ctx) -> RubricOutcome {
    let mut allowed: Vec<&Stmt> = c.reference.module_code();
    for s in c.candidate.module_code() {
        if let Some(i) = allowed.iter().position(|r| same_stmt(r, s)) {
            allowed.remove(i);
            continue;
        }
        let what = match s {
            Stmt::Assign(_) | Stmt::AnnAssign(_) | Stmt::AugAssign(_) => {
                let names = bound_names(s);
                if names.is_empty() {
                    format!("a module-level assignment `{}`", c.candidate.text(s))
                } else {
                    format!("a module-level variable {}", list(&names))
                }
            }
            Stmt::ClassDef(k) => format!("a module-level class `{}`", k.name.as_str()),
            Stmt::FunctionDef(f) => format!("a module-level `async def {}`", f.name.as_str()),
            _ => format!("module-level code `{}`", c.candidate.text(s)),
        };
        return fail(
            format!("{what}: add no module-level variables or code (locals inside functions are fine)"),
            Some(c.candidate.line_of(s)),
        );
    }
    let ref_globals: BTreeSet<String> = c.reference.globals().into_iter().map(|g| g.0).collect();
    if let Some((name, line)) = c.candidate.globals().into_iter().find(|g| !ref_globals.contains(&g.0)) {
        return fail(
            format!("`global {name}` makes a module-level variable; global variables are not allowed"),
            Some(line),
        );
    }
    pass("no module-level variables or code beyond the task's")
}

fn bound_names(s: &Stmt) -> Vec<String> {
    fn names(e: &Expr, out: &mut Vec<String>) {
        match e {
            Expr::Name(n) => out.push(n.id.to_string()),
            Expr::Tuple(t) => t.elts.iter().for_each(|x| names(x, out)),
            Expr::List(l) => l.elts.iter().for_each(|x| names(x, out)),
            Expr::Starred(s) => names(&s.value, out),
            _ => {}
        }
    }
    let mut out = Vec::new();
    match s {
        Stmt::Assign(a) => a.targets.iter().for_each(|t| names(t, &mut out)),
        Stmt::AnnAssign(a) => names(&a.target, &mut out),
        Stmt::AugAssign(a) => names(&a.target, &mut out),
        _ => {}
    }
    out
}

/// `main()` is the reference's `main()`, up to formatting.
fn main_unchanged(c: &Ctx) -> RubricOutcome {
    let Some(r) = c.reference.function("main") else {
        return pass("the reference has no main(); nothing to compare");
    };
    match c.candidate.function("main") {
        None => fail("main() is missing; leave it unchanged", None),
        Some(m) if same_function(r, m) => pass("main() is the same as in the reference"),
        Some(m) => {
            let line = first_difference(c, r, m).unwrap_or_else(|| c.candidate.line_of(m));
            fail(format!("main() differs from the reference at line {line}; leave main() unchanged"), Some(line))
        }
    }
}

/// The line of the first statement of `cand` that differs from `reference`'s (same function).
fn first_difference(c: &Ctx, reference: &StmtFunctionDef, cand: &StmtFunctionDef) -> Option<usize> {
    if !same_expr(reference.returns.as_deref(), cand.returns.as_deref())
        || ruff_python_ast::comparable::ComparableParameters::from(&*reference.parameters)
            != ruff_python_ast::comparable::ComparableParameters::from(&*cand.parameters)
    {
        return Some(c.candidate.line_of(cand));
    }
    for (i, s) in cand.body.iter().enumerate() {
        match reference.body.get(i) {
            Some(r) if same_stmt(r, s) => continue,
            _ => return Some(c.candidate.line_of(s)),
        }
    }
    None
}

/// The `if __name__ …:` blocks are the reference's, up to formatting.
fn main_guard_unchanged(c: &Ctx) -> RubricOutcome {
    let r = c.reference.main_guards();
    let k = c.candidate.main_guards();
    if r.is_empty() && k.is_empty() {
        return pass("neither the reference nor the candidate has a main guard");
    }
    if k.is_empty() {
        return fail(format!("the `{}` block is missing; leave it unchanged", c.reference.text(r[0])), None);
    }
    if r.is_empty() {
        return fail(
            "the reference has no `if __name__` block, the candidate adds one",
            Some(c.candidate.line_of(k[0])),
        );
    }
    if r.len() != k.len() {
        return fail(
            format!("the reference has {} `if __name__` block(s), the candidate {}", r.len(), k.len()),
            Some(c.candidate.line_of(k[0])),
        );
    }
    for (a, b) in r.iter().zip(&k) {
        if !same_stmt(a, b) {
            return fail(
                format!(
                    "the main guard differs from the reference's (`{}` …); leave it unchanged",
                    snippet(&c.reference.text(*a))
                ),
                Some(c.candidate.line_of(*b)),
            );
        }
    }
    pass("the main guard is the same as in the reference")
}

// ------------------------------------------------------------------------------------------------
// Kind-specific signatures
// ------------------------------------------------------------------------------------------------

/// The parameter a kind adds and a description of its default.
fn required_parameter_name(t: &TaskRef) -> (&'static str, &'static str) {
    t.kind.def().added_parameter(t.domain).unwrap_or(("", "none"))
}

/// The parameter names a kind adds: the kind's name, plus the numbered ones of instruction-following
/// records (`mult1`, `mult2`, …) found in the reference.
fn parameter_names(c: &Ctx) -> BTreeSet<String> {
    let (base, _) = required_parameter_name(c.task);
    let mut names: BTreeSet<String> = BTreeSet::from([base.to_string()]);
    for f in c.reference.functions() {
        for a in f.parameters.posonlyargs.iter().chain(f.parameters.args.iter()).chain(f.parameters.kwonlyargs.iter()) {
            let n = a.parameter.name.as_str();
            if n.strip_prefix(base).is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) {
                names.insert(n.to_string());
            }
        }
    }
    names
}

/// add_parameter / cache_function: in every function, the calls that hand on the parameter go to the same
/// callees as in the reference (a missing `mult=mult`, or `temp` passed past the callers of `slow()`, fail).
fn parameter_passed(c: &Ctx) -> RubricOutcome {
    let names = parameter_names(c);
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut passing = 0;
    for r in c.reference.functions() {
        let Some(k) = c.candidate.function(r.name.as_str()) else { continue };
        let (rc, kc) = (c.reference.calls_in(r), c.candidate.calls_in(k));
        for p in &names {
            let handed = |calls: &[super::program::ParsedCall]| -> BTreeMap<String, usize> {
                let mut m = BTreeMap::new();
                for call in calls.iter().filter(|x| x.passes(p)) {
                    if let Some(callee) = &call.callee {
                        *m.entry(callee.clone()).or_default() += 1;
                    }
                }
                m
            };
            let (want, got) = (handed(&rc), handed(&kc));
            passing += want.values().sum::<usize>();
            for (callee, n) in &want {
                if got.get(callee).copied().unwrap_or(0) < *n {
                    let line = kc
                        .iter()
                        .find(|x| x.callee.as_deref() == Some(callee.as_str()))
                        .map(|x| x.line)
                        .unwrap_or_else(|| c.candidate.line_of(k));
                    problems.push((line, format!("`{}` calls `{callee}` without passing `{p}`", r.name.as_str())));
                }
            }
            for (callee, n) in &got {
                if want.get(callee).copied().unwrap_or(0) < *n {
                    let line = kc
                        .iter()
                        .find(|x| x.callee.as_deref() == Some(callee.as_str()) && x.passes(p))
                        .map(|x| x.line)
                        .unwrap_or_else(|| c.candidate.line_of(k));
                    problems.push((
                        line,
                        format!("`{}` passes `{p}` to `{callee}`, which the reference does not", r.name.as_str()),
                    ));
                }
            }
        }
    }
    let p = names.iter().cloned().collect::<Vec<_>>().join("`, `");
    if problems.is_empty() {
        return pass(format!("`{p}` is handed on in the same {} as in the reference", count(passing, "call", "calls")));
    }
    report(problems)
}

/// Fail with up to three problems (sorted by line), pointing at the first.
fn report(mut problems: Vec<(usize, String)>) -> RubricOutcome {
    problems.sort();
    problems.dedup();
    let shown: Vec<&str> = problems.iter().take(3).map(|p| p.1.as_str()).collect();
    let more = if problems.len() > 3 { format!(" (and {} more)", problems.len() - 3) } else { String::new() };
    let line = problems.first().map(|p| p.0).filter(|&l| l > 0);
    fail(format!("{}{more}", shown.join("; ")), line)
}

/// The names the task imports from `mylibrary`.
fn library_names(c: &Ctx) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (imp, _) in c.reference.imports().into_iter().chain(c.starter.imports()) {
        if let Some(rest) = imp.strip_prefix("from mylibrary import ") {
            let name = rest.split(" as ").last().unwrap_or(rest);
            out.insert(name.to_string());
        }
    }
    out
}

/// The library function of the task (`slow()`, `get_multiplier()`, `external()`, …) is called in the same
/// functions, as often, as in the reference: the cache at the lowest common ancestor, the helper at the
/// nearest common descendant.
fn library_calls(c: &Ctx) -> RubricOutcome {
    let libs = library_names(c);
    if libs.is_empty() {
        return pass("the task imports nothing from mylibrary");
    }
    let calls_by_site = |p: &Program| -> BTreeMap<(String, String), (usize, usize)> {
        let mut m = BTreeMap::new();
        for f in p.functions() {
            for call in p.calls_in(f) {
                if let Some(callee) = call.callee.filter(|n| libs.contains(n)) {
                    let e = m.entry((callee, f.name.to_string())).or_insert((0, call.line));
                    e.0 += 1;
                }
            }
        }
        m
    };
    let (want, got) = (calls_by_site(c.reference), calls_by_site(c.candidate));
    let mut problems: Vec<(usize, String)> = Vec::new();
    let callers = |m: &BTreeMap<(String, String), (usize, usize)>, lib: &str| -> Vec<String> {
        m.keys().filter(|(l, _)| l == lib).map(|(_, f)| f.clone()).collect()
    };
    for ((lib, f), (n, _)) in &want {
        let have = got.get(&(lib.clone(), f.clone())).map(|x| x.0).unwrap_or(0);
        if have < *n && c.candidate.function(f).is_some() {
            let line = c.candidate.function(f).map(|k| c.candidate.line_of(k));
            problems.push((
                line.unwrap_or(0),
                format!(
                    "`{f}` should call `{lib}()` {} (as the reference does) but calls it {}",
                    times(*n),
                    times(have)
                ),
            ));
        }
    }
    for ((lib, f), (n, line)) in &got {
        let expected = want.get(&(lib.clone(), f.clone())).map(|x| x.0).unwrap_or(0);
        if *n > expected {
            let refs = callers(&want, lib);
            let where_ = if refs.is_empty() { "nowhere".to_string() } else { format!("only in {}", list(&refs)) };
            problems.push((*line, format!("`{f}` calls `{lib}()` {}; the reference calls it {where_}", times(*n))));
        }
    }
    if problems.is_empty() {
        let calls: usize = want.values().map(|x| x.0).sum();
        let libs: Vec<&String> = libs.iter().collect();
        return pass(format!(
            "{} to {} made where the reference makes them",
            count(calls, "call", "calls"),
            list(&libs)
        ));
    }
    report(problems)
}

fn times(n: usize) -> String {
    match n {
        0 => "never".into(),
        1 => "once".into(),
        2 => "twice".into(),
        n => format!("{n} times"),
    }
}

fn find_param<'a>(f: &'a StmtFunctionDef, name: &str) -> Option<&'a ast::ParameterWithDefault> {
    let p = &f.parameters;
    p.posonlyargs.iter().chain(p.args.iter()).chain(p.kwonlyargs.iter()).find(|a| a.parameter.name.as_str() == name)
}

/// add_parameter / cache_function: every function with the parameter in the reference has it in the
/// candidate, with the reference's annotation and default; no other function has it.
fn required_parameter(c: &Ctx) -> RubricOutcome {
    let names = parameter_names(c);
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut with = 0;
    for r in c.reference.functions() {
        let Some(k) = c.candidate.function(r.name.as_str()) else { continue };
        let name = r.name.as_str();
        for p in names.iter().map(String::as_str) {
            match (find_param(r, p), find_param(k, p)) {
                (Some(rp), None) => {
                    with += 1;
                    problems.push((
                        c.candidate.line_of(k),
                        format!("`{name}` lacks the parameter `{}`", c.reference.text(rp)),
                    ));
                }
                (Some(rp), Some(kp)) => {
                    with += 1;
                    if !same_expr(rp.default.as_deref(), kp.default.as_deref()) {
                        let want =
                            rp.default.as_deref().map(|d| c.reference.text(d)).unwrap_or_else(|| "no default".into());
                        let got = kp.default.as_deref().map(|d| c.candidate.text(d)).unwrap_or_else(|| "none".into());
                        problems.push((
                            c.candidate.line_of(kp),
                            format!("`{name}`'s `{p}` has default {got}; expected {want}"),
                        ));
                    } else if !same_expr(rp.parameter.annotation.as_deref(), kp.parameter.annotation.as_deref()) {
                        problems.push((
                            c.candidate.line_of(kp),
                            format!(
                                "`{name}`'s parameter is `{}`; expected `{}`",
                                c.candidate.text(kp),
                                c.reference.text(rp)
                            ),
                        ));
                    }
                }
                (None, Some(kp)) => problems.push((
                    c.candidate.line_of(kp),
                    format!("`{name}` gained `{p}` but the reference does not pass it there"),
                )),
                (None, None) => {}
            }
        }
    }
    let p = names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let p = p.trim_matches('`');
    if with == 0 && problems.is_empty() {
        return pass(format!("the reference adds no `{p}` parameter"));
    }
    if problems.is_empty() {
        return pass(format!(
            "the {} that {} `{p}` in the reference {} it here, with the same default",
            count(with, "function", "functions"),
            if with == 1 { "takes" } else { "take" },
            if with == 1 { "takes" } else { "take" }
        ));
    }
    report(problems)
}

fn is_tuple_annotation(e: Option<&Expr>) -> bool {
    match e {
        Some(Expr::Subscript(s)) => {
            matches!(&*s.value, Expr::Name(n) if n.id.as_str() == "tuple" || n.id.as_str() == "Tuple")
        }
        _ => false,
    }
}

/// add_return_value / extract_helper: a function annotated `tuple[…]` in the reference has the same
/// annotation in the candidate, and no other function returns a tuple annotation.
fn return_annotations(c: &Ctx) -> RubricOutcome {
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut tuples = 0;
    for r in c.reference.functions() {
        let Some(k) = c.candidate.function(r.name.as_str()) else { continue };
        let (ra, ka) = (r.returns.as_deref(), k.returns.as_deref());
        let (rt, kt) = (is_tuple_annotation(ra), is_tuple_annotation(ka));
        tuples += rt as usize;
        if !rt && !kt {
            continue;
        }
        if !same_expr(ra, ka) {
            let show = |p: &Program, e: Option<&Expr>| {
                e.map(|e| format!("-> {}", p.text(e))).unwrap_or_else(|| "no annotation".into())
            };
            let name = r.name.as_str();
            let msg = if rt {
                format!("`{name}` has {}; expected `{}`", show_code(show(c.candidate, ka)), show(c.reference, ra))
            } else {
                format!(
                    "`{name}` has `{}` but the reference keeps {}",
                    show(c.candidate, ka),
                    show_code(show(c.reference, ra))
                )
            };
            problems.push((c.candidate.line_of(k), msg));
        }
    }
    if problems.is_empty() {
        return if tuples == 0 {
            pass("the reference has no tuple return annotations")
        } else {
            pass(format!(
                "the {} of the reference {} there, and no others",
                count(tuples, "tuple return annotation", "tuple return annotations"),
                if tuples == 1 { "is" } else { "are" }
            ))
        };
    }
    report(problems)
}

fn show_code(s: String) -> String {
    if s.starts_with("->") {
        format!("`{s}`")
    } else {
        s
    }
}

// ------------------------------------------------------------------------------------------------
// Edit path (grading.md §4.3; diagnostic)
// ------------------------------------------------------------------------------------------------

/// Names of functions whose normalised source differs between two programs, including added/removed.
fn changed(a: &Program, b: &Program) -> BTreeSet<String> {
    let (na, nb) = (a.function_names(), b.function_names());
    let mut out = BTreeSet::new();
    for n in na.union(&nb) {
        match (a.function(n), b.function(n)) {
            (Some(x), Some(y)) if same_function(x, y) => {}
            _ => {
                out.insert(n.to_string());
            }
        }
    }
    out
}

fn edit_path(c: &Ctx) -> RubricOutcome {
    let expected = changed(c.starter, c.reference);
    let actual = changed(c.starter, c.candidate);
    // Signature differences on shared functions are recorded, never failed on (grading.md §4.3).
    let mut signatures = Vec::new();
    for r in c.reference.functions() {
        if let Some(k) = c.candidate.function(r.name.as_str()) {
            if param_names(r) != param_names(k) {
                signatures.push(r.name.as_str());
            }
        }
    }
    let signature_note = if signatures.is_empty() {
        String::new()
    } else {
        format!("; parameter names differ from the reference in {}", list(&signatures))
    };
    if expected == actual {
        return pass(format!(
            "changed the same {} as the reference{signature_note}",
            count(expected.len(), "function", "functions")
        ));
    }
    let extra: Vec<&String> = actual.difference(&expected).collect();
    let missing: Vec<&String> = expected.difference(&actual).collect();
    let mut parts = Vec::new();
    if !extra.is_empty() {
        parts.push(format!("changed but the reference does not: {}", list(&extra)));
    }
    let (removed, kept): (Vec<&String>, Vec<&String>) =
        missing.iter().partition(|n| c.reference.function(n).is_none() && c.starter.function(n).is_some());
    if !removed.is_empty() {
        parts.push(format!("kept although the reference removes them: {}", list(&removed)));
    }
    if !kept.is_empty() {
        parts.push(format!("left as in the starter although the reference changes them: {}", list(&kept)));
    }
    let line = extra.iter().chain(missing.iter()).find_map(|n| c.candidate.function(n)).map(|f| c.candidate.line_of(f));
    fail(format!("{}{signature_note}", parts.join("; ")), line)
}

/// Positional, keyword-only, `*args` and `**kwargs` names of a function.
fn param_names(f: &StmtFunctionDef) -> Vec<String> {
    let p = &f.parameters;
    let mut out: Vec<String> =
        p.posonlyargs.iter().chain(p.args.iter()).map(|a| a.parameter.name.to_string()).collect();
    out.push(format!("*{}", p.vararg.as_ref().map(|v| v.name.as_str()).unwrap_or("")));
    out.extend(p.kwonlyargs.iter().map(|a| a.parameter.name.to_string()));
    out.push(format!("**{}", p.kwarg.as_ref().map(|v| v.name.as_str()).unwrap_or("")));
    out
}

#[cfg(test)]
mod tests {
    use super::CHECKS;
    use cabrito_gen::{Axis, Kind};

    /// Kinds and axes register their rubric items and pass rules by id: every id they name is an
    /// item of [`CHECKS`], or one of the checks the grader runs itself.
    #[test]
    fn every_item_a_kind_or_an_axis_names_exists() {
        let graders_own = ["compilation", "function_existence", "behavioral"];
        let exists = |id: &str| CHECKS.iter().any(|c| c.id == id);
        for &kind in Kind::ALL {
            for (id, _) in kind.def().rubric() {
                assert!(exists(id), "{kind} lists an unknown rubric item {id}");
            }
            for id in kind.def().required_checks() {
                assert!(exists(id) || graders_own.contains(id), "{kind} requires an unknown check {id}");
            }
        }
        for &axis in Axis::ALL {
            for (id, _) in axis.def().rubric() {
                assert!(exists(id), "{axis} lists an unknown rubric item {id}");
            }
            for id in axis.def().required_checks() {
                assert!(exists(id) || graders_own.contains(id), "{axis} requires an unknown check {id}");
            }
        }
    }
}
