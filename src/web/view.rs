//! The components of the task page.

use super::app::Shown;
use super::route;
use crate::spec::{Axis, Domain, Kind, Values, KNOBS};
use crate::TaskSpec;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BadLinkProps {
    pub message: String,
    pub nearest: TaskSpec,
}

/// A link that could not be opened: the reason, and a link to the nearest valid task (which the
/// page also shows below).
#[function_component(BadLinkBanner)]
pub fn bad_link_banner(p: &BadLinkProps) -> Html {
    let href = route::fragment(&p.nearest);
    html! {
        <section id="error" class="error" role="alert">
            <h2>{ "This link cannot be opened" }</h2>
            <p id="error-message">{ p.message.clone() }</p>
            <p>
                { "Showing the nearest valid task instead: " }
                <a id="nearest-link" href={href.clone()}>{ href.trim_start_matches('#').to_string() }</a>
            </p>
        </section>
    }
}

/// A human label for a knob's value (the enums carry their labels).
pub fn value_label(key: &str, value: &str) -> String {
    let label = match key {
        "kind" => Kind::parse(value).map(Kind::label),
        "domain" => Domain::parse(value).map(Domain::label),
        "axis" => Axis::parse(value).map(Axis::label),
        _ => None,
    };
    label.map_or_else(|| value.to_string(), str::to_string)
}

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub spec: TaskSpec,
    /// Called with the fragment of the new spec.
    pub on_navigate: Callback<String>,
}

/// One control per knob of [`KNOBS`]: a select for a choice, a number box for an integer. The
/// optional knobs (explicit sizes) sit in a fold.
#[function_component(Controls)]
pub fn controls(p: &ControlsProps) -> Html {
    let error = use_state(|| None::<String>);
    // A new spec clears an old complaint.
    {
        let error = error.clone();
        use_effect_with(p.spec.clone(), move |_| error.set(None));
    }
    let values: Vec<(&'static str, String)> = p.spec.pairs();
    let current = |key: &str| values.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()).unwrap_or_default();

    let change = {
        let spec = p.spec.clone();
        let on_navigate = p.on_navigate.clone();
        let error = error.clone();
        Rc::new(move |key: &'static str, value: String| {
            let pairs = route::with_value(&spec, key, &value);
            match TaskSpec::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
                Ok(next) => {
                    error.set(None);
                    on_navigate.emit(route::fragment(&next));
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        })
    };

    let control = |k: &'static crate::spec::Knob| -> Html {
        let id = format!("knob-{}", k.key);
        let value = current(k.key);
        let input = match k.values {
            Values::Choice(options) => {
                let change = change.clone();
                let onchange = Callback::from(move |e: Event| {
                    let el: HtmlSelectElement = e.target_unchecked_into();
                    change(k.key, el.value());
                });
                html! {
                    <select id={id.clone()} name={k.key} title={k.help} {onchange}>
                        { for options.iter().map(|o| html! {
                            <option value={*o} selected={*o == value}>{ value_label(k.key, o) }</option>
                        }) }
                    </select>
                }
            }
            Values::Int { min, max } => {
                let change = change.clone();
                let onchange = Callback::from(move |e: Event| {
                    let el: HtmlInputElement = e.target_unchecked_into();
                    change(k.key, el.value());
                });
                html! {
                    <input id={id.clone()} name={k.key} type="number" inputmode="numeric"
                        min={min.to_string()} max={max.to_string()} step="1"
                        placeholder={k.default.unwrap_or("from the axis")}
                        title={k.help} value={value} {onchange} />
                }
            }
        };
        html! {
            <label class="knob" for={id}>
                <span class="knob-label">{ k.label }</span>
                { input }
                <span class="knob-help">{ k.help }</span>
            </label>
        }
    };

    let new_seed = {
        let change = change.clone();
        Callback::from(move |_: MouseEvent| {
            // Any seed is a valid task; draw one from the browser (only the choice is random, the
            // task it names is not).
            let seed = (js_sys::Math::random() * 1_000_000.0).floor() as u64;
            change("seed", seed.to_string());
        })
    };

    html! {
        <section class="controls" aria-label="Task spec">
            <div class="knobs">
                { for KNOBS.iter().filter(|k| k.default.is_some()).map(control) }
                <button id="new-seed" type="button" class="button" onclick={new_seed}>{ "New seed" }</button>
            </div>
            <details class="explicit-sizes" open={p.spec.n_init.is_some() || p.spec.n_edit.is_some()}>
                <summary>{ "Explicit graph sizes" }</summary>
                <div class="knobs">
                    { for KNOBS.iter().filter(|k| k.default.is_none()).map(control) }
                </div>
            </details>
            if let Some(msg) = &*error {
                <p id="control-error" class="control-error" role="alert">{ msg.clone() }</p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct TaskViewProps {
    pub shown: Rc<Shown>,
}

/// The task: its numbers, its problem statement and its starter code.
#[function_component(TaskView)]
pub fn task_view(p: &TaskViewProps) -> Html {
    let task = &p.shown.generated.task;
    let s = &task.sizes;
    let took = p.shown.millis.map(|ms| format!(" · generated in {ms:.1} ms")).unwrap_or_default();
    html! {
        <section id="task" class="task" data-hash={crate::task::task_hash(task)} data-spec={task.spec.canonical()}>
            <h1 class="task-title">
                { format!("{} · {} · {}", task.spec.kind.label(), task.spec.domain.label(), task.spec.axis.label()) }
            </h1>
            <p id="stats" class="stats">
                { format!(
                    "{} functions · {} to edit · {} lines · about {} tokens{}",
                    s.functions, s.functions_to_edit, s.starter_lines, s.prompt_tokens_estimate, took
                ) }
            </p>
            <p class="share">
                { "Share link: " }
                <a id="share-link" href={task.link.clone()}>{ task.link.trim_start_matches('#').to_string() }</a>
            </p>
            <h2>{ "Problem statement" }</h2>
            <pre id="prompt" class="prompt">{ task.prompt.clone() }</pre>
            <h2>{ "Starter code " }<code>{ "solution.py" }</code></h2>
            <CodeBlock id="starter-code" code={task.starter_code.clone()} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct CodeProps {
    pub id: AttrValue,
    pub code: AttrValue,
}

/// Code with line numbers. The numbers are CSS counters, so the element's text is exactly the code.
#[function_component(CodeBlock)]
pub fn code_block(p: &CodeProps) -> Html {
    html! {
        <pre id={p.id.clone()} class="code"><code>
            { for p.code.split_inclusive('\n').map(|line| html! { <span class="line">{ line }</span> }) }
        </code></pre>
    }
}
