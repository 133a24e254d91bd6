//! Instruction following (generation.md §4.4): a kind's refactoring carried out over several indexed
//! values at once (`mult1 … mult10`), obeying `n` numbered requirements (comments, asserts, prints,
//! temporary copies) in a prescribed order. Both graphs have 10 functions.
//!
//! Here: the rule bank ([`bank`]), the drawing of requirements and conditions ([`sample`]), and a
//! task's requirements ([`RuleSet`], also the record's `metadata`). What a kind does with the values
//! is in `kinds/<kind>/instructions.rs`; the pipeline in `kinds/graph_kind/instructions.rs`.

pub mod bank;
pub mod sample;

use super::{AxisDef, Grows};
use crate::decimal::short;
use crate::graph::{dag_key, CallGraph};
use crate::kinds::Level;
use crate::python::Stmt;
use crate::rng::stream;
use crate::spec::{Domain, GraphSizes, TaskSpec};
pub use bank::{Bank, Category, Requirement, RuleKind};
pub use sample::{Condition, Place};

pub struct Instructions;

/// The graph sizes of the paper's instruction-following tasks.
const SIZE: u32 = 10;

/// The default number of indexed values (the paper's `num_params`).
pub const DEFAULT_VALUES: u32 = 10;
/// The most values a task may have.
pub const MAX_VALUES: u32 = 50;

impl AxisDef for Instructions {
    fn extra(&self) -> Option<crate::task::Extra> {
        Some(crate::task::Extra::Instructions)
    }
    fn label(&self) -> &'static str {
        "instruction following"
    }
    fn experiment(&self) -> &'static str {
        "add_instructions"
    }
    fn scales(&self) -> &'static str {
        "n requirements (comments, asserts, prints, temporary copies) to obey in every function that carries the \
         values; 10 functions to edit, 10 untouched"
    }
    fn grows(&self) -> Grows {
        Grows::Neither
    }
    fn fixed_size(&self) -> u32 {
        SIZE
    }
    fn max_n(&self) -> u32 {
        // What the default ten values can carry (fewer values carry fewer: `validate` says so).
        u32::try_from(capacity(DEFAULT_VALUES)).unwrap_or(u32::MAX)
    }
    fn run_sizes(&self, s: &GraphSizes) -> String {
        // The reference's instruction runs size both graphs with one `n`.
        if s.n_init == s.n_edit {
            format!("n=({},{})", s.n_init, s.n_init)
        } else {
            format!("cn=({},{})_en=({},{})", s.n_init, s.n_init, s.n_edit, s.n_edit)
        }
    }
    fn run_suffix(&self, spec: &TaskSpec) -> String {
        // The share as a fraction, one decimal at least (`0.0`, `0.3`, `0.25`), as the reference names it.
        let share = f64::from(spec.conditional) / 100.0;
        let cp = if spec.conditional.is_multiple_of(10) { format!("{share:.1}") } else { short(share) };
        format!("_nc=({n},{n})_cp=({cp},{cp})", n = spec.n)
    }
    fn run_n(&self, run: &str) -> Option<f64> {
        crate::experiment::range_after(run, "_nc=")
    }
    fn task_set(&self, domain: Domain) -> String {
        match domain {
            Domain::Math => "math_mult_constraints".into(),
            Domain::String => "string_constraints".into(),
            Domain::Array => "array_constraints".into(),
        }
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("constraint_structure", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["constraint_structure"]
    }
    fn instructions(&self) -> bool {
        true
    }
    fn id_suffix(&self, spec: &TaskSpec) -> String {
        format!("|instructions|nc={}|values={}|conditional={}", spec.n, spec.values, spec.conditional)
    }
}

/// The names and words of a kind's values in a domain (generation.md §4.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Family {
    /// `mult`, `prefix`, `key`, `slow`: the values are `mult1 … multN`.
    pub prefix: &'static str,
    /// How the statement speaks of them (`mult parameters`).
    pub label: &'static str,
    pub bank: Bank,
}

impl Family {
    /// The name of value `i` (0-based): `mult1` for 0.
    pub fn name(&self, i: usize) -> String {
        format!("{}{}", self.prefix, i + 1)
    }
}

/// The key every draw of a task's requirements hangs from: its graphs' key (sizes and seed), `n` and
/// the number of values (not the kind or domain: as in the reference, one graph's tasks share their
/// requirements across the kinds whose values use the same bank).
pub fn rules_key(spec: &TaskSpec) -> String {
    format!("{}|instructions|nc={}|values={}", dag_key(spec), spec.n, spec.values)
}

/// The most requirements `values` values can carry (the string bank's capacity, the smaller).
pub fn capacity(values: u32) -> u64 {
    u64::from(values) * Bank::Str.capacity().min(Bank::Float.capacity()) as u64
}

