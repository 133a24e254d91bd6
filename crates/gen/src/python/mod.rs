//! A small model of the Python the generator writes, and a printer that follows `ast.unparse`
//! conventions (generation.md §2.5, decision D4): one blank line between top-level definitions,
//! annotated defaults without spaces, parenthesised tuple returns, bare tuple targets, single-quoted
//! strings, minimal parentheses.

use std::fmt::Write;

/// Binary operators the transforms use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mult,
    Div,
}

impl Op {
    pub fn text(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mult => "*",
            Op::Div => "/",
        }
    }
    fn precedence(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mult | Op::Div => 2,
        }
    }
}

/// Comparison operators (asserts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Gt,
    NotEq,
}

impl Cmp {
    pub fn text(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Gt => ">",
            Cmp::NotEq => "!=",
        }
    }
}

/// One piece of an f-string: literal text, or a name in braces.
#[derive(Clone, Debug, PartialEq)]
pub enum FPart {
    Text(String),
    Name(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Name(String),
    /// A float literal, printed as Python's repr.
    Float(f64),
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
    /// An integer literal (negative ones printed with their sign, as `ast.unparse` prints `-5`).
    Int(i64),
    /// `left op right`.
    Compare {
        left: Box<Expr>,
        op: Cmp,
        right: Box<Expr>,
    },
    /// `f'…{name}…'`.
    FString(Vec<FPart>),
    /// `object.method(args)`.
    Method {
        object: Box<Expr>,
        method: String,
        args: Vec<Expr>,
    },
    /// `a ^ b ^ …` (the runtime axis's guards; parenthesised inside other operators).
    Xor(Vec<Expr>),
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
    /// `if test: … else: …`; an `else` holding only an `if` prints as `elif`, as `ast.unparse` does.
    If {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `assert test`.
    Assert(Expr),
    /// A `# text` comment line (generated comments are never empty).
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
    /// Helper definitions printed as written after the imports (the runtime axis's `check`).
    pub helpers: Vec<String>,
    /// The functions in file order, `main` last.
    pub functions: Vec<Function>,
    /// The script guard's call, e.g. `main(float(sys.argv[1]))`.
    pub guard_call: String,
}

/// Python's repr of a float (shortest round-trip digits, exponent outside 1e-4 ..= 1e16; of two
/// shortest digit strings equally near, the even one, as Python writes it). The digits come from
/// serde_json's float writer.
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
    // `1.5e-7`, `1e+20`, `0.1`, `100.0`: the digits and where the point goes.
    let text = serde_json::Number::from_f64(x).map(|n| n.to_string()).unwrap_or_default();
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text.as_str(), 0),
    };
    let mantissa = mantissa.trim_start_matches('-');
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{whole}{frac}");
    let digits = all.trim_start_matches('0');
    // x = 0.<digits> × 10^point
    let point = whole.len() as i32 - (all.len() - digits.len()) as i32 + exp;
    let digits = digits.trim_end_matches('0');
    let sign = if x < 0.0 { "-" } else { "" };
    if (1e-4..1e16).contains(&x.abs()) {
        let n = digits.len() as i32;
        return if point <= 0 {
            format!("{sign}0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
        } else if point >= n {
            format!("{sign}{digits}{}.0", "0".repeat((point - n) as usize))
        } else {
            let (a, b) = digits.split_at(point as usize);
            format!("{sign}{a}.{b}")
        };
    }
    let (first, rest) = digits.split_at(1.min(digits.len()));
    let dot = if rest.is_empty() { "" } else { "." };
    let e = point - 1;
    format!("{sign}{first}{dot}{rest}e{}{:02}", if e < 0 { '-' } else { '+' }, e.unsigned_abs())
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
        Expr::Compare { left, op, right: r } => {
            // Comparisons bind looser than arithmetic; they appear only as a whole assert test.
            if parent > 0 {
                out.push('(');
            }
            expr_into(left, out, 1, false);
            out.push(' ');
            out.push_str(op.text());
            out.push(' ');
            expr_into(r, out, 1, true);
            if parent > 0 {
                out.push(')');
            }
        }
        Expr::FString(parts) => out.push_str(&fstring(parts)),
        Expr::Method { object, method, args } => {
            expr_into(object, out, 3, false);
            out.push('.');
            out.push_str(method);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                expr_into(a, out, 0, false);
            }
            out.push(')');
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
        Expr::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Expr::Xor(items) => {
            let paren = parent > 0;
            if paren {
                out.push('(');
            }
            for (i, a) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(" ^ ");
                }
                expr_into(a, out, 1, i > 0);
            }
            if paren {
                out.push(')');
            }
        }
    }
}

