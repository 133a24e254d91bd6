//! The merge task's own panels: the two classes side by side, every line of a shared block tinted by
//! its block (the same tint in both classes, so the eye can match them) and the differing lines
//! marked; and the data-flow graph of the canonical program in place of the call graph.

use super::code::{tokens, use_lines};
use crate::playground::flow_fit;
use crate::playground::window::COLUMN_FULL_MAX;
use cabrito_gen::graph::svg::esc_to;
use cabrito_gen::kinds::merge_codebases::render::Piece;
use cabrito_gen::kinds::merge_codebases::view::{hue, solid, FlowDrawing, MergeView};
use cabrito_gen::kinds::merge_codebases::CLASSES;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The tint of shared block `k` (translucent, so it reads in light and dark mode).
pub fn tint(k: usize) -> String {
    format!("hsla({}, 80%, 55%, 0.22)", hue(k))
}

fn piece_title(p: Piece, view: &MergeView) -> Option<String> {
    match p {
        Piece::Block(k) => Some(format!("shared block {} of {}: the same values in both classes", k + 1, view.blocks)),
        Piece::Diff(i) => {
            view.diffs.get(i).map(|d| format!("difference {}: the classes really differ here ({})", i + 1, d.how))
        }
        Piece::Return => Some("the return: the sum of the values no line reads".into()),
    }
}

/// One line of a class column as markup: a `.line` span with its piece's classes, tint, title and
/// `data-piece`, its tokens highlighted as in every code block, its text escaped.
fn line_markup(out: &mut String, text: &str, piece: Option<Piece>, lit: bool, view: &MergeView) {
    out.push_str("<span class=\"line");
    match piece {
        Some(Piece::Block(k)) => out.push_str(&format!(" piece-block block-{k}")),
        Some(Piece::Diff(_)) => out.push_str(" piece-diff"),
        Some(Piece::Return) => out.push_str(" piece-return"),
        None => {}
    }
    if lit {
        out.push_str(" lit");
    }
    out.push('"');
    if let Some(p) = piece {
        if let Piece::Block(k) = p {
            out.push_str(&format!(" style=\"background-color: {}\"", tint(k)));
        }
        if let Some(title) = piece_title(p, view) {
            out.push_str(" title=\"");
            esc_to(out, &title);
            out.push('"');
        }
        out.push_str(&format!(" data-piece=\"{}\"", p.code()));
    }
    out.push('>');
    for (class, text) in tokens(text) {
        if class.is_empty() {
            esc_to(out, &text);
        } else {
            out.push_str("<span class=\"");
            out.push_str(class);
            out.push_str("\">");
            esc_to(out, &text);
            out.push_str("</span>");
        }
    }
    out.push_str("</span>");
}

#[derive(Properties, PartialEq)]
pub struct ClassesProps {
    pub code: AttrValue,
    pub view: Rc<MergeView>,
}

