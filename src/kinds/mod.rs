//! The five task kinds (generation.md §3): from a joined call graph, the starter program, the
//! reference solution and each function's role.
//!
//! Each kind is one function over the same inputs ([`Ctx`]); the worked examples of the problem
//! statements run the very same functions on tiny fixed graphs, so rules and examples agree.

pub mod prompt;

use crate::domain::DomainInfo;
use crate::graph::{CallGraph, Part};
use crate::python::{Expr, Function, Module, Op, Param, Stmt};
use crate::spec::Kind;
use serde::Serialize;

/// What a function is in a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Part of C_init: must be left alone.
    Untouched,
    /// An edited function in the middle of the edit graph.
    Edit,
    /// An edited function at the edge of the edit graph: the terminal that applies the parameter,
    /// the leaf that calls `slow()`, the top function that calls the repeated helper.
    EditLeaf,
    /// The parameter root: the function that already has the new parameter.
    Root,
    /// The return sink: the function whose `external()` value must travel up.
    Sink,
    /// The cache task's lowest common ancestor.
    Lca,
    /// The DRY task's nearest common descendant.
    Ncd,
    /// Dead code: to delete.
    Dead,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Untouched => "untouched",
            Role::Edit => "edit",
            Role::EditLeaf => "edit_leaf",
            Role::Root => "root",
            Role::Sink => "sink",
            Role::Lca => "lca",
            Role::Ncd => "ncd",
            Role::Dead => "dead",
        }
    }
    pub fn is_edited(self) -> bool {
        self != Role::Untouched
    }
}

/// The inputs of a kind's transform.
pub struct Ctx<'a> {
    pub graph: &'a CallGraph,
    pub domain: &'a DomainInfo,
    /// The operations of each vertex (one unary, or k−1 binary for k ≥ 2 callees).
    pub ops: &'a [Vec<String>],
    /// File order of the vertices.
    pub order: &'a [usize],
}

/// A built task program pair.
#[derive(Clone, Debug)]
pub struct Built {
    pub starter: Module,
    pub reference: Module,
    pub roles: Vec<Role>,
    /// The `mylibrary` name the programs import, if any.
    pub mylibrary: Option<&'static str>,
}

impl Built {
    /// The vertices the kind edits, in node order.
    pub fn edit_set(&self) -> Vec<usize> {
        (0..self.roles.len()).filter(|&v| self.roles[v].is_edited()).collect()
    }
}

fn val_name(g: &CallGraph, v: usize) -> String {
    format!("{}_val", g.name(v))
}

/// `X`: the vertex's operation expression over its callees' values (generation.md §2.4).
fn op_expr(cx: &Ctx, v: usize) -> Expr {
    let g = cx.graph;
    let kids = g.children(v);
    let ops = &cx.ops[v];
    match kids.len() {
        0 => Expr::call(&ops[0], vec![Expr::name("val")]),
        1 => Expr::call(&ops[0], vec![Expr::Name(val_name(g, kids[0]))]),
        _ => {
            let mut acc = Expr::Name(val_name(g, kids[0]));
            for (i, &c) in kids[1..].iter().enumerate() {
                acc = Expr::call(&ops[i], vec![acc, Expr::Name(val_name(g, c))]);
            }
            acc
        }
    }
}

