//! The one Python front end: every reader of Python reads a program through [`Program::read`] or
//! [`Program::parse`], so all share the same guards and answers.
//!
//! ```text
//! bytes ──source::decode──▶ text ──source::scan──▶ ruff parse ──cpython::tree_depth──▶ Program::read
//!                                                    cpython::compile_errors ──▶ Program::parse
//! ```
//!
//! `read` accepts what `ast.parse` accepts; `parse` what `compile()` accepts (the `compilation`
//! item). A deep program is analysed on a stack sized for it ([`Program::with_stack`]) and dropped
//! without recursion, so no input overflows the stack. Statement equality uses ruff's comparable
//! tree ([`ComparableStmt`]): positions, parentheses, comments and quoting do not count.

use super::cpython;
pub use super::source::ProgramError;
use super::source::{scan, LineIndex, MAX_SOURCE_BYTES};
use ruff_python_ast::comparable::{ComparableExpr, ComparableParameters, ComparableStmt};
use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::transformer::{self, Transformer};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Stmt, StmtFunctionDef};
use ruff_python_parser::{Mode, ParseOptions};
use ruff_text_size::{Ranged, TextRange, TextSize};
use std::cell::RefCell;

/// Trees up to this deep are analysed and dropped on the caller's stack; deeper ones get their own.
const SHALLOW: usize = 100;

/// Stack bytes allowed per level of a deep tree while it is analysed: twice what a debug build was
/// measured to need (4 KB per level fails no test of the hostile corpus, 2 KB does).
const STACK_PER_LEVEL: usize = 8 * 1024;

/// Stack bytes allowed per parser level (the scan's `parser_levels`) while ruff's parser reads a deep
/// program: nested lambda defaults cost seven of its frames a level, and a debug build overflowed a
/// 2 MB test thread on them without this.
const PARSE_STACK_PER_LEVEL: usize = 16 * 1024;

/// A parsed program.
pub struct Program<'s> {
    pub source: &'s str,
    lines: LineIndex,
    tree: Tree,
    /// Top-level function name → index in the body of its last `def` (the one Python keeps).
    defs: std::collections::HashMap<String, usize>,
    /// What `compile()` would refuse that `ast.parse` accepts (the first one by position).
    compile_error: Option<ProgramError>,
    depth: usize,
    /// The `#` comment tokens, in source order.
    comments: Vec<TextRange>,
}

/// One `#` comment of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment<'s> {
    /// 1-based line.
    pub line: usize,
    /// 0-based column of the `#`, in bytes.
    pub column: usize,
    /// The text after the `#`.
    pub text: &'s str,
    /// Nothing but blanks before the `#` on its line.
    pub own_line: bool,
}

/// The statements of a module; a deep tree is taken apart without recursion when dropped.
struct Tree {
    body: Vec<Stmt>,
    depth: usize,
}

impl Drop for Tree {
    fn drop(&mut self) {
        if self.depth > SHALLOW {
            dismantle(std::mem::take(&mut self.body));
        }
    }
}

/// Drop a tree of any depth with a bounded stack: every statement and expression is moved out of its
/// parent onto a heap stack before the parent is dropped.
fn dismantle(body: Vec<Stmt>) {
    #[derive(Default)]
    struct Taker {
        stmts: RefCell<Vec<Stmt>>,
        exprs: RefCell<Vec<Expr>>,
    }
    impl Transformer for Taker {
        fn visit_stmt(&self, stmt: &mut Stmt) {
            let pass =
                Stmt::Pass(ast::StmtPass { node_index: ast::AtomicNodeIndex::NONE, range: TextRange::default() });
            self.stmts.borrow_mut().push(std::mem::replace(stmt, pass));
        }
        fn visit_expr(&self, expr: &mut Expr) {
            let none = Expr::NoneLiteral(ast::ExprNoneLiteral::default());
            self.exprs.borrow_mut().push(std::mem::replace(expr, none));
        }
    }
    let t = Taker { stmts: RefCell::new(body), exprs: RefCell::new(Vec::new()) };
    loop {
        let next_stmt = t.stmts.borrow_mut().pop();
        if let Some(mut s) = next_stmt {
            transformer::walk_stmt(&t, &mut s);
            drop(s);
            continue;
        }
        let next_expr = t.exprs.borrow_mut().pop();
        match next_expr {
            Some(mut e) => {
                transformer::walk_expr(&t, &mut e);
                drop(e);
            }
            None => break,
        }
    }
}

