//! Call graphs: sampling C_init and C_edit, the shared skeleton every graph kind joins its edit graph
//! to ([`Join`], [`build`]; the joins themselves live with the kinds in `kinds/`), naming.
//!
//! The main graph and the edit graph depend only on the sizes and the seed, never on the kind or
//! the domain, so one seed gives the same untouched code across kinds (as the reference shares one
//! DAG per sample across task types). Each kind's cross edges come from a stream of its own.

pub mod bigsvg;
pub mod cluster;
pub mod dot;
pub mod layout;
pub mod names;
pub mod sample;
pub mod svg;

use crate::rng::{stream, Rng};
use crate::spec::{Kind, TaskSpec};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
pub use sample::Layered;
use sample::{add_layered_edges, below, between, expected_count, geometric_offset, random_dag, uniform};
use serde::Serialize;

/// Sampler constants shared by every experiment of the paper (generation.md §5.1).
pub const PROP_RANGE: (f64, f64) = (0.45, 0.55);
pub const P_SAME: f64 = 0.9;
pub const P_EXTRA: f64 = 0.3;
pub const BETA: f64 = 0.3;
pub const ATTACH_P_SAME: f64 = 0.9;
/// Rejection bound for the tree of cache / DRY (the reference gives up after 50; a tree of two or
/// more nodes has a far smaller failure chance per draw than 1/2, so this bound is never reached).
pub const MAX_TREE_ATTEMPTS: usize = 10_000;

/// Which part of the joined graph a vertex came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// C_init, including its wrapper root.
    Init,
    /// C_edit (the edit DAG E, or the tree T).
    Edit,
    /// The wrapper of C_edit: parameter root, return sink, cache root (LCA), DRY sink (NCD), or the
    /// wrapper root of the dead code.
    Special,
}

/// A vertex: a function name and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Node {
    pub name: String,
    pub part: Part,
}

/// The joined call graph of one task. Vertex ids are petgraph node indices; ids follow the
/// reference's node order (main nodes with the main wrapper root last among them, then the spliced
/// sub-DAG with its wrapper last). Edges are kept in insertion order; duplicates collapse.
#[derive(Clone, Debug)]
pub struct CallGraph {
    pub g: DiGraph<Node, ()>,
    /// Levels of C_init as sampled, the wrapper root's level first.
    pub main_levels: Vec<Vec<usize>>,
    /// Levels of C_edit (E or T) as sampled, in joined ids (the wrapper is not in them).
    pub edit_levels: Vec<Vec<usize>>,
    /// The main wrapper root.
    pub main_root: usize,
    /// The wrapper of C_edit.
    pub special: usize,
    /// Roots that `main()` must not call (the dead code's wrapper root).
    pub excluded_entries: Vec<usize>,
}

