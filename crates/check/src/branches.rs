//! `branch_placement` (grading.md §4.4), the runtime-resolution check: in every function the starter,
//! the reference and the candidate all define, the candidate changed exactly the blocks the reference
//! changed.
//!
//! A block is a function's body or one side of an `if` (`/if0/body`, `/if0/else`, …; an `elif` is an
//! `if` alone in an `else`). Its content is its own statements, each `if` replaced by its condition,
//! compared up to formatting. Reasons name the function, the block, its line, and whether it runs
//! (the starter's `check(…)` conditions evaluated exactly).

use super::program::Program;
use super::rubric::{Ctx, RubricOutcome};
use cabrito_gen::axes::runtime::guard::{final_parity, MAX_STEPS_EVALUATED};
use ruff_python_ast::comparable::{ComparableExpr, ComparableStmt};
use ruff_python_ast::{self as ast, ElifElseClause, Expr, Number, Operator, Stmt, StmtFunctionDef};
use std::collections::{BTreeMap, BTreeSet};

/// One statement of a block: a statement, or an `if` reduced to its condition.
#[derive(PartialEq)]
enum BlockStmt<'a> {
    Stmt(Box<ComparableStmt<'a>>),
    If(ComparableExpr<'a>),
}

/// One block of a function: its content, its first line (the `if`'s or the function's when empty) and
/// the conditions on the way to it (`(condition, side)`, `true` for an `if` side).
struct Block<'a> {
    items: Vec<BlockStmt<'a>>,
    line: usize,
    conditions: Vec<(&'a Expr, bool)>,
}

/// An `if` as Python's tree has it: an `elif` chain is an `if` in the `else`.
struct If<'a> {
    test: &'a Expr,
    body: &'a [Stmt],
    rest: &'a [ElifElseClause],
    line: usize,
}

/// The statements of a block, with the `if`s among them unfolded as Python's tree has them.
enum Stmts<'a> {
    Plain(&'a [Stmt]),
    /// An `else` that is one `elif` chain.
    Chain(If<'a>),
}

fn blocks<'a>(p: &Program, f: &'a StmtFunctionDef) -> BTreeMap<String, Block<'a>> {
    let mut out = BTreeMap::new();
    visit(p, Stmts::Plain(&f.body), String::new(), p.line_of(f), Vec::new(), &mut out);
    out
}

fn visit<'a>(
    p: &Program,
    stmts: Stmts<'a>,
    prefix: String,
    line: usize,
    conditions: Vec<(&'a Expr, bool)>,
    out: &mut BTreeMap<String, Block<'a>>,
) {
    let ifs: Vec<If<'a>> = match &stmts {
        Stmts::Plain(body) => body
            .iter()
            .filter_map(|s| match s {
                Stmt::If(i) => {
                    Some(If { test: &i.test, body: &i.body, rest: &i.elif_else_clauses, line: p.line_of(s) })
                }
                _ => None,
            })
            .collect(),
        Stmts::Chain(i) => vec![If { test: i.test, body: i.body, rest: i.rest, line: i.line }],
    };
    let items: Vec<BlockStmt<'a>> = match stmts {
        Stmts::Plain(body) => body
            .iter()
            .map(|s| match s {
                Stmt::If(i) => BlockStmt::If(ComparableExpr::from(&*i.test)),
                s => BlockStmt::Stmt(Box::new(ComparableStmt::from(s))),
            })
            .collect(),
        Stmts::Chain(i) => vec![BlockStmt::If(ComparableExpr::from(i.test))],
    };
    out.insert(prefix.clone(), Block { items, line, conditions: conditions.clone() });
    for (n, i) in ifs.into_iter().enumerate() {
        let path = format!("{prefix}/if{n}");
        let mut yes = conditions.clone();
        yes.push((i.test, true));
        let body_line = i.body.first().map(|s| p.line_of(s)).unwrap_or(i.line);
        visit(p, Stmts::Plain(i.body), format!("{path}/body"), body_line, yes, out);
        let mut no = conditions.clone();
        no.push((i.test, false));
        let else_path = format!("{path}/else");
        match i.rest.split_first() {
            None => {
                out.insert(else_path, Block { items: vec![], line: i.line, conditions: no });
            }
            Some((clause, rest)) => {
                let at = p.line_of(clause);
                match &clause.test {
                    None => {
                        let l = clause.body.first().map(|s| p.line_of(s)).unwrap_or(at);
                        visit(p, Stmts::Plain(&clause.body), else_path, l, no, out);
                    }
                    Some(test) => {
                        let chain = If { test, body: &clause.body, rest, line: at };
                        visit(p, Stmts::Chain(chain), else_path, at, no, out);
                    }
                }
            }
        }
    }
}

