//! The merge task's own panels: the two classes side by side, every line of a shared block tinted by
//! its block (the same tint in both classes, so the eye can match them) and the differing lines
//! marked; and the data-flow graph of the canonical program in place of the call graph.

use super::code::{tokens, use_lines};
use crate::decimal::{fixed, short};
use crate::kinds::merge_codebases::render::Piece;
use crate::kinds::merge_codebases::view::MergeView;
use crate::kinds::merge_codebases::CLASSES;
use crate::playground::window::COLUMN_FULL_MAX;
use std::rc::Rc;
use yew::prelude::*;

/// The hue of shared block `k`: golden-angle steps, so neighbouring blocks never look alike.
fn hue(k: usize) -> usize {
    (40 + k * 137) % 360
}

/// The tint of shared block `k` (translucent, so it reads in light and dark mode).
pub fn tint(k: usize) -> String {
    format!("hsla({}, 80%, 55%, 0.22)", hue(k))
}

/// The solid colour of block `k` (graph vertices, the legend).
pub fn solid(k: usize) -> String {
    format!("hsl({}, 65%, 58%)", hue(k))
}

fn piece_class(p: Option<Piece>) -> Classes {
    match p {
        Some(Piece::Block(k)) => classes!("piece-block", format!("block-{k}")),
        Some(Piece::Diff(_)) => classes!("piece-diff"),
        Some(Piece::Return) => classes!("piece-return"),
        None => classes!(),
    }
}

