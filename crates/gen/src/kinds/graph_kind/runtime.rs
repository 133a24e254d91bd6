//! Runtime resolution for the call-graph kinds (generation.md §4.3): every body becomes an if/else
//! tree of `check()` guards with one leaf that runs.
//!
//! The kinds' transforms are unchanged: a plain body is the leaf that runs. [`branch`] draws each
//! function's guards (stream `runtime/guards/<name>`, so a function has the same guards in every
//! kind), writes the leaves that never run, and wraps every body. What those leaves hold is the
//! kind's choice ([`RuntimeKind::inactive`]). Dead code's are distractors, so dead functions are
//! called only from branches that never run; the reference turns such calls into `val`.

use super::program::{call_line, val_name, Ctx};
use super::Built;
use crate::axes::runtime::guard::{draw_guard, Guard, CHECK_SOURCE};
use crate::axes::runtime::{FunctionBranches, Record, Shape};
use crate::domain::DomainInfo;
use crate::graph::sample::below;
use crate::graph::{CallGraph, Part};
use crate::kinds::Role;
use crate::python::{Expr, Function, Module, Stmt};
use crate::rng::{stream, Rng};
use std::collections::{BTreeSet, HashMap};

/// What the leaves that never run hold, for one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inactive {
    /// A copy of the plain body (what the running leaf held before the kind's edit).
    Plain,
    /// The starter's body: the kind's starter edit is in every branch.
    Starter,
    /// Dead code's distractors: other callees, other operations.
    Distractor,
}

/// What the runtime axis asks of a call-graph kind.
pub trait RuntimeKind: Sync {
    /// What the leaves that never run hold.
    fn inactive(&self) -> Inactive;
    /// The kind's rules for branches, after the rules every runtime task has (in the domain's words).
    fn rule(&self, d: &DomainInfo) -> String;
}

/// The rules every runtime task states, before the kind's own.
pub fn common_rule() -> &'static str {
    "Every function's body is an `if`/`else` tree whose conditions call `check(...)`, defined at the top of the \
     file. Exactly one branch of each function runs when the code runs; which one, only running `check` tells.\n\n\
     - Only code that runs counts. Make each change in the branch that runs, and leave every branch that never runs \
     exactly as it is.\n\
     - Do not change any condition, and do not remove, merge, simplify or restructure any `if`/`else`, even where \
     it looks redundant.\n\
     - A function's signature and annotation change as the procedure says, even where a branch that never runs \
     then disagrees with them.\n\
     - Leave `check` unchanged."
}

/// The guards of one function's tree, in pre-order (a guard, then its `if` side's, then its `else`
/// side's), and the leaf that runs.
fn draw_tree(key: &str, name: &str, shape: &Shape) -> (Vec<Guard>, usize, Vec<bool>) {
    let mut rng = stream(key, &format!("runtime/guards/{name}"));
    let count = (1usize << shape.levels()) - 1;
    let guards: Vec<Guard> = (0..count).map(|_| draw_guard(&mut rng, shape.breadth, shape.depth)).collect();
    let (leaf, path) = running_leaf(&guards, shape.levels());
    (guards, leaf, path)
}

/// The leaf that runs in a tree of `levels` levels with these pre-order guards, and the values of the
/// guards on the way to it.
pub fn running_leaf(guards: &[Guard], levels: u32) -> (usize, Vec<bool>) {
    let (mut at, mut leaf, mut path) = (0usize, 0usize, Vec::new());
    for level in (0..levels).rev() {
        let value = guards.get(at).is_some_and(|g| g.value);
        path.push(value);
        let side = 1usize << level;
        if value {
            at += 1;
        } else {
            at += side;
            leaf += side;
        }
    }
    (leaf, path)
}

