//! The call graph drawn as SVG in layers (callers above callees), vertices coloured by role.
//!
//! The layout is the core's [`layered`] (longest-path layers and barycentre ordering); this module
//! only places the layers on a grid and draws them. Clicking a vertex selects its function, which
//! the code view highlights; the selection comes back in through the props.
//!
//! For the keyboard and screen readers the drawing is a named group of buttons, one per function
//! ("f12: to edit"), with one tab stop (a roving tab index: the selected vertex, else the first):
//! the arrow keys move along a layer and to the nearest vertex of the layer above or below, Enter
//! or Space selects. The gallery's small drawings are pictures (`interactive = false`).
//!
//! A graph of more than [`super::bigraph::CLUSTER_FROM`] functions is drawn in clusters instead
//! (`bigraph.rs`).

use super::app::Shown;
use crate::decimal::{fixed, short};
use crate::graph::layout::{arrow_target, layered};
use crate::graph::CallGraph;
use crate::kinds::Role;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

const NODE_W: f64 = 58.0;
const NODE_H: f64 = 26.0;
const GAP_X: f64 = 12.0;
const LAYER_GAP: f64 = 58.0;
const MARGIN: f64 = 16.0;

/// Where everything goes: vertex centres, the `main()` box, the canvas size.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub width: f64,
    pub height: f64,
    /// Centre of each vertex, by vertex id.
    pub centre: Vec<(f64, f64)>,
    pub main: (f64, f64),
    /// Vertices per layer, left to right, and each vertex's (layer, position).
    pub layers: Vec<Vec<usize>>,
    pub pos: Vec<(usize, usize)>,
}

/// The mouse-enter and mouse-leave handlers of a vertex named `name`: they report the name, then
/// `None`, to `on_hover` (none without one). The plain and the clustered graph share them.
pub fn hover_callbacks(
    on_hover: &Option<Callback<Option<AttrValue>>>,
    name: &str,
) -> (Option<Callback<MouseEvent>>, Option<Callback<MouseEvent>>) {
    let Some(h) = on_hover else { return (None, None) };
    let (enter, leave) = (h.clone(), h.clone());
    let n = AttrValue::from(name.to_string());
    (
        Some(Callback::from(move |_: MouseEvent| enter.emit(Some(n.clone())))),
        Some(Callback::from(move |_: MouseEvent| leave.emit(None))),
    )
}

/// Where an arrow key goes from vertex `v` (see [`arrow_target`]).
pub fn neighbour(p: &Placed, v: usize, key: &str) -> Option<usize> {
    arrow_target(&p.layers, &p.pos, &p.centre, v, key)
}

/// Move the keyboard focus (and the one tab stop) from vertex element `from` to `to`.
pub(super) fn move_focus(from: &str, to: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let (Some(a), Some(b)) = (doc.get_element_by_id(from), doc.get_element_by_id(to)) else { return };
    let _ = a.set_attribute("tabindex", "-1");
    let _ = b.set_attribute("tabindex", "0");
    // SVG elements have focus() as HTML elements do.
    if let Ok(focus) = js_sys::Reflect::get(&b, &"focus".into()) {
        if let Some(f) = focus.dyn_ref::<js_sys::Function>() {
            let _ = f.call0(&b);
        }
    }
}

/// Place the layered layout on a grid, each layer centred.
pub fn place(g: &CallGraph) -> Placed {
    let layout = layered(g);
    let widest = layout.layers.iter().map(Vec::len).max().unwrap_or(1).max(1) as f64;
    let width = 2.0 * MARGIN + widest * (NODE_W + GAP_X) - GAP_X;
    let depth = layout.layers.len() as f64;
    let height = 2.0 * MARGIN + (depth + 1.0) * LAYER_GAP - (LAYER_GAP - NODE_H);
    let mut centre = vec![(0.0, 0.0); g.len()];
    for (li, layer) in layout.layers.iter().enumerate() {
        let row = layer.len() as f64 * (NODE_W + GAP_X) - GAP_X;
        let left = (width - row) / 2.0;
        let y = MARGIN + NODE_H / 2.0 + (li as f64 + 1.0) * LAYER_GAP;
        for (i, &v) in layer.iter().enumerate() {
            centre[v] = (left + i as f64 * (NODE_W + GAP_X) + NODE_W / 2.0, y);
        }
    }
    Placed { width, height, centre, main: (width / 2.0, MARGIN + NODE_H / 2.0), layers: layout.layers, pos: layout.pos }
}

