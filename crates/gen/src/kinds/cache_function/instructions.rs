//! Cache function calls over indexed values (generation.md §4.4.5): the leaves of the tree return
//! `slow(1) + … + slow(N) + X`; the lowest common ancestor computes `slow1 = slow(1)` … `slowN` once and
//! passes them down by keyword to the tree's functions, whose leaves use them. The requirement lines go
//! after the ancestor's `slow` calls, and first in every other function of the tree.

use super::super::graph_kind::instructions::{fold, keywords, names, params, values_words, IndexedKind};
use super::super::graph_kind::program::{all_plain, call_line, map_calls, module_all, replace_return, returned};
use super::super::graph_kind::statement::Named;
use super::super::graph_kind::{Built, Ctx, GraphKind};
use super::super::Role;
use super::{temp_default, CacheFunction, LIBRARY};
use crate::axes::instructions::{Bank, Family};
use crate::domain::DomainInfo;
use crate::graph::Part;
use crate::spec::Domain;
use crate::{
    python,
    python::{Expr, Op, Stmt},
};

pub struct Indexed;

impl IndexedKind for Indexed {
    fn family(&self, d: Domain) -> Family {
        match d {
            Domain::Math | Domain::Array => Family { prefix: "slow", label: "cached slow values", bank: Bank::Float },
            Domain::String => Family { prefix: "slow", label: "cached slow values", bank: Bank::Str },
        }
    }

    fn transform(&self, cx: &Ctx, n: usize, lines: &dyn Fn(usize) -> Vec<Stmt>) -> Built {
        let g = cx.graph;
        let d = cx.domain;
        let names = names(&self.family(d.domain), n);
        let count = g.len();
        let c = g.special;
        let tree: Vec<bool> = (0..count).map(|v| g.part(v) == Part::Edit).collect();
        let leaf: Vec<bool> = (0..count).map(|v| tree[v] && !g.children(v).iter().any(|&k| tree[k])).collect();
        let calls: Vec<Expr> = (1..=n).map(|i| Expr::call(LIBRARY, vec![Expr::Int(i as i64)])).collect();
        let mut starter = all_plain(cx);
        for v in (0..count).filter(|&v| leaf[v]) {
            let x = returned(&starter[v]);
            replace_return(&mut starter[v], fold(calls.clone(), Op::Add, x));
        }
        let mut reference = all_plain(cx);
        let kw = keywords(&names);
        for v in (0..count).filter(|&v| tree[v] || v == c) {
            let f = &mut reference[v];
            map_calls(g, v, f, |k| tree[k].then(|| call_line(g, k, &[], &[], &kw)));
            let mut head: Vec<Stmt> = Vec::new();
            if v == c {
                head.extend(names.iter().zip(&calls).map(|(name, call)| Stmt::AnnAssign {
                    target: name.clone(),
                    ann: d.scalar_ty.into(),
                    value: call.clone(),
                }));
            } else {
                f.params.extend(params(&names, d.scalar_ty, |_| temp_default(d.domain).0));
            }
            if leaf[v] {
                let x = returned(f);
                let values = names.iter().map(|p| Expr::name(p)).collect();
                replace_return(f, fold(values, Op::Add, x));
            }
            head.extend(lines(v));
            f.body.splice(0..0, head);
        }
        Built {
            starter: module_all(cx, Some(LIBRARY), starter),
            reference: module_all(cx, Some(LIBRARY), reference),
            roles: CacheFunction.transform(cx).roles,
        }
    }

    fn rules(&self, d: &DomainInfo, f: &Family) -> String {
        let (s, pt) = (f.prefix, d.scalar_ty);
        let default = python::expr(&temp_default(d.domain).0);
        format!(
            "Every function in `solution.py` works on {values}. Several functions return \
             `slow(1) + slow(2) + … + slow(N) + X`; each `slow(I)` is expensive and always returns the same value for \
             the same index. Call each of them exactly once, in the lowest common ancestor of the functions that call \
             them, and hand the values down.\n\n\
             - Function `f` is the lowest common ancestor of `g_1, …, g_k` when `f` is each `g_i` or calls it \
             (directly or through other functions), and no function that `f` calls (directly or not) is also such a \
             common ancestor. A higher ancestor, such as one of the functions `main()` calls, is wrong.\n\
             - The lowest common ancestor starts with `{s}1: {pt} = slow(1)`, `{s}2: {pt} = slow(2)`, …, \
             `{s}N: {pt} = slow(N)`, in index order.\n\
             - It passes them down as keyword arguments, `c(val, {s}1={s}1, …, {s}N={s}N)`, only to the functions on \
             the way to the callers of `slow`; each of those gains the parameters `{s}1: {pt}={default}`, …, \
             `{s}N: {pt}={default}` and passes them on the same way. Do not pass them past those functions.\n\
             - Where a function called `slow(1) + … + slow(N)`, it uses `{s}1 + … + {s}N` instead.\n\
             - Keep every index as written. Global variables are not allowed.",
            values = values_words(d),
        )
    }

    fn example_note(&self, named: &Named, _: &DomainInfo, f: &Family) -> String {
        format!(
            "{} call `slow(1)` and `slow(2)`; their lowest common ancestor is {}, which calls each once, puts the \
             example's requirement lines right after those calls and passes `{p}1` and `{p}2` down; the functions \
             below it open with the requirement lines. `a()` also reaches them but is higher, so it stays as it was.",
            named.role(Role::EditLeaf),
            named.role(Role::Lca),
            p = f.prefix,
        )
    }
}