/// The tree of one body: pre-order guards, leaves left to right (the `if` side first).
fn tree(guards: &[Guard], leaves: &mut std::vec::IntoIter<Vec<Stmt>>, levels: u32, at: &mut usize) -> Vec<Stmt> {
    if levels == 0 {
        return leaves.next().unwrap_or_default();
    }
    let guard = &guards[*at];
    *at += 1;
    let body = tree(guards, leaves, levels - 1, at);
    let orelse = tree(guards, leaves, levels - 1, at);
    vec![Stmt::If { test: guard_expr(guard), body, orelse }]
}

/// A guard as an expression: one call, or calls joined by `^`.
pub fn guard_expr(g: &Guard) -> Expr {
    let calls: Vec<Expr> = g
        .calls
        .iter()
        .map(|c| Expr::Call {
            func: "check".into(),
            args: [c.x, c.a, c.b, u32::from(c.target)].iter().map(|&v| Expr::Int(i64::from(v))).collect(),
            kwargs: vec![("num_steps".into(), Expr::Int(i64::from(c.steps)))],
        })
        .collect();
    match <[Expr; 1]>::try_from(calls) {
        Ok([one]) => one,
        Err(calls) => Expr::Xor(calls),
    }
}

/// The body of a leaf that calls `callees` and folds their values with `ops` (generation.md §2.4).
fn leaf_body(g: &CallGraph, callees: &[usize], ops: &[&str]) -> Vec<Stmt> {
    let mut body: Vec<Stmt> = callees.iter().map(|&c| call_line(g, c, &[], &[], &[])).collect();
    let ret = match callees {
        [] => Expr::call(ops[0], vec![Expr::name("val")]),
        [only] => Expr::call(ops[0], vec![Expr::Name(val_name(g, *only))]),
        [first, rest @ ..] => {
            let mut acc = Expr::Name(val_name(g, *first));
            for (i, &c) in rest.iter().enumerate() {
                acc = Expr::call(ops[i], vec![acc, Expr::Name(val_name(g, c))]);
            }
            acc
        }
    };
    body.push(Stmt::Return(ret));
    body
}

/// The distractor leaves of every vertex (dead code): for each leaf that does not run, callees of the
/// other side (a live function's call dead ones, a dead function's call live ones) that close no cycle
/// of the call graph with the distractors drawn before, and other operations.
fn distractors(cx: &Ctx, key: &str, running: &[usize], leaves: usize) -> Vec<Vec<(Vec<usize>, Vec<&'static str>)>> {
    let g = cx.graph;
    let n = g.len();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (u, v) in g.edges() {
        callers[v].push(u);
    }
    let mut out: Vec<Vec<(Vec<usize>, Vec<&'static str>)>> = vec![Vec::new(); n];
    for &v in cx.order {
        let mut rng = stream(key, &format!("runtime/distractor/{}/{}", cx.domain.domain.as_str(), g.name(v)));
        let live = g.children(v);
        // Everything that reaches v: adding edges out of v never changes it.
        let mut reaches_v = vec![false; n];
        let mut stack = vec![v];
        while let Some(u) = stack.pop() {
            if !std::mem::replace(&mut reaches_v[u], true) {
                stack.extend(callers[u].iter().copied());
            }
        }
        let dead = g.part(v) != Part::Init;
        let candidates: Vec<usize> = (0..n).filter(|&c| (g.part(c) != Part::Init) != dead && !reaches_v[c]).collect();
        for leaf in 0..leaves {
            if leaf == running[v] {
                continue;
            }
            let callees = distractor_callees(&mut rng, &live, &candidates);
            for &c in &callees {
                if !callers[c].contains(&v) {
                    callers[c].push(v);
                }
            }
            let ops = distractor_ops(&mut rng, cx.domain, callees.len(), &cx.ops[v]);
            out[v].push((callees, ops));
        }
    }
    out
}

/// As many callees as the running leaf has: new ones first, then ones not drawn yet, then any.
fn distractor_callees(rng: &mut Rng, live: &[usize], candidates: &[usize]) -> Vec<usize> {
    if live.is_empty() {
        return vec![];
    }
    if candidates.is_empty() {
        return live.to_vec();
    }
    let mut drawn: Vec<usize> = Vec::with_capacity(live.len());
    for _ in 0..live.len() {
        let fresh: Vec<usize> =
            candidates.iter().copied().filter(|c| !live.contains(c) && !drawn.contains(c)).collect();
        let unused: Vec<usize> = candidates.iter().copied().filter(|c| !drawn.contains(c)).collect();
        let pool = if !fresh.is_empty() {
            fresh
        } else if !unused.is_empty() {
            unused
        } else {
            candidates.to_vec()
        };
        drawn.push(pool[below(rng, pool.len())]);
    }
    drawn
}

/// Operations for a distractor leaf of `callees` calls: redrawn until they differ from the running
/// leaf's (20 tries), else one of them changed.
fn distractor_ops(rng: &mut Rng, d: &DomainInfo, callees: usize, live: &[&str]) -> Vec<&'static str> {
    let (bank, count) = if callees <= 1 { (d.unary, 1) } else { (d.binary, callees - 1) };
    let draw = |rng: &mut Rng| bank[below(rng, bank.len())];
    let mut ops: Vec<&'static str> = Vec::new();
    for _ in 0..20 {
        ops = (0..count).map(|_| draw(rng)).collect();
        if ops.as_slice() != live {
            return ops;
        }
    }
    let i = below(rng, count);
    for _ in 0..20 {
        let other = draw(rng);
        if other != live[i] {
            ops[i] = other;
            break;
        }
    }
    ops
}

