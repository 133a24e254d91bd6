//! What a strategy knows: only the text its tools showed it. [`Sight`] collects the lines of
//! `solution.py` that views and searches printed (parsing their replies, as a model reads them), and
//! [`Model`] is the strategy's understanding built from them: the functions it has seen whole
//! (parsed with the same Python parser the checks use), the `def` lines it has seen, and the calls
//! between them it knows of.

use super::guards::{Judge, PATIENT};
use cabrito_check::program::Program;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;
use std::collections::{BTreeMap, BTreeSet};

/// The lines of `solution.py` a strategy has been shown.
#[derive(Clone, Debug, Default)]
pub struct Sight {
    /// Lines shown whole by a view.
    pub lines: BTreeMap<usize, String>,
    /// Lines listed by a search (possibly shortened).
    pub glimpses: BTreeMap<usize, String>,
    /// The file's length, once a view has said it.
    pub total: Option<usize>,
    /// Calls learnt from search hits: (caller, callee).
    pub edges: BTreeSet<(String, String)>,
}

/// Is this a top-level line (not blank, not indented)?
pub fn top_level(line: &str) -> bool {
    line.chars().next().is_some_and(|c| !c.is_whitespace())
}

/// The function a `def` line defines.
pub fn def_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("def ")?;
    let name = rest.split('(').next()?.trim();
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(name)
}

