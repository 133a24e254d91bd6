//! Code on the page: Python with syntax highlighting and line numbers, functions that can be
//! selected (linked with the call graph), a diff between two programs, and a copy button.
//!
//! Every code element's text is exactly the code: line numbers are CSS counters and highlighting
//! only wraps tokens in spans.

use crate::playground::branches::LineState;
use crate::playground::{
    window,
    window::{visible, Window, FULL_MAX},
};
use gloo::events::EventListener;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// A highlighted piece of a line: its CSS class (empty for plain text) and its text.
pub type Token = (&'static str, String);

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// Split one line of Python into highlighted tokens. Joining the tokens' texts gives the line back.
pub fn tokens(line: &str) -> Vec<Token> {
    let chars: Vec<char> = line.chars().collect();
    let mut out: Vec<Token> = Vec::new();
    let mut plain = String::new();
    let mut after_def = false;
    let mut i = 0;
    let flush = |plain: &mut String, out: &mut Vec<Token>| {
        if !plain.is_empty() {
            out.push(("", std::mem::take(plain)));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '#' {
            flush(&mut plain, &mut out);
            out.push(("tok-comment", chars[i..].iter().collect()));
            break;
        }
        let prefix_len = string_prefix(&chars[i..]);
        if let Some(p) = prefix_len {
            // A string literal, with an optional prefix (f, r, b, …); runs to its closing quote or
            // the end of the line.
            flush(&mut plain, &mut out);
            let q = chars[i + p];
            let mut j = i + p + 1;
            while j < chars.len() && chars[j] != q {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.push(("tok-string", chars[i..end].iter().collect()));
            i = end;
            continue;
        }
        if c.is_ascii_digit() {
            flush(&mut plain, &mut out);
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_alphanumeric() || chars[j] == '.' || chars[j] == '_') {
                j += 1;
            }
            out.push(("tok-number", chars[i..j].iter().collect()));
            i = j;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            if KEYWORDS.contains(&word.as_str()) {
                flush(&mut plain, &mut out);
                after_def = word == "def" || word == "class";
                out.push(("tok-keyword", word));
            } else if after_def {
                flush(&mut plain, &mut out);
                after_def = false;
                out.push(("tok-def", word));
            } else {
                plain.push_str(&word);
            }
            i = j;
            continue;
        }
        plain.push(c);
        i += 1;
    }
    flush(&mut plain, &mut out);
    out
}

/// The length of a string prefix plus quote position at the start of `s` (`'`, `"`, `f'`, `rb"`…).
fn string_prefix(s: &[char]) -> Option<usize> {
    let mut p = 0;
    while p < s.len() && p < 2 && matches!(s[p], 'f' | 'F' | 'r' | 'R' | 'b' | 'B' | 'u' | 'U') {
        p += 1;
    }
    if p < s.len() && (s[p] == '\'' || s[p] == '"') {
        Some(p)
    } else {
        None
    }
}

/// The line ranges (0-based, end exclusive) of the top-level functions of a program, by name.
pub fn function_lines(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out: Vec<(String, usize, usize)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let top_level = !line.is_empty() && !line.starts_with(char::is_whitespace);
        if top_level {
            if let Some(last) = out.last_mut() {
                if last.2 == usize::MAX {
                    last.2 = i;
                }
            }
            if let Some(rest) = line.strip_prefix("def ") {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                out.push((name, i, usize::MAX));
            }
        }
    }
    if let Some(last) = out.last_mut() {
        if last.2 == usize::MAX {
            last.2 = lines.len();
        }
    }
    // Trailing blank lines belong to no function.
    for f in out.iter_mut() {
        while f.2 > f.1 + 1 && lines[f.2 - 1].trim().is_empty() {
            f.2 -= 1;
        }
    }
    out
}

#[derive(Properties, PartialEq)]
struct LineProps {
    text: AttrValue,
    selected: bool,
    hovered: bool,
    function: Option<AttrValue>,
    on_select: Option<Callback<Option<AttrValue>>>,
    /// Runtime tasks: the line's branch state (`runs`, `never`, a guard).
    #[prop_or_default]
    state: Option<LineState>,
    /// Runtime tasks: clicking a guard line explains it.
    #[prop_or_default]
    on_why: Option<Callback<(AttrValue, usize)>>,
    /// Instruction following: the line carries the requirement picked in the list.
    #[prop_or_default]
    marked: bool,
    /// variable_renaming: the names to mark where they appear.
    #[prop_or_default]
    renamed: Option<Rc<Vec<String>>>,
}

/// A plain stretch of a line with the names of `renamed` in `<span class="renamed">` (whole
/// identifiers only).
fn mark_names(text: &str, renamed: &[String]) -> Html {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out: Vec<Html> = Vec::new();
    let (mut plain, mut word) = (String::new(), String::new());
    let flush_word = |word: &mut String, plain: &mut String, out: &mut Vec<Html>| {
        if word.is_empty() {
            return;
        }
        if renamed.iter().any(|r| r == word) {
            out.push(html! { { std::mem::take(plain) } });
            out.push(
                html! { <span class="renamed" title="a variable this task renames">{ std::mem::take(word) }</span> },
            );
        } else {
            plain.push_str(word);
            word.clear();
        }
    };
    for c in text.chars() {
        if is_ident(c) {
            word.push(c);
        } else {
            flush_word(&mut word, &mut plain, &mut out);
            plain.push(c);
        }
    }
    flush_word(&mut word, &mut plain, &mut out);
    out.push(html! { { plain } });
    out.into_iter().collect::<Html>()
}

/// One line. A component of its own so that a new selection re-renders only the lines it changes.
#[function_component(Line)]
fn line(p: &LineProps) -> Html {
    let why = match (&p.state, &p.on_why) {
        (Some(LineState::Guard { function, guard, .. }), Some(cb)) => {
            Some((cb.clone(), AttrValue::from(function.clone()), *guard))
        }
        _ => None,
    };
    let onclick = match (&p.on_select, &p.function) {
        (Some(cb), Some(f)) => {
            let (cb, f) = (cb.clone(), f.clone());
            let why = why.clone();
            Some(Callback::from(move |_: MouseEvent| {
                cb.emit(Some(f.clone()));
                if let Some((w, name, g)) = &why {
                    w.emit((name.clone(), *g));
                }
            }))
        }
        _ => None,
    };
    // Where the line is in its function's if/else tree (greyed when it never runs).
    let (branch, guard) = match &p.state {
        None | Some(LineState::Runs) => (None, None),
        Some(LineState::Never) => (Some("never-runs"), None),
        Some(LineState::Guard { guard, reached, .. }) => {
            (Some(if *reached { "guard" } else { "guard never-runs" }), Some(guard.to_string()))
        }
        Some(LineState::Else { reached }) => (Some(if *reached { "else" } else { "else never-runs" }), None),
    };
    let body = p.text.strip_suffix('\n').unwrap_or(&p.text);
    let newline = if p.text.ends_with('\n') { "\n" } else { "" };
    html! {
        <span class={classes!("line", p.selected.then_some("selected"), p.hovered.then_some("hovered"), p.marked.then_some("marked"), branch)}
            data-fn={p.function.clone()} data-guard={guard} title={why.as_ref().map(|_| "why does this branch run, or not? click to see check() step by step")} {onclick}>
            { for tokens(body).into_iter().map(|(class, text)| if class.is_empty() {
                match &p.renamed {
                    Some(names) if !names.is_empty() => mark_names(&text, names),
                    _ => html! { { text } },
                }
            } else {
                html! { <span class={class}>{ text }</span> }
            }) }
            // Before the line's newline, so the marker ends this line instead of starting the next.
            if why.is_some() && branch == Some("guard") {
                <span class="why-mark" aria-hidden="true"></span>
            }
            { newline }
        </span>
    }
}

#[derive(Properties, PartialEq)]
pub struct CodeProps {
    pub id: AttrValue,
    pub code: AttrValue,
    /// The selected function, highlighted and scrolled into view.
    #[prop_or_default]
    pub selected: Option<AttrValue>,
    /// The function under the pointer in the call graph, shaded lightly.
    #[prop_or_default]
    pub hovered: Option<AttrValue>,
    /// Clicking a function's line selects it.
    #[prop_or_default]
    pub on_select: Option<Callback<Option<AttrValue>>>,
    /// Runtime tasks: each line's place in its function's if/else tree.
    #[prop_or_default]
    pub states: Option<Rc<Vec<LineState>>>,
    /// Runtime tasks: clicking a guard line explains it (function, guard index).
    #[prop_or_default]
    pub on_why: Option<Callback<(AttrValue, usize)>>,
    /// Instruction following: the 1-based lines of the requirement picked in the list, marked and the
    /// first scrolled into view.
    #[prop_or_default]
    pub marked: Option<Rc<Vec<usize>>>,
    /// variable_renaming: the variables the task renames (their names in this code), marked.
    #[prop_or_default]
    pub renamed: Option<Rc<Vec<String>>>,
    /// Paint a screenful first and the rest just after (the task page's starter code, the first
    /// thing its reader looks at).
    #[prop_or_default]
    pub fill: bool,
}

/// The nearest element at or above `el` that scrolls vertically (the block itself when it does),
/// short of the page.
fn scroll_parent(el: &web_sys::Element) -> Option<web_sys::Element> {
    let window = web_sys::window()?;
    let mut at = Some(el.clone());
    while let Some(e) = at {
        if e.scroll_height() > e.client_height() + 1 {
            let overflow = window
                .get_computed_style(&e)
                .ok()
                .flatten()
                .and_then(|s| s.get_property_value("overflow-y").ok())
                .unwrap_or_default();
            if overflow == "auto" || overflow == "scroll" {
                return Some(e);
            }
        }
        at = e.parent_element();
        if at.as_ref().is_some_and(|p| p.tag_name().eq_ignore_ascii_case("body")) {
            return None;
        }
    }
    None
}

/// The distance between two rendered lines (the line pitch), from the first and last rendered
/// line; `None` with fewer than two lines or before layout.
fn measure_pitch(code: &web_sys::Element) -> Option<f64> {
    let count = code.child_element_count();
    if count < 2 {
        return None;
    }
    let first = code.first_element_child()?.get_bounding_client_rect().top();
    let last = code.last_element_child()?.get_bounding_client_rect().top();
    let px = (last - first) / f64::from(count - 1);
    (px.is_finite() && px > 1.0).then_some(px)
}

/// The pitch to keep: the measured one, unless it is within a rounding error of the one in use (so
/// that re-measuring a new window never re-renders for nothing).
fn settle(measured: Option<f64>, current: f64) -> f64 {
    match measured {
        Some(px) if (px - current).abs() > 0.01 => px,
        _ => current,
    }
}

/// What a long block renders: its window of lines and the line pitch its padding assumes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rendered {
    window: Window,
    px: f64,
}

