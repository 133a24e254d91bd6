//! The rule bank of instruction following (generation.md §4.4.2): ten kinds of requirement per bank
//! (floats, strings), their literal pools, five descriptions of each kind written for Cabrito (D10),
//! and the one line of Python each requirement asks for.
//!
//! A requirement is drawn once per task, abstractly ([`Draw`]: which value, which kind, which literal,
//! which temporary-name template, which description), and made concrete for a value family
//! ([`Requirement`]), whose [`Requirement::statement`] is the line the reference writes.

use crate::{
    python,
    python::{Cmp, Expr, FPart, Op, Stmt},
};

/// The two banks: what a value holds decides which requirements make sense for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bank {
    /// Floats (multipliers, cached floats): arithmetic temporaries, numeric bounds.
    Float,
    /// Strings (prefixes, keys): character temporaries, character bounds.
    Str,
}

/// The kinds of requirement, with the reference's `template_key` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleKind {
    AddNumber,
    SubtractNumber,
    MultiplyNumber,
    DivideNumber,
    AddCharacterPrefix,
    AddCharacterSuffix,
    ReplaceCharacter,
    Sandwich,
    AssertNot,
    AssertUpperBound,
    AssertLowerBound,
    PrintPrefix,
    PrintSuffix,
    AddComment,
}

/// Where a requirement's line goes among the others of a function (the prescribed order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Comment,
    Assert,
    Print,
    Temp,
}

impl Category {
    /// The plural the reasons use (`the prints`).
    pub fn plural(self) -> &'static str {
        match self {
            Category::Comment => "comments",
            Category::Assert => "asserts",
            Category::Print => "prints",
            Category::Temp => "temporary copies",
        }
    }
    /// The singular (`an assert`).
    pub fn singular(self) -> &'static str {
        match self {
            Category::Comment => "a comment",
            Category::Assert => "an assert",
            Category::Print => "a print",
            Category::Temp => "a temporary copy",
        }
    }
}

const FLOAT_KINDS: [RuleKind; 10] = [
    RuleKind::AddNumber,
    RuleKind::SubtractNumber,
    RuleKind::MultiplyNumber,
    RuleKind::DivideNumber,
    RuleKind::AssertNot,
    RuleKind::AssertUpperBound,
    RuleKind::AssertLowerBound,
    RuleKind::PrintPrefix,
    RuleKind::PrintSuffix,
    RuleKind::AddComment,
];

const STR_KINDS: [RuleKind; 10] = [
    RuleKind::AddCharacterPrefix,
    RuleKind::AddCharacterSuffix,
    RuleKind::ReplaceCharacter,
    RuleKind::Sandwich,
    RuleKind::AssertNot,
    RuleKind::AssertUpperBound,
    RuleKind::AssertLowerBound,
    RuleKind::PrintPrefix,
    RuleKind::PrintSuffix,
    RuleKind::AddComment,
];

impl Bank {
    /// The bank's ten kinds, in a fixed order (draws index into it).
    pub fn kinds(self) -> &'static [RuleKind; 10] {
        match self {
            Bank::Float => &FLOAT_KINDS,
            Bank::Str => &STR_KINDS,
        }
    }
    /// How many distinct requirements one value can carry (one temporary, every other literal once).
    pub fn capacity(self) -> usize {
        1 + self.kinds().iter().filter(|k| k.category() != Category::Temp).map(|&k| k.literals(self)).sum::<usize>()
    }
}

/// Text literals that prints put before a value.
pub const PRINT_PREFIXES: &[&str] = &[
    "Value: ",
    "Printing: ",
    "Out: ",
    "Result: ",
    "Output: ",
    "Debug: ",
    "Log: ",
    "Info: ",
    "Trace: ",
    "mult = ",
    "current value -> ",
    "[mult] ",
    ">> ",
    "computed ",
    "checkpoint: ",
    "status: ",
    "got ",
    "now: ",
];

/// Text literals that prints put after a value.
pub const PRINT_SUFFIXES: &[&str] = &[
    " (done)",
    " <- value",
    " [end]",
    " ...",
    " | logged",
    " #checkpoint",
    " -- mult",
    " (computed)",
    " ;",
    " ok",
    " <eol>",
    " //trace",
    " ->",
    " units",
    " (float)",
    " !!",
];

