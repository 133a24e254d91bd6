//! What the app draws for a merge task: which piece (shared block, difference, return) every line
//! of each class's `compute()` belongs to, and the data-flow graph of the canonical program (which
//! variable feeds which), with each variable's name in the two classes.

use super::ir::{Segment, Var};
use super::render::Piece;
use super::Made;
use crate::graph::layout::{layered_lists, Layout};
use crate::graph::svg::esc_to;
use std::collections::hash_map::{Entry, HashMap};
use std::fmt::Write;

/// The data-flow drawing's sizes: a vertex's radius, the distance between the vertices of a layer
/// and between layers, and the margin (whole numbers: the drawing's size is a whole number).
const NODE_R: usize = 12;
const GAP_X: usize = 34;
const LAYER_GAP: usize = 46;
const MARGIN: usize = 18;

/// The hue of shared block `k`: golden-angle steps, so neighbouring blocks never look alike.
pub fn hue(k: usize) -> usize {
    (40 + k * 137) % 360
}

/// The solid colour of shared block `k` (the data-flow graph's vertices, the legend).
pub fn solid(k: usize) -> String {
    format!("hsl({}, 65%, 58%)", hue(k))
}

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
    /// The canonical program's data flow, with each variable's names in the two classes.
    pub fn new(made: &Made) -> Flow {
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
                Segment::Block(b) => {
                    for l in &b.lines {
                        piece_of[l.target] = Some(Piece::Block(block));
                        for u in l.reads() {
                            add(u, l.target, false, &mut edges);
                        }
                    }
                    block += 1;
                }
                Segment::Diff(d) => {
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
                if let Segment::Diff(d) = item {
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
        Flow { nodes, edges }
    }
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
    /// The drawing the app shows ([`FlowDrawing`]): parameters on top, each variable below every
    /// variable it reads, tinted by its block ([`solid`]), differences marked; each vertex titled
    /// with its names in the two classes. Each vertex carries its `data-at="layer,position"` and
    /// each line its `data-from`/`data-to` vertices (in document order), for a relayout.
    pub fn drawing(&self) -> FlowDrawing {
        let layout = self.layout();
        let widest = layout.layers.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let width = 2 * MARGIN + widest * GAP_X;
        let height = 2 * MARGIN + layout.layers.len().max(1) * LAYER_GAP;
        let mut centre = vec![(0.0, 0.0); self.nodes.len()];
        for (li, layer) in layout.layers.iter().enumerate() {
            let left = (width - layer.len() * GAP_X) as f64 / 2.0;
            for (i, &n) in layer.iter().enumerate() {
                centre[n] = (left + (i as f64 + 0.5) * GAP_X as f64, (MARGIN + li * LAYER_GAP + LAYER_GAP / 2) as f64);
            }
        }
        let r = NODE_R as f64;
        let mut out = String::with_capacity(230 * self.nodes.len() + 70 * self.edges.len() + 60);
        out.push_str("<g class=\"edges\">");
        for &(u, v, only_b) in &self.edges {
            let ((x1, y1), (x2, y2)) = (centre[u], centre[v]);
            let class = if only_b { "flow-edge only-b" } else { "flow-edge" };
            out.push_str("<line class=\"");
            out.push_str(class);
            let _ = write!(out, "\" x1=\"{x1:.1}\" y1=\"{:.1}\" x2=\"{x2:.1}\" y2=\"{:.1}", y1 + r, y2 - r);
            // Its ends by vertex, so the app can lay the drawing out again for its box.
            let _ = write!(out, "\" data-from=\"{u}\" data-to=\"{v}\"/>");
        }
        out.push_str("</g><g class=\"vertices\">");
        for (i, (n, &(x, y))) in self.nodes.iter().zip(&centre).enumerate() {
            out.push_str("<g class=\"flow-node");
            for (on, c) in [
                (matches!(n.piece, Some(Piece::Diff(_))), " flow-diff"),
                (n.piece.is_none(), " flow-param"),
                (n.leaf, " flow-leaf"),
            ] {
                if on {
                    out.push_str(c);
                }
            }
            let (li, pi) = layout.pos[i];
            let _ = write!(out, "\" transform=\"translate({x:.1},{y:.1})\" data-at=\"{li},{pi}\" data-name=\"");
            esc_to(&mut out, &n.name);
            // The title: `name (kind[, returned]): `a` in CalculateA, `b` in CalculateB`.
            out.push_str("\"><title>");
            esc_to(&mut out, &n.name);
            out.push_str(" (");
            let fill = match n.piece {
                None => {
                    out.push_str("parameter");
                    "var(--code-bg)".to_string()
                }
                Some(Piece::Block(k)) => {
                    let _ = write!(out, "block {}", k + 1);
                    solid(k)
                }
                Some(Piece::Diff(d)) => {
                    let _ = write!(out, "difference {}", d + 1);
                    "var(--error-border)".to_string()
                }
                Some(Piece::Return) => "var(--code-bg)".to_string(),
            };
            if n.leaf {
                out.push_str(", returned");
            }
            out.push_str("): ");
            for c in 0..2 {
                if c == 1 {
                    out.push_str(", ");
                }
                match &n.names[c] {
                    Some(x) => {
                        out.push('`');
                        esc_to(&mut out, x);
                        out.push_str("` in ");
                    }
                    None => out.push_str("folded into another line in "),
                }
                out.push_str(super::CLASSES[c]);
            }
            let _ =
                write!(out, "</title><circle r=\"{NODE_R}\" fill=\"{fill}\"/><text y=\"3.5\" text-anchor=\"middle\">");
            esc_to(&mut out, &n.name);
            out.push_str("</text></g>");
        }
        out.push_str("</g>");
        FlowDrawing { markup: out, width, height, vertices: self.nodes.len() }
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
    /// The data-flow graph's drawing.
    pub flow: FlowDrawing,
}

/// The data-flow graph as the app draws it: SVG markup made with the task, which the page inserts
/// whole (`n` + 10 variables, never clustered).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FlowDrawing {
    /// What goes inside the `<svg>` element: `<g class="edges">…</g><g class="vertices">…</g>`.
    pub markup: String,
    /// The drawing's size (its `viewBox` is `0 0 width height`).
    pub width: usize,
    pub height: usize,
    /// How many variables it draws.
    pub vertices: usize,
}

impl MergeView {
    pub fn new(made: &Made, flow: &Flow) -> MergeView {
        let p = &made.program;
        MergeView {
            lines: made.starter.lines.clone(),
            blocks: p.blocks().count(),
            diffs: p
                .diffs()
                .map(|d| DiffInfo { target: p.names[d.target].clone(), how: d.how.describe().to_string() })
                .collect(),
            block_lines: p.blocks().map(|b| b.lines.len()).collect(),
            flow: flow.drawing(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::TaskSpec;

    fn flow(query: &str) -> Flow {
        let spec = TaskSpec::from_pairs(query.split('&').map(|p| p.split_once('=').unwrap())).unwrap();
        Flow::new(&super::super::make(&spec).unwrap())
    }

    /// The number after each `at` in `markup` (up to its closing quote).
    fn numbers(markup: &str, at: &str) -> Vec<f64> {
        markup.split(at).skip(1).map(|rest| rest.split('"').next().unwrap().parse().unwrap()).collect()
    }

    /// Over many tasks: one vertex per variable and one line per edge, differences and parameters
    /// classed, every vertex named and titled, the tags balanced, every vertex inside the drawing
    /// and no two on one spot, every line's ends inside it.
    #[test]
    fn flow_drawing_draws_every_variable_inside_its_box() {
        for (n, d, seed) in [(5, 1, 1), (25, 2, 3), (40, 3, 7), (120, 4, 11), (300, 6, 2)] {
            let f = flow(&format!("v=1&kind=merge_codebases&n={n}&seed={seed}&d={d}"));
            let w = f.drawing();
            let m = &w.markup;
            let c = format!("n={n} seed={seed}");
            assert_eq!(w.vertices, f.nodes.len(), "{c}");
            assert_eq!(m.matches("<g class=\"flow-node").count(), f.nodes.len(), "{c}");
            assert_eq!(m.matches("<line class=\"flow-edge").count(), f.edges.len(), "{c}");
            assert_eq!(m.matches(" only-b\"").count(), f.edges.iter().filter(|e| e.2).count(), "{c}");
            assert_eq!(m.matches(" flow-diff").count(), d, "{c}");
            assert_eq!(m.matches(" flow-param").count(), f.nodes.iter().filter(|n| n.piece.is_none()).count(), "{c}");
            assert_eq!(m.matches("<title>").count(), f.nodes.len(), "{c}");
            for v in &f.nodes {
                assert!(m.contains(&format!("data-name=\"{}\"", v.name)), "{c}: {} is not drawn", v.name);
            }
            let opened = m.matches('<').count() - 2 * m.matches("</").count();
            assert_eq!(opened, m.matches("/>").count(), "{c}: unbalanced tags");
            let spots: Vec<(f64, f64)> = m
                .split("translate(")
                .skip(1)
                .map(|r| {
                    let (x, y) = r.split_once(')').unwrap().0.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            assert_eq!(spots.len(), f.nodes.len(), "{c}");
            for &(x, y) in &spots {
                assert!(x > 0.0 && x < w.width as f64 && y > 0.0 && y < w.height as f64, "{c}: ({x}, {y}) outside");
            }
            let mut spots: Vec<(i64, i64)> =
                spots.iter().map(|&(x, y)| ((x * 10.0) as i64, (y * 10.0) as i64)).collect();
            spots.sort_unstable();
            spots.dedup();
            assert_eq!(spots.len(), f.nodes.len(), "{c}: two vertices on one spot");
            for at in ["x1=\"", "x2=\""] {
                assert!(numbers(m, at).iter().all(|&x| x > 0.0 && x < w.width as f64), "{c}");
            }
            for at in ["y1=\"", "y2=\""] {
                assert!(numbers(m, at).iter().all(|&y| y > 0.0 && y < w.height as f64), "{c}");
            }
        }
    }

    /// Names from the task are escaped in the markup.
    /// Every vertex names its place in the layout and every line its two vertices, for the app's
    /// relayout: the places are the layout's, the ends the edges'.
    #[test]
    fn flow_drawing_names_places_and_ends() {
        for (n, seed) in [(5, 1), (25, 0), (120, 4)] {
            let f = flow(&format!("v=1&kind=merge_codebases&n={n}&seed={seed}"));
            let m = f.drawing().markup;
            let at: Vec<(usize, usize)> = m
                .split(" data-at=\"")
                .skip(1)
                .map(|r| {
                    let (l, p) = r.split('"').next().unwrap().split_once(',').unwrap();
                    (l.parse().unwrap(), p.parse().unwrap())
                })
                .collect();
            assert_eq!(at, f.layout().pos, "n={n}");
            let ends: Vec<(usize, usize, bool)> = numbers(&m, " data-from=\"")
                .into_iter()
                .zip(numbers(&m, " data-to=\""))
                .zip(&f.edges)
                .map(|((u, v), e)| (u as usize, v as usize, e.2))
                .collect();
            assert_eq!(ends, f.edges, "n={n}");
        }
    }

    #[test]
    fn flow_drawing_escapes_names() {
        let mut f = flow("v=1&kind=merge_codebases&n=5&seed=1");
        f.nodes[0].name = "a<b&\"c'".into();
        let m = f.drawing().markup;
        assert!(m.contains("data-name=\"a&lt;b&amp;&quot;c&#39;\""), "{m:.400}");
        assert!(!m.contains("a<b"));
    }
}
