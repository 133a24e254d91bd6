//! The gallery's first screen: what Cabra is (one line, the paper's repository linked), a first
//! step, and the product's range — one small card per kind and per axis, each with a pictogram of
//! what the task asks (drawn here, so the first screen needs no generated task and no lazy module),
//! each opening a small task of its kind or axis. The generated cards follow below (`view::Gallery`).

use super::route;
use super::view::GALLERY_N;
use cabrito_gen::spec::Support;
use cabrito_gen::spec::{Axis, Kind, TaskSpec};
use yew::prelude::*;

/// Where the paper's code, tasks and results are (its preprint is announced there).
pub const PAPER_URL: &str = "https://github.com/microsoft/CABRA";

/// A small task of a kind, on its first axis and domain (as the gallery's cards).
fn kind_spec(kind: Kind) -> TaskSpec {
    let def = kind.def();
    let base = TaskSpec { kind, n: GALLERY_N, ..TaskSpec::default() };
    let axis = match def.axes() {
        Support::Only(axes) => axes.first().copied().unwrap_or(base.axis),
        Support::NotApplicable => base.axis,
    };
    let domain = match def.domains() {
        Support::Only(domains) => domains.first().copied().unwrap_or(base.domain),
        Support::NotApplicable => base.domain,
    };
    TaskSpec { axis, domain, ..base }
}

/// A small task along an axis: the default kind when it is built along it, else the first that is.
fn axis_spec(axis: Axis) -> TaskSpec {
    let base = TaskSpec::default();
    let kind = std::iter::once(base.kind)
        .chain(Kind::ALL.iter().copied())
        .find(|k| k.def().axes().allows(&axis))
        .unwrap_or(base.kind);
    TaskSpec { kind, axis, n: GALLERY_N, ..base }
}

/// One line on what a kind asks.
fn kind_line(kind: Kind) -> &'static str {
    match kind.as_str() {
        "dead_code" => "delete the functions nothing calls",
        "add_parameter" => "thread a new parameter down a call chain",
        "add_return_value" => "pass a new value back up the chain",
        "cache_function" => "cache a slow call every caller shares",
        "extract_helper" => "pull repeated code into one helper",
        "merge_codebases" => "merge two near-identical classes",
        "variable_renaming" => "rename variables along a chain",
        _ => "a refactoring of the call graph",
    }
}

/// One line on what an axis scales.
fn axis_line(axis: Axis) -> &'static str {
    match axis.as_str() {
        "traversal" => "n functions the edit passes through",
        "search" => "n functions to search among",
        "runtime" => "n hops to find which branch runs",
        "instructions" => "n requirements to obey at once",
        "comment" => "n words of a comment to copy",
        _ => "n grows",
    }
}

// ---- pictograms ---------------------------------------------------------------------------------

