//! Remove dead code (generation.md §3.1, §1.10): C_edit is never reached from `main()`; delete all of
//! it. The reference's pass rule adds `function_existence` (grading.md §4.2).

mod runtime;

use super::graph_kind::program::{all_plain, module, module_all};
use super::graph_kind::statement::{words, Example, Named};
use super::graph_kind::{self, Built, Ctx, GraphKind};
use super::{Kind, Role, TaskKind};
use crate::domain::DomainInfo;
use crate::graph::sample::{expected_count, sample};
use crate::graph::{Join, Part, BETA};
use crate::kinds::Level;
use crate::spec::{Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::Generated;

pub struct DeadCode;

impl TaskKind for DeadCode {
    fn kind(&self) -> Kind {
        Kind::DeadCode
    }
    fn label(&self) -> &'static str {
        "Remove dead code"
    }
    fn domains(&self) -> Support<Domain> {
        Support::Only(Domain::ALL)
    }
    fn axes(&self) -> Support<Axis> {
        // Not instruction following or comment copying: nothing is edited, only deleted.
        Support::Only(&[Axis::Traversal, Axis::Search, Axis::Runtime])
    }
    fn validate(&self, spec: &TaskSpec) -> Result<(), SpecError> {
        graph_kind::validate(self, spec)
    }
    fn generate(&self, spec: &TaskSpec) -> Result<Generated, SpecError> {
        graph_kind::generate(self, spec)
    }
    fn library(&self, _: Domain) -> Option<&'static str> {
        None
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("function_existence", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["behavioral", "function_existence"]
    }
    fn scorer_rule(&self, _: Domain) -> String {
        "every unreachable function is deleted and no reachable one is removed or changed".into()
    }
    fn graph(&self) -> Option<&dyn GraphKind> {
        Some(self)
    }
}

impl GraphKind for DeadCode {
    /// Dead code D = E + its wrapper root (which takes the parameter root's name); dead functions
    /// may call live ones, never the other way round.
    fn join(&self, j: &mut Join) {
        let e = j.edit_dag();
        let edit_nodes = j.splice(&e, |names, i| names.edit(i));
        let base = j.n_main();
        let d = j.add_special(j.names.param_root());
        for u in e.sources() {
            j.add_edge(d, base + u);
        }
        j.cg.excluded_entries = vec![d];
        let callable: Vec<usize> = (0..j.n_main()).filter(|&v| j.cg.in_degree(v) > 0).collect();
        let mut dead: Vec<usize> = edit_nodes;
        dead.push(d);
        for u in dead {
            let count = expected_count(&mut j.rng, BETA).min(callable.len());
            for v in sample(&mut j.rng, &callable, count) {
                j.add_edge(u, v);
            }
        }
    }

    /// The starter has every function; the reference drops C_edit and its root.
    fn transform(&self, cx: &Ctx) -> Built {
        let g = cx.graph;
        let n = g.len();
        let dead: Vec<bool> = (0..n).map(|v| g.part(v) != Part::Init).collect();
        let roles = (0..n).map(|v| if dead[v] { Role::Dead } else { Role::Untouched }).collect();
        Built { starter: module_all(cx, None, all_plain(cx)), reference: module(cx, None, all_plain(cx), &dead), roles }
    }

    /// a is live; e (dead root) → f → c: dead code may call live code.
    fn example(&self) -> Example {
        Example {
            nodes: &[("a", Part::Init), ("b", Part::Init), ("c", Part::Init), ("e", Part::Special), ("f", Part::Edit)],
            edges: &[("a", "b"), ("a", "c"), ("e", "f"), ("f", "c")],
            main_root: "a",
            special: "e",
            excluded: &["e"],
        }
    }

    fn example_note(&self, named: &Named, _: &DomainInfo) -> String {
        format!(
            "{} cannot be reached from `main()`, so they go, although one of them calls live code; {} stay as they were.",
            named.role(Role::Dead),
            named.role(Role::Untouched)
        )
    }

    fn runtime(&self) -> &'static dyn crate::kinds::graph_kind::runtime::RuntimeKind {
        &runtime::Runtime
    }

    fn rules(&self, d: &DomainInfo) -> String {
        format!(
            "Every function in `solution.py` works on {values}. Some functions can never run: no chain of calls that \
             starts in `main()` reaches them. Delete every one of those unreachable functions.\n\n\
             - A function is reachable only if `main()` calls it, or a reachable function calls it. Calling a reachable \
             function does not make a function reachable.\n\
             - Leave every reachable function exactly as it is.",
            values = words(d, "").values
        )
    }
}
