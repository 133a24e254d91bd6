//! The scale page: one kind, domain, axis and seed at each of the paper's sizes, so a class can see
//! what an axis does to a task (functions, functions to edit, lines, tokens).

use super::app::now;
use super::route;
use crate::task::{generate, Sizes};
use crate::TaskSpec;
use yew::prelude::*;

/// One row: the size, the task's figures, and how long it took to generate here.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub spec: TaskSpec,
    pub sizes: Sizes,
    pub millis: Option<f64>,
}

/// The spec at each of the axis's paper sizes (sizes a kind cannot be built at are left out).
pub fn rows(spec: &TaskSpec) -> Vec<Row> {
    spec.axis
        .def()
        .paper_sizes()
        .iter()
        .filter_map(|&n| {
            let mut s = spec.clone();
            s.n = n;
            let t0 = now();
            let task = generate(&s).ok()?;
            let millis = match (t0, now()) {
                (Some(a), Some(b)) => Some(b - a),
                _ => None,
            };
            Some(Row { spec: s, sizes: task.sizes, millis })
        })
        .collect()
}

/// A small bar chart of one figure against `n`.
fn chart(title: &str, id: &str, rows: &[Row], value: fn(&Sizes) -> usize) -> Html {
    const W: f64 = 300.0;
    const H: f64 = 150.0;
    const PAD: f64 = 24.0;
    let max = rows.iter().map(|r| value(&r.sizes)).max().unwrap_or(1).max(1) as f64;
    let slot = (W - 2.0 * PAD) / rows.len().max(1) as f64;
    let bars = rows.iter().enumerate().map(|(i, r)| {
        let v = value(&r.sizes);
        let h = (v as f64 / max) * (H - 2.0 * PAD);
        let x = PAD + i as f64 * slot + slot * 0.15;
        let y = H - PAD - h;
        html! {
            <g>
                <title>{ format!("n = {}: {v}", r.spec.n) }</title>
                <rect x={format!("{x:.1}")} y={format!("{y:.1}")} width={format!("{:.1}", slot * 0.7)} height={format!("{h:.1}")} class="bar" />
                <text x={format!("{:.1}", x + slot * 0.35)} y={format!("{:.1}", y - 3.0)} text-anchor="middle" class="value">{ v }</text>
                <text x={format!("{:.1}", x + slot * 0.35)} y={format!("{:.1}", H - PAD + 14.0)} text-anchor="middle" class="axis">{ r.spec.n }</text>
            </g>
        }
    });
    html! {
        <figure class="chart">
            <svg id={id.to_string()} viewBox={format!("0 0 {W} {H}")} role="img" aria-label={title.to_string()}>
                <line x1={PAD.to_string()} y1={(H - PAD).to_string()} x2={(W - PAD).to_string()} y2={(H - PAD).to_string()} class="baseline" />
                { for bars }
            </svg>
            <figcaption>{ format!("{title} against n") }</figcaption>
        </figure>
    }
}

#[derive(Properties, PartialEq)]
pub struct ScaleProps {
    pub spec: TaskSpec,
}

#[function_component(ScaleView)]
pub fn scale_view(p: &ScaleProps) -> Html {
    let rows = use_memo(p.spec.clone(), rows);
    html! {
        <section id="scale" class="scale">
            <h1 class="task-title">
                { format!("How {} grows along {}", p.spec.kind.label().to_lowercase(), p.spec.axis.label()) }
            </h1>
            <p class="stats">{ format!("{}; {} domain, seed {}. The paper's sizes, each opening its task.", p.spec.axis.scales(), p.spec.domain, p.spec.seed) }</p>
            <div class="charts">
                { chart("Functions", "chart-functions", &rows, |s| s.functions) }
                { chart("Functions to edit", "chart-edit", &rows, |s| s.functions_to_edit) }
                { chart("Lines of solution.py", "chart-lines", &rows, |s| s.starter_lines) }
                { chart("Prompt tokens (estimate)", "chart-tokens", &rows, |s| s.prompt_tokens_estimate) }
            </div>
            <table id="scale-table" class="sizes">
                <thead>
                    <tr>
                        <th>{ "n" }</th><th>{ "functions" }</th><th>{ "to edit" }</th><th>{ "lines" }</th>
                        <th>{ "characters" }</th><th>{ "tokens (est.)" }</th><th>{ "generated in" }</th><th>{ "task" }</th>
                    </tr>
                </thead>
                <tbody>
                    { for rows.iter().map(|r| html! {
                        <tr data-n={r.spec.n.to_string()}>
                            <td>{ r.spec.n }</td>
                            <td>{ r.sizes.functions }</td>
                            <td>{ r.sizes.functions_to_edit }</td>
                            <td>{ r.sizes.starter_lines }</td>
                            <td>{ r.sizes.starter_chars }</td>
                            <td>{ r.sizes.prompt_tokens_estimate }</td>
                            <td>{ r.millis.map(|m| format!("{m:.1} ms")).unwrap_or_default() }</td>
                            <td><a href={route::fragment(&r.spec)}>{ "open" }</a></td>
                        </tr>
                    }) }
                </tbody>
            </table>
        </section>
    }
}