/// Paths whose content differs between two functions (or that only one has).
fn changed(a: &BTreeMap<String, Block>, b: &BTreeMap<String, Block>) -> BTreeSet<String> {
    a.keys()
        .chain(b.keys())
        .filter(|k| match (a.get(*k), b.get(*k)) {
            (Some(x), Some(y)) => x.items != y.items,
            _ => true,
        })
        .cloned()
        .collect()
}

/// A small non-negative integer literal.
fn small_int(e: &Expr) -> Option<u64> {
    match e {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(i), .. }) => {
            i.as_i64().and_then(|v| u64::try_from(v).ok())
        }
        _ => None,
    }
}

/// The value of a runtime condition: `check(x, a, b, target, num_steps=d)` calls (or positional),
/// joined by `^`, `True`, `False`; `None` for anything else (or steps beyond what is worth running).
pub fn evaluate(e: &Expr) -> Option<bool> {
    match e {
        Expr::BooleanLiteral(b) => Some(b.value),
        Expr::BinOp(b) if b.op == Operator::BitXor => Some(evaluate(&b.left)? ^ evaluate(&b.right)?),
        Expr::Call(c) => {
            let Expr::Name(n) = &*c.func else { return None };
            if n.id.as_str() != "check" {
                return None;
            }
            let mut args: Vec<u64> = c.arguments.args.iter().map(small_int).collect::<Option<_>>()?;
            for k in c.arguments.keywords.iter() {
                let at = match k.arg.as_ref().map(|a| a.as_str()) {
                    Some("x") => 0,
                    Some("a") => 1,
                    Some("b") => 2,
                    Some("target") => 3,
                    Some("num_steps") => 4,
                    _ => return None,
                };
                if args.len() != at {
                    return None;
                }
                args.push(small_int(&k.value)?);
            }
            let [x, a, b, target, steps] = <[u64; 5]>::try_from(args).ok()?;
            let small = |v: u64| u32::try_from(v).ok();
            let (x, a, b, steps) = (small(x)?, small(a)?, small(b)?, small(steps)?);
            if steps > MAX_STEPS_EVALUATED {
                return None;
            }
            Some(u64::from(final_parity(x, a, b, steps)) == target)
        }
        _ => None,
    }
}

/// Whether a block runs, from the conditions on the way to it (`None` when one cannot be evaluated).
fn runs(conditions: &[(&Expr, bool)]) -> Option<bool> {
    let mut all = true;
    for (test, side) in conditions {
        all &= evaluate(test)? == *side;
    }
    Some(all)
}

/// The leaf blocks of a function (blocks without an `if`) that run: those whose conditions on the way
/// all hold. `None` when a condition cannot be evaluated. A generated runtime function has exactly one.
pub fn running_leaves(p: &Program, f: &StmtFunctionDef) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for (path, b) in blocks(p, f) {
        if b.items.iter().any(|i| matches!(i, BlockStmt::If(_))) {
            continue;
        }
        if runs(&b.conditions)? {
            out.push(path);
        }
    }
    Some(out)
}

/// For every function both programs define, the blocks whose content differs (grading.md §4.4's
/// `changed`), leaving out functions with none.
pub fn changed_blocks(a: &Program, b: &Program) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for f in a.functions() {
        let name = f.name.as_str();
        let (Some(x), Some(y)) = (a.function(name), b.function(name)) else { continue };
        let c = changed(&blocks(a, x), &blocks(b, y));
        if !c.is_empty() {
            out.insert(name.to_string(), c);
        }
    }
    out
}

/// A block's path in words: `the body of f outside its if/else`, `the else branch (line 12)`.
fn describe(path: &str) -> String {
    if path.is_empty() {
        return "the body outside its if/else".into();
    }
    let mut sides: Vec<String> = Vec::new();
    let mut parts = path.trim_start_matches('/').split('/');
    while let (Some(i), Some(side)) = (parts.next(), parts.next()) {
        let n: usize = i.trim_start_matches("if").parse().unwrap_or(0);
        let side = if side == "body" { "if" } else { "else" };
        sides.push(if n == 0 { side.to_string() } else { format!("{side} (of `if` #{})", n + 1) });
    }
    format!("the {} branch", sides.join(" → "))
}