/// One requirement of a task.
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    pub req: Requirement,
    /// Its number in the statement (1-based), when known (records Cabrito did not write lack it).
    pub number: Option<usize>,
    /// The condition on the functions it applies in (`None`: every eligible function).
    pub condition: Option<Condition>,
}

impl Rule {
    /// "requirement 17" or, without a number, the value's.
    pub fn label(&self) -> String {
        match self.number {
            Some(n) => format!("requirement {n}"),
            None => format!("the requirement on `{}`", self.req.var),
        }
    }
    /// The check description of the record (`check_desc`).
    pub fn check_desc(&self) -> String {
        match &self.condition {
            None => "In every eligible function,".into(),
            Some(c) => format!("In every eligible function {},", c.words()),
        }
    }
    /// The line of the statement's numbered list (without its number).
    pub fn sentence(&self) -> String {
        let desc = self.req.description();
        match &self.condition {
            None => format!("`{}`: {desc}", self.req.var),
            Some(c) => format!("`{}`, only in the functions {}: {desc}", self.req.var, c.words()),
        }
    }
    /// Does it apply in a function (one that carries the value)?
    pub fn applies(&self, place: &Place) -> bool {
        self.condition.as_ref().is_none_or(|c| c.holds(place))
    }
}

/// A task's requirements.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleSet {
    /// The values' names, in index order.
    pub names: Vec<String>,
    /// The requirements in drawing order.
    pub rules: Vec<Rule>,
    /// The `n` the task asked for.
    pub requested: usize,
}

impl RuleSet {
    /// Draw a task's requirements: `spec.n` of them over `spec.values` values of a family, numbered in
    /// a shuffled order, a `spec.conditional` percent share of them conditional on the eligible
    /// functions `places` (drawn per kind, so each condition splits this task's functions).
    pub fn draw(spec: &TaskSpec, family: &Family, places: &[Place]) -> RuleSet {
        let key = rules_key(spec);
        let bank_name = match family.bank {
            Bank::Float => "float",
            Bank::Str => "str",
        };
        let values = spec.values as usize;
        let draws =
            sample::draw(&mut stream(&key, &format!("rules/{bank_name}")), family.bank, values, spec.n as usize);
        let mut order: Vec<usize> = (0..draws.len()).collect();
        crate::graph::sample::shuffle(&mut stream(&key, &format!("rules/{bank_name}/order")), &mut order);
        let mut numbers = vec![0; draws.len()];
        for (pos, &i) in order.iter().enumerate() {
            numbers[i] = pos + 1;
        }
        let count = (draws.len() * spec.conditional as usize + 50) / 100;
        let conditions = sample::conditions(
            &mut stream(&format!("{key}|conditional={}", spec.conditional), &format!("rules/conditions/{}", spec.kind)),
            draws.len(),
            count,
            places,
        );
        let rules = draws
            .iter()
            .zip(conditions)
            .zip(numbers)
            .map(|((d, condition), number)| Rule {
                req: Requirement::new(d, family.bank, &family.name(d.value)),
                number: Some(number),
                condition,
            })
            .collect();
        RuleSet { names: (0..values).map(|i| family.name(i)).collect(), rules, requested: spec.n as usize }
    }

    /// The requirements in the statement's order (numbered ones by number, then the others).
    pub fn in_statement_order(&self) -> Vec<&Rule> {
        let mut v: Vec<&Rule> = self.rules.iter().collect();
        v.sort_by_key(|r| r.number.unwrap_or(usize::MAX));
        v
    }

    /// The requirements that apply in a function, in the prescribed order: comments, asserts, prints,
    /// temporaries; within each, values in index order and requirements in drawing order.
    pub fn applying(&self, place: &Place) -> Vec<&Rule> {
        let mut v: Vec<&Rule> = self.rules.iter().filter(|r| r.applies(place)).collect();
        v.sort_by_key(|r| (r.req.category(), r.req.value));
        v
    }

    /// The lines a function gets, in the prescribed order.
    pub fn lines(&self, place: &Place) -> Vec<Stmt> {
        self.applying(place).into_iter().map(|r| r.req.statement()).collect()
    }

