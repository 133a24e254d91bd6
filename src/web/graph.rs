//! The call graph drawn as SVG in layers (callers above callees), vertices coloured by role: a named
//! group of buttons with one tab stop (arrow keys move, Enter selects), shown by [`Drawing`], which also
//! shows the clustered drawing of big graphs (`bigraph.rs`) and handles both by delegation.

use super::app::Shown;
use cabrito_gen::graph::layout::{arrow_target, layered};
use cabrito_gen::graph::CallGraph;
use cabrito_gen::graph::{
    svg,
    svg::{Button, Vertex, NAV_KEYS, NODE_H, NODE_W},
};
use cabrito_gen::kinds::Role;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

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
    svg::curve(x1, y1, (y1 + y2) / 2.0, x2, y2)
}

/// The plain drawing's markup: `selected` is the selected vertex; `interactive`: its vertices are
/// buttons reachable by keyboard (else a picture).
fn plain(shown: &Shown, placed: &Placed, selected: Option<usize>, zoom: f64, interactive: bool) -> String {
    let Some((cg, roles)) = shown.generated.call_graph() else { return String::new() };
    let n = cg.len();
    let mut out = String::with_capacity(400 * n + 512);
    let label = if interactive {
        format!("call graph of {n} functions: arrow keys move between them, Enter selects one")
    } else {
        format!("call graph of {n} functions")
    };
    svg::svg_start(&mut out, (placed.width, placed.height), zoom, interactive, &label, ("", ""));
    out.push_str(r#"<g class="edges">"#);
    let near = |u: usize, v: usize| selected == Some(u) || selected == Some(v);
    for v in cg.entries() {
        svg::path(&mut out, "edge edge-main", None, "", &edge_path(placed.main, placed.centre[v]));
    }
    for (u, v) in cg.edges() {
        svg::path(
            &mut out,
            if near(u, v) { "edge edge-selected" } else { "edge" },
            None,
            "",
            &edge_path(placed.centre[u], placed.centre[v]),
        );
    }
    // Runtime tasks: calls that only branches that never run make (dead code's distractors), and the
    // branch each function runs.
    let runtime = shown.generated.task.runtime.as_ref();
    for (u, v) in runtime.into_iter().flat_map(|r| r.inactive_calls.iter()) {
        let (Some(u), Some(v)) = (cg.index_of(u), cg.index_of(v)) else { continue };
        let class = if near(u, v) { "edge edge-never edge-selected" } else { "edge edge-never" };
        let ends = format!(r#" data-from="{}" data-to="{}""#, svg::esc(cg.name(u)), svg::esc(cg.name(v)));
        svg::path(&mut out, class, None, &ends, &edge_path(placed.centre[u], placed.centre[v]));
    }
    out.push_str("</g>");
    svg::main_vertex(&mut out, placed.main);
    out.push_str(r#"<g class="vertices">"#);
    // The one tab stop: the selected vertex, else the first of the top layer.
    let tab_stop = selected.or_else(|| placed.layers.first().and_then(|l| l.first().copied()));
    for (v, &role) in roles.iter().enumerate().take(n) {
        let (x, y) = placed.centre[v];
        let button = interactive.then(|| Button {
            tab_stop: tab_stop == Some(v),
            nav: NAV_KEYS.map(|k| {
                arrow_target(&placed.layers, &placed.pos, &placed.centre, v, k)
                    .map(|to| format!("v-{}", svg::esc(cg.name(to))))
            }),
        });
        let branch = runtime.and_then(|r| r.functions.iter().find(|f| f.name == cg.name(v))).map(|f| f.describe());
        Vertex {
            name: cg.name(v),
            role,
            branch: branch.as_deref(),
            at: (x - NODE_W / 2.0, y - NODE_H / 2.0),
            size: (NODE_W, NODE_H),
            selected: selected == Some(v),
            button,
        }
        .write(&mut out);
    }
    out.push_str("</g></svg>");
    out
}

/// Move the keyboard focus (and the drawing's one tab stop) to its item `to` (an element id).
fn move_focus(to: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Some(b) = doc.get_element_by_id(to) else { return };
    if let Ok(Some(a)) = doc.query_selector("#call-graph [tabindex=\"0\"]") {
        let _ = a.set_attribute("tabindex", "-1");
    }
    let _ = b.set_attribute("tabindex", "0");
    // SVG elements have focus() as HTML elements do.
    if let Ok(focus) = js_sys::Reflect::get(&b, &"focus".into()) {
        if let Some(f) = focus.dyn_ref::<js_sys::Function>() {
            let _ = f.call0(&b);
        }
    }
}

/// What a click (or Enter) does to the clustered drawing's boxes.
pub enum Boxes {
    /// Open or close a box.
    Toggle(usize),
    /// Open all of the drawing's `n`.
    All(usize),
    /// Close all.
    None,
}

/// What a drawing's items do: select a function (`on_select`, with the selection `selected`),
/// report the function under the pointer (`on_hover`), open and close the clustered drawing's boxes
/// (`on_boxes`).
pub struct Handlers {
    pub selected: Option<AttrValue>,
    pub on_select: Callback<Option<AttrValue>>,
    pub on_hover: Option<Callback<Option<AttrValue>>>,
    pub on_boxes: Option<Callback<Boxes>>,
}

/// The element an event happened on.
fn target(e: &web_sys::Event) -> Option<web_sys::Element> {
    e.target()?.dyn_into().ok()
}

fn closest(e: &web_sys::Element, selector: &str) -> Option<web_sys::Element> {
    e.closest(selector).ok().flatten()
}

/// A drawing's markup (an `<svg id="call-graph">`, after the clustered drawing's hint line), with its
/// clicks, keys and hovering handled here by delegation: a function's vertex selects it (or clears
/// the selection), a box opens or closes, the arrow keys move the focus along `data-nav`. An item
/// pressed while focused keeps the focus when the markup is drawn anew.
pub fn drawing(markup: AttrValue, h: Handlers) -> Html {
    let Handlers { selected, on_select, on_hover, on_boxes } = h;
    // Press an item (a click, Enter or Space): select its function, or open or close its box.
    let press = {
        let boxes = on_boxes.clone();
        Rc::new(move |item: &web_sys::Element| {
            let focused = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
            if focused.as_ref() == Some(item) {
                // After the new markup is in (Yew draws before a timeout's turn).
                let id = item.get_attribute("id").unwrap_or_default();
                gloo::timers::callback::Timeout::new(0, move || move_focus(&id)).forget();
            }
            if let Some(cl) = item.get_attribute("data-cluster").and_then(|c| c.parse().ok()) {
                if let Some(b) = &boxes {
                    b.emit(Boxes::Toggle(cl));
                }
            } else if let Some(name) = item.get_attribute("data-name") {
                let again = selected.as_deref() == Some(name.as_str());
                on_select.emit((!again).then(|| AttrValue::from(name)));
            }
        })
    };
    let onclick = {
        let press = press.clone();
        Callback::from(move |e: MouseEvent| {
            let Some(t) = target(&e) else { return };
            if let Some(b) = &on_boxes {
                if closest(&t, "#graph-open-all").is_some() {
                    let n = web_sys::window()
                        .and_then(|w| w.document())
                        .and_then(|d| d.get_element_by_id("call-graph"))
                        .and_then(|g| g.get_attribute("data-clusters"))
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0);
                    return b.emit(Boxes::All(n));
                }
                if closest(&t, "#graph-close-all").is_some() {
                    return b.emit(Boxes::None);
                }
            }
            if let Some(item) = closest(&t, "[data-nav]") {
                press(&item);
            }
        })
    };
    let onkeydown = Callback::from(move |e: KeyboardEvent| {
        let Some(item) = target(&e).and_then(|t| closest(&t, "[data-nav]")) else { return };
        let key = e.key();
        if key == "Enter" || key == " " {
            e.prevent_default();
            press(&item);
        } else if let Some(k) = NAV_KEYS.iter().position(|&n| n == key) {
            let nav = item.get_attribute("data-nav").unwrap_or_default();
            if let Some(to) = nav.split(' ').nth(k).filter(|t| *t != "-") {
                e.prevent_default();
                move_focus(to);
            }
        }
    });
    // Entering a function's vertex reports its name, leaving it `None`.
    let vertex = |t: Option<web_sys::Element>| {
        t.and_then(|t| closest(&t, "g[data-nav][data-name]")).and_then(|v| v.get_attribute("data-name"))
    };
    let (onmouseover, onmouseout) = match on_hover {
        None => (None, None),
        Some(h) => {
            let enter = h.clone();
            (
                Some(Callback::from(move |e: MouseEvent| {
                    if let Some(name) = vertex(target(&e)) {
                        enter.emit(Some(AttrValue::from(name)));
                    }
                })),
                // (A vertex's text lets the pointer through: leaving its box is leaving it.)
                Some(Callback::from(move |e: MouseEvent| {
                    if vertex(target(&e)).is_some() {
                        h.emit(None);
                    }
                })),
            )
        }
    };
    html! {
        <div class="graph-drawing" {onclick} {onkeydown} {onmouseover} {onmouseout}>
            { Html::from_html_unchecked(markup) }
        </div>
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
    let big = p.interactive && super::bigraph::is_big(&p.shown);
    // The markup of each state (the layout worked out anew each time: at most 400 functions here).
    let markup = use_memo(
        (p.shown.clone(), p.selected.clone(), p.zoom.to_bits(), p.interactive, big),
        |(shown, selected, zoom, interactive, big)| {
            let (g, _) = shown.generated.call_graph().filter(|_| !*big)?;
            let selected = selected.as_ref().and_then(|s| g.index_of(s));
            Some(AttrValue::from(plain(shown, &place(g), selected, f64::from_bits(*zoom), *interactive)))
        },
    );
    if big {
        return html! {
            <super::bigraph::BigCallGraph shown={p.shown.clone()} selected={p.selected.clone()}
                on_select={p.on_select.clone()} on_hover={p.on_hover.clone()} zoom={p.zoom} />
        };
    }
    match (&*markup, p.interactive) {
        (None, _) => html! {},
        (Some(m), false) => Html::from_html_unchecked(m.clone()),
        (Some(m), true) => drawing(
            m.clone(),
            Handlers {
                selected: p.selected.clone(),
                on_select: p.on_select.clone(),
                on_hover: p.on_hover.clone(),
                on_boxes: None,
            },
        ),
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