impl<'s> Program<'s> {
    /// Read a program as `ast.parse` would: the source guards, the tokenizer's rules, syntax, and
    /// CPython's nesting limits. Compile-time errors are kept for [`Program::compile_error`].
    pub fn read(source: &'s str) -> Result<Program<'s>, ProgramError> {
        if source.len() > MAX_SOURCE_BYTES {
            return Err(ProgramError::new(
                1,
                format!("the file is {} bytes; at most {MAX_SOURCE_BYTES} bytes (2 MB) are read", source.len()),
            ));
        }
        let scanned = scan(source)?;
        let lines = LineIndex::new(source);
        // Version-dependent syntax is checked against the oldest CPython the tasks target (D4).
        let options = ParseOptions::from(Mode::Module).with_target_version(ast::PythonVersion::PY311);
        // The parser recurses once or more per level of nesting (seven frames per lambda default), so a
        // deep but CPython-valid program is parsed on a stack sized by the scan's estimate.
        let parsed = with_stack_of(scanned.parser_levels, PARSE_STACK_PER_LEVEL, || {
            ruff_python_parser::parse_unchecked(source, options)
        });
        // CPython reports a syntax error past a bracket left open as that bracket's.
        let syntax = parsed.errors().first().map(|e| {
            let at = usize::from(e.location.start());
            match scanned.unclosed {
                Some((open, b)) if open < at => (open, format!("syntax error: '{b}' was never closed")),
                _ => (at, format!("syntax error: {}", e.error)),
            }
        });
        let unsupported = parsed.unsupported_syntax_errors().first().map(|e| {
            (
                usize::from(e.range.start()),
                format!("syntax error on CPython 3.11, the oldest Python the tasks target: {e}"),
            )
        });
        let comments: Vec<TextRange> =
            parsed.tokens().iter().filter(|t| t.kind() == TokenKind::Comment).map(|t| t.range()).collect();
        let body = match parsed.into_syntax() {
            ast::Mod::Module(m) => m.body.into_iter().collect::<Vec<Stmt>>(),
            ast::Mod::Expression(_) => return Err(ProgramError::new(1, "not a Python module")),
        };
        let (depth, too_deep) = cpython::tree_depth(&body);
        let tree = Tree { body, depth };
        // The parser's errors come in source order with the long-integer one (CPython stops at whichever
        // it meets first); the depth limit is met after parsing.
        let first = [scanned.deferred, syntax, unsupported].into_iter().flatten().min_by_key(|e| e.0);
        if let Some((at, message)) = first {
            return Err(ProgramError::new(lines.line(at), message));
        }
        if let Some(at) = too_deep {
            return Err(ProgramError::new(
                lines.line(usize::from(at)),
                format!(
                    "the code nests {depth} levels deep; CPython 3.11 refuses more than {} (RecursionError during compilation)",
                    cpython::MAX_TREE_DEPTH
                ),
            ));
        }
        let errors = with_stack(depth, || cpython::compile_errors(&tree.body));
        let compile_error = errors.into_iter().min_by_key(|e| e.0).map(|(at, msg)| {
            ProgramError::new(lines.line(usize::from(at)), format!("CPython would reject this: {msg}"))
        });
        let mut defs = std::collections::HashMap::new();
        for (i, s) in tree.body.iter().enumerate() {
            if let Stmt::FunctionDef(f) = s {
                if !f.is_async {
                    defs.insert(f.name.to_string(), i);
                }
            }
        }
        Ok(Program { source, lines, tree, defs, compile_error, depth, comments })
    }

    /// Read and compile a program: `Ok` exactly when CPython 3.11's `compile()` accepts it (see
    /// [`cpython`] for how exactly).
    pub fn parse(source: &'s str) -> Result<Program<'s>, ProgramError> {
        let p = Program::read(source)?;
        match p.compile_error.clone() {
            Some(e) => Err(e),
            None => Ok(p),
        }
    }

    /// What `compile()` would refuse in a program `ast.parse` reads.
    pub fn compile_error(&self) -> Option<&ProgramError> {
        self.compile_error.as_ref()
    }

    /// The depth of the tree, CPython's way (statements, expressions and patterns on the longest path).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Run an analysis that recurses over this program's tree on a stack big enough for its depth.
    pub fn with_stack<T>(&self, f: impl FnOnce() -> T) -> T {
        with_stack(self.depth, f)
    }

    pub fn body(&self) -> &[Stmt] {
        &self.tree.body
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: TextSize) -> usize {
        self.lines.line(usize::from(offset))
    }

    /// 1-based line where a node starts.
    pub fn line_of<T: Ranged>(&self, node: &T) -> usize {
        self.line(node.start())
    }

    /// The source text of a node, on one line, shortened.
    pub fn text<T: Ranged>(&self, node: &T) -> String {
        snippet(self.slice(node.range()))
    }

    /// Every `#` comment, in source order.
    pub fn comments(&self) -> Vec<Comment<'s>> {
        self.comments
            .iter()
            .map(|r| {
                let start = usize::from(r.start());
                let before = &self.source[..start];
                let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
                Comment {
                    line: self.lines.line(start),
                    column: start - line_start,
                    text: self.source.get(start + 1..usize::from(r.end())).unwrap_or(""),
                    own_line: before[line_start..].trim().is_empty(),
                }
            })
            .collect()
    }

    /// The comments inside a top-level function: after its `def` line, before the next top-level
    /// statement, indented deeper than the `def` (comments after the last statement of the body
    /// count while they stay indented).
    pub fn comments_in(&self, f: &StmtFunctionDef) -> Vec<Comment<'s>> {
        let def_line = self.line_of(f);
        let begin = usize::from(f.start());
        let def_column = begin - self.source[..begin].rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let end = self.body().iter().map(|s| usize::from(s.start())).find(|&s| s > begin).unwrap_or(self.source.len());
        self.comments
            .iter()
            .zip(self.comments())
            .filter(|(r, c)| c.line > def_line && usize::from(r.start()) < end && c.column > def_column)
            .map(|(_, c)| c)
            .collect()
    }