impl CallGraph {
    pub fn len(&self) -> usize {
        self.g.node_count()
    }
    pub fn is_empty(&self) -> bool {
        self.g.node_count() == 0
    }
    pub fn name(&self, v: usize) -> &str {
        &self.g[NodeIndex::new(v)].name
    }
    pub fn part(&self, v: usize) -> Part {
        self.g[NodeIndex::new(v)].part
    }
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.g.node_indices().find(|&i| self.g[i].name == name).map(|i| i.index())
    }
    fn add_edge(&mut self, u: usize, v: usize) {
        let (a, b) = (NodeIndex::new(u), NodeIndex::new(v));
        if self.g.find_edge(a, b).is_none() {
            self.g.add_edge(a, b, ());
        }
    }
    /// Callees of `v`, in edge insertion order.
    pub fn children(&self, v: usize) -> Vec<usize> {
        self.neighbors(v, Direction::Outgoing)
    }
    /// Callers of `v`, in edge insertion order.
    pub fn parents(&self, v: usize) -> Vec<usize> {
        self.neighbors(v, Direction::Incoming)
    }
    /// The neighbours of `v` one way, in edge insertion order: petgraph lists them newest first (its
    /// documented order for a directed `Graph`; no edge is ever removed, which would reorder them).
    fn neighbors(&self, v: usize, dir: Direction) -> Vec<usize> {
        let mut out: Vec<usize> = self.g.neighbors_directed(NodeIndex::new(v), dir).map(|u| u.index()).collect();
        out.reverse();
        out
    }
    pub fn in_degree(&self, v: usize) -> usize {
        self.g.edges_directed(NodeIndex::new(v), Direction::Incoming).count()
    }
    pub fn out_degree(&self, v: usize) -> usize {
        self.g.edges(NodeIndex::new(v)).count()
    }
    /// Every edge as (caller, callee), in insertion order.
    pub fn edges(&self) -> Vec<(usize, usize)> {
        self.g.edge_references().map(|e| (e.source().index(), e.target().index())).collect()
    }
    /// The functions `main()` calls: vertices nobody calls, minus the excluded roots, in node order.
    pub fn entries(&self) -> Vec<usize> {
        (0..self.len()).filter(|&v| self.in_degree(v) == 0 && !self.excluded_entries.contains(&v)).collect()
    }
    /// Vertices of C_edit and its wrapper.
    pub fn edit_side(&self) -> Vec<usize> {
        (0..self.len()).filter(|&v| self.part(v) != Part::Init).collect()
    }
    /// Everything reachable from `v`, `v` included.
    pub fn descendants(&self, v: usize) -> Vec<bool> {
        let mut seen = vec![false; self.len()];
        let mut stack = vec![v];
        while let Some(u) = stack.pop() {
            if std::mem::replace(&mut seen[u], true) {
                continue;
            }
            stack.extend(self.children(u));
        }
        seen
    }
    /// Everything that reaches `v`, `v` included.
    pub fn ancestors(&self, v: usize) -> Vec<bool> {
        let mut seen = vec![false; self.len()];
        let mut stack = vec![v];
        while let Some(u) = stack.pop() {
            if std::mem::replace(&mut seen[u], true) {
                continue;
            }
            stack.extend(self.parents(u));
        }
        seen
    }
    pub fn is_acyclic(&self) -> bool {
        !petgraph::algo::is_cyclic_directed(&self.g)
    }
    /// The networkx node-link form the reference stores. The lists go in as they are: in `json!` they
    /// would be converted (serialised) into a copy of themselves.
    pub fn node_link(&self) -> serde_json::Value {
        use serde_json::{json, Map, Value};
        let nodes = (0..self.len()).map(|v| json!({ "id": self.name(v) })).collect();
        let edges = self
            .g
            .edge_references()
            .map(|e| json!({ "source": self.name(e.source().index()), "target": self.name(e.target().index()) }))
            .collect();
        let mut m = Map::new();
        m.insert("directed".into(), Value::Bool(true));
        m.insert("multigraph".into(), Value::Bool(false));
        m.insert("graph".into(), Value::Object(Map::new()));
        m.insert("nodes".into(), Value::Array(nodes));
        m.insert("edges".into(), Value::Array(edges));
        Value::Object(m)
    }
}

impl CallGraph {
    /// A graph of the functions `names` (vertex `i` is `names[i]`) and the calls `edges`, added in
    /// their order (so that a graph written out by [`CallGraph::edges`] and read back this way has the
    /// same layout); every part is [`Part::Init`] (the layout does not read it). The indices must be
    /// in range (the caller checks them: `bigsvg`).
    /// A graph of these vertices, in their order, with no calls yet and no levels (the hand-made and
    /// read-back graphs start here).
    fn of_nodes(nodes: impl Iterator<Item = Node>) -> CallGraph {
        let mut g: DiGraph<Node, ()> = DiGraph::new();
        for node in nodes {
            g.add_node(node);
        }
        CallGraph { g, main_levels: vec![], edit_levels: vec![], main_root: 0, special: 0, excluded_entries: vec![] }
    }

    pub fn from_indexed(names: &[String], edges: &[(usize, usize)]) -> CallGraph {
        let mut cg = CallGraph::of_nodes(names.iter().map(|name| Node { name: name.clone(), part: Part::Init }));
        for &(u, v) in edges {
            cg.add_edge(u, v);
        }
        cg
    }
}

impl CallGraph {
    /// A small hand-made graph (the worked examples of the problem statements). `main_root` is the
    /// untouched function `main()` calls; `special` is the edit graph's wrapper.
    pub fn from_edges(
        nodes: &[(&str, Part)],
        edges: &[(&str, &str)],
        main_root: &str,
        special: &str,
        excluded_entries: &[&str],
    ) -> CallGraph {
        let mut cg = CallGraph::of_nodes(nodes.iter().map(|(name, part)| Node { name: name.to_string(), part: *part }));
        let id = |cg: &CallGraph, n: &str| cg.index_of(n).unwrap_or_else(|| panic!("example node {n}"));
        for (u, v) in edges {
            let (a, b) = (id(&cg, u), id(&cg, v));
            cg.add_edge(a, b);
        }
        cg.main_root = id(&cg, main_root);
        cg.special = id(&cg, special);
        cg.excluded_entries = excluded_entries.iter().map(|n| id(&cg, n)).collect();
        cg
    }
}

/// The stable key of a spec's graphs: sizes and seed, not kind or domain.
pub fn dag_key(spec: &TaskSpec) -> String {
    let s = spec.sizes();
    format!("cabrito-dag|v{}|n_init={}|n_edit={}|seed={}", spec.v, s.n_init, s.n_edit, spec.seed)
}