/// Does `line` call `name` (an identifier boundary before `name(`), other than in its own `def`?
pub fn calls_name(line: &str, name: &str) -> bool {
    if def_name(line) == Some(name) {
        return false;
    }
    let pat = format!("{name}(");
    line.match_indices(&pat)
        .any(|(i, _)| line[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.')))
}

impl Sight {
    /// Take in a tool's reply: the numbered lines of a view (`N: text` under a
    /// `solution.py, lines A-B of T:` heading) or the hits of a search (`solution.py:N: text`).
    /// Anything else (errors, edits, other files) is ignored.
    pub fn absorb(&mut self, output: &str) {
        let mut rows = output.lines();
        let Some(head) = rows.next() else { return };
        if let Some(rest) = head.strip_prefix("solution.py, lines ") {
            if let Some(total) =
                rest.strip_suffix(':').and_then(|r| r.rsplit(" of ").next()).and_then(|t| t.parse().ok())
            {
                self.total = Some(total);
            }
            for row in rows {
                if let Some((n, text)) = row.split_once(": ") {
                    if let Ok(n) = n.parse::<usize>() {
                        self.lines.insert(n, text.to_string());
                    }
                } else if let Some(n) = row.strip_suffix(':').and_then(|n| n.parse::<usize>().ok()) {
                    self.lines.insert(n, String::new());
                }
            }
        } else if head.contains(" match") {
            for row in rows {
                let Some(rest) = row.strip_prefix("solution.py:") else { continue };
                if let Some((n, text)) = rest.split_once(": ") {
                    if let Ok(n) = n.parse::<usize>() {
                        self.glimpses.insert(n, text.to_string());
                    }
                }
            }
        }
    }

    /// Where a long search continues (`from_line=N` in its heading).
    pub fn continuation(output: &str) -> Option<usize> {
        let head = output.lines().next()?;
        let at = head.find("from_line=")?;
        head[at + "from_line=".len()..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
    }

    /// The hits of a search reply: (line, text).
    pub fn hits(output: &str) -> Vec<(usize, String)> {
        output
            .lines()
            .skip(1)
            .filter_map(|row| {
                let (n, text) = row.strip_prefix("solution.py:")?.split_once(": ")?;
                Some((n.parse().ok()?, text.to_string()))
            })
            .collect()
    }

    /// A line's text, from a view or else a search.
    pub fn line(&self, n: usize) -> Option<&str> {
        self.lines.get(&n).or_else(|| self.glimpses.get(&n)).map(String::as_str)
    }

    /// Every `def` line seen: name → line (the last one when a name is defined twice, as Python keeps).
    pub fn defs(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for (n, text) in self.lines.iter().chain(self.glimpses.iter()) {
            if let Some(name) = def_name(text) {
                let e = out.entry(name.to_string()).or_insert(*n);
                *e = (*e).max(*n);
            }
        }
        out
    }

    /// The first top-level line after `line` that is known, if any.
    pub fn next_top_level(&self, line: usize) -> Option<usize> {
        let a = self.lines.range(line + 1..).find(|(_, t)| top_level(t)).map(|(n, _)| *n);
        let b = self.glimpses.range(line + 1..).find(|(_, t)| top_level(t)).map(|(n, _)| *n);
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The lines of the block a top-level statement starts at line `first`: up to (not including)
    /// the next top-level line or the end of the file, when every line of it has been seen.
    /// Returns (first, last non-blank line, last line before the next top-level statement).
    pub fn block(&self, first: usize) -> Option<(usize, usize, usize)> {
        let mut last_code = first;
        let mut n = first + 1;
        loop {
            if self.total.is_some_and(|t| n > t) {
                break;
            }
            match self.lines.get(&n) {
                Some(t) if top_level(t) => break,
                Some(t) => {
                    if !t.trim().is_empty() {
                        last_code = n;
                    }
                }
                None => match self.glimpses.get(&n) {
                    Some(t) if top_level(t) => break,
                    _ => return None,
                },
            }
            n += 1;
        }
        self.lines.contains_key(&first).then_some((first, last_code, n - 1))
    }

    /// The text of the function whose `def` is at `first`, when seen whole.
    pub fn function_text(&self, first: usize) -> Option<String> {
        let (a, b, _) = self.block(first)?;
        let mut out = String::new();
        for n in a..=b {
            out.push_str(self.lines.get(&n)?);
            out.push('\n');
        }
        Some(out)
    }
}

/// A call in a function's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    pub callee: String,
    /// Byte range of the whole call in the function's text.
    pub start: usize,
    pub end: usize,
    /// End of the name the call's value is assigned to, when it is `name = callee(…)`.
    pub target_end: Option<usize>,
}

/// A statement assigning a call's value: `x = f(…)` or `x: T = f(…)` (its whole line range).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallStatement {
    pub callee: String,
    pub start: usize,
    pub end: usize,
}

/// A function seen whole, parsed.
#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    /// 1-based line of its `def`.
    pub line: usize,
    /// Its text as seen, from the `def` to its last non-blank line.
    pub text: String,
    pub params: Vec<String>,
    /// Offset of the `)` closing the parameters.
    pub params_close: usize,
    /// Byte range of the return annotation.
    pub returns: Option<(usize, usize)>,
    /// Offset of the start of the first body statement's line, and its indentation.
    pub body_line: usize,
    pub indent: String,
    /// Calls to plain names, in source order.
    pub calls: Vec<CallSite>,
    /// Statements whose value is a call to a plain name.
    pub call_statements: Vec<CallStatement>,
    /// Byte ranges of the values of `return` statements.
    pub returns_values: Vec<(usize, usize, bool)>,
    /// Is the body an `if`/`else` tree (one branch runs)? Then `calls`, `call_statements`,
    /// `returns_values`, `body_line` and `indent` are those of the branch that runs.
    pub branched: bool,
    /// Was the branch that runs worked out (false: the first branch is a guess)?
    pub leaf_known: bool,
    /// Functions the conditions on the way to that branch call.
    pub guard_callees: Vec<String>,
    /// Every call of the text, whatever branch it is in.
    pub all_calls: Vec<CallSite>,
}

struct Collect {
    calls: Vec<CallSite>,
    statements: Vec<CallStatement>,
    returns: Vec<(usize, usize, bool)>,
}

/// Does an expression need parentheses as an operand of a binary operator or a tuple element?
fn compound(e: &Expr) -> bool {
    !matches!(
        e,
        Expr::Call(_)
            | Expr::Name(_)
            | Expr::Attribute(_)
            | Expr::Subscript(_)
            | Expr::NumberLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::List(_)
            | Expr::Dict(_)
            | Expr::Set(_)
            | Expr::FString(_)
    )
}

fn callee(e: &Expr) -> Option<String> {
    match e {
        Expr::Call(c) => match &*c.func {
            Expr::Name(n) => Some(n.id.to_string()),
            _ => None,
        },
        _ => None,
    }
}

impl<'a> Visitor<'a> for Collect {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Assign(a) => {
                if let (Some(name), [Expr::Name(t)]) = (callee(&a.value), a.targets.as_slice()) {
                    self.statements.push(CallStatement {
                        callee: name.clone(),
                        start: stmt.start().into(),
                        end: stmt.end().into(),
                    });
                    // The call itself is visited below; remember where its target ends.
                    self.calls.push(CallSite {
                        callee: name,
                        start: a.value.start().into(),
                        end: a.value.end().into(),
                        target_end: Some(t.end().into()),
                    });
                    if let Expr::Call(c) = &*a.value {
                        for arg in c.arguments.args.iter() {
                            self.visit_expr(arg);
                        }
                        for k in c.arguments.keywords.iter() {
                            self.visit_expr(&k.value);
                        }
                    }
                    return;
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(name) = a.value.as_deref().and_then(callee) {
                    self.statements.push(CallStatement {
                        callee: name,
                        start: stmt.start().into(),
                        end: stmt.end().into(),
                    });
                }
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.returns.push((v.start().into(), v.end().into(), compound(v)));
                }
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Some(name) = callee(expr) {
            self.calls.push(CallSite {
                callee: name,
                start: expr.start().into(),
                end: expr.end().into(),
                target_end: None,
            });
        }
        visitor::walk_expr(self, expr);
    }
}

/// The statements of the branch that runs in a body that is an `if`/`else` tree, the conditions
/// evaluated on the way, and whether every one of them was settled (an unsettled one takes the
/// first branch: a guess). A body that is not such a tree is its own branch.
fn running_branch<'b>(body: &'b [Stmt], judge: Option<&Judge>) -> (&'b [Stmt], Vec<&'b Expr>, bool, bool) {
    let (mut cur, mut tests, mut branched, mut known) = (body, Vec::new(), false, true);
    while let [Stmt::If(i)] = cur {
        if i.elif_else_clauses.last().is_none_or(|c| c.test.is_some()) {
            break;
        }
        branched = true;
        let clauses = std::iter::once((Some(&*i.test), &i.body[..]))
            .chain(i.elif_else_clauses.iter().map(|c| (c.test.as_ref(), &c.body[..])));
        let mut chosen = &i.body[..];
        for (test, body) in clauses {
            let Some(t) = test else {
                chosen = body;
                break;
            };
            tests.push(t);
            match judge.and_then(|j| j.decide(t)) {
                Some(true) => {
                    chosen = body;
                    break;
                }
                Some(false) => continue,
                None => {
                    known = false;
                    chosen = body;
                    break;
                }
            }
        }
        cur = chosen;
    }
    (cur, tests, branched, known)
}

