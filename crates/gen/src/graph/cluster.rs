//! A big call graph drawn in clusters: the layered drawing's layers grouped into at most
//! [`MAX_BANDS`] bands, and each band's vertices of one group (the kind's role) into clusters of at
//! most [`MAX_MEMBERS`], left to right as the layout ordered them. A cluster is drawn as one box with
//! its count until it is opened, when its functions appear in its place; edges between boxes are the
//! graph's edges projected onto what is drawn, one per pair with its count. Pure; the app
//! (`web/graph.rs`) draws [`Drawn`].

use super::layout::{arrow_target, Layout};
use std::collections::{BTreeMap, BTreeSet};

/// Graphs with more vertices than this are drawn in clusters (smaller ones vertex by vertex).
pub const CLUSTER_FROM: usize = 400;
/// At most this many bands (rows of clusters): deeper layouts put several layers in one band.
pub const MAX_BANDS: usize = 14;
/// At most this many functions in one cluster.
pub const MAX_MEMBERS: usize = 40;

#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// The band (row) it is drawn in.
    pub band: usize,
    /// The first and last layer of its band.
    pub layers: (usize, usize),
    /// The group key of every member (the caller's: a role's index).
    pub group: usize,
    /// Its vertices, in the layout's order (layer by layer, left to right).
    pub members: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Clustering {
    pub clusters: Vec<Cluster>,
    /// The cluster of each vertex.
    pub of: Vec<usize>,
    /// Cluster ids per band, left to right.
    pub bands: Vec<Vec<usize>>,
}

/// What is drawn for a vertex: its cluster's box, or the vertex itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DrawnItem {
    /// A closed cluster's box, or an open one's heading.
    Cluster(usize),
    Vertex(usize),
}

/// Group a layout's vertices into clusters: `group[v]` is vertex `v`'s group (vertices of different
/// groups never share a cluster), `max_bands` bounds the rows and `max_members` a cluster's size.
pub fn cluster(layout: &Layout, group: &[usize], max_bands: usize, max_members: usize) -> Clustering {
    let depth = layout.layers.len();
    let per_band = depth.div_ceil(max_bands.max(1)).max(1);
    let n_bands = depth.div_ceil(per_band);
    let n = layout.pos.len();
    let mut clusters: Vec<Cluster> = Vec::new();
    let mut bands: Vec<Vec<usize>> = Vec::with_capacity(n_bands);
    for b in 0..n_bands {
        let (first, last) = (b * per_band, ((b + 1) * per_band).min(depth) - 1);
        // Each group's vertices in the band, in the layout's order, with where across its layer each sits.
        let mut by_group: BTreeMap<usize, Vec<(usize, f64)>> = BTreeMap::new();
        for layer in &layout.layers[first..=last] {
            let width = layer.len().max(1) as f64;
            for (i, &v) in layer.iter().enumerate() {
                by_group.entry(group.get(v).copied().unwrap_or(0)).or_default().push((v, (i as f64 + 0.5) / width));
            }
        }
        let mut here: Vec<(f64, usize, usize, Vec<usize>)> = Vec::new();
        for (g, vs) in by_group {
            // Split a big group evenly into chunks of at most max_members.
            let chunks = vs.len().div_ceil(max_members.max(1));
            let size = vs.len().div_ceil(chunks.max(1));
            for chunk in vs.chunks(size.max(1)) {
                let across = chunk.iter().map(|&(_, x)| x).sum::<f64>() / chunk.len() as f64;
                here.push((across, g, chunk[0].0, chunk.iter().map(|&(v, _)| v).collect()));
            }
        }
        // Left to right by where the members sit across their layers.
        here.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        let mut ids = Vec::with_capacity(here.len());
        for (_, g, _, members) in here {
            ids.push(clusters.len());
            clusters.push(Cluster { band: b, layers: (first, last), group: g, members });
        }
        bands.push(ids);
    }
    let mut of = vec![0; n];
    for (c, cl) in clusters.iter().enumerate() {
        for &v in &cl.members {
            of[v] = c;
        }
    }
    Clustering { clusters, of, bands }
}