/// A block's line pitch before it is measured (0.9rem at line-height 1.45).
const GUESS_PX: f64 = 20.88;

/// Recompute the window of a long block from where it is on the screen.
fn follow_view(pre: &NodeRef, code: &NodeRef, total: usize, full: usize, rendered: &UseStateHandle<Rendered>) {
    let (Some(pre), Some(code)) = (pre.cast::<web_sys::Element>(), code.cast::<web_sys::Element>()) else { return };
    let Some(win) = web_sys::window() else { return };
    let px = settle(measure_pitch(&code), rendered.px);
    let view_h = win.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    let (pr, cr) = (pre.get_bounding_client_rect(), code.get_bounding_client_rect());
    // What of the block is on the screen, in pixels below its first line.
    let (top, bottom) = (pr.top().max(0.0) - cr.top(), pr.bottom().min(view_h) - cr.top());
    let next = match visible(top, bottom, px, total) {
        Some((first, last)) => window::around(first, last, total, full),
        None => rendered.window,
    };
    let next = Rendered { window: next, px };
    if next != **rendered {
        rendered.set(next);
    }
}

/// The lines a block of `total` lines renders ([`use_lines`]): all of them up to its limit `full`
/// (with `fill`: a screenful at the first paint, the rest just after), else those near the view,
/// the others standing in as padding of their height. Shared by [`CodeBlock`] and Merge Codebases' class columns (`web/merge.rs`); the block puts [`Lines::pre`]
/// on its `<pre>` (or whatever scrolls with it) and [`Lines::code`] and [`Lines::attrs`] on the
/// element whose children are the lines.
#[derive(Clone)]
pub struct Lines {
    pub pre: NodeRef,
    pub code: NodeRef,
    /// The lines rendered now.
    pub current: Window,
    rendered: UseStateHandle<Rendered>,
    total: usize,
    full: usize,
}

