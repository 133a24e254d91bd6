//! The components of the task page.

use super::app::Drawn;
use super::app::Shown;
use super::cards::{CardBody, Picture};
use super::code::{CodeBlock, CopyButton, DiffView};
use super::editor::SolutionEditor;
use super::grade::{use_grade, GradePanel};
use super::graph::{legend, CallGraphSvg};
use super::route::{self, PanelSet, SidePanel};
use super::why::WhyPanel;
use crate::playground::branches::line_states;
use crate::playground::keys::Command;
use crate::playground::panel::PanelAction;
use crate::playground::requirements::{requirements, Listed};
use crate::playground::task_view::{what_to_do, CodeTab, TaskAction, TaskViewState, WhyOpen};
use cabrito_gen::spec::{Axis, Domain, Kind, Support, Values, KNOBS};
use cabrito_gen::words::count;
use cabrito_gen::TaskSpec;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// A link that could not be opened: the reason, and a link to the nearest valid task (which the
/// page also shows below).
pub fn bad_link_banner(message: &str, nearest: &TaskSpec) -> Html {
    let href = route::fragment(nearest);
    html! {
        <section id="error" class="error" role="alert">
            { text_el("h2", None, "This link cannot be opened") }
            <p id="error-message">{ message.to_string() }</p>
            <p>
                { "Showing the nearest valid task instead: " }
                <a id="nearest-link" href={href.clone()}>{ href.trim_start_matches('#').to_string() }</a>
            </p>
        </section>
    }
}

/// Run `f` after a render with a spec other than the last render's (and after the first).
#[hook]
pub fn use_spec_effect(spec: &TaskSpec, f: Box<dyn FnOnce(&TaskSpec)>) {
    use_effect_with(spec.clone(), move |s| f(s));
}

/// A human label for a knob's value (from the knob table).
pub fn value_label(key: &str, value: &str) -> String {
    let label = cabrito_gen::spec::knob(key).and_then(|k| (k.value_label)(value));
    label.map_or_else(|| value.to_string(), str::to_string)
}

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub spec: TaskSpec,
    /// Called with the fragment of the new spec.
    pub on_navigate: Callback<String>,
    /// The page the controls navigate on (the task page or the scale page).
    #[prop_or(false)]
    pub scale: bool,
    /// … or the agents page (which keeps its own keys).
    #[prop_or(false)]
    pub agents: bool,
}

/// One control per knob of [`KNOBS`]: a select for a choice, a number box for an integer. The
/// optional knobs (explicit sizes) sit in a fold.
#[function_component(Controls)]
pub fn controls(p: &ControlsProps) -> Html {
    let error = use_state(|| None::<String>);
    // What folded sections hold is drawn once the page has painted (a closed section shows none of it).
    let painted = super::lazy::use_painted();
    // Explicit sizes in the link open their fold at once.
    let sizes_set = p.spec.n_init.is_some() || p.spec.n_edit.is_some();
    // A new spec clears an old complaint.
    {
        let error = error.clone();
        use_spec_effect(&p.spec, Box::new(move |_| error.set(None)));
    }
    // Every knob's value, those that do not apply too (they show their default, greyed out).
    let current = |key: &str| cabrito_gen::spec::knob(key).and_then(|k| (k.get)(&p.spec)).unwrap_or_default();

    let change = {
        let spec = p.spec.clone();
        let on_navigate = p.on_navigate.clone();
        let error = error.clone();
        let (scale, agents) = (p.scale, p.agents);
        Rc::new(move |key: &'static str, value: String| {
            let pairs = route::with_value(&spec, key, &value);
            match TaskSpec::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
                Ok(next) => {
                    error.set(None);
                    on_navigate.emit(if scale {
                        route::scale_fragment(&next)
                    } else if agents {
                        route::agents_fragment(&next)
                            + &crate::playground::agents_page::carried(&super::app::current_fragment())
                    } else {
                        route::fragment(&next)
                    });
                }
                Err(e) => error.set(Some(e.to_string())),
            }
        })
    };

    let control = |k: &'static cabrito_gen::spec::Knob| -> Html {
        let id = format!("knob-{}", k.key);
        // A knob that does not apply is not in the spec's pairs; it shows the value it keeps (its default).
        let value = match current(k.key) {
            v if v.is_empty() => (k.get)(&p.spec).unwrap_or_default(),
            v => v,
        };
        // A knob that does not apply to this kind stays at its default, greyed out, saying why.
        let (disabled, help) = match (k.applies)(&p.spec) {
            Ok(()) => (false, k.help.to_string()),
            Err(what) => (true, format!("does not apply to {what}")),
        };
        // A knob that does not apply keeps its default: show that, not the first choice.
        let value = if disabled { k.default.unwrap_or_default().to_string() } else { value };
        let input = match k.values {
            Values::Choice(options) => {
                let change = change.clone();
                let onchange = Callback::from(move |e: Event| {
                    let el: HtmlSelectElement = e.target_unchecked_into();
                    change(k.key, el.value());
                });
                html! {
                    <select id={id.clone()} name={k.key} title={help.clone()} {disabled} {onchange}>
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
                        title={help.clone()} {disabled} value={value} {onchange} />
                }
            }
            Values::Set { items, .. } => {
                // One checkbox per item; a change writes the whole set back as text.
                let mask = cabrito_gen::spec::parse_set(items, &value).unwrap_or(0);
                html! {
                    <span id={id.clone()} class="knob-set" role="group" title={help.clone()}>
                        { for items.iter().enumerate().map(|(i, item)| {
                            let change = change.clone();
                            let onchange = Callback::from(move |_: Event| {
                                change(k.key, cabrito_gen::spec::set_text(items, mask ^ (1 << i)));
                            });
                            html! {
                                <label class="knob-check">
                                    <input type="checkbox" id={format!("{id}-{item}")} name={k.key} value={*item}
                                        checked={mask & (1 << i) != 0} {disabled} {onchange} />
                                    { item.replace('_', " ") }
                                </label>
                            }
                        }) }
                    </span>
                }
            }
        };
        html! {
            <label class="knob" for={id}>
                { text_el("span", Some("knob-label"), k.label) }
                { input }
                { text_el("span", Some("knob-help"), help) }
            </label>
        }
    };

    let new_seed = {
        let change = change.clone();
        Callback::from(move |_: MouseEvent| {
            // Any seed is a valid task; draw one from the browser's crypto (only the choice is
            // random, the task it names is not), below a million to keep links short.
            let seed = super::random_u64() % 1_000_000;
            change("seed", seed.to_string());
        })
    };

    let shown_knobs: Vec<&'static cabrito_gen::spec::Knob> =
        KNOBS.iter().filter(|k| k.default.is_some() && !(p.scale && k.key == "n")).collect();
    let idle: Vec<&'static cabrito_gen::spec::Knob> =
        shown_knobs.iter().copied().filter(|k| (k.applies)(&p.spec).is_err()).collect();
    html! {
        <section class="controls" aria-label="Task spec">
            <div class="knobs">
                // The scale page sweeps n itself.
                { for shown_knobs.iter().filter(|k| (k.applies)(&p.spec).is_ok()).map(|k| control(k)) }
                <button id="new-seed" type="button" class="button" onclick={new_seed}>{ "New seed" }</button>
            </div>
            // The knobs that do not apply keep their defaults, folded away so the task gets the room.
            if !idle.is_empty() {
                <details id="knobs-idle" class="knobs-idle">
                    <summary>{ match idle.len() { 1 => "1 setting that does not apply here".to_string(), k => format!("{k} settings that do not apply here") } }</summary>
                    if painted {
                        <div class="knobs">
                            { for idle.iter().map(|k| control(k)) }
                        </div>
                    }
                </details>
            }
            <div class="presets" role="group" aria-label="The paper's sizes" hidden={p.scale}>
                { text_el("span", Some("knob-label"), "Paper sizes") }
                { for p.spec.axis.def().paper_sizes().iter().map(|&n| {
                    let change = change.clone();
                    let active = p.spec.n == n;
                    let hint = match n {
                        5 => " (easy)",
                        25 => " (medium)",
                        200 => " (hard)",
                        _ => "",
                    };
                    let onclick = Callback::from(move |_: MouseEvent| change("n", n.to_string()));
                    html! {
                        <button id={format!("preset-n-{n}")} type="button"
                            class={pick_str(active, "button small ghost", "button small ghost active")} {onclick}>
                            { format!("n = {n}{hint}") }
                        </button>
                    }
                }) }
            </div>
            <details class="explicit-sizes" open={sizes_set}>
                { text_el("summary", None, "Explicit graph sizes") }
                if painted || sizes_set {
                    <div class="knobs">
                        { for KNOBS.iter().filter(|k| k.default.is_none()).map(control) }
                    </div>
                }
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
    /// The read-only embed: no share line, no 4-tuple.
    #[prop_or_default]
    pub embed: bool,
    /// A solution that came with the link.
    #[prop_or_default]
    pub solution: Option<String>,
    /// The side panel the link asks for (`panel=…`), or why its name is not one.
    #[prop_or_default]
    pub panel: Option<Result<SidePanel, String>>,
}

