//! A parsed Python program with the facts the rubric needs: line numbers, top-level functions, imports,
//! module-level code, and a normaliser that compares statements regardless of formatting and comments.
//!
//! The parser is `ruff_python_parser`; it parses but does not compile, so [`Program::parse`] adds the
//! errors CPython's compiler reports that are easy to see in the tree (`return` outside a function, `break`
//! outside a loop, a repeated parameter or keyword argument, …). Statement equality uses ruff's comparable
//! tree ([`ComparableStmt`]), which ignores positions, parentheses, comments and quoting.

use ruff_python_ast::comparable::{ComparableExpr, ComparableParameters, ComparableStmt};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ModModule, Stmt, StmtFunctionDef};
use ruff_python_parser::{Mode, ParseOptions};
use ruff_text_size::{Ranged, TextRange, TextSize};

/// Deepest nesting of statements and expressions the checker analyses. Generated programs stay far
/// below it (a few dozen levels); the limit keeps hostile input from exhausting the stack.
pub const MAX_DEPTH: usize = 200;

/// CPython's tokenizer refuses more nested brackets than this ("too many nested parentheses").
pub const MAX_BRACKETS: usize = 200;

/// Why a program could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramError {
    /// 1-based line.
    pub line: usize,
    pub message: String,
}

/// A parsed program.
pub struct Program<'s> {
    pub source: &'s str,
    line_starts: Vec<usize>,
    /// Only trees shallower than [`MAX_DEPTH`] are kept, so dropping one cannot exhaust the stack.
    module: ModModule,
    /// Top-level function name → index in the body of its last `def` (the one Python keeps).
    defs: std::collections::HashMap<String, usize>,
}

fn line_starts(source: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(source.match_indices('\n').map(|(i, _)| i + 1));
    v
}

fn line_at(starts: &[usize], offset: usize) -> usize {
    starts.partition_point(|&s| s <= offset).max(1)
}