impl Lines {
    /// The lines' element's style and `data-window` when the block is windowed (`None` when every
    /// line is rendered): padding for the lines left out, and the line numbers (CSS counters)
    /// starting after `before` plus the lines left out above.
    pub fn attrs(&self, before: usize) -> (Option<String>, Option<String>) {
        if self.current.whole(self.total) {
            return (None, None);
        }
        let (w, px) = (self.current, self.rendered.px);
        let style = format!(
            "display: block; padding-top: {:.2}px; padding-bottom: {:.2}px; counter-reset: line {};",
            w.start as f64 * px,
            (self.total - w.end) as f64 * px,
            before + w.start
        );
        (Some(style), Some(format!("{}-{}", w.start, w.end)))
    }

    /// Bring line `i` (0-based) near the top of the block's scrolling box, rendering it first.
    pub fn scroll_to(&self, i: usize) {
        let (Some(pre_el), Some(code_el)) = (self.pre.cast::<web_sys::Element>(), self.code.cast::<web_sys::Element>())
        else {
            return;
        };
        let px = settle(measure_pitch(&code_el), self.rendered.px);
        if let Some(sc) = scroll_parent(&pre_el) {
            let line_top = code_el.get_bounding_client_rect().top() + i as f64 * px;
            let delta = line_top - sc.get_bounding_client_rect().top() - 24.0;
            sc.set_scroll_top(sc.scroll_top() + delta.round() as i32);
        }
        let rows = (f64::from(pre_el.client_height()) / px).ceil() as usize;
        let want = Rendered { window: window::showing(i, rows, self.total, self.full), px };
        if want != *self.rendered {
            self.rendered.set(want);
        }
    }
}

