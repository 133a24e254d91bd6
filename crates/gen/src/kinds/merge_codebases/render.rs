//! The Python of a merge task (grading.md §6.6): the two calculators (the starter, `input`, and the
//! same with a blank line after every block, `input_with_space`), and the template-method solution.

use super::ir::{Program, Segment, Term, Var};
use super::rewrite::{item_lines, ClassCode};
use std::fmt::Write;

/// The two child classes, in order.
pub const CLASSES: [&str; 2] = ["CalculateA", "CalculateB"];

const HEADER: &str = "from abc import ABC, abstractmethod\n";
const INDENT: &str = "        ";

/// What a line of a class's `compute()` in the starter is. It is written as its [`Piece::code`]
/// (the app's hand-over carries one per line of both classes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// A line of shared block `k` (from 0).
    Block(usize),
    /// Difference `i` (from 0): the line computes something else in the other class.
    Diff(usize),
    /// The `return`.
    Return,
}

impl Piece {
    /// The piece in a few characters: `b3` (block 3), `d0` (difference 0), `r` (the return).
    pub fn code(self) -> String {
        let (letter, k) = match self {
            Piece::Block(k) => ('b', k),
            Piece::Diff(i) => ('d', i),
            Piece::Return => return "r".into(),
        };
        format!("{letter}{k}")
    }

    /// The piece a [`Piece::code`] names, if it names one.
    pub fn from_code(code: &str) -> Option<Piece> {
        let number =
            |s: &str| if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) { None } else { s.parse().ok() };
        match code.split_at_checked(1)? {
            ("b", k) => number(k).map(Piece::Block),
            ("d", i) => number(i).map(Piece::Diff),
            ("r", "") => Some(Piece::Return),
            _ => None,
        }
    }
}

impl serde::Serialize for Piece {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.code())
    }
}

/// A rendered starter: its text and, per class, the 1-based line number and piece of every line
/// of its `compute()` body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Starter {
    pub text: String,
    pub lines: [Vec<(usize, Piece)>; 2],
}

/// A sum of terms as Python: `2 * x + y * z - 3 * (u * v)`.
pub fn expr(terms: &[Term], names: &[String]) -> String {
    let mut out = String::new();
    write_expr(&mut out, terms, names);
    out
}

/// [`expr`], written at the end of `out` (a task writes one per line of code, three times).
fn write_expr(out: &mut String, terms: &[Term], names: &[String]) {
    for (i, t) in terms.iter().enumerate() {
        match (i, t.neg) {
            (0, false) => {}
            (0, true) => out.push('-'),
            (_, false) => out.push_str(" + "),
            (_, true) => out.push_str(" - "),
        }
        // A coefficient other than 1 multiplies the product, grouped unless it is one factor.
        let grouped = t.coeff != 1 && t.factors.len() != 1;
        if t.coeff != 1 {
            let _ = write!(out, "{} * ", t.coeff);
            if grouped {
                out.push('(');
            }
        }
        for (j, &f) in t.factors.iter().enumerate() {
            if j > 0 {
                out.push_str(" * ");
            }
            out.push_str(&names[f]);
        }
        if grouped {
            out.push(')');
        }
    }
}

/// `{INDENT}target = expr\n`, the line of code of an assignment.
fn assignment(out: &mut String, target: &str, terms: &[Term], names: &[String]) {
    out.push_str(INDENT);
    out.push_str(target);
    out.push_str(" = ");
    write_expr(out, terms, names);
    out.push('\n');
}

fn join(vars: &[Var], names: &[String]) -> String {
    vars.iter().map(|&v| names[v].as_str()).collect::<Vec<_>>().join(", ")
}

/// The `__main__` block: both calculators on the arguments 1, 2, ….
fn footer(params: usize) -> String {
    let args: Vec<String> = (1..=params).map(|i| i.to_string()).collect();
    let tuple = if params == 1 { format!("({},)", args[0]) } else { format!("({})", args.join(", ")) };
    format!(
        "\n\nif __name__ == '__main__':\n    calc_a = CalculateA()\n    calc_b = CalculateB()\n    args = {tuple}\n    \
         print(f'Result A: {{calc_a.compute(*args)}}')\n    print(f'Result B: {{calc_b.compute(*args)}}')\n"
    )
}

/// Text with a running count of its lines.
struct Writer {
    text: String,
    lines: usize,
}

impl Writer {
    /// Append text (whole lines); returns the 1-based number of its last line.
    fn push(&mut self, s: &str) -> usize {
        self.text.push_str(s);
        self.lines += s.matches('\n').count();
        self.lines
    }
}

/// The starter: an abstract `Calculate` and the two calculators, each computing in its own words.
pub fn starter(p: &Program, classes: &[ClassCode; 2], spaced: bool) -> Starter {
    let mut w = Writer { text: String::new(), lines: 0 };
    w.push(HEADER);
    w.push(
        "\n\nclass Calculate(ABC):\n    \"\"\"A calculator: compute() turns its parameters into one number.\"\"\"\n\n    \
         @abstractmethod\n    def compute(self, *args):\n        ...\n",
    );
    let mut maps: [Vec<(usize, Piece)>; 2] = [Vec::new(), Vec::new()];
    let mut line = String::new();
    for (ci, c) in classes.iter().enumerate() {
        w.push(&format!("\n\nclass {}(Calculate):\n", CLASSES[ci]));
        let params: Vec<Var> = (0..p.params).collect();
        w.push(&format!("    def compute(self, {}):\n", join(&params, &c.names)));
        if spaced {
            w.push("\n");
        }
        let (mut block, mut diff) = (0, 0);
        for (index, item) in p.items.iter().enumerate() {
            let piece = match item {
                Segment::Block(_) => Piece::Block(block),
                Segment::Diff(_) => Piece::Diff(diff),
            };
            for l in item_lines(p, c, index, ci) {
                line.clear();
                assignment(&mut line, &c.names[l.target], &l.terms, &c.names);
                let at = w.push(&line);
                maps[ci].push((at, piece));
            }
            match item {
                Segment::Block(_) => block += 1,
                Segment::Diff(_) => diff += 1,
            }
            if spaced {
                w.push("\n");
            }
        }
        let at = w.push(&format!("{INDENT}return {}\n", sum(&p.leaves, &c.names)));
        maps[ci].push((at, Piece::Return));
    }
    w.push(&footer(p.params));
    Starter { text: w.text, lines: maps }
}