/// One class's lines, from its `class` line to its return, each with its piece, and the 0-based
/// number of its first line (made at each render: a few thousand slices of the code at `n = 2,000`).
fn class_lines<'a>(lines: &[&'a str], view: &MergeView, ci: usize) -> (usize, Vec<(&'a str, Option<Piece>)>) {
    let map = &view.lines[ci];
    let header = format!("class {}(", CLASSES[ci]);
    let first = lines.iter().position(|l| l.starts_with(&header)).unwrap_or(0);
    let last = map.last().map(|&(l, _)| l.saturating_sub(1)).unwrap_or(first);
    let end = (last + 1).min(lines.len()).max(first);
    // The map's (1-based line, piece) pairs, placed by line (the first for a line).
    let mut pieces = vec![None; end - first];
    for &(l, piece) in map {
        if let Some(slot) = l.checked_sub(first + 1).and_then(|i| pieces.get_mut(i)) {
            slot.get_or_insert(piece);
        }
    }
    (first, lines[first..end].iter().copied().zip(pieces).collect())
}

/// `CalculateA` and `CalculateB` side by side, lines tinted by block, differences marked. A class of
/// more than [`COLUMN_FULL_MAX`] lines renders only those near the view (`code::use_lines`). The
/// lines are markup made here and parsed by the browser at once (a few hundred lines, each a span
/// with a few token spans); hovering is one handler per column, which reads the line's `data-piece`.
#[function_component(MergeClasses)]
pub fn merge_classes(p: &ClassesProps) -> Html {
    let hovered = use_state_eq(|| None::<Piece>);
    let lines: Vec<&str> = p.code.split('\n').collect();
    let classes = [class_lines(&lines, &p.view, 0), class_lines(&lines, &p.view, 1)];
    let wins = [
        use_lines(&p.code, classes[0].1.len(), COLUMN_FULL_MAX, false),
        use_lines(&p.code, classes[1].1.len(), COLUMN_FULL_MAX, false),
    ];
    let onmouseover = {
        let hovered = hovered.clone();
        Callback::from(move |e: MouseEvent| {
            let line = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|t| t.closest(".line").ok().flatten());
            if let Some(line) = line {
                hovered.set(line.get_attribute("data-piece").and_then(|c| Piece::from_code(&c)));
            }
        })
    };
    let onmouseleave = {
        let hovered = hovered.clone();
        Callback::from(move |_: MouseEvent| hovered.set(None))
    };
    let column = |ci: usize| {
        let ((first, rows), win) = (&classes[ci], &wins[ci]);
        let (style, data_window) = win.attrs(*first);
        let mut markup = String::with_capacity(160 * win.current.len());
        for &(text, piece) in &rows[win.current.start..win.current.end] {
            line_markup(&mut markup, text, piece, piece.is_some() && *hovered == piece, &p.view);
        }
        html! {
            <div class="merge-column">
                { super::view::text_el("h3", None, CLASSES[ci]) }
                <pre id={format!("merge-{}", CLASSES[ci])} class="code merge-code" ref={win.pre.clone()}
                    style={format!("counter-reset: line {first}")} data-lines={rows.len().to_string()}>
                    <code ref={win.code.clone()} {style} data-window={data_window}
                        onmouseover={onmouseover.clone()} onmouseleave={onmouseleave.clone()}>
                        { Html::from_html_unchecked(AttrValue::from(markup)) }
                    </code>
                </pre>
            </div>
        }
    };
    let d = p.view.diffs.len();
    html! {
        <div class="merge-classes" id="merge-classes">
            <p class="hint">
                { format!(
                    "{} shared blocks, each tinted the same in both classes (hover a line to light up its block), and {d} differing line{} per class, marked ≠.",
                    p.view.blocks, if d == 1 { "" } else { "s" }
                ) }
            </p>
            <div class="merge-columns">{ column(0) }{ column(1) }</div>
        </div>
    }
}

/// The data-flow graph at `zoom` (1 fits it to its box), in an `<svg>` element with id `id`: the
/// markup made with the task ([`FlowDrawing`]), parsed by the browser at once. A plain function.
pub fn flow_svg(d: &FlowDrawing, zoom: f64, id: &str) -> Html {
    let style = if (zoom - 1.0).abs() < 1e-9 { " style=\"max-width: 100%; height: auto;\"" } else { "" };
    Html::from_html_unchecked(AttrValue::from(format!(
        "<svg id=\"{id}\" class=\"call-graph data-flow\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" \
         width=\"{:.0}\" height=\"{:.0}\"{style} role=\"img\" aria-label=\"data-flow graph of {} variables\">{}</svg>",
        d.width,
        d.height,
        d.width as f64 * zoom,
        d.height as f64 * zoom,
        d.vertices,
        d.markup
    )))
}

#[derive(Properties, PartialEq)]
pub struct FlowGraphProps {
    pub view: Rc<MergeView>,
    /// The reader's zoom on top of the fit (1: fit the box).
    pub zoom: f64,
    /// Drawn only while its panel is open: about 7 elements per variable, `n` + 10 variables.
    pub shown: bool,
}

