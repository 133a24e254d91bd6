//! The clustered drawing of a big call graph (more than [`CLUSTER_FROM`] functions) as SVG markup,
//! and the text request it is drawn from: the app writes the request ([`graph_part`], [`request`]),
//! the `bigraph` module reads it ([`Request::parse`]), clusters the graph and answers with the markup
//! ([`draw`]).
//!
//! The request, line by line: zoom; selected function or `-`; open clusters; names; roles; calls
//! `u>v`; entry functions; calls made only by branches that never run; `index branch` per function
//! that runs a branch. A malformed request gets an error naming the line.

use super::cluster::{
    cluster, draw as place, neighbour, Clustering, Drawn, DrawnItem, Geometry, MAX_BANDS, MAX_MEMBERS,
};
use super::layout::layered;
use super::svg::{self, esc, Button, ClusterBox, Vertex, NAV_KEYS, NODE_H, NODE_W};
use super::CallGraph;
use crate::kinds::Role;
use std::collections::BTreeSet;
use std::fmt::Write;

pub use super::cluster::CLUSTER_FROM;

/// At most this many functions, calls, and characters in a name or a branch's description.
pub const MAX_FUNCTIONS: usize = 50_000;
pub const MAX_CALLS: usize = 500_000;
pub const MAX_NAME: usize = 200;
pub const MAX_BRANCH: usize = 1_000;

const GEO: Geometry = Geometry {
    node_w: NODE_W,
    node_h: NODE_H,
    gap_x: 12.0,
    row_gap: 12.0,
    band_gap: 46.0,
    margin: 16.0,
    cluster_w: 112.0,
    cluster_h: 40.0,
    wrap: 6,
    pad: 8.0,
    head: 30.0,
};

/// The graph part of a request (everything but the drawing's state), written once per task.
pub fn graph_part(g: &CallGraph, roles: &[Role], runtime: Option<&crate::axes::runtime::Record>) -> String {
    let mut out = String::new();
    let n = g.len();
    let names: Vec<&str> = (0..n).map(|v| g.name(v)).collect();
    out.push_str(&names.join(" "));
    out.push('\n');
    let roles: Vec<String> = roles.iter().map(|&r| (r as usize).to_string()).collect();
    out.push_str(&roles.join(" "));
    out.push('\n');
    let pairs = |out: &mut String, edges: &mut dyn Iterator<Item = (usize, usize)>| {
        let e: Vec<String> = edges.map(|(u, v)| format!("{u}>{v}")).collect();
        out.push_str(&e.join(" "));
        out.push('\n');
    };
    pairs(&mut out, &mut g.edges().into_iter());
    let entries: Vec<String> = g.entries().iter().map(usize::to_string).collect();
    out.push_str(&entries.join(" "));
    out.push('\n');
    let never = runtime.into_iter().flat_map(|r| r.inactive_calls.iter());
    pairs(&mut out, &mut never.filter_map(|(u, v)| Some((g.index_of(u)?, g.index_of(v)?))));
    for f in runtime.into_iter().flat_map(|r| r.functions.iter()) {
        if let Some(v) = g.index_of(&f.name) {
            let _ = writeln!(out, "{v} {}", f.describe());
        }
    }
    out
}

/// A whole request: the drawing's state, then the graph part.
pub fn request(zoom: f64, selected: Option<usize>, open: &BTreeSet<usize>, graph: &str) -> String {
    let open: Vec<String> = open.iter().map(usize::to_string).collect();
    let selected = selected.map_or_else(|| "-".to_string(), |v| v.to_string());
    format!("{}\n{selected}\n{}\n{graph}", crate::decimal::short(zoom), open.join(" "))
}

/// A request's graph, read and checked.
#[derive(Debug)]
pub struct Graph {
    pub names: Vec<String>,
    pub roles: Vec<Role>,
    pub edges: Vec<(usize, usize)>,
    pub entries: Vec<usize>,
    pub never: Vec<(usize, usize)>,
    pub runs: Vec<Option<String>>,
    pub clustering: Clustering,
}

