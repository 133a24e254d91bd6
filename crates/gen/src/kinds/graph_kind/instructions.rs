//! What instruction following adds to the four call-graph kinds that edit functions (the axis itself:
//! `axes/instructions.rs`): each kind's refactoring over `N` indexed values ([`IndexedKind`], in
//! `kinds/<kind>/instructions.rs`), the requirement lines every function that carries the values gets
//! (at the point the kind decides), and the statement (D10: written for Cabrito, with a worked example
//! the kind's own indexed transform builds, requirement lines included).

use super::statement::{restrictions, words, Example, Named};
use super::{draw_ops, Built, Ctx, GraphKind};
use crate::axes::instructions::bank::{Draw, COMMENT_WORDS, PRINT_PREFIXES, PRINT_SUFFIXES};
use crate::axes::Bodies;
use crate::axes::{
    instructions,
    instructions::{places, Bank, Family, Place, Rule, RuleKind, RuleSet},
};
use crate::domain::DomainInfo;
use crate::graph::CallGraph;
use crate::kinds::Kind;
use crate::spec::{err, Domain, SpecError, TaskSpec};
use crate::{
    python,
    python::{Expr, Op, Param, Stmt},
};

/// A kind's refactoring over indexed values (generation.md §4.4.5).
pub trait IndexedKind: Sync {
    /// The kind's values in a domain: their names, their words, their bank.
    fn family(&self, d: Domain) -> Family;
    /// The starter, the reference and the roles for `n` values; every function that carries the values
    /// gets `lines(vertex)` in the reference, where the kind says they go.
    fn transform(&self, cx: &Ctx, n: usize, lines: &dyn Fn(usize) -> Vec<Stmt>) -> Built;
    /// The statement's rules of the indexed refactoring, in the domain's words.
    fn rules(&self, d: &DomainInfo, f: &Family) -> String;
    /// The sentence after the worked example, naming its functions by role.
    fn example_note(&self, named: &Named, d: &DomainInfo, f: &Family) -> String;
}

/// `mult1, mult2, …` for `n` values.
pub fn names(f: &Family, n: usize) -> Vec<String> {
    (0..n).map(|i| f.name(i)).collect()
}

/// `multI: T=default_of(I)` for every value, in index order.
pub fn params(names: &[String], ty: &str, default_of: impl Fn(usize) -> Expr) -> Vec<Param> {
    names.iter().enumerate().map(|(i, n)| Param::with_default(n, ty, default_of(i + 1))).collect()
}

/// `mult1=mult1, …` for every value.
pub fn keywords(names: &[String]) -> Vec<(String, Expr)> {
    names.iter().map(|n| (n.clone(), Expr::name(n))).collect()
}

/// `a1 op a2 op … op x`, folded left (the reference's `mult1 * mult2 * … * X`).
pub fn fold(items: Vec<Expr>, op: Op, x: Expr) -> Expr {
    let mut it = items.into_iter().chain(std::iter::once(x));
    let first = it.next().unwrap_or(Expr::Int(0));
    it.fold(first, |acc, e| Expr::bin(acc, op, e))
}

/// `tuple[T, H, …, H]` with `n` copies of `h`.
pub fn tuple_type(t: &str, h: &str, n: usize) -> String {
    let mut parts = vec![t.to_string()];
    parts.extend(std::iter::repeat_n(h.to_string(), n));
    format!("tuple[{}]", parts.join(", "))
}

/// `(X, mult1, …)`.
pub fn tuple_of(x: Expr, names: &[String]) -> Expr {
    let mut items = vec![x];
    items.extend(names.iter().map(|n| Expr::name(n)));
    Expr::Tuple(items)
}

/// The requirements of a task and where its functions sit.
pub struct Setup<'a> {
    pub kind: &'a dyn IndexedKind,
    pub family: Family,
    pub rules: RuleSet,
    places: Vec<Place>,
}

impl Setup<'_> {
    /// The requirement lines of a vertex, in the prescribed order.
    pub fn lines(&self, v: usize) -> Vec<Stmt> {
        self.places.get(v).map(|p| self.rules.lines(p)).unwrap_or_default()
    }
}