    fn slice(&self, r: TextRange) -> &str {
        self.source.get(usize::from(r.start())..usize::from(r.end())).unwrap_or("")
    }

    /// Top-level `def`s (not `async def`), in file order, as the reference's function sets count them.
    pub fn functions(&self) -> Vec<&StmtFunctionDef> {
        self.body()
            .iter()
            .filter_map(|s| match s {
                Stmt::FunctionDef(f) if !f.is_async => Some(f),
                _ => None,
            })
            .collect()
    }

    /// The function Python would call by this name: the last top-level `def` of it.
    pub fn function(&self, name: &str) -> Option<&StmtFunctionDef> {
        match self.tree.body.get(*self.defs.get(name)?) {
            Some(Stmt::FunctionDef(f)) => Some(f),
            _ => None,
        }
    }

    /// Names of the top-level functions (sorted, deduplicated).
    pub fn function_names(&self) -> std::collections::BTreeSet<&str> {
        self.functions().into_iter().map(|f| f.name.as_str()).collect()
    }

    /// Every import in the program (at any depth), normalised to one alias per entry, with its line.
    pub fn imports(&self) -> Vec<(String, usize)> {
        let mut c = Collect::default();
        c.visit_body(self.body());
        c.imports.into_iter().map(|(s, at)| (s, self.line(at))).collect()
    }

    /// Every `global NAME` declaration (at any depth), with its line.
    pub fn globals(&self) -> Vec<(String, usize)> {
        let mut c = Collect::default();
        c.visit_body(self.body());
        c.globals.into_iter().map(|(s, at)| (s, self.line(at))).collect()
    }

    /// The top-level `if __name__ …:` blocks.
    pub fn main_guards(&self) -> Vec<&Stmt> {
        self.body().iter().filter(|s| is_main_guard(s)).collect()
    }

    /// Top-level statements that are not a `def`, an import, a main guard or a docstring-like string.
    pub fn module_code(&self) -> Vec<&Stmt> {
        self.body()
            .iter()
            .filter(|s| match s {
                Stmt::FunctionDef(f) => f.is_async,
                Stmt::Import(_) | Stmt::ImportFrom(_) => false,
                Stmt::Expr(e) => !e.value.is_string_literal_expr(),
                s => !is_main_guard(s),
            })
            .collect()
    }