fn piece_title(p: Option<Piece>, view: &MergeView) -> Option<String> {
    match p {
        Some(Piece::Block(k)) => {
            Some(format!("shared block {} of {}: the same values in both classes", k + 1, view.blocks))
        }
        Some(Piece::Diff(i)) => {
            view.diffs.get(i).map(|d| format!("difference {}: the classes really differ here ({})", i + 1, d.how))
        }
        Some(Piece::Return) => Some("the return: the sum of the values no line reads".into()),
        None => None,
    }
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
/// more than [`COLUMN_FULL_MAX`] lines renders only those near the view (`code::use_lines`).
#[function_component(MergeClasses)]
pub fn merge_classes(p: &ClassesProps) -> Html {
    let hovered = use_state(|| None::<Piece>);
    let lines: Vec<&str> = p.code.split('\n').collect();
    let classes = [class_lines(&lines, &p.view, 0), class_lines(&lines, &p.view, 1)];
    let wins = [
        use_lines(&p.code, classes[0].1.len(), COLUMN_FULL_MAX),
        use_lines(&p.code, classes[1].1.len(), COLUMN_FULL_MAX),
    ];
    let column = |ci: usize| {
        let ((first, rows), win) = (&classes[ci], &wins[ci]);
        let (style, data_window) = win.attrs(*first);
        let shown = rows[win.current.start..win.current.end].iter().map(|&(text, piece)| {
            let tint = match piece {
                Some(Piece::Block(k)) => Some(format!("background-color: {}", tint(k))),
                _ => None,
            };
            let lit = piece.is_some() && *hovered == piece;
            let (enter, leave) = (hovered.clone(), hovered.clone());
            let onmouseenter = Callback::from(move |_: MouseEvent| enter.set(piece));
            let onmouseleave = Callback::from(move |_: MouseEvent| leave.set(None));
            html! {
                <span class={classes!("line", piece_class(piece), lit.then_some("lit"))} style={tint}
                    title={piece_title(piece, &p.view)} {onmouseenter} {onmouseleave}>
                    { for tokens(text).into_iter().map(|(class, text)| if class.is_empty() {
                        html! { { text } }
                    } else {
                        html! { <span class={class}>{ text }</span> }
                    }) }
                </span>
            }
        });
        html! {
            <div class="merge-column">
                { super::view::text_el("h3", None, CLASSES[ci]) }
                <pre id={format!("merge-{}", CLASSES[ci])} class="code merge-code" ref={win.pre.clone()}
                    style={format!("counter-reset: line {first}")} data-lines={rows.len().to_string()}>
                    <code ref={win.code.clone()} {style} data-window={data_window}>{ for shown }</code>
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

const NODE_R: f64 = 12.0;
const GAP_X: f64 = 34.0;
const LAYER_GAP: f64 = 46.0;
const MARGIN: f64 = 18.0;

#[derive(Properties, PartialEq)]
pub struct FlowProps {
    pub view: Rc<MergeView>,
    #[prop_or(1.0)]
    pub zoom: f64,
    /// The element id of the drawing.
    #[prop_or(AttrValue::Static("data-flow"))]
    pub id: AttrValue,
}

/// The data-flow graph: parameters on top, each variable below every variable it reads; vertices
/// tinted by their block, differences marked.
#[function_component(FlowSvg)]
pub fn flow_svg(p: &FlowProps) -> Html {
    let placed = use_memo(p.view.clone(), |v| {
        let layout = v.flow.layout();
        let widest = layout.layers.iter().map(Vec::len).max().unwrap_or(1).max(1) as f64;
        let width = 2.0 * MARGIN + widest * GAP_X;
        let height = 2.0 * MARGIN + layout.layers.len().max(1) as f64 * LAYER_GAP;
        let mut centre = vec![(0.0, 0.0); v.flow.nodes.len()];
        for (li, layer) in layout.layers.iter().enumerate() {
            let left = (width - layer.len() as f64 * GAP_X) / 2.0;
            for (i, &n) in layer.iter().enumerate() {
                centre[n] = (left + (i as f64 + 0.5) * GAP_X, MARGIN + (li as f64 + 0.5) * LAYER_GAP);
            }
        }
        (width, height, centre)
    });
    let (width, height, centre) = &*placed;
    let flow = &p.view.flow;
    let edges = flow.edges.iter().map(|&(u, v, only_b)| {
        let ((x1, y1), (x2, y2)) = (centre[u], centre[v]);
        let class = if only_b { "flow-edge only-b" } else { "flow-edge" };
        html! { <line class={class} x1={fixed(x1, 1).to_string()} y1={fixed(y1 + NODE_R, 1).to_string()} x2={fixed(x2, 1).to_string()} y2={fixed(y2 - NODE_R, 1).to_string()} /> }
    });
    let nodes = flow.nodes.iter().enumerate().map(|(i, n)| {
        let (x, y) = centre[i];
        let (fill, kind) = match n.piece {
            None => ("var(--code-bg)".to_string(), "parameter".to_string()),
            Some(Piece::Block(k)) => (solid(k), format!("block {}", k + 1)),
            Some(Piece::Diff(d)) => ("var(--error-border)".to_string(), format!("difference {}", d + 1)),
            Some(Piece::Return) => ("var(--code-bg)".to_string(), String::new()),
        };
        let named = |c: usize| match &n.names[c] {
            Some(x) => format!("`{x}` in {}", CLASSES[c]),
            None => format!("folded into another line in {}", CLASSES[c]),
        };
        let title =
            format!("{} ({kind}{}): {}, {}", n.name, if n.leaf { ", returned" } else { "" }, named(0), named(1));
        let class = classes!(
            "flow-node",
            matches!(n.piece, Some(Piece::Diff(_))).then_some("flow-diff"),
            n.piece.is_none().then_some("flow-param"),
            n.leaf.then_some("flow-leaf")
        );
        html! {
            <g class={class} transform={format!("translate({},{})", fixed(x, 1), fixed(y, 1))} data-name={n.name.clone()}>
                <title>{ title }</title>
                <circle r={short(NODE_R).to_string()} fill={fill} />
                <text y="3.5" text-anchor="middle">{ n.name.clone() }</text>
            </g>
        }
    });
    let style = if (p.zoom - 1.0).abs() < 1e-9 { "max-width: 100%; height: auto;" } else { "" };
    html! {
        <svg id={p.id.clone()} class="call-graph data-flow" xmlns="http://www.w3.org/2000/svg"
            viewBox={format!("0 0 {} {}", fixed(*width, 0), fixed(*height, 0))}
            width={fixed(width * p.zoom, 0).to_string()} height={fixed(height * p.zoom, 0).to_string()} style={style}
            role="img" aria-label={format!("data-flow graph of {} variables", flow.nodes.len())}>
            <g class="edges">{ for edges }</g>
            <g class="vertices">{ for nodes }</g>
        </svg>
    }
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
