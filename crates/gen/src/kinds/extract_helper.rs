//! Don't repeat yourself (generation.md §3.5): the top functions of a reversed tree each call the
//! domain's helper (`get_multiplier` / `get_key`); call it once in their nearest common descendant
//! and return the value up.

mod runtime;

use super::graph_kind::instructions::IndexedKind;
use super::graph_kind::program::{all_plain, call_line, map_calls, module_all, replace_return, returned};
use super::graph_kind::statement::{words, Example, Named};
use super::graph_kind::{self, Built, Ctx, GraphKind, AXES};
use super::{Kind, Role, TaskKind};
use crate::domain::DomainInfo;
use crate::graph::sample::Layered;
use crate::graph::{Join, Part};
use crate::kinds::Level;
use crate::python::{Expr, Op, Stmt};
use crate::spec::{Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::Generated;

// (Only the instruction-following axis, which the app leaves to the `gen` module, reaches it.)
#[cfg_attr(not(feature = "gen-extra"), allow(dead_code))]
mod instructions;

pub struct ExtractHelper;

/// The `mylibrary` helper the top functions repeat, per domain.
pub fn helper(d: Domain) -> &'static str {
    match d {
        Domain::Math | Domain::Array => "get_multiplier",
        Domain::String => "get_key",
    }
}

/// The name of the helper's value: a multiplier of floats and arrays, a prefix of strings.
pub fn value(d: Domain) -> &'static str {
    match d {
        Domain::Math | Domain::Array => "mult",
        Domain::String => "prefix",
    }
}

impl TaskKind for ExtractHelper {
    fn kind(&self) -> Kind {
        Kind::ExtractHelper
    }
    fn label(&self) -> &'static str {
        "Don't repeat yourself"
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
    fn library(&self, d: Domain) -> Option<&'static str> {
        Some(helper(d))
    }
    fn tuple_return(&self) -> Option<&'static str> {
        Some("tuple[T, H]")
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("library_calls", Level::Must), ("return_annotations", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["behavioral"]
    }
    fn scorer_rule(&self, d: Domain) -> String {
        format!(
            "`{}()` is called once, in the nearest common descendant, and its value returned up as `{}`",
            helper(d),
            value(d)
        )
    }
    fn graph(&self) -> Option<&dyn GraphKind> {
        Some(self)
    }
}

impl GraphKind for ExtractHelper {
    fn min_edit(&self) -> (u32, &'static str) {
        (2, "a tree with two roots")
    }

    /// X = reverse(T) + sink x; "above" main nodes call the original leaves, x calls "below" main
    /// nodes.
    fn join(&self, j: &mut Join) {
        let t = j.tree();
        let base = j.n_main();
        let leaves: Vec<usize> = t.sinks().into_iter().map(|u| base + u).collect();
        let roots: Vec<usize> = t.levels[0].iter().map(|&u| base + u).collect();
        let mut edges: Vec<(usize, usize)> = t.edges.iter().map(|&(u, v)| (v, u)).collect();
        edges.sort_by_key(|&(s, _)| s);
        let reversed = Layered { n: t.n, levels: t.levels.clone(), edges };
        j.splice(&reversed, |names, i| names.tree(i));
        let x = j.add_special(j.names.extract_sink());
        for &u in &roots {
            j.add_edge(u, x);
        }
        let (above, below) = j.cut();
        j.attach(&leaves, &above, false);
        j.attach(&[x], &below, true);
    }