/// The task view's state in Yew: the pure reducer [`TaskViewState::reduce`].
#[derive(Clone, Debug, PartialEq)]
struct ViewState(TaskViewState);

impl Reducible for ViewState {
    type Action = TaskAction;

    fn reduce(self: Rc<Self>, action: TaskAction) -> Rc<Self> {
        Rc::new(ViewState(Rc::unwrap_or_clone(self).0.reduce(action)))
    }
}

/// Each line's place in its function's if/else tree (runtime tasks).
type LineStates = Rc<Vec<crate::playground::branches::LineState>>;

/// What the task view works out once per task.
struct Derived {
    /// Runtime tasks: the record.
    record: Option<Rc<cabrito_gen::axes::runtime::Record>>,
    /// Runtime tasks: which lines run, for the starter and the reference.
    states: Option<(LineStates, LineStates)>,
    /// Instruction following: the numbered requirements and the reference lines of each.
    reqs: Vec<Listed>,
    /// The full LLM prompt (not at every hover: an n = 2,000 task is a megabyte to serialise and hash).
    llm: AttrValue,
}

impl Derived {
    fn of(shown: &Shown) -> Derived {
        let t = &shown.generated.task;
        Derived {
            record: t.runtime.clone().map(Rc::new),
            states: t
                .runtime
                .as_ref()
                .map(|r| (Rc::new(line_states(&t.starter_code, r)), Rc::new(line_states(&t.solution_code, r)))),
            reqs: requirements(&t.metadata, &t.solution_code),
            llm: AttrValue::from(cabrito_gen::kinds::prompt::llm_prompt(&t.prompt, &t.starter_code)),
        }
    }
}

/// A task page's status line while its task is on its way (a generator module loading, a big task
/// held for a turn): in the task page's layout (a workspace), so that the controls above keep their
/// place when the task arrives instead of shifting (Lighthouse counted it as layout shift).
pub fn task_placeholder(id: &'static str, text: String) -> Html {
    html! {
        <section class="task">
            <div class="workspace">
                <p {id} class="loading" role="status">{ text }</p>
            </div>
        </section>
    }
}

/// The side panels a task view offers, in tab order.
pub fn task_panels(shown: &Shown, embed: bool) -> Vec<SidePanel> {
    let renaming = matches!(shown.generated.view, Drawn::Renaming { .. });
    SidePanel::available(PanelSet {
        graph: !renaming,
        renames: renaming,
        requirements: shown.generated.task.spec.axis.def().instructions(),
        why: shown.generated.task.runtime.is_some(),
        grade: !embed,
    })
}

/// The panel on show: the one asked for (by the link, or by a switch) if the task has it, else its
/// first.
pub fn panel_on_show(panels: &[SidePanel], asked: Option<SidePanel>) -> SidePanel {
    match asked {
        Some(want) if panels.contains(&want) => want,
        _ => panels.first().copied().unwrap_or(SidePanel::Statement),
    }
}

/// The `performance.mark` set each time a task view has rendered a new task.
pub const TASK_RENDERED_MARK: &str = "cabrito-task-rendered";

/// The page address of a fragment (this page's origin and path, then the fragment).
pub fn page_url(fragment: &str) -> String {
    let base = web_sys::window()
        .and_then(|w| {
            let l = w.location();
            Some(format!("{}{}", l.origin().ok()?, l.pathname().ok()?))
        })
        .unwrap_or_default();
    format!("{base}{fragment}")
}