/// The words of comment requirements (`# word: value`).
pub const COMMENT_WORDS: &[&str] = &[
    "TODO",
    "NOTE",
    "checkpoint",
    "trace",
    "debug",
    "handoff",
    "pass-through",
    "preserve",
    "review",
    "guard",
    "computed",
    "forwarded",
    "state",
    "local",
    "marker",
    "verify",
];

/// Templates of temporary names (`{v}` is the value's name).
pub const TEMP_NAMES: &[&str] = &[
    "{v}_temp",
    "temp_{v}",
    "{v}_copy",
    "copy_{v}",
    "{v}_snapshot",
    "snapshot_{v}",
    "{v}_stash",
    "stored_{v}",
    "{v}_current",
    "current_{v}",
    "{v}_local",
    "local_{v}",
    "{v}_checkpoint",
    "checkpoint_{v}",
    "{v}_dupe",
    "dupe_{v}",
];

/// Literals of float asserts: "not equal" values, strict upper and lower bounds. Generated values stay
/// near [-1.3, 1.3], so each of these asserts always holds.
const FLOAT_NOT: &[i64] = &[-40, -30, -20, -10, 10, 20, 30, 40];
const FLOAT_UPPER: &[i64] = &[50, 75, 100, 125, 150, 175, 200];
const FLOAT_LOWER: &[i64] = &[-50, -75, -100, -125, -150, -175, -200];
/// Literals of string asserts: generated strings are digits, which sort between these bounds and never
/// equal a capital letter.
const STR_NOT: &[char] = &['A', 'B', 'C', 'D', 'E', 'F', 'G'];
const STR_UPPER: &[char] = &[':', ';', '<', '=', '>', '?', '@'];
const STR_LOWER: &[char] = &['!', '#', '$', '%', '&', '+', ','];

/// Descriptions per kind.
pub const PHRASINGS: usize = 5;

impl RuleKind {
    /// Every kind, both banks.
    pub const ALL: [RuleKind; 14] = [
        RuleKind::AddNumber,
        RuleKind::SubtractNumber,
        RuleKind::MultiplyNumber,
        RuleKind::DivideNumber,
        RuleKind::AddCharacterPrefix,
        RuleKind::AddCharacterSuffix,
        RuleKind::ReplaceCharacter,
        RuleKind::Sandwich,
        RuleKind::AssertNot,
        RuleKind::AssertUpperBound,
        RuleKind::AssertLowerBound,
        RuleKind::PrintPrefix,
        RuleKind::PrintSuffix,
        RuleKind::AddComment,
    ];

