//! A big call graph (more than [`CLUSTER_FROM`] functions) drawn in clusters: the core's
//! [`cluster`] groups each band of layers' functions of one role into boxes with their counts,
//! coloured by role, with the calls between boxes bundled (thicker for more calls). Clicking a box
//! (or Enter on it) opens it: its functions appear in its place, in a frame whose heading closes
//! it again. The selected function's box opens by itself, so a click in the code finds its vertex.
//!
//! For the keyboard and screen readers it is the same named group as the small graph: one tab stop,
//! the arrow keys move between boxes, headings and functions row by row, each named ("40 functions,
//! to edit, layers 3–5: press Enter to show them").

use super::app::Shown;
use super::graph::curve;
use super::graph::move_focus;
use crate::decimal::{fixed, short};
use crate::graph::cluster::{cluster, draw, neighbour, Clustering, Drawn, Geometry, Item, MAX_BANDS, MAX_MEMBERS};
use crate::graph::layout::layered;
use crate::graph::CallGraph;
use crate::kinds::Role;
use std::collections::BTreeSet;
use std::rc::Rc;
use yew::prelude::*;

pub use crate::graph::cluster::CLUSTER_FROM;

const GEO: Geometry = Geometry {
    node_w: 58.0,
    node_h: 26.0,
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

/// A graph's clustering and its edges (computed once per task).
#[derive(Debug)]
pub struct Clustered {
    pub clustering: Clustering,
    pub edges: Vec<(usize, usize)>,
}

/// Cluster a call graph (the groups are its roles).
pub fn clustered(g: &CallGraph, roles: &[Role]) -> Clustered {
    let layout = layered(g);
    let groups: Vec<usize> = roles.iter().map(|r| *r as usize).collect();
    Clustered { clustering: cluster(&layout, &groups, MAX_BANDS, MAX_MEMBERS), edges: g.edges() }
}

#[derive(Properties)]
pub struct BigGraphProps {
    pub shown: Rc<Shown>,
    pub clustered: Rc<Clustered>,
    pub selected: Option<AttrValue>,
    pub on_select: Callback<Option<AttrValue>>,
    #[prop_or_default]
    pub on_hover: Option<Callback<Option<AttrValue>>>,
    pub zoom: f64,
}

impl PartialEq for BigGraphProps {
    fn eq(&self, o: &Self) -> bool {
        self.shown == o.shown
            && Rc::ptr_eq(&self.clustered, &o.clustered)
            && self.selected == o.selected
            && self.on_select == o.on_select
            && self.on_hover == o.on_hover
            && self.zoom == o.zoom
    }
}

/// The element id of a drawn item.
fn item_id(g: &CallGraph, item: Item) -> String {
    match item {
        Item::Vertex(v) => format!("v-{}", g.name(v)),
        Item::Cluster(c) => format!("c-{c}"),
    }
}

/// A curve from item `a` down to item `b`, or an arc below the two when `b` is not lower.
fn edge_path(d: &Drawn, a: usize, b: usize) -> String {
    let ((x1, y1), (_, h1)) = (d.centre[a], d.size[a]);
    let ((x2, y2), (_, h2)) = (d.centre[b], d.size[b]);
    if y2 > y1 + 1.0 {
        let (y1, y2) = (y1 + h1 / 2.0, y2 - h2 / 2.0);
        curve(x1, y1, (y1 + y2) / 2.0, x2, y2)
    } else {
        let (y1, y2) = (y1 + h1 / 2.0, y2 + h2 / 2.0);
        curve(x1, y1, y1.max(y2) + 24.0, x2, y2)
    }
}

/// The stroke width of a bundle of `k` calls.
fn width(k: usize) -> String {
    format!("stroke-width: {}", fixed((1.2 + (k as f64).log2() * 0.9).min(7.0), 1))
}

#[function_component(BigCallGraph)]
pub fn big_call_graph(p: &BigGraphProps) -> Html {
    let open = use_state(BTreeSet::<usize>::new);
    // A new task starts closed.
    {
        let open = open.clone();
        super::view::use_spec_effect(&p.shown.spec, Box::new(move |_| open.set(BTreeSet::new())));
    }
    let Some((cg, built)) = p.shown.generated.call_graph() else { return html! {} };
    let c = &p.clustered.clustering;
    let selected = p.selected.as_ref().and_then(|s| cg.index_of(s));
    // The selected function's cluster opens, so its vertex shows.
    {
        let open = open.clone();
        let cluster_of = selected.map(|v| c.of[v]);
        use_effect_with(cluster_of, move |cl| {
            if let Some(cl) = *cl {
                if !open.contains(&cl) {
                    let mut next = (*open).clone();
                    next.insert(cl);
                    open.set(next);
                }
            }
        });
    }
    let drawn = {
        let clustered = p.clustered.clone();
        use_memo(((*open).clone(), Rc::as_ptr(&p.clustered) as usize), move |(open, _)| {
            Rc::new(draw(&clustered.clustering, &clustered.edges, open, &GEO))
        })
    };
    let d: Rc<Drawn> = (*drawn).clone();
    let roles = built;
    let selected_item = selected.map(|v| c.item_of(v, &open));
    let near = |a: usize, b: usize| selected_item.is_some_and(|s| d.items[a] == s || d.items[b] == s);

    let toggle_cluster = {
        let open = open.clone();
        move |cl: usize| {
            let mut next = (*open).clone();
            if !next.remove(&cl) {
                next.insert(cl);
            }
            open.set(next);
        }
    };
    let edges = d.edges.iter().map(|&(a, b, k)| {
        let class = classes!("edge", (k > 1).then_some("edge-bundle"), near(a, b).then_some("edge-selected"));
        html! { <path {class} style={width(k)} d={edge_path(&d, a, b)} /> }
    });
    // main() calls the entry functions (one curve per item they are drawn in).
    let entries: BTreeSet<usize> =
        crate::sort::set(cg.entries().into_iter().filter_map(|v| d.index(c.item_of(v, &open))));
    let (mx, my) = d.main;
    let entry_edges = entries.into_iter().map(|i| {
        let (x2, y2) = (d.centre[i].0, d.centre[i].1 - d.size[i].1 / 2.0);
        let y1 = my + GEO.node_h / 2.0;
        html! { <path class="edge edge-main" d={curve(mx, y1, (y1 + y2) / 2.0, x2, y2)} /> }
    });
    // Runtime tasks: calls made only where nothing runs, projected the same way.
    let runtime = p.shown.generated.task.runtime.as_ref();
    let never: Vec<(usize, usize)> = runtime
        .into_iter()
        .flat_map(|r| r.inactive_calls.iter())
        .filter_map(|(u, v)| Some((cg.index_of(u)?, cg.index_of(v)?)))
        .collect();
    let never_edges = c.project(&never, &open).into_iter().filter_map(|(a, b, k)| {
        let (a, b) = (d.index(a)?, d.index(b)?);
        let class = classes!("edge", "edge-never", near(a, b).then_some("edge-selected"));
        Some(html! { <path {class} style={width(k)} d={edge_path(&d, a, b)} /> })
    });
    let runs: std::collections::HashMap<&str, String> =
        runtime.map(|r| r.functions.iter().map(|f| (f.name.as_str(), f.describe())).collect()).unwrap_or_default();

    // The one tab stop: the selected function, else the first box.
    let tab_stop = selected_item.and_then(|s| d.index(s)).or_else(|| d.rows.first().and_then(|r| r.first().copied()));
    let keys = |i: usize, activate: Rc<dyn Fn()>| {
        let d = d.clone();
        let shown = p.shown.clone();
        Callback::from(move |e: KeyboardEvent| {
            let key = e.key();
            if key == "Enter" || key == " " {
                e.prevent_default();
                activate();
            } else if let Some(j) = neighbour(&d, i, &key) {
                e.prevent_default();
                if let Some((g, _)) = shown.generated.call_graph() {
                    move_focus(&item_id(g, d.items[i]), &item_id(g, d.items[j]));
                }
            }
        })
    };
    let frames = d.frames.iter().map(|f| {
        html! { <rect class="cluster-frame" x={fixed(f.x, 1).to_string()} y={fixed(f.y, 1).to_string()} width={fixed(f.w, 1).to_string()} height={fixed(f.h, 1).to_string()} rx="8" /> }
    });
    let items = d.items.iter().enumerate().map(|(i, &item)| {
        let (x, y) = d.centre[i];
        let (w, h) = d.size[i];
        let transform = format!("translate({},{})", fixed(x - w / 2.0, 1), fixed(y - h / 2.0, 1));
        let tabindex = if tab_stop == Some(i) { "0" } else { "-1" };
        match item {
            Item::Cluster(cl) => {
                let info = &c.clusters[cl];
                let role = roles[info.members[0]];
                let is_open = open.contains(&cl);
                let layers = if info.layers.0 == info.layers.1 {
                    format!("layer {}", info.layers.0 + 1)
                } else {
                    format!("layers {}–{}", info.layers.0 + 1, info.layers.1 + 1)
                };
                let count = info.members.len();
                let label = if is_open {
                    format!("{count} functions, {}, {layers}: shown; press Enter to close", role.label())
                } else {
                    format!("{count} functions, {}, {layers}: press Enter to show them", role.label())
                };
                let activate: Rc<dyn Fn()> = {
                    let toggle = toggle_cluster.clone();
                    Rc::new(move || toggle(cl))
                };
                let onclick = {
                    let activate = activate.clone();
                    Callback::from(move |_: MouseEvent| activate())
                };
                let onkeydown = keys(i, activate);
                let has_selected = selected.is_some_and(|v| c.of[v] == cl);
                let class = classes!(
                    if is_open { "cluster-head" } else { "cluster" },
                    format!("role-{}", role.as_str()),
                    has_selected.then_some("has-selected")
                );
                html! {
                    <g {class} id={format!("c-{cl}")} data-cluster={cl.to_string()} data-count={count.to_string()}
                        data-role={role.as_str()} {transform} {onclick} {onkeydown} tabindex={tabindex} role="button"
                        aria-label={label.clone()} aria-expanded={super::view::bool_str(is_open)}>
                        <title>{ label }</title>
                        if is_open {
                            <rect width={short(w).to_string()} height={short(h - 6.0).to_string()} rx="6" style={format!("stroke: {}; stroke-width: 3", role.colour())} />
                            <text x="10" y={short(h / 2.0).to_string()}>{ format!("{count} functions") }</text>
                        } else {
                            <rect width={short(w).to_string()} height={short(h).to_string()} rx="8" fill={role.colour()} />
                            <text x={short(w / 2.0).to_string()} y={short(h / 2.0 + 4.0).to_string()} text-anchor="middle">{ format!("{count} functions") }</text>
                        }
                    </g>
                }
            }
            Item::Vertex(v) => {
                let name = cg.name(v).to_string();
                let branch = runs.get(name.as_str()).cloned();
                let label = super::graph::vertex_label(&name, roles[v], branch.as_deref());
                let is_selected = selected == Some(v);
                let class = super::graph::vertex_class(roles[v], is_selected);
                let activate: Rc<dyn Fn()> = {
                    let on_select = p.on_select.clone();
                    let name = AttrValue::from(name.clone());
                    Rc::new(move || on_select.emit(if is_selected { None } else { Some(name.clone()) }))
                };
                let onclick = {
                    let activate = activate.clone();
                    Callback::from(move |_: MouseEvent| activate())
                };
                let onkeydown = keys(i, activate);
                let vertex = super::graph::Vertex { class, name, role: roles[v], branch, transform, size: (w, h), label };
                vertex.button(tab_stop == Some(i), is_selected, onclick, onkeydown, &p.on_hover)
            }
        }
    });
    let open_all = {
        let (open, n) = (open.clone(), c.clusters.len());
        Callback::from(move |_: MouseEvent| open.set(crate::sort::set(0..n)))
    };
    let close_all = {
        let open = open.clone();
        Callback::from(move |_: MouseEvent| open.set(BTreeSet::new()))
    };
    let w = d.width * p.zoom;
    let h = d.height * p.zoom;
    let style = if (p.zoom - 1.0).abs() < 1e-9 { "max-width: 100%; height: auto;" } else { "" };
    let boxes = c.clusters.iter().filter(|k| k.members.len() > 1).count();
    html! {
        <>
            <p class="hint graph-clusters" id="graph-clusters">
                { format!("{} functions in {boxes} boxes by depth and role; click a box to show its functions. ", cg.len()) }
                <button id="graph-open-all" type="button" class="button small ghost" onclick={open_all}>{ "Show all" }</button>
                <button id="graph-close-all" type="button" class="button small ghost" onclick={close_all}>{ "Close all" }</button>
            </p>
            <svg id="call-graph" class="call-graph clustered" xmlns="http://www.w3.org/2000/svg"
                viewBox={format!("0 0 {} {}", fixed(d.width, 0), fixed(d.height, 0))}
                width={fixed(w, 0).to_string()} height={fixed(h, 0).to_string()} style={style}
                role="group" data-clusters={c.clusters.len().to_string()}
                aria-label={format!("call graph of {} functions in {boxes} boxes: arrow keys move between them, Enter shows a box's functions or selects a function", cg.len())}>
                <g class="frames">{ for frames }</g>
                <g class="edges">{ for entry_edges }{ for edges }{ for never_edges }</g>
                // GEO's vertex is the plain graph's (58 × 26).
                { super::graph::main_vertex(mx, my) }
                <g class="vertices">{ for items }</g>
            </svg>
        </>
    }
}