/// One call line `c_val = c(val)`, shaped by the kind: extra targets, extra positional arguments,
/// keyword arguments.
fn call_line(
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
fn plain(cx: &Ctx, v: usize) -> Function {
    let g = cx.graph;
    let mut body: Vec<Stmt> = g.children(v).into_iter().map(|c| call_line(g, c, &[], &[], &[])).collect();
    body.push(Stmt::Return(op_expr(cx, v)));
    Function {
        name: g.name(v).to_string(),
        params: vec![Param::new("val", cx.domain.ty)],
        returns: Some(cx.domain.ty.to_string()),
        body,
    }
}

/// `main()`: calls every entry point and returns their values.
fn main_fn(cx: &Ctx, entries: &[usize]) -> Function {
    let calls: Vec<Expr> = entries.iter().map(|&v| Expr::call(cx.graph.name(v), vec![Expr::name("val")])).collect();
    let ret = if calls.len() == 1 { calls.into_iter().next().expect("one") } else { Expr::Tuple(calls) };
    Function {
        name: "main".into(),
        params: vec![Param::new("val", cx.domain.ty)],
        returns: None,
        body: vec![Stmt::Return(ret)],
    }
}

fn module(cx: &Ctx, mylibrary: Option<&str>, fns: Vec<Function>, skip: &[bool]) -> Module {
    let entries = cx.graph.entries();
    let mut by_vertex: Vec<Option<Function>> = fns.into_iter().map(Some).collect();
    let mut functions: Vec<Function> = cx
        .order
        .iter()
        .filter(|&&v| !skip[v])
        .map(|&v| by_vertex[v].take().expect("one function per vertex"))
        .collect();
    functions.push(main_fn(cx, &entries));
    Module { imports: cx.domain.module_imports(mylibrary), functions, guard_call: cx.domain.guard_call.to_string() }
}

fn replace_return(f: &mut Function, new: Expr) {
    if let Some(Stmt::Return(e)) = f.body.last_mut() {
        *e = new;
    }
}

fn returned(f: &Function) -> Expr {
    match f.body.last() {
        Some(Stmt::Return(e)) => e.clone(),
        _ => unreachable!("generated functions end with a return"),
    }
}

/// Rewrite the call lines of a plain function (line i calls the i-th callee) whose callee gets
/// a replacement from `rewrite`.
fn map_calls(g: &CallGraph, v: usize, f: &mut Function, mut rewrite: impl FnMut(usize) -> Option<Stmt>) {
    for (i, c) in g.children(v).into_iter().enumerate() {
        if let Some(new) = rewrite(c) {
            f.body[i] = new;
        }
    }
}

/// Build the starter and reference of a kind.
pub fn build(kind: Kind, cx: &Ctx) -> Built {
    match kind {
        Kind::DeadCode => dead_code(cx),
        Kind::AddParameter => add_parameter(cx),
        Kind::AddReturnValue => add_return_value(cx),
        Kind::CacheFunction => cache_function(cx),
        Kind::ExtractHelper => extract_helper(cx),
    }
}

fn all_plain(cx: &Ctx) -> Vec<Function> {
    (0..cx.graph.len()).map(|v| plain(cx, v)).collect()
}

/// Remove dead code: the starter has every function; the reference drops C_edit and its root.
fn dead_code(cx: &Ctx) -> Built {
    let g = cx.graph;
    let n = g.len();
    let dead: Vec<bool> = (0..n).map(|v| g.part(v) != Part::Init).collect();
    let roles = (0..n).map(|v| if dead[v] { Role::Dead } else { Role::Untouched }).collect();
    Built {
        starter: module(cx, None, all_plain(cx), &vec![false; n]),
        reference: module(cx, None, all_plain(cx), &dead),
        roles,
        mylibrary: None,
    }
}

/// Add a parameter: the root already has it; every edit function takes it, passes it to edited
/// callees by keyword, and only the terminals apply it.
fn add_parameter(cx: &Ctx) -> Built {
    let g = cx.graph;
    let d = cx.domain;
    let n = g.len();
    let in_f: Vec<bool> = (0..n).map(|v| g.part(v) != Part::Init).collect();
    let terminal: Vec<bool> = (0..n).map(|v| g.part(v) == Part::Edit && g.out_degree(v) == 0).collect();
    let param = || Param::with_default(d.param, d.helper_ty, Expr::call("default", vec![]));
    let mut starter = all_plain(cx);
    starter[g.special].params.push(param());
    let mut reference = all_plain(cx);
    for v in (0..n).filter(|&v| in_f[v]) {
        let f = &mut reference[v];
        f.params.push(param());
        map_calls(g, v, f, |c| {
            in_f[c].then(|| call_line(g, c, &[], &[], &[(d.param.to_string(), Expr::name(d.param))]))
        });
        if terminal[v] {
            let x = returned(f);
            replace_return(f, d.apply(d.param, x));
        }
    }
    let roles = (0..n)
        .map(|v| match () {
            _ if v == g.special => Role::Root,
            _ if terminal[v] => Role::EditLeaf,
            _ if in_f[v] => Role::Edit,
            _ => Role::Untouched,
        })
        .collect();
    Built {
        starter: module(cx, Some("default"), starter, &vec![false; n]),
        reference: module(cx, Some("default"), reference, &vec![false; n]),
        roles,
        mylibrary: Some("default"),
    }
}

/// Add a return value: the sink's `external()` now returns `(value, str)`; every function that
/// uses it, directly or not, returns `(value, str)` too.
fn add_return_value(cx: &Ctx) -> Built {
    let g = cx.graph;
    let d = cx.domain;
    let n = g.len();
    let s = g.special;
    let in_f: Vec<bool> = (0..n).map(|v| g.part(v) != Part::Init).collect();
    let wrap_external = |f: &mut Function| {
        let x = returned(f);
        replace_return(f, Expr::call("external", vec![x]));
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
        let first = g.children(v).into_iter().find(|&c| in_f[c]).expect("every edit function reaches the sink");
        let x = returned(f);
        replace_return(f, Expr::Tuple(vec![x, Expr::Name(format!("{}_str", g.name(first)))]));
    }
    let roles = (0..n)
        .map(|v| match () {
            _ if v == s => Role::Sink,
            _ if in_f[v] => Role::Edit,
            _ => Role::Untouched,
        })
        .collect();
    Built {
        starter: module(cx, Some("external"), starter, &vec![false; n]),
        reference: module(cx, Some("external"), reference, &vec![false; n]),
        roles,
        mylibrary: Some("external"),
    }
}

/// Cache a function call: the tree's leaves call `slow()`; the reference calls it once in the
/// lowest common ancestor and passes `temp` down to the tree functions.
fn cache_function(cx: &Ctx) -> Built {
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
        replace_return(&mut starter[v], slow_plus(x, Expr::call("slow", vec![])));
    }
    let mut reference = all_plain(cx);
    for v in (0..n).filter(|&v| tree[v] || v == c) {
        let f = &mut reference[v];
        map_calls(g, v, f, |k| tree[k].then(|| call_line(g, k, &[], &[Expr::name("temp")], &[])));
        if v == c {
            f.body.insert(
                0,
                Stmt::AnnAssign { target: "temp".into(), ann: d.helper_ty.into(), value: Expr::call("slow", vec![]) },
            );
        } else {
            f.params.push(Param::with_default("temp", d.helper_ty, d.temp_default()));
        }
        if leaf[v] {
            let x = returned(f);
            replace_return(f, slow_plus(x, Expr::name("temp")));
        }
    }
    let roles = (0..n)
        .map(|v| match () {
            _ if v == c => Role::Lca,
            _ if leaf[v] => Role::EditLeaf,
            _ if tree[v] => Role::Edit,
            _ => Role::Untouched,
        })
        .collect();
    Built {
        starter: module(cx, Some("slow"), starter, &vec![false; n]),
        reference: module(cx, Some("slow"), reference, &vec![false; n]),
        roles,
        mylibrary: Some("slow"),
    }
}