    /// `mult1, mult2, … and mult10`.
    pub fn names_list(&self) -> String {
        match self.names.as_slice() {
            [] => String::new(),
            [one] => format!("`{one}`"),
            [init @ .., last] => {
                format!("{} and `{last}`", init.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
            }
        }
    }

    /// The record's `metadata`, shaped as the reference's (`num_values`, `num_constraint_rules`,
    /// `constraint_rules` per value, `num_constraints`); each rule also carries its number in the
    /// statement (`requirement`) and, when it has one, its `condition`.
    pub fn metadata(&self) -> serde_json::Value {
        let per_value: Vec<serde_json::Value> = self
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let rules: Vec<serde_json::Value> = self
                    .rules
                    .iter()
                    .filter(|r| r.req.value == i)
                    .map(|r| {
                        let mut j = serde_json::json!({
                            "check_key": r.condition.as_ref().map_or("all_functions", |c| c.key()),
                            "template_key": r.req.kind.key(),
                            "check_desc": r.check_desc(),
                            "template_desc": r.req.description(),
                            "values": r.req.values_json(),
                        });
                        if let Some(n) = r.number {
                            j["requirement"] = serde_json::json!(n);
                        }
                        if let Some(c) = &r.condition {
                            j["condition"] = c.to_json();
                        }
                        j
                    })
                    .collect();
                serde_json::json!({"var": name, "mult": name, "rules": rules})
            })
            .collect();
        serde_json::json!({
            "num_values": self.names.len(),
            "num_constraint_rules": self.rules.len(),
            "constraint_rules": per_value,
            "num_constraints": self.requested,
        })
    }

    /// A task's requirements from its record's `metadata` (the reference's or Cabrito's). Rules this
    /// bank does not know are skipped; `None` when the metadata holds no constraint rules at all.
    pub fn from_metadata(md: &serde_json::Value) -> Option<RuleSet> {
        let per_value = md.get("constraint_rules")?.as_array()?;
        let mut names = Vec::new();
        let mut rules = Vec::new();
        for (i, v) in per_value.iter().enumerate() {
            let var = v.get("var").and_then(|x| x.as_str()).unwrap_or("");
            names.push(var.to_string());
            for r in v.get("rules").and_then(|x| x.as_array()).into_iter().flatten() {
                let Some(req) = Requirement::from_json(var, i, r) else { continue };
                let number = r.get("requirement").and_then(|x| x.as_u64()).and_then(|x| usize::try_from(x).ok());
                let condition = r.get("condition").and_then(Condition::from_json);
                rules.push(Rule { req, number, condition });
            }
        }
        let requested = md.get("num_constraints").and_then(|x| x.as_u64()).map_or(rules.len(), |x| x as usize);
        Some(RuleSet { names, rules, requested })
    }
}

/// The place of every vertex in a call graph: its name, how many functions of the file it calls and
/// how many call it (`main()` counts for the entries).
pub fn places(g: &CallGraph) -> Vec<Place> {
    let entries = g.entries();
    (0..g.len())
        .map(|v| {
            let mut kids = g.children(v);
            kids.sort();
            kids.dedup();
            let mut parents = g.parents(v);
            parents.sort();
            parents.dedup();
            Place {
                name: g.name(v).to_string(),
                callees: kids.len(),
                callers: parents.len() + usize::from(entries.contains(&v)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Axis, Kind};

    fn spec(n: u32, values: u32, conditional: u32) -> TaskSpec {
        let mut s = TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Instructions, n, 3);
        s.values = values;
        s.conditional = conditional;
        s
    }

    const FAMILY: Family = Family { prefix: "mult", label: "mult parameters", bank: Bank::Float };

    #[test]
    fn metadata_round_trips() {
        let places = vec![
            Place { name: "a".into(), callees: 0, callers: 1 },
            Place { name: "bc".into(), callees: 2, callers: 2 },
        ];
        let set = RuleSet::draw(&spec(40, 4, 50), &FAMILY, &places);
        assert_eq!(set.rules.len(), 40);
        assert_eq!(set.rules.iter().filter(|r| r.condition.is_some()).count(), 20);
        let back = RuleSet::from_metadata(&set.metadata()).unwrap();
        assert_eq!(back.names, set.names);
        assert_eq!(back.rules.len(), set.rules.len());
        for (a, b) in back.in_statement_order().iter().zip(set.in_statement_order()) {
            assert_eq!((a.req.code(), a.number, &a.condition), (b.req.code(), b.number, &b.condition));
        }
        let mut numbers: Vec<usize> = set.rules.iter().filter_map(|r| r.number).collect();
        numbers.sort();
        assert_eq!(numbers, (1..=40).collect::<Vec<_>>());
    }

    #[test]
    fn lines_come_in_the_prescribed_order() {
        let set = RuleSet::draw(&spec(60, 10, 0), &FAMILY, &[]);
        let p = Place { name: "q".into(), callees: 1, callers: 1 };
        let cats: Vec<(Category, usize)> = set.applying(&p).iter().map(|r| (r.req.category(), r.req.value)).collect();
        let mut sorted = cats.clone();
        sorted.sort();
        assert_eq!(cats, sorted);
        assert_eq!(cats.len(), 60);
    }

    #[test]
    fn run_suffixes() {
        assert_eq!(Instructions.run_suffix(&spec(200, 10, 0)), "_nc=(200,200)_cp=(0.0,0.0)");
        assert_eq!(Instructions.run_suffix(&spec(5, 10, 30)), "_nc=(5,5)_cp=(0.3,0.3)");
        assert_eq!(Instructions.run_suffix(&spec(5, 10, 25)), "_nc=(5,5)_cp=(0.25,0.25)");
    }
}