/// The window of lines of a block (see [`Lines`]); a new `text` starts at its top. With `fill`, a
/// block of at most `full` lines paints a screenful first and the rest just after.
#[hook]
pub fn use_lines(text: &AttrValue, total: usize, full: usize, fill: bool) -> Lines {
    let pre = use_node_ref();
    let code = use_node_ref();
    // `_eq`: the mount's "start at the top" below sets the value it starts with, which must not
    // render the whole block a second time.
    let start = move || if fill { Window::first_paint(total) } else { Window::initial(total, full) };
    let rendered = use_state_eq(|| Rendered { window: start(), px: GUESS_PX });
    // A new program starts at its top.
    {
        let rendered = rendered.clone();
        use_effect_with(text.clone(), move |_| {
            let px = rendered.px;
            rendered.set(Rendered { window: start(), px });
        });
    }
    // With `fill`, a block of at most `full` lines fills in after its first paint, a few dozen
    // lines a task (`window::filled`); a new text or window cancels the step not yet run.
    {
        let (code, rendered) = (code.clone(), rendered.clone());
        use_effect_with((text.clone(), total, full, fill, rendered.window), move |&(_, total, full, fill, now)| {
            let live = Rc::new(Cell::new(true));
            if let Some(next) = window::filled(now, total, full).filter(|_| fill) {
                let live = live.clone();
                super::lazy::after_paint(Box::new(move || {
                    if live.get() {
                        let px = settle(code.cast::<web_sys::Element>().as_ref().and_then(measure_pitch), rendered.px);
                        rendered.set(Rendered { window: next, px });
                    }
                }));
            }
            move || live.set(false)
        });
    }
    // Follow the view: any scroll on the page (captured at the window: scroll events do not bubble)
    // or a resize may bring other lines into view.
    {
        let (pre, code, rendered) = (pre.clone(), code.clone(), rendered.clone());
        use_effect_with((total, full, *rendered), move |&(total, full, _)| {
            let listeners = (total > full).then(|| {
                // At the next frame, with the frame's own layout: read here, where the block is
                // would lay the whole new page out inside the render's task.
                {
                    let (a, b, c) = (pre.clone(), code.clone(), rendered.clone());
                    super::lazy::next_frame(Box::new(move || follow_view(&a, &b, total, full, &c)));
                }
                let win = web_sys::window()?;
                let options = gloo::events::EventListenerOptions::run_in_capture_phase();
                let (a, b, c) = (pre.clone(), code.clone(), rendered.clone());
                let scroll = EventListener::new_with_options(&win, "scroll", options, move |_| {
                    follow_view(&a, &b, total, full, &c)
                });
                let (a, b, c) = (pre.clone(), code.clone(), rendered.clone());
                let resize = EventListener::new(&win, "resize", move |_| follow_view(&a, &b, total, full, &c));
                Some((scroll, resize))
            });
            move || drop(listeners)
        });
    }
    let current = if rendered.window.end <= total { rendered.window } else { start() };
    Lines { pre, code, current, rendered, total, full }
}