/// The task: numbers, share link, call graph, code (starter, reference behind a reveal, diff), the
/// problem statement and the full LLM prompt with copy buttons, and the task as a 4-tuple.
#[function_component(TaskView)]
pub fn task_view(p: &TaskViewProps) -> Html {
    // The side panel the link asks for (a shared link, back and forward, a panel switch written back).
    let asked = match &p.panel {
        Some(Ok(want)) => Some(*want),
        _ => None,
    };
    let state = use_reducer_eq(|| ViewState(TaskViewState::new(asked)));
    let painted = super::lazy::use_painted();
    // The side panels on show get their contents after the first paint, the hidden ones a paint later.
    let painted_twice = super::lazy::use_painted_after(2);
    let v = &state.0;
    let act = {
        let dispatcher = state.dispatcher();
        Callback::from(move |a: TaskAction| dispatcher.dispatch(a))
    };
    {
        let (act, current) = (act.clone(), v.panel);
        use_effect_with(asked, move |a| {
            if let Some(to) = *a {
                if current != Some(to) {
                    act.emit(TaskAction::Panel(to));
                }
            }
        });
    }
    let selected: Option<AttrValue> = v.selected.clone().map(AttrValue::from);
    let hovered: Option<AttrValue> = v.hovered.clone().map(AttrValue::from);
    let on_hover = act.reform(|name: Option<AttrValue>| TaskAction::Hover(name.map(|n| Rc::from(n.as_str()))));
    let on_select = act.reform(|name: Option<AttrValue>| TaskAction::Select(name.map(|n| Rc::from(n.as_str()))));
    // The side panel on show (the one asked for, else the first the task has).
    let panels = task_panels(&p.shown, p.embed);
    let shown_panel = panel_on_show(&panels, v.panel);
    // Switching a panel writes it into the link (replacing the history entry) so a copied link
    // reopens it.
    let switch = {
        let act = act.clone();
        Callback::from(move |to: SidePanel| {
            let next = route::with_panel(&super::app::current_fragment(), to);
            if let Some(w) = web_sys::window() {
                let _ = w.location().replace(&next);
            }
            act.emit(TaskAction::Panel(to));
        })
    };
    // A new task starts with nothing selected and the reference hidden (the reducer changes only
    // what differs, so a first task renders once). The performance mark times the page
    // (BENCHMARKS: time to an interactive task view).
    {
        let (act, shown) = (act.clone(), p.shown.clone());
        let graph_on_show = shown_panel == SidePanel::Graph;
        use_spec_effect(&p.shown.spec, Box::new(move |_| act.emit(TaskAction::NewTask)));
        // The mark once the side panels are drawn too (they fill in after the first paint); a big
        // graph on show and still on its way sets it once drawn.
        use_effect_with((p.shown.spec.clone(), painted), move |(_, painted)| {
            if *painted {
                super::bigraph::mark_rendered(&shown, graph_on_show);
            }
        });
    }
    let task = &p.shown.generated.task;
    let s = &task.sizes;
    // The answer and its grading, shared by "Your solution" and the grade panel.
    let (grade, shared_error) = use_grade(&p.shown, p.solution.clone(), !p.embed);
    // What the page works out once per task.
    let derived = use_memo(p.shown.clone(), |shown| Derived::of(shown));
    let Derived { record, states, reqs, llm } = &*derived;
    // The task's hash (`data-hash`, which tests compare with the native generator's) serialises and
    // digests the whole task: written once the browser is idle, not in the render.
    let section = use_node_ref();
    {
        let (section, shown) = (section.clone(), p.shown.clone());
        use_spec_effect(
            &p.shown.spec,
            Box::new(move |_| {
                if let Some(el) = section.cast::<web_sys::Element>() {
                    let _ = el.remove_attribute("data-hash");
                    let _ = el.remove_attribute("data-hash-error");
                    super::lazy::when_idle(Box::new(move || {
                        // Unless another task took the view's place meanwhile.
                        if el.get_attribute("data-spec").as_deref() == Some(shown.spec.canonical().as_str()) {
                            // The whole record (its graph read from the module's tape, if it came so).
                            let (key, value) = match shown.generated.hash() {
                                Ok(hash) => ("data-hash", hash),
                                Err(e) => ("data-hash-error", e),
                            };
                            let _ = el.set_attribute(key, &value);
                        }
                    }));
                }
            }),
        );
    }
    let explain = {
        let (act, switch) = (act.clone(), switch.clone());
        Callback::from(move |(f, guard): (AttrValue, usize)| {
            switch.emit(SidePanel::Why);
            act.emit(TaskAction::Explain(WhyOpen { function: Rc::from(f.as_str()), guard }));
        })
    };
    let on_why = record.as_ref().map(|_| explain.clone());
    let explain_selected = {
        let (explain, selected) = (explain.clone(), selected.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(f) = &selected {
                explain.emit((f.clone(), 0));
            }
        })
    };
    let marked: Option<Rc<Vec<usize>>> =
        v.picked.and_then(|n| reqs.iter().find(|r| r.number == n)).map(|r| Rc::new(r.lines.clone()));
    // variable_renaming: the renamed variables' old names (marked in the starter) and new ones (in the reference).
    let renamed = use_memo(p.shown.clone(), |shown| match &shown.generated.view {
        Drawn::Renaming { renames, .. } => Some((
            Rc::new(renames.iter().map(|(o, _)| o.clone()).collect::<Vec<_>>()),
            Rc::new(renames.iter().map(|(_, n)| n.clone()).collect::<Vec<_>>()),
        )),
        _ => None,
    });
    let took = p.shown.millis.map(|ms| format!(" · generated in {ms:.1} ms")).unwrap_or_default();
    let share = page_url(&task.link);

    let tab_button = |which: CodeTab, id: &'static str, label: &'static str| {
        let active = v.code_tab == which;
        let onclick = act.reform(move |_: MouseEvent| TaskAction::CodeTab(which));
        html! {
            <button {id} type="button" role="tab" class={pick_str(active, "tab", "tab active")}
                aria-selected={bool_str(active)} {onclick}>{ label }</button>
        }
    };
    let reveal = act.reform(|_: MouseEvent| TaskAction::Reveal);
    let merge = match &p.shown.generated.view {
        Drawn::Merge(m) => Some(m.clone()),
        Drawn::Graph { .. } | Drawn::Renaming { .. } => None,
    };
    let code = match (v.code_tab, &merge) {
        (CodeTab::Starter, Some(m)) => html! {
            <>
                <super::merge::MergeClasses code={task.starter_code.clone()} view={m.clone()} />
                <details class="whole-file" open={v.whole_open} ontoggle={{
                    let act = act.clone();
                    Callback::from(move |e: Event| {
                        if let Some(d) = e.target_dyn_into::<web_sys::Element>() {
                            act.emit(TaskAction::WholeFile(d.has_attribute("open")));
                        }
                    })
                }}>
                    { text_el("summary", None, "The whole solution.py") }
                    if v.whole_open {
                        <CodeBlock id="starter-code" code={task.starter_code.clone()} />
                    }
                </details>
            </>
        },
        (CodeTab::Reference | CodeTab::Diff, _) if !v.revealed => html! {
            <div class="reveal">
                { text_el("p", None, "The reference solution is hidden so that you can try the task first.") }
                <button id="reveal" type="button" class="button" onclick={reveal}>{ "Reveal the reference solution" }</button>
            </div>
        },
        // The starter (without a merge view) and the reference: one block, its code and marks by tab.
        (CodeTab::Starter | CodeTab::Reference, _) => {
            let reference = v.code_tab == CodeTab::Reference;
            let (id, code) =
                if reference { ("reference-code", &task.solution_code) } else { ("starter-code", &task.starter_code) };
            html! {
                <CodeBlock {id} code={code.clone()} selected={selected.clone()} hovered={hovered.clone()} on_select={on_select.clone()}
                    states={states.as_ref().map(|s| if reference { s.1.clone() } else { s.0.clone() })} on_why={on_why.clone()}
                    marked={if reference { marked.clone() } else { None }}
                    renamed={(*renamed).as_ref().map(|r| if reference { r.1.clone() } else { r.0.clone() })} fill={!reference} />
            }
        }
        (CodeTab::Diff, _) => html! {
            <DiffView id="diff" old={task.starter_code.clone()} new={task.solution_code.clone()} />
        },
        // "Your solution" stays on the page under the other tabs (its editor keeps its undo history).
        (CodeTab::Solution, _) => html! {},
    };
    let solution_pane = if p.embed || (!painted && v.code_tab != CodeTab::Solution) {
        html! {}
    } else {
        let on_show = v.code_tab == CodeTab::Solution;
        let toggle = |diff: bool, id: &'static str, label: &'static str| {
            let on = v.solution_diff == diff;
            html! {
                <button {id} type="button" class={pick_str(on, "button small ghost", "button small ghost active")} aria-pressed={bool_str(on)}
                    onclick={act.reform(move |_: MouseEvent| TaskAction::SolutionDiff(diff))}>{ label }</button>
            }
        };
        let text = &grade.0.text;
        let diff = if on_show && v.solution_diff {
            match cabrito_check::response::parse_response(text, &task.starter_code) {
                _ if text.trim().is_empty() => {
                    html! { <p id="solution-diff" class="hint">{ "Your solution is empty: nothing differs from the starter yet." }</p> }
                }
                Ok(c) if c.code == task.starter_code => {
                    html! { <p id="solution-diff" class="hint">{ "Your solution is the starter, unchanged." }</p> }
                }
                Ok(c) => html! { <DiffView id="solution-diff" old={task.starter_code.clone()} new={c.code} /> },
                Err(e) => {
                    html! { <p id="solution-diff" class="notice">{ format!("Your solution cannot be read as a solution.py: {e}") }</p> }
                }
            }
        } else {
            html! {}
        };
        let (dispatcher, notice) = (grade.dispatcher(), grade.dispatcher());
        let start = {
            let (dispatcher, starter) = (grade.dispatcher(), task.starter_code.clone());
            Callback::from(move |_: MouseEvent| dispatcher.dispatch(PanelAction::SetText(starter.clone())))
        };
        html! {
            <div id="solution-pane" class="solution-pane" hidden={!on_show}>
                <div class="solution-bar">
                    { toggle(false, "solution-edit", "Edit") }
                    { toggle(true, "solution-diff-tab", "Diff against the starter") }
                    if text.trim().is_empty() {
                        <button id="start-from-starter" type="button" class="button small" onclick={start}>{ "Start from the starter" }</button>
                    }
                    if let Some(why) = &grade.0.notice {
                        <span id="editor-notice" class="notice" role="alert">{ why.clone() }</span>
                    }
                </div>
                <SolutionEditor text={AttrValue::from(text.clone())} goto={v.goto} active={on_show} hidden={v.solution_diff}
                    on_change={Callback::from(move |t: String| dispatcher.dispatch(PanelAction::SetText(t)))}
                    on_notice={Callback::from(move |m: String| notice.dispatch(PanelAction::Notice(m)))} />
                { diff }
            </div>
        }
    };

    // What the kind draws beside the code.
    let side_panel = match &p.shown.generated.view {
        Drawn::Graph { roles, .. } => {
            html! {
                    <section class="panel graph-panel" aria-label="Call graph">
                        { zoom_head("Call graph", v.zoom, &act) }
                        { legend(roles, task.runtime.as_ref().map_or(0, |r| r.inactive_calls.len())) }
                        <div class="graph-scroll">
                            <CallGraphSvg shown={p.shown.clone()} selected={selected.clone()} on_select={on_select.clone()} on_hover={on_hover.clone()} zoom={v.zoom} />
                        </div>
                        <p class="hint">
                            { match &selected {
                                Some(f) => format!("Selected: {f} (click it again to clear)"),
                                None => "Click a function to find it in the code; click a function in the code to find it here.".to_string(),
                            } }
                            if record.is_some() && selected.is_some() {
                                { " " }
                                <button id="why-open" type="button" class="button small" onclick={explain_selected}>{ "Why this branch?" }</button>
                            }
                        </p>
                        if record.is_some() {
                            { text_el("p", Some("hint"), "Shaded, italic code (barred at its left) never runs: each function runs one branch of its if/else, decided by check(). Click a condition to see why.") }
                        }
                    </section>
            }
        }
        // Made with the task, in the `gen` module (`variable_renaming::panel_html`); no events.
        Drawn::Renaming { panel, .. } => Html::from_html_unchecked(AttrValue::from(panel.clone())),
        Drawn::Merge(m) => {
            html! {
                <section class="panel graph-panel" aria-label="Data-flow graph">
                    { zoom_head("Data flow", v.zoom, &act) }
                    { super::merge::flow_legend(m) }
                    <super::merge::FlowGraph view={m.clone()} zoom={v.zoom} shown={shown_panel == SidePanel::Graph} />
                    { text_el("p", Some("hint flow-hint"), "Each variable of the reference solution after the ones its line reads; hover one for its names in both classes. Dashed: read only by CalculateB's side of a difference.") }
                </section>
            }
        }
    };

    // Beside the code: the requirements, each clickable to the reference lines that satisfy it.
    let requirements_panel = if reqs.is_empty() {
        html! {}
    } else {
        let pick = |n: usize| act.reform(move |_: MouseEvent| TaskAction::Pick(n));
        html! {
            <section id="requirements" class="panel requirements-panel" aria-label="Requirements">
                <div class="panel-head">
                    <h2>{ format!("Requirements ({})", reqs.len()) }</h2>
                </div>
                { text_el("p", Some("hint"), "Click a requirement to mark the lines of the reference solution that satisfy it (one in every function it applies to).") }
                <ol class="requirements">
                    { for reqs.iter().map(|r| {
                        let active = v.picked == Some(r.number);
                        let lines = r.lines.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
                        html! {
                            <li value={r.number.to_string()}>
                                <button type="button" id={format!("req-{}", r.number)} class={pick_str(active, "req", "req active")}
                                    data-lines={lines} aria-pressed={bool_str(active)} onclick={pick(r.number)}>
                                    <span class="req-sentence">{ inline_code(&r.sentence) }</span>
                                    <span class="req-count">{ match r.lines.len() { 1 => " · 1 line".to_string(), k => format!(" · {k} lines") } }</span>
                                </button>
                            </li>
                        }
                    }) }
                </ol>
            </section>
        }
    };

    // The task page's shortcuts (large type and the help are the app's).
    {
        let (panels, switch, act) = (panels.clone(), switch.clone(), act.clone());
        super::keys::use_shortcuts(Callback::from(move |c: Command| match c {
            Command::Panel(to) if panels.contains(&to) => {
                switch.emit(to);
                focus_tab(to);
                true
            }
            Command::Cycle(step) => {
                let to = shown_panel.cycle(&panels, step as isize);
                switch.emit(to);
                focus_tab(to);
                true
            }
            Command::CodeTab(i) => {
                act.emit(TaskAction::CodeTab(match i {
                    0 => CodeTab::Starter,
                    1 => CodeTab::Reference,
                    2 => CodeTab::Diff,
                    _ => CodeTab::Solution,
                }));
                true
            }
            Command::Code => {
                focus_code();
                true
            }
            _ => false,
        }));
    }

    // The "why this branch?" panel: the chosen guard worked out, else a button per function.
    let why_panel = match record.as_ref() {
        Some(r) => {
            let open = v.why.as_ref().and_then(|w| {
                let f = r.functions.iter().find(|f| *f.name == *w.function)?;
                Some((w, Rc::new(f.clone())))
            });
            html! {
                <>
                    <div id="why-root" hidden={open.is_none()}>
                        if let Some((w, f)) = open.clone() {
                            <WhyPanel key={format!("{}-{}", w.function, w.guard)} function={f} guard={w.guard}
                                on_close={act.reform(|()| TaskAction::CloseWhy)} />
                        }
                    </div>
                    if open.is_none() {
                        <section class="panel why-pick" aria-label="Why this branch?">
                            { text_el("h2", None, "Why this branch?") }
                            { text_el("p", Some("hint"), "Each function runs one branch of its if/else, decided by check(). Pick a function (or click a condition in the code) to see check() worked out.") }
                            <ul class="why-functions">
                                { for r.functions.iter().filter(|f| !f.guards.is_empty()).map(|f| {
                                    let explain = explain.clone();
                                    let name = AttrValue::from(f.name.clone());
                                    html! {
                                        <li>
                                            <button type="button" id={format!("why-fn-{}", f.name)} class="button small ghost"
                                                onclick={Callback::from(move |_: MouseEvent| explain.emit((name.clone(), 0)))}>
                                                { format!("{}() runs {}", f.name, f.describe()) }
                                            </button>
                                        </li>
                                    }
                                }) }
                            </ul>
                        </section>
                    }
                </>
            }
        }
        None => html! {},
    };

    let side_label = |which: SidePanel| -> String {
        match which {
            SidePanel::Grade => "Grade".into(),
            SidePanel::Graph if merge.is_some() => "Data flow".into(),
            SidePanel::Graph => "Graph".into(),
            SidePanel::Renames => "Renames".into(),
            SidePanel::Requirements => format!("Requirements ({})", reqs.len()),
            SidePanel::Why => "Why?".into(),
            SidePanel::Statement => "Statement".into(),
            SidePanel::Prompt => "Prompt".into(),
        }
    };
    let side_tab = |which: SidePanel| {
        let active = shown_panel == which;
        let switch = switch.clone();
        let key = crate::playground::keys::SHORTCUTS
            .iter()
            .find(|s| s.command == Command::Panel(which))
            .map(|s| s.key)
            .unwrap_or_default();
        html! {
            <button id={format!("panel-tab-{}", which.as_str())} type="button" role="tab"
                class={pick_str(active, "tab", "tab active")} aria-selected={bool_str(active)}
                aria-controls={format!("panel-{}", which.as_str())}
                title={format!("Shortcut: {key}")} data-key={key}
                onclick={Callback::from(move |_: MouseEvent| switch.emit(which))}>
                { side_label(which) }
            </button>
        }
    };
    let body = |which: SidePanel, content: Html| {
        html! {
            <div id={format!("panel-{}", which.as_str())} class="side-body" role="tabpanel"
                aria-labelledby={format!("panel-tab-{}", which.as_str())} hidden={shown_panel != which}>
                { content }
            </div>
        }
    };
    let side_content = |which: SidePanel| -> Html {
        match which {
            SidePanel::Grade => html! {
                <GradePanel shown={p.shown.clone()} state={grade.clone()} shared_error={shared_error.clone()}
                    on_goto={act.reform(TaskAction::Goto)} on_edit={act.reform(|()| TaskAction::CodeTab(CodeTab::Solution))}
                    editing={v.code_tab == CodeTab::Solution} />
            },
            SidePanel::Graph | SidePanel::Renames => side_panel.clone(),
            SidePanel::Requirements => requirements_panel.clone(),
            SidePanel::Why => why_panel.clone(),
            SidePanel::Statement => html! {
                <>
                    <section class="panel" aria-label="Problem statement">
                        <div class="panel-head">
                            { text_el("h2", None, "Problem statement") }
                            <div class="actions">
                                <CopyButton id="copy-statement" label="Copy statement" text={task.prompt.clone()} />
                            </div>
                        </div>
                        <pre id="prompt" class="prompt">{ task.prompt.clone() }</pre>
                    </section>
                    if !p.embed {
                        { task_tuple(&p.shown) }
                    }
                </>
            },
            SidePanel::Prompt => html! {
                <section class="panel" aria-label="The full LLM prompt">
                    <div class="panel-head">
                        { text_el("h2", None, "The full LLM prompt") }
                        <div class="actions">
                            <CopyButton id="copy-llm-prompt" label="Copy full LLM prompt" text={llm.clone()} />
                        </div>
                    </div>
                    { text_el("p", Some("hint"), "The statement and the codebase in file-block format, as a model is given it.") }
                    // (In the page only while on show: it holds the whole program.)
                    if shown_panel == SidePanel::Prompt {
                        <pre id="llm-prompt" class="prompt">{ llm.clone() }</pre>
                    }
                </section>
            },
        }
    };

    // Ctrl/Cmd+Enter anywhere in the workspace (the editor included) runs the hidden tests.
    let run_keys = {
        let (grade, shown) = (grade.clone(), p.shown.clone());
        Callback::from(move |e: KeyboardEvent| {
            if (e.ctrl_key() || e.meta_key()) && e.key() == "Enter" {
                e.prevent_default();
                super::grade::run_hidden(&grade, &shown.generated.task);
            }
        })
    };
    let renames = match &p.shown.generated.view {
        Drawn::Renaming { renames, .. } => renames.len(),
        _ => 0,
    };
    html! {
        <section id="task" class="task" ref={section} data-spec={task.spec.canonical()}>
            <div class="task-head">
                { text_el("h1", Some("task-title"), title(&task.spec)) }
                <p id="what-to-do" class="what-to-do">
                    { inline_code(&what_to_do(&task.spec, renames)) }
                    { " " }
                    <button id="read-statement" type="button" class="link-button"
                        onclick={{ let switch = switch.clone(); Callback::from(move |_: MouseEvent| switch.emit(SidePanel::Statement)) }}>
                        { "The full statement" }
                    </button>
                </p>
                <p id="stats" class="stats">
                    { match &merge {
                        None => format!(
                            "{} · {} to edit · {} · {} · about {}{}",
                            count(s.functions, "function", "functions"), s.functions_to_edit,
                            count(s.starter_lines, "line", "lines"), count(s.starter_chars, "character", "characters"),
                            count(s.prompt_tokens_estimate, "token", "tokens"), took
                        ),
                        Some(m) => format!(
                            "two classes of {} block lines and {} differing line{} each · {} lines · {} characters · about {}{}",
                            task.spec.n, m.diffs.len(), if m.diffs.len() == 1 { "" } else { "s" },
                            s.starter_lines, s.starter_chars, count(s.prompt_tokens_estimate, "token", "tokens"), took
                        ),
                    } }
                </p>
                if !p.embed {
                    <p class="share">
                        { "Share link: " }
                        <a id="share-link" href={task.link.clone()}>{ share.clone() }</a>
                        { " " }
                        <CopyButton id="copy-link" label="Copy link" text={share} />
                        { " · " }
                        <a id="open-agents" href={route::agents_fragment(&task.spec)} title="Watch a scripted agent work on this task, or walk it yourself through the agents' tools">{ "Watch an agent →" }</a>
                    </p>
                }
            </div>
            if let Some(Err(message)) = &p.panel {
                <p id="panel-error" class="notice" role="alert">{ format!("This link's panel cannot be opened: {message}. Showing {} instead.", side_label(shown_panel)) }</p>
            }
            <div class={pick_str(merge.is_some(), "workspace", "workspace merge")} onkeydown={run_keys}>
                <section id="code-panel" class="panel code-panel" aria-label="Code">
                    <div class="tabs" role="tablist" aria-label="Code">
                        { tab_button(CodeTab::Starter, "tab-starter", "Starter solution.py") }
                        if !p.embed {
                            { tab_button(CodeTab::Solution, "tab-solution", "Your solution") }
                        }
                        { tab_button(CodeTab::Reference, "tab-reference", "Reference") }
                        { tab_button(CodeTab::Diff, "tab-diff", "Reference diff") }
                    </div>
                    { code }
                    { solution_pane }
                </section>
                <section id="side" class="panel side-panel" aria-label="Panels" data-panel={shown_panel.as_str()}>
                    <div class="tabs side-tabs" role="tablist" aria-label="Panels">
                        { for panels.iter().map(|&w| side_tab(w)) }
                    </div>
                    // The code (the largest paint) first; the panel on show once it is painted; the others after.
                    { for panels.iter().map(|&w| {
                        let drawn = painted && (w == shown_panel || painted_twice);
                        body(w, if drawn { side_content(w) } else { html! {} })
                    }) }
                </section>
            </div>
        </section>
    }
}