/// Don't repeat yourself: the top functions each call the helper; the reference calls it once in
/// the nearest common descendant and returns it up as a second tuple element.
fn extract_helper(cx: &Ctx) -> Built {
    let g = cx.graph;
    let d = cx.domain;
    let n = g.len();
    let x = g.special;
    let in_x: Vec<bool> = (0..n).map(|v| g.part(v) != Part::Init).collect();
    let top: Vec<bool> = (0..n).map(|v| in_x[v] && v != x && !g.parents(v).iter().any(|&p| in_x[p])).collect();
    let helper_line = || Stmt::AnnAssign {
        target: d.param.into(),
        ann: d.helper_ty.into(),
        value: Expr::call(d.helper_fn, vec![Expr::name("val")]),
    };
    let mut starter = all_plain(cx);
    for v in (0..n).filter(|&v| top[v]) {
        let f = &mut starter[v];
        f.body.insert(0, helper_line());
        let e = returned(f);
        replace_return(f, d.apply(d.param, e));
    }
    let mut reference = all_plain(cx);
    let tuple_ty = format!("tuple[{}, {}]", d.ty, d.helper_ty);
    for v in (0..n).filter(|&v| in_x[v]) {
        let f = &mut reference[v];
        let e = returned(f);
        if v == x {
            f.body.insert(0, helper_line());
        } else {
            map_calls(g, v, f, |k| in_x[k].then(|| call_line(g, k, &[d.param.to_string()], &[], &[])));
        }
        if top[v] {
            replace_return(f, d.apply(d.param, e));
        } else {
            f.returns = Some(tuple_ty.clone());
            replace_return(f, Expr::Tuple(vec![e, Expr::name(d.param)]));
        }
    }
    let roles = (0..n)
        .map(|v| match () {
            _ if v == x => Role::Ncd,
            _ if top[v] => Role::EditLeaf,
            _ if in_x[v] => Role::Edit,
            _ => Role::Untouched,
        })
        .collect();
    let lib = if d.helper_fn == "get_key" { "get_key" } else { "get_multiplier" };
    Built {
        starter: module(cx, Some(lib), starter, &vec![false; n]),
        reference: module(cx, Some(lib), reference, &vec![false; n]),
        roles,
        mylibrary: Some(lib),
    }
}