/// Python with line numbers and highlighting; the selected function stands out. A long block
/// (more than [`FULL_MAX`] lines) renders only the lines near the view ([`use_lines`]), and follows
/// the scrolling of the page and of any box it is in.
#[function_component(CodeBlock)]
pub fn code_block(p: &CodeProps) -> Html {
    // Each line with the function it belongs to.
    let lines: Rc<Vec<(AttrValue, Option<AttrValue>)>> = use_memo(p.code.clone(), |code| {
        let mut owner: Vec<Option<AttrValue>> = vec![None; code.split_inclusive('\n').count()];
        for (name, a, b) in function_lines(code) {
            let name = AttrValue::from(name);
            for o in owner.iter_mut().take(b).skip(a) {
                *o = Some(name.clone());
            }
        }
        code.split_inclusive('\n').zip(owner).map(|(l, o)| (AttrValue::from(l.to_string()), o)).collect()
    });
    let total = lines.len();
    let win = use_lines(&p.code, total, FULL_MAX, p.fill);
    let current = win.current;
    // Bring the selected function into view.
    {
        let (win, lines) = (win.clone(), lines.clone());
        use_effect_with((p.selected.clone(), p.code.clone()), move |(target, _)| {
            if let Some(t) = target {
                if let Some(i) = lines.iter().position(|(_, f)| f.as_ref() == Some(t)) {
                    win.scroll_to(i);
                }
            }
        });
    }
    // Bring the first marked line into view.
    {
        let win = win.clone();
        use_effect_with((p.marked.clone(), p.code.clone()), move |(marked, _)| {
            if let Some(&first) = marked.as_ref().and_then(|m| m.iter().min()) {
                win.scroll_to(first.saturating_sub(1));
            }
        });
    }
    let (style, data_window) = win.attrs(0);
    let start = current.start;
    html! {
        <pre id={p.id.clone()} class="code" ref={win.pre.clone()} data-lines={total.to_string()}><code ref={win.code.clone()} {style}
            data-window={data_window}>
            { for lines[current.start..current.end].iter().enumerate().map(|(k, (text, f))| { let i = start + k; html! {
                <Line key={i} text={text.clone()}
                    selected={f.is_some() && f == &p.selected}
                    hovered={f.is_some() && f == &p.hovered}
                    function={f.clone()}
                    on_select={p.on_select.clone()}
                    state={p.states.as_ref().and_then(|s| s.get(i).cloned())}
                    on_why={p.on_why.clone()}
                    marked={p.marked.as_ref().is_some_and(|m| m.contains(&(i + 1)))}
                    renamed={p.renamed.clone()} />
            } }) }
        </code></pre>
    }
}

