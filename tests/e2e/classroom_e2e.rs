//! End to end in headless Chromium against the real `cabrito serve`: the task page's classroom
//! stories (issue 30) on one projector screen (1280×720, light, dark and large type) and on a phone
//! (390×844). Each story's named elements must lie inside the window (their boxes, not merely in the
//! page), and each step leaves a screenshot in test-artifacts/:
//!
//! 1. understand: the one-sentence task, the code and the call graph on the first screen; the full
//!    statement one click away;
//! 2. solve by hand: "Your solution" opens the lazily fetched code editor (CodeMirror: line numbers,
//!    Python highlighting, typing, undo, search), the diff against the starter one click away;
//! 3. grade: every failing rubric item with its reason in view (in large type too), the passing ones folded, the worker
//!    in one line, the hidden tests' verdict in view with the static one; a rubric line link selects
//!    its line in the editor;
//! 6. runtime guards end their own line, never-run lines look different by more than colour, merge
//!    columns wrap long lines (with a continuation mark) instead of cutting them, the data-flow
//!    graph is laid out for its box (and zooms), on a projector and a phone, renamed variables are
//!    marked in the code;
//! 8. a malformed link names every problem and opens the nearest task;
//! 9. inline code is code, plurals are right;
//!
//! and hostile input through the editor (a paste of several megabytes, binary bytes, a binary file
//! dropped): a clear message, the answer unchanged, the page alive.
//!
//! Needs what tests/browser_e2e.rs needs (dist/, chromedriver, Chromium). Without them the test is
//! skipped with a message, except under CI.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use crate::viewport::{in_view, open, outside, spec};
use browser::*;
use cabrito_gen::task::{generate, link};
use cabrito_gen::TaskSpec;
use serde_json::{json, Value};
use thirtyfour::prelude::*;

/// Make the page (not the window around it) exactly `size`.
async fn page_size(driver: &WebDriver, size: (u32, u32)) -> Res {
    let inner = js(driver, "return [innerWidth, innerHeight];", vec![]).await?;
    let (iw, ih) = (inner[0].as_i64().unwrap_or(0), inner[1].as_i64().unwrap_or(0));
    let rect = driver.get_window_rect().await?;
    driver
        .set_window_rect(0, 0, (rect.width + size.0 as i64 - iw) as u32, (rect.height + size.1 as i64 - ih) as u32)
        .await?;
    let now = js(driver, "return [innerWidth, innerHeight];", vec![]).await?;
    if now != json!([size.0, size.1]) {
        return Err(format!("the page is {now}, not {size:?}").into());
    }
    Ok(())
}

async fn shot(s: &Session, name: &str) -> Res {
    s.driver.screenshot(&s.shots.join(format!("e2e-classroom-{name}.png"))).await?;
    Ok(())
}

/// Switch the theme with the header's toggle, or large type with its button.
async fn set_look(driver: &WebDriver, dark: bool, large: bool) -> Res {
    js(
        driver,
        "const root = document.documentElement; \
         const dark = (root.getAttribute('data-theme') || (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light')) === 'dark'; \
         if (dark !== arguments[0]) document.getElementById('theme-toggle').click(); \
         const large = root.getAttribute('data-large-type') === 'on'; \
         if (large !== arguments[1]) document.getElementById('large-toggle').click(); return true;",
        vec![json!(dark), json!(large)],
    )
    .await?;
    wait_for(
        driver,
        "the theme and type size",
        "const root = document.documentElement; return (root.getAttribute('data-theme') === 'dark') === arguments[0] \
         && (root.getAttribute('data-large-type') === 'on') === arguments[1];",
        5,
    )
    .await
    .or_else(|_| Ok::<Value, Box<dyn std::error::Error>>(Value::Null))?;
    Ok(())
}

/// The answer as the page holds it (`#solution.value`: the text box, or the editor's text).
async fn answer(driver: &WebDriver) -> Res<String> {
    let v = js(driver, "const t = document.getElementById('solution'); return t ? t.value : null;", vec![]).await?;
    v.as_str().map(str::to_string).ok_or_else(|| "no #solution on the page".into())
}

/// Open "Your solution" and wait for the code editor to be mounted in it.
async fn open_editor(driver: &WebDriver) -> Res {
    browser::click_id(driver, "tab-solution").await?;
    wait_for(
        driver,
        "the code editor",
        "const h = document.getElementById('solution'); return !!h && !!h.cabritoEditor && !!h.querySelector('.cm-content');",
        30,
    )
    .await?;
    Ok(())
}