fn edge_path((x1, y1): (f64, f64), (x2, y2): (f64, f64)) -> String {
    let (y1, y2) = (y1 + NODE_H / 2.0, y2 - NODE_H / 2.0);
    curve(x1, y1, (y1 + y2) / 2.0, x2, y2)
}

/// An edge's path: from (`x1`, `y1`) to (`x2`, `y2`), leaving and arriving vertically, its two
/// control points at height `my`; coordinates to a tenth of a pixel.
pub(super) fn curve(x1: f64, y1: f64, my: f64, x2: f64, y2: f64) -> String {
    let (x1, y1, my, x2, y2) = (fixed(x1, 1), fixed(y1, 1), fixed(my, 1), fixed(x2, 1), fixed(y2, 1));
    format!("M{x1},{y1} C{x1},{my} {x2},{my} {x2},{y2}")
}

/// A vertex's accessible name (and tooltip): its function, role and, on runtime tasks, the branch it runs.
pub(super) fn vertex_label(name: &str, role: Role, branch: Option<&str>) -> String {
    match branch {
        Some(b) => format!("{name}: {}; runs {b}", role.label()),
        None => format!("{name}: {}", role.label()),
    }
}

/// A vertex's classes: its role's, and `selected`.
pub(super) fn vertex_class(role: Role, selected: bool) -> Classes {
    classes!("vertex", format!("role-{}", role.as_str()), selected.then_some("selected"))
}

/// What is inside a vertex's group: the tooltip, the box in its role's colour, the name.
fn vertex_body(label: String, (w, h): (f64, f64), role: Role, name: String) -> Html {
    html! { <>
        <title>{ label }</title>
        <rect width={short(w).to_string()} height={short(h).to_string()} rx="6" fill={role.colour()} />
        <text x={short(w / 2.0).to_string()} y={short(h / 2.0 + 4.0).to_string()} text-anchor="middle">{ name }</text>
    </> }
}

/// A function's vertex, as the plain and the clustered graph draw it.
pub(super) struct Vertex {
    pub class: Classes,
    pub name: String,
    pub role: Role,
    /// Runtime tasks: the branch the function runs.
    pub branch: Option<String>,
    pub transform: String,
    /// Its box's width and height.
    pub size: (f64, f64),
    pub label: String,
}

impl Vertex {
    /// The vertex as a button (`v-<name>`): click or Enter selects, the arrow keys move
    /// (`onkeydown`), hovering reports the name to `on_hover`; `tab_stop`: the one vertex the Tab key
    /// reaches.
    pub(super) fn button(
        self,
        tab_stop: bool,
        selected: bool,
        onclick: Callback<MouseEvent>,
        onkeydown: Callback<KeyboardEvent>,
        on_hover: &Option<Callback<Option<AttrValue>>>,
    ) -> Html {
        let Vertex { class, name, role, branch, transform, size, label } = self;
        let (onmouseenter, onmouseleave) = hover_callbacks(on_hover, &name);
        html! {
            <g {class} id={format!("v-{name}")} data-name={name.clone()} data-role={role.as_str()} data-runs={branch}
                {transform} {onclick} {onkeydown} {onmouseenter} {onmouseleave}
                tabindex={if tab_stop { "0" } else { "-1" }} role="button" aria-label={label.clone()}
                aria-pressed={super::view::bool_str(selected)}>
                { vertex_body(label, size, role, name) }
            </g>
        }
    }
}