    /// The reference's `template_key`.
    pub fn key(self) -> &'static str {
        match self {
            RuleKind::AddNumber => "add_number",
            RuleKind::SubtractNumber => "subtract_number",
            RuleKind::MultiplyNumber => "multiply_number",
            RuleKind::DivideNumber => "divide_number",
            RuleKind::AddCharacterPrefix => "add_character_prefix",
            RuleKind::AddCharacterSuffix => "add_character_suffix",
            RuleKind::ReplaceCharacter => "replace_character",
            RuleKind::Sandwich => "sandwich",
            RuleKind::AssertNot => "assert_not",
            RuleKind::AssertUpperBound => "assert_upper_bound",
            RuleKind::AssertLowerBound => "assert_lower_bound",
            RuleKind::PrintPrefix => "print_prefix",
            RuleKind::PrintSuffix => "print_suffix",
            RuleKind::AddComment => "add_comment",
        }
    }

    pub fn parse(key: &str) -> Option<RuleKind> {
        RuleKind::ALL.iter().copied().find(|k| k.key() == key)
    }

    pub fn category(self) -> Category {
        match self {
            RuleKind::AddNumber
            | RuleKind::SubtractNumber
            | RuleKind::MultiplyNumber
            | RuleKind::DivideNumber
            | RuleKind::AddCharacterPrefix
            | RuleKind::AddCharacterSuffix
            | RuleKind::ReplaceCharacter
            | RuleKind::Sandwich => Category::Temp,
            RuleKind::AssertNot | RuleKind::AssertUpperBound | RuleKind::AssertLowerBound => Category::Assert,
            RuleKind::PrintPrefix | RuleKind::PrintSuffix => Category::Print,
            RuleKind::AddComment => Category::Comment,
        }
    }

    /// How many literals the kind draws from in a bank (for a temporary: how many (literal, literal)
    /// choices); a value never uses one of a kind's literals twice.
    pub fn literals(self, bank: Bank) -> usize {
        match (self, bank) {
            (RuleKind::AddNumber | RuleKind::SubtractNumber | RuleKind::MultiplyNumber | RuleKind::DivideNumber, _) => {
                10
            }
            (RuleKind::AddCharacterPrefix | RuleKind::AddCharacterSuffix, _) => 10,
            (RuleKind::ReplaceCharacter | RuleKind::Sandwich, _) => 90,
            (RuleKind::AssertNot, Bank::Float) => FLOAT_NOT.len(),
            (RuleKind::AssertNot, Bank::Str) => STR_NOT.len(),
            (RuleKind::AssertUpperBound, Bank::Float) => FLOAT_UPPER.len(),
            (RuleKind::AssertUpperBound, Bank::Str) => STR_UPPER.len(),
            (RuleKind::AssertLowerBound, Bank::Float) => FLOAT_LOWER.len(),
            (RuleKind::AssertLowerBound, Bank::Str) => STR_LOWER.len(),
            (RuleKind::PrintPrefix, _) => PRINT_PREFIXES.len(),
            (RuleKind::PrintSuffix, _) => PRINT_SUFFIXES.len(),
            (RuleKind::AddComment, _) => COMMENT_WORDS.len(),
        }
    }

    /// The literal(s) of choice `i` (see [`RuleKind::literals`]).
    pub fn literal(self, bank: Bank, i: usize) -> Literal {
        match (self, bank) {
            (RuleKind::AddNumber | RuleKind::SubtractNumber | RuleKind::MultiplyNumber | RuleKind::DivideNumber, _) => {
                Literal::Tenths(i as u8 + 1)
            }
            (RuleKind::AddCharacterPrefix | RuleKind::AddCharacterSuffix, _) => Literal::Digit(i as u8),
            (RuleKind::ReplaceCharacter | RuleKind::Sandwich, _) => {
                // Ordered pairs of different digits.
                let (a, b) = (i / 9, i % 9);
                let b = if b >= a { b + 1 } else { b };
                Literal::Digits(a as u8, b as u8)
            }
            (RuleKind::AssertNot, Bank::Float) => Literal::Int(FLOAT_NOT[i]),
            (RuleKind::AssertNot, Bank::Str) => Literal::Char(STR_NOT[i]),
            (RuleKind::AssertUpperBound, Bank::Float) => Literal::Int(FLOAT_UPPER[i]),
            (RuleKind::AssertUpperBound, Bank::Str) => Literal::Char(STR_UPPER[i]),
            (RuleKind::AssertLowerBound, Bank::Float) => Literal::Int(FLOAT_LOWER[i]),
            (RuleKind::AssertLowerBound, Bank::Str) => Literal::Char(STR_LOWER[i]),
            (RuleKind::PrintPrefix, _) => Literal::Text(PRINT_PREFIXES[i]),
            (RuleKind::PrintSuffix, _) => Literal::Text(PRINT_SUFFIXES[i]),
            (RuleKind::AddComment, _) => Literal::Text(COMMENT_WORDS[i]),
        }
    }
}

/// A requirement's literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    /// `k / 10` for k in 1..=10 (arithmetic temporaries).
    Tenths(u8),
    /// A digit character (`'7'`).
    Digit(u8),
    /// Two different digit characters.
    Digits(u8, u8),
    /// An integer bound.
    Int(i64),
    /// A character bound.
    Char(char),
    /// A print's text or a comment's word.
    Text(&'static str),
}

fn digit(d: u8) -> String {
    char::from(b'0' + d % 10).to_string()
}

fn quoted(s: &str) -> String {
    python::str_repr(s)
}