/// Replace every call to a function of `gone` with `val` (the reference of dead code: calls left in
/// branches that never run).
fn calls_to_val(stmts: &mut [Stmt], gone: &BTreeSet<String>) {
    fn expr(e: &mut Expr, gone: &BTreeSet<String>) {
        match e {
            Expr::Call { func, .. } if gone.contains(func.as_str()) => *e = Expr::name("val"),
            Expr::Call { args, kwargs, .. } => {
                args.iter_mut().for_each(|a| expr(a, gone));
                kwargs.iter_mut().for_each(|(_, a)| expr(a, gone));
            }
            Expr::Bin { left, right, .. } | Expr::Compare { left, right, .. } => {
                expr(left, gone);
                expr(right, gone);
            }
            Expr::Tuple(items) | Expr::Xor(items) => items.iter_mut().for_each(|a| expr(a, gone)),
            Expr::Method { object, args, .. } => {
                expr(object, gone);
                args.iter_mut().for_each(|a| expr(a, gone));
            }
            Expr::Name(_) | Expr::Float(_) | Expr::Str(_) | Expr::Int(_) | Expr::FString(_) => {}
        }
    }
    for s in stmts {
        match s {
            Stmt::Assign { value, .. }
            | Stmt::AnnAssign { value, .. }
            | Stmt::Return(value)
            | Stmt::Expr(value)
            | Stmt::Assert(value) => expr(value, gone),
            Stmt::Comment(_) => {}
            Stmt::If { test, body, orelse } => {
                expr(test, gone);
                calls_to_val(body, gone);
                calls_to_val(orelse, gone);
            }
        }
    }
}

/// Wrap the bodies of a module's functions (all but `main`) into their trees; `leaves_of(v)` gives the
/// leaves that never run, in order.
fn wrap(
    module: &mut Module,
    index: &HashMap<&str, usize>,
    trees: &[(Vec<Guard>, usize, Vec<bool>)],
    levels: u32,
    inactive: &dyn Fn(usize) -> Vec<Vec<Stmt>>,
) {
    for f in module.functions.iter_mut().filter(|f| f.name != "main") {
        let Some(&v) = index.get(f.name.as_str()) else { continue };
        let (guards, running, _) = &trees[v];
        let mut others = inactive(v).into_iter();
        let leaves: Vec<Vec<Stmt>> = (0..1usize << levels)
            .map(|leaf| if leaf == *running { std::mem::take(&mut f.body) } else { others.next().unwrap_or_default() })
            .collect();
        let mut at = 0;
        f.body = tree(guards, &mut leaves.into_iter(), levels, &mut at);
    }
    module.helpers.insert(0, CHECK_SOURCE.to_string());
}