/// `main()`'s box, centred at (`mx`, `my`).
pub(super) fn main_vertex(mx: f64, my: f64) -> Html {
    html! {
        <g class="vertex vertex-main" transform={format!("translate({},{})", fixed(mx - NODE_W / 2.0, 1), fixed(my - NODE_H / 2.0, 1))}>
            <title>{ "main(): calls the entry functions" }</title>
            <rect width={short(NODE_W).to_string()} height={short(NODE_H).to_string()} rx="13" />
            <text x={short(NODE_W / 2.0).to_string()} y={short(NODE_H / 2.0 + 4.0).to_string()} text-anchor="middle">{ "main" }</text>
        </g>
    }
}

#[derive(Properties, PartialEq)]
pub struct GraphProps {
    pub shown: Rc<Shown>,
    pub selected: Option<AttrValue>,
    pub on_select: Callback<Option<AttrValue>>,
    /// Called with the function under the pointer (and `None` when it leaves).
    #[prop_or_default]
    pub on_hover: Option<Callback<Option<AttrValue>>>,
    /// Zoom factor of the drawing (1 = natural size).
    #[prop_or(1.0)]
    pub zoom: f64,
    /// Vertices are buttons reachable by keyboard (false: a picture, as in the gallery's cards).
    #[prop_or(true)]
    pub interactive: bool,
}