/// The data-flow graph in its scrolling box, laid out again for the box whenever the box changes
/// size ([`flow_fit::fit`]: layers down or across, long layers wrapped), then scaled by the zoom.
#[function_component(FlowGraph)]
pub fn flow_graph(p: &FlowGraphProps) -> Html {
    let host = use_node_ref();
    {
        let host = host.clone();
        use_effect_with((p.view.clone(), p.zoom, p.shown), move |&(_, zoom, shown)| {
            let watch = host.cast::<web_sys::Element>().filter(|_| shown).and_then(|el| {
                relayout(&el, zoom);
                let target = el.clone();
                let on_resize = Closure::<dyn FnMut()>::new(move || relayout(&target, zoom));
                let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
                observer.observe(&el);
                Some((observer, on_resize))
            });
            move || {
                if let Some((observer, _on_resize)) = watch {
                    observer.disconnect();
                }
            }
        });
    }
    html! {
        <div class="graph-scroll flow-box" ref={host}>
            if p.shown {
                { flow_svg(&p.view.flow, 1.0, "data-flow") }
            }
        </div>
    }
}

/// Every element of `root` that `selector` matches.
fn all(root: &web_sys::Element, selector: &str) -> Vec<web_sys::Element> {
    let Ok(list) = root.query_selector_all(selector) else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<web_sys::Element>().ok()).collect()
}

/// Lay the drawing in `host` out for `host`'s size: each vertex moved to its place, each line to
/// its vertices' rims, the drawing sized to the fit times `zoom`. On a page that is not one window
/// high (a phone) the box may grow: it fits the width and most of the window's height.
fn relayout(host: &web_sys::Element, zoom: f64) {
    let Some(svg) = host.query_selector("svg.data-flow").ok().flatten() else { return };
    let nodes = all(&svg, ".flow-node");
    let at: Option<Vec<(usize, usize)>> = nodes
        .iter()
        .map(|n| {
            let a = n.get_attribute("data-at")?;
            let (l, p) = a.split_once(',')?;
            Some((l.parse().ok()?, p.parse().ok()?))
        })
        .collect();
    let Some(at) = at else { return };
    let window = web_sys::window();
    let one_screen = window
        .as_ref()
        .and_then(|w| w.match_media("(min-width: 900px) and (min-height: 560px)").ok().flatten())
        .is_some_and(|m| m.matches());
    let height = if one_screen {
        host.client_height() as f64
    } else {
        window.and_then(|w| w.inner_height().ok()).and_then(|h| h.as_f64()).unwrap_or(600.0) * 0.6
    };
    // A few pixels to spare, so rounding never brings a scroll bar.
    let f = flow_fit::fit(&at, host.client_width() as f64 - 4.0, height - 4.0);
    for (n, &(x, y)) in nodes.iter().zip(&f.centres) {
        let _ = n.set_attribute("transform", &format!("translate({x:.1},{y:.1})"));
    }
    for e in all(&svg, ".flow-edge") {
        let end = |a: &str| e.get_attribute(a).and_then(|v| v.parse::<usize>().ok());
        if let Some(((x1, y1), (x2, y2))) = end("data-from").zip(end("data-to")).and_then(|(u, v)| f.line(u, v)) {
            for (name, v) in [("x1", x1), ("y1", y1), ("x2", x2), ("y2", y2)] {
                let _ = e.set_attribute(name, &format!("{v:.1}"));
            }
        }
    }
    let s = f.scale * zoom;
    let _ = svg.set_attribute("viewBox", &format!("0 0 {:.1} {:.1}", f.width, f.height));
    let _ = svg.set_attribute("width", &format!("{:.0}", f.width * s));
    let _ = svg.set_attribute("height", &format!("{:.0}", f.height * s));
    let _ = svg.remove_attribute("style");
    let _ = svg.set_attribute(
        "data-fit",
        &format!("{}:{}:{:.3}", if f.flow == flow_fit::Flow::Down { "down" } else { "right" }, f.wrap, f.scale),
    );
}

/// The blocks' tints and the difference mark (a plain function: no state).
pub fn flow_legend(v: &MergeView) -> Html {
    html! {
        <ul class="legend" aria-label="Blocks">
            <li><span class="swatch" style="background: var(--code-bg); border: 1px solid var(--border)"></span>{ "parameter" }</li>
            { for (0..v.blocks).map(|k| html! {
                <li><span class="swatch" style={format!("background:{}", solid(k))}></span>
                    { format!("block {} ({} lines)", k + 1, v.block_lines.get(k).copied().unwrap_or(0)) }</li>
            }) }
            <li><span class="swatch" style="background: var(--error-border)"></span>
                { format!("difference ({})", v.diffs.len()) }</li>
        </ul>
    }
}
