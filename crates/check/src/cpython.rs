//! CPython 3.11's compile-time rules and limits that a parser does not apply, so that the
//! `compilation` item says what `compile()` says. Measured against CPython 3.11.7.
//!
//! - Tokenizer: [`MAX_BRACKETS`] nested brackets, [`MAX_INDENT_LEVELS`] indentation levels.
//! - Symbol table and AST optimiser: paths of at most [`MAX_TREE_DEPTH`] nodes.
//! - Parser: [`MAX_PARSER_LEVELS`] rule calls, estimated by [`super::source::scan`] (a few levels
//!   off near the limit).
//! - Compiler: [`MAX_STATIC_BLOCKS`] nested blocks, decimal literals of [`MAX_INT_DIGITS`] digits.
//! - Placement rules: `return`, `yield`, `await`, `break`, `continue`, `global`, `nonlocal`,
//!   repeated parameters and keywords, starred targets, `from __future__`.

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, Pattern, Stmt};
use ruff_text_size::{Ranged, TextSize};

/// Longest path of statement, expression and pattern nodes CPython compiles (`python3 -c` at module
/// level; a `compile()` called from deeper Python frames allows three fewer per frame).
pub const MAX_TREE_DEPTH: usize = 2994;
/// CPython's parser stack (`MAXSTACK`).
pub const MAX_PARSER_LEVELS: usize = 6000;
/// CPython's tokenizer: nested brackets (`MAXLEVEL`).
pub const MAX_BRACKETS: usize = 200;
/// CPython's tokenizer: indentation levels (`MAXINDENT` less the base level).
pub const MAX_INDENT_LEVELS: usize = 99;
/// CPython's compiler: nested blocks in one code object (`CO_MAXBLOCKS`).
pub const MAX_STATIC_BLOCKS: usize = 20;
/// Digits of a decimal integer literal (`sys.int_info.str_digits_check_threshold`).
pub const MAX_INT_DIGITS: usize = 4300;

// CPython's parser stack, measured with chains of `lambda:` (two levels each) inside brackets:
// `x = ` + k brackets + m lambdas + `1` fails exactly when
// LEVELS_BASE + Σ bracket levels − LEVELS_FIRST_BRACKET_DISCOUNT + 2m reaches MAX_PARSER_LEVELS
// (checked for k up to 150 and every bracket kind below). Other statement kinds than an assignment
// start a few levels higher or lower; that, and mixes of constructs, is where the estimate can be off.

/// Parser levels of an assignment's value at module level.
pub const LEVELS_BASE: usize = 33;
/// The first bracket of a statement costs this much less than the others.
pub const LEVELS_FIRST_BRACKET_DISCOUNT: usize = 18;
/// Parser levels per enclosing compound statement.
pub const LEVELS_PER_BLOCK: usize = 6;
/// Parser levels of a unary operator, `not`, a conditional expression, `:=`, `*x`, `yield`.
pub const LEVELS_PER_PREFIX: usize = 1;
/// Parser levels of a lambda or a `**`.
pub const LEVELS_PER_LAMBDA_OR_POW: usize = 2;
/// Parser levels of a lambda parameter's default value (on top of the lambda's).
pub const LEVELS_PER_LAMBDA_DEFAULT: usize = 6;
/// Parser levels of a keyword argument's value (on top of the call's).
pub const LEVELS_PER_KEYWORD_ARGUMENT: usize = 3;
/// Parser levels an f-string field's expression starts at: 3.11 parses it with a parser of its own.
pub const LEVELS_FSTRING_BASE: usize = 71;

/// Parser levels a bracket costs: `(`, `[` or `{`, after an operand (a call or subscript) or not.
pub fn bracket_levels(open: u8, after_operand: bool) -> usize {
    match (open, after_operand) {
        (b'(', true) | (b'[', true) => 24,
        (b'(', false) => 28,
        _ => 29,
    }
}