#[function_component(CallGraphSvg)]
pub fn call_graph_svg(p: &GraphProps) -> Html {
    // A big graph is drawn in clusters (`bigraph.rs`); only the interactive view has them.
    let big =
        p.interactive && p.shown.generated.call_graph().is_some_and(|(g, _)| g.len() > super::bigraph::CLUSTER_FROM);
    let memo = use_memo((p.shown.clone(), big), |(s, big)| {
        s.generated.call_graph().map(|(g, built)| {
            if *big {
                Err(Rc::new(super::bigraph::clustered(g, built)))
            } else {
                Ok(Rc::new(place(g)))
            }
        })
    });
    let placed = match (*memo).clone() {
        Some(Ok(placed)) => placed,
        Some(Err(clustered)) => {
            return html! {
                <super::bigraph::BigCallGraph shown={p.shown.clone()} {clustered} selected={p.selected.clone()}
                    on_select={p.on_select.clone()} on_hover={p.on_hover.clone()} zoom={p.zoom} />
            };
        }
        None => return html! {},
    };
    let Some((cg, built)) = p.shown.generated.call_graph() else {
        return html! {};
    };
    let roles = built;
    let selected = p.selected.as_ref().and_then(|s| cg.index_of(s));
    let near = |u: usize, v: usize| selected == Some(u) || selected == Some(v);

    let edges = cg.edges().into_iter().map(|(u, v)| {
        let class = if near(u, v) { "edge edge-selected" } else { "edge" };
        html! { <path class={class} d={edge_path(placed.centre[u], placed.centre[v])} /> }
    });
    let entry_edges = cg.entries().into_iter().map(|v| {
        html! { <path class="edge edge-main" d={edge_path(placed.main, placed.centre[v])} /> }
    });
    // Runtime tasks: calls that only branches that never run make (dead code's distractors), and the
    // branch each function runs.
    let runtime = p.shown.generated.task.runtime.as_ref();
    let never_edges = runtime.into_iter().flat_map(|r| r.inactive_calls.iter()).filter_map(|(u, v)| {
        let (u, v) = (cg.index_of(u)?, cg.index_of(v)?);
        let class = if near(u, v) { "edge edge-never edge-selected" } else { "edge edge-never" };
        Some(html! {
            <path class={class} data-from={cg.name(u).to_string()} data-to={cg.name(v).to_string()}
                d={edge_path(placed.centre[u], placed.centre[v])} />
        })
    });
    let runs: std::collections::HashMap<&str, String> =
        runtime.map(|r| r.functions.iter().map(|f| (f.name.as_str(), f.describe())).collect()).unwrap_or_default();
    // The one tab stop: the selected vertex, else the first of the top layer.
    let tab_stop = selected.or_else(|| placed.layers.first().and_then(|l| l.first().copied()));
    let vertices = (0..cg.len()).map(|v| {
        let name = cg.name(v).to_string();
        let branch = runs.get(name.as_str()).cloned();
        let label = vertex_label(&name, roles[v], branch.as_deref());
        let class = vertex_class(roles[v], selected == Some(v));
        let (x, y) = placed.centre[v];
        let transform = format!("translate({},{})", fixed(x - NODE_W / 2.0, 1), fixed(y - NODE_H / 2.0, 1));
        if !p.interactive {
            let body = vertex_body(label, (NODE_W, NODE_H), roles[v], name.clone());
            return html! { <g {class} data-name={name} data-role={roles[v].as_str()} data-runs={branch} {transform}>{ body }</g> };
        }
        let toggle = {
            let on_select = p.on_select.clone();
            let name = AttrValue::from(name.clone());
            let is_selected = selected == Some(v);
            move || on_select.emit(if is_selected { None } else { Some(name.clone()) })
        };
        let onclick = {
            let toggle = toggle.clone();
            Callback::from(move |_: MouseEvent| toggle())
        };
        // Enter or Space on a focused vertex selects it, as a click does; the arrow keys move.
        let onkeydown = {
            let placed = placed.clone();
            let shown = p.shown.clone();
            Callback::from(move |e: KeyboardEvent| {
                let key = e.key();
                if key == "Enter" || key == " " {
                    e.prevent_default();
                    toggle();
                } else if let Some(to) = neighbour(&placed, v, &key) {
                    e.prevent_default();
                    if let Some((g, _)) = shown.generated.call_graph() {
                        move_focus(&format!("v-{}", g.name(v)), &format!("v-{}", g.name(to)));
                    }
                }
            })
        };
        let vertex = Vertex { class, name, role: roles[v], branch, transform, size: (NODE_W, NODE_H), label };
        vertex.button(tab_stop == Some(v), selected == Some(v), onclick, onkeydown, &p.on_hover)
    });
    let (mx, my) = placed.main;
    // Zoom 1 fits the drawing into its box (never larger than natural size); other zooms scale the
    // natural size and let the box scroll.
    let w = placed.width * p.zoom;
    let h = placed.height * p.zoom;
    let style = if (p.zoom - 1.0).abs() < 1e-9 { "max-width: 100%; height: auto;" } else { "" };
    html! {
        <svg id="call-graph" class="call-graph" xmlns="http://www.w3.org/2000/svg"
            viewBox={format!("0 0 {} {}", fixed(placed.width, 0), fixed(placed.height, 0))}
            width={fixed(w, 0).to_string()} height={fixed(h, 0).to_string()} style={style}
            role={if p.interactive { "group" } else { "img" }}
            aria-label={if p.interactive {
                format!("call graph of {} functions: arrow keys move between them, Enter selects one", cg.len())
            } else {
                format!("call graph of {} functions", cg.len())
            }}>
            <g class="edges">{ for entry_edges }{ for edges }{ for never_edges }</g>
            { main_vertex(mx, my) }
            <g class="vertices">{ for vertices }</g>
        </svg>
    }
}

/// The roles present in the graph, each with its colour and count; on runtime tasks, what the
/// dashed edges are (`never_calls`, when there are any). A plain function: no state.
pub fn legend(roles: &[Role], never_calls: usize) -> Html {
    let items = Role::ALL.iter().filter_map(|&r| {
        let count = roles.iter().filter(|&&x| x == r).count();
        (count > 0).then(|| {
            html! {
                <li>
                    <span class="swatch" style={format!("background:{}", r.colour())}></span>
                    { format!("{} ({count})", r.label()) }
                </li>
            }
        })
    });
    html! {
        <ul class="legend" aria-label="Roles">
            { for items }
            if never_calls > 0 {
                <li id="legend-never">
                    <span class="swatch swatch-never"></span>
                    { format!("call only in a branch that never runs ({never_calls})") }
                </li>
            }
        </ul>
    }
}
