//! What the app draws for a merge task: which piece (shared block, difference, return) every line
//! of each class's `compute()` belongs to, and the data-flow graph of the canonical program (which
//! variable feeds which), with each variable's name in the two classes.

use super::ir::{Item, Var};
use super::render::Piece;
use super::Made;
use crate::graph::layout::{layered_lists, Layout};
use std::collections::hash_map::{Entry, HashMap};

/// A variable of the data-flow graph.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FlowNode {
    /// Its canonical name (as in the reference solution).
    pub name: String,
    /// Where it is assigned (`None` for a parameter).
    pub piece: Option<Piece>,
    /// Its name in `CalculateA` and `CalculateB`; `None` when the class folded its line into another.
    pub names: [Option<String>; 2],
    /// Returned (read by no line).
    pub leaf: bool,
}

/// The data-flow graph: an edge `u → v` when the line of `v` reads `u`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Flow {
    pub nodes: Vec<FlowNode>,
    /// `(from, to, only_b)`: `only_b` for an edge only `CalculateB`'s side of a difference has.
    pub edges: Vec<(usize, usize, bool)>,
}

impl Flow {
    /// Children lists (for the layout).
    pub fn children(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.nodes.len()];
        for &(u, v, _) in &self.edges {
            out[u].push(v);
        }
        out
    }
    /// A layered drawing: parameters on top, each variable below everything it reads.
    pub fn layout(&self) -> Layout {
        layered_lists(self.nodes.len(), &self.children())
    }
    /// The networkx node-link form (the record's `graph`).
    pub fn node_link(&self) -> serde_json::Value {
        let nodes: Vec<_> = self
            .nodes
            .iter()
            .map(|n| {
                let (kind, index) = match n.piece {
                    None => ("param", 0),
                    Some(Piece::Block(k)) => ("block", k),
                    Some(Piece::Diff(i)) => ("difference", i),
                    Some(Piece::Return) => ("return", 0),
                };
                serde_json::json!({ "id": n.name, "kind": kind, "index": index, "leaf": n.leaf,
                    "name_a": n.names[0], "name_b": n.names[1] })
            })
            .collect();
        let edges: Vec<_> = self
            .edges
            .iter()
            .map(|&(u, v, b)| serde_json::json!({ "source": self.nodes[u].name, "target": self.nodes[v].name, "only_b": b }))
            .collect();
        // Built in place: `json!` would copy the two lists value by value.
        let mut graph = serde_json::Map::new();
        graph.insert("directed".into(), true.into());
        graph.insert("multigraph".into(), false.into());
        graph.insert("graph".into(), serde_json::Map::new().into());
        graph.insert("nodes".into(), serde_json::Value::Array(nodes));
        graph.insert("edges".into(), serde_json::Value::Array(edges));
        serde_json::Value::Object(graph)
    }
}

/// One difference, for the app.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DiffInfo {
    /// The canonical target.
    pub target: String,
    /// How `CalculateB`'s line differs from `CalculateA`'s.
    pub how: String,
}

/// Everything the app draws for a merge task.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MergeView {
    /// Per class, the 1-based starter line and piece of every line of its `compute()`.
    pub lines: [Vec<(usize, Piece)>; 2],
    /// Shared blocks.
    pub blocks: usize,
    pub diffs: Vec<DiffInfo>,
    /// Lines of each block in the canonical program.
    pub block_lines: Vec<usize>,
    pub flow: Flow,
}

impl MergeView {
    pub fn new(made: &Made) -> MergeView {
        let p = &made.program;
        let mut piece_of: Vec<Option<Piece>> = vec![None; p.names.len()];
        let (mut block, mut diff) = (0, 0);
        let mut edges: Vec<(usize, usize, bool)> = Vec::new();
        // Each edge's place in `edges`, which keeps the order edges are first met in.
        let mut at: HashMap<(Var, Var), usize> = HashMap::new();
        let mut add = |u: Var, v: Var, only_b: bool, edges: &mut Vec<(usize, usize, bool)>| match at.entry((u, v)) {
            Entry::Occupied(e) => edges[*e.get()].2 &= only_b,
            Entry::Vacant(e) => {
                e.insert(edges.len());
                edges.push((u, v, only_b));
            }
        };
        for item in &p.items {
            match item {
                Item::Block(b) => {
                    for l in &b.lines {
                        piece_of[l.target] = Some(Piece::Block(block));
                        for u in l.reads() {
                            add(u, l.target, false, &mut edges);
                        }
                    }
                    block += 1;
                }
                Item::Diff(d) => {
                    piece_of[d.target] = Some(Piece::Diff(diff));
                    for u in d.canon.reads() {
                        add(u, d.target, false, &mut edges);
                    }
                    for u in d.pert.reads() {
                        add(u, d.target, true, &mut edges);
                    }
                    diff += 1;
                }
            }
        }
        // A canonical variable keeps a name in a class when the class still assigns it (or it is a parameter).
        let assigned = |class: usize| -> Vec<bool> {
            let mut a = vec![false; p.names.len()];
            a.iter_mut().take(p.params).for_each(|x| *x = true);
            for (i, item) in p.items.iter().enumerate() {
                for l in super::rewrite::item_lines(p, &made.classes[class], i, class) {
                    if l.target < a.len() {
                        a[l.target] = true;
                    }
                }
                if let Item::Diff(d) = item {
                    a[d.target] = true;
                }
            }
            a
        };
        let kept = [assigned(0), assigned(1)];
        let mut leaf = vec![false; p.names.len()];
        for &v in &p.leaves {
            leaf[v] = true;
        }
        let nodes = (0..p.names.len())
            .map(|v| FlowNode {
                name: p.names[v].clone(),
                piece: piece_of[v],
                names: [0, 1].map(|c| kept[c][v].then(|| made.classes[c].names[v].clone())),
                leaf: leaf[v],
            })
            .collect();
        MergeView {
            lines: made.starter.lines.clone(),
            blocks: p.blocks().count(),
            diffs: p
                .diffs()
                .map(|d| DiffInfo { target: p.names[d.target].clone(), how: d.how.describe().to_string() })
                .collect(),
            block_lines: p.blocks().map(|b| b.lines.len()).collect(),
            flow: Flow { nodes, edges },
        }
    }
}