/// `branch_placement`: the candidate changed exactly the blocks the reference changed, in every
/// function all three programs define.
pub fn branch_placement(c: &Ctx) -> RubricOutcome {
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut edited = 0usize;
    let mut checked = 0usize;
    for s in c.starter.functions() {
        let name = s.name.as_str();
        if c.starter.function(name).map(|f| std::ptr::eq(f, s)) != Some(true) {
            continue; // an earlier def of a name defined twice
        }
        let (Some(r), Some(k)) = (c.reference.function(name), c.candidate.function(name)) else { continue };
        checked += 1;
        let (sb, rb, kb) = (blocks(c.starter, s), blocks(c.reference, r), blocks(c.candidate, k));
        let want = changed(&sb, &rb);
        let got = changed(&sb, &kb);
        edited += want.len();
        let line_of = |path: &str| kb.get(path).map(|b| b.line).unwrap_or_else(|| c.candidate.line_of(k));
        let runs_in_starter = |path: &str| sb.get(path).and_then(|b| runs(&b.conditions));
        for path in got.difference(&want) {
            let why = match runs_in_starter(path) {
                Some(false) => " it never runs, and the reference leaves it as it is",
                Some(true) => " the reference leaves it as it is",
                None => " the reference leaves it as it is",
            };
            problems.push((
                line_of(path),
                format!("`{name}`: {} (line {}) was changed, but{why}", describe(path), line_of(path)),
            ));
        }
        for path in want.difference(&got) {
            let runs_note = match runs_in_starter(path) {
                Some(true) => "it runs, and ",
                _ => "",
            };
            problems.push((
                line_of(path),
                format!(
                    "`{name}`: {} (line {}) is as in the starter, but {runs_note}the reference changes it",
                    describe(path),
                    line_of(path)
                ),
            ));
        }
    }
    if problems.is_empty() {
        return RubricOutcome {
            passed: true,
            reason: format!(
                "the same {edited} block{} changed as in the reference, across {checked} function{}",
                if edited == 1 { "" } else { "s" },
                if checked == 1 { "" } else { "s" }
            ),
            line: None,
        };
    }
    problems.sort();
    problems.dedup();
    let shown: Vec<&str> = problems.iter().take(3).map(|p| p.1.as_str()).collect();
    let more = if problems.len() > 3 { format!(" (and {} more)", problems.len() - 3) } else { String::new() };
    RubricOutcome { passed: false, reason: format!("{}{more}", shown.join("; ")), line: problems.first().map(|p| p.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(src: &str) -> Vec<String> {
        let p = Program::parse(src).unwrap();
        let f = p.functions()[0];
        blocks(&p, f).into_keys().collect()
    }

    #[test]
    fn paths_follow_pythons_tree() {
        let src = "def f(x):\n    a = 1\n    if x:\n        b = 2\n    elif y:\n        c = 3\n    else:\n        d = 4\n    if z:\n        e = 5\n";
        assert_eq!(
            paths(src),
            ["", "/if0/body", "/if0/else", "/if0/else/if0/body", "/if0/else/if0/else", "/if1/body", "/if1/else"]
        );
        // An `if` alone in an `else` is the same tree as an `elif`.
        let nested = "def f(x):\n    a = 1\n    if x:\n        b = 2\n    else:\n        if y:\n            c = 3\n        else:\n            d = 4\n    if z:\n        e = 5\n";
        assert_eq!(paths(src), paths(nested));
        let (a, b) = (Program::parse(src).unwrap(), Program::parse(nested).unwrap());
        let (ba, bb) = (blocks(&a, a.functions()[0]), blocks(&b, b.functions()[0]));
        assert!(changed(&ba, &bb).is_empty());
    }

    #[test]
    fn conditions_are_evaluated_exactly() {
        let eval = |s: &str| {
            let src = format!("x = {s}\n");
            let p = Program::parse(&src).unwrap();
            let Stmt::Assign(a) = &p.body()[0] else { panic!() };
            evaluate(&a.value)
        };
        // check(75, 9, 5, 1, num_steps=200) is False in the reference's fixture.
        assert_eq!(eval("check(75, 9, 5, 1, num_steps=200)"), Some(false));
        assert_eq!(eval("check(75, 9, 5, 0, 200)"), Some(true));
        assert_eq!(eval("check(75, 9, 5, 0, 200) ^ check(75, 9, 5, 0, num_steps=200)"), Some(false));
        assert_eq!(eval("check(x=75, a=9, b=5, target=0, num_steps=200)"), Some(true));
        assert_eq!(eval("check(75, 9, 5, 0, num_steps=10**9)"), None);
        assert_eq!(eval("check(75, 9, 5, 0, num_steps=99999999999)"), None);
        assert_eq!(eval("other(1, 2, 3, 4, num_steps=5)"), None);
        assert_eq!(eval("True"), Some(true));
    }

    #[test]
    fn paths_in_words() {
        assert_eq!(describe("/if0/body"), "the if branch");
        assert_eq!(describe("/if0/else/if0/body"), "the else → if branch");
        assert_eq!(describe("/if1/else"), "the else (of `if` #2) branch");
    }
}
