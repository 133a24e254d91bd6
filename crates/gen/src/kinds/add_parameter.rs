//! Add a parameter (generation.md §3.2): the root of C_edit already takes `mult` / `prefix`; pass it
//! down the edit graph by keyword and apply it only in the terminal functions.

mod runtime;

use super::graph_kind::instructions::IndexedKind;
use super::graph_kind::program::{all_plain, call_line, map_calls, module_all, replace_return, returned};
use super::graph_kind::statement::{words, Example, Named};
use super::graph_kind::{self, Built, Ctx, GraphKind, AXES};
use super::{Kind, Role, TaskKind};
use crate::domain::DomainInfo;
use crate::graph::{Join, Part};
use crate::kinds::Level;
use crate::python::{Expr, Param};
use crate::spec::{Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::Generated;

// (Only the instruction-following axis, which the app leaves to the `gen` module, reaches it.)
#[cfg_attr(not(feature = "gen-extra"), allow(dead_code))]
mod instructions;

pub struct AddParameter;

/// The `mylibrary` function that gives the parameter's default.
const LIBRARY: &str = "default";

/// The parameter's name in a domain: a multiplier of floats and arrays, a prefix of strings.
pub fn param(d: Domain) -> &'static str {
    match d {
        Domain::Math | Domain::Array => "mult",
        Domain::String => "prefix",
    }
}

impl TaskKind for AddParameter {
    fn kind(&self) -> Kind {
        Kind::AddParameter
    }
    fn label(&self) -> &'static str {
        "Add a parameter"
    }
    fn domains(&self) -> Support<Domain> {
        Support::Only(Domain::ALL)
    }
    fn axes(&self) -> Support<Axis> {
        Support::Only(AXES)
    }
    fn validate(&self, spec: &TaskSpec) -> Result<(), SpecError> {
        graph_kind::validate(self, spec)
    }
    fn generate(&self, spec: &TaskSpec) -> Result<Generated, SpecError> {
        graph_kind::generate(self, spec)
    }
    fn library(&self, _: Domain) -> Option<&'static str> {
        Some(LIBRARY)
    }
    fn added_parameter(&self, d: Domain) -> Option<(&'static str, &'static str)> {
        Some((param(d), "default()"))
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("required_parameter", Level::Must), ("parameter_passed", Level::Must), ("library_calls", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["behavioral"]
    }
    fn scorer_rule(&self, d: Domain) -> String {
        format!(
            "`{}` (defaulting to `{LIBRARY}()`) is passed by keyword to every function below its root, and only \
             terminal functions use it",
            param(d)
        )
    }
    fn graph(&self) -> Option<&dyn GraphKind> {
        Some(self)
    }
}

impl GraphKind for AddParameter {
    /// P = root r + E; "above" main nodes call r, "below" main nodes call edit nodes.
    fn join(&self, j: &mut Join) {
        let e = j.edit_dag();
        let edit_nodes = j.splice(&e, |names, i| names.edit(i));
        let base = j.n_main();
        let r = j.add_special(j.names.param_root());
        for u in e.sources() {
            j.add_edge(r, base + u);
        }
        let (above, below) = j.cut();
        j.attach(&[r], &above, false);
        j.attach(&edit_nodes, &below, false);
    }

    /// The root already has the parameter; every edit function takes it, passes it to edited
    /// callees by keyword, and only the terminals apply it.
    fn transform(&self, cx: &Ctx) -> Built {
        let g = cx.graph;
        let d = cx.domain;
        let p = param(d.domain);
        let n = g.len();
        let in_f: Vec<bool> = (0..n).map(|v| g.part(v) != Part::Init).collect();
        let terminal: Vec<bool> = (0..n).map(|v| g.part(v) == Part::Edit && g.out_degree(v) == 0).collect();
        let param = || Param::with_default(p, d.scalar_ty, Expr::call("default", vec![]));
        let mut starter = all_plain(cx);
        starter[g.special].params.push(param());
        let mut reference = all_plain(cx);
        let kw = [(p.to_string(), Expr::name(p))];
        for v in (0..n).filter(|&v| in_f[v]) {
            let f = &mut reference[v];
            f.params.push(param());
            map_calls(g, v, f, |c| in_f[c].then(|| call_line(g, c, &[], &[], &kw)));
            if terminal[v] {
                let x = returned(f);
                replace_return(f, d.apply(p, x));
            }
        }
        let roles = (0..n)
            .map(|v| {
                if v == g.special {
                    Role::Root
                } else if terminal[v] {
                    Role::EditLeaf
                } else if in_f[v] {
                    Role::Edit
                } else {
                    Role::Untouched
                }
            })
            .collect();
        Built {
            starter: module_all(cx, Some(LIBRARY), starter),
            reference: module_all(cx, Some(LIBRARY), reference),
            roles,
        }
    }

    /// c has the parameter; c → d, e; d → f; e → f; the untouched b also calls e.
    fn example(&self) -> Example {
        Example {
            nodes: &[
                ("a", Part::Init),
                ("b", Part::Init),
                ("c", Part::Special),
                ("d", Part::Edit),
                ("e", Part::Edit),
                ("f", Part::Edit),
            ],
            edges: &[("a", "b"), ("a", "c"), ("c", "d"), ("c", "e"), ("d", "f"), ("e", "f"), ("b", "e")],
            main_root: "a",
            special: "c",
            excluded: &[],
        }
    }

    fn example_note(&self, named: &Named, _: &DomainInfo) -> String {
        format!(
            "{} had the parameter; {} gain it, and only the terminal {} uses it. {} keep calling without it.",
            named.role(Role::Root),
            named.any(&[Role::Edit, Role::EditLeaf]),
            named.role(Role::EditLeaf),
            named.role(Role::Untouched)
        )
    }

    fn indexed(&self) -> Option<&dyn IndexedKind> {
        // (None in a build without the instructions axis, which then never asks.)
        #[cfg(feature = "gen-extra")]
        return Some(&instructions::Indexed);
        #[cfg(not(feature = "gen-extra"))]
        None
    }

    fn runtime(&self) -> &'static dyn crate::kinds::graph_kind::runtime::RuntimeKind {
        &runtime::Runtime
    }

    fn rules(&self, d: &DomainInfo) -> String {
        let (p, pt) = (param(d.domain), d.scalar_ty);
        let w = words(d, p);
        format!(
            "Every function in `solution.py` works on {values}. One function already takes the parameter \
             `{p}: {pt}=default()`. Thread that parameter through the code below it:\n\n\
             1. A function that has `{p}` passes it to every function of `solution.py` it calls, as a keyword \
             argument: `c(val, {p}={p})`. Each such callee gains the parameter too, with the same default: \
             `{p}: {pt}=default()`.\n\
             2. Repeat for the callees, and their callees, until every function below the first one has the parameter.\n\
             3. Only terminal functions use it. A terminal function calls no function of `solution.py` (library calls \
             are fine); it must {apply}, where `X` is the value it returned before. Functions in between pass `{p}` \
             on and do not use it.\n\
             4. Do not touch functions above the one that first had the parameter, nor other callers of the functions \
             you change: they keep calling without `{p}` and get the default.\n\
             5. Never rely on the default inside the chain: always pass `{p}` explicitly.",
            values = w.values,
            apply = w.apply
        )
    }
}