/// The instruction-following part of a spec's task (`None` off the axis): the kind's indexed
/// refactoring and the requirements drawn for it.
pub fn setup<'a>(k: &'a dyn GraphKind, spec: &TaskSpec, g: &CallGraph) -> Result<Option<Setup<'a>>, SpecError> {
    if !spec.axis.def().instructions() {
        return Ok(None);
    }
    let kind = k.indexed().ok_or_else(|| err("axis", format!("{} has no indexed form", spec.kind)))?;
    let family = kind.family(spec.domain);
    let places = places(g);
    let eligible: Vec<Place> = g.edit_side().into_iter().map(|v| places[v].clone()).collect();
    let rules = RuleSet::draw(spec, &family, &eligible);
    Ok(Some(Setup { kind, family, rules, places }))
}

/// The axis's rules on a spec: `n` requirements fit on the values.
pub fn validate(spec: &TaskSpec) -> Result<(), SpecError> {
    if !spec.axis.def().instructions() {
        return Ok(());
    }
    let cap = instructions::capacity(spec.values);
    if u64::from(spec.n) > cap {
        return Err(err(
            "n",
            format!(
                "n = {} requirements do not fit on {} values (each carries at most {} different requirements, {cap} in \
                 all); raise values or lower n",
                spec.n,
                spec.values,
                cap / u64::from(spec.values.max(1))
            ),
        ));
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// The statement

/// The example's requirements: a comment and an assert on the first value, a print and a temporary
/// on the second.
fn example_rules(f: &Family) -> RuleSet {
    let pos = |pool: &[&str], x: &str| pool.iter().position(|p| *p == x).unwrap_or(0);
    let (assert_kind, assert_lit, print_kind, print_lit, temp_kind, temp_lit) = match f.bank {
        Bank::Float => (
            RuleKind::AssertUpperBound,
            2, // 100
            RuleKind::PrintPrefix,
            pos(PRINT_PREFIXES, "Value: "),
            RuleKind::MultiplyNumber,
            4, // 0.5
        ),
        Bank::Str => (
            RuleKind::AssertNot,
            0, // 'A'
            RuleKind::PrintSuffix,
            pos(PRINT_SUFFIXES, " ok"),
            RuleKind::AddCharacterPrefix,
            7, // '7'
        ),
    };
    let draws = [
        Draw { value: 0, kind: RuleKind::AddComment, literal: pos(COMMENT_WORDS, "NOTE"), temp_name: 0, phrasing: 0 },
        Draw { value: 0, kind: assert_kind, literal: assert_lit, temp_name: 0, phrasing: 0 },
        Draw { value: 1, kind: print_kind, literal: print_lit, temp_name: 0, phrasing: 0 },
        Draw { value: 1, kind: temp_kind, literal: temp_lit, temp_name: 3, phrasing: 2 },
    ];
    let rules = draws
        .iter()
        .enumerate()
        .map(|(i, d)| Rule {
            req: instructions::Requirement::new(d, f.bank, &f.name(d.value)),
            number: Some(i + 1),
            condition: None,
        })
        .collect();
    RuleSet { names: names(f, 2), rules, requested: draws.len() }
}

/// The worked example: (before, after, sentence, its requirements as a list).
fn worked_example(k: &dyn GraphKind, ix: &dyn IndexedKind, d: &DomainInfo) -> (String, String, String, String) {
    let ex: Example = k.example();
    let g = CallGraph::from_edges(ex.nodes, ex.edges, ex.main_root, ex.special, ex.excluded);
    let ops = draw_ops("cabrito-worked-example", d, &g);
    let mut order: Vec<usize> = (0..g.len()).collect();
    order.sort_by(|&a, &b| g.name(a).cmp(g.name(b)));
    let f = ix.family(d.domain);
    let rules = example_rules(&f);
    let ps = places(&g);
    let built = ix.transform(&Ctx { graph: &g, domain: d, ops: &ops, order: &order, bodies: Bodies::Plain }, 2, &|v| {
        rules.lines(&ps[v])
    });
    let why = ix.example_note(&Named::new(&g, &built.roles), d, &f);
    let list: Vec<String> =
        rules.rules.iter().map(|r| format!("{}. {}", r.number.unwrap_or(0), r.sentence())).collect();
    (python::module(&built.starter), python::module(&built.reference), why, list.join("\n"))
}

/// How every requirement is applied (the part of the statement shared by every kind).
fn how_to_apply(f: &Family) -> String {
    format!(
        "How to apply the requirements:\n\
         - A requirement names one of the {label}. It applies in every function that carries that value after your \
         refactoring (takes it as a parameter, computes it, receives it from a call or returns it) and in no other \
         function; never in `main()`. A requirement that states a condition on the function (its name, or how it \
         calls and is called) applies only in the functions carrying the value that meet the condition.\n\
         - Each requirement is one line of its own, written directly in the function's body (not inside an `if`, a \
         loop or any other block).\n\
         - Place the lines after the value is available in the function (as a parameter, or from the line that \
         assigns or unpacks it) and before the value is first used: passed to a call or used in a `return`.\n\
         - Within a function the lines go in this order: all comments, then all asserts, then all prints, then all \
         temporary copies.\n\
         - Comments are real `#` comment lines, copied exactly.\n\
         - A temporary copy stores what the requirement computes from the value in the variable it names. It never \
         changes the value itself, and the function goes on using the value, not the copy.\n\
         - Requirements of the same sort each get their own line.",
        label = f.label
    )
}

/// The part of a statement that depends on the kind and the domain only.
fn fixed_part(k: &dyn GraphKind, ix: &dyn IndexedKind, d: &DomainInfo) -> String {
    let f = ix.family(d.domain);
    let (before, after, why, list) = worked_example(k, ix, d);
    format!(
        "Refactor `solution.py`: {title}, over several indexed values at once, while obeying a list of numbered \
         requirements.\n\n{rules}\n\n\
         A worked example with two values, `{v1}` and `{v2}`, and these requirements:\n{list}\n\nThis code:\n\
         <example>\n{before}\n</example>\n\nbecomes:\n<output>\n{after}\n</output>\n\n{why}\n\n{restrictions}\n\n{how}",
        title = k.label().to_ascii_lowercase(),
        rules = ix.rules(d, &f),
        v1 = f.name(0),
        v2 = f.name(1),
        restrictions = restrictions(k.library(d.domain), d),
        how = how_to_apply(&f),
    )
}

/// The statement of a task on the instruction-following axis: the kind's indexed rules and worked
/// example (built once per kind and domain), then the task's requirements, numbered.
pub fn statement(k: &dyn GraphKind, setup: &Setup, d: &DomainInfo) -> String {
    const SLOTS: usize = Kind::ALL.len() * Domain::ALL.len();
    static CACHE: [std::sync::OnceLock<String>; SLOTS] = [const { std::sync::OnceLock::new() }; SLOTS];
    let kind = Kind::ALL.iter().position(|&x| x == k.kind()).unwrap_or(0);
    let domain = Domain::ALL.iter().position(|&x| x == d.domain).unwrap_or(0);
    let fixed = CACHE[kind * Domain::ALL.len() + domain].get_or_init(|| fixed_part(k, setup.kind, d));
    let rs = &setup.rules;
    let mut out = String::with_capacity(fixed.len() + 90 * rs.rules.len() + 200);
    out.push_str(fixed);
    out.push_str(&format!(
        "\n\nThis task has {n} values, {names}. Here are its {k} requirements on the {label}, numbered and in no \
         particular order:\n",
        n = rs.names.len(),
        names = rs.names_list(),
        k = rs.rules.len(),
        label = setup.family.label,
    ));
    for r in rs.in_statement_order() {
        out.push('\n');
        out.push_str(&format!("{}. {}", r.number.unwrap_or(0), r.sentence()));
    }
    out
}

/// What a domain's values are, for the kinds' rules.
pub fn values_words(d: &DomainInfo) -> &'static str {
    words(d, "").values
}

/// The literal `N`th value name, for rules (`mult1`, …, `multN`).
pub fn literal_range(f: &Family) -> String {
    format!("`{p}1`, `{p}2`, …, `{p}N`", p = f.prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_requirements_are_the_intended_ones() {
        let f = Family { prefix: "mult", label: "mult parameters", bank: Bank::Float };
        let codes: Vec<String> = example_rules(&f).rules.iter().map(|r| r.req.code()).collect();
        assert_eq!(
            codes,
            ["# NOTE: mult1", "assert mult1 < 100", "print(f'Value: {mult2}')", "copy_mult2 = mult2 * 0.5"]
        );
        let f = Family { prefix: "key", label: "keys", bank: Bank::Str };
        let codes: Vec<String> = example_rules(&f).rules.iter().map(|r| r.req.code()).collect();
        assert_eq!(codes, ["# NOTE: key1", "assert key1 != 'A'", "print(f'{key2} ok')", "copy_key2 = '7' + key2"]);
        assert_eq!(python::expr(&fold(vec![Expr::name("a"), Expr::name("b")], Op::Mult, Expr::name("x"))), "a * b * x");
    }
}