impl Clustering {
    /// A cluster is open (its functions drawn) when asked, and always when it has one member.
    pub fn is_open(&self, c: usize, open: &BTreeSet<usize>) -> bool {
        self.clusters.get(c).is_some_and(|cl| cl.members.len() == 1) || open.contains(&c)
    }

    /// What is drawn for vertex `v`.
    pub fn item_of(&self, v: usize, open: &BTreeSet<usize>) -> DrawnItem {
        let c = self.of[v];
        if self.is_open(c, open) {
            DrawnItem::Vertex(v)
        } else {
            DrawnItem::Cluster(c)
        }
    }

    /// The edges onto what is drawn: each (caller, callee) becomes one between their items, edges
    /// inside one closed cluster are left out, and each pair appears once with its count, in order.
    pub fn project(&self, edges: &[(usize, usize)], open: &BTreeSet<usize>) -> Vec<(DrawnItem, DrawnItem, usize)> {
        let mut out: BTreeMap<(DrawnItem, DrawnItem), usize> = BTreeMap::new();
        for &(u, v) in edges {
            let (a, b) = (self.item_of(u, open), self.item_of(v, open));
            if a != b {
                *out.entry((a, b)).or_default() += 1;
            }
        }
        out.into_iter().map(|((a, b), k)| (a, b, k)).collect()
    }
}

/// The sizes the drawing uses (pixels of the SVG's own coordinates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Geometry {
    pub node_w: f64,
    pub node_h: f64,
    pub gap_x: f64,
    /// Vertical distance between two rows of an open cluster's functions.
    pub row_gap: f64,
    /// Vertical distance between two bands.
    pub band_gap: f64,
    pub margin: f64,
    /// A closed cluster's box.
    pub cluster_w: f64,
    pub cluster_h: f64,
    /// At most this many functions on one row of an open cluster.
    pub wrap: usize,
    /// The frame around an open cluster: padding and the height of its heading.
    pub pad: f64,
    pub head: f64,
}

/// An open cluster's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub cluster: usize,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

/// Everything placed: the items drawn, their centres and sizes, the frames of open clusters, the
/// items row by row (for the arrow keys), and the projected edges between items.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawn {
    pub items: Vec<DrawnItem>,
    pub centre: Vec<(f64, f64)>,
    pub size: Vec<(f64, f64)>,
    pub frames: Vec<Frame>,
    /// Item indices per row, left to right; rows top to bottom.
    pub rows: Vec<Vec<usize>>,
    /// (row, position in row) of each item.
    pub pos: Vec<(usize, usize)>,
    /// Projected edges as (from item, to item, count).
    pub edges: Vec<(usize, usize, usize)>,
    pub width: f64,
    pub height: f64,
    /// The `main()` box.
    pub main: (f64, f64),
    index: BTreeMap<DrawnItem, usize>,
}

impl Drawn {
    /// The index of a drawn item.
    pub fn index(&self, item: DrawnItem) -> Option<usize> {
        self.index.get(&item).copied()
    }
}