/// Draw sampler parameters, then a layered DAG, optionally with extra edges.
fn layered(rng: &mut Rng, n: usize, extra: bool) -> Layered {
    let prop = uniform(rng, PROP_RANGE.0, PROP_RANGE.1);
    let mut g = random_dag(rng, n, prop, P_SAME);
    if extra {
        add_layered_edges(rng, &mut g, P_EXTRA, P_SAME);
    }
    g
}

/// Sample the tree of cache / DRY: a forest with at least two roots (§1.9, §7.12).
fn tree(rng: &mut Rng, n: usize) -> Layered {
    for _ in 0..MAX_TREE_ATTEMPTS {
        let t = layered(rng, n, false);
        if t.levels.first().map_or(0, |l| l.len()) >= 2 {
            return t;
        }
    }
    unreachable!("a tree of {n} >= 2 nodes with two roots is found long before the bound")
}

/// Cut the main levels at `cut` ∈ {-1..L-1}: (above nearest first, below nearest first).
fn split_levels_at(levels: &[Vec<usize>], cut: i64) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let above: Vec<Vec<usize>> = if cut < 0 { vec![] } else { levels[..=cut as usize].iter().rev().cloned().collect() };
    let below: Vec<Vec<usize>> = levels[(cut + 1) as usize..].to_vec();
    (above, below)
}

/// The shared name pool (generation.md §1.8): main names, then n_edit edit names, the return sink,
/// the parameter root, n_edit tree names, the cache root, the DRY sink. Every kind draws the same
/// pool (so one seed names its untouched functions alike across kinds) and takes the slots it uses.
pub struct NamePlan {
    pool: Vec<String>,
    n_main: usize,
    n_edit: usize,
}

impl NamePlan {
    fn main(&self, i: usize) -> String {
        self.pool[i].clone()
    }
    /// The i-th node of the edit DAG E.
    pub fn edit(&self, i: usize) -> String {
        self.pool[self.n_main + i].clone()
    }
    /// The sink wrapped under E (add return value).
    pub fn return_sink(&self) -> String {
        self.pool[self.n_main + self.n_edit].clone()
    }
    /// The root wrapped over E (add parameter; also the dead code's root).
    pub fn param_root(&self) -> String {
        self.pool[self.n_main + self.n_edit + 1].clone()
    }
    /// The i-th node of the tree T.
    pub fn tree(&self, i: usize) -> String {
        self.pool[self.n_main + self.n_edit + 2 + i].clone()
    }
    /// The root wrapped over T (cache).
    pub fn cache_root(&self) -> String {
        self.pool[self.n_main + 2 * self.n_edit + 2].clone()
    }
    /// The sink wrapped under reverse(T) (DRY).
    pub fn extract_sink(&self) -> String {
        self.pool[self.n_main + 2 * self.n_edit + 3].clone()
    }
}

/// The shared skeleton a kind joins its edit graph to (generation.md §1.7): C_init with its
/// wrapper root already in the graph, the name pool, and the kind's own attach stream
/// (`graph/attach/<kind>`). A kind's `join` samples its edit graph ([`Join::edit_dag`] or
/// [`Join::tree`]), splices it in, adds its wrapper, and draws the cross edges.
pub struct Join {
    pub cg: CallGraph,
    pub names: NamePlan,
    /// The attach stream of the kind.
    pub rng: Rng,
    key: String,
    n_edit: usize,
}

impl Join {
    /// Size of C_edit.
    pub fn n_edit(&self) -> usize {
        self.n_edit
    }
    /// Vertices of C_init and its wrapper (ids `0..n_main`).
    pub fn n_main(&self) -> usize {
        self.names.n_main
    }
    /// The edit DAG E (stream `graph/edit`): a layered DAG with extra edges.
    pub fn edit_dag(&self) -> Layered {
        layered(&mut stream(&self.key, "graph/edit"), self.n_edit, true)
    }
    /// The tree T of cache / DRY (stream `graph/tree`): a forest with at least two roots.
    pub fn tree(&self) -> Layered {
        tree(&mut stream(&self.key, "graph/tree"), self.n_edit)
    }
    /// Splice a sampled graph in as C_edit (its vertex `i` becomes `n_main + i`, named `name(i)`);
    /// returns the new ids.
    pub fn splice(&mut self, sub: &Layered, name: impl Fn(&NamePlan, usize) -> String) -> Vec<usize> {
        let base = self.n_main();
        for i in 0..sub.n {
            let node = Node { name: name(&self.names, i), part: Part::Edit };
            self.cg.g.add_node(node);
        }
        for &(u, v) in &sub.edges {
            self.cg.add_edge(base + u, base + v);
        }
        self.cg.edit_levels = sub.levels.iter().map(|l| l.iter().map(|&v| base + v).collect()).collect();
        (base..base + sub.n).collect()
    }
    /// Add C_edit's wrapper (root or sink), the graph's `special` vertex.
    pub fn add_special(&mut self, name: String) -> usize {
        let id = self.cg.g.add_node(Node { name, part: Part::Special }).index();
        self.cg.special = id;
        id
    }
    pub fn add_edge(&mut self, u: usize, v: usize) {
        self.cg.add_edge(u, v);
    }
    /// Draw a cut of the main levels: (levels above it, nearest first; levels below it).
    pub fn cut(&mut self) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let cut = between(&mut self.rng, -1, self.cg.main_levels.len() as i64 - 1);
        split_levels_at(&self.cg.main_levels, cut)
    }
    /// Add about β·|pool| cross edges between endpoints and the pool `levels`, 90% of them in the
    /// level nearest the cut (generation.md §1.6); `endpoint_to_pool` gives their direction.
    pub fn attach(&mut self, endpoints: &[usize], levels: &[Vec<usize>], endpoint_to_pool: bool) {
        attach(&mut self.rng, &mut self.cg, endpoints, levels, endpoint_to_pool);
    }
}

