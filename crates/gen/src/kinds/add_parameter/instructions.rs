//! Add a parameter over indexed values (generation.md §4.4.5): the root of C_edit takes
//! `mult1 … multN` (`prefix1 … prefixN`), each defaulting to `default(I)`; every function below it gains
//! them all, passes them on by keyword, and the terminal functions apply them all. The requirement lines
//! open the body of every function that takes the values.

use super::super::graph_kind::instructions::{fold, keywords, names, params, values_words, IndexedKind};
use super::super::graph_kind::program::{all_plain, call_line, map_calls, module_all, replace_return, returned};
use super::super::graph_kind::statement::Named;
use super::super::graph_kind::{Built, Ctx, GraphKind};
use super::super::Role;
use super::{AddParameter, LIBRARY};
use crate::axes::instructions::{Bank, Family};
use crate::domain::DomainInfo;
use crate::graph::Part;
use crate::python::{Expr, Stmt};
use crate::spec::Domain;

pub struct Indexed;

impl IndexedKind for Indexed {
    fn family(&self, d: Domain) -> Family {
        match d {
            Domain::Math | Domain::Array => Family { prefix: "mult", label: "mult parameters", bank: Bank::Float },
            Domain::String => Family { prefix: "prefix", label: "prefix parameters", bank: Bank::Str },
        }
    }

    fn transform(&self, cx: &Ctx, n: usize, lines: &dyn Fn(usize) -> Vec<Stmt>) -> Built {
        let g = cx.graph;
        let d = cx.domain;
        let names = names(&self.family(d.domain), n);
        let count = g.len();
        let in_f: Vec<bool> = (0..count).map(|v| g.part(v) != Part::Init).collect();
        let terminal: Vec<bool> = (0..count).map(|v| g.part(v) == Part::Edit && g.out_degree(v) == 0).collect();
        let own = || params(&names, d.scalar_ty, |i| Expr::call(LIBRARY, vec![Expr::Int(i as i64)]));
        let mut starter = all_plain(cx);
        starter[g.special].params.extend(own());
        let mut reference = all_plain(cx);
        let kw = keywords(&names);
        for v in (0..count).filter(|&v| in_f[v]) {
            let f = &mut reference[v];
            f.params.extend(own());
            map_calls(g, v, f, |c| in_f[c].then(|| call_line(g, c, &[], &[], &kw)));
            if terminal[v] {
                let x = returned(f);
                let scalars = names.iter().map(|p| Expr::name(p)).collect();
                replace_return(f, fold(scalars, d.combine, x));
            }
            f.body.splice(0..0, lines(v));
        }
        Built {
            starter: module_all(cx, Some(LIBRARY), starter),
            reference: module_all(cx, Some(LIBRARY), reference),
            roles: AddParameter.transform(cx).roles,
        }
    }

    fn rules(&self, d: &DomainInfo, f: &Family) -> String {
        let (p, pt) = (f.prefix, d.scalar_ty);
        let apply = match d.domain {
            Domain::Math | Domain::Array => format!("`{p}1 * {p}2 * … * {p}N * X`"),
            Domain::String => format!("`{p}1 + {p}2 + … + {p}N + X`"),
        };
        format!(
            "Every function in `solution.py` works on {values}. One function already takes N parameters \
             `{p}1: {pt}=default(1)`, `{p}2: {pt}=default(2)`, …, `{p}N: {pt}=default(N)`: each defaults to \
             `default()` called with its own index. Thread all of them through the code below it:\n\n\
             1. A function that has the parameters passes every one of them, as keyword arguments, to every \
             function of `solution.py` it calls: `c(val, {p}1={p}1, {p}2={p}2, …, {p}N={p}N)`. Each such callee \
             gains the same parameters with the same defaults, in index order.\n\
             2. Repeat for the callees, and their callees, until every function below the first one has them.\n\
             3. Only terminal functions use them. A terminal function calls no function of `solution.py` (library \
             calls are fine); it returns {apply}, where `X` is the value it returned before. Functions in between pass the values on and do not use them.\n\
             4. Do not touch functions above the one that first had the parameters, nor other callers of the \
             functions you change: they keep calling without them and get the defaults.\n\
             5. Keep every index as written: `{p}I` always defaults to `default(I)`; never swap, merge or drop \
             indices, and never rely on a default inside the chain.",
            values = values_words(d),
        )
    }

    fn example_note(&self, named: &Named, _: &DomainInfo, f: &Family) -> String {
        format!(
            "{} had `{p}1` and `{p}2`; {} gain them and put the example's requirement lines first in their bodies; \
             only the terminal {} uses the values. {} keep calling without them.",
            named.role(Role::Root),
            named.any(&[Role::Edit, Role::EditLeaf]),
            named.role(Role::EditLeaf),
            named.role(Role::Untouched),
            p = f.prefix,
        )
    }
}