/// Place a clustering with the clusters in `open` open.
pub fn draw(c: &Clustering, edges: &[(usize, usize)], open: &BTreeSet<usize>, geo: &Geometry) -> Drawn {
    let wrap = geo.wrap.max(1);
    let mut items: Vec<DrawnItem> = Vec::new();
    let mut centre: Vec<(f64, f64)> = Vec::new();
    let mut size: Vec<(f64, f64)> = Vec::new();
    let mut frames: Vec<Frame> = Vec::new();
    let mut rows: Vec<Vec<usize>> = Vec::new();
    // Per band: its width and height before centring, and the items and frames it placed.
    let mut placed_bands: Vec<(f64, std::ops::Range<usize>, std::ops::Range<usize>)> = Vec::new();
    let mut y = geo.margin + geo.cluster_h + geo.band_gap;
    let mut widest: f64 = geo.cluster_w;
    for band in &c.bands {
        let (first_item, first_frame) = (items.len(), frames.len());
        let mut x = 0.0;
        let mut height: f64 = 0.0;
        // The band's first row (boxes, single functions, open clusters' headings), then one row per
        // row of open clusters' functions.
        let mut top_row: Vec<usize> = Vec::new();
        let mut member_rows: Vec<Vec<usize>> = Vec::new();
        for &cl in band {
            let members = &c.clusters[cl].members;
            if members.len() == 1 {
                let i = items.len();
                items.push(DrawnItem::Vertex(members[0]));
                centre.push((x + geo.node_w / 2.0, y + geo.cluster_h / 2.0));
                size.push((geo.node_w, geo.node_h));
                top_row.push(i);
                x += geo.node_w + geo.gap_x;
                height = height.max(geo.cluster_h);
            } else if !open.contains(&cl) {
                let i = items.len();
                items.push(DrawnItem::Cluster(cl));
                centre.push((x + geo.cluster_w / 2.0, y + geo.cluster_h / 2.0));
                size.push((geo.cluster_w, geo.cluster_h));
                top_row.push(i);
                x += geo.cluster_w + geo.gap_x;
                height = height.max(geo.cluster_h);
            } else {
                let cols = members.len().min(wrap);
                let lines = members.len().div_ceil(wrap);
                let inner_w = cols as f64 * (geo.node_w + geo.gap_x) - geo.gap_x;
                let w = (inner_w + 2.0 * geo.pad).max(geo.cluster_w);
                let h = geo.head + lines as f64 * (geo.node_h + geo.row_gap) - geo.row_gap + geo.pad;
                frames.push(Frame { cluster: cl, x, y, w, h });
                let i = items.len();
                items.push(DrawnItem::Cluster(cl));
                centre.push((x + geo.cluster_w / 2.0, y + geo.head / 2.0));
                size.push((geo.cluster_w, geo.head));
                top_row.push(i);
                for (k, &v) in members.iter().enumerate() {
                    let (line, col) = (k / wrap, k % wrap);
                    let i = items.len();
                    items.push(DrawnItem::Vertex(v));
                    centre.push((
                        x + geo.pad + col as f64 * (geo.node_w + geo.gap_x) + geo.node_w / 2.0,
                        y + geo.head + line as f64 * (geo.node_h + geo.row_gap) + geo.node_h / 2.0,
                    ));
                    size.push((geo.node_w, geo.node_h));
                    if member_rows.len() <= line {
                        member_rows.push(Vec::new());
                    }
                    member_rows[line].push(i);
                }
                x += w + geo.gap_x;
                height = height.max(h);
            }
        }
        let width = (x - geo.gap_x).max(0.0);
        widest = widest.max(width);
        rows.push(top_row);
        rows.extend(member_rows);
        placed_bands.push((width, first_item..items.len(), first_frame..frames.len()));
        y += height + geo.band_gap;
    }
    let width = 2.0 * geo.margin + widest;
    let height = y - geo.band_gap + geo.margin;
    // Centre each band.
    for (w, its, frs) in placed_bands {
        let dx = geo.margin + (widest - w) / 2.0;
        for i in its {
            centre[i].0 += dx;
        }
        for f in &mut frames[frs] {
            f.x += dx;
        }
    }
    let index: BTreeMap<DrawnItem, usize> = items.iter().enumerate().map(|(i, &it)| (it, i)).collect();
    let edges = c
        .project(edges, open)
        .into_iter()
        .filter_map(|(a, b, k)| Some((*index.get(&a)?, *index.get(&b)?, k)))
        .collect();
    rows.retain(|r| !r.is_empty());
    let mut pos = vec![(0, 0); items.len()];
    for (r, row) in rows.iter().enumerate() {
        for (k, &i) in row.iter().enumerate() {
            pos[i] = (r, k);
        }
    }
    Drawn {
        items,
        centre,
        size,
        frames,
        rows,
        pos,
        edges,
        width,
        height,
        main: (width / 2.0, geo.margin + geo.cluster_h / 2.0),
        index,
    }
}

