//! The plain programs of a call graph (generation.md §2.4–§2.5) and the small rewrites every kind's
//! transform is made of.

use super::super::Role;
use crate::axes::Bodies;
use crate::domain::DomainInfo;
use crate::graph::CallGraph;
use crate::python::{Expr, Function, Module, Param, Stmt};

/// The inputs of a kind's transform.
pub struct Ctx<'a> {
    pub graph: &'a CallGraph,
    pub domain: &'a DomainInfo,
    /// The operations of each vertex (one unary, or k−1 binary for k ≥ 2 callees).
    pub ops: &'a [Vec<&'static str>],
    /// File order of the vertices.
    pub order: &'a [usize],
    /// How bodies are written (the axis decides).
    pub bodies: Bodies,
}

/// A built task program pair.
#[derive(Clone, Debug)]
pub struct Built {
    pub starter: Module,
    pub reference: Module,
    pub roles: Vec<Role>,
}

impl Built {
    /// The vertices the kind edits, in node order.
    pub fn edit_set(&self) -> Vec<usize> {
        (0..self.roles.len()).filter(|&v| self.roles[v].is_edited()).collect()
    }
}

/// `b_val`: the local that holds a callee's value.
pub fn val_name(g: &CallGraph, v: usize) -> String {
    [g.name(v), "_val"].concat()
}

/// `X`: the vertex's operation expression over its callees' values (generation.md §2.4).
pub fn op_expr(cx: &Ctx, v: usize) -> Expr {
    let g = cx.graph;
    let kids = g.children(v);
    let ops = &cx.ops[v];
    match kids.as_slice() {
        [] => Expr::call(ops[0], vec![Expr::name("val")]),
        [only] => Expr::call(ops[0], vec![Expr::Name(val_name(g, *only))]),
        [first, rest @ ..] => {
            let mut acc = Expr::Name(val_name(g, *first));
            for (i, &c) in rest.iter().enumerate() {
                acc = Expr::call(ops[i], vec![acc, Expr::Name(val_name(g, c))]);
            }
            acc
        }
    }
}

/// One call line `c_val = c(val)`, shaped by the kind: extra targets, extra positional arguments,
/// keyword arguments.
pub fn call_line(
    g: &CallGraph,
    c: usize,
    extra_targets: &[String],
    extra_args: &[Expr],
    kwargs: &[(String, Expr)],
) -> Stmt {
    let mut targets = vec![val_name(g, c)];
    targets.extend(extra_targets.iter().cloned());
    let mut args = vec![Expr::name("val")];
    args.extend(extra_args.iter().cloned());
    Stmt::Assign { targets, value: Expr::Call { func: g.name(c).to_string(), args, kwargs: kwargs.to_vec() } }
}

/// The plain function of a vertex, before any kind touches it.
pub fn plain(cx: &Ctx, v: usize) -> Function {
    let g = cx.graph;
    let body = match cx.bodies {
        // A runtime body's running leaf is the plain body; `runtime::branch` writes the tree around it.
        Bodies::Plain | Bodies::Branched(_) => {
            let kids = g.children(v);
            // Room for the return too: collected alone, the calls' vector would grow for it.
            let mut body = Vec::with_capacity(kids.len() + 1);
            body.extend(kids.into_iter().map(|c| call_line(g, c, &[], &[], &[])));
            body.push(Stmt::Return(op_expr(cx, v)));
            body
        }
    };
    Function {
        name: g.name(v).to_string(),
        params: vec![Param::new("val", cx.domain.ty)],
        returns: Some(cx.domain.ty.to_string()),
        body,
    }
}

/// Every vertex's plain function, in node order.
pub fn all_plain(cx: &Ctx) -> Vec<Function> {
    (0..cx.graph.len()).map(|v| plain(cx, v)).collect()
}

/// `main()`: calls every entry point and returns their values.
fn main_fn(cx: &Ctx, entries: &[usize]) -> Function {
    let calls: Vec<Expr> = entries.iter().map(|&v| Expr::call(cx.graph.name(v), vec![Expr::name("val")])).collect();
    let ret = match <[Expr; 1]>::try_from(calls) {
        Ok([one]) => one,
        Err(calls) => Expr::Tuple(calls),
    };
    Function {
        name: "main".into(),
        params: vec![Param::new("val", cx.domain.ty)],
        returns: None,
        body: vec![Stmt::Return(ret)],
    }
}

/// The module of one function per vertex (in file order, without the `skip`ped ones), then `main()`.
pub fn module(cx: &Ctx, mylibrary: Option<&str>, fns: Vec<Function>, skip: &[bool]) -> Module {
    let entries = cx.graph.entries();
    let mut by_vertex: Vec<Option<Function>> = fns.into_iter().map(Some).collect();
    let mut functions: Vec<Function> =
        cx.order.iter().filter(|&&v| !skip[v]).filter_map(|&v| by_vertex[v].take()).collect();
    functions.push(main_fn(cx, &entries));
    Module {
        imports: cx.domain.module_imports(mylibrary),
        helpers: vec![],
        functions,
        guard_call: cx.domain.guard_call.to_string(),
    }
}

/// The module of one function per vertex, none skipped.
pub fn module_all(cx: &Ctx, mylibrary: Option<&str>, fns: Vec<Function>) -> Module {
    let keep = vec![false; cx.graph.len()];
    module(cx, mylibrary, fns, &keep)
}

/// Replace the expression of a function's final return.
pub fn replace_return(f: &mut Function, new: Expr) {
    if let Some(Stmt::Return(e)) = f.body.last_mut() {
        *e = new;
    }
}

/// The expression of a function's final return (generated functions end with one).
pub fn returned(f: &Function) -> Expr {
    match f.body.last() {
        Some(Stmt::Return(e)) => e.clone(),
        _ => unreachable!("generated functions end with a return"),
    }
}

/// Rewrite the call lines of a plain function (line i calls the i-th callee) whose callee gets
/// a replacement from `rewrite`.
pub fn map_calls(g: &CallGraph, v: usize, f: &mut Function, mut rewrite: impl FnMut(usize) -> Option<Stmt>) {
    for (i, c) in g.children(v).into_iter().enumerate() {
        if let Some(new) = rewrite(c) {
            f.body[i] = new;
        }
    }
}
