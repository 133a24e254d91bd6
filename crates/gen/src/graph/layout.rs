//! A layered drawing of a call graph: longest-path layers (callers above callees), then a few
//! barycentre sweeps to reduce crossings. Pure; the app turns it into SVG.

use super::CallGraph;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Layout {
    /// Vertices per layer, left to right.
    pub layers: Vec<Vec<usize>>,
    /// (layer, position) of each vertex.
    pub pos: Vec<(usize, usize)>,
}

pub fn layered(g: &CallGraph) -> Layout {
    let n = g.len();
    // Longest path from any source: a vertex sits one layer below its deepest caller.
    let order = petgraph::algo::toposort(&g.g, None)
        .map(|o| o.into_iter().map(|v| v.index()).collect::<Vec<_>>())
        .unwrap_or_else(|_| (0..n).collect());
    let parents: Vec<Vec<usize>> = (0..n).map(|v| g.parents(v)).collect();
    let children: Vec<Vec<usize>> = (0..n).map(|v| g.children(v)).collect();
    layered_in(&order, &parents, &children)
}

/// The same drawing for any DAG given as children lists (vertex `u` above each of `children[u]`),
/// such as the data-flow graph of a merge task.
pub fn layered_lists(n: usize, children: &[Vec<usize>]) -> Layout {
    let mut parents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut indegree = vec![0usize; n];
    for (u, cs) in children.iter().enumerate() {
        for &v in cs {
            parents[v].push(u);
            indegree[v] += 1;
        }
    }
    // Kahn's order, smallest index first among the ready vertices.
    let mut ready: std::collections::BTreeSet<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(u) = ready.pop_first() {
        order.push(u);
        for &v in &children[u] {
            indegree[v] -= 1;
            if indegree[v] == 0 {
                ready.insert(v);
            }
        }
    }
    if order.len() < n {
        order = (0..n).collect();
    }
    layered_in(&order, &parents, children)
}

fn layered_in(order: &[usize], parents: &[Vec<usize>], children: &[Vec<usize>]) -> Layout {
    let n = order.len();
    let mut layer = vec![0usize; n];
    for &u in order {
        for &v in &children[u] {
            layer[v] = layer[v].max(layer[u] + 1);
        }
    }
    let depth = layer.iter().copied().max().map_or(0, |d| d + 1);
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for &u in order {
        layers[layer[u]].push(u);
    }
    let mut pos = vec![0usize; n];
    let index = |layers: &Vec<Vec<usize>>, pos: &mut Vec<usize>| {
        for l in layers {
            for (i, &v) in l.iter().enumerate() {
                pos[v] = i;
            }
        }
    };
    index(&layers, &mut pos);
    for sweep in 0..6 {
        let down = sweep % 2 == 0;
        let range: Vec<usize> = if down { (1..depth).collect() } else { (0..depth.saturating_sub(1)).rev().collect() };
        for li in range {
            let mut keyed: Vec<(f64, usize)> = layers[li]
                .iter()
                .map(|&v| {
                    let nb = if down { &parents[v] } else { &children[v] };
                    let b = if nb.is_empty() {
                        pos[v] as f64
                    } else {
                        nb.iter().map(|&u| pos[u] as f64).sum::<f64>() / nb.len() as f64
                    };
                    (b, v)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal).then(a.1.cmp(&b.1)));
            layers[li] = keyed.into_iter().map(|(_, v)| v).collect();
            for (i, &v) in layers[li].iter().enumerate() {
                pos[v] = i;
            }
        }
    }
    let mut out = vec![(0, 0); n];
    for (li, l) in layers.iter().enumerate() {
        for (i, &v) in l.iter().enumerate() {
            out[v] = (li, i);
        }
    }
    Layout { layers, pos: out }
}

/// Where an arrow key goes from item `i` of a drawing in rows (`rows`: item indices left to right,
/// rows top to bottom; `pos`: each item's (row, position); `centre`: each item's centre): along its row,
/// or to the item of the row above or below nearest to it across (`None` at an edge or for another
/// key). The plain call graph and the clustered one both move their focus by it.
pub fn arrow_target(
    rows: &[Vec<usize>],
    pos: &[(usize, usize)],
    centre: &[(f64, f64)],
    i: usize,
    key: &str,
) -> Option<usize> {
    let &(r, k) = pos.get(i)?;
    let row = rows.get(r)?;
    let x = centre.get(i)?.0;
    let nearest = |target: Option<&Vec<usize>>| {
        target?.iter().copied().min_by(|&a, &b| (centre[a].0 - x).abs().total_cmp(&(centre[b].0 - x).abs()))
    };
    match key {
        "ArrowLeft" => k.checked_sub(1).map(|j| row[j]),
        "ArrowRight" => row.get(k + 1).copied(),
        "ArrowUp" => nearest(r.checked_sub(1).and_then(|l| rows.get(l))),
        "ArrowDown" => nearest(rows.get(r + 1)),
        "Home" => row.first().copied(),
        "End" => row.last().copied(),
        _ => None,
    }
}