/// Every element `selector` matches shown whole: not cut by a box that scrolls or clips it (the
/// window check of [`in_view`] cannot see a panel's own scroller cutting an item at its edge).
async fn unclipped(driver: &WebDriver, what: &str, selector: &str) -> Res {
    let cut = js(
        driver,
        "const out = []; for (const e of document.querySelectorAll(arguments[0])) { const r = e.getBoundingClientRect(); \
           for (let a = e.parentElement; a; a = a.parentElement) { if (getComputedStyle(a).overflowY === 'visible') continue; \
             const b = a.getBoundingClientRect(); const top = b.top + a.clientTop, bottom = top + a.clientHeight; \
             if (r.top < top - 0.5 || r.bottom > bottom + 0.5) { out.push(`${e.textContent.slice(0, 40)} at ${Math.round(r.top)}–${Math.round(r.bottom)} is cut by ${a.id || a.className} (${Math.round(top)}–${Math.round(bottom)})`); break; } } } \
         return out.join('; ');",
        vec![json!(selector)],
    )
    .await?;
    match cut.as_str() {
        Some("") => Ok(()),
        _ => Err(format!("{what}: {cut}").into()),
    }
}

/// Stories 1, 2 and 3 on one task, at the window's size, with screenshots named after `look`.
async fn stories(s: &Session, task: &TaskSpec, look: &str, first: bool) -> Res {
    let driver = &s.driver;
    open(driver, &s.base, &link(task), task).await?;
    // 1. Understand: the sentence, the code and the graph together, on the graph by default.
    // (A page that showed another panel keeps it for the same task: the first look checks the default.)
    if first {
        let panel = js(driver, "return document.getElementById('side').dataset.panel;", vec![]).await?;
        if panel != json!("graph") {
            return Err(format!("{look}: the task opens on the {panel} panel, not the call graph").into());
        }
    } else {
        browser::click_id(driver, "panel-tab-graph").await?;
        browser::click_id(driver, "tab-starter").await?;
    }
    wait_for(
        driver,
        "the call graph",
        "return !!document.querySelector('#panel-graph svg .node, #panel-graph svg g');",
        30,
    )
    .await?;
    in_view(
        driver,
        &format!("{look}: understand"),
        &["#what-to-do", "#starter-code", "#panel-graph .graph-scroll", "#read-statement"],
    )
    .await?;
    shot(s, &format!("1-understand-{look}")).await?;
    browser::click_id(driver, "read-statement").await?;
    wait_for(driver, "the statement", "return document.getElementById('side').dataset.panel === 'statement';", 5)
        .await?;
    // The statement is long: its top is in view (the box scrolls inside its panel), with the code.
    in_view(driver, &format!("{look}: the statement"), &["top:#prompt", "#copy-statement", "#starter-code"]).await?;
    shot(s, &format!("1-statement-{look}")).await?;

    // 2. Solve by hand: the editor, from the starter, typed into, undone, searched; the diff.
    open_editor(driver).await?;
    // An empty answer offers the starter (a look after the first one empties what it left).
    js(driver, browser::SET_ANSWER, vec![json!("")]).await?;
    browser::click_id(driver, "start-from-starter").await?;
    let starter = generate(task)?.starter_code;
    wait_for(driver, "the starter in the editor", "return document.getElementById('solution').value.length > 0;", 10)
        .await?;
    if answer(driver).await? != starter {
        return Err(format!("{look}: 'Start from the starter' did not put the starter in the editor").into());
    }
    // Python highlighting (the editor parses in the background).
    wait_for(driver, "the editor's highlighting", "return !!document.querySelector('#solution .tok-keyword');", 10)
        .await?;
    in_view(
        driver,
        &format!("{look}: the editor"),
        &[
            "#solution",
            "#solution .cm-line",
            "top:#solution .cm-gutters",
            "#solution .tok-keyword",
            "#solution-diff-tab",
        ],
    )
    .await?;
    if first {
        // Typing at the end, then undoing it.
        js(driver, "document.querySelector('#solution .cm-content').focus(); return true;", vec![]).await?;
        driver.action_chain().key_down(Key::Control).send_keys(Key::End).key_up(Key::Control).perform().await?;
        driver.action_chain().send_keys(Key::Enter).send_keys("x_typed = 1").perform().await?;
        wait_for(
            driver,
            "the typed line",
            "return document.getElementById('solution').value.includes('x_typed = 1');",
            5,
        )
        .await?;
        // Undo (the editor may have kept the line break and the text as two steps).
        for _ in 0..3 {
            driver.action_chain().key_down(Key::Control).send_keys("z").key_up(Key::Control).perform().await?;
            if answer(driver).await? == starter {
                break;
            }
        }
        if answer(driver).await? != starter {
            return Err(format!("{look}: undo did not bring the starter back").into());
        }
        // Search: Ctrl+F opens the editor's search panel.
        driver.action_chain().key_down(Key::Control).send_keys("f").key_up(Key::Control).perform().await?;
        wait_for(driver, "the search panel", "return !!document.querySelector('#solution .cm-search');", 5).await?;
        in_view(driver, &format!("{look}: the search panel"), &["#solution .cm-search"]).await?;
        shot(s, &format!("2-search-{look}")).await?;
        driver.action_chain().send_keys(Key::Escape).perform().await?;
        // Indentation: Enter after a `def` line indents the next one.
        js(
            driver,
            "const h = document.getElementById('solution').cabritoEditor; h.set('def f(x):'); h.goto(1); return true;",
            vec![],
        )
        .await?;
        driver.action_chain().send_keys(Key::End).send_keys(Key::Enter).send_keys("return x").perform().await?;
        let indented = wait_for(
            driver,
            "the indented line",
            "const v = document.getElementById('solution').value; return v.includes('\\n') ? v : null;",
            5,
        )
        .await?;
        if indented != json!("def f(x):\n    return x") {
            return Err(format!("{look}: Enter after a def line gave {indented}").into());
        }
        js(
            driver,
            "document.getElementById('solution').cabritoEditor.set(arguments[0]); return true;",
            vec![json!(starter)],
        )
        .await?;
    }
    browser::click_id(driver, "solution-diff-tab").await?;
    wait_for(driver, "the diff against the starter", "return !!document.getElementById('solution-diff');", 5).await?;
    in_view(driver, &format!("{look}: the diff against the starter"), &["#solution-diff"]).await?;
    browser::click_id(driver, "solution-edit").await?;

    // 3. Grade: failing items first with their reasons, passing ones folded, the worker in one line.
    browser::click_id(driver, "panel-tab-grade").await?;
    wait_for(
        driver,
        "the starter's failing rubric",
        "const v = document.getElementById('static-verdict'); return !!v && v.dataset.passed === 'false';",
        60,
    )
    .await?;
    wait_for(
        driver,
        "the worker",
        "const w = document.getElementById('worker-status'); return w && w.dataset.worker === 'connected';",
        30,
    )
    .await?;
    let worker = js(driver, "return document.getElementById('worker-status').textContent;", vec![]).await?;
    if !worker.as_str().is_some_and(|w| w.starts_with("worker: connected, ") && w.len() < 80) {
        return Err(format!("{look}: the worker's line reads {worker}").into());
    }
    let order = js(
        driver,
        "const items = [...document.querySelectorAll('#static-verdict .item')]; \
         const fails = items.filter(i => i.dataset.passed === 'false'); \
         const firstPass = items.findIndex(i => i.dataset.passed === 'true'); \
         const lastFail = items.map(i => i.dataset.passed).lastIndexOf('false'); \
         const folded = document.getElementById('rubric-passing'); \
         return {fails: fails.length, ordered: firstPass < 0 || lastFail < firstPass, folded: !folded || !folded.open};",
        vec![],
    )
    .await?;
    if order.get("fails").and_then(Value::as_u64).unwrap_or(0) == 0
        || order.get("ordered") != Some(&json!(true))
        || order.get("folded") != Some(&json!(true))
    {
        return Err(format!("{look}: the rubric's order: {order}").into());
    }
    // The verdict and every failing item with its reason at once, in large type too.
    let reasons = "all:#static-verdict .item.fail .reason";
    in_view(
        driver,
        &format!("{look}: the static verdict"),
        &[
            "#static-verdict > p",
            "all:#static-verdict .item.fail",
            reasons,
            "#run-hidden",
            "#worker-status",
            "#solution",
        ],
    )
    .await?;
    unclipped(driver, &format!("{look}: the static verdict"), "#static-verdict .item.fail").await?;
    browser::click_id(driver, "run-hidden").await?;
    wait_for(
        driver,
        "the hidden tests' verdict",
        "const v = document.getElementById('hidden-verdict'); return v && v.dataset.passed;",
        60,
    )
    .await?;
    in_view(
        driver,
        &format!("{look}: both verdicts"),
        &["#hidden-verdict summary", "#static-verdict > p", "all:#static-verdict .item.fail", reasons],
    )
    .await?;
    unclipped(driver, &format!("{look}: both verdicts"), "#static-verdict .item.fail").await?;
    shot(s, &format!("3-grade-{look}")).await?;
    // A rubric line link selects its line in the editor, in view.
    let jump = js(
        driver,
        "const b = document.querySelector('#static-verdict .item.fail .line-link'); if (!b) return null; b.click(); return +b.dataset.line;",
        vec![],
    )
    .await?;
    if let Some(line) = jump.as_u64() {
        let want = starter.lines().nth(line as usize - 1).unwrap_or_default().to_string();
        let got = wait_for(
            driver,
            "the linked line selected",
            "const s = getSelection().toString(); return s.length ? s : null;",
            5,
        )
        .await?;
        if got.as_str().map(str::trim) != Some(want.trim()) {
            return Err(format!("{look}: the line link {line} selected {got}, not {want:?}").into());
        }
        in_view(driver, &format!("{look}: the linked line"), &["#solution .cm-activeLine", "#static-verdict > p"])
            .await?;
    }
    Ok(())
}