    /// The top functions each call the helper; the reference calls it once in the nearest common
    /// descendant and returns it up as a second tuple element.
    fn transform(&self, cx: &Ctx) -> Built {
        let g = cx.graph;
        let d = cx.domain;
        let (h, p) = (helper(d.domain), value(d.domain));
        let n = g.len();
        let x = g.special;
        let in_x: Vec<bool> = (0..n).map(|v| g.part(v) != Part::Init).collect();
        let top: Vec<bool> = (0..n).map(|v| in_x[v] && v != x && !g.parents(v).iter().any(|&p| in_x[p])).collect();
        let helper_line = || Stmt::AnnAssign {
            target: p.into(),
            ann: d.scalar_ty.into(),
            value: Expr::call(h, vec![Expr::name("val")]),
        };
        let mut starter = all_plain(cx);
        for v in (0..n).filter(|&v| top[v]) {
            let f = &mut starter[v];
            f.body.insert(0, helper_line());
            let e = returned(f);
            replace_return(f, d.apply(p, e));
        }
        let mut reference = all_plain(cx);
        let tuple_ty = format!("tuple[{}, {}]", d.ty, d.scalar_ty);
        for v in (0..n).filter(|&v| in_x[v]) {
            let f = &mut reference[v];
            let e = returned(f);
            if v == x {
                f.body.insert(0, helper_line());
            } else {
                map_calls(g, v, f, |k| in_x[k].then(|| call_line(g, k, &[p.to_string()], &[], &[])));
            }
            if top[v] {
                replace_return(f, d.apply(p, e));
            } else {
                f.returns = Some(tuple_ty.clone());
                replace_return(f, Expr::Tuple(vec![e, Expr::name(p)]));
            }
        }
        let roles = (0..n)
            .map(|v| {
                if v == x {
                    Role::Ncd
                } else if top[v] {
                    Role::EditLeaf
                } else if in_x[v] {
                    Role::Edit
                } else {
                    Role::Untouched
                }
            })
            .collect();
        Built { starter: module_all(cx, Some(h), starter), reference: module_all(cx, Some(h), reference), roles }
    }

    /// a → c; c and d call the helper; c → e → f; d → f (the nearest common descendant); f → g.
    fn example(&self) -> Example {
        Example {
            nodes: &[
                ("a", Part::Init),
                ("g", Part::Init),
                ("c", Part::Edit),
                ("d", Part::Edit),
                ("e", Part::Edit),
                ("f", Part::Special),
            ],
            edges: &[("a", "g"), ("a", "c"), ("c", "e"), ("e", "f"), ("d", "f"), ("f", "g")],
            main_root: "a",
            special: "f",
            excluded: &[],
        }
    }

    fn example_note(&self, named: &Named, d: &DomainInfo) -> String {
        format!(
            "{} called `{}(val)`; their nearest common descendant is {}. `g()` is also reached by both but lies deeper, so it \
             stays as it was.",
            named.role(Role::EditLeaf),
            helper(d.domain),
            named.role(Role::Ncd)
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
        let (t, pt) = (d.ty, d.scalar_ty);
        let (h, p) = (helper(d.domain), value(d.domain));
        let w = words(d, p);
        format!(
            "Every function in `solution.py` works on {values}. Several functions each compute \
             `{p}: {pt} = {h}(val)` and {apply}. Compute it once instead, in their nearest common descendant, and \
             return it up.\n\n\
             - Function `f` is the nearest common descendant of `g_1, …, g_k` when each `g_i` is `f` or calls it \
             (directly or through other functions), and `f` calls no other function that is also such a common \
             descendant. A deeper function that all of them also reach is wrong.\n\
             - The nearest common descendant starts with `{p}: {pt} = {h}(val)` and returns `(X, {p})`, annotated \
             `tuple[{t}, {pt}]`.\n\
             - Every function between it and the original callers returns `(X, {p})` too, annotated \
             `tuple[{t}, {pt}]`, after unpacking its call: `c_val, {p} = c(val)`.\n\
             - The original callers unpack the same way, drop their own `{h}` call, keep their annotation and still \
             return {apply_short}.\n\
             - Never move the call into a function that calls them.",
            values = w.values,
            apply = w
                .apply
                .replace("multiply by it", "multiply their result by it")
                .replace("prepend it", "prepend it to their result"),
            apply_short = match d.combine {
                Op::Mult => format!("`{p} * X`"),
                Op::Add => format!("`{p} + X`"),
                Op::Sub => format!("`{p} - X`"),
                Op::Div => format!("`{p} / X`"),
            },
        )
    }
}