/// Add about β·|pool| cross edges between endpoints and the pool, 90% of them in the level
/// nearest the cut (generation.md §1.6).
fn attach(rng: &mut Rng, cg: &mut CallGraph, endpoints: &[usize], levels: &[Vec<usize>], endpoint_to_pool: bool) {
    let nonempty: Vec<&Vec<usize>> = levels.iter().filter(|l| !l.is_empty()).collect();
    let pool: usize = nonempty.iter().map(|l| l.len()).sum();
    if endpoints.is_empty() || pool == 0 {
        return;
    }
    let count = expected_count(rng, BETA * pool as f64);
    for _ in 0..count {
        let e = endpoints[below(rng, endpoints.len())];
        let li = geometric_offset(rng, ATTACH_P_SAME, nonempty.len()) - 1;
        let level = nonempty[li];
        let p = level[below(rng, level.len())];
        if endpoint_to_pool {
            cg.add_edge(e, p);
        } else {
            cg.add_edge(p, e);
        }
    }
}

/// The joined call graph of a spec, when its kind is made from one.
pub fn build(spec: &TaskSpec) -> Option<CallGraph> {
    let gk = spec.kind.def().graph()?;
    Some(build_with(spec, spec.kind, |j| gk.join(j)))
}

/// Sample C_init, name the pool, and let `kind` join its edit graph (the kind's own part of
/// generation.md §1.7). C_init, C_edit and the names depend only on the sizes and the seed, never on
/// the kind or the domain; the cross edges come from the kind's own stream.
pub fn build_with(spec: &TaskSpec, kind: Kind, join: impl FnOnce(&mut Join)) -> CallGraph {
    let sizes = spec.sizes();
    let key = dag_key(spec);
    let (n_init, n_edit) = (sizes.n_init as usize, sizes.n_edit as usize);

    // C_init with its wrapper root (id n_init).
    let main = layered(&mut stream(&key, "graph/main"), n_init, true);
    let n_main = n_init + 1;
    let main_root = n_init;
    let mut main_levels = vec![vec![main_root]];
    main_levels.extend(main.levels.iter().cloned());

    let names = {
        let size = n_main + 2 * (n_edit + 2);
        let mut pool = names::symbolic_pool(size);
        sample::shuffle(&mut stream(&key, "names"), &mut pool);
        NamePlan { pool, n_main, n_edit }
    };

    let mut g: DiGraph<Node, ()> = DiGraph::new();
    for i in 0..n_main {
        g.add_node(Node { name: names.main(i), part: Part::Init });
    }
    let mut cg = CallGraph { g, main_levels, edit_levels: vec![], main_root, special: 0, excluded_entries: vec![] };
    for &(u, v) in &main.edges {
        cg.add_edge(u, v);
    }
    for &v in &main.levels[0] {
        cg.add_edge(main_root, v);
    }
    let rng = stream(&key, &format!("graph/attach/{}", kind.as_str()));
    let mut j = Join { cg, names, rng, key, n_edit };
    join(&mut j);
    j.cg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Axis, Domain};

    #[test]
    fn every_graph_kind_builds_acyclic() {
        for &kind in Kind::ALL {
            if kind.def().graph().is_none() {
                continue;
            }
            for seed in 0..20 {
                let spec = TaskSpec::new(kind, Domain::Math, Axis::Traversal, 10, seed);
                let g = build(&spec).expect("a call-graph kind");
                assert!(g.is_acyclic());
                assert_eq!(g.len(), 26 + 11);
            }
        }
    }
}