/// An f-string as `ast.unparse` writes one: single quotes, braces of the text doubled.
fn fstring(parts: &[FPart]) -> String {
    let mut text = String::new();
    for p in parts {
        match p {
            FPart::Text(t) => text.push_str(&t.replace('{', "{{").replace('}', "}}")),
            FPart::Name(n) => {
                text.push('{');
                text.push_str(n);
                text.push('}');
            }
        }
    }
    // The literal text is quoted like a str (the names in braces hold no quotes or backslashes).
    format!("f{}", str_repr(&text))
}

/// Print one expression.
pub fn expr(e: &Expr) -> String {
    let mut s = String::new();
    expr_into(e, &mut s, 0, false);
    s
}

/// Print one statement at the given indent (a compound statement on several lines).
pub fn stmt(s: &Stmt, indent: &str) -> String {
    let mut out = String::new();
    stmt_into(s, indent, &mut out);
    out
}

/// [`stmt`], written at the end of `out` (the printer writes the whole module into one string).
fn stmt_into(s: &Stmt, indent: &str, out: &mut String) {
    out.push_str(indent);
    match s {
        Stmt::Assign { targets, value } => {
            for (i, t) in targets.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(t);
            }
            out.push_str(" = ");
            expr_into(value, out, 0, false);
        }
        Stmt::AnnAssign { target, ann, value } => {
            out.push_str(target);
            out.push_str(": ");
            out.push_str(ann);
            out.push_str(" = ");
            expr_into(value, out, 0, false);
        }
        Stmt::Return(e) => {
            out.push_str("return ");
            expr_into(e, out, 0, false);
        }
        Stmt::Expr(e) => expr_into(e, out, 0, false),
        Stmt::If { .. } => if_into(s, indent, "if", out),
        Stmt::Assert(e) => {
            out.push_str("assert ");
            expr_into(e, out, 0, false);
        }
        Stmt::Comment(text) => {
            out.push_str("# ");
            out.push_str(text);
        }
    }
}

/// An `if` from its keyword on (`if` or `elif`; the indent is written), folding `else: if …` into `elif`.
fn if_into(s: &Stmt, indent: &str, keyword: &str, out: &mut String) {
    let Stmt::If { test, body, orelse } = s else { return };
    let inner = format!("{indent}    ");
    out.push_str(keyword);
    out.push(' ');
    expr_into(test, out, 0, false);
    out.push(':');
    block(body, &inner, out);
    match orelse.as_slice() {
        [] => {}
        [only @ Stmt::If { .. }] => {
            out.push('\n');
            out.push_str(indent);
            if_into(only, indent, "elif", out);
        }
        rest => {
            out.push('\n');
            out.push_str(indent);
            out.push_str("else:");
            block(rest, &inner, out);
        }
    }
}

/// The lines of a block, each after a line break (`pass` when empty).
fn block(body: &[Stmt], indent: &str, out: &mut String) {
    if body.is_empty() {
        out.push('\n');
        out.push_str(indent);
        out.push_str("pass");
    }
    for s in body {
        out.push('\n');
        stmt_into(s, indent, out);
    }
}

/// The `def` line of a function.
fn signature_into(f: &Function, out: &mut String) {
    out.push_str("def ");
    out.push_str(&f.name);
    out.push('(');
    for (i, p) in f.params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&p.name);
        out.push_str(": ");
        out.push_str(&p.ann);
        if let Some(d) = &p.default {
            out.push('=');
            expr_into(d, out, 0, false);
        }
    }
    out.push(')');
    if let Some(r) = &f.returns {
        out.push_str(" -> ");
        out.push_str(r);
    }
    out.push(':');
}

/// Print one function.
pub fn function(f: &Function) -> String {
    let mut out = String::new();
    function_into(f, &mut out);
    out
}

/// [`function`], written at the end of `out`.
fn function_into(f: &Function, out: &mut String) {
    signature_into(f, out);
    for s in &f.body {
        out.push('\n');
        stmt_into(s, "    ", out);
    }
    if f.body.iter().all(|s| matches!(s, Stmt::Comment(_))) {
        out.push_str("\n    pass");
    }
}