/// Where an arrow key goes from item `i` (see [`arrow_target`]).
pub fn neighbour(d: &Drawn, i: usize, key: &str) -> Option<usize> {
    arrow_target(&d.rows, &d.pos, &d.centre, i, key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::layout::layered;
    use crate::spec::{Axis, Domain, Kind, TaskSpec};
    use crate::task::generate_full;
    use proptest::prelude::*;

    const GEO: Geometry = Geometry {
        node_w: 58.0,
        node_h: 26.0,
        gap_x: 12.0,
        row_gap: 10.0,
        band_gap: 40.0,
        margin: 16.0,
        cluster_w: 120.0,
        cluster_h: 40.0,
        wrap: 12,
        pad: 8.0,
        head: 28.0,
    };

    /// A task's call graph, its layout, its roles as groups and its clustering.
    fn clustered(
        kind: Kind,
        axis: Axis,
        n: u32,
        seed: u64,
    ) -> (crate::graph::CallGraph, Layout, Vec<usize>, Clustering) {
        let spec = TaskSpec::new(kind, Domain::Math, axis, n, seed);
        let generated = generate_full(&spec).expect("a valid spec");
        let (g, built) = generated.call_graph().expect("a call-graph kind");
        let layout = layered(g);
        let groups: Vec<usize> = built.roles.iter().map(|r| *r as usize).collect();
        let c = cluster(&layout, &groups, MAX_BANDS, MAX_MEMBERS);
        (g.clone(), layout, groups, c)
    }

    fn check(g: &crate::graph::CallGraph, layout: &Layout, groups: &[usize], c: &Clustering) {
        // Every vertex in exactly one cluster, and `of` says which.
        let mut seen = vec![0usize; g.len()];
        for (id, cl) in c.clusters.iter().enumerate() {
            assert!(!cl.members.is_empty() && cl.members.len() <= MAX_MEMBERS);
            for &v in &cl.members {
                seen[v] += 1;
                assert_eq!(c.of[v], id);
                assert_eq!(groups[v], cl.group, "one group per cluster");
                let layer = layout.pos[v].0;
                assert!(cl.layers.0 <= layer && layer <= cl.layers.1);
            }
        }
        assert!(seen.iter().all(|&k| k == 1), "every vertex in exactly one cluster");
        assert!(c.bands.len() <= MAX_BANDS);
        let listed: Vec<usize> = c.bands.iter().flatten().copied().collect();
        let mut sorted = listed.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..c.clusters.len()).collect::<Vec<_>>(), "each cluster in one band");
        for (b, ids) in c.bands.iter().enumerate() {
            assert!(ids.iter().all(|&id| c.clusters[id].band == b));
        }
    }

    /// The projection, computed the slow way: every edge's two drawn items, counted.
    fn projected_by_hand(
        g: &crate::graph::CallGraph,
        c: &Clustering,
        open: &BTreeSet<usize>,
    ) -> Vec<(DrawnItem, DrawnItem, usize)> {
        let item = |v: usize| {
            let cl = c.of[v];
            if c.clusters[cl].members.len() == 1 || open.contains(&cl) {
                DrawnItem::Vertex(v)
            } else {
                DrawnItem::Cluster(cl)
            }
        };
        let mut pairs: Vec<(DrawnItem, DrawnItem)> =
            g.edges().into_iter().map(|(u, v)| (item(u), item(v))).filter(|(a, b)| a != b).collect();
        pairs.sort();
        let mut out: Vec<(DrawnItem, DrawnItem, usize)> = Vec::new();
        for p in pairs {
            match out.last_mut() {
                Some(last) if (last.0, last.1) == p => last.2 += 1,
                _ => out.push((p.0, p.1, 1)),
            }
        }
        out
    }

    #[test]
    fn big_graphs_cluster_into_few_bounded_boxes() {
        for (kind, n) in [(Kind::AddParameter, 1000), (Kind::CacheFunction, 2000), (Kind::DeadCode, 1000)] {
            for axis in [Axis::Traversal, Axis::Search] {
                let (g, layout, groups, c) = clustered(kind, axis, n, 3);
                assert!(g.len() > CLUSTER_FROM);
                check(&g, &layout, &groups, &c);
                let closed = BTreeSet::new();
                let d = draw(&c, &g.edges(), &closed, &GEO);
                // Readable: a few hundred boxes at most, not thousands of vertices.
                assert!(d.items.len() <= 400, "{kind:?} {axis:?}: {} items for {} vertices", d.items.len(), g.len());
                assert_eq!(d.edges.len(), c.project(&g.edges(), &closed).len());
            }
        }
    }

    #[test]
    fn drawing_covers_every_vertex_once_open_or_closed() {
        let (g, _, _, c) = clustered(Kind::AddParameter, Axis::Traversal, 1000, 5);
        let open: BTreeSet<usize> = (0..c.clusters.len()).filter(|i| i.is_multiple_of(3)).collect();
        let d = draw(&c, &g.edges(), &open, &GEO);
        for v in 0..g.len() {
            let item = c.item_of(v, &open);
            let i = d.index(item).expect("every vertex's item is drawn");
            assert_eq!(d.items[i], item);
            assert_eq!(item == DrawnItem::Vertex(v), c.is_open(c.of[v], &open));
        }
        // Open clusters have a heading and a frame; every item sits inside the canvas; rows cover
        // every item once.
        assert_eq!(d.frames.len(), open.iter().filter(|&&k| c.clusters[k].members.len() > 1).count());
        for (i, &(x, y)) in d.centre.iter().enumerate() {
            let (w, h) = d.size[i];
            assert!(x - w / 2.0 >= 0.0 && x + w / 2.0 <= d.width && y - h / 2.0 >= 0.0 && y + h / 2.0 <= d.height);
        }
        let mut in_rows: Vec<usize> = d.rows.iter().flatten().copied().collect();
        in_rows.sort_unstable();
        assert_eq!(in_rows, (0..d.items.len()).collect::<Vec<_>>());
        for (i, &(r, k)) in d.pos.iter().enumerate() {
            assert_eq!(d.rows[r][k], i);
        }
    }

    #[test]
    fn arrow_keys_reach_every_item() {
        let (g, _, _, c) = clustered(Kind::CacheFunction, Axis::Search, 1000, 2);
        let open: BTreeSet<usize> = [0, c.clusters.len() / 2].into_iter().collect();
        let d = draw(&c, &g.edges(), &open, &GEO);
        // From the first item, Right / Down / Home reach everything.
        let mut seen = vec![false; d.items.len()];
        let mut stack = vec![d.rows[0][0]];
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            for key in ["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp", "Home", "End"] {
                if let Some(j) = neighbour(&d, i, key) {
                    stack.push(j);
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(neighbour(&d, d.rows[0][0], "ArrowUp"), None);
        assert_eq!(neighbour(&d, d.rows[0][0], "ArrowLeft"), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Every vertex in exactly one cluster; edges between drawn items are exactly the projected
        /// edges with their counts; the same input gives the same clusters.
        #[test]
        fn clusters_partition_and_edges_project(seed in 0u64..1_000_000, n in 100u32..700, open_every in 1usize..6, kind_i in 0usize..3) {
            let kind = [Kind::AddParameter, Kind::AddReturnValue, Kind::DeadCode][kind_i];
            let (g, layout, groups, c) = clustered(kind, Axis::Traversal, n, seed);
            check(&g, &layout, &groups, &c);
            let open: BTreeSet<usize> = (0..c.clusters.len()).filter(|i| i.is_multiple_of(open_every)).collect();
            prop_assert_eq!(c.project(&g.edges(), &open), projected_by_hand(&g, &c, &open));
            let d = draw(&c, &g.edges(), &open, &GEO);
            let drawn: Vec<(DrawnItem, DrawnItem, usize)> = d.edges.iter().map(|&(a, b, k)| (d.items[a], d.items[b], k)).collect();
            prop_assert_eq!(drawn, projected_by_hand(&g, &c, &open));
            let total: usize = d.edges.iter().map(|e| e.2).sum();
            let inside = g.edges().into_iter().filter(|&(u, v)| c.item_of(u, &open) == c.item_of(v, &open)).count();
            prop_assert_eq!(total + inside, g.edges().len());
            prop_assert_eq!(&cluster(&layout, &groups, MAX_BANDS, MAX_MEMBERS), &c);
        }
    }
}
