//! `constraint_structure` (grading.md §4.5): the requirement lines of instruction following, compared
//! with the reference's function by function.
//!
//! The pass rule is the reference scorer's: each function's requirement items (asserts, prints,
//! temporaries, updates, comments on the generated values), normalised as the reference does, must
//! equal the reference's as multisets. Cabrito is stricter where it can say exactly what is wrong:
//! the prescribed order, directly in the body, after the value exists and before its first use.
//! Reasons name the requirement's number, the function and the line.

use super::program::{Comment, Program};
use super::rubric::{Ctx, RubricOutcome};
use cabrito_gen::axes::instructions::{Rule, RuleSet};
use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt, StmtFunctionDef};
use std::collections::{BTreeMap, BTreeSet};

/// The categories, in the prescribed order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cat {
    Comment,
    Assert,
    Print,
    Temp,
    Update,
}

impl Cat {
    fn plural(self) -> &'static str {
        match self {
            Cat::Comment => "comments",
            Cat::Assert => "asserts",
            Cat::Print => "prints",
            Cat::Temp => "temporary copies",
            Cat::Update => "updates of a value",
        }
    }
}

/// A normalised item: what the reference compares.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// (name, operator seen from the name, literal).
    AssertCmp(String, &'static str, String),
    AssertIsinstance(String, Vec<String>),
    AssertOther(String),
    /// (name, template with the name as a marker).
    Print(String, String),
    /// (target, the value it is computed from, the right-hand side's structure).
    Temp(String, String, String),
    Update(String, String),
    /// (the names it mentions, the comment's text with its `#`).
    Comment(Vec<String>, String),
}

impl Key {
    fn cat(&self) -> Cat {
        match self {
            Key::AssertCmp(..) | Key::AssertIsinstance(..) | Key::AssertOther(_) => Cat::Assert,
            Key::Print(..) => Cat::Print,
            Key::Temp(..) => Cat::Temp,
            Key::Update(..) => Cat::Update,
            Key::Comment(..) => Cat::Comment,
        }
    }
}

/// One item found in a function.
#[derive(Clone, Debug)]
pub struct Found {
    pub key: Key,
    pub line: usize,
    pub column: usize,
    /// The line as written (one line, shortened).
    pub text: String,
    /// The generated values it mentions.
    pub names: BTreeSet<String>,
    /// Index of its direct body statement (`None` for comments).
    pub stmt: Option<usize>,
}

/// Is `s` a generated value's name (`(mult|prefix|key|slow)<digits>`)?
pub fn is_generated(s: &str) -> bool {
    ["mult", "prefix", "key", "slow"]
        .iter()
        .any(|p| s.strip_prefix(p).is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())))
}

/// Every parameter or name of a program that is a generated value's name.
pub fn generated_names(p: &Program) -> BTreeSet<String> {
    struct V(BTreeSet<String>);
    impl<'a> Visitor<'a> for V {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Name(n) = e {
                if is_generated(n.id.as_str()) {
                    self.0.insert(n.id.to_string());
                }
            }
            visitor::walk_expr(self, e);
        }
        fn visit_parameter(&mut self, p: &'a ast::Parameter) {
            if is_generated(p.name.as_str()) {
                self.0.insert(p.name.to_string());
            }
            visitor::walk_parameter(self, p);
        }
    }
    let mut v = V(BTreeSet::new());
    p.with_stack(|| {
        for s in p.body() {
            v.visit_stmt(s);
        }
    });
    v.0
}

/// The generated names an expression mentions.
fn mentioned(e: &Expr, g: &BTreeSet<String>) -> BTreeSet<String> {
    struct V<'g>(&'g BTreeSet<String>, BTreeSet<String>);
    impl<'a> Visitor<'a> for V<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Name(n) = e {
                if self.0.contains(n.id.as_str()) {
                    self.1.insert(n.id.to_string());
                }
            }
            visitor::walk_expr(self, e);
        }
    }
    let mut v = V(g, BTreeSet::new());
    v.visit_expr(e);
    v.1
}