/// One requirement drawn for a task, before it is named for a value family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Draw {
    /// 0-based value index.
    pub value: usize,
    pub kind: RuleKind,
    /// Index of the literal choice ([`RuleKind::literal`]).
    pub literal: usize,
    /// Index into [`TEMP_NAMES`] (drawn for every requirement, used by temporaries).
    pub temp_name: usize,
    /// Which of the five descriptions.
    pub phrasing: usize,
}

/// A requirement made concrete for a value (`mult3`).
#[derive(Clone, Debug, PartialEq)]
pub struct Requirement {
    /// The value's name.
    pub var: String,
    /// 0-based value index.
    pub value: usize,
    pub kind: RuleKind,
    pub bank: Bank,
    pub literal: Literal,
    /// The temporary's name (for every requirement, as the reference records it).
    pub new_var: String,
    pub phrasing: usize,
}

impl Requirement {
    pub fn new(d: &Draw, bank: Bank, var: &str) -> Requirement {
        Requirement {
            var: var.to_string(),
            value: d.value,
            kind: d.kind,
            bank,
            literal: d.kind.literal(bank, d.literal),
            new_var: TEMP_NAMES[d.temp_name % TEMP_NAMES.len()].replace("{v}", var),
            phrasing: d.phrasing % PHRASINGS,
        }
    }

    pub fn category(&self) -> Category {
        self.kind.category()
    }

    fn name(&self) -> Expr {
        Expr::name(&self.var)
    }

    /// The right-hand side of a temporary.
    fn temp_value(&self) -> Expr {
        let ch = |d: u8| Expr::Str(digit(d));
        match (self.kind, self.literal) {
            (RuleKind::AddNumber, Literal::Tenths(t)) => Expr::bin(self.name(), Op::Add, tenths(t)),
            (RuleKind::SubtractNumber, Literal::Tenths(t)) => Expr::bin(self.name(), Op::Sub, tenths(t)),
            (RuleKind::MultiplyNumber, Literal::Tenths(t)) => Expr::bin(self.name(), Op::Mult, tenths(t)),
            (RuleKind::DivideNumber, Literal::Tenths(t)) => Expr::bin(self.name(), Op::Div, tenths(t)),
            (RuleKind::AddCharacterPrefix, Literal::Digit(c)) => Expr::bin(ch(c), Op::Add, self.name()),
            (RuleKind::AddCharacterSuffix, Literal::Digit(c)) => Expr::bin(self.name(), Op::Add, ch(c)),
            (RuleKind::Sandwich, Literal::Digits(a, b)) => {
                Expr::bin(Expr::bin(ch(a), Op::Add, self.name()), Op::Add, ch(b))
            }
            (RuleKind::ReplaceCharacter, Literal::Digits(a, b)) => {
                Expr::Method { object: Box::new(self.name()), method: "replace".into(), args: vec![ch(a), ch(b)] }
            }
            // Other pairs are never built (Requirement::new takes the literal from the kind).
            _ => self.name(),
        }
    }

    /// An assert's comparison.
    fn comparison(&self) -> Expr {
        let lit = match self.literal {
            Literal::Int(x) => Expr::Int(x),
            Literal::Char(c) => Expr::Str(c.to_string()),
            _ => Expr::Int(0),
        };
        let op = match self.kind {
            RuleKind::AssertUpperBound => Cmp::Lt,
            RuleKind::AssertLowerBound => Cmp::Gt,
            _ => Cmp::NotEq,
        };
        Expr::Compare { left: Box::new(self.name()), op, right: Box::new(lit) }
    }