/// The names a condition calls.
fn called_names(e: &Expr) -> Vec<String> {
    let mut c = Collect { calls: Vec::new(), statements: Vec::new(), returns: Vec::new() };
    c.visit_expr(e);
    c.calls.into_iter().map(|s| s.callee).collect()
}

impl Func {
    /// Parse a function's text (a `def` at column 0). `None` when it is not one readable function.
    /// A body that is an `if`/`else` tree takes its first branch as the one that runs (see
    /// [`Func::parse_with`]).
    pub fn parse(text: &str, line: usize) -> Option<Func> {
        Func::parse_with(text, line, None)
    }

    /// Parse a function's text, settling which branch of an `if`/`else` body runs with `judge`.
    pub fn parse_with(text: &str, line: usize, judge: Option<&Judge>) -> Option<Func> {
        let program = Program::parse(text).ok()?;
        let [Stmt::FunctionDef(f)] = program.body() else { return None };
        let (ps, pe): (usize, usize) = (f.parameters.start().into(), f.parameters.end().into());
        let params_close = if text.as_bytes().get(pe.wrapping_sub(1)) == Some(&b')') {
            pe - 1
        } else {
            pe + text.get(pe..)?.find(')')?
        };
        if params_close < ps {
            return None;
        }
        let (leaf, tests, branched, leaf_known) = running_branch(&f.body, judge);
        let first: usize = leaf.first()?.start().into();
        let last: usize = leaf.last()?.end().into();
        let body_line = text[..first].rfind('\n').map_or(0, |i| i + 1);
        let indent = text[body_line..first].to_string();
        if !indent.chars().all(char::is_whitespace) {
            return None;
        }
        let mut c = Collect { calls: Vec::new(), statements: Vec::new(), returns: Vec::new() };
        c.visit_body(&f.body);
        c.calls.sort_by_key(|s| s.start);
        let all_calls = c.calls.clone();
        let mut guard_callees: Vec<String> = Vec::new();
        for t in &tests {
            for n in called_names(t) {
                if !guard_callees.contains(&n) {
                    guard_callees.push(n);
                }
            }
        }
        if branched {
            let inside = |s: usize| (first..last).contains(&s);
            c.calls.retain(|x| inside(x.start));
            c.statements.retain(|x| inside(x.start));
            c.returns.retain(|x| inside(x.0));
        }
        Some(Func {
            name: f.name.to_string(),
            line,
            text: text.to_string(),
            params: f.parameters.iter().map(|p| p.name().to_string()).collect(),
            params_close,
            returns: f.returns.as_ref().map(|r| (r.start().into(), r.end().into())),
            body_line,
            indent,
            calls: c.calls,
            call_statements: c.statements,
            returns_values: c.returns,
            branched,
            leaf_known,
            guard_callees,
            all_calls,
        })
    }

