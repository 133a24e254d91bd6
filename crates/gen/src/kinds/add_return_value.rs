//! Add a return value (generation.md §3.3): the sink of C_edit calls `external()`, which now returns
//! `(value, str)`; every function that depends on it returns the string too, all the way up.

mod runtime;

use super::graph_kind::instructions::IndexedKind;
use super::graph_kind::program::{all_plain, call_line, map_calls, module_all, replace_return, returned};
use super::graph_kind::statement::{words, Example, Named};
use super::graph_kind::{self, Built, Ctx, GraphKind, AXES};
use super::{Kind, Role, TaskKind};
use crate::domain::DomainInfo;
use crate::graph::{Join, Part};
use crate::kinds::Level;
use crate::python::{Expr, Function};
use crate::spec::{Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::Generated;

// (Only the instruction-following axis, which the app leaves to the `gen` module, reaches it.)
#[cfg_attr(not(feature = "gen-extra"), allow(dead_code))]
mod instructions;

pub struct AddReturnValue;

/// The `mylibrary` function whose result changed.
const LIBRARY: &str = "external";

impl TaskKind for AddReturnValue {
    fn kind(&self) -> Kind {
        Kind::AddReturnValue
    }
    fn label(&self) -> &'static str {
        "Add a return value"
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
    fn tuple_return(&self) -> Option<&'static str> {
        Some("tuple[T, str]")
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("library_calls", Level::Must), ("return_annotations", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["behavioral"]
    }
    fn scorer_rule(&self, _: Domain) -> String {
        format!("the string the sink gets from `{LIBRARY}()` travels up to the top as a second return value")
    }
    fn graph(&self) -> Option<&dyn GraphKind> {
        Some(self)
    }
}

impl GraphKind for AddReturnValue {
    /// R = E + sink s; edit nodes call "above" main nodes, s calls "below" ones.
    fn join(&self, j: &mut Join) {
        let e = j.edit_dag();
        let edit_nodes = j.splice(&e, |names, i| names.edit(i));
        let base = j.n_main();
        let s = j.add_special(j.names.return_sink());
        for u in e.sinks() {
            j.add_edge(base + u, s);
        }
        let (above, below) = j.cut();
        j.attach(&edit_nodes, &above, true);
        j.attach(&[s], &below, true);
    }

    /// The sink's `external()` now returns `(value, str)`; every function that uses it, directly or
    /// not, returns `(value, str)` too.
    fn transform(&self, cx: &Ctx) -> Built {
        let g = cx.graph;
        let d = cx.domain;
        let n = g.len();
        let s = g.special;
        let in_f: Vec<bool> = (0..n).map(|v| g.part(v) != Part::Init).collect();
        let wrap_external = |f: &mut Function| {
            let x = returned(f);
            replace_return(f, Expr::call(LIBRARY, vec![x]));
        };
        let mut starter = all_plain(cx);
        wrap_external(&mut starter[s]);
        let mut reference = all_plain(cx);
        let tuple_ty = format!("tuple[{}, str]", d.ty);
        for v in (0..n).filter(|&v| in_f[v]) {
            let f = &mut reference[v];
            f.returns = Some(tuple_ty.clone());
            if v == s {
                wrap_external(f);
                continue;
            }
            map_calls(g, v, f, |c| in_f[c].then(|| call_line(g, c, &[format!("{}_str", g.name(c))], &[], &[])));
            // Every edit function reaches the sink, so one of its callees is in the edit graph.
            let Some(first) = g.children(v).into_iter().find(|&c| in_f[c]) else { continue };
            let x = returned(f);
            replace_return(f, Expr::Tuple(vec![x, Expr::Name(format!("{}_str", g.name(first)))]));
        }
        let roles = (0..n)
            .map(|v| {
                if v == s {
                    Role::Sink
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

    /// b → c, f; c and f → d (the sink calling external); d → e (untouched).
    fn example(&self) -> Example {
        Example {
            nodes: &[
                ("a", Part::Init),
                ("e", Part::Init),
                ("b", Part::Edit),
                ("c", Part::Edit),
                ("f", Part::Edit),
                ("d", Part::Special),
            ],
            edges: &[("a", "e"), ("b", "c"), ("b", "f"), ("c", "d"), ("f", "d"), ("d", "e")],
            main_root: "a",
            special: "d",
            excluded: &[],
        }
    }

    fn example_note(&self, named: &Named, _: &DomainInfo) -> String {
        format!(
            "{} calls `external()`; {} depend on it and now return the key too; {} do not and stay as they were.",
            named.role(Role::Sink),
            named.role(Role::Edit),
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
        let t = d.ty;
        format!(
            "Every function in `solution.py` works on {values}. The library function `external()` has changed: it \
             now returns a pair `(value, key)`, the value it is given and a `str` key.\n\n\
             1. Every function whose result depends on `external()`, directly or through the functions it calls, must \
             return a tuple `(value, key)` annotated `tuple[{t}, str]`: the value it computed before, then the key.\n\
             2. A function that calls such a function unpacks the pair, `b_val, b_str = b(val)`, computes its value \
             from `b_val` exactly as before, and returns `(X, b_str)`.\n\
             3. When several keys reach a function, return any one of them; they are all equal.\n\
             4. Functions whose result does not depend on `external()` stay exactly as they are.",
            values = words(d, "").values
        )
    }
}
