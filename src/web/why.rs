//! "Why this branch?": a runtime task's guard worked out, so a class can see what an agent would have to
//! compute. For a function: the guards on the way to the branch that runs, each with its value; for
//! the chosen guard: each `check` call's start value, its steps a page at a time (10,000 steps are never
//! drawn at once), the final parity against the target, and the XOR of the calls.

use crate::axes::runtime::{FunctionBranches, Record};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Steps shown per page.
pub const PAGE: u32 = 50;

#[derive(Properties, PartialEq)]
pub struct WhyProps {
    pub record: Rc<Record>,
    /// The function and the guard (pre-order index) to explain.
    pub function: AttrValue,
    pub guard: usize,
    /// Choose another guard of the function.
    pub on_guard: Callback<usize>,
    pub on_close: Callback<()>,
}

fn side(v: bool) -> &'static str {
    if v {
        "if"
    } else {
        "else"
    }
}

/// The guards on the way to the running leaf, as (pre-order index, value).
fn path_guards(f: &FunctionBranches) -> Vec<(usize, bool)> {
    let levels = f.path.len() as u32;
    let (mut at, mut out) = (0usize, Vec::new());
    for (i, &v) in f.path.iter().enumerate() {
        out.push((at, v));
        at += if v { 1 } else { 1usize << (levels - 1 - i as u32) };
    }
    out
}

#[function_component(WhyPanel)]
pub fn why_panel(p: &WhyProps) -> Html {
    let page = use_state(|| 1u32);
    {
        let page = page.clone();
        use_effect_with((p.function.clone(), p.guard), move |_| page.set(1));
    }
    let Some(f) = p.record.functions.iter().find(|f| f.name == p.function.as_str()) else {
        return html! {};
    };
    let Some(guard) = f.guards.get(p.guard) else { return html! {} };
    let steps = guard.calls.first().map_or(0, |c| c.steps);
    let last_page = steps.div_ceil(PAGE).max(1);
    let go = |to: u32| {
        let page = page.clone();
        Callback::from(move |_: MouseEvent| page.set(to.clamp(1, last_page)))
    };
    let jump = {
        let page = page.clone();
        Callback::from(move |e: Event| {
            let el: HtmlInputElement = e.target_unchecked_into();
            if let Ok(step) = el.value().trim().parse::<u32>() {
                page.set((step.max(1) - 1) / PAGE + 1);
            }
        })
    };
    let close = {
        let cb = p.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let from = (*page - 1) * PAGE + 1;
    let on_path = path_guards(f);
    let value_of = |b: bool| if b { "True" } else { "False" };
    html! {
        <section id="why" class="panel why" aria-label="Why this branch?">
            <div class="panel-head">
                <h2>{ format!("Why does {}() run {}?", f.name, f.describe()) }</h2>
                <button id="why-close" type="button" class="button small ghost" onclick={close}>{ "Close" }</button>
            </div>
            <p class="why-path">
                { "On the way to the branch that runs: " }
                { for on_path.iter().map(|&(g, v)| {
                    let cb = p.on_guard.clone();
                    let chosen = g == p.guard;
                    html! {
                        <button type="button" class={classes!("button", "small", "ghost", chosen.then_some("active"))}
                            data-guard={g.to_string()} onclick={Callback::from(move |_: MouseEvent| cb.emit(g))}>
                            { format!("guard {} is {} → {}", g + 1, value_of(v), side(v)) }
                        </button>
                    }
                }) }
            </p>
            <p id="why-guard" class="why-guard">{ super::view::text_el("code", None, guard.source()) }</p>
            { for guard.calls.iter().enumerate().map(|(i, c)| {
                // (Worked out where the runtime generator is: `web::gen::why`.)
                let (o, rows) = match super::gen::why(c, from, PAGE) {
                    Ok(w) => w,
                    Err(e) => return html! { <p class="error" data-call={i.to_string()}>{ e }</p> },
                };
                html! {
                    <div class="why-call" data-call={i.to_string()}>
                        <p>
                            { format!("check({}, {}, {}, {}, num_steps={}): start at x = {}; ", c.x, c.a, c.b, c.target, c.steps, c.x) }
                            { format!("an even x becomes x // 2, an odd x becomes {} · x + {}.", c.a, c.b) }
                        </p>
                        <table class="why-steps">
                            <thead><tr>{ super::view::text_el("th", None, "step") }{ super::view::text_el("th", None, "x before") }{ super::view::text_el("th", None, "parity") }{ super::view::text_el("th", None, "then") }</tr></thead>
                            <tbody>
                                { for rows.iter().map(|r| html! {
                                    <tr class={if r.odd { "odd" } else { "even" }}>
                                        <td>{ r.step }</td>
                                        { super::view::text_el("td", Some("value"), r.value.clone()) }
                                        <td>{ if r.odd { "odd" } else { "even" } }</td>
                                        { super::view::text_el("td", None, r.action.clone()) }
                                    </tr>
                                }) }
                            </tbody>
                        </table>
                        <p id={format!("why-result-{i}")} class="why-result">
                            { format!(
                                "After {} steps ({} of them odd; the value reaches {} digits) x = {}, which is {} ({}). The target is {}, so this call returns {}.",
                                c.steps, o.odd_steps, o.most_digits, o.last,
                                if o.parity == 1 { "odd" } else { "even" }, o.parity, c.target, value_of(o.value)
                            ) }
                        </p>
                    </div>
                }
            }) }
            if guard.calls.len() > 1 {
                <p class="why-xor">
                    { format!("The calls are joined by ^ (exclusive or): the guard is {}.", value_of(guard.value)) }
                </p>
            }
            <p class="why-verdict">
                { format!("So the condition is {} and the {} side is taken.", value_of(guard.value), side(guard.value)) }
            </p>
            <nav class="why-pages" aria-label="Steps">
                <button id="why-first" type="button" class="button small ghost" onclick={go(1)} disabled={*page == 1}>{ "First" }</button>
                <button id="why-prev" type="button" class="button small ghost" onclick={go(page.saturating_sub(1))} disabled={*page == 1}>{ "Previous" }</button>
                <span id="why-page">{ format!("steps {}–{} of {}", from, (from + PAGE - 1).min(steps), steps) }</span>
                <button id="why-next" type="button" class="button small ghost" onclick={go(*page + 1)} disabled={*page >= last_page}>{ "Next" }</button>
                <button id="why-last" type="button" class="button small ghost" onclick={go(last_page)} disabled={*page >= last_page}>{ "Last" }</button>
                <label class="knob">{ "go to step " }
                    <input id="why-step" type="number" min="1" max={steps.to_string()} step="1" onchange={jump} />
                </label>
            </nav>
        </section>
    }
}