/// Text whose `backticked` parts are inline code (`<code>`); an unpaired backtick stays as it is.
pub fn inline_code(text: &str) -> Html {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len() < 3 {
        return html! { { text.to_string() } };
    }
    // With an even number of parts the last backtick has no pair: it joins the last part as text.
    let paired = if parts.len() % 2 == 1 { parts.len() } else { parts.len() - 1 };
    html! {
        <>
            { for parts[..paired].iter().enumerate().map(|(i, part)| {
                if i % 2 == 1 { html! { <code>{ part.to_string() }</code> } } else { html! { { part.to_string() } } }
            }) }
            if paired < parts.len() {
                { format!("`{}", parts[paired]) }
            }
        </>
    }
}

/// An element holding only text (`<h2>…</h2>`, `<p class="hint">…</p>`); no class when `class` is
/// `None`.
pub(super) fn text_el(tag: &'static str, class: Option<&'static str>, text: impl Into<AttrValue>) -> Html {
    text_node(tag, class, text.into())
}

fn text_node(tag: &'static str, class: Option<&'static str>, text: AttrValue) -> Html {
    html! { <@{tag} class={class}>{ text }</@> }
}

/// `"true"` or `"false"`, for an aria attribute.
pub(super) fn bool_str(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

/// One of two fixed attribute values (a class with and without its state), so that no `classes!`
/// set is built at each render.
pub(super) fn pick_str(on: bool, off_value: &'static str, on_value: &'static str) -> &'static str {
    if on {
        on_value
    } else {
        off_value
    }
}