impl<'s> Program<'s> {
    /// Parse and check a program the way `compile()` would (as far as a parser can tell).
    pub fn parse(source: &'s str) -> Result<Program<'s>, ProgramError> {
        let starts = line_starts(source);
        if let Some(offset) = source.find('\0') {
            return Err(ProgramError {
                line: line_at(&starts, offset),
                message: "source code cannot contain null bytes (CPython refuses it)".into(),
            });
        }
        if let Some((offset, what)) = bracket_overflow(source) {
            return Err(ProgramError { line: line_at(&starts, offset), message: what });
        }
        // `parse_unchecked_source` hands back the tree even when there are errors, so a very deep tree is
        // never dropped (dropping recurses once per level) before the depth guard has seen it.
        // Version-dependent syntax is checked against the oldest CPython the tasks target (D4).
        let options = ParseOptions::from(Mode::Module).with_target_version(ast::PythonVersion::PY311);
        let Some(parsed) = ruff_python_parser::parse_unchecked(source, options).try_into_module() else {
            return Err(ProgramError { line: 1, message: "not a Python module".into() });
        };
        let mut sem = Semantic::default();
        sem.visit_body(&parsed.syntax().body);
        if let Some(at) = sem.too_deep {
            let message = match parsed.errors().first() {
                Some(e) => format!("syntax error: {}", e.error),
                None => format!("the code nests statements and expressions more than {MAX_DEPTH} levels deep here; the checker does not analyse programs this deep"),
            };
            let line = line_at(&starts, usize::from(parsed.errors().first().map(|e| e.location.start()).unwrap_or(at)));
            // Leak the deep tree instead of dropping it (input is at most a few MB).
            std::mem::forget(parsed);
            return Err(ProgramError { line, message });
        }
        if let Some(e) = parsed.errors().first() {
            let line = line_at(&starts, usize::from(e.location.start()));
            return Err(ProgramError { line, message: format!("syntax error: {}", e.error) });
        }
        if let Some(e) = parsed.unsupported_syntax_errors().first() {
            let line = line_at(&starts, usize::from(e.range.start()));
            return Err(ProgramError {
                line,
                message: format!("syntax error on CPython 3.11, the oldest Python the tasks target: {e}"),
            });
        }
        sem.errors.extend(future_imports(&parsed.syntax().body));
        let module = parsed.into_syntax();
        if let Some((at, msg)) = sem.errors.into_iter().min_by_key(|e| e.0) {
            return Err(ProgramError {
                line: line_at(&starts, usize::from(at)),
                message: format!("CPython would reject this: {msg}"),
            });
        }
        let mut defs = std::collections::HashMap::new();
        for (i, s) in module.body.iter().enumerate() {
            if let Stmt::FunctionDef(f) = s {
                if !f.is_async {
                    defs.insert(f.name.to_string(), i);
                }
            }
        }
        Ok(Program { source, line_starts: starts, module, defs })
    }

    pub fn body(&self) -> &[Stmt] {
        &self.module.body
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: TextSize) -> usize {
        line_at(&self.line_starts, usize::from(offset))
    }

    /// 1-based line where a node starts.
    pub fn line_of<T: Ranged>(&self, node: &T) -> usize {
        self.line(node.start())
    }

    /// The source text of a node, on one line, shortened.
    pub fn text<T: Ranged>(&self, node: &T) -> String {
        snippet(self.slice(node.range()))
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
        match self.module.body.get(*self.defs.get(name)?) {
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

/// One call in a function body: the callee when it is a plain name, the plain names passed positionally,
/// and the keywords as `(keyword, value name)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub callee: Option<String>,
    pub args: Vec<String>,
    pub keywords: Vec<(Option<String>, Option<String>)>,
    /// 1-based line of the call.
    pub line: usize,
}

impl Call {
    /// Does the call hand on the variable `name` (positionally, as `name=…`, or as `…=name`)?
    pub fn passes(&self, name: &str) -> bool {
        self.args.iter().any(|a| a == name)
            || self.keywords.iter().any(|(k, v)| k.as_deref() == Some(name) || v.as_deref() == Some(name))
    }
}

impl Program<'_> {
    /// The calls in a function's body (not in its signature), in source order.
    pub fn calls_in(&self, f: &StmtFunctionDef) -> Vec<Call> {
        let mut c = CallCollector { calls: Vec::new() };
        c.visit_body(&f.body);
        c.calls
            .into_iter()
            .map(|(callee, args, keywords, at)| Call { callee, args, keywords, line: self.line(at) })
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
    let mut finder = NameFinder { name: "__name__", found: false };
    finder.visit_expr(&i.test);
    finder.found
}

/// Does an expression mention a name? (Trees are at most [`MAX_DEPTH`] deep.)
struct NameFinder<'n> {
    name: &'n str,
    found: bool,
}

impl<'a> Visitor<'a> for NameFinder<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.found {
            return;
        }
        if let Expr::Name(n) = expr {
            self.found |= n.id.as_str() == self.name;
        }
        visitor::walk_expr(self, expr);
    }
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

/// The first place where brackets nest deeper than CPython's tokenizer allows (strings and comments skipped).
fn bracket_overflow(source: &str) -> Option<(usize, String)> {
    let b = source.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            q @ (b'\'' | b'"') => {
                let triple = i + 2 < b.len() && b[i + 1] == q && b[i + 2] == q;
                let mut j = if triple { i + 3 } else { i + 1 };
                while j < b.len() {
                    if b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if triple {
                        if j + 2 < b.len() && b[j] == q && b[j + 1] == q && b[j + 2] == q {
                            j += 3;
                            break;
                        }
                    } else if b[j] == q || b[j] == b'\n' {
                        j += 1;
                        break;
                    }
                    j += 1;
                }
                i = j;
                continue;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_BRACKETS {
                    return Some((
                        i,
                        format!("too many nested parentheses (more than {MAX_BRACKETS}; CPython's limit)"),
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The compile-time errors a parser accepts but CPython rejects, plus a depth guard.
#[derive(Default)]
struct Semantic {
    in_function: bool,
    in_async: bool,
    loops: usize,
    /// Enclosing function scopes (a class body is not one), the current one included.
    functions: usize,
    /// Parameter names of the current function.
    params: Vec<String>,
    /// In the current function: a `yield` seen, and the `return <value>` statements.
    saw_yield: bool,
    value_returns: Vec<TextSize>,
    /// Names used so far in the current scope (for `global x` after a use of `x`).
    seen: std::collections::HashSet<String>,
    depth: usize,
    too_deep: Option<TextSize>,
    errors: Vec<(TextSize, String)>,
}

/// `from __future__` imports: only at the top (after a docstring), and only known features.
fn future_imports(body: &[Stmt]) -> Vec<(TextSize, String)> {
    const FEATURES: &[&str] = &[
        "nested_scopes",
        "generators",
        "division",
        "absolute_import",
        "with_statement",
        "print_function",
        "unicode_literals",
        "barry_as_FLUFL",
        "generator_stop",
        "annotations",
    ];
    let mut errors = Vec::new();
    let mut at_top = true;
    for (i, stmt) in body.iter().enumerate() {
        match stmt {
            Stmt::ImportFrom(f) if f.level == 0 && f.module.as_ref().is_some_and(|m| m.as_str() == "__future__") => {
                if !at_top {
                    errors
                        .push((stmt.start(), "from __future__ imports must occur at the beginning of the file".into()));
                }
                for a in &f.names {
                    let n = a.name.as_str();
                    if n == "braces" {
                        errors.push((a.start(), "not a chance".into()));
                    } else if !FEATURES.contains(&n) {
                        errors.push((a.start(), format!("future feature {n} is not defined")));
                    }
                }
            }
            Stmt::Expr(e) if i == 0 && e.value.is_string_literal_expr() => {}
            _ => at_top = false,
        }
    }
    errors
}

/// Starred targets: at most one per tuple/list, and never alone.
fn check_targets(targets: &[&Expr], errors: &mut Vec<(TextSize, String)>) {
    for t in targets {
        match t {
            Expr::Starred(s) => errors.push((s.start(), "starred assignment target must be in a list or tuple".into())),
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. })
                if elts.iter().filter(|e| e.is_starred_expr()).count() > 1 =>
            {
                errors.push((t.start(), "multiple starred expressions in assignment".into()));
            }
            _ => {}
        }
    }
}

impl Semantic {
    fn enter(&mut self, at: TextSize) -> bool {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.too_deep.get_or_insert(at);
            self.depth -= 1;
            return false;
        }
        true
    }
    /// Run `f` in a new scope: a function (`function`), or a class body.
    fn scoped(&mut self, function: bool, is_async: bool, params: Vec<String>, f: impl FnOnce(&mut Self)) {
        let saved = (self.in_function, self.in_async, self.loops, self.functions, self.saw_yield);
        let saved_params = std::mem::replace(&mut self.params, params);
        let saved_returns = std::mem::take(&mut self.value_returns);
        let saved_seen = std::mem::take(&mut self.seen);
        self.in_function = function;
        self.in_async = is_async;
        self.loops = 0;
        self.saw_yield = false;
        if function {
            self.functions += 1;
        }
        f(self);
        if function && is_async && self.saw_yield {
            for at in std::mem::take(&mut self.value_returns) {
                self.errors.push((at, "'return' with value in async generator".into()));
            }
        }
        (self.in_function, self.in_async, self.loops, self.functions, self.saw_yield) = saved;
        self.params = saved_params;
        self.value_returns = saved_returns;
        self.seen = saved_seen;
    }
}

fn duplicate_parameter(p: &ast::Parameters) -> Option<(TextSize, String)> {
    let mut seen = std::collections::HashSet::new();
    let names = p
        .posonlyargs
        .iter()
        .chain(p.args.iter())
        .map(|a| &a.parameter)
        .chain(p.vararg.as_deref())
        .chain(p.kwonlyargs.iter().map(|a| &a.parameter))
        .chain(p.kwarg.as_deref());
    for param in names {
        if !seen.insert(param.name.as_str()) {
            return Some((
                param.start(),
                format!("duplicate argument '{}' in function definition", param.name.as_str()),
            ));
        }
    }
    None
}

impl<'a> Visitor<'a> for Semantic {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.too_deep.is_some() || !self.enter(stmt.start()) {
            return;
        }
        match stmt {
            Stmt::FunctionDef(f) => {
                if let Some(e) = duplicate_parameter(&f.parameters) {
                    self.errors.push(e);
                }
                let params = f.parameters.iter().map(|p| p.name().to_string()).collect();
                self.scoped(true, f.is_async, params, |s| visitor::walk_stmt(s, stmt));
            }
            Stmt::ClassDef(_) => self.scoped(false, false, Vec::new(), |s| visitor::walk_stmt(s, stmt)),
            Stmt::Assign(a) => {
                check_targets(&a.targets.iter().collect::<Vec<_>>(), &mut self.errors);
                visitor::walk_stmt(self, stmt);
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    if self.in_function && self.params.iter().any(|p| p == n.as_str()) {
                        self.errors.push((n.start(), format!("name '{}' is parameter and global", n.as_str())));
                    } else if self.seen.contains(n.as_str()) {
                        self.errors
                            .push((n.start(), format!("name '{}' is used prior to global declaration", n.as_str())));
                    }
                }
            }
            Stmt::For(f) => {
                check_targets(&[&*f.target], &mut self.errors);
                self.visit_expr(&f.target);
                self.visit_expr(&f.iter);
                if f.is_async && !self.in_async {
                    self.errors.push((f.start(), "'async for' outside async function".into()));
                }
                self.loops += 1;
                self.visit_body(&f.body);
                self.loops -= 1;
                self.visit_body(&f.orelse);
            }
            Stmt::While(w) => {
                self.visit_expr(&w.test);
                self.loops += 1;
                self.visit_body(&w.body);
                self.loops -= 1;
                self.visit_body(&w.orelse);
            }
            Stmt::Return(_) if !self.in_function => {
                self.errors.push((stmt.start(), "'return' outside function".into()));
            }
            Stmt::Return(r) => {
                if r.value.is_some() {
                    self.value_returns.push(stmt.start());
                }
                visitor::walk_stmt(self, stmt);
            }
            Stmt::Break(_) if self.loops == 0 => self.errors.push((stmt.start(), "'break' outside loop".into())),
            Stmt::Continue(_) if self.loops == 0 => {
                self.errors.push((stmt.start(), "'continue' not properly in loop".into()))
            }
            Stmt::Nonlocal(_) if !self.in_function && self.functions == 0 => {
                self.errors.push((stmt.start(), "nonlocal declaration not allowed at module level".into()))
            }
            Stmt::Nonlocal(n) => {
                for name in &n.names {
                    if self.in_function && self.params.iter().any(|p| p == name.as_str()) {
                        self.errors.push((name.start(), format!("name '{}' is parameter and nonlocal", name.as_str())));
                    } else if self.seen.contains(name.as_str()) {
                        self.errors.push((
                            name.start(),
                            format!("name '{}' is used prior to nonlocal declaration", name.as_str()),
                        ));
                    } else if self.in_function && self.functions < 2 {
                        // No enclosing function scope can bind it.
                        self.errors.push((name.start(), format!("no binding for nonlocal '{}' found", name.as_str())));
                    }
                }
            }
            Stmt::With(w) if w.is_async && !self.in_async => {
                self.errors.push((stmt.start(), "'async with' outside async function".into()))
            }
            _ => visitor::walk_stmt(self, stmt),
        }
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.too_deep.is_some() || !self.enter(expr.start()) {
            return;
        }
        match expr {
            Expr::Name(n) => {
                self.seen.insert(n.id.to_string());
            }
            Expr::Lambda(_) => self.scoped(true, false, Vec::new(), |s| visitor::walk_expr(s, expr)),
            Expr::Yield(_) | Expr::YieldFrom(_) if !self.in_function => {
                self.errors.push((expr.start(), "'yield' outside function".into()));
            }
            Expr::Yield(_) | Expr::YieldFrom(_) => {
                self.saw_yield = true;
                if matches!(expr, Expr::YieldFrom(_)) && self.in_async {
                    self.errors.push((expr.start(), "'yield from' inside async function".into()));
                }
                visitor::walk_expr(self, expr);
            }
            Expr::Await(_) if !self.in_async => {
                let msg = if self.in_function { "'await' outside async function" } else { "'await' outside function" };
                self.errors.push((expr.start(), msg.into()));
            }
            Expr::Call(c) => {
                let mut seen = std::collections::HashSet::new();
                for k in c.arguments.keywords.iter() {
                    if let Some(arg) = &k.arg {
                        if !seen.insert(arg.as_str()) {
                            self.errors.push((k.start(), format!("keyword argument repeated: {}", arg.as_str())));
                        }
                    }
                }
                visitor::walk_expr(self, expr);
            }
            _ => visitor::walk_expr(self, expr),
        }
        self.depth -= 1;
    }
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
