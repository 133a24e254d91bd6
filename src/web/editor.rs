//! The task page's solution editor: CodeMirror 6 (www/editor/editor.mjs, bundled into dist/editor.js),
//! fetched the first time a reader opens "Your solution", so the first download does not carry it.
//! Until it has arrived (or if it cannot), a plain text box edits the same answer.

use std::cell::RefCell;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

/// The bundled editor, next to index.html.
const SCRIPT: &str = "editor.js";
/// The global the bundle sets.
const GLOBAL: &str = "cabritoEditor";

/// Where the editor's script is.
#[derive(Clone, Debug, PartialEq)]
enum Load {
    Loading,
    Ready,
    Failed(String),
}

/// Who waits for the script: called once it has loaded, or failed to.
type Waiters = Vec<Callback<Result<(), String>>>;

thread_local! {
    /// The script's state and who waits for it (the script is added to the page once).
    static STATE: RefCell<Option<(Load, Waiters)>> = const { RefCell::new(None) };
}

fn global() -> Option<JsValue> {
    let w = web_sys::window()?;
    js_sys::Reflect::get(&w, &GLOBAL.into()).ok().filter(|v| v.is_object())
}

fn finish(r: Result<(), String>) {
    let waiting = STATE.with(|s| {
        let mut s = s.borrow_mut();
        let load = match &r {
            Ok(()) => Load::Ready,
            Err(e) => Load::Failed(e.clone()),
        };
        let waiting = s.as_mut().map(|e| std::mem::take(&mut e.1)).unwrap_or_default();
        *s = Some((load, Vec::new()));
        waiting
    });
    for w in waiting {
        w.emit(r.clone());
    }
}

/// Load the editor's script once, then call `then` (at once when it is there).
fn ensure_loaded(then: Callback<Result<(), String>>) {
    let now = STATE.with(|s| s.borrow().as_ref().map(|e| e.0.clone()));
    match now {
        Some(Load::Ready) => return then.emit(Ok(())),
        Some(Load::Loading) => {
            STATE.with(|s| {
                if let Some(e) = s.borrow_mut().as_mut() {
                    e.1.push(then)
                }
            });
            return;
        }
        // A failed load is tried again: the network may be back.
        Some(Load::Failed(_)) | None => {}
    }
    STATE.with(|s| *s.borrow_mut() = Some((Load::Loading, vec![then])));
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return finish(Err("this page has no document".into()));
    };
    let Ok(el) = doc.create_element("script") else { return finish(Err("a script element could not be made".into())) };
    let _ = el.set_attribute("src", SCRIPT);
    let _ = el.set_attribute("async", "");
    let onload = Closure::once_into_js(move || {
        finish(if global().is_some() { Ok(()) } else { Err(format!("{SCRIPT} loaded but did not start")) })
    });
    let onerror = Closure::once_into_js(move || finish(Err(format!("{SCRIPT} could not be fetched"))));
    let _ = el.add_event_listener_with_callback("load", onload.unchecked_ref());
    let _ = el.add_event_listener_with_callback("error", onerror.unchecked_ref());
    let target = doc.head().map(web_sys::Element::from).or_else(|| doc.body().map(web_sys::Element::from));
    if let Some(t) = target {
        let _ = t.append_child(&el);
    } else {
        finish(Err("this page has no head to add the editor to".into()));
    }
}

/// A call on the editor's handle (`get`, `set`, `goto`, `focus`, `destroy`).
fn call(handle: &JsValue, name: &str, args: &[JsValue]) -> Option<JsValue> {
    let f = js_sys::Reflect::get(handle, &name.into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    let arr: js_sys::Array = args.iter().collect();
    f.apply(handle, &arr).ok()
}

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// The answer (the grade panel's text).
    pub text: AttrValue,
    /// The reader changed the text.
    pub on_change: Callback<String>,
    /// The editor refused a change, and why.
    pub on_notice: Callback<String>,
    /// A line to go to (1-based), and a count that makes each ask new.
    #[prop_or_default]
    pub goto: Option<(usize, u32)>,
    /// On show: the editor's script is fetched the first time this is true.
    pub active: bool,
    /// Kept on the page but not shown (the diff against the starter is).
    #[prop_or_default]
    pub hidden: bool,
}

/// What the component keeps between renders without re-rendering.
#[derive(Default)]
struct Kept {
    /// The mounted editor's handle.
    handle: Option<JsValue>,
    /// The last text the editor reported (so it is not pushed back into the editor, which may have
    /// moved on since).
    reported: Option<String>,
    /// The text as the props last gave it (the editor mounts with it).
    text: String,
    /// The last goto done.
    goto: Option<(usize, u32)>,
    /// The callbacks the editor calls, kept alive as long as it is mounted.
    closures: Vec<Closure<dyn Fn(String)>>,
}