#[derive(Properties, PartialEq)]
pub struct DiffProps {
    pub id: AttrValue,
    pub old: AttrValue,
    pub new: AttrValue,
}

/// A unified diff of two programs (three lines of context), one `<span>` a row.
#[function_component(DiffView)]
pub fn diff_view(p: &DiffProps) -> Html {
    let rows = use_memo((p.old.clone(), p.new.clone()), |(old, new)| diff_rows(old, new));
    html! {
        <pre id={p.id.clone()} class="code diff"><code>
            { for rows.iter().map(|(class, text)| html! { <span class={*class}>{ text.clone() }</span> }) }
        </code></pre>
    }
}

/// Rows of a unified diff, each with its class: `diff-add`, `diff-del`, `diff-hunk` or `diff-same`.
pub fn diff_rows(old: &str, new: &str) -> Vec<(&'static str, String)> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut rows = Vec::new();
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        rows.push(("diff-hunk", format!("{}\n", hunk.header())));
        for change in hunk.iter_changes() {
            let (class, sign) = match change.tag() {
                similar::ChangeTag::Delete => ("diff-del", '-'),
                similar::ChangeTag::Insert => ("diff-add", '+'),
                similar::ChangeTag::Equal => ("diff-same", ' '),
            };
            let mut text = format!("{sign}{}", change.value());
            if !text.ends_with('\n') {
                text.push('\n');
            }
            rows.push((class, text));
        }
    }
    if rows.is_empty() {
        rows.push(("diff-same", "(no difference)\n".to_string()));
    }
    rows
}

#[derive(Properties, PartialEq)]
pub struct CopyProps {
    pub id: AttrValue,
    pub label: AttrValue,
    pub text: AttrValue,
}

/// A button that copies a text to the clipboard and says so.
#[function_component(CopyButton)]
pub fn copy_button(p: &CopyProps) -> Html {
    let copied = use_state(|| None::<bool>);
    let onclick = {
        let text = p.text.clone();
        let copied = copied.clone();
        Callback::from(move |_: MouseEvent| copied.set(Some(copy_to_clipboard(&text))))
    };
    let label = match *copied {
        Some(true) => "Copied".to_string(),
        Some(false) => "Copy failed: select the text".to_string(),
        None => p.label.to_string(),
    };
    html! { <button id={p.id.clone()} type="button" class="button small" {onclick} data-copied={copied.map(|c| c.to_string())}>{ label }</button> }
}

/// Ask the browser to copy a text (`navigator.clipboard.writeText`); false when it has no clipboard.
pub fn copy_to_clipboard(text: &str) -> bool {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else { return false };
    let navigator = window.navigator();
    let nav: &wasm_bindgen::JsValue = navigator.as_ref();
    let Ok(clipboard) = js_sys::Reflect::get(nav, &"clipboard".into()) else { return false };
    if clipboard.is_undefined() || clipboard.is_null() {
        return false;
    }
    let Ok(write) = js_sys::Reflect::get(&clipboard, &"writeText".into()) else { return false };
    let Some(write) = write.dyn_ref::<js_sys::Function>() else { return false };
    write.call1(&clipboard, &text.into()).is_ok()
}