    fn text(&self) -> &'static str {
        match self.literal {
            Literal::Text(t) => t,
            _ => "",
        }
    }

    /// The one line of Python the requirement asks for.
    pub fn statement(&self) -> Stmt {
        match self.category() {
            Category::Temp => Stmt::Assign { targets: vec![self.new_var.clone()], value: self.temp_value() },
            Category::Assert => Stmt::Assert(self.comparison()),
            Category::Print => {
                let parts = match self.kind {
                    RuleKind::PrintPrefix => vec![FPart::Text(self.text().into()), FPart::Name(self.var.clone())],
                    _ => vec![FPart::Name(self.var.clone()), FPart::Text(self.text().into())],
                };
                Stmt::Expr(Expr::call("print", vec![Expr::FString(parts)]))
            }
            Category::Comment => Stmt::Comment(format!("{}: {}", self.text(), self.var)),
        }
    }

    /// The line as written, without indentation.
    pub fn code(&self) -> String {
        python::stmt(&self.statement(), "")
    }

    /// What the requirement asks, in one of five wordings (each states the exact line).
    pub fn description(&self) -> String {
        let v = format!("`{}`", self.var);
        let code = format!("`{}`", self.code());
        match self.category() {
            Category::Temp => {
                let rhs = format!("`{}`", python::expr(&self.temp_value()));
                let new = format!("`{}`", self.new_var);
                let what = self.temp_words(&v);
                match self.phrasing {
                    0 => format!("store {rhs} in a new variable {new} and leave {v} unchanged."),
                    1 => format!("compute {rhs} into the local {new}; {v} itself must not change."),
                    2 => format!("add the line {code}."),
                    3 => format!("keep {what} in a temporary named {new} ({code}); {v} stays as it is."),
                    _ => format!("assign {what} to {new}, written exactly as {rhs}, without updating {v}."),
                }
            }
            Category::Assert => {
                let lit = match self.literal {
                    Literal::Int(x) => x.to_string(),
                    Literal::Char(c) => quoted(&c.to_string()),
                    _ => String::new(),
                };
                let holds = match self.kind {
                    RuleKind::AssertUpperBound => format!("is strictly less than {lit}"),
                    RuleKind::AssertLowerBound => format!("is strictly greater than {lit}"),
                    _ => format!("is never equal to {lit}"),
                };
                let test = format!("`{}`", python::expr(&self.comparison()));
                match self.phrasing {
                    0 => format!("assert that {v} {holds}."),
                    1 => format!("add the line {code}."),
                    2 => format!("check with an assert statement that {v} {holds} ({test})."),
                    3 => format!("make the function raise an AssertionError unless {test} holds."),
                    _ => format!("guard the value with {code}, so that {v} {holds}."),
                }
            }
            Category::Print => {
                let t = quoted(self.text());
                let prefix = self.kind == RuleKind::PrintPrefix;
                match (self.phrasing, prefix) {
                    (0, true) => format!("print {v} right after the text {t}, with an f-string."),
                    (0, false) => format!("print {v} followed by the text {t}, with an f-string."),
                    (1, _) => format!("add the line {code}."),
                    (2, true) => format!("print one f-string made of {t} and then the value of {v}."),
                    (2, false) => format!("print one f-string made of the value of {v} and then {t}."),
                    (3, true) => format!("log {v} with a print call whose f-string puts {t} in front of it."),
                    (3, false) => format!("log {v} with a print call whose f-string puts {t} after it."),
                    (_, true) => format!("output {t} immediately followed by {v}, in a single print of an f-string."),
                    (_, false) => format!("output {v} immediately followed by {t}, in a single print of an f-string."),
                }
            }
            Category::Comment => {
                let c = format!("`# {}: {}`", self.text(), self.var);
                match self.phrasing {
                    0 => format!("write the comment {c} on a line of its own."),
                    1 => format!("add the comment line {c}, exactly as given."),
                    2 => format!("put a `#` comment reading `{}: {}` in the function body.", self.text(), self.var),
                    3 => format!("include the comment {c} word for word."),
                    _ => format!("mark the function with the exact comment {c}."),
                }
            }
        }
    }

    /// What a temporary holds, in words.
    fn temp_words(&self, v: &str) -> String {
        match (self.kind, self.literal) {
            (RuleKind::AddNumber, Literal::Tenths(t)) => format!("the sum of {v} and {}", python::expr(&tenths(t))),
            (RuleKind::SubtractNumber, Literal::Tenths(t)) => format!("{v} minus {}", python::expr(&tenths(t))),
            (RuleKind::MultiplyNumber, Literal::Tenths(t)) => format!("{v} times {}", python::expr(&tenths(t))),
            (RuleKind::DivideNumber, Literal::Tenths(t)) => format!("{v} divided by {}", python::expr(&tenths(t))),
            (RuleKind::AddCharacterPrefix, Literal::Digit(c)) => format!("{v} with {} in front", quoted(&digit(c))),
            (RuleKind::AddCharacterSuffix, Literal::Digit(c)) => format!("{v} with {} appended", quoted(&digit(c))),
            (RuleKind::Sandwich, Literal::Digits(a, b)) => {
                format!("{v} between {} and {}", quoted(&digit(a)), quoted(&digit(b)))
            }
            (RuleKind::ReplaceCharacter, Literal::Digits(a, b)) => {
                format!("{v} with every {} replaced by {}", quoted(&digit(a)), quoted(&digit(b)))
            }
            _ => v.to_string(),
        }
    }

    /// The reference's `values` record: `rand`, `rand2`, `prefix`, `suffix`, `new_var` (strings of the
    /// string bank as Python literals, numbers as numbers, unused ones empty).
    pub fn values_json(&self) -> serde_json::Value {
        let (rand, rand2, prefix, suffix) = match self.literal {
            Literal::Tenths(t) => (serde_json::json!(f64::from(t) / 10.0), "".into(), "", ""),
            Literal::Digit(c) => (serde_json::json!(quoted(&digit(c))), "".into(), "", ""),
            Literal::Digits(a, b) => (serde_json::json!(quoted(&digit(a))), quoted(&digit(b)), "", ""),
            Literal::Int(x) => (serde_json::json!(x), "".into(), "", ""),
            Literal::Char(c) => (serde_json::json!(quoted(&c.to_string())), "".into(), "", ""),
            Literal::Text(t) => match self.kind {
                RuleKind::PrintPrefix => (serde_json::json!(""), String::new(), t, ""),
                RuleKind::PrintSuffix => (serde_json::json!(""), String::new(), "", t),
                _ => (serde_json::json!(t), String::new(), "", ""),
            },
        };
        serde_json::json!({"rand": rand, "rand2": rand2, "prefix": prefix, "suffix": suffix, "new_var": self.new_var})
    }

    /// Read a requirement back from a rule of a record's `metadata` (the reference's shape); `None` when
    /// the rule is not one this bank knows.
    pub fn from_json(var: &str, value: usize, rule: &serde_json::Value) -> Option<Requirement> {
        let kind = RuleKind::parse(rule.get("template_key")?.as_str()?)?;
        let values = rule.get("values")?;
        let s = |k: &str| values.get(k).and_then(|x| x.as_str()).unwrap_or("");
        let unquote = |t: &str| -> Option<char> {
            let inner = t.strip_prefix('\'').and_then(|t| t.strip_suffix('\''))?;
            let mut cs = inner.chars();
            let c = cs.next()?;
            cs.next().is_none().then_some(c)
        };
        let digit_of = |t: &str| unquote(t).and_then(|c| c.to_digit(10)).map(|d| d as u8);
        let rand = values.get("rand");
        let bank = match kind {
            RuleKind::AddNumber | RuleKind::SubtractNumber | RuleKind::MultiplyNumber | RuleKind::DivideNumber => {
                Bank::Float
            }
            RuleKind::AddCharacterPrefix
            | RuleKind::AddCharacterSuffix
            | RuleKind::ReplaceCharacter
            | RuleKind::Sandwich => Bank::Str,
            RuleKind::AssertNot | RuleKind::AssertUpperBound | RuleKind::AssertLowerBound => {
                if rand.is_some_and(|r| r.is_string()) {
                    Bank::Str
                } else {
                    Bank::Float
                }
            }
            // Prints and comments read the same in both banks.
            RuleKind::PrintPrefix | RuleKind::PrintSuffix | RuleKind::AddComment => Bank::Float,
        };
        let literal = match kind.category() {
            Category::Temp => match kind {
                RuleKind::AddNumber | RuleKind::SubtractNumber | RuleKind::MultiplyNumber | RuleKind::DivideNumber => {
                    let x = rand?.as_f64()?;
                    let t = (x * 10.0).round();
                    ((1.0..=10.0).contains(&t) && (t / 10.0 - x).abs() < 1e-9).then_some(Literal::Tenths(t as u8))?
                }
                RuleKind::AddCharacterPrefix | RuleKind::AddCharacterSuffix => {
                    Literal::Digit(digit_of(rand?.as_str()?)?)
                }
                _ => Literal::Digits(digit_of(rand?.as_str()?)?, digit_of(s("rand2"))?),
            },
            Category::Assert => match rand? {
                serde_json::Value::String(t) => Literal::Char(unquote(t)?),
                r => Literal::Int(r.as_i64()?),
            },
            Category::Print => {
                let t = if kind == RuleKind::PrintPrefix { s("prefix") } else { s("suffix") };
                Literal::Text(leak_known(
                    t,
                    if kind == RuleKind::PrintPrefix { PRINT_PREFIXES } else { PRINT_SUFFIXES },
                )?)
            }
            Category::Comment => Literal::Text(leak_known(rand?.as_str()?, COMMENT_WORDS)?),
        };
        Some(Requirement {
            var: var.to_string(),
            value,
            kind,
            bank,
            literal,
            new_var: s("new_var").to_string(),
            phrasing: 0,
        })
    }
}