    /// The top-level `def`s (async ones too), in source order, with their source text.
    pub fn top_defs(&self) -> Vec<TopDef> {
        self.body()
            .iter()
            .filter_map(|s| match s {
                Stmt::FunctionDef(f) => Some(TopDef {
                    name: f.name.id.to_string(),
                    line: self.line_of(&f.name),
                    is_async: f.is_async,
                    source: self.slice(s.range()).to_string(),
                }),
                _ => None,
            })
            .collect()
    }

    /// Top-level assignments to a plain name (plain, annotated or augmented), as the reference's
    /// `function_existence` detects them: `(name, line)`.
    pub fn module_assignments(&self) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        for s in self.body() {
            let targets: Vec<&Expr> = match s {
                Stmt::Assign(a) => a.targets.iter().collect(),
                Stmt::AnnAssign(a) => vec![&*a.target],
                Stmt::AugAssign(a) => vec![&*a.target],
                _ => continue,
            };
            for t in targets {
                if let Expr::Name(n) = t {
                    out.push((n.id.to_string(), self.line_of(s)));
                }
            }
        }
        out
    }
}

/// One top-level `def` of a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopDef {
    pub name: String,
    /// 1-based line of the function's name.
    pub line: usize,
    pub is_async: bool,
    /// Source text, decorators included.
    pub source: String,
}

/// Run `f`, which recurses over a tree `depth` levels deep, on a stack big enough for it: the caller's
/// for shallow trees, a fresh one (from `stacker`, natively and in wasm) for deep ones.
pub fn with_stack<T>(depth: usize, f: impl FnOnce() -> T) -> T {
    with_stack_of(depth, STACK_PER_LEVEL, f)
}

/// [`with_stack`] with `per_level` bytes of stack for each level.
fn with_stack_of<T>(depth: usize, per_level: usize, f: impl FnOnce() -> T) -> T {
    if depth <= SHALLOW {
        f()
    } else {
        stacker::grow(depth.saturating_mul(per_level).saturating_add(256 << 10), f)
    }
}

/// One call in a function body: the callee when it is a plain name, the plain names passed positionally,
/// and the keywords as `(keyword, value name)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedCall {
    pub callee: Option<String>,
    pub args: Vec<String>,
    pub keywords: Vec<(Option<String>, Option<String>)>,
    /// 1-based line of the call.
    pub line: usize,
}

impl ParsedCall {
    /// Does the call hand on the variable `name` (positionally, as `name=…`, or as `…=name`)?
    pub fn passes(&self, name: &str) -> bool {
        self.args.iter().any(|a| a == name)
            || self.keywords.iter().any(|(k, v)| k.as_deref() == Some(name) || v.as_deref() == Some(name))
    }
}

impl Program<'_> {
    /// The calls in a function's body (not in its signature), in source order.
    pub fn calls_in(&self, f: &StmtFunctionDef) -> Vec<ParsedCall> {
        let mut c = CallCollector { calls: Vec::new() };
        c.visit_body(&f.body);
        c.calls
            .into_iter()
            .map(|(callee, args, keywords, at)| ParsedCall { callee, args, keywords, line: self.line(at) })
            .collect()
    }
}

type RawCall = (Option<String>, Vec<String>, Vec<(Option<String>, Option<String>)>, TextSize);

struct CallCollector {
    calls: Vec<RawCall>,
}

impl<'a> Visitor<'a> for CallCollector {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(c) = expr {
            let name = |e: &Expr| match e {
                Expr::Name(n) => Some(n.id.to_string()),
                _ => None,
            };
            self.calls.push((
                name(&c.func),
                c.arguments.args.iter().filter_map(name).collect(),
                c.arguments.keywords.iter().map(|k| (k.arg.as_ref().map(|a| a.to_string()), name(&k.value))).collect(),
                expr.start(),
            ));
        }
        visitor::walk_expr(self, expr);
    }
}

/// Shorten source text for a message: first line, at most 80 characters.
pub fn snippet(s: &str) -> String {
    let first = s.trim().lines().next().unwrap_or("");
    let mut out: String = first.chars().take(80).collect();
    if first.chars().count() > 80 || s.trim().lines().count() > 1 {
        out.push_str(" …");
    }
    out
}

