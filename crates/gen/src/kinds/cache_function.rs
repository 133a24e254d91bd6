//! Cache a function call (generation.md §3.4): the leaves of a tree T call `slow()`; call it once in
//! their lowest common ancestor, store it in `temp` and pass it down.

mod runtime;

use super::graph_kind::instructions::IndexedKind;
use super::graph_kind::program::{all_plain, call_line, map_calls, module_all, replace_return, returned};
use super::graph_kind::statement::{words, Example, Named};
use super::graph_kind::{self, Built, Ctx, GraphKind, AXES};
use super::{Kind, Role, TaskKind};
use crate::domain::DomainInfo;
use crate::graph::{Join, Part};
use crate::kinds::Level;
use crate::spec::{Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::Generated;
use crate::{
    python,
    python::{Expr, Op, Param, Stmt},
};

// (Only the instruction-following axis, which the app leaves to the `gen` module, reaches it.)
#[cfg_attr(not(feature = "gen-extra"), allow(dead_code))]
mod instructions;

pub struct CacheFunction;

/// The expensive `mylibrary` function.
pub const LIBRARY: &str = "slow";
/// The cached value's name (a local in the ancestor, a parameter below it).
pub const TEMP: &str = "temp";

/// The default of the `temp` parameter: the zero of the domain's scalar, as written in the reference
/// and as the rubric states it.
fn temp_default(d: Domain) -> (Expr, &'static str) {
    match d {
        Domain::Math | Domain::Array => (Expr::Float(0.0), "0.0"),
        Domain::String => (Expr::Str(String::new()), "''"),
    }
}

impl TaskKind for CacheFunction {
    fn kind(&self) -> Kind {
        Kind::CacheFunction
    }
    fn label(&self) -> &'static str {
        "Cache a function call"
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
        Some((TEMP, temp_default(d).1))
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("required_parameter", Level::Must), ("parameter_passed", Level::Must), ("library_calls", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["behavioral"]
    }
    fn scorer_rule(&self, _: Domain) -> String {
        format!(
            "`{LIBRARY}()` is called exactly once, in the lowest common ancestor, and the value passed down as `{TEMP}`"
        )
    }
    fn graph(&self) -> Option<&dyn GraphKind> {
        Some(self)
    }
}

impl GraphKind for CacheFunction {
    fn min_edit(&self) -> (u32, &'static str) {
        (2, "a tree with two roots")
    }

    /// C = root c + T; "above" main nodes call c, tree leaves call "below" main nodes.
    fn join(&self, j: &mut Join) {
        let t = j.tree();
        let base = j.n_main();
        let leaves: Vec<usize> = t.sinks().into_iter().map(|u| base + u).collect();
        let roots: Vec<usize> = t.levels[0].iter().map(|&u| base + u).collect();
        j.splice(&t, |names, i| names.tree(i));
        let c = j.add_special(j.names.cache_root());
        for &u in &roots {
            j.add_edge(c, u);
        }
        let (above, below) = j.cut();
        j.attach(&[c], &above, false);
        j.attach(&leaves, &below, true);
    }

    /// The tree's leaves call `slow()`; the reference calls it once in the lowest common ancestor
    /// and passes `temp` down to the tree functions.
    fn transform(&self, cx: &Ctx) -> Built {
        let g = cx.graph;
        let d = cx.domain;
        let n = g.len();
        let c = g.special;
        let tree: Vec<bool> = (0..n).map(|v| g.part(v) == Part::Edit).collect();
        let leaf: Vec<bool> = (0..n).map(|v| tree[v] && !g.children(v).iter().any(|&k| tree[k])).collect();
        let slow_plus = |x: Expr, by: Expr| Expr::bin(by, Op::Add, x);
        let mut starter = all_plain(cx);
        for v in (0..n).filter(|&v| leaf[v]) {
            let x = returned(&starter[v]);
            replace_return(&mut starter[v], slow_plus(x, Expr::call(LIBRARY, vec![])));
        }
        let mut reference = all_plain(cx);
        for v in (0..n).filter(|&v| tree[v] || v == c) {
            let f = &mut reference[v];
            map_calls(g, v, f, |k| tree[k].then(|| call_line(g, k, &[], &[Expr::name(TEMP)], &[])));
            if v == c {
                f.body.insert(
                    0,
                    Stmt::AnnAssign {
                        target: TEMP.into(),
                        ann: d.scalar_ty.into(),
                        value: Expr::call(LIBRARY, vec![]),
                    },
                );
            } else {
                f.params.push(Param::with_default(TEMP, d.scalar_ty, temp_default(d.domain).0));
            }
            if leaf[v] {
                let x = returned(f);
                replace_return(f, slow_plus(x, Expr::name(TEMP)));
            }
        }
        let roles = (0..n)
            .map(|v| {
                if v == c {
                    Role::Lca
                } else if leaf[v] {
                    Role::EditLeaf
                } else if tree[v] {
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

    /// a → b (the LCA) → c, d; c → e; e and d call slow(); e also calls the untouched g.
    fn example(&self) -> Example {
        Example {
            nodes: &[
                ("a", Part::Init),
                ("g", Part::Init),
                ("b", Part::Special),
                ("c", Part::Edit),
                ("d", Part::Edit),
                ("e", Part::Edit),
            ],
            edges: &[("a", "g"), ("a", "b"), ("b", "c"), ("b", "d"), ("c", "e"), ("e", "g")],
            main_root: "a",
            special: "b",
            excluded: &[],
        }
    }

    fn example_note(&self, named: &Named, _: &DomainInfo) -> String {
        format!(
            "{} call `slow()`; their lowest common ancestor is {}, which calls it once. `a()` also reaches them but is \
             higher, so it stays as it was, and so does everything that does not lead to a caller of `slow()`.",
            named.role(Role::EditLeaf),
            named.role(Role::Lca)
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
        let pt = d.scalar_ty;
        format!(
            "Every function in `solution.py` works on {values}. Several functions call `slow()`, which is expensive \
             and always returns the same value. Call it exactly once, in the lowest common ancestor of the functions \
             that call it, and hand the value down.\n\n\
             - Function `f` is the lowest common ancestor of `g_1, …, g_k` when `f` is each `g_i` or calls it (directly \
             or through other functions), and no function that `f` calls (directly or not) is also such a common \
             ancestor. A higher ancestor, such as one of the functions `main()` calls, is wrong.\n\
             - In the lowest common ancestor, store the result first: `temp: {pt} = slow()`.\n\
             - Pass `temp` down as an extra positional argument, `c(val, temp)`, only to the functions on the way to \
             the callers of `slow()`; each gains the parameter `temp: {pt}={default}`. Do not pass it past them.\n\
             - Where a function called `slow()`, it uses `temp` instead.\n\
             - Global variables are not allowed.",
            values = words(d, "").values,
            default = python::expr(&temp_default(d.domain).0)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stated_default_is_the_written_one() {
        for &d in Domain::ALL {
            let (e, text) = temp_default(d);
            assert_eq!(python::expr(&e), text);
        }
    }
}