    /// The names this function calls, in order, once each.
    pub fn callee_names(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for c in &self.calls {
            if !out.contains(&c.callee.as_str()) {
                out.push(&c.callee);
            }
        }
        out
    }
}

/// The understanding a strategy builds from what it saw.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Functions whose `def` line was seen: name → line.
    pub defs: BTreeMap<String, usize>,
    /// Functions seen whole.
    pub funcs: BTreeMap<String, Func>,
    /// Known calls between functions of the file (caller, callee).
    pub edges: BTreeSet<(String, String)>,
    /// Functions that conditions call on the way to a running branch (caller, helper).
    pub guard_edges: BTreeSet<(String, String)>,
    /// Helpers whose conditions could not be settled (not seen whole, not understood, or too long
    /// to run within the strategy's patience): the branches their callers edit are guesses.
    pub unsure: BTreeSet<String>,
}

impl Model {
    /// The model of a careful strategy (patient with conditions).
    pub fn of(sight: &Sight) -> Model {
        Model::of_with(sight, PATIENT)
    }

    /// The model of a strategy that runs at most `budget` statements to settle a condition.
    pub fn of_with(sight: &Sight, budget: u64) -> Model {
        let defs = sight.defs();
        let texts: BTreeMap<&String, (usize, String)> =
            defs.iter().filter_map(|(n, &l)| Some((n, (l, sight.function_text(l)?)))).collect();
        // First the plain reading, to learn which helpers the conditions call; then learn those
        // helpers (when seen whole) and read every body again, settling its conditions.
        let plain: Vec<Func> = texts.values().filter_map(|(l, t)| Func::parse(t, *l)).collect();
        let helpers: BTreeSet<&String> = plain.iter().flat_map(|f| f.guard_callees.iter()).collect();
        let mut judge = Judge::new(budget);
        for h in helpers {
            if let Some((_, t)) = texts.get(h) {
                judge.learn(t);
            }
        }
        let mut funcs = BTreeMap::new();
        let mut unsure = BTreeSet::new();
        let mut guard_edges = BTreeSet::new();
        for (name, (line, t)) in &texts {
            if let Some(f) = Func::parse_with(t, *line, Some(&judge)) {
                if !f.leaf_known {
                    unsure.extend(f.guard_callees.iter().cloned());
                }
                for g in &f.guard_callees {
                    guard_edges.insert((f.name.clone(), g.clone()));
                }
                funcs.insert((*name).clone(), f);
            }
        }
        // A call a search showed counts only when its caller has not been read whole (the
        // caller's running branch says which of its calls are made).
        let mut edges: BTreeSet<(String, String)> =
            sight.edges.iter().filter(|(a, _)| !funcs.contains_key(a)).cloned().collect();
        for f in funcs.values() {
            for c in f.callee_names() {
                if defs.contains_key(c) {
                    edges.insert((f.name.clone(), c.to_string()));
                }
            }
        }
        Model { defs, funcs, edges, guard_edges, unsure }
    }