/// Print a whole module as `ast.unparse` would, with the blank line before the script guard. No
/// trailing newline, as the reference stores its code fields.
pub fn module(m: &Module) -> String {
    let mut out = m.imports.join("\n");
    for h in &m.helpers {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(h);
    }
    for f in &m.functions {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        function_into(f, &mut out);
    }
    out.push_str("\n\nif __name__ == '__main__':\n    ");
    out.push_str(&m.guard_call);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repr as it was written with `core`'s float formatting.
    fn float_repr_by_core(x: f64) -> String {
        if !x.is_finite() || x == 0.0 {
            return float_repr(x);
        }
        if (1e-4..1e16).contains(&x.abs()) {
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(50_000))]
        #[test]
        fn float_repr_is_unchanged(bits in proptest::prelude::any::<u64>(), tenths in -100_000i64..100_000) {
            let x = f64::from_bits(bits);
            let (new, old) = (float_repr(x), float_repr_by_core(x));
            if new != old {
                // Only where two shortest decimals are equally near: Rust rounded the tie up, Python
                // (and serde_json's writer) to even. Both read back as `x`, and are as long.
                let back = |s: &str| s.parse::<f64>().map(f64::to_bits);
                proptest::prop_assert_eq!(back(&new), Ok(bits), "{} against {}", new, old);
                proptest::prop_assert_eq!(back(&old), Ok(bits), "{} against {}", new, old);
                proptest::prop_assert_eq!(new.len(), old.len(), "{} against {}", new, old);
            }
            let t = tenths as f64 / 10.0;
            proptest::prop_assert_eq!(float_repr(t), float_repr_by_core(t));
        }
    }

    #[test]
    fn printer_follows_unparse() {
        // Python writes this tie to even (`repr(1150627508782674.25)`); Rust's `{}` rounded it up.
        let tie = f64::from_bits(4_832_461_310_576_302_409);
        assert_eq!(tie * 4.0, 4_602_510_035_130_697.0);
        assert_eq!(float_repr(tie), "1150627508782674.2");
        for x in [1e-4, 9.99e-5, 1e16, 9999999999999998.0, 1e-7, 5e-324, f64::MAX, 123456.0, 0.5, -2.5e-300, 1e22] {
            assert_eq!(float_repr(x), float_repr_by_core(x), "{x:e}");
        }
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
        let e = Expr::bin(Expr::bin(Expr::Str("0".into()), Op::Add, Expr::name("k")), Op::Add, Expr::Str("9".into()));
        assert_eq!(expr(&e), "'0' + k + '9'");
        assert_eq!(expr(&Expr::bin(Expr::name("m"), Op::Div, Expr::Float(0.7))), "m / 0.7");
        let e = Expr::Compare { left: Box::new(Expr::name("m")), op: Cmp::Gt, right: Box::new(Expr::Int(-100)) };
        assert_eq!(stmt(&Stmt::Assert(e), ""), "assert m > -100");
        let f =
            Expr::FString(vec![FPart::Text("x = {".into()), FPart::Name("m".into()), FPart::Text(" (done)".into())]);
        assert_eq!(expr(&f), "f'x = {{{m} (done)'");
        let r = Expr::Method {
            object: Box::new(Expr::name("k")),
            method: "replace".into(),
            args: vec![Expr::Str("3".into()), Expr::Str("2".into())],
        };
        assert_eq!(expr(&r), "k.replace('3', '2')");
        assert_eq!(stmt(&Stmt::Comment("note: m".into()), "    "), "    # note: m");
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

    #[test]
    fn ifs_print_as_unparse_does() {
        let call = |x: i64| Expr::Call {
            func: "check".into(),
            args: vec![Expr::Int(x)],
            kwargs: vec![("num_steps".into(), Expr::Int(3))],
        };
        let ret = |n: &str| Stmt::Return(Expr::name(n));
        let inner = |a: &str, b: &str, x: i64| Stmt::If { test: call(x), body: vec![ret(a)], orelse: vec![ret(b)] };
        let tree = Stmt::If {
            test: Expr::Xor(vec![call(1), call(2)]),
            body: vec![inner("a", "b", 3)],
            orelse: vec![inner("c", "d", 4)],
        };
        assert_eq!(
            stmt(&tree, "    "),
            "    if check(1, num_steps=3) ^ check(2, num_steps=3):\n        if check(3, num_steps=3):\n            return a\n        else:\n            return b\n    elif check(4, num_steps=3):\n        return c\n    else:\n        return d"
        );
        let e = Expr::Tuple(vec![Expr::Xor(vec![Expr::Int(-1), Expr::Int(2)])]);
        assert_eq!(expr(&e), "(-1 ^ 2,)");
        let e = Expr::bin(Expr::name("a"), Op::Add, Expr::Xor(vec![Expr::Int(1), Expr::Int(2)]));
        assert_eq!(expr(&e), "a + (1 ^ 2)");
    }
}
