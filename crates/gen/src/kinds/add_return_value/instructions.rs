//! Add a return value over indexed values (generation.md §4.4.5): the sink of C_edit unpacks
//! `key1 … keyN = external(N)`; every function that depends on it returns `(X, key1, …, keyN)`. The
//! first call to such a function unpacks the keys, later ones unpack them into `_`. The requirement
//! lines go right before the return of every function that returns the keys.

use super::super::graph_kind::instructions::{names, tuple_of, tuple_type, values_words, IndexedKind};
use super::super::graph_kind::program::{all_plain, call_line, module_all, returned};
use super::super::graph_kind::statement::Named;
use super::super::graph_kind::{Built, Ctx, GraphKind};
use super::super::Role;
use super::{AddReturnValue, LIBRARY};
use crate::axes::instructions::{Bank, Family};
use crate::domain::DomainInfo;
use crate::graph::Part;
use crate::python::{Expr, Function, Stmt};
use crate::spec::Domain;

pub struct Indexed;

/// `key1, …, keyN = external(N)`.
fn external_line(names: &[String]) -> Stmt {
    Stmt::Assign { targets: names.to_vec(), value: Expr::call(LIBRARY, vec![Expr::Int(names.len() as i64)]) }
}

/// Put `stmts` right before the function's final return.
fn before_return(f: &mut Function, stmts: Vec<Stmt>) {
    let at = f.body.len().saturating_sub(1);
    f.body.splice(at..at, stmts);
}

impl IndexedKind for Indexed {
    fn family(&self, _: Domain) -> Family {
        Family { prefix: "key", label: "return value keys", bank: Bank::Str }
    }

    fn transform(&self, cx: &Ctx, n: usize, lines: &dyn Fn(usize) -> Vec<Stmt>) -> Built {
        let g = cx.graph;
        let d = cx.domain;
        let names = names(&self.family(d.domain), n);
        let count = g.len();
        let s = g.special;
        let in_f: Vec<bool> = (0..count).map(|v| g.part(v) != Part::Init).collect();
        let mut starter = all_plain(cx);
        before_return(&mut starter[s], vec![external_line(&names)]);
        let mut reference = all_plain(cx);
        let tuple_ty = tuple_type(d.ty, "str", n);
        let blanks: Vec<String> = vec!["_".to_string(); n];
        for v in (0..count).filter(|&v| in_f[v]) {
            let f = &mut reference[v];
            f.returns = Some(tuple_ty.clone());
            let x = returned(f);
            if v == s {
                before_return(f, vec![external_line(&names)]);
            } else {
                // The first call to a function returning the keys unpacks them; later ones drop them.
                let mut first = true;
                for (i, c) in g.children(v).into_iter().enumerate() {
                    if in_f[c] {
                        let extra = if first { &names } else { &blanks };
                        f.body[i] = call_line(g, c, extra, &[], &[]);
                        first = false;
                    }
                }
            }
            before_return(f, lines(v));
            if let Some(Stmt::Return(e)) = f.body.last_mut() {
                *e = tuple_of(x, &names);
            }
        }
        Built {
            starter: module_all(cx, Some(LIBRARY), starter),
            reference: module_all(cx, Some(LIBRARY), reference),
            roles: AddReturnValue.transform(cx).roles,
        }
    }

    fn rules(&self, d: &DomainInfo, f: &Family) -> String {
        let (k, t) = (f.prefix, d.ty);
        format!(
            "Every function in `solution.py` works on {values}. The library function `external()` has changed: \
             `external(N)` now returns N string keys. One function already calls it and unpacks them, \
             `{k}1, {k}2, …, {k}N = external(N)`, right before its return, but does nothing with them yet.\n\n\
             1. That function, and every function whose result depends on it (directly or through the functions \
             it calls), returns the tuple `(X, {k}1, {k}2, …, {k}N)`, annotated `tuple[{t}, str, …, str]` with N \
             times `str`, where `X` is the value it returned before.\n\
             2. In a function that calls such functions, the first such call unpacks the keys, \
             `b_val, {k}1, …, {k}N = b(val)`, and every later such call unpacks them into `_`: \
             `c_val, _, …, _ = c(val)`. The function computes `X` from the values exactly as before.\n\
             3. Keep the `external(N)` call where it is, right before its function's return.\n\
             4. Functions whose result does not depend on `external()` stay exactly as they are.\n\
             5. Keep the keys in index order; never swap, merge or drop them.",
            values = values_words(d),
        )
    }

    fn example_note(&self, named: &Named, _: &DomainInfo, f: &Family) -> String {
        format!(
            "{} calls `external(2)`; {} depend on it and now return `{p}1` and `{p}2` too, each with the example's \
             requirement lines right before its return; {} do not depend on it and stay as they were.",
            named.role(Role::Sink),
            named.role(Role::Edit),
            named.role(Role::Untouched),
            p = f.prefix,
        )
    }
}