/// Extra parser levels for what follows a comma inside a bracket (`(1, X)` costs more than `(X, 1)`).
pub fn after_comma_levels(open: u8, after_operand: bool) -> usize {
    match (open, after_operand) {
        (b'(', true) => 4,
        (b'[', true) => 3,
        (b'(', false) => 2,
        _ => 1,
    }
}

// ------------------------------------------------------------------------------------------------
// Tree depth, CPython's way, without recursion

#[derive(Clone, Copy)]
enum Node<'a> {
    Stmt(&'a Stmt),
    Expr(&'a Expr),
    Pattern(&'a Pattern),
}

/// The longest path of a tree as CPython counts it, walked with a heap stack (so any depth is safe).
/// Returns the depth and, when it exceeds [`MAX_TREE_DEPTH`], where the first node past it starts.
pub fn tree_depth(body: &[Stmt]) -> (usize, Option<TextSize>) {
    let mut w = DepthWalk::default();
    for s in body {
        w.stack.push((Node::Stmt(s), 1));
    }
    while let Some((node, d)) = w.stack.pop() {
        w.note(d, node_start(node));
        w.cur = d;
        match node {
            Node::Stmt(Stmt::If(i)) => {
                w.visit_expr(&i.test);
                w.visit_body(&i.body);
                // `elif` is an `if` in the previous one's `else`.
                for (k, clause) in i.elif_else_clauses.iter().enumerate() {
                    w.cur = d + k + usize::from(clause.test.is_some());
                    if let Some(t) = &clause.test {
                        w.visit_expr(t);
                    }
                    w.visit_body(&clause.body);
                }
            }
            Node::Stmt(s) => visitor::walk_stmt(&mut w, s),
            Node::Expr(e) => {
                w.in_fstring = matches!(e, Expr::FString(_));
                visitor::walk_expr(&mut w, e);
                w.in_fstring = false;
            }
            Node::Pattern(p) => visitor::walk_pattern(&mut w, p),
        }
    }
    (w.max, w.first_too_deep)
}

fn node_start(n: Node) -> TextSize {
    match n {
        Node::Stmt(s) => s.start(),
        Node::Expr(e) => e.start(),
        Node::Pattern(p) => p.start(),
    }
}

#[derive(Default)]
struct DepthWalk<'a> {
    stack: Vec<(Node<'a>, usize)>,
    cur: usize,
    max: usize,
    first_too_deep: Option<TextSize>,
    in_fstring: bool,
}

impl DepthWalk<'_> {
    fn note(&mut self, d: usize, at: TextSize) {
        self.max = self.max.max(d);
        if d > MAX_TREE_DEPTH && self.first_too_deep.is_none_or(|f| at < f) {
            self.first_too_deep = Some(at);
        }
    }
}

impl<'a> Visitor<'a> for DepthWalk<'a> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        self.stack.push((Node::Stmt(s), self.cur + 1));
    }
    fn visit_expr(&mut self, e: &'a Expr) {
        self.stack.push((Node::Expr(e), self.cur + 1));
    }
    fn visit_pattern(&mut self, p: &'a Pattern) {
        self.stack.push((Node::Pattern(p), self.cur + 1));
    }
    fn visit_string_literal(&mut self, s: &'a ast::StringLiteral) {
        // A literal part of an f-string is a `Constant` inside the `JoinedStr`.
        if self.in_fstring {
            self.note(self.cur + 1, s.start());
        }
    }
    fn visit_interpolated_string_element(&mut self, el: &'a ast::InterpolatedStringElement) {
        match el {
            ast::InterpolatedStringElement::Literal(l) => self.note(self.cur + 1, l.start()),
            ast::InterpolatedStringElement::Interpolation(i) => {
                // `FormattedValue` below the `JoinedStr`, its value below that; a format spec is
                // another `JoinedStr` below the `FormattedValue`.
                self.note(self.cur + 1, i.start());
                self.stack.push((Node::Expr(&i.expression), self.cur + 2));
                if let Some(spec) = &i.format_spec {
                    let saved = self.cur;
                    self.cur += 2;
                    self.note(self.cur, spec.start());
                    for e in &spec.elements {
                        self.visit_interpolated_string_element(e);
                    }
                    self.cur = saved;
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Compile-time errors (symbol table and compiler)

/// The compile-time errors of a module that a parser accepts, in no particular order.
/// The tree must be at most [`MAX_TREE_DEPTH`] deep (the walk recurses).
pub fn compile_errors(body: &[Stmt]) -> Vec<(TextSize, String)> {
    let mut sem = Semantic::default();
    sem.visit_body(body);
    let mut errors = sem.errors;
    errors.extend(future_imports(body));
    errors
}

/// The compile-time errors a parser accepts but CPython rejects (its symbol table and compiler).
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
    /// Static blocks (loops, `with` items, `try` parts) open in the current code object.
    blocks: usize,
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
    /// Visit `body` inside `n` more static blocks; the block that goes past CPython's limit is an error
    /// at `at`.
    fn blocks<T>(&mut self, n: usize, at: TextSize, f: impl FnOnce(&mut Self) -> T) -> T {
        if self.blocks + n > MAX_STATIC_BLOCKS && self.blocks <= MAX_STATIC_BLOCKS {
            self.errors.push((at, format!("too many statically nested blocks (CPython 3.11 allows {MAX_STATIC_BLOCKS} loops, `with` items and `try` parts inside one another)")));
        }
        self.blocks += n;
        let r = f(self);
        self.blocks -= n;
        r
    }
    /// Run `f` in a new scope: a function (`function`), or a class body.
    fn scoped(&mut self, function: bool, is_async: bool, params: Vec<String>, f: impl FnOnce(&mut Self)) {
        let saved = (self.in_function, self.in_async, self.loops, self.functions, self.saw_yield, self.blocks);
        let saved_params = std::mem::replace(&mut self.params, params);
        let saved_returns = std::mem::take(&mut self.value_returns);
        let saved_seen = std::mem::take(&mut self.seen);
        self.in_function = function;
        self.in_async = is_async;
        self.loops = 0;
        self.saw_yield = false;
        self.blocks = 0;
        if function {
            self.functions += 1;
        }
        f(self);
        if function && is_async && self.saw_yield {
            for at in std::mem::take(&mut self.value_returns) {
                self.errors.push((at, "'return' with value in async generator".into()));
            }
        }
        (self.in_function, self.in_async, self.loops, self.functions, self.saw_yield, self.blocks) = saved;
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
                self.blocks(1, stmt.start(), |s| s.visit_body(&f.body));
                self.loops -= 1;
                self.visit_body(&f.orelse);
            }
            Stmt::While(w) => {
                self.visit_expr(&w.test);
                self.loops += 1;
                self.blocks(1, stmt.start(), |s| s.visit_body(&w.body));
                self.loops -= 1;
                self.visit_body(&w.orelse);
            }
            Stmt::With(w) if !w.is_async || self.in_async => {
                for item in &w.items {
                    self.visit_with_item(item);
                }
                self.blocks(w.items.len(), stmt.start(), |s| s.visit_body(&w.body));
            }
            Stmt::Try(t) => {
                // CPython compiles `try … finally` around `try … except`: the parts sit in this many blocks.
                let fin = usize::from(!t.finalbody.is_empty());
                let exc = usize::from(!t.handlers.is_empty());
                self.blocks(fin + exc, stmt.start(), |s| s.visit_body(&t.body));
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(ty) = &h.type_ {
                        self.visit_expr(ty);
                    }
                    self.blocks(fin + 2, h.start(), |s| s.visit_body(&h.body));
                }
                self.blocks(fin, stmt.start(), |s| s.visit_body(&t.orelse));
                self.blocks(fin, stmt.start(), |s| s.visit_body(&t.finalbody));
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
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
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
    }
}
