//! Watch an agent: run a scripted strategy on the task (in the browser), then step through its calls.

use super::parts::{CodePane, GradeBox, GraphPane, LedgerTable};
use super::Shared;
use crate::playground::agents_page::Page;
use cabrito_agents as agents;
use cabrito_agents::replay::{describe, marks, touched};
use cabrito_agents::{Aci, Ledger, Strategy};
use cabrito_gen::task::Generated;
use gloo::timers::callback::Timeout;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Milliseconds between calls when playing.
const PLAY_MS: u32 = 600;

#[derive(Properties, PartialEq)]
pub struct WatchProps {
    pub generated: Shared<Generated>,
    pub page: Page,
    pub on_page: Callback<Page>,
}

#[function_component(Watch)]
pub fn watch(p: &WatchProps) -> Html {
    let run: Rc<(Shared<Aci>, Option<f64>)> =
        use_memo((p.generated.clone(), p.page.strategy, p.page.settings.clone()), |(g, s, settings)| {
            let start = super::super::app::now();
            // The page runs no code: a strategy's `run` (Merge Codebases) is answered that it cannot.
            let aci = agents::run(&g.0.task, *s, settings.clone(), super::parts::page_runner());
            let ms = match (start, super::super::app::now()) {
                (Some(a), Some(b)) => Some(b - a),
                _ => None,
            };
            super::super::files::mark("cabrito-agent-run");
            (Shared(Rc::new(aci)), ms)
        });
    let aci = run.0 .0.clone();
    let steps = aci.steps();
    let n = steps.len();
    let at = use_state(|| 0usize);
    let playing = use_state(|| false);
    {
        let (at, playing) = (at.clone(), playing.clone());
        use_effect_with(run.0.clone(), move |_| {
            at.set(0);
            playing.set(false);
        });
    }
    {
        let (at_s, playing_s) = (at.clone(), playing.clone());
        use_effect_with((*playing, *at, n), move |&(play, i, n)| {
            let timer = if play && i < n {
                Some(Timeout::new(PLAY_MS, move || at_s.set(i + 1)))
            } else {
                if play {
                    playing_s.set(false);
                }
                None
            };
            move || drop(timer)
        });
    }
    let i = (*at).min(n);
    let turns = use_memo((run.0.clone(), p.page.caching), |(a, c)| a.0.turns(*c));
    let ledger = Rc::new(Ledger::of(&turns[..(i + 1).min(turns.len())], p.page.prices));
    let labels: Rc<Vec<String>> = use_memo(run.0.clone(), |a| a.0.steps().iter().map(describe).collect());
    let starter = &p.generated.0.task.starter_code;
    let (code, m) = marks(starter, steps, i);
    let lit = Rc::new(touched(starter, steps, i));

    let go = |to: usize| {
        let (at, playing) = (at.clone(), playing.clone());
        Callback::from(move |_: MouseEvent| {
            playing.set(false);
            at.set(to);
        })
    };
    let toggle = {
        let (playing, at) = (playing.clone(), at.clone());
        Callback::from(move |_: MouseEvent| {
            if !*playing && *at >= n {
                at.set(0);
            }
            playing.set(!*playing);
        })
    };
    let slide = {
        let (at, playing) = (at.clone(), playing.clone());
        Callback::from(move |e: InputEvent| {
            let v: usize = e.target_unchecked_into::<HtmlInputElement>().value().parse().unwrap_or(0);
            playing.set(false);
            at.set(v.min(n));
        })
    };
    let choose = {
        let (page, on_page) = (p.page.clone(), p.on_page.clone());
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if let Some(s) = Strategy::parse(&v) {
                on_page.emit(Page { strategy: s, ..page.clone() });
            }
        })
    };

    let call = match steps.get(i) {
        Some(st) => {
            // An edit's texts are shown as code; other arguments as JSON.
            let text = |k: &str| st.arguments.get(k).and_then(|v| v.as_str()).map(str::to_string);
            let args = match (text("old"), text("new")) {
                (old, Some(new)) if st.tool == "edit" => html! {
                    <>
                        if let Some(old) = old {
                            <p class="hint">{ "old" }</p><pre id="call-old" class="prompt">{ old }</pre>
                        }
                        <p class="hint">{ "new" }</p><pre id="call-new" class="prompt">{ new }</pre>
                    </>
                },
                _ => {
                    html! { <pre id="call-args" class="prompt">{ serde_json::to_string(&st.arguments).unwrap_or_default() }</pre> }
                }
            };
            html! {
                <section id="current-call" class="panel call-box" data-tool={st.tool.clone()} data-ok={st.ok.to_string()}>
                    <h2>{ format!("Call {} of {n}: {}", i + 1, describe(st)) }</h2>
                    <details class="call-args" open={st.tool == "edit"}><summary>{ "Arguments" }</summary>{ args }</details>
                    <pre id="call-output" class={classes!("prompt", "call-output", (!st.ok).then_some("refused"))}>{ st.output.clone() }</pre>
                </section>
            }
        }
        None => html! {
            <section id="current-call" class="panel call-box" data-tool="end">
                <h2>{ format!("The session ended after {n} calls{}.", if aci.submitted() { " (submitted)" } else { "" }) }</h2>
                <GradeBox generated={p.generated.clone()} solution={AttrValue::from(aci.solution().to_string())} submitted={aci.submitted()} />
            </section>
        },
    };

    html! {
        <section id="watch" class="watch" data-steps={n.to_string()} data-strategy={p.page.strategy.as_str()}>
            <div class="stepper">
                <label class="knob" for="strategy">
                    <span class="knob-label">{ "Strategy" }</span>
                    <select id="strategy" onchange={choose} title={p.page.strategy.describe()}>
                        { for Strategy::ALL.iter().map(|s| html! { <option value={s.as_str()} selected={*s == p.page.strategy}>{ s.as_str() }</option> }) }
                    </select>
                    <span class="knob-help">{ p.page.strategy.describe() }</span>
                </label>
                <div class="step-buttons" role="group" aria-label="Step through the calls">
                    <button id="step-start" type="button" class="button small ghost" onclick={go(0)} disabled={i == 0}>{ "« Start" }</button>
                    <button id="step-back" type="button" class="button small ghost" onclick={go(i.saturating_sub(1))} disabled={i == 0}>{ "◀ Back" }</button>
                    <button id="step-play" type="button" class="button small" onclick={toggle}>{ if *playing { "❚❚ Pause" } else { "▶ Play" } }</button>
                    <button id="step-next" type="button" class="button small ghost" onclick={go((i + 1).min(n))} disabled={i >= n}>{ "Next ▶" }</button>
                    <button id="step-end" type="button" class="button small ghost" onclick={go(n)} disabled={i >= n}>{ "End »" }</button>
                    <input id="step-slider" type="range" min="0" max={n.to_string()} value={i.to_string()} oninput={slide} aria-label="call" />
                    <span id="step-label" class="hint" data-at={i.to_string()}>{ if i < n { format!("call {} of {n}", i + 1) } else { format!("end ({n} calls)") } }</span>
                    if let Some(ms) = run.1 {
                        <span id="run-ms" class="hint" data-ms={format!("{ms:.1}")}>{ format!(" · ran in {ms:.0} ms") }</span>
                    }
                </div>
            </div>
            if let Some(why) = p.page.strategy.refuses(&p.generated.0.task.prompt) {
                <p id="agent-refuses" class="notice">{ why }</p>
            }
            <div class="watch-grid">
                <div class="watch-left">
                    { call }
                    <section class="panel" aria-label="Ledger">
                        <h2>{ "Ledger" }</h2>
                        <LedgerTable id="watch-ledger" ledger={ledger} labels={labels} />
                    </section>
                </div>
                <section class="panel code-panel" aria-label="solution.py">
                    <h2>{ "solution.py" }<span class="legend-marks"><span class="line viewed">{ "viewed" }</span><span class="line matched">{ "matched" }</span><span class="line edited">{ "edited" }</span></span></h2>
                    <CodePane id="agent-code" code={AttrValue::from(code.to_string())} marks={Rc::new(m)} />
                </section>
            </div>
            <section class="panel graph-panel" aria-label="Call graph">
                <h2>{ "Call graph (touched: lit)" }</h2>
                <GraphPane generated={p.generated.clone()} lit={lit} />
            </section>
        </section>
    }
}