/// A function in a pictogram: where, and its role (plain, to edit, dead, or not run).
struct Node(f64, f64, &'static str);

fn graph(nodes: &[Node], edges: &[(usize, usize)], note: &str) -> Html {
    html! {
        <>
            { for edges.iter().filter_map(|&(a, b)| Some((nodes.get(a)?, nodes.get(b)?))).map(|(a, b)| html! {
                <line class={classes!("pe", (a.2 == "dead" || b.2 == "dead" || b.2 == "idle").then_some("pe-faint"))} x1={a.0.to_string()} y1={a.1.to_string()} x2={b.0.to_string()} y2={b.1.to_string()} />
            }) }
            { for nodes.iter().map(|n| html! { <circle class={format!("pn pn-{}", n.2)} cx={n.0.to_string()} cy={n.1.to_string()} r="5.5" /> }) }
            if !note.is_empty() { <text class="pt" x="60" y="60" text-anchor="middle">{ note.to_string() }</text> }
        </>
    }
}

fn lines(rows: &[(&str, &str)]) -> Html {
    html! {
        { for rows.iter().enumerate().map(|(i, (class, text))| html! {
            <text class={format!("pt pt-{class}")} x="8" y={(14 + 13 * i).to_string()}>{ text.to_string() }</text>
        }) }
    }
}

/// What a kind asks, drawn in 120 × 64.
fn kind_picture(kind: Kind) -> Html {
    use Node as N;
    match kind.as_str() {
        "dead_code" => graph(
            &[
                N(20.0, 12.0, "plain"),
                N(50.0, 12.0, "plain"),
                N(80.0, 12.0, "plain"),
                N(50.0, 40.0, "dead"),
                N(90.0, 40.0, "dead"),
            ],
            &[(0, 1), (1, 2), (3, 2), (4, 2)],
            "✕ never called",
        ),
        "add_parameter" => graph(
            &[
                N(15.0, 14.0, "edit"),
                N(45.0, 26.0, "edit"),
                N(75.0, 14.0, "edit"),
                N(105.0, 26.0, "edit"),
                N(75.0, 40.0, "plain"),
            ],
            &[(0, 1), (1, 2), (2, 3), (1, 4)],
            "f(x, p) → g(y, p)",
        ),
        "add_return_value" => graph(
            &[
                N(15.0, 26.0, "edit"),
                N(45.0, 14.0, "edit"),
                N(75.0, 26.0, "edit"),
                N(105.0, 14.0, "edit"),
                N(45.0, 40.0, "plain"),
            ],
            &[(0, 1), (1, 2), (2, 3), (0, 4)],
            "return y, extra",
        ),
        "cache_function" => graph(
            &[N(20.0, 10.0, "plain"), N(60.0, 10.0, "plain"), N(100.0, 10.0, "plain"), N(60.0, 40.0, "edit")],
            &[(0, 3), (1, 3), (2, 3)],
            "slow() computed once",
        ),
        "extract_helper" => graph(
            &[N(20.0, 12.0, "edit"), N(60.0, 12.0, "edit"), N(100.0, 12.0, "edit"), N(60.0, 40.0, "plain")],
            &[(0, 3), (1, 3), (2, 3)],
            "3 copies → helper()",
        ),
        "merge_codebases" => html! {
            <>
                <rect class="pbox" x="6" y="4" width="50" height="46" rx="4" />
                <rect class="pbox" x="64" y="4" width="50" height="46" rx="4" />
                { for (0..4).map(|i| html! { <>
                    <line class={classes!("pl", (i == 2).then_some("pl-diff"))} x1="12" x2="50" y1={(14 + 10 * i).to_string()} y2={(14 + 10 * i).to_string()} />
                    <line class={classes!("pl", (i == 2).then_some("pl-diff"))} x1="70" x2="108" y1={(14 + 10 * i).to_string()} y2={(14 + 10 * i).to_string()} />
                </> }) }
                <text class="pt" x="60" y="61" text-anchor="middle">{ "class A ≈ class B" }</text>
            </>
        },
        "variable_renaming" => {
            lines(&[("code", "a = f(x)"), ("edit", "a → total"), ("edit", "b → count"), ("code", "return total")])
        }
        _ => graph(&[N(30.0, 20.0, "plain"), N(90.0, 20.0, "edit")], &[(0, 1)], ""),
    }
}

/// What an axis scales, drawn in 120 × 64.
fn axis_picture(axis: Axis) -> Html {
    use Node as N;
    match axis.as_str() {
        "traversal" => graph(
            &(0..7)
                .map(|i| N(10.0 + 16.7 * i as f64, if i % 2 == 0 { 14.0 } else { 32.0 }, "edit"))
                .collect::<Vec<_>>(),
            &(0..6).map(|i| (i, i + 1)).collect::<Vec<_>>(),
            "an edit n deep",
        ),
        "search" => graph(
            &(0..14)
                .map(|i| {
                    N(12.0 + 16.0 * (i % 7) as f64, 12.0 + 24.0 * (i / 7) as f64, if i == 9 { "edit" } else { "plain" })
                })
                .collect::<Vec<_>>(),
            &[],
            "find 1 among n",
        ),
        "runtime" => graph(
            &[
                N(60.0, 8.0, "plain"),
                N(30.0, 28.0, "edit"),
                N(90.0, 28.0, "idle"),
                N(30.0, 46.0, "edit"),
                N(90.0, 46.0, "idle"),
            ],
            &[(0, 1), (0, 2), (1, 3), (2, 4)],
            "",
        ),
        "instructions" => lines(&[
            ("edit", "1. keep the name"),
            ("edit", "2. name it p"),
            ("edit", "3. …"),
            ("code", "n. document it"),
        ]),
        "comment" => lines(&[
            ("comment", "# copy these n words"),
            ("comment", "# exactly, in order"),
            ("code", "def f(x):"),
            ("code", "    …"),
        ]),
        _ => graph(&[N(30.0, 20.0, "plain"), N(90.0, 20.0, "edit")], &[(0, 1)], ""),
    }
}

fn mini_card(id: String, href: String, title: &str, line: &str, picture: Html) -> Html {
    let mut c = title.chars();
    let title: String = c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default();
    html! {
        <a class="mini-card" {id} {href}>
            <svg class="pictogram" viewBox="0 0 120 64" width="120" height="64" aria-hidden="true">{ picture }</svg>
            <span class="mini-title">{ title }</span>
            <span class="mini-line">{ line.to_string() }</span>
        </a>
    }
}

/// The gallery's first screen.
#[function_component(Intro)]
pub fn intro() -> Html {
    let start = TaskSpec { n: GALLERY_N, ..TaskSpec::default() };
    html! {
        <section id="gallery-intro" class="gallery-intro">
            { super::view::text_el("h1", None, "Cabra tasks, generated in your browser") }
            <p id="what-is-cabra" class="lead">
                { "Cabra is the benchmark of the paper " }
                <a id="paper-link" href={PAPER_URL}><cite>{ "Code Understanding is a Bottleneck for Coding Agents" }</cite></a>
                { " (2026): refactorings of Python programs made from random call graphs, scaled along an axis until a model or an agent stops coping." }
            </p>
            <p class="first-step">
                <a id="first-step" class="button" href={route::fragment(&start)}>{ "Start: open a small task and solve it →" }</a>
                <span class="hint">{ "or pick a kind or an axis; every card opens its task, and every link reopens the same one." }</span>
            </p>
            <section id="range-kinds" class="range" aria-label="The kinds of task">
                <h2>{ format!("{} kinds of task", Kind::ALL.len()) }</h2>
                <div class="mini-cards">
                    { for Kind::ALL.iter().map(|&k| mini_card(format!("range-kind-{}", k.as_str()), route::fragment(&kind_spec(k)), k.label(), kind_line(k), kind_picture(k))) }
                </div>
            </section>
            <section id="range-axes" class="range" aria-label="The axes a task grows along">
                <h2>{ format!("{} axes a task grows along", Axis::ALL.len()) }</h2>
                <div class="mini-cards">
                    { for Axis::ALL.iter().map(|&a| mini_card(format!("range-axis-{}", a.as_str()), route::fragment(&axis_spec(a)), a.label(), axis_line(a), axis_picture(a))) }
                </div>
            </section>
        </section>
    }
}