/// The generated names a statement mentions (anywhere in it).
fn mentioned_in_stmt(s: &Stmt, g: &BTreeSet<String>) -> BTreeSet<String> {
    struct V<'g>(&'g BTreeSet<String>, BTreeSet<String>);
    impl<'a> Visitor<'a> for V<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Name(n) = e {
                if self.0.contains(n.id.as_str()) {
                    self.1.insert(n.id.to_string());
                }
            }
            visitor::walk_expr(self, e);
        }
    }
    let mut v = V(g, BTreeSet::new());
    v.visit_stmt(s);
    v.1
}

/// A canonical text of an expression's structure (positions, parentheses and quoting do not count).
fn canon(e: &Expr) -> String {
    format!("{:?}", ComparableExpr::from(e))
}

/// A literal as the reference reads it for an assert: numbers rounded to ten decimals, strings as
/// they are; anything else (booleans, `None`, negative numbers, which are expressions) is not one.
fn literal(e: &Expr) -> Option<String> {
    match e {
        Expr::NumberLiteral(n) => match &n.value {
            ast::Number::Int(i) => {
                let x: f64 = i.to_string().parse().ok()?;
                Some(format!("n{:?}", round10(x)))
            }
            ast::Number::Float(x) => Some(format!("n{:?}", round10(*x))),
            ast::Number::Complex { .. } => None,
        },
        Expr::StringLiteral(s) => Some(format!("s{}", s.value.to_str())),
        _ => None,
    }
}

fn round10(x: f64) -> f64 {
    format!("{x:.10}").parse().unwrap_or(x)
}

fn cmp_op(op: ast::CmpOp) -> Option<&'static str> {
    Some(match op {
        ast::CmpOp::Eq => "==",
        ast::CmpOp::NotEq => "!=",
        ast::CmpOp::Lt => "<",
        ast::CmpOp::LtE => "<=",
        ast::CmpOp::Gt => ">",
        ast::CmpOp::GtE => ">=",
        _ => return None,
    })
}

