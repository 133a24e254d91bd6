//! Problem statements of the call-graph kinds (decision D10): written for Cabrito, stating the rules
//! of generation.md §6. Each carries a worked example that the kind's own transform builds from a
//! tiny fixed graph in the task's domain, so the example can never disagree with the rules or the
//! grader. The kind supplies the rules, the graph and the sentence after the example; this module
//! assembles them with the rules every answer follows.

use super::{draw_ops, runtime, Ctx, GraphKind};
use crate::axes::runtime::guard::Trajectory;
use crate::axes::runtime::Shape;
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

impl<'a> Named<'a> {
    pub fn new(graph: &'a CallGraph, roles: &'a [Role]) -> Named<'a> {
        Named { graph, roles }
    }
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

/// The guards of the runtime axis's worked examples: one call of three steps, two branches.
const EXAMPLE_SHAPE: Shape = Shape { hops: 3, branches: 2, breadth: 1, depth: 3 };

/// The worked example of a kind in a domain on an axis: (before, after, what happened) — the programs
/// as Python source and a sentence naming the example's functions by role (on the runtime axis, with
/// the branch that runs in each function and one guard worked out).
pub fn worked_example(k: &dyn GraphKind, d: &DomainInfo, axis: Axis) -> (String, String, String) {
    let ex = k.example();
    let g = CallGraph::from_edges(ex.nodes, ex.edges, ex.main_root, ex.special, ex.excluded);
    let key = "cabrito-worked-example";
    let ops = draw_ops(key, d, &g);
    // Examples keep alphabetical order so they read top-down.
    let mut order: Vec<usize> = (0..g.len()).collect();
    order.sort_by(|&a, &b| g.name(a).cmp(g.name(b)));
    let bodies = match axis.def().bodies(&crate::TaskSpec::new(k.kind(), d.domain, axis, 3, 0)) {
        Bodies::Plain => Bodies::Plain,
        Bodies::Branched(_) => Bodies::Branched(EXAMPLE_SHAPE),
    };
    let cx = Ctx { graph: &g, domain: d, ops: &ops, order: &order, bodies };
    let mut built = k.transform(&cx);
    // (A build without the comment axis never writes a comment statement: `generate` stops first.)
    if axis.def().copies_comment() && crate::task::require(crate::task::Extra::Comment).is_ok() {
        super::comment::annotate(&mut built, &g, super::comment::EXAMPLE_COMMENT);
    }
    let mut why = String::new();
    // (A build without the runtime axis never writes a runtime statement: `generate` stops first.)
    if let (Bodies::Branched(shape), Ok(())) = (bodies, crate::task::require(crate::task::Extra::Runtime)) {
        let record = runtime::branch(k.runtime(), &cx, key, shape, &mut built);
        why = branches_note(&record);
    }
    let note = k.example_note(&Named { graph: &g, roles: &built.roles }, d);
    why = if why.is_empty() { note } else { format!("{why}\n\n{note}") };
    (python::module(&built.starter), python::module(&built.reference), why)
}

/// Which branch runs in each function of a runtime example, with the first guard worked out.
fn branches_note(r: &crate::axes::runtime::Record) -> String {
    let mut sides: Vec<String> = Vec::new();
    for f in &r.functions {
        sides.push(format!("`{}()` runs {}", f.name, f.describe()));
    }
    let mut out = format!("Here {}.", sides.join(", "));
    if let Some(call) = r.functions.first().and_then(|f| f.guards.first()).and_then(|g| g.calls.first()) {
        let mut t = Trajectory::new(call.x, call.a, call.b);
        let mut values = vec![t.value().to_string()];
        for _ in 0..call.steps {
            t.step();
            values.push(t.value().to_string());
        }
        let parity = u8::from(t.odd());
        out.push_str(&format!(
            " For instance `{}` runs {} and ends {}, so it is {} (target {}).",
            call.source(),
            values.join(" → "),
            if parity == 1 { "odd (1)" } else { "even (0)" },
            if parity == call.target { "True" } else { "False" },
            call.target
        ));
    }
    out
}

/// The rules every answer follows.
pub(crate) fn restrictions(library: Option<&str>, d: &DomainInfo) -> String {
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
    if axis.def().copies_comment() && crate::task::require(crate::task::Extra::Comment).is_ok() {
        rules.push_str("\n\n");
        rules.push_str(&super::comment::rule());
    }
    if let Bodies::Branched(_) = axis.def().bodies(&crate::TaskSpec::new(k.kind(), d.domain, axis, 3, 0)) {
        rules = format!("{rules}\n\n{}\n{}", runtime::common_rule(), k.runtime().rule(d));
    }
    format!(
        "Refactor `solution.py`: {title}.\n\n{rules}\n\nA worked example. This code:\n<example>\n{before}\n</example>\n\n\
         becomes:\n<output>\n{after}\n</output>\n\n{why}\n\n{restrictions}",
        title = k.label().to_ascii_lowercase(),
        restrictions = restrictions(k.library(d.domain), d),
    )
}