/// Leaves summed in one flat chain at most; longer sums are written as parenthesised groups of this
/// many, so the expression stays shallow for parsers with a depth limit (a flat `a + b + …` of 250
/// names nests 250 levels; the value is the same).
const SUM_GROUP: usize = 100;

fn sum(vars: &[Var], names: &[String]) -> String {
    let flat = |vs: &[Var]| vs.iter().map(|&v| names[v].as_str()).collect::<Vec<_>>().join(" + ");
    if vars.len() <= SUM_GROUP {
        return flat(vars);
    }
    vars.chunks(SUM_GROUP).map(|c| format!("({})", flat(c))).collect::<Vec<_>>().join(" + ")
}

/// The reference solution: `Calculate.compute()` holds every shared line as the canonical program
/// writes it and calls `self.custom_compute_<i>(…)` for difference `i`; each child defines only its
/// side of every difference, as one `return`.
pub fn solution(p: &Program) -> String {
    let names = &p.names;
    let diffs: Vec<_> = p.diffs().collect();
    let mut out = String::from(HEADER);
    out.push_str(
        "\n\nclass Calculate(ABC):\n    \"\"\"The shared calculation; each subclass supplies only the steps where it differs.\"\"\"\n",
    );
    for (i, d) in diffs.iter().enumerate() {
        out.push_str(&format!(
            "\n    @abstractmethod\n    def custom_compute_{}(self, {}):\n        ...\n",
            i + 1,
            join(&d.args(), names)
        ));
    }
    let params: Vec<Var> = (0..p.params).collect();
    out.push_str(&format!("\n    def compute(self, {}):\n", join(&params, names)));
    let mut diff = 0;
    for item in &p.items {
        match item {
            Segment::Block(b) => {
                for l in &b.lines {
                    assignment(&mut out, &names[l.target], &l.terms, names);
                }
            }
            Segment::Diff(d) => {
                diff += 1;
                out.push_str(&format!(
                    "{INDENT}{} = self.custom_compute_{diff}({})\n",
                    names[d.target],
                    join(&d.args(), names)
                ));
            }
        }
    }
    out.push_str(&format!("{INDENT}return {}\n", sum(&p.leaves, names)));
    for (ci, class) in CLASSES.iter().enumerate() {
        out.push_str(&format!("\n\nclass {class}(Calculate):\n"));
        for (i, d) in diffs.iter().enumerate() {
            let line = if ci == 0 { &d.canon } else { &d.pert };
            out.push_str(&format!(
                "{}    def custom_compute_{}(self, {}):\n        return {}\n",
                if i == 0 { "" } else { "\n" },
                i + 1,
                join(&d.args(), names),
                expr(&line.terms, names)
            ));
        }
    }
    out.push_str(&footer(p.params));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_codes_read_back() {
        for p in [Piece::Block(0), Piece::Block(17), Piece::Diff(0), Piece::Diff(3), Piece::Return] {
            assert_eq!(Piece::from_code(&p.code()), Some(p));
            assert_eq!(serde_json::to_value(p).unwrap(), serde_json::Value::from(p.code()));
        }
        for bad in ["", "b", "d", "r0", "x1", "b-1", "b+1", "b 1", "d1x", "B1", "b99999999999999999999999", "é"] {
            assert_eq!(Piece::from_code(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn expressions_read_like_the_references() {
        let names: Vec<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
        let t = |f: &[usize], coeff: u64, neg: bool| Term { factors: f.to_vec(), coeff, neg };
        assert_eq!(expr(&[t(&[0], 2, false), t(&[1, 2], 1, false)], &names), "2 * x + y * z");
        assert_eq!(expr(&[t(&[0, 1], 3, true), t(&[2], 1, true)], &names), "-3 * (x * y) - z");
        assert_eq!(expr(&[t(&[0, 1, 2], 1, true), t(&[0], 4, false)], &names), "-x * y * z + 4 * x");
    }

    #[test]
    fn long_sums_are_grouped() {
        let names: Vec<String> = (0..250).map(|i| format!("v{i}")).collect();
        let vars: Vec<Var> = (0..250).collect();
        assert_eq!(sum(&vars[..3], &names), "v0 + v1 + v2");
        assert_eq!(sum(&vars[..100], &names).matches('(').count(), 0);
        let long = sum(&vars, &names);
        assert_eq!(long.matches('(').count(), 3);
        assert!(long.starts_with("(v0 + v1") && long.ends_with("v248 + v249)"), "{long}");
    }

    #[test]
    fn one_parameter_is_still_a_tuple() {
        assert!(footer(1).contains("args = (1,)\n"));
        assert!(footer(3).contains("args = (1, 2, 3)\n"));
    }
}
