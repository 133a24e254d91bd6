//! Problem statements of the call-graph kinds (decision D10): written for Cabrito, stating the rules
//! of generation.md §6. Each carries a worked example that the kind's own transform builds from a
//! tiny fixed graph in the task's domain, so the example can never disagree with the rules or the
//! grader. The kind supplies the rules, the graph and the sentence after the example; this module
//! assembles them with the rules every answer follows.

use super::{draw_ops, Ctx, GraphKind};
use crate::axes::Bodies;
use crate::domain::DomainInfo;
use crate::graph::{CallGraph, Part};
use crate::kinds::{Kind, Role};
use crate::python;
use crate::spec::{Axis, Domain};

/// The tiny graph of a kind's worked example.
pub struct Example {
    pub nodes: &'static [(&'static str, Part)],
    pub edges: &'static [(&'static str, &'static str)],
    /// The untouched function `main()` calls.
    pub main_root: &'static str,
    /// The edit graph's wrapper.
    pub special: &'static str,
    /// Roots `main()` must not call.
    pub excluded: &'static [&'static str],
}

/// The worked example's functions by role, for the sentence after it.
pub struct Named<'a> {
    graph: &'a CallGraph,
    roles: &'a [Role],
}

impl Named<'_> {
    /// `` `b()`, `c()` and `d()` ``: the functions with any of these roles, in node order.
    pub fn any(&self, roles: &[Role]) -> String {
        let names: Vec<String> = (0..self.graph.len())
            .filter(|&v| roles.contains(&self.roles[v]))
            .map(|v| format!("`{}()`", self.graph.name(v)))
            .collect();
        match names.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    }
    /// The functions with this role.
    pub fn role(&self, role: Role) -> String {
        self.any(&[role])
    }
}

/// How statements speak of a domain's values.
pub struct Words {
    pub values: &'static str,
    /// How a scalar named `p` is applied to a value `X`, as a clause.
    pub apply: String,
}

pub fn words(d: &DomainInfo, p: &str) -> Words {
    match d.domain {
        Domain::Math => Words { values: "floats", apply: format!("multiply by it: `{p} * X`") },
        Domain::Array => Words {
            values: "numpy arrays (`np.ndarray`)",
            apply: format!("multiply by it: `{p} * X`, where `X` is an array and `{p}` a float"),
        },
        Domain::String => Words { values: "strings", apply: format!("prepend it: `{p} + X`") },
    }
}

/// The worked example of a kind in a domain: (before, after, what happened) — the programs as
/// Python source and a sentence naming the example's functions by role.
pub fn worked_example(k: &dyn GraphKind, d: &DomainInfo, axis: Axis) -> (String, String, String) {
    let ex = k.example();
    let g = CallGraph::from_edges(ex.nodes, ex.edges, ex.main_root, ex.special, ex.excluded);
    let ops = draw_ops("cabrito-worked-example", d, &g);
    // Examples keep alphabetical order so they read top-down.
    let mut order: Vec<usize> = (0..g.len()).collect();
    order.sort_by(|&a, &b| g.name(a).cmp(g.name(b)));
    let mut built = k.transform(&Ctx { graph: &g, domain: d, ops: &ops, order: &order, bodies: Bodies::Plain });
    if axis.def().copies_comment() {
        super::comment::annotate(&mut built, &g, super::comment::EXAMPLE_COMMENT);
    }
    let why = k.example_note(&Named { graph: &g, roles: &built.roles }, d);
    (python::module(&built.starter), python::module(&built.reference), why)
}

/// The rules every answer follows.
fn restrictions(library: Option<&str>, d: &DomainInfo) -> String {
    let lib = match (library, d.domain) {
        (None, Domain::String) => "The `strops` module is supplied when the code runs; do not define it.",
        (None, Domain::Math | Domain::Array) => "",
        (Some(_), Domain::String) => "`mylibrary` and `strops` are supplied when the code runs; do not define them.",
        (Some(_), Domain::Math | Domain::Array) => {
            "`mylibrary` and its functions are supplied when the code runs; do not define them."
        }
    };
    let mut out = String::from("Rules for every answer:\n");
    if !lib.is_empty() {
        out.push_str(&format!("- {lib}\n"));
    }
    out.push_str(
        "- Add no functions, imports or module-level variables; local variables inside functions are fine.\n\
         - Keep every function name.\n\
         - Leave `main()` and the `if __name__ == '__main__':` block unchanged.\n\
         - Follow the procedure exactly: extra parameters, extra return values or other changes are graded as wrong.",
    );
    out
}

/// The problem statement of a kind in a domain on an axis, as a model receives it; `comment` is the
/// task's comment on the comment-copying axis.
pub fn statement(k: &dyn GraphKind, d: &DomainInfo, axis: Axis, comment: Option<&str>) -> String {
    // A statement depends on the kind, the domain and the axis (and a task's comment, put in its
    // slot): build each once per process.
    const SLOTS: usize = Kind::ALL.len() * Domain::ALL.len() * Axis::ALL.len();
    static CACHE: [std::sync::OnceLock<String>; SLOTS] = [const { std::sync::OnceLock::new() }; SLOTS];
    let kind = Kind::ALL.iter().position(|&x| x == k.kind()).unwrap_or(0);
    let domain = Domain::ALL.iter().position(|&x| x == d.domain).unwrap_or(0);
    let a = Axis::ALL.iter().position(|&x| x == axis).unwrap_or(0);
    let slot = (kind * Domain::ALL.len() + domain) * Axis::ALL.len() + a;
    let cached = CACHE[slot].get_or_init(|| build_statement(k, d, axis));
    match comment {
        Some(c) => cached.replacen(super::comment::SLOT, c, 1),
        None => cached.clone(),
    }
}

fn build_statement(k: &dyn GraphKind, d: &DomainInfo, axis: Axis) -> String {
    let (before, after, why) = worked_example(k, d, axis);
    let mut rules = k.rules(d);
    if axis.def().copies_comment() {
        rules.push_str("\n\n");
        rules.push_str(&super::comment::rule());
    }
    format!(
        "Refactor `solution.py`: {title}.\n\n{rules}\n\nA worked example. This code:\n<example>\n{before}\n</example>\n\n\
         becomes:\n<output>\n{after}\n</output>\n\n{why}\n\n{restrictions}",
        title = k.label().to_lowercase(),
        restrictions = restrictions(k.library(d.domain), d),
    )
}
