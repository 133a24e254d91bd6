//! Walk it yourself: the interface's tools as a console, the same ledger, the agents' turns beside.
//! `run` goes to the grading worker (the grader's sandbox); the grade comes after submit, or before
//! it only as a learner's hints (off by default, labelled).

use super::parts::{console_call, page_runner, CodePane, GradeBox, LedgerTable};
use super::Shared;
use crate::playground::agents_page::Page;
use cabrito_agents as agents;
use cabrito_agents::replay::{describe, marks, totals};
use cabrito_agents::{
    console,
    console::{Command, HELP},
};
use cabrito_agents::{Aci, Ledger, Strategy};
use cabrito_gen::task::Generated;
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::platform::spawn_local;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WalkProps {
    pub generated: Shared<Generated>,
    pub page: Page,
}

#[function_component(Walk)]
pub fn walk(p: &WalkProps) -> Html {
    let session = use_memo((p.generated.clone(), p.page.settings.clone()), |(g, s)| {
        Shared(Rc::new(RefCell::new(Aci::for_task(&g.0.task, s.clone(), page_runner()))))
    });
    let version = use_state(|| 0u64);
    let text = use_state(String::new);
    let message = use_state(|| None::<String>);
    let hints = use_state(|| false);
    let running = use_state(|| false);
    let log = use_node_ref();
    {
        let log = log.clone();
        use_effect_with(*version, move |_| {
            if let Some(el) = log.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let agents_count =
        use_memo((p.generated.clone(), p.page.settings.clone(), p.page.caching, p.page.prices), |(g, s, c, pr)| {
            Strategy::ALL
                .iter()
                .map(|&st| (st, totals(&agents::run(&g.0.task, st, s.clone(), page_runner()), *pr, *c)))
                .collect::<Vec<_>>()
        });

    let submit_text = {
        let (session, version, text, message, running) =
            (session.clone(), version.clone(), text.clone(), message.clone(), running.clone());
        Rc::new(move |input: String| match console::parse(&input) {
            Ok(Command::Help) => message.set(Some(HELP.to_string())),
            Ok(Command::Call { tool: "run", arguments }) => {
                // The worker runs it: the console waits, then shows the answer as the call's.
                let (session, version, message, running) =
                    (session.clone(), version.clone(), message.clone(), running.clone());
                running.set(true);
                message.set(Some("running on the grading worker…".into()));
                spawn_local(async move {
                    console_call(&session.0, "run", &arguments).await;
                    running.set(false);
                    message.set(None);
                    version.set(*version + 1);
                });
                text.set(String::new());
            }
            Ok(Command::Call { tool, arguments }) => {
                session.0.borrow_mut().call(tool, &arguments);
                message.set(None);
                text.set(String::new());
                version.set(*version + 1);
            }
            Err(e) => message.set(Some(e)),
        })
    };
    let toggle_hints = {
        let hints = hints.clone();
        Callback::from(move |e: Event| hints.set(e.target_unchecked_into::<HtmlInputElement>().checked()))
    };
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| text.set(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let onkeydown = {
        let submit_text = submit_text.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() != "Enter" || e.shift_key() {
                return;
            }
            let value = e.target_unchecked_into::<HtmlTextAreaElement>().value();
            // `edit` takes lines below it: Enter adds a line there; Ctrl/Cmd+Enter runs.
            if value.trim_start().starts_with("edit") && !(e.ctrl_key() || e.meta_key()) {
                return;
            }
            e.prevent_default();
            submit_text(value);
        })
    };
    let onclick = {
        let (submit_text, text) = (submit_text.clone(), text.clone());
        Callback::from(move |_: MouseEvent| submit_text((*text).clone()))
    };
    let reset = {
        let (session, version, g, s) = (session.clone(), version.clone(), p.generated.clone(), p.page.settings.clone());
        Callback::from(move |_: MouseEvent| {
            *session.0.borrow_mut() = Aci::for_task(&g.0.task, s.clone(), page_runner());
            version.set(*version + 1);
        })
    };

    let aci = session.0.borrow();
    let steps = aci.steps();
    let starter = &p.generated.0.task.starter_code;
    let shown = steps.len().saturating_sub(1);
    let (code, m) = if steps.is_empty() { (starter.as_str(), vec![]) } else { marks(starter, steps, shown) };
    let ledger = Rc::new(Ledger::of(&aci.turns(p.page.caching), p.page.prices));
    let labels = Rc::new(steps.iter().map(describe).collect::<Vec<_>>());
    let you = ledger.rows.len();

    let grade = html! {
        <GradeBox generated={p.generated.clone()} solution={AttrValue::from(aci.solution().to_string())} submitted={aci.submitted()} hints={*hints} />
    };
    html! {
        <section id="walk" class="walk" data-steps={steps.len().to_string()}>
            <div class="watch-grid walk-grid">
                <section class="panel console" aria-label="Console">
                    <h2>{ "Console" }</h2>
                    <ol id="console-log" class="console-log" ref={log}>
                        { for steps.iter().map(|s| html! {
                            <li class={classes!("console-entry", (!s.ok).then_some("refused"))} data-tool={s.tool.clone()}>
                                <span class="mono prompt-line">{ format!("› {}", describe(s)) }</span>
                                <pre class="prompt">{ s.output.clone() }</pre>
                            </li>
                        }) }
                    </ol>
                    if let Some(msg) = &*message {
                        <p id="console-message" class="control-error" role="alert">{ super::super::text_with_code(msg) }</p>
                    }
                    <textarea id="console-input" class="console-input" rows="2" spellcheck="false" aria-label="Console command" placeholder="view 1 40" value={(*text).clone()} {oninput} {onkeydown} disabled={aci.submitted() || *running} />
                    <div class="actions">
                        <button id="console-run" type="button" class="button" {onclick} disabled={aci.submitted() || *running}>{ "Run (Enter)" }</button>
                        <button id="console-reset" type="button" class="button ghost" onclick={reset}>{ "Start over" }</button>
                        <label class="check" for="console-hints" title="For learners: the rubric's reasons before you submit. An agent never gets these; a session with hints is not a fair run.">
                            <input id="console-hints" type="checkbox" checked={*hints} onchange={toggle_hints} />{ " hints (not a fair run)" }
                        </label>
                    </div>
                    <details class="console-help"><summary>{ "Commands" }</summary><p class="hint mono">{ HELP }</p></details>
                </section>
                <section class="panel code-panel" aria-label="solution.py">
                    <h2>{ "solution.py" }</h2>
                    <CodePane id="walk-code" code={AttrValue::from(code.to_string())} marks={Rc::new(m)} />
                </section>
                <div class="watch-left walk-right">
                    <section class="panel walk-ledger-panel" aria-label="Ledger">
                        <h2>{ "Your ledger" }</h2>
                        <LedgerTable id="walk-ledger" ledger={ledger.clone()} labels={labels} />
                        <table id="agent-turns" class="ledger-table">
                            <thead><tr><th>{ "who" }</th><th>{ "turns" }</th><th>{ "input tokens" }</th><th>{ "cost $" }</th></tr></thead>
                            <tbody>
                                <tr class="you" data-turns={you.to_string()}><td>{ "you (so far)" }</td><td>{ you }</td><td>{ format!("{:.0}", ledger.total.input) }</td><td>{ format!("{:.4}", ledger.cost) }</td></tr>
                                { for agents_count.iter().map(|(s, (t, input, cost))| html! {
                                    <tr data-strategy={s.as_str()} data-turns={t.to_string()}><td>{ s.as_str() }</td><td>{ *t }</td><td>{ format!("{input:.0}") }</td><td>{ format!("{cost:.4}") }</td></tr>
                                }) }
                            </tbody>
                        </table>
                    </section>
                    { grade }
                </div>
            </div>
        </section>
    }
}