    /// Known callees of `f` among the file's functions.
    pub fn callees(&self, f: &str) -> Vec<&str> {
        self.edges.iter().filter(|(a, _)| a == f).map(|(_, b)| b.as_str()).collect()
    }
    /// Known callers of `f`.
    pub fn callers(&self, f: &str) -> Vec<&str> {
        self.edges.iter().filter(|(_, b)| b == f).map(|(a, _)| a.as_str()).collect()
    }
    /// Everything `f` reaches through known calls (not `f` itself, unless on a cycle).
    pub fn descendants(&self, f: &str) -> BTreeSet<String> {
        self.closure(f, |m, x| m.callees(x))
    }
    /// Everything that reaches `f` through known calls.
    pub fn ancestors(&self, f: &str) -> BTreeSet<String> {
        self.closure(f, |m, x| m.callers(x))
    }
    fn closure<'m>(&'m self, f: &str, next: impl Fn(&'m Model, &str) -> Vec<&'m str>) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = next(self, f);
        while let Some(x) = stack.pop() {
            if seen.insert(x.to_string()) {
                stack.extend(next(self, x));
            }
        }
        seen
    }
    /// Functions whose text calls a name that is not a function of the file (a library call).
    pub fn calling_library(&self, lib: &str) -> Vec<&str> {
        if self.defs.contains_key(lib) {
            return Vec::new();
        }
        self.funcs.values().filter(|f| f.calls.iter().any(|c| c.callee == lib)).map(|f| f.name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_and_searches_are_read_back() {
        let mut s = Sight::default();
        s.absorb("solution.py, lines 1-6 of 9:\n1: import math\n2: \n3: def a(val: float) -> float:\n4:     b_val = b(val)\n5:     return math.cos(b_val)\n6: \n");
        s.absorb("2 matches for \"def \" in solution.py:\nsolution.py:3: def a(val: float) -> float:\nsolution.py:7: def b(val: float) -> float:\n");
        assert_eq!(s.total, Some(9));
        assert_eq!(s.defs().into_iter().collect::<Vec<_>>(), vec![("a".into(), 3), ("b".into(), 7)]);
        assert_eq!(s.block(3), Some((3, 5, 6)));
        assert_eq!(s.block(7), None);
        let f = Func::parse(&s.function_text(3).unwrap(), 3).unwrap();
        assert_eq!(f.params, vec!["val"]);
        assert_eq!(&f.text[f.params_close..=f.params_close], ")");
        assert_eq!(f.callee_names(), vec!["b"]);
        assert_eq!(f.calls[0].target_end.map(|e| &f.text[e - 5..e]), Some("b_val"));
        assert_eq!(f.indent, "    ");
        let m = Model::of(&s);
        assert_eq!(m.callees("a"), vec!["b"]);
        assert_eq!(m.ancestors("b").into_iter().collect::<Vec<_>>(), vec!["a".to_string()]);
        assert_eq!(Sight::continuation("230 matches for \"def \"; the first 50 are shown (to line 260); search again with from_line=261 for more:"), Some(261));
        assert!(
            calls_name("    x_val = x(val)", "x")
                && !calls_name("    ax_val = ax(val)", "x")
                && !calls_name("def x(val):", "x")
        );
        assert!(calls_name("    return (y(val), x(val))", "x"));
    }
}