/// A request, read and checked.
#[derive(Debug)]
pub struct Request<'a> {
    pub zoom: f64,
    pub selected: Option<usize>,
    pub open: BTreeSet<usize>,
    /// The graph part as written (the module keeps the last one's clustering).
    pub graph: &'a str,
}

fn err(line: usize, what: &str, why: impl std::fmt::Display) -> String {
    format!("the clustered graph's request, line {line} ({what}): {why}")
}

/// A list's items (none for an empty line), at most `max`.
fn items<'a>(text: &'a str, line: usize, what: &str, max: usize) -> Result<Vec<&'a str>, String> {
    let items: Vec<&str> = text.split(' ').filter(|s| !s.is_empty()).collect();
    if items.len() > max {
        return Err(err(line, what, format_args!("{} items, more than {max}", items.len())));
    }
    Ok(items)
}

fn index(s: &str, n: usize, line: usize, what: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(v) if v < n => Ok(v),
        Ok(v) => Err(err(line, what, format_args!("{v} is not one of the {n} functions"))),
        Err(_) => Err(err(line, what, format_args!("`{}` is not a number", s.chars().take(20).collect::<String>()))),
    }
}

fn calls(text: &str, n: usize, line: usize, what: &str) -> Result<Vec<(usize, usize)>, String> {
    items(text, line, what, MAX_CALLS)?
        .into_iter()
        .map(|e| {
            let (u, v) = e.split_once('>').ok_or_else(|| err(line, what, format_args!("`{e}` is not a call u>v")))?;
            Ok((index(u, n, line, what)?, index(v, n, line, what)?))
        })
        .collect()
}