/// Is this a top-level `if __name__ == '__main__':` style block (any `if` whose test mentions `__name__`)?
pub fn is_main_guard(s: &Stmt) -> bool {
    let Stmt::If(i) = s else { return false };
    mentions(&i.test, "__name__")
}

/// Does an expression mention a name? (Walked with a heap stack: any depth is safe.)
fn mentions(root: &Expr, name: &str) -> bool {
    struct Push<'a> {
        stack: Vec<&'a Expr>,
    }
    impl<'a> Visitor<'a> for Push<'a> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            self.stack.push(expr);
        }
    }
    let mut p = Push { stack: vec![root] };
    while let Some(e) = p.stack.pop() {
        if let Expr::Name(n) = e {
            if n.id.as_str() == name {
                return true;
            }
        }
        visitor::walk_expr(&mut p, e);
    }
    false
}

/// Two statements are equal up to formatting, comments, parentheses and quoting.
pub fn same_stmt(a: &Stmt, b: &Stmt) -> bool {
    ComparableStmt::from(a) == ComparableStmt::from(b)
}

/// Two functions are equal up to formatting (name, decorators, parameters, annotation and body).
pub fn same_function(a: &StmtFunctionDef, b: &StmtFunctionDef) -> bool {
    a.name.as_str() == b.name.as_str() && same_shape(a, b) && a.decorator_list.len() == b.decorator_list.len()
}

/// Two functions are equal apart from their names (for spotting renames).
pub fn same_shape(a: &StmtFunctionDef, b: &StmtFunctionDef) -> bool {
    ComparableParameters::from(&*a.parameters) == ComparableParameters::from(&*b.parameters)
        && a.returns.as_deref().map(ComparableExpr::from) == b.returns.as_deref().map(ComparableExpr::from)
        && a.body.len() == b.body.len()
        && a.body.iter().zip(b.body.iter()).all(|(x, y)| same_stmt(x, y))
}

/// Two optional expressions are equal up to formatting.
pub fn same_expr(a: Option<&Expr>, b: Option<&Expr>) -> bool {
    a.map(ComparableExpr::from) == b.map(ComparableExpr::from)
}

/// Imports and `global` declarations anywhere in a program.
#[derive(Default)]
struct Collect {
    imports: Vec<(String, TextSize)>,
    globals: Vec<(String, TextSize)>,
}

