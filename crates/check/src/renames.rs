//! `renames`, variable_renaming's rubric item: the candidate's `main()` is the starter's with the
//! requested renames applied at every definition and use, and nothing else renamed, nothing captured.
//!
//! The starter's and the candidate's functions are walked side by side, statement by statement: each
//! pair must be the same statement once every name is blanked out, and then every name of the
//! candidate must be the starter's name under the rename table. The table is the record's
//! `metadata.renames` (`[[old, new], …]`); for a record without one, the names in which the starter
//! and the reference differ.

use super::program::Program;
use super::rubric::{Ctx, RubricOutcome};
use ruff_python_ast::comparable::ComparableStmt;
use ruff_python_ast::name::Name;
use ruff_python_ast::visitor::transformer::{self, Transformer};
use ruff_python_ast::{Expr, Stmt, StmtFunctionDef};
use ruff_text_size::{Ranged, TextSize};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// Blanks out every name of a statement, keeping the names in walk order with their positions.
#[derive(Default)]
struct Blank {
    names: RefCell<Vec<(String, TextSize)>>,
}

impl Transformer for Blank {
    fn visit_expr(&self, expr: &mut Expr) {
        if let Expr::Name(n) = expr {
            self.names.borrow_mut().push((n.id.to_string(), n.start()));
            n.id = Name::new_static("_");
        }
        transformer::walk_expr(self, expr);
    }
}

/// A statement with its names blanked (for comparison) and the names, in walk order.
fn blanked(s: &Stmt) -> (Stmt, Vec<(String, TextSize)>) {
    let mut copy = s.clone();
    let b = Blank::default();
    b.visit_stmt(&mut copy);
    (copy, b.names.into_inner())
}

/// The parameter names of a function, in order, with their positions.
fn params(f: &StmtFunctionDef) -> Vec<(String, TextSize)> {
    let p = &f.parameters;
    p.posonlyargs
        .iter()
        .chain(p.args.iter())
        .chain(p.kwonlyargs.iter())
        .map(|a| (a.parameter.name.to_string(), a.parameter.name.start()))
        .collect()
}

/// Every (name, position) pair of two functions of the same shape, or the first place they differ
/// beyond names: `Err((index of the candidate's statement or None for the signature, line))`.
type Pairs = Vec<(String, String, TextSize)>;

fn pair_names(a: &StmtFunctionDef, b: &StmtFunctionDef, pb: &Program) -> Result<Pairs, (String, usize)> {
    let (pa_, pb_) = (params(a), params(b));
    if pa_.len() != pb_.len() {
        return Err((
            format!("`{}` has {} parameters; the starter's has {}", b.name, pb_.len(), pa_.len()),
            pb.line_of(b),
        ));
    }
    let mut out: Pairs = pa_.into_iter().zip(pb_).map(|((x, _), (y, at))| (x, y, at)).collect();
    for (i, sb) in b.body.iter().enumerate() {
        let Some(sa) = a.body.get(i) else {
            return Err((
                format!("line {} is a statement the starter does not have: `{}`", pb.line_of(sb), pb.text(sb)),
                pb.line_of(sb),
            ));
        };
        let ((xa, na), (xb, nb)) = (blanked(sa), blanked(sb));
        if ComparableStmt::from(&xa) != ComparableStmt::from(&xb) || na.len() != nb.len() {
            return Err((
                format!(
                    "line {} is not the starter's statement with names changed: `{}`; change nothing but the names",
                    pb.line_of(sb),
                    pb.text(sb)
                ),
                pb.line_of(sb),
            ));
        }
        out.extend(na.into_iter().zip(nb).map(|((x, _), (y, at))| (x, y, at)));
    }
    if a.body.len() > b.body.len() {
        let end = b.body.last().map(|s| pb.line(s.end())).unwrap_or_else(|| pb.line_of(b));
        return Err((
            format!("`{}` lacks {} statements of the starter after line {end}", b.name, a.body.len() - b.body.len()),
            end,
        ));
    }
    Ok(out)
}

/// The rename table: the record's, else the starter-to-reference differences.
fn table(c: &Ctx, s: &StmtFunctionDef) -> Result<BTreeMap<String, String>, String> {
    if let Some(list) = c.task.metadata.get("renames").and_then(|v| v.as_array()) {
        let mut t = BTreeMap::new();
        for pair in list {
            match pair.as_array().map(|p| (p.first().and_then(|x| x.as_str()), p.get(1).and_then(|x| x.as_str()))) {
                Some((Some(a), Some(b))) => {
                    t.insert(a.to_string(), b.to_string());
                }
                _ => return Err(format!("the task's renames are not [old, new] pairs: {pair}")),
            }
        }
        return Ok(t);
    }
    let r = c.reference.function(s.name.as_str()).ok_or("the reference has no such function")?;
    let pairs = pair_names(s, r, c.reference).map_err(|(m, _)| format!("the reference is not a renaming: {m}"))?;
    Ok(pairs.into_iter().filter(|(a, b, _)| a != b).map(|(a, b, _)| (a, b)).collect())
}

/// The `renames` item.
pub fn renames(c: &Ctx) -> RubricOutcome {
    let fail = |reason: String, line: Option<usize>| RubricOutcome { passed: false, reason, line };
    // The functions the reference renames in (generated tasks: `main` alone).
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut applied = 0usize;
    let mut renamed_names = BTreeSet::new();
    for s in c.starter.functions() {
        let name = s.name.as_str();
        let Some(k) = c.candidate.function(name) else {
            return fail(format!("`{name}()` is missing; rename inside it, keep it"), None);
        };
        let t = match table(c, s) {
            Ok(t) => t,
            Err(e) => return fail(e, None),
        };
        let pairs = match pair_names(s, k, c.candidate) {
            Ok(p) => p,
            Err((m, line)) => {
                problems.push((line, m));
                continue;
            }
        };
        // What each starter name became, to spot captures.
        let mut became: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (old, new, _) in &pairs {
            became.entry(new.as_str()).or_default().insert(old.as_str());
        }
        for (old, new, at) in &pairs {
            let line = c.candidate.line(*at);
            let want = t.get(old).map(String::as_str).unwrap_or(old.as_str());
            if new == want {
                if t.contains_key(old) {
                    applied += 1;
                    renamed_names.insert(old.clone());
                }
                continue;
            }
            let captured: Vec<&str> =
                became.get(new.as_str()).map(|s| s.iter().copied().filter(|o| o != old).collect()).unwrap_or_default();
            let msg = if let Some(other) = captured.first() {
                format!("line {line}: `{old}` became `{new}`, the name `{other}` now has: two variables would share one name (a capture)")
            } else if !t.contains_key(old) {
                format!("line {line}: `{old}` was renamed to `{new}`; only the listed variables change names")
            } else if new == old {
                format!("line {line}: `{old}` is not renamed here; it must become `{want}` everywhere")
            } else {
                format!("line {line}: `{old}` became `{new}`; it must become `{want}`")
            };
            problems.push((line, msg));
        }
    }
    if problems.is_empty() {
        return RubricOutcome {
            passed: true,
            reason: format!(
                "{} renamed at all {applied} places they occur; no other name changed",
                match renamed_names.len() {
                    1 => "the 1 variable is".to_string(),
                    n => format!("the {n} variables are"),
                }
            ),
            line: None,
        };
    }
    problems.sort();
    let (line, first) = problems[0].clone();
    let more = match problems.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    fail(format!("{first}{more}"), Some(line))
}