/// Hostile input through the editor: a paste of several megabytes and binary bytes are refused with
/// a message, as is a binary file dropped on it; the answer stays and the page lives.
async fn hostile(s: &Session) -> Res {
    let driver = &s.driver;
    let before = answer(driver).await?;
    let paste = "const c = document.querySelector('#solution .cm-content'); const dt = new DataTransfer(); \
                 dt.setData('text/plain', arguments[0]); \
                 c.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true})); return true;";
    let huge = "x = 1  # a long paste\n".repeat(200_000);
    js(driver, paste, vec![json!(huge)]).await?;
    let notice = wait_for(
        driver,
        "the refusal of a huge paste",
        "const n = document.getElementById('editor-notice'); return n && n.textContent;",
        10,
    )
    .await?;
    if !notice.as_str().is_some_and(|n| n.contains("MB") && n.contains("not taken")) {
        return Err(format!("a 4 MB paste said {notice}").into());
    }
    if answer(driver).await? != before {
        return Err("a refused paste changed the answer".into());
    }
    shot(s, "hostile-huge-paste").await?;
    js(driver, paste, vec![json!("x = 1\u{0}\u{1}\u{2}y")]).await?;
    wait_for(
        driver,
        "the refusal of binary bytes",
        "const n = document.getElementById('editor-notice'); return n && n.textContent.includes('binary');",
        10,
    )
    .await?;
    if answer(driver).await? != before {
        return Err("pasted binary bytes changed the answer".into());
    }
    // A binary file dropped on the editor's box.
    js(
        driver,
        "const dt = new DataTransfer(); dt.items.add(new File([new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 0, 0xff, 0xfe])], 'a.out')); \
         document.querySelector('.solution-editor').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true})); return true;",
        vec![],
    )
    .await?;
    wait_for(
        driver,
        "the refusal of a binary file",
        "const n = document.getElementById('editor-notice'); return n && n.textContent.includes('NUL');",
        10,
    )
    .await?;
    if answer(driver).await? != before {
        return Err("a dropped binary file changed the answer".into());
    }
    // The page still works: typing is taken and clears the notice.
    js(
        driver,
        "document.getElementById('solution').cabritoEditor.set(arguments[0] + '\\n# still alive\\n'); return true;",
        vec![json!(before)],
    )
    .await?;
    wait_for(driver, "the editor after the refusals", "return document.getElementById('solution').value.includes('still alive') && !document.getElementById('editor-notice');", 10)
        .await?;
    console_clean(driver, "hostile input through the editor").await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn e2e_classroom_task_page_on_a_projector() {
    run_scenario("classroom task page", (1280, 720), "e2e-classroom-failure.png", async |s: &Session| {
        let driver = &s.driver;
        page_size(driver, (1280, 720)).await?;
        let task = spec("v=1&kind=add_parameter&domain=math&axis=traversal&n=25&seed=3");
        // The editor is fetched only once "Your solution" opens.
        driver.goto(format!("{}{}", s.base, link(&task))).await?;
        open(driver, &s.base, &link(&task), &task).await?;
        let early = js(
            driver,
            "return performance.getEntriesByType('resource').some(e => e.name.endsWith('/editor.js'));",
            vec![],
        )
        .await?;
        if early != json!(false) {
            return Err("the editor's script was fetched before the reader opened the editor".into());
        }
        stories(s, &task, "light", true).await?;
        hostile(s).await?;
        set_look(driver, true, false).await?;
        stories(s, &task, "dark", false).await?;
        set_look(driver, false, true).await?;
        stories(s, &task, "large", false).await?;
        set_look(driver, false, false).await?;
        console_clean(driver, "the classroom stories").await?;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn e2e_classroom_kinds_links_and_words() {
    run_scenario("classroom kinds, links and words", (1280, 720), "e2e-classroom-kinds-failure.png", async |s: &Session| {
        let driver = &s.driver;
        page_size(driver, (1280, 720)).await?;
        // 6. Runtime: a guard's "why?" marker ends its own line; never-run lines are shaded and barred.
        let runtime = spec("v=1&kind=add_parameter&domain=math&axis=runtime&n=5&seed=1");
        open(driver, &s.base, &link(&runtime), &runtime).await?;
        let lines = wait_for(
            driver,
            "a guard line and a never-run line",
            "const g = document.querySelector('#starter-code .line.guard:not(.never-runs)'); \
             const n = document.querySelector('#starter-code .line.never-runs'); \
             const plain = [...document.querySelectorAll('#starter-code .line')].find(l => !l.className.includes('guard') && !l.className.includes('never') && l.textContent.trim()); \
             if (!g || !n || !plain) return null; \
             const h = (e) => e.getBoundingClientRect().height; const cs = (e) => getComputedStyle(e); \
             return {guard: h(g), plain: h(plain), mark: !!g.querySelector('.why-mark'), \
                     neverBg: cs(n).backgroundColor, plainBg: cs(plain).backgroundColor, bar: cs(n).boxShadow, italic: cs(n).fontStyle};",
            30,
        )
        .await?;
        let f = |k: &str| lines.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
        if lines.get("mark") != Some(&json!(true)) || (f("guard") - f("plain")).abs() > 1.0 {
            return Err(format!("a guard line with its marker is not one line high: {lines}").into());
        }
        if lines.get("neverBg") == lines.get("plainBg") || lines.get("bar") == Some(&json!("none")) || lines.get("italic") != Some(&json!("italic")) {
            return Err(format!("never-run lines differ only by colour: {lines}").into());
        }
        in_view(driver, "runtime", &["#what-to-do", "#starter-code", "#panel-graph .graph-scroll"]).await?;
        s.driver.screenshot(&s.shots.join("e2e-classroom-6-runtime.png")).await?;

        // Merge Codebases: the class columns scroll sideways instead of cutting their lines.
        let merge = spec("v=1&kind=merge_codebases&n=25&seed=0");
        open(driver, &s.base, &link(&merge), &merge).await?;
        let cols = wait_for(
            driver,
            "the merge columns",
            "const c = [...document.querySelectorAll('.merge-code')]; if (c.length < 2) return null; \
             return c.map(e => ({x: getComputedStyle(e).overflowX, cut: e.scrollWidth > e.clientWidth + 1}));",
            30,
        )
        .await?;
        for c in cols.as_array().into_iter().flatten() {
            let x = c.get("x").and_then(Value::as_str).unwrap_or_default();
            if c.get("cut") == Some(&json!(true)) && !matches!(x, "auto" | "scroll") {
                return Err(format!("a merge column cuts its lines: {cols}").into());
            }
        }
        // (Its sentence names the classes as code.)
        in_view(driver, "merge", &["#what-to-do", "#what-to-do code", "top:.merge-code", "#panel-graph .graph-scroll"]).await?;
        s.driver.screenshot(&s.shots.join("e2e-classroom-6-merge.png")).await?;

        // Renaming: the renamed variables are marked in the code.
        let renaming = spec("v=1&kind=variable_renaming&n=25&seed=0");
        open(driver, &s.base, &link(&renaming), &renaming).await?;
        let marked = wait_for(
            driver,
            "renamed variables marked in the code",
            "const m = [...document.querySelectorAll('#starter-code .renamed')]; return m.length ? m.map(e => e.textContent) : null;",
            30,
        )
        .await?;
        let task = generate(&renaming)?;
        let olds: Vec<String> = task.prompt.lines().filter_map(|l| l.strip_prefix("- `")?.split('`').next().map(str::to_string)).collect();
        for m in marked.as_array().into_iter().flatten() {
            if !olds.iter().any(|o| Some(o.as_str()) == m.as_str()) {
                return Err(format!("{m} is marked as renamed but the task renames {olds:?}").into());
            }
        }
        in_view(driver, "renaming", &["#what-to-do", "#starter-code .renamed"]).await?;
        s.driver.screenshot(&s.shots.join("e2e-classroom-6-renaming.png")).await?;

        // 9. Instruction following: requirements show their code as code, and the tab bar stays one row.
        let instructions = spec("v=1&kind=add_parameter&domain=math&axis=instructions&n=25&seed=0");
        open(driver, &s.base, &link(&instructions), &instructions).await?;
        browser::click_id(driver, "panel-tab-requirements").await?;
        let words = wait_for(
            driver,
            "the requirements",
            "const r = [...document.querySelectorAll('.req-sentence')]; if (!r.length) return null; \
             const tabs = [...document.querySelectorAll('#side .side-tabs .tab')].map(t => Math.round(t.getBoundingClientRect().top)); \
             const knobs = [...document.querySelectorAll('.controls > .knobs > *')].map(e => e.getBoundingClientRect()); \
             const firstBottom = knobs.length ? knobs[0].bottom : 0; \
             const tabBar = document.querySelector('#side .side-tabs'); \
             return {backticks: r.filter(e => e.textContent.includes('`')).length, code: document.querySelectorAll('.req-sentence code').length, \
                     rows: new Set(tabs).size, controls: knobs.every(k => k.top < firstBottom) ? 1 : 2, \
                     tabsCut: tabBar.scrollWidth > tabBar.clientWidth + 1};",
            30,
        )
        .await?;
        if words.get("backticks") != Some(&json!(0)) || words.get("code").and_then(Value::as_u64).unwrap_or(0) == 0 {
            return Err(format!("requirements show raw backticks: {words}").into());
        }
        if words.get("rows") != Some(&json!(1)) || words.get("controls") != Some(&json!(1)) || words.get("tabsCut") != Some(&json!(false)) {
            return Err(format!("the tab bar or the controls wrap: {words}").into());
        }
        in_view(driver, "instructions", &["#what-to-do", "#starter-code", "#panel-tab-requirements", ".req-sentence code"]).await?;
        s.driver.screenshot(&s.shots.join("e2e-classroom-9-requirements.png")).await?;
        let stats = js(driver, "return document.getElementById('stats').textContent;", vec![]).await?;
        if stats.as_str().is_some_and(|t| t.contains(" 1 functions") || t.starts_with("1 functions")) {
            return Err(format!("a plural is wrong: {stats}").into());
        }

        // 8. A malformed link names every problem and opens the nearest valid task.
        driver.goto(format!("{}#/task?v=1&kind=nope&n=-3", s.base)).await?;
        let message = wait_for(
            driver,
            "the bad link's message",
            "const m = document.getElementById('error-message'); return m && document.getElementById('task') ? m.textContent : null;",
            30,
        )
        .await?;
        let text = message.as_str().unwrap_or_default();
        if !(text.contains("nope") && text.contains("-3") && text.starts_with("2 problems")) {
            return Err(format!("the bad link says {message}").into());
        }
        in_view(driver, "a bad link", &["#error-message", "#nearest-link", "#starter-code"]).await?;
        s.driver.screenshot(&s.shots.join("e2e-classroom-8-bad-link.png")).await?;
        console_clean(driver, "the kinds, links and words").await?;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn e2e_classroom_task_page_on_a_phone() {
    run_scenario("classroom phone", (390, 844), "e2e-classroom-phone-failure.png", async |s: &Session| {
        let driver = &s.driver;
        page_size(driver, (390, 844)).await?;
        let task = spec("v=1&kind=add_parameter&domain=math&axis=traversal&n=25&seed=3");
        open(driver, &s.base, &link(&task), &task).await?;
        // What to do and the code start on the first screen, in that order.
        let at = js(
            driver,
            "const top = (s) => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().top : null; }; \
             return {todo: top('#what-to-do'), code: top('#starter-code'), side: top('#side'), controls: top('.controls')};",
            vec![],
        )
        .await?;
        let f = |k: &str| at.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
        if !(f("todo") < f("code") && f("code") < 844.0 - 120.0 && f("code") < f("side")) {
            return Err(format!("the phone's first screen: {at}").into());
        }
        let why = outside(driver, &["#what-to-do"], false).await?;
        if !why.is_empty() {
            return Err(format!("the phone: {why}").into());
        }
        s.driver.screenshot(&s.shots.join("e2e-classroom-phone-1.png")).await?;
        // Grading as a thumb does it: scroll to the grade panel, tap "Paste starter", then "Run hidden
        // tests". Each verdict fills in under the button just tapped, and nothing moves the page: the
        // browser's scroll anchoring once pinned a line further down and threw both off the top.
        open_editor(driver).await?;
        browser::click_id(driver, "panel-tab-grade").await?;
        js(driver, "document.getElementById('run-hidden').scrollIntoView({block: 'center'}); return true;", vec![]).await?;
        browser::click_id(driver, "use-starter").await?;
        wait_for(driver, "the verdict", "const v = document.getElementById('static-verdict'); return v && v.dataset.passed === 'false';", 60).await?;
        let why = outside(driver, &["#run-hidden", "#static-verdict > p"], false).await?;
        if !why.is_empty() {
            return Err(format!("the phone's static verdict, after Paste starter: {why}").into());
        }
        s.driver.screenshot(&s.shots.join("e2e-classroom-phone-2.png")).await?;
        browser::click_id(driver, "run-hidden").await?;
        wait_for(driver, "the hidden tests' verdict", "const v = document.getElementById('hidden-verdict'); return v && v.dataset.passed;", 60).await?;
        let why = outside(driver, &["#run-hidden", "#hidden-verdict summary"], false).await?;
        if !why.is_empty() {
            return Err(format!("the phone's hidden verdict, after Run hidden tests: {why}").into());
        }
        s.driver.screenshot(&s.shots.join("e2e-classroom-phone-3.png")).await?;
        console_clean(driver, "the phone").await?;
        Ok(())
    })
    .await;
}

/// Merge Codebases' class columns: nothing cut (no column wider than its box, so long lines wrap),
/// a long line on several rows with its continuation mark, the differing lines marked by more than
/// colour (a bar and ≠); its data-flow graph laid out for its box (`data-fit`), every vertex inside
/// the box and the window, its names at least 8 px high, nothing to scroll to in the box.
async fn merge_readable(s: &Session, look: &str, one_screen: bool) -> Res {
    let driver = &s.driver;
    let cols = wait_for(
        driver,
        "the merge columns",
        "const c = [...document.querySelectorAll('.merge-code')]; if (c.length < 2) return null; \
         const lines = c.flatMap(e => [...e.querySelectorAll('.line')]); \
         const pitch = Math.min(...lines.map(l => l.getBoundingClientRect().height).filter(h => h > 0)); \
         const wrapped = lines.filter(l => l.getBoundingClientRect().height > 1.5 * pitch); \
         const cs = (e, p) => getComputedStyle(e, p); \
         const diff = document.querySelector('.merge-code .piece-diff'); \
         return {cut: c.filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.id), \
                 overflowing: lines.filter(l => l.getBoundingClientRect().right > l.closest('.merge-code').getBoundingClientRect().right + 1).length, \
                 wrapped: wrapped.length, \
                 marked: wrapped.filter(l => cs(l).backgroundImage.includes('repeating-linear-gradient')).length, \
                 numberFirst: wrapped.every(l => cs(l, '::before').textIndent === '0px' && cs(l).textIndent.startsWith('-')), \
                 diffBar: diff ? cs(diff).boxShadow : 'none', diffMark: diff ? cs(diff, '::after').content : ''};",
        30,
    )
    .await?;
    let n = |k: &str| cols.get(k).and_then(Value::as_u64).unwrap_or(u64::MAX);
    if cols.get("cut") != Some(&json!([])) || n("overflowing") != 0 {
        return Err(format!("{look}: a merge column cuts its lines: {cols}").into());
    }
    if n("wrapped") == 0 || n("marked") != n("wrapped") || cols.get("numberFirst") != Some(&json!(true)) {
        return Err(format!("{look}: long merge lines do not wrap with a mark: {cols}").into());
    }
    if cols.get("diffBar") == Some(&json!("none"))
        || !cols.get("diffMark").and_then(Value::as_str).is_some_and(|m| m.contains('≠'))
    {
        return Err(format!("{look}: differing lines are marked by colour alone: {cols}").into());
    }
    flow_fits(s, look, one_screen).await
}

/// The data-flow graph laid out for its box: see [`merge_readable`].
async fn flow_fits(s: &Session, look: &str, one_screen: bool) -> Res {
    let driver = &s.driver;
    let fit = wait_for(
        driver,
        "the data-flow graph laid out for its box",
        "const svg = document.querySelector('#panel-graph svg#data-flow[data-fit]'); if (!svg) return null; \
         const box = svg.closest('.graph-scroll'); const b = box.getBoundingClientRect(); \
         const nodes = [...svg.querySelectorAll('.flow-node circle')].map(c => c.getBoundingClientRect()); \
         const labels = [...svg.querySelectorAll('.flow-node text')].map(t => t.getBoundingClientRect().height); \
         return {fit: svg.dataset.fit, nodes: nodes.length, \
                 outside: nodes.filter(r => r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5).length, \
                 smallest: Math.min(...labels), scrolls: box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1, \
                 box: [Math.round(b.width), Math.round(b.height)]};",
        30,
    )
    .await?;
    if fit.get("outside") != Some(&json!(0))
        || fit.get("scrolls") != Some(&json!(false))
        || fit.get("nodes") == Some(&json!(0))
    {
        return Err(format!("{look}: the data-flow graph does not fit its box: {fit}").into());
    }
    if fit.get("smallest").and_then(Value::as_f64).unwrap_or(0.0) < 8.0 {
        return Err(format!("{look}: the data-flow graph's names are too small to read: {fit}").into());
    }
    if one_screen {
        in_view(
            driver,
            &format!("{look}: the data-flow graph"),
            &["#panel-graph .graph-scroll", "all:#panel-graph .flow-node circle"],
        )
        .await?;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn e2e_classroom_merge_readable_on_a_projector() {
    run_scenario("classroom merge", (1280, 720), "e2e-classroom-merge-failure.png", async |s: &Session| {
        let driver = &s.driver;
        page_size(driver, (1280, 720)).await?;
        let merge = spec("v=1&kind=merge_codebases&n=25&seed=0");
        open(driver, &s.base, &link(&merge), &merge).await?;
        for (look, dark, large) in [("light", false, false), ("dark", true, false), ("large", false, true)] {
            set_look(driver, dark, large).await?;
            // A new look changes the graph's box: its layout follows.
            merge_readable(s, look, true).await?;
            in_view(
                driver,
                &format!("{look}: merge"),
                &["#what-to-do", "top:.merge-code", "#panel-graph .graph-scroll"],
            )
            .await?;
            s.driver.screenshot(&s.shots.join(format!("e2e-classroom-merge-{look}.png"))).await?;
        }
        set_look(driver, false, false).await?;
        // Zoomable: "+" makes the drawing larger than its box (which then scrolls), "Fit" lays it
        // out for the box again.
        browser::click_id(driver, "zoom-in").await?;
        browser::click_id(driver, "zoom-in").await?;
        wait_for(
            driver,
            "the zoomed data-flow graph",
            "const svg = document.querySelector('svg#data-flow'); const box = svg.closest('.graph-scroll'); \
             return box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1;",
            5,
        )
        .await?;
        browser::click_id(driver, "zoom-reset").await?;
        flow_fits(s, "after Fit", true).await?;
        console_clean(driver, "the merge task").await?;
        Ok(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn e2e_classroom_merge_readable_on_a_phone() {
    run_scenario("classroom merge phone", (390, 844), "e2e-classroom-merge-phone-failure.png", async |s: &Session| {
        let driver = &s.driver;
        page_size(driver, (390, 844)).await?;
        let merge = spec("v=1&kind=merge_codebases&n=25&seed=0");
        open(driver, &s.base, &link(&merge), &merge).await?;
        for (look, dark) in [("phone-light", false), ("phone-dark", true)] {
            set_look(driver, dark, false).await?;
            js(driver, "document.querySelector('.merge-code').scrollIntoView({block: 'start'}); return true;", vec![])
                .await?;
            s.driver.screenshot(&s.shots.join(format!("e2e-classroom-merge-{look}-code.png"))).await?;
            js(
                driver,
                "document.querySelector('#panel-graph .graph-scroll').scrollIntoView({block: 'center'}); return true;",
                vec![],
            )
            .await?;
            merge_readable(s, look, false).await?;
            let why =
                outside(driver, &["#panel-graph .graph-scroll", "all:#panel-graph .flow-node circle"], false).await?;
            if !why.is_empty() {
                return Err(format!("{look}: the data-flow graph: {why}").into());
            }
            s.driver.screenshot(&s.shots.join(format!("e2e-classroom-merge-{look}-graph.png"))).await?;
        }
        console_clean(driver, "the merge task on a phone").await?;
        Ok(())
    })
    .await;
}