impl<'a> Visitor<'a> for Collect {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(i) => {
                for a in &i.names {
                    let alias = a.asname.as_ref().map(|n| format!(" as {}", n.as_str())).unwrap_or_default();
                    self.imports.push((format!("import {}{alias}", a.name.as_str()), stmt.start()));
                }
            }
            Stmt::ImportFrom(i) => {
                let module =
                    format!("{}{}", ".".repeat(i.level as usize), i.module.as_ref().map(|m| m.as_str()).unwrap_or(""));
                for a in &i.names {
                    let alias = a.asname.as_ref().map(|n| format!(" as {}", n.as_str())).unwrap_or_default();
                    self.imports.push((format!("from {module} import {}{alias}", a.name.as_str()), stmt.start()));
                }
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    self.globals.push((n.as_str().to_string(), stmt.start()));
                }
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }
    // Expressions cannot hold statements except through lambdas (which hold none), so skip them.
    fn visit_expr(&mut self, _expr: &'a Expr) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> ProgramError {
        match Program::parse(src) {
            Ok(_) => panic!("expected an error for {src:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn syntax_error_line() {
        let e = err("import math\n\ndef f(val):\n    return (val\n");
        assert!(e.line >= 4, "{e:?}");
        let e = err("x = 1\ny = 2\ndef f(:\n    pass\n");
        assert_eq!(e.line, 3, "{e:?}");
    }

    #[test]
    fn compile_errors_a_parser_accepts() {
        assert_eq!(err("x = 1\nreturn x\n").line, 2);
        assert!(err("x = 1\nreturn x\n").message.contains("'return' outside function"));
        assert_eq!(err("def f():\n    pass\nbreak\n").line, 3);
        assert!(err("for i in x:\n    def g():\n        continue\n").message.contains("continue"));
        assert!(err("def f(a, a):\n    pass\n").message.contains("duplicate argument"));
        assert!(err("f(a=1, a=2)\n").message.contains("keyword argument repeated"));
        assert!(err("yield 1\n").message.contains("yield"));
        assert!(err("def f():\n    await g()\n").message.contains("await"));
        assert!(err("nonlocal x\n").message.contains("nonlocal"));
        assert!(Program::parse(
            "for i in x:\n    if i:\n        break\n    else:\n        continue\nelse:\n    pass\n"
        )
        .is_ok());
        assert!(Program::parse(
            "async def f():\n    await g()\n    async for x in y:\n        pass\nf = lambda: (yield)\n"
        )
        .is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("x = {}1{}\n", "(".repeat(5000), ")".repeat(5000));
        assert!(err(&deep).message.contains("nested parentheses"));
        let minus = format!("x = {}1\n", "-".repeat(100_000));
        assert!(err(&minus).message.contains("levels deep"));
        let sum = format!("x = 1{}\n", "+1".repeat(100_000));
        assert!(err(&sum).message.contains("levels deep"));
        let broken = format!("x = {}1 +\n", "-".repeat(100_000));
        assert!(Program::parse(&broken).is_err());
        let strings = format!("x = '{}'\n", "(".repeat(5000));
        assert!(Program::parse(&strings).is_ok());
    }

    /// (source, does CPython 3.11.7's `compile()` accept it?)
    const CPYTHON: &[(&str, bool)] = &[
        ("x = 1\n", true),
        ("return 1\n", false),
        ("def f():\n    return 1\n", true),
        ("break\n", false),
        ("continue\n", false),
        ("for i in x:\n    break\n", true),
        ("while x:\n    continue\n", true),
        ("for i in x:\n    pass\nelse:\n    break\n", false),
        ("def f():\n    yield 1\n", true),
        ("yield 1\n", false),
        ("await x\n", false),
        ("def f():\n    await x\n", false),
        ("async def f():\n    await x\n", true),
        ("def f(a, a):\n    pass\n", false),
        ("f(a=1, a=2)\n", false),
        ("f(a=1, b=2)\n", true),
        ("nonlocal x\n", false),
        ("def f():\n    nonlocal x\n", false),
        ("def f():\n    x = 1\n    def g():\n        nonlocal x\n", true),
        ("global x\n", true),
        ("None = 1\n", false),
        ("True = 1\n", false),
        ("f() = 1\n", false),
        ("x + 1 = 2\n", false),
        ("del f()\n", false),
        ("def f(a=1, b):\n    pass\n", false),
        ("lambda: (yield)\n", true),
        ("class A:\n    return 1\n", false),
        ("class A:\n    def f(self):\n        return 1\n", true),
        ("x = 1\nfrom __future__ import annotations\n", false),
        ("from __future__ import annotations\nx = 1\n", true),
        ("'''doc'''\nfrom __future__ import annotations\n", true),
        ("from __future__ import braces\n", false),
        ("from __future__ import nope\n", false),
        ("def f(*, a):\n    pass\n", true),
        ("def f(*):\n    pass\n", false),
        ("print(*a, **b)\n", true),
        ("f(**a, *b)\n", false),
        ("f(a=1, 2)\n", false),
        ("x: int = 1\n", true),
        ("(x): int = 1\n", true),
        ("[x]: int = 1\n", false),
        ("async def f():\n    yield 1\n    return 2\n", false),
        ("def f():\n    x = yield\n", true),
        ("for x in range(3):\n    def g():\n        break\n", false),
        ("try:\n    pass\nexcept:\n    pass\n", true),
        ("try:\n    pass\nfinally:\n    break\n", false),
        ("with a as (b, c):\n    pass\n", true),
        ("def f(**k, a):\n    pass\n", false),
        ("x = [i for i in range(3) if (yield)]\n", false),
        ("def f():\n    global x\n    x = 1\n", true),
        ("def f(x):\n    global x\n", false),
        ("import a.b as c\n", true),
        ("from . import x\n", true),
        ("a, *b, *c = d\n", false),
        ("*a = b\n", false),
        ("f'{x!z}'\n", false),
        ("x = 1 if y else\n", false),
        ("match x:\n    case 1:\n        pass\n", true),
        ("def f[T](x: T) -> T:\n    return x\n", false),
        ("def f():\n    x = 1\n    class A:\n        nonlocal x\n", true),
        ("def f():\n    x = 1\n    def g():\n        nonlocal x\n        x = 2\n", true),
        ("async def f():\n    yield from x\n", false),
        ("if (n := 10) > 5:\n    pass\n", true),
        ("x = [y := 1, 2]\n", true),
        ("def f():\n    return *a, b\n", true),
        ("try:\n    pass\nexcept* ValueError:\n    pass\n", true),
        ("type X = int\n", false),
        ("with (open(a) as b, open(c) as d):\n    pass\n", true),
        ("def f(a, /, b, *, c):\n    pass\n", true),
        ("@x.y[0]\ndef f():\n    pass\n", true),
        ("print(f'{x=}')\n", true),
        ("for *a, *b in c:\n    pass\n", false),
        ("def f():\n    x = 1\n    global x\n", false),
        ("class A:\n    x = 1\n    def f(self):\n        nonlocal x\n", false),
    ];

    /// Where the checker and CPython disagree (all known, none silent): the parser accepts some code
    /// that only CPython's symbol-table pass rejects.
    #[test]
    fn agrees_with_cpython_compile() {
        let mut wrong = Vec::new();
        for (src, ok) in CPYTHON {
            if Program::parse(src).is_ok() != *ok {
                wrong.push(format!("{src:?}: CPython {}", if *ok { "accepts" } else { "rejects" }));
            }
        }
        assert!(wrong.is_empty(), "disagreements with CPython:\n{}", wrong.join("\n"));
    }

    #[test]
    fn unclosed_brackets_are_named_as_cpython_does() {
        let e = err("x = 1\ry = 2\rz = (\n");
        assert_eq!((e.line, e.message.as_str()), (3, "syntax error: '(' was never closed"));
        assert_eq!(err("x = (\n[1],\n[2,\n").line, 3);
    }

    #[test]
    fn null_bytes() {
        let e = err("x = 1\ny = '\0'\n");
        assert_eq!(e.line, 2);
        assert!(e.message.contains("null bytes"));
    }

    #[test]
    fn bom_and_crlf() {
        assert!(Program::parse("\u{feff}import math\r\nx = 1\r\n").is_ok());
        assert_eq!(err("\u{feff}x = 1\r\ny = 2\r\ndef f(:\r\n").line, 3);
    }

    #[test]
    fn facts() {
        let src = "from mylibrary import default\nimport math, numpy as np\n\nCACHE = {}\nX: int = 1\n\ndef f(val: float) -> float:\n    global Y\n    import os\n    return val\n\nasync def g():\n    pass\n\ndef f(val):\n    return 0\n\nif __name__ == '__main__':\n    main(1)\n";
        let p = Program::parse(src).unwrap();
        assert_eq!(p.functions().len(), 2);
        assert_eq!(p.function("f").map(|f| p.line_of(f)), Some(15));
        let imports: Vec<String> = p.imports().into_iter().map(|i| i.0).collect();
        assert_eq!(imports, ["from mylibrary import default", "import math", "import numpy as np", "import os"]);
        assert_eq!(p.globals(), vec![("Y".to_string(), 8)]);
        assert_eq!(p.main_guards().len(), 1);
        assert_eq!(p.module_code().len(), 3); // CACHE, X, async def g
        assert_eq!(p.module_assignments(), vec![("CACHE".to_string(), 4), ("X".to_string(), 5)]);
    }

    #[test]
    fn normalised_equality() {
        let a = Program::parse("def f(val: float) -> float:\n    # comment\n    return (abs(val))\n").unwrap();
        let b = Program::parse("def f(val:float)->float:\n    return abs( val )  # other\n").unwrap();
        let c = Program::parse("def f(val: float) -> float:\n    return abs(-val)\n").unwrap();
        assert!(same_function(a.functions()[0], b.functions()[0]));
        assert!(!same_function(a.functions()[0], c.functions()[0]));
        let d = Program::parse("if __name__ == \"__main__\":\n    main(float(sys.argv[1]))\n").unwrap();
        let e = Program::parse("if __name__ == '__main__':\n    main((float(sys.argv[1])))\n").unwrap();
        assert!(same_stmt(d.main_guards()[0], e.main_guards()[0]));
    }
}