/// The reader's solution.py: CodeMirror once it has loaded, a text box until then.
#[function_component(SolutionEditor)]
pub fn solution_editor(p: &EditorProps) -> Html {
    let load = use_state(|| if global().is_some() { Load::Ready } else { Load::Loading });
    let host = use_node_ref();
    let area = use_node_ref();
    let kept = use_mut_ref(Kept::default);
    kept.borrow_mut().text = p.text.to_string();
    // Fetch the script when the editor is first shown.
    {
        let load = load.clone();
        use_effect_with(p.active, move |active| {
            if *active && *load != Load::Ready && global().is_none() {
                ensure_loaded(Callback::from(move |r: Result<(), String>| {
                    load.set(match r {
                        Ok(()) => Load::Ready,
                        Err(e) => Load::Failed(e),
                    })
                }));
            }
        });
    }
    // Mount it once the script is there; destroy it when the view goes.
    {
        let (host, kept, on_change, on_notice) = (host.clone(), kept.clone(), p.on_change.clone(), p.on_notice.clone());
        use_effect_with((*load).clone(), move |l| {
            if *l == Load::Ready {
                if let (Some(el), Some(api)) = (host.cast::<web_sys::Element>(), global()) {
                    let changed: Closure<dyn Fn(String)> = {
                        let kept = kept.clone();
                        Closure::new(move |t: String| {
                            kept.borrow_mut().reported = Some(t.clone());
                            on_change.emit(t);
                        })
                    };
                    let notice: Closure<dyn Fn(String)> = Closure::new(move |m: String| on_notice.emit(m));
                    let text = kept.borrow().text.clone();
                    let handle = call(
                        &api,
                        "mount",
                        &[
                            el.into(),
                            text.into(),
                            changed.as_ref().clone(),
                            notice.as_ref().clone(),
                            "Your solution.py".into(),
                        ],
                    );
                    let mut k = kept.borrow_mut();
                    k.handle = handle;
                    k.closures = vec![changed, notice];
                    // A rubric link that opened the editor asked for its line before it was mounted.
                    if let (Some(h), Some((line, _))) = (&k.handle, k.goto) {
                        call(h, "goto", &[(line as f64).into()]);
                    }
                }
            }
            move || {
                let mut k = kept.borrow_mut();
                if let Some(h) = k.handle.take() {
                    call(&h, "destroy", &[]);
                }
                k.closures.clear();
                k.reported = None;
            }
        });
    }
    // Text from outside (a paste button, a dropped file, a new task) goes into the editor; the
    // editor's own reports do not come back.
    {
        let kept = kept.clone();
        use_effect_with(p.text.clone(), move |t| {
            let k = kept.borrow();
            if let Some(h) = &k.handle {
                if k.reported.as_deref() != Some(t.as_str()) {
                    call(h, "set", &[t.as_str().into()]);
                }
            }
        });
    }
    // A rubric line link.
    {
        let (kept, area) = (kept.clone(), area.clone());
        use_effect_with(p.goto, move |g| {
            kept.borrow_mut().goto = *g;
            let Some((line, _)) = *g else { return };
            let k = kept.borrow();
            match &k.handle {
                Some(h) => {
                    call(h, "goto", &[(line as f64).into()]);
                }
                None => {
                    if let Some(el) = area.cast::<HtmlTextAreaElement>() {
                        select_line(&el, line);
                    }
                }
            }
        });
    }

    let oninput = {
        let on_change = p.on_change.clone();
        Callback::from(move |e: InputEvent| {
            let el: HtmlTextAreaElement = e.target_unchecked_into();
            on_change.emit(el.value());
        })
    };
    // A dropped file replaces the answer (the editor inserts one dropped on it itself).
    let ondrop = {
        let on_change = p.on_change.clone();
        Callback::from(move |e: DragEvent| {
            if e.default_prevented() {
                return;
            }
            let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) else { return };
            e.prevent_default();
            let on_change = on_change.clone();
            yew::platform::spawn_local(async move {
                let blob = gloo::file::Blob::from(file);
                match gloo::file::futures::read_as_text(&blob).await {
                    Ok(t) => on_change.emit(t),
                    Err(e) => on_change.emit(format!("# the dropped file could not be read: {e}\n")),
                }
            });
        })
    };
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ready = *load == Load::Ready;
    // `#solution` is what edits the answer: the text box, then the editor (whose host element has
    // the text as `value`, like the box).
    html! {
        <div class="solution-editor" hidden={p.hidden} {ondrop} {ondragover}>
            <div id={if ready { "solution" } else { "solution-editor" }} class="cm-host" ref={host} hidden={!ready}></div>
            if !ready {
                <textarea id="solution" ref={area} class="solution" spellcheck="false"
                    aria-label="Your solution.py"
                    placeholder="Write or paste your solution.py here: a whole file, a # === solution.py === file block or a unified diff"
                    value={p.text.clone()} {oninput} />
                <p id="editor-status" class="hint" role="status">
                    { match &*load {
                        Load::Failed(why) => format!("The code editor could not load ({why}); this plain box edits the same answer."),
                        _ if p.active => "Loading the code editor… (this box works meanwhile)".to_string(),
                        _ => String::new(),
                    } }
                </p>
            }
        </div>
    }
}

/// Select line `line` (1-based) of a text box and scroll it to the middle.
fn select_line(el: &HtmlTextAreaElement, line: usize) {
    let value = el.value();
    let start: usize = value.split_inclusive('\n').take(line.saturating_sub(1)).map(|l| l.encode_utf16().count()).sum();
    let len = value
        .split_inclusive('\n')
        .nth(line.saturating_sub(1))
        .map_or(0, |l| l.trim_end_matches('\n').encode_utf16().count());
    let _ = el.focus();
    let _ = el.set_selection_range(start as u32, (start + len) as u32);
    let line_px = web_sys::window()
        .and_then(|w| w.get_computed_style(el).ok().flatten())
        .and_then(|c| c.get_property_value("line-height").ok())
        .and_then(|v| v.trim_end_matches("px").parse::<f64>().ok())
        .map_or(20, |v| v.round() as i32);
    let top = (line as i32 - 1).max(0) * line_px;
    el.set_scroll_top((top - (el.client_height() - line_px).max(0) / 2).max(0));
}
