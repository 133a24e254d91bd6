//! A small model of the Python the generator writes, and a printer that follows `ast.unparse`
//! conventions (generation.md §2.5, decision D4): one blank line between top-level definitions,
//! annotated defaults without spaces, parenthesised tuple returns, bare tuple targets, single-quoted
//! strings, minimal parentheses.

use std::fmt::Write;

/// Binary operators the transforms use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Mult,
    Sub,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Mult => "*",
            Op::Sub => "-",
        }
    }
    fn precedence(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mult => 2,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Name(String),
    /// A float literal, printed as Python's repr.
    Float(f64),
    /// An integer literal.
    Int(i64),
    Str(String),
    Call {
        func: String,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    },
    Bin {
        left: Box<Expr>,
        op: Op,
        right: Box<Expr>,
    },
    Tuple(Vec<Expr>),
}

impl Expr {
    pub fn name(s: &str) -> Expr {
        Expr::Name(s.to_string())
    }
    pub fn call(func: &str, args: Vec<Expr>) -> Expr {
        Expr::Call { func: func.to_string(), args, kwargs: vec![] }
    }
    pub fn bin(left: Expr, op: Op, right: Expr) -> Expr {
        Expr::Bin { left: Box::new(left), op, right: Box::new(right) }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `a = value` or `a, b = value`.
    Assign {
        targets: Vec<String>,
        value: Expr,
    },
    /// `target: ann = value`.
    AnnAssign {
        target: String,
        ann: String,
        value: Expr,
    },
    Return(Expr),
    Expr(Expr),
    /// A comment on its own line, `# text` (generated comments are never empty).
    Comment(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ann: String,
    pub default: Option<Expr>,
}

impl Param {
    pub fn new(name: &str, ann: &str) -> Param {
        Param { name: name.to_string(), ann: ann.to_string(), default: None }
    }
    pub fn with_default(name: &str, ann: &str, default: Expr) -> Param {
        Param { name: name.to_string(), ann: ann.to_string(), default: Some(default) }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Param>,
    pub returns: Option<String>,
    pub body: Vec<Stmt>,
}

/// A whole generated file.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// Import lines, in order (`from mylibrary import slow`, `import math`, …).
    pub imports: Vec<String>,
    /// The functions in file order, `main` last.
    pub functions: Vec<Function>,
    /// The script guard's call, e.g. `main(float(sys.argv[1]))`.
    pub guard_call: String,
}

/// Python's repr of a float (shortest round-trip digits, exponent outside 1e-4 ..= 1e16).
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "float('nan')".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "float('inf')".into() } else { "-float('inf')".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    let a = x.abs();
    if (1e-4..1e16).contains(&a) {
        let s = format!("{x}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    let s = format!("{x:e}");
    let (mantissa, exp) = s.split_once('e').expect("exponent form");
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// Python's repr of a str, single-quoted unless the text holds a single quote and no double one.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::new();
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn expr_into(e: &Expr, out: &mut String, parent: u8, right: bool) {
    match e {
        Expr::Name(n) => out.push_str(n),
        Expr::Float(x) => out.push_str(&float_repr(*x)),
        Expr::Int(x) => out.push_str(&x.to_string()),
        Expr::Str(s) => out.push_str(&str_repr(s)),
        Expr::Call { func, args, kwargs } => {
            out.push_str(func);
            out.push('(');
            let mut first = true;
            for a in args {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                expr_into(a, out, 0, false);
            }
            for (k, v) in kwargs {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                out.push_str(k);
                out.push('=');
                expr_into(v, out, 0, false);
            }
            out.push(')');
        }
        Expr::Bin { left, op, right: r } => {
            let p = op.precedence();
            // Left-associative: a child of equal precedence needs parentheses only on the right.
            let paren = parent > p || (right && parent == p);
            if paren {
                out.push('(');
            }
            expr_into(left, out, p, false);
            out.push(' ');
            out.push_str(op.text());
            out.push(' ');
            expr_into(r, out, p, true);
            if paren {
                out.push(')');
            }
        }
        Expr::Tuple(items) => {
            out.push('(');
            for (i, a) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                expr_into(a, out, 0, false);
            }
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
    }
}

/// Print one expression.
pub fn expr(e: &Expr) -> String {
    let mut s = String::new();
    expr_into(e, &mut s, 0, false);
    s
}

/// Print one statement at the given indent.
pub fn stmt(s: &Stmt, indent: &str) -> String {
    match s {
        Stmt::Assign { targets, value } => format!("{indent}{} = {}", targets.join(", "), expr(value)),
        Stmt::AnnAssign { target, ann, value } => format!("{indent}{target}: {ann} = {}", expr(value)),
        Stmt::Return(e) => format!("{indent}return {}", expr(e)),
        Stmt::Expr(e) => format!("{indent}{}", expr(e)),
        Stmt::Comment(text) => format!("{indent}# {text}"),
    }
}

/// The `def` line of a function.
pub fn signature(f: &Function) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| match &p.default {
            Some(d) => format!("{}: {}={}", p.name, p.ann, expr(d)),
            None => format!("{}: {}", p.name, p.ann),
        })
        .collect();
    match &f.returns {
        Some(r) => format!("def {}({}) -> {}:", f.name, params.join(", "), r),
        None => format!("def {}({}):", f.name, params.join(", ")),
    }
}

/// Print one function.
pub fn function(f: &Function) -> String {
    let mut lines = vec![signature(f)];
    lines.extend(f.body.iter().map(|s| stmt(s, "    ")));
    if f.body.iter().all(|s| matches!(s, Stmt::Comment(_))) {
        lines.push("    pass".into());
    }
    lines.join("\n")
}

/// Print a whole module as `ast.unparse` would, with the blank line before the script guard. No
/// trailing newline, as the reference stores its code fields.
pub fn module(m: &Module) -> String {
    let mut out = m.imports.join("\n");
    for f in &m.functions {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&function(f));
    }
    out.push_str("\n\nif __name__ == '__main__':\n    ");
    out.push_str(&m.guard_call);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printer_follows_unparse() {
        assert_eq!(float_repr(0.0), "0.0");
        assert_eq!(float_repr(-0.42), "-0.42");
        assert_eq!(float_repr(1e20), "1e+20");
        assert_eq!(float_repr(1.5e-7), "1.5e-07");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(str_repr(""), "''");
        assert_eq!(str_repr("it's"), "\"it's\"");
        let x = Expr::call("abs", vec![Expr::name("val")]);
        let e = Expr::bin(Expr::bin(Expr::name("m1"), Op::Mult, Expr::name("m2")), Op::Mult, x.clone());
        assert_eq!(expr(&e), "m1 * m2 * abs(val)");
        let e = Expr::bin(Expr::name("m"), Op::Mult, Expr::bin(Expr::name("a"), Op::Add, x));
        assert_eq!(expr(&e), "m * (a + abs(val))");
        let f = Function {
            name: "f".into(),
            params: vec![
                Param::new("val", "float"),
                Param::with_default("mult", "float", Expr::call("default", vec![])),
            ],
            returns: Some("float".into()),
            body: vec![Stmt::Return(Expr::Tuple(vec![Expr::name("a"), Expr::name("b")]))],
        };
        assert_eq!(function(&f), "def f(val: float, mult: float=default()) -> float:\n    return (a, b)");
    }
}