impl<'a> Request<'a> {
    /// Read a request's state, leaving its graph part as text ([`Graph::parse`]).
    pub fn parse(text: &'a str) -> Result<Request<'a>, String> {
        let mut parts = text.splitn(4, '\n');
        let mut next = |line: usize, what: &str| parts.next().ok_or_else(|| err(line, what, "missing"));
        let zoom = next(1, "zoom")?;
        let zoom = match zoom.parse::<f64>() {
            Ok(z) if z.is_finite() && (0.05..=20.0).contains(&z) => z,
            _ => {
                return Err(err(
                    1,
                    "zoom",
                    format_args!("`{}` is not a zoom from 0.05 to 20", zoom.chars().take(20).collect::<String>()),
                ))
            }
        };
        let selected = next(2, "selected function")?;
        let selected =
            if selected == "-" { None } else { Some(index(selected, MAX_FUNCTIONS, 2, "selected function")?) };
        let open = items(next(3, "open clusters")?, 3, "open clusters", MAX_FUNCTIONS)?
            .into_iter()
            .map(|c| index(c, MAX_FUNCTIONS, 3, "open clusters"))
            .collect::<Result<BTreeSet<usize>, String>>()?;
        let graph = next(4, "the graph")?;
        Ok(Request { zoom, selected, open, graph })
    }
}

impl Graph {
    /// Read and check a graph part, then cluster it.
    pub fn parse(text: &str) -> Result<Graph, String> {
        let lines: Vec<&str> = text.split('\n').collect();
        let line = |i: usize, what: &str| lines.get(i).copied().ok_or_else(|| err(i + 4, what, "missing"));
        let names: Vec<String> = items(line(0, "names")?, 4, "names", MAX_FUNCTIONS)?
            .into_iter()
            .map(|s| {
                if s.chars().count() > MAX_NAME {
                    Err(err(4, "names", format_args!("a name of more than {MAX_NAME} characters")))
                } else {
                    Ok(s.to_string())
                }
            })
            .collect::<Result<_, _>>()?;
        let n = names.len();
        if n == 0 {
            return Err(err(4, "names", "no functions"));
        }
        let roles: Vec<Role> = items(line(1, "roles")?, 5, "roles", MAX_FUNCTIONS)?
            .into_iter()
            .map(|s| {
                Role::ALL.iter().copied().find(|&r| (r as usize).to_string() == s).ok_or_else(|| {
                    err(5, "roles", format_args!("`{}` is not a role", s.chars().take(20).collect::<String>()))
                })
            })
            .collect::<Result<_, _>>()?;
        if roles.len() != n {
            return Err(err(5, "roles", format_args!("{} roles for {n} functions", roles.len())));
        }
        let edges = calls(line(2, "calls")?, n, 6, "calls")?;
        let entries = items(line(3, "entries")?, 7, "entries", MAX_FUNCTIONS)?
            .into_iter()
            .map(|s| index(s, n, 7, "entries"))
            .collect::<Result<Vec<_>, _>>()?;
        let never = calls(line(4, "calls that never run")?, n, 8, "calls that never run")?;
        let mut runs: Vec<Option<String>> = vec![None; n];
        for (i, l) in lines.iter().enumerate().skip(5) {
            if l.is_empty() {
                continue;
            }
            let (v, b) = l.split_once(' ').ok_or_else(|| err(i + 4, "a branch", "not `index branch`"))?;
            let v = index(v, n, i + 4, "a branch")?;
            if b.chars().count() > MAX_BRANCH {
                return Err(err(i + 4, "a branch", format_args!("more than {MAX_BRANCH} characters")));
            }
            runs[v] = Some(b.to_string());
        }
        let g = CallGraph::from_indexed(&names, &edges);
        let groups: Vec<usize> = roles.iter().map(|&r| r as usize).collect();
        let clustering = cluster(&layered(&g), &groups, MAX_BANDS, MAX_MEMBERS);
        Ok(Graph { names, roles, edges, entries, never, runs, clustering })
    }
}

/// The element id of a drawn item.
fn item_id(g: &Graph, item: DrawnItem) -> String {
    match item {
        DrawnItem::Vertex(v) => format!("v-{}", esc(&g.names[v])),
        DrawnItem::Cluster(c) => format!("c-{c}"),
    }
}

/// A curve from item `a` down to item `b`, or an arc below the two when `b` is not lower.
fn edge_path(d: &Drawn, a: usize, b: usize) -> String {
    let ((x1, y1), (_, h1)) = (d.centre[a], d.size[a]);
    let ((x2, y2), (_, h2)) = (d.centre[b], d.size[b]);
    if y2 > y1 + 1.0 {
        let (y1, y2) = (y1 + h1 / 2.0, y2 - h2 / 2.0);
        svg::curve(x1, y1, (y1 + y2) / 2.0, x2, y2)
    } else {
        let (y1, y2) = (y1 + h1 / 2.0, y2 + h2 / 2.0);
        svg::curve(x1, y1, y1.max(y2) + 24.0, x2, y2)
    }
}

/// The stroke width of a bundle of `k` calls.
fn width(k: usize) -> String {
    format!("stroke-width: {:.1}", (1.2 + (k as f64).log2() * 0.9).min(7.0))
}

/// The clustered drawing of `g` in the state `r` asks for: the selected function's cluster is drawn
/// open whatever `r.open` says (and the `<svg>`'s `data-reveal` names it, so the app keeps it open).
pub fn draw(g: &Graph, r: &Request) -> String {
    let c = &g.clustering;
    let selected = r.selected.filter(|&v| v < g.names.len());
    let open = &r.open;
    let d = place(c, &g.edges, open, &GEO);
    let selected_item = selected.map(|v| c.item_of(v, open));
    let near = |a: usize, b: usize| selected_item.is_some_and(|s| d.items[a] == s || d.items[b] == s);
    let n = g.names.len();
    let boxes = c.clusters.iter().filter(|k| k.members.len() > 1).count();
    let mut out = String::with_capacity(256 * d.items.len() + 1024);
    let _ = write!(
        out,
        r#"<p class="hint graph-clusters" id="graph-clusters">{n} functions in {boxes} boxes by depth and role; click a box to show its functions. <button id="graph-open-all" type="button" class="button small ghost">Show all</button><button id="graph-close-all" type="button" class="button small ghost">Close all</button></p>"#
    );
    let reveal = selected.map(|v| format!(r#" data-reveal="{}""#, c.of[v])).unwrap_or_default();
    svg::svg_start(
        &mut out,
        (d.width, d.height),
        r.zoom,
        true,
        &format!("call graph of {n} functions in {boxes} boxes: arrow keys move between them, Enter shows a box's functions or selects a function"),
        (" clustered", &format!(r#" data-clusters="{}"{reveal}"#, c.clusters.len())),
    );
    out.push_str(r#"<g class="frames">"#);
    for f in &d.frames {
        let _ = write!(
            out,
            r#"<rect class="cluster-frame" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="8"/>"#,
            f.x, f.y, f.w, f.h
        );
    }
    out.push_str(r#"</g><g class="edges">"#);
    // main() calls the entry functions (one curve per item they are drawn in).
    let entries: BTreeSet<usize> = g.entries.iter().filter_map(|&v| d.index(c.item_of(v, open))).collect();
    let (mx, my) = d.main;
    for i in entries {
        let (x2, y2) = (d.centre[i].0, d.centre[i].1 - d.size[i].1 / 2.0);
        let y1 = my + NODE_H / 2.0;
        svg::path(&mut out, "edge edge-main", None, "", &svg::curve(mx, y1, (y1 + y2) / 2.0, x2, y2));
    }
    let bundle = |out: &mut String, class: &str, a: usize, b: usize, k: usize| {
        let class = format!("{class}{}", if near(a, b) { " edge-selected" } else { "" });
        svg::path(out, &class, Some(&width(k)), "", &edge_path(&d, a, b));
    };
    for &(a, b, k) in &d.edges {
        bundle(&mut out, if k > 1 { "edge edge-bundle" } else { "edge" }, a, b, k);
    }
    // Runtime tasks: calls made only where nothing runs, projected the same way.
    for (a, b, k) in c.project(&g.never, open) {
        if let (Some(a), Some(b)) = (d.index(a), d.index(b)) {
            bundle(&mut out, "edge edge-never", a, b, k);
        }
    }
    out.push_str("</g>");
    svg::main_vertex(&mut out, d.main);
    out.push_str(r#"<g class="vertices">"#);
    // The one tab stop: the selected function, else the first box.
    let tab_stop = selected_item.and_then(|s| d.index(s)).or_else(|| d.rows.first().and_then(|r| r.first().copied()));
    for (i, &item) in d.items.iter().enumerate() {
        let (x, y) = d.centre[i];
        let (w, h) = d.size[i];
        let at = (x - w / 2.0, y - h / 2.0);
        let button = Button {
            tab_stop: tab_stop == Some(i),
            nav: NAV_KEYS.map(|k| neighbour(&d, i, k).map(|j| item_id(g, d.items[j]))),
        };
        match item {
            DrawnItem::Cluster(cl) => {
                let info = &c.clusters[cl];
                let layers = if info.layers.0 == info.layers.1 {
                    format!("layer {}", info.layers.0 + 1)
                } else {
                    format!("layers {}–{}", info.layers.0 + 1, info.layers.1 + 1)
                };
                ClusterBox {
                    cluster: cl,
                    count: info.members.len(),
                    role: g.roles[info.members[0]],
                    layers: &layers,
                    open: open.contains(&cl),
                    has_selected: selected.is_some_and(|v| c.of[v] == cl),
                    at,
                    size: (w, h),
                    button,
                }
                .write(&mut out);
            }
            DrawnItem::Vertex(v) => Vertex {
                name: &g.names[v],
                role: g.roles[v],
                branch: g.runs[v].as_deref(),
                at,
                size: (w, h),
                selected: selected == Some(v),
                button: Some(button),
            }
            .write(&mut out),
        }
    }
    out.push_str("</g></svg>");
    out
}

/// Read a request and draw it, clustering its graph unless `cache` holds it (the last graph part
/// drawn, and its graph): the `bigraph` module's one call.
pub fn answer(text: &str, cache: &mut Option<(String, std::rc::Rc<Graph>)>) -> Result<String, String> {
    let r = Request::parse(text)?;
    let g = match cache {
        Some((part, g)) if part == r.graph => g.clone(),
        _ => {
            let g = std::rc::Rc::new(Graph::parse(r.graph)?);
            *cache = Some((r.graph.to_string(), g.clone()));
            g
        }
    };
    if let Some(v) = r.selected.filter(|&v| v >= g.names.len()) {
        return Err(err(2, "selected function", format_args!("{v} is not one of the {} functions", g.names.len())));
    }
    Ok(draw(&g, &r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Axis, Domain, Kind, TaskSpec};
    use crate::task::generate_full;
    use proptest::prelude::*;

    fn task(kind: Kind, axis: Axis, n: u32, seed: u64) -> (CallGraph, Vec<Role>, String) {
        let spec = TaskSpec::new(kind, Domain::Math, axis, n, seed);
        let generated = generate_full(&spec).expect("a valid spec");
        let (g, built) = generated.call_graph().expect("a call-graph kind");
        let part = graph_part(g, &built.roles, generated.task.runtime.as_ref());
        (g.clone(), built.roles.clone(), part)
    }

    /// The graph read back clusters as the task's own graph does (the drawing is the app's as it was).
    #[test]
    fn a_graph_read_back_clusters_as_the_tasks_own() {
        for (kind, axis, n, seed) in [
            (Kind::AddParameter, Axis::Traversal, 1000, 3),
            (Kind::CacheFunction, Axis::Search, 600, 2),
            (Kind::DeadCode, Axis::Traversal, 450, 9),
        ] {
            let (g, roles, part) = task(kind, axis, n, seed);
            let read = Graph::parse(&part).expect("the app's own request reads");
            let groups: Vec<usize> = roles.iter().map(|&r| r as usize).collect();
            assert_eq!(read.clustering, cluster(&layered(&g), &groups, MAX_BANDS, MAX_MEMBERS), "{kind:?}");
            assert_eq!(read.edges, g.edges());
            assert_eq!(read.entries, g.entries());
            assert_eq!(read.roles, roles);
        }
    }

    #[test]
    fn the_drawing_names_every_box_and_function_once() {
        let (g, _, part) = task(Kind::AddParameter, Axis::Traversal, 1000, 3);
        let mut cache = None;
        let closed = answer(&request(1.0, None, &BTreeSet::new(), &part), &mut cache).expect("draws");
        let graph = cache.as_ref().map(|c| c.1.clone()).expect("kept");
        let c = &graph.clustering;
        let boxes = c.clusters.iter().filter(|k| k.members.len() > 1).count();
        assert_eq!(closed.matches(r#"<g class="cluster role-"#).count(), boxes);
        let singles = closed.matches(r#"<g class="vertex role-"#).count();
        let counted: usize = c.clusters.iter().filter(|k| k.members.len() > 1).map(|k| k.members.len()).sum();
        assert_eq!(counted + singles, g.len());
        assert_eq!(closed.matches(r#"tabindex="0""#).count(), 1, "one tab stop");
        assert!(closed.contains(&format!(r#"data-clusters="{}""#, c.clusters.len())));
        // Selecting a function draws its cluster open, its vertex the tab stop, and names the cluster.
        let v = c.clusters.iter().find(|k| k.members.len() > 1).expect("a box").members[0];
        let open = BTreeSet::from([c.of[v]]);
        let drawn = answer(&request(2.0, Some(v), &open, &part), &mut cache).expect("draws");
        let name = g.name(v);
        assert!(drawn.contains(&format!(r#"data-reveal="{}""#, c.of[v])));
        assert!(drawn.contains(&format!(r#"id="v-{name}" data-name="{name}""#)));
        assert!(drawn.contains(r#"<g class="cluster-head role-"#));
        let stop = drawn.find(r#"tabindex="0""#).expect("a tab stop");
        assert!(drawn[..stop].rfind("<g ").is_some_and(|g| drawn[g..stop].contains(&format!("v-{name}"))));
        // Every arrow-key target is an item drawn.
        for nav in drawn.split(r#"data-nav=""#).skip(1) {
            for id in nav.split('"').next().unwrap_or_default().split(' ').filter(|t| *t != "-") {
                assert!(drawn.contains(&format!(r#"id="{id}""#)), "{id}");
            }
        }
        // The second drawing reused the clustering.
        assert!(cache.as_ref().is_some_and(|c| std::rc::Rc::ptr_eq(&c.1, &graph)));
    }

    #[test]
    fn malformed_requests_get_an_error_naming_the_line() {
        let (_, _, part) = task(Kind::AddParameter, Axis::Traversal, 450, 1);
        let ok = request(1.0, None, &BTreeSet::new(), &part);
        let cases: Vec<(String, &str)> = vec![
            (String::new(), "line 1 (zoom)"),
            ("nan\n-\n\nf1\n0\n\n\n\n".into(), "line 1 (zoom)"),
            ("1e9\n-\n\n".into(), "line 1 (zoom)"),
            ("1\nx\n\n".into(), "line 2"),
            ("1\n-\n\n".into(), "line 4 (names)"),
            ("1\n-\n1 2 x\nf1\n0\n\n\n\n".into(), "line 3"),
            ("1\n-\n\nf1 f2\n1\n\n\n\n".into(), "line 5 (roles): 1 roles for 2"),
            ("1\n-\n\nf1 f2\n1 99\n\n\n\n".into(), "line 5 (roles): `99`"),
            ("1\n-\n\nf1 f2\n1 1\n0>2\n\n\n".into(), "line 6 (calls): 2 is not"),
            ("1\n-\n\nf1 f2\n1 1\n0-1\n\n\n".into(), "line 6 (calls): `0-1`"),
            ("1\n-\n\nf1 f2\n1 1\n0>1\n5\n\n".into(), "line 7 (entries)"),
            ("1\n-\n\nf1 f2\n1 1\n0>1\n0\n1>7\n".into(), "line 8"),
            ("1\n-\n\nf1 f2\n1 1\n0>1\n0\n\nbranch".into(), "line 9 (a branch)"),
            ("1\n-\n\nf1 f2\n1 1\n0>1\n0".into(), "line 8 (calls that never run): missing"),
            ("1\n7\n\nf1 f2\n1 1\n0>1\n0\n\n".into(), "line 2 (selected function): 7"),
            (format!("1\n-\n\n{}\n1\n\n\n\n", "f".repeat(MAX_NAME + 1)), "line 4 (names): a name of more"),
            (ok.replacen('\n', "\n-\n\n", 1), "line"),
        ];
        for (text, said) in cases {
            let e = answer(&text, &mut None).expect_err(&text);
            assert!(e.starts_with("the clustered graph's request, line") && e.contains(said), "{text:?}: {e}");
        }
        // A graph with a cycle and a function calling itself draws (its layout falls back).
        assert!(answer("1\n0\n\nf1 f2\n1 1\n0>1 1>0 1>1\n0\n\n", &mut None).is_ok());
        assert!(answer(&ok, &mut None).is_ok());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any text, and any request with a few bytes changed, gets a drawing or an error: never a panic.
        #[test]
        fn hostile_requests_never_panic(junk in ".{0,200}", at in 0usize..4000, with in prop::collection::vec(any::<u8>(), 1..6), cut in 0usize..4000) {
            let _ = answer(&junk, &mut None);
            let base = "1.5\n3\n0 2 9\nf0 f1 f2 f3 f4 f5\n1 1 0 2 0 1\n0>1 0>2 1>3 2>3 3>4 4>5\n0\n2>4\n1 the if branch\n4 the else branch\n";
            let mut bytes = base.as_bytes().to_vec();
            let i = at % bytes.len();
            bytes.splice(i..i, with);
            bytes.truncate(cut.max(1));
            let _ = answer(&String::from_utf8_lossy(&bytes), &mut None);
            prop_assert!(answer(base, &mut None).is_ok());
        }
    }
}
