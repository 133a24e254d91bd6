//! Don't repeat yourself over indexed values (generation.md §4.4.5): the top functions each compute
//! `multN = get_multiplier(val, N)` … `mult1` and return `mult1 * … * multN * X`; the nearest common
//! descendant computes them once and returns `(X, mult1, …, multN)` up. The requirement lines go where
//! all the values are first bound: after the helper calls, or after the unpacking call.

use super::super::graph_kind::instructions::{fold, names, tuple_of, tuple_type, values_words, IndexedKind};
use super::super::graph_kind::program::{all_plain, call_line, map_calls, module_all, replace_return, returned};
use super::super::graph_kind::statement::Named;
use super::super::graph_kind::{Built, Ctx, GraphKind};
use super::super::Role;
use super::{helper, ExtractHelper};
use crate::axes::instructions::{Bank, Family};
use crate::domain::DomainInfo;
use crate::graph::Part;
use crate::python::{Expr, Stmt};
use crate::spec::Domain;

pub struct Indexed;

impl IndexedKind for Indexed {
    fn family(&self, d: Domain) -> Family {
        match d {
            Domain::Math | Domain::Array => {
                Family { prefix: "mult", label: "extracted multipliers", bank: Bank::Float }
            }
            Domain::String => Family { prefix: "prefix", label: "extracted prefixes", bank: Bank::Str },
        }
    }

    fn transform(&self, cx: &Ctx, n: usize, lines: &dyn Fn(usize) -> Vec<Stmt>) -> Built {
        let g = cx.graph;
        let d = cx.domain;
        let h = helper(d.domain);
        let names = names(&self.family(d.domain), n);
        let count = g.len();
        let x = g.special;
        let in_x: Vec<bool> = (0..count).map(|v| g.part(v) != Part::Init).collect();
        let top: Vec<bool> = (0..count).map(|v| in_x[v] && v != x && !g.parents(v).iter().any(|&p| in_x[p])).collect();
        let helper_line = |i: usize| Stmt::AnnAssign {
            target: names[i].clone(),
            ann: d.scalar_ty.into(),
            value: Expr::call(h, vec![Expr::name("val"), Expr::Int(i as i64 + 1)]),
        };
        let scalars = || names.iter().map(|p| Expr::name(p)).collect::<Vec<_>>();
        let mut starter = all_plain(cx);
        for v in (0..count).filter(|&v| top[v]) {
            let f = &mut starter[v];
            // Inserted one by one at the top, as the reference does: the last index first.
            f.body.splice(0..0, (0..n).rev().map(helper_line));
            let e = returned(f);
            replace_return(f, fold(scalars(), d.combine, e));
        }
        let mut reference = all_plain(cx);
        let tuple_ty = tuple_type(d.ty, d.scalar_ty, n);
        for v in (0..count).filter(|&v| in_x[v]) {
            let f = &mut reference[v];
            let e = returned(f);
            if v == x {
                let mut head: Vec<Stmt> = (0..n).map(helper_line).collect();
                head.extend(lines(v));
                f.body.splice(0..0, head);
            } else {
                let mut unpacked = None;
                map_calls(g, v, f, |k| in_x[k].then(|| call_line(g, k, &names, &[], &[])));
                for (i, k) in g.children(v).into_iter().enumerate() {
                    if in_x[k] && unpacked.is_none() {
                        unpacked = Some(i);
                    }
                }
                let at = unpacked.map_or(0, |i| i + 1);
                f.body.splice(at..at, lines(v));
            }
            if top[v] {
                replace_return(f, fold(scalars(), d.combine, e));
            } else {
                f.returns = Some(tuple_ty.clone());
                replace_return(f, tuple_of(e, &names));
            }
        }
        Built {
            starter: module_all(cx, Some(h), starter),
            reference: module_all(cx, Some(h), reference),
            roles: ExtractHelper.transform(cx).roles,
        }
    }

    fn rules(&self, d: &DomainInfo, f: &Family) -> String {
        let (t, pt) = (d.ty, d.scalar_ty);
        let (h, p) = (helper(d.domain), f.prefix);
        let apply = match d.domain {
            Domain::Math | Domain::Array => format!("`{p}1 * {p}2 * … * {p}N * X`"),
            Domain::String => format!("`{p}1 + {p}2 + … + {p}N + X`"),
        };
        format!(
            "Every function in `solution.py` works on {values}. Several functions each compute N values \
             `{p}N: {pt} = {h}(val, N)`, …, `{p}1: {pt} = {h}(val, 1)` and return {apply}. Compute them once \
             instead, in their nearest common descendant, and return them up.\n\n\
             - Function `f` is the nearest common descendant of `g_1, …, g_k` when each `g_i` is `f` or calls it \
             (directly or through other functions), and `f` calls no other function that is also such a common \
             descendant. A deeper function that all of them also reach is wrong.\n\
             - The nearest common descendant starts with `{p}1: {pt} = {h}(val, 1)`, …, `{p}N: {pt} = {h}(val, N)`, \
             in index order, and returns `(X, {p}1, …, {p}N)`, annotated `tuple[{t}, {pt}, …, {pt}]` with N times \
             `{pt}`.\n\
             - Every function between it and the original callers unpacks its call, \
             `c_val, {p}1, …, {p}N = c(val)`, and returns `(X, {p}1, …, {p}N)` with the same annotation.\n\
             - The original callers unpack the same way, drop their own `{h}` calls, keep their annotation and \
             still return {apply}.\n\
             - Keep every index as written; never move the calls into a function that calls them.",
            values = values_words(d),
        )
    }

    fn example_note(&self, named: &Named, d: &DomainInfo, f: &Family) -> String {
        format!(
            "{} called `{}(val, 2)` and `{}(val, 1)`; their nearest common descendant is {}, which now computes \
             `{p}1` and `{p}2` and returns them up; every function from it to them puts the example's requirement \
             lines right where both values are first available. `g()` is also reached by both but lies deeper, so \
             it stays as it was.",
            named.role(Role::EditLeaf),
            helper(d.domain),
            helper(d.domain),
            named.role(Role::Ncd),
            p = f.prefix,
        )
    }
}