/// The pool entry equal to `t` (records name texts from the pools only).
fn leak_known(t: &str, pool: &'static [&'static str]) -> Option<&'static str> {
    pool.iter().copied().find(|p| *p == t)
}

fn tenths(t: u8) -> Expr {
    Expr::Float(f64::from(t) / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacities_are_the_references() {
        assert_eq!(Bank::Float.capacity(), 73);
        assert_eq!(Bank::Str.capacity(), 72);
        for bank in [Bank::Float, Bank::Str] {
            assert_eq!(bank.kinds().iter().filter(|k| k.category() == Category::Temp).count(), 4);
        }
    }

    #[test]
    fn statements_read_as_python() {
        let r = |kind, bank, literal, var: &str| Requirement {
            var: var.into(),
            value: 0,
            kind,
            bank,
            literal,
            new_var: format!("{var}_temp"),
            phrasing: 0,
        };
        assert_eq!(
            r(RuleKind::MultiplyNumber, Bank::Float, Literal::Tenths(2), "mult1").code(),
            "mult1_temp = mult1 * 0.2"
        );
        assert_eq!(r(RuleKind::DivideNumber, Bank::Float, Literal::Tenths(10), "m").code(), "m_temp = m / 1.0");
        assert_eq!(
            r(RuleKind::Sandwich, Bank::Str, Literal::Digits(0, 9), "key1").code(),
            "key1_temp = '0' + key1 + '9'"
        );
        assert_eq!(
            r(RuleKind::ReplaceCharacter, Bank::Str, Literal::Digits(3, 2), "p").code(),
            "p_temp = p.replace('3', '2')"
        );
        assert_eq!(r(RuleKind::AssertLowerBound, Bank::Float, Literal::Int(-100), "m").code(), "assert m > -100");
        assert_eq!(r(RuleKind::AssertUpperBound, Bank::Str, Literal::Char(';'), "p").code(), "assert p < ';'");
        assert_eq!(r(RuleKind::PrintPrefix, Bank::Float, Literal::Text("now: "), "m").code(), "print(f'now: {m}')");
        assert_eq!(r(RuleKind::PrintSuffix, Bank::Float, Literal::Text(" (done)"), "m").code(), "print(f'{m} (done)')");
        assert_eq!(r(RuleKind::AddComment, Bank::Float, Literal::Text("verify"), "m").code(), "# verify: m");
    }

    #[test]
    fn every_description_states_the_line_and_round_trips_through_json() {
        for bank in [Bank::Float, Bank::Str] {
            for &kind in bank.kinds() {
                for lit in 0..kind.literals(bank) {
                    for phrasing in 0..PHRASINGS {
                        let d = Draw { value: 2, kind, literal: lit, temp_name: lit % 16, phrasing };
                        let r = Requirement::new(&d, bank, "v3");
                        let text = r.description();
                        assert!(text.contains("v3"), "{text}");
                        let rule = serde_json::json!({"template_key": kind.key(), "values": r.values_json()});
                        let back = Requirement::from_json("v3", 2, &rule).unwrap();
                        assert_eq!(back.code(), r.code(), "{rule}");
                    }
                }
            }
        }
    }
}