/// The body of a function as the kind's transform wrote it, by name.
fn body_of(m: &Module, name: &str) -> Vec<Stmt> {
    m.functions.iter().find(|f| f.name == name).map(|f| f.body.clone()).unwrap_or_default()
}

/// Turn a kind's plain programs into runtime programs (see the module's note); returns the record
/// the task carries. Roles: a live function whose never-running branch calls dead code is changed by
/// the reference (the call becomes `val`), so it is [`Role::DeadCaller`].
pub fn branch(kind: &dyn RuntimeKind, cx: &Ctx, key: &str, shape: Shape, built: &mut Built) -> Record {
    let g = cx.graph;
    let n = g.len();
    let levels = shape.levels();
    let leaves = 1usize << levels;
    let trees: Vec<(Vec<Guard>, usize, Vec<bool>)> = (0..n).map(|v| draw_tree(key, g.name(v), &shape)).collect();
    let index: HashMap<&str, usize> = (0..n).map(|v| (g.name(v), v)).collect();
    let running: Vec<usize> = trees.iter().map(|t| t.1).collect();
    let mut inactive_calls: Vec<(String, String)> = Vec::new();
    let inactive_leaves: Vec<Vec<Vec<Stmt>>> = match kind.inactive() {
        Inactive::Plain => (0..n).map(|v| vec![super::program::plain(cx, v).body; leaves - 1]).collect(),
        Inactive::Starter => (0..n).map(|v| vec![body_of(&built.starter, g.name(v)); leaves - 1]).collect(),
        Inactive::Distractor => {
            let d = distractors(cx, key, &running, leaves);
            let mut seen: BTreeSet<(usize, usize)> = g.edges().into_iter().collect();
            for &v in cx.order {
                for (callees, _) in &d[v] {
                    for &c in callees {
                        if seen.insert((v, c)) {
                            inactive_calls.push((g.name(v).to_string(), g.name(c).to_string()));
                        }
                    }
                }
            }
            d.iter().map(|ls| ls.iter().map(|(callees, ops)| leaf_body(g, callees, ops)).collect()).collect()
        }
    };
    let leaves_of = |v: usize| inactive_leaves[v].clone();
    wrap(&mut built.starter, &index, &trees, levels, &leaves_of);
    wrap(&mut built.reference, &index, &trees, levels, &leaves_of);
    let defined: BTreeSet<&str> = built.reference.functions.iter().map(|f| f.name.as_str()).collect();
    let gone: BTreeSet<String> =
        (0..n).map(|v| g.name(v)).filter(|name| !defined.contains(name)).map(str::to_string).collect();
    if !gone.is_empty() {
        for f in built.reference.functions.iter_mut().filter(|f| f.name != "main") {
            calls_to_val(&mut f.body, &gone);
        }
    }
    let changed = |name: &str| {
        let find = |m: &Module| -> Option<Function> { m.functions.iter().find(|f| f.name == name).cloned() };
        find(&built.starter) != find(&built.reference)
    };
    for v in 0..n {
        if built.roles[v] == Role::Untouched && changed(g.name(v)) {
            built.roles[v] = Role::DeadCaller;
        }
    }
    let functions = cx
        .order
        .iter()
        .map(|&v| {
            let (guards, leaf, path) = &trees[v];
            FunctionBranches { name: g.name(v).to_string(), leaf: *leaf, path: path.clone(), guards: guards.clone() }
        })
        .collect();
    Record {
        hops: shape.hops,
        branches: shape.branches,
        breadth: shape.breadth,
        depth: shape.depth,
        functions,
        inactive_calls,
    }
}