fn flip(op: &'static str) -> &'static str {
    match op {
        "<" => ">",
        "<=" => ">=",
        ">" => "<",
        ">=" => "<=",
        other => other,
    }
}

fn is_g(e: &Expr, g: &BTreeSet<String>) -> Option<String> {
    match e {
        Expr::Name(n) if g.contains(n.id.as_str()) => Some(n.id.to_string()),
        _ => None,
    }
}

fn assert_key(test: &Expr, g: &BTreeSet<String>) -> Option<Key> {
    if let Expr::Compare(c) = test {
        if let ([op], [right]) = (&*c.ops, &*c.comparators) {
            if let Some(op) = cmp_op(*op) {
                match (is_g(&c.left, g), is_g(right, g)) {
                    (Some(name), None) => {
                        if let Some(lit) = literal(right) {
                            return Some(Key::AssertCmp(name, op, lit));
                        }
                    }
                    (None, Some(name)) => {
                        if let Some(lit) = literal(&c.left) {
                            return Some(Key::AssertCmp(name, flip(op), lit));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    if let Expr::Call(call) = test {
        if matches!(&*call.func, Expr::Name(f) if f.id.as_str() == "isinstance") && call.arguments.args.len() == 2 {
            if let Some(name) = is_g(&call.arguments.args[0], g) {
                let types: BTreeSet<String> = match &call.arguments.args[1] {
                    Expr::Tuple(t) => t
                        .elts
                        .iter()
                        .filter_map(|e| match e {
                            Expr::Name(n) => Some(n.id.to_string()),
                            _ => None,
                        })
                        .collect(),
                    Expr::Name(n) => BTreeSet::from([n.id.to_string()]),
                    _ => BTreeSet::new(),
                };
                return Some(Key::AssertIsinstance(name, types.into_iter().collect()));
            }
        }
    }
    (!mentioned(test, g).is_empty()).then(|| Key::AssertOther(canon(test)))
}

/// The pieces of a printed expression: literal text, or an expression.
enum Piece<'a> {
    Lit(String),
    Expr(&'a Expr),
}

fn flatten<'a>(e: &'a Expr, out: &mut Vec<Piece<'a>>) {
    match e {
        Expr::BinOp(b) if b.op == ast::Operator::Add => {
            flatten(&b.left, out);
            flatten(&b.right, out);
        }
        Expr::FString(f) => {
            for part in f.value.iter() {
                match part {
                    ast::FStringPart::Literal(l) => out.push(Piece::Lit(l.value.to_string())),
                    ast::FStringPart::FString(fs) => {
                        for el in fs.elements.iter() {
                            match el {
                                ast::InterpolatedStringElement::Literal(l) => out.push(Piece::Lit(l.value.to_string())),
                                ast::InterpolatedStringElement::Interpolation(i) => {
                                    if let Some(d) = &i.debug_text {
                                        out.push(Piece::Lit(d.as_str().to_string()));
                                    }
                                    out.push(Piece::Expr(&i.expression));
                                }
                            }
                        }
                    }
                }
            }
        }
        Expr::StringLiteral(s) => out.push(Piece::Lit(s.value.to_str().to_string())),
        other => out.push(Piece::Expr(other)),
    }
}

fn print_key(call: &ast::ExprCall, g: &BTreeSet<String>) -> Option<Key> {
    if !matches!(&*call.func, Expr::Name(f) if f.id.as_str() == "print") || call.arguments.args.len() != 1 {
        return None;
    }
    let mut pieces = Vec::new();
    flatten(&call.arguments.args[0], &mut pieces);
    let mut name: Option<String> = None;
    let mut template = String::new();
    for p in pieces {
        match p {
            Piece::Lit(t) => template.push_str(&t),
            Piece::Expr(mut e) => {
                if let Expr::Call(c) = e {
                    if matches!(&*c.func, Expr::Name(f) if matches!(f.id.as_str(), "str" | "repr" | "format"))
                        && !c.arguments.args.is_empty()
                    {
                        e = &c.arguments.args[0];
                    }
                }
                match is_g(e, g) {
                    Some(n) => {
                        if name.as_ref().is_some_and(|m| *m != n) {
                            return None;
                        }
                        name = Some(n);
                        template.push('\0');
                    }
                    None => {
                        template.push('\u{1}');
                        template.push_str(&canon(e));
                    }
                }
            }
        }
    }
    name.map(|n| Key::Print(n, template))
}

fn operator_name(op: ast::Operator) -> &'static str {
    op.as_str()
}

fn update_key(s: &Stmt, g: &BTreeSet<String>) -> Option<Key> {
    match s {
        Stmt::AugAssign(a) => {
            let target = is_g(&a.target, g)?;
            Some(Key::Update(target, format!("aug:{}:{}", operator_name(a.op), canon(&a.value))))
        }
        Stmt::Assign(a) => {
            let [t] = &*a.targets else { return None };
            let target = is_g(t, g)?;
            if !mentioned(&a.value, &BTreeSet::from([target.clone()])).contains(&target) {
                return None;
            }
            if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == target) {
                return None;
            }
            let rhs = match &*a.value {
                Expr::BinOp(b) if matches!(&*b.left, Expr::Name(n) if n.id.as_str() == target) => {
                    format!("aug:{}:{}", operator_name(b.op), canon(&b.right))
                }
                other => format!("raw:{}", canon(other)),
            };
            Some(Key::Update(target, rhs))
        }
        _ => None,
    }
}

fn temp_key(a: &ast::StmtAssign, g: &BTreeSet<String>) -> Option<Key> {
    let [Expr::Name(t)] = &*a.targets else { return None };
    if g.contains(t.id.as_str()) {
        return None;
    }
    let names = mentioned(&a.value, g);
    if names.len() != 1 {
        return None;
    }
    let derived = match &*a.value {
        Expr::Name(_) | Expr::BinOp(_) => true,
        Expr::Call(c) => matches!(&*c.func, Expr::Attribute(at) if at.attr.as_str() == "replace"),
        _ => false,
    };
    derived.then(|| Key::Temp(t.id.to_string(), names.into_iter().next().unwrap_or_default(), canon(&a.value)))
}

/// The item a direct body statement is, if any (the reference's classification).
fn stmt_key(s: &Stmt, g: &BTreeSet<String>) -> Option<Key> {
    match s {
        Stmt::Assert(a) => assert_key(&a.test, g),
        Stmt::Expr(e) => match &*e.value {
            Expr::Call(c) => print_key(c, g),
            _ => None,
        },
        Stmt::Assign(a) => update_key(s, g).or_else(|| temp_key(a, g)),
        Stmt::AugAssign(_) => update_key(s, g),
        _ => None,
    }
}

/// The generated names a comment mentions as whole identifiers.
fn comment_names(text: &str, g: &BTreeSet<String>) -> Vec<String> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    g.iter()
        .filter(|name| {
            text.match_indices(name.as_str()).any(|(i, m)| {
                let before = text[..i].chars().next_back();
                let after = text[i + m.len()..].chars().next();
                !before.is_some_and(ident) && !after.is_some_and(ident)
            })
        })
        .cloned()
        .collect()
}

/// The items of a top-level function: its direct body statements, then its comments (those after the
/// `def` line, up to its last line, indented; `comments` are the program's, in order).
pub fn collect(p: &Program, f: &StmtFunctionDef, g: &BTreeSet<String>, comments: &[Comment]) -> Vec<Found> {
    let mut out = Vec::new();
    for (i, s) in f.body.iter().enumerate() {
        if let Some(key) = stmt_key(s, g) {
            let names = mentioned_in_stmt(s, g);
            out.push(Found { key, line: p.line_of(s), column: column_of(p, s), text: p.text(s), names, stmt: Some(i) });
        }
    }
    let (first, last) = (p.line_of(f), p.line(ruff_text_size::Ranged::end(f)));
    let from = comments.partition_point(|c| c.line <= first);
    for c in comments[from..].iter().take_while(|c| c.line <= last) {
        if c.column > 0 {
            let text = format!("#{}", c.text).trim().to_string();
            let names = comment_names(&text, g);
            if !names.is_empty() {
                out.push(Found {
                    key: Key::Comment(names.clone(), text.clone()),
                    line: c.line,
                    column: c.column,
                    text,
                    names: names.into_iter().collect(),
                    stmt: None,
                });
            }
        }
    }
    out.sort_by_key(|x| (x.line, x.column));
    out
}

fn column_of(p: &Program, s: &Stmt) -> usize {
    let start = usize::from(ruff_text_size::Ranged::start(s));
    start - p.source[..start].rfind('\n').map_or(0, |i| i + 1)
}

/// Requirement-shaped statements nested in blocks of a function (the reference does not look at them).
fn nested(p: &Program, f: &StmtFunctionDef, g: &BTreeSet<String>) -> Vec<(usize, String, &'static str)> {
    fn block_name(s: &Stmt) -> &'static str {
        match s {
            Stmt::If(_) => "an `if`",
            Stmt::For(_) => "a `for` loop",
            Stmt::While(_) => "a `while` loop",
            Stmt::With(_) => "a `with` block",
            Stmt::Try(_) => "a `try` block",
            Stmt::Match(_) => "a `match`",
            Stmt::FunctionDef(_) => "a nested function",
            Stmt::ClassDef(_) => "a class",
            _ => "a block",
        }
    }
    fn walk(
        p: &Program,
        stmts: &[Stmt],
        g: &BTreeSet<String>,
        inside: Option<&'static str>,
        out: &mut Vec<(usize, String, &'static str)>,
    ) {
        for s in stmts {
            if let Some(block) = inside {
                if stmt_key(s, g).is_some() {
                    out.push((p.line_of(s), p.text(s), block));
                }
            }
            let here = Some(inside.unwrap_or(block_name(s)));
            match s {
                Stmt::If(i) => {
                    walk(p, &i.body, g, here, out);
                    for c in &i.elif_else_clauses {
                        walk(p, &c.body, g, here, out);
                    }
                }
                Stmt::For(x) => {
                    walk(p, &x.body, g, here, out);
                    walk(p, &x.orelse, g, here, out);
                }
                Stmt::While(x) => {
                    walk(p, &x.body, g, here, out);
                    walk(p, &x.orelse, g, here, out);
                }
                Stmt::With(x) => walk(p, &x.body, g, here, out),
                Stmt::Try(x) => {
                    walk(p, &x.body, g, here, out);
                    for h in &x.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = h;
                        walk(p, &h.body, g, here, out);
                    }
                    walk(p, &x.orelse, g, here, out);
                    walk(p, &x.finalbody, g, here, out);
                }
                Stmt::Match(m) => {
                    for c in &m.cases {
                        walk(p, &c.body, g, here, out);
                    }
                }
                Stmt::FunctionDef(x) => walk(p, &x.body, g, here, out),
                Stmt::ClassDef(x) => walk(p, &x.body, g, here, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(p, &f.body, g, None, &mut out);
    out
}

/// Names a statement binds (assignment targets, loop targets, `with … as`).
fn binds(s: &Stmt) -> BTreeSet<String> {
    fn names(e: &Expr, out: &mut BTreeSet<String>) {
        match e {
            Expr::Name(n) => {
                out.insert(n.id.to_string());
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|x| names(x, out)),
            Expr::List(l) => l.elts.iter().for_each(|x| names(x, out)),
            Expr::Starred(s) => names(&s.value, out),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    match s {
        Stmt::Assign(a) => a.targets.iter().for_each(|t| names(t, &mut out)),
        Stmt::AnnAssign(a) => names(&a.target, &mut out),
        Stmt::AugAssign(a) => names(&a.target, &mut out),
        Stmt::For(f) => names(&f.target, &mut out),
        _ => {}
    }
    out
}

fn parameters(f: &StmtFunctionDef) -> BTreeSet<String> {
    let p = &f.parameters;
    p.posonlyargs
        .iter()
        .chain(p.args.iter())
        .chain(p.kwonlyargs.iter())
        .map(|a| a.parameter.name.to_string())
        .chain(p.vararg.iter().map(|v| v.name.to_string()))
        .chain(p.kwarg.iter().map(|v| v.name.to_string()))
        .collect()
}

/// Where the lines of a value may go in a function: after the statement that makes it available
/// (`None`: a parameter, available from the start) and before the first statement that uses it
/// (`None`: never used), as (statement index, line).
struct Window {
    bound: Option<(usize, usize)>,
    used: Option<(usize, usize)>,
}

fn window(p: &Program, f: &StmtFunctionDef, name: &str, items: &BTreeSet<usize>) -> Option<Window> {
    let params = parameters(f);
    let one = BTreeSet::from([name.to_string()]);
    let mut bound = None;
    if !params.contains(name) {
        let (i, s) = f.body.iter().enumerate().find(|(_, s)| binds(s).contains(name))?;
        bound = Some((i, p.line(ruff_text_size::Ranged::end(s))));
    }
    let from = bound.map_or(0, |b| b.0 + 1);
    let used = f
        .body
        .iter()
        .enumerate()
        .skip(from)
        .find(|(i, s)| !items.contains(i) && mentioned_in_stmt(s, &one).contains(name))
        .map(|(i, s)| (i, p.line_of(s)));
    Some(Window { bound, used })
}

/// What the reference expects of one function, what the candidate has, and the findings.
struct Problems(Vec<(usize, String)>);

impl Problems {
    fn add(&mut self, line: usize, msg: String) {
        self.0.push((line, msg));
    }
}

/// The requirement each normalised item of the reference's stands for, from the record's metadata
/// (rules that do not normalise to an item are left out).
fn requirement_keys(rules: &RuleSet, g: &BTreeSet<String>) -> BTreeMap<Key, Vec<Rule>> {
    let mut src = String::from("def __requirements():\n");
    for r in &rules.rules {
        src.push_str("    ");
        src.push_str(&r.req.code());
        src.push('\n');
    }
    src.push_str("    pass\n");
    let mut out: BTreeMap<Key, Vec<Rule>> = BTreeMap::new();
    let Ok(p) = Program::read(&src) else { return out };
    let Some(f) = p.function("__requirements") else { return out };
    for found in collect(&p, f, g, &p.comments()) {
        // Line 2 holds the first rule.
        if let Some(rule) = found.line.checked_sub(2).and_then(|i| rules.rules.get(i)) {
            out.entry(found.key).or_default().push(rule.clone());
        }
    }
    out
}

/// `requirement 17, `assert mult3 < 125`,` or the line alone.
fn naming(key: &Key, text: &str, reqs: &BTreeMap<Key, Vec<Rule>>) -> String {
    match reqs.get(key).and_then(|r| r.first()) {
        Some(r) => format!("{}, `{}`,", r.label(), r.req.code()),
        None => format!("`{text}`"),
    }
}

/// The value names in a key, and the key with them replaced by a placeholder (for pairing a wrong
/// value with a wrong name).
fn paramless(key: &Key) -> String {
    let mut s = format!("{key:?}");
    for p in ["mult", "prefix", "key", "slow"] {
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find(p) {
            let (head, tail) = rest.split_at(i);
            out.push_str(head);
            let digits = tail[p.len()..].bytes().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 {
                out.push_str("<v>");
                rest = &tail[p.len() + digits..];
            } else {
                out.push_str(p);
                rest = &tail[p.len()..];
            }
        }
        out.push_str(rest);
        s = out;
    }
    s
}

/// Compare one function; `exp` and `act` are its items in the reference and the candidate.
#[allow(clippy::too_many_arguments)]
fn compare_function(
    name: &str,
    exp: &[Found],
    act: &[Found],
    k: &Program,
    kf: &StmtFunctionDef,
    g: &BTreeSet<String>,
    reqs: &BTreeMap<Key, Vec<Rule>>,
    problems: &mut Problems,
) -> bool {
    let mut failed = false;
    if act.is_empty() && !exp.is_empty() {
        let at = kf.body.first().map_or(k.line_of(kf), |s| k.line_of(s));
        let first = &exp[0];
        problems.add(
            at,
            format!(
                "`{name}` has none of its {} requirement lines, line {at} (the first: {})",
                exp.len(),
                naming(&first.key, &first.text, reqs).trim_end_matches(',')
            ),
        );
        return true;
    }
    // Multisets per key.
    let mut want: BTreeMap<&Key, Vec<&Found>> = BTreeMap::new();
    for e in exp {
        want.entry(&e.key).or_default().push(e);
    }
    let mut have: BTreeMap<&Key, Vec<&Found>> = BTreeMap::new();
    for a in act {
        have.entry(&a.key).or_default().push(a);
    }
    let mut missing: Vec<&Found> = Vec::new();
    let mut extra: Vec<&Found> = Vec::new();
    for (key, es) in &want {
        let n = have.get(key).map_or(0, |v| v.len());
        missing.extend(es.iter().skip(n));
    }
    for (key, acts) in &have {
        let n = want.get(key).map_or(0, |v| v.len());
        extra.extend(acts.iter().skip(n));
    }
    // Where the function's requirement lines are (or, without any, its first statement).
    let at = act.first().map(|a| a.line).or(kf.body.first().map(|s| k.line_of(s))).unwrap_or(k.line_of(kf));
    // Pair a missing item with an extra one of the same category: the same names (a wrong literal or
    // action), then the same shape (a wrong value).
    let mut extra_left: Vec<Option<&Found>> = extra.iter().copied().map(Some).collect();
    for m in &missing {
        failed = true;
        let same_names =
            extra_left.iter().position(|x| x.is_some_and(|x| x.key.cat() == m.key.cat() && x.names == m.names));
        let same_shape = || {
            extra_left
                .iter()
                .position(|x| x.is_some_and(|x| x.key.cat() == m.key.cat() && paramless(&x.key) == paramless(&m.key)))
        };
        match same_names.or_else(same_shape) {
            Some(i) => {
                let x = extra_left[i].take().map(|x| (x.line, x.text.clone())).unwrap_or_default();
                let what = if reqs.contains_key(&m.key) {
                    naming(&m.key, &m.text, reqs).trim_end_matches(',').replacen(", `", " asks for `", 1)
                } else {
                    format!("the reference has `{}`", m.text)
                };
                problems.add(x.0, format!("{what} in `{name}`, but line {} has `{}` instead", x.0, x.1));
            }
            None => problems.add(at, format!("{} is missing in `{name}`, line {at}", naming(&m.key, &m.text, reqs))),
        }
    }
    for x in extra_left.into_iter().flatten() {
        failed = true;
        let why = match reqs.get(&x.key).and_then(|r| r.first()) {
            Some(r) => match &r.condition {
                Some(c) => format!(
                    "{} applies only in the functions {}, which `{name}` is not",
                    r.label(),
                    c.words().trim_start_matches("whose ").trim_start_matches("that ")
                ),
                None => format!("{} does not apply in `{name}`", r.label()),
            },
            None => "no requirement asks for it".to_string(),
        };
        problems.add(x.line, format!("`{}` in `{name}`, line {}, is not expected: {why}", x.text, x.line));
    }
    // Cabrito's own findings: order, nesting, placement.
    let mut worst: Option<&Found> = None;
    for a in act {
        match worst {
            Some(w) if w.key.cat() > a.key.cat() => {
                failed = true;
                problems.add(
                    a.line,
                    format!(
                        "the {} come before the {} in `{name}`, line {} (the order is comments, asserts, prints, \
                         temporary copies)",
                        w.key.cat().plural(),
                        a.key.cat().plural(),
                        a.line
                    ),
                );
                break;
            }
            Some(w) if w.key.cat() >= a.key.cat() => {}
            _ => worst = Some(a),
        }
    }
    for (line, text, block) in nested(k, kf, g) {
        failed = true;
        problems.add(
            line,
            format!("`{text}` in `{name}`, line {line}, is inside {block}: requirement lines go directly in the body"),
        );
    }
    let items: BTreeSet<usize> = act.iter().filter_map(|a| a.stmt).collect();
    let mut windows: BTreeMap<String, Option<Window>> = BTreeMap::new();
    for a in act {
        for v in &a.names {
            let w = windows.entry(v.clone()).or_insert_with(|| window(k, kf, v, &items));
            let Some(w) = w else { continue };
            let pos = a.stmt;
            let before_binding = match (w.bound, pos) {
                (Some((i, _)), Some(p)) => p < i,
                (Some((_, line)), None) => a.line <= line,
                (None, _) => false,
            };
            let after_use = match (w.used, pos) {
                (Some((i, _)), Some(p)) => p > i,
                (Some((_, line)), None) => a.line > line,
                (None, _) => false,
            };
            if before_binding {
                failed = true;
                let line = w.bound.map_or(0, |b| b.1);
                problems.add(
                    a.line,
                    format!("`{}` in `{name}`, line {}, comes before `{v}` is available (line {line})", a.text, a.line),
                );
            } else if after_use {
                failed = true;
                let line = w.used.map_or(0, |u| u.1);
                problems.add(
                    a.line,
                    format!(
                        "`{}` in `{name}`, line {}, comes after `{v}` is first used (line {line}): requirement lines \
                         go before",
                        a.text, a.line
                    ),
                );
            }
        }
    }
    failed
}

/// The verdict of the reference's rule alone (no Cabrito findings), for the agreement tests.
pub fn reference_verdict(c: &Ctx) -> bool {
    run(c).1
}

/// `constraint_structure` as a rubric item.
pub fn constraint_structure(c: &Ctx) -> RubricOutcome {
    run(c).0
}

/// (the item, whether the reference's rule passes).
fn run(c: &Ctx) -> (RubricOutcome, bool) {
    let g = generated_names(c.reference);
    if g.is_empty() {
        return (
            RubricOutcome {
                passed: true,
                reason: "the reference has no generated values; nothing to check".into(),
                line: None,
            },
            true,
        );
    }
    let rules = RuleSet::from_metadata(c.task.metadata);
    let reqs = rules.as_ref().map(|r| requirement_keys(r, &g)).unwrap_or_default();
    let mut problems = Problems(Vec::new());
    let mut reference_fails = false;
    let mut lines = 0;
    let mut functions = 0;
    let (r, k) = (c.reference, c.candidate);
    let (rc, kc) = (r.comments(), k.comments());
    for name in r.function_names() {
        let Some(rf) = r.function(name) else { continue };
        let exp = collect(r, rf, &g, &rc);
        let Some(kf) = k.function(name) else {
            if !exp.is_empty() {
                reference_fails = true;
                problems.add(0, format!("`{name}` is missing: it must carry {} requirement lines", exp.len()));
            }
            continue;
        };
        let act = collect(k, kf, &g, &kc);
        if exp.is_empty() && act.is_empty() && nested(k, kf, &g).is_empty() {
            continue;
        }
        lines += exp.len();
        functions += usize::from(!exp.is_empty());
        // The reference's rule: equal multisets per category.
        let mut e: Vec<&Key> = exp.iter().map(|x| &x.key).collect();
        let mut a: Vec<&Key> = act.iter().map(|x| &x.key).collect();
        e.sort();
        a.sort();
        if e != a {
            reference_fails = true;
        }
        compare_function(name, &exp, &act, k, kf, &g, &reqs, &mut problems);
    }
    let known = r.function_names();
    for kf in k.functions() {
        let name = kf.name.as_str();
        if known.contains(name) || k.function(name).is_some_and(|last| !std::ptr::eq(last, kf)) {
            continue;
        }
        let act = collect(k, kf, &g, &kc);
        if let Some(first) = act.first() {
            reference_fails = true;
            problems.add(
                first.line,
                format!(
                    "`{name}` is not a function of the task but has {} requirement lines (line {})",
                    act.len(),
                    first.line
                ),
            );
        }
    }
    let passed_reference = !reference_fails;
    if problems.0.is_empty() {
        let reason = format!(
            "all {lines} requirement lines of the reference's {functions} functions are there, in order{}",
            match &rules {
                Some(r) if !r.rules.is_empty() => format!(" ({} requirements)", r.rules.len()),
                _ => String::new(),
            }
        );
        return (RubricOutcome { passed: true, reason, line: None }, passed_reference);
    }
    let mut ps = problems.0;
    ps.sort_by_key(|p| p.0);
    ps.dedup();
    let shown: Vec<&str> = ps.iter().take(3).map(|p| p.1.as_str()).collect();
    let more = if ps.len() > 3 { format!(" (and {} more)", ps.len() - 3) } else { String::new() };
    let line = ps.iter().map(|p| p.0).find(|&l| l > 0);
    // Findings are joined by "; ", which no finding holds outside its backquoted code (the app splits on it).
    (RubricOutcome { passed: false, reason: format!("{}{more}", shown.join("; ")), line }, passed_reference)
}