/// A graph panel's head: its title and the zoom buttons (out, fit, in).
fn zoom_head(title: &'static str, zoom: f64, act: &Callback<TaskAction>) -> Html {
    let by = |factor: Option<f64>| act.reform(move |_: MouseEvent| TaskAction::Zoom(factor));
    html! {
        <div class="panel-head">
            { text_el("h2", None, title) }
            <div class="zoom">
                <button id="zoom-out" type="button" class="button small ghost" onclick={by(Some(1.0 / 1.25))} title="Zoom out">{ "−" }</button>
                <button id="zoom-reset" type="button" class="button small ghost" onclick={by(None)} title="Fit the box">{ if (zoom - 1.0).abs() < 1e-9 { "Fit".to_string() } else { format!("{:.0}%", zoom * 100.0) } }</button>
                <button id="zoom-in" type="button" class="button small ghost" onclick={by(Some(1.25))} title="Zoom in">{ "+" }</button>
            </div>
        </div>
    }
}

/// Move the focus to a side panel's tab (after a shortcut opened it).
fn focus_tab(which: SidePanel) {
    focus_by_id(&format!("panel-tab-{}", which.as_str()));
}

fn focus_by_id(id: &str) {
    use wasm_bindgen::JsCast;
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// Move the focus to the code on show (its scrolling box, so the arrow keys scroll it).
fn focus_code() {
    use wasm_bindgen::JsCast;
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let target = doc
        .query_selector("#code-panel pre, #code-panel .merge-code, #code-panel #reveal")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(el) = target {
        if el.tab_index() < 0 && el.tag_name() != "BUTTON" {
            el.set_tab_index(0);
        }
        let _ = el.focus();
    }
}

/// The task page's title: kind, then the knobs that say what the task is.
pub fn title(spec: &TaskSpec) -> String {
    let knob_applies = |key: &str| cabrito_gen::spec::knob(key).is_some_and(|k| (k.applies)(spec).is_ok());
    let mut parts = vec![spec.kind.label().to_string()];
    if knob_applies("domain") {
        parts.push(spec.domain.label().to_string());
    }
    if knob_applies("axis") {
        parts.push(spec.axis.label().to_string());
    } else {
        parts.push(format!("n = {}", spec.n));
    }
    parts.join(" · ")
}

/// The task as the paper's 4-tuple: request, environment, stopping rule, scorer (a plain function:
/// no state).
pub fn task_tuple(shown: &Shown) -> Html {
    let task = &shown.generated.task;
    let kind = task.spec.kind.def();
    let library = kind.library(task.spec.domain).map(|m| format!(", the `mylibrary` stub `{m}()`")).unwrap_or_default();
    let numpy = if task.spec.domain == Domain::Array { ", numpy" } else { "" };
    let axis_rule = if task.runtime.is_some() {
        ", and the edits are in the branches that run, exactly where the reference makes them (branch placement)"
    } else if task.spec.axis.def().instructions() {
        ", and every numbered requirement's line is in every function it applies to, in the prescribed order (constraint structure)"
    } else if task.spec.axis.def().copies_comment() && kind.axes() != Support::NotApplicable {
        ", and every function it changes carries the given comment, word for word, on a line of its own (comment copy)"
    } else {
        ""
    };
    let (request, behaviour) = match &shown.generated.view {
        Drawn::Graph { .. } => (
            format!("the problem statement above, with solution.py ({} functions, {} lines)", task.sizes.functions, task.sizes.starter_lines),
            "every function returns what the reference returns on 50 random inputs".to_string(),
        ),
        Drawn::Renaming { renames, .. } => (
            format!("the problem statement above, with solution.py (main() and its chain of assignments, {} renames, {} lines)", renames.len(), task.sizes.starter_lines),
            "main() returns what the reference's returns on 50 random inputs".to_string(),
        ),
        Drawn::Merge(_) => (
            format!("the problem statement above, with solution.py (two calculator classes, {} lines)", task.sizes.starter_lines),
            "CalculateA().compute and CalculateB().compute return exactly what the reference's do on 50 argument vectors".to_string(),
        ),
    };
    html! {
        <section id="task-tuple" class="panel tuple" aria-label="The task as a 4-tuple">
            { text_el("h2", None, "The task as a 4-tuple") }
            <dl>
                { text_el("dt", None, "Request") }
                { text_el("dd", None, request) }
                { text_el("dt", None, "Environment") }
                <dd>{ format!("one file, solution.py, run by Python 3.11 or newer{numpy}{library}") }</dd>
                { text_el("dt", None, "Stopping rule") }
                { text_el("dd", None, "one answer: the whole new solution.py, as a # === solution.py === file block, a bare file or a unified diff") }
                { text_el("dt", None, "Scorer") }
                <dd>{ format!("exact and black-box: {behaviour}, and {}{}; the score is 1 only when every check passes", kind.scorer_rule(task.spec.domain), axis_rule) }</dd>
            </dl>
        </section>
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// The size the gallery's cards use.
pub const GALLERY_N: u32 = 10;

/// The specs of the gallery's cards: one per kind and domain it is built for (one card when the
/// domain does not apply), on the kind's first axis.
pub fn gallery_specs() -> Vec<TaskSpec> {
    let mut out = Vec::new();
    for &kind in Kind::ALL {
        let def = kind.def();
        let base = TaskSpec { kind, n: GALLERY_N, ..TaskSpec::default() };
        let axis = match def.axes() {
            Support::Only(axes) => axes.first().copied().unwrap_or(base.axis),
            Support::NotApplicable => base.axis,
        };
        let domains = match def.domains() {
            Support::Only(domains) => domains.to_vec(),
            Support::NotApplicable => vec![base.domain],
        };
        out.extend(domains.into_iter().map(|domain| TaskSpec { domain, axis, ..base.clone() }));
    }
    out
}

/// The specs of the gallery's runtime cards: each kind built along the axis, in the math domain, with
/// guards of [`GALLERY_N`] hops.
pub fn runtime_gallery_specs() -> Vec<TaskSpec> {
    Kind::ALL
        .iter()
        .filter(|k| k.def().axes().allows(&Axis::Runtime))
        .map(|&kind| TaskSpec::new(kind, Domain::Math, Axis::Runtime, GALLERY_N, 0))
        .collect()
}

/// The axes with a gallery row of their own (one card per kind built along them, in the math
/// domain): the axes with two fixed-size graphs, where `n` measures something else (comment words,
/// the comment axis); runtime resolution and instruction following have rows of their own
/// ([`runtime_gallery_specs`], [`instructions_gallery_specs`]).
pub fn gallery_axis_rows() -> Vec<(Axis, Vec<TaskSpec>)> {
    Axis::ALL
        .iter()
        .filter(|&&a| {
            a.def().grows() == cabrito_gen::axes::Grows::Neither && ![Axis::Runtime, Axis::Instructions].contains(&a)
        })
        .map(|&axis| {
            let specs = Kind::ALL
                .iter()
                .filter(|k| k.def().axes().allows(&axis))
                .map(|&kind| TaskSpec { kind, axis, n: GALLERY_N, ..TaskSpec::default() })
                .collect();
            (axis, specs)
        })
        .collect()
}

/// A card's picture: the call graph, or the first lines of a renaming chain.
pub(super) fn card_picture(s: &Rc<Shown>, noop: &Callback<Option<AttrValue>>) -> Html {
    match &s.generated.view {
        Drawn::Graph { .. } => html! {
            <CallGraphSvg shown={s.clone()} selected={None::<AttrValue>} on_select={noop.clone()} zoom={0.32} interactive={false} />
        },
        Drawn::Renaming { .. } => {
            let lines: Vec<&str> = s
                .generated
                .task
                .starter_code
                .lines()
                .skip_while(|l| !l.starts_with("def main("))
                .skip(1)
                .take(8)
                .collect();
            html! { <pre class="card-chain">{ format!("def main(val: float) -> float:\n{}\n    …", lines.join("\n")) }</pre> }
        }
        Drawn::Merge(m) => html! {
            { super::merge::flow_svg(&m.flow, 0.32, &format!("card-flow-{}", s.spec.kind.as_str())) }
        },
    }
}

/// A card's numbers.
pub(super) fn card_stats(s: &Rc<Shown>) -> String {
    let t = &s.generated.task;
    match &s.generated.view {
        Drawn::Graph { .. } | Drawn::Renaming { .. } => {
            format!(
                "{} functions · {} to edit · {} lines",
                t.sizes.functions, t.sizes.functions_to_edit, t.sizes.starter_lines
            )
        }
        Drawn::Merge(m) => format!(
            "two classes · {} blocks · {} difference{} · {} lines",
            m.blocks,
            m.diffs.len(),
            if m.diffs.len() == 1 { "" } else { "s" },
            t.sizes.starter_lines
        ),
    }
}

/// The specs of the gallery's instruction-following cards: each kind built along the axis, in the math
/// domain, with [`GALLERY_N`] requirements.
pub fn instructions_gallery_specs() -> Vec<TaskSpec> {
    Kind::ALL
        .iter()
        .filter(|k| k.def().axes().allows(&Axis::Instructions))
        .map(|&kind| TaskSpec::new(kind, Domain::Math, Axis::Instructions, GALLERY_N, 0))
        .collect()
}

/// One gallery card: a link to its task, its title, and its body (generated by [`CardBody`]). One
/// function for the gallery's four kinds of row.
fn card(spec: &TaskSpec, id: String, title: String, picture: Picture, eager: bool) -> Html {
    html! {
        <a class="card" href={route::fragment(spec)} {id}>
            { text_el("span", Some("card-title"), title) }
            <CardBody spec={spec.clone()} {picture} {eager} />
        </a>
    }
}

/// The landing page: one card per kind × domain (a small task, its call graph and its numbers), a row
/// of cards per other fixed-size axis (comment copying), a row of runtime cards, a row of instruction-following cards, and the paper's sizes per axis.
#[function_component(Gallery)]
pub fn gallery() -> Html {
    // Each card generates its own task (super::cards): the first now, the others just after.
    let cards = use_memo((), |_| gallery_specs());
    let axis_rows = use_memo((), |_| gallery_axis_rows());
    let runtime_cards = use_memo((), |_| runtime_gallery_specs());
    let instructions_cards = use_memo((), |_| instructions_gallery_specs());
    // Only the first card is drawn in the first render (a phone's first screen shows one).
    let first = cards.first().cloned();
    html! {
        <>
        <section id="gallery" class="gallery">
            <super::gallery::Intro />
            <h2 class="gallery-more">{ "Every kind in every domain, generated now (n = 10; every knob can then be changed)" }</h2>
            { for Kind::ALL.iter().map(|&kind| html! {
                <section class="gallery-row" aria-label={kind.label()}>
                    { text_el("h2", None, kind.label()) }
                    <div class="cards">
                        { for cards.iter().filter(|s| s.kind == kind).map(|s| {
                            let title = if kind.def().domains() == Support::NotApplicable { format!("n = {}", s.n) } else { s.domain.label().to_string() };
                            card(s, format!("card-{}-{}", kind.as_str(), s.domain.as_str()), title, Picture::Card, first.as_ref() == Some(s))
                        }) }
                    </div>
                </section>
            }) }
            { for axis_rows.iter().map(|(axis, shown)| html! {
                <section class="gallery-row" aria-label={axis.label()}>
                    <h2>{ format!("{} (n = {GALLERY_N}: {})", capitalised(axis.label()), axis.scales()) }</h2>
                    <div class="cards">
                        { for shown.iter().map(|s| {
                            card(s, format!("card-{}-{}", axis.as_str(), s.kind.as_str()), s.kind.label().to_string(), Picture::Card, false)
                        }) }
                    </div>
                </section>
            }) }
            <section class="gallery-row" aria-label="The paper's sizes">
                { text_el("h2", None, "The paper's sizes") }
                <table class="sizes">
                    <tbody>
                        { for Axis::ALL.iter().map(|&axis| {
                            // The default kind when it is built along the axis, else the first that is.
                            let base = TaskSpec::default();
                            let kind = std::iter::once(base.kind)
                                .chain(Kind::ALL.iter().copied())
                                .find(|k| k.def().axes().allows(&axis))
                                .unwrap_or(base.kind);
                            html! {
                                <tr>
                                    <th title={axis.scales()}>{ axis.label() }</th>
                                    { for axis.def().paper_sizes().iter().map(|&n| {
                                        let spec = TaskSpec { kind, axis, n, ..base.clone() };
                                        html! { <td><a href={route::fragment(&spec)}>{ format!("n = {n}") }</a></td> }
                                    }) }
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </section>
        </section>
            <section id="gallery-runtime" class="gallery gallery-row" aria-label={Axis::Runtime.label()}>
                <h2>{ format!("Runtime resolution: which branch runs? (guards of {GALLERY_N} hops)") }</h2>
                <div class="cards">
                    { for runtime_cards.iter().map(|s| {
                        card(s, format!("card-runtime-{}", s.kind.as_str()), s.kind.label().to_string(), Picture::Runtime, false)
                    }) }
                </div>
            </section>
            <section id="gallery-instructions" class="gallery gallery-row" aria-label={Axis::Instructions.label()}>
                <h2>{ format!("Instruction following: the refactoring over ten values, with {GALLERY_N} numbered requirements to obey") }</h2>
                <div class="cards">
                    { for instructions_cards.iter().map(|s| {
                        card(s, format!("card-instructions-{}", s.kind.as_str()), s.kind.label().to_string(), Picture::Instructions, false)
                    }) }
                </div>
            </section>
        </>
    }
}
