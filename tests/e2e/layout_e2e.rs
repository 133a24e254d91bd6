//! End to end in headless Chromium against the real `cabrito serve`: the task page's one-screen
//! layout (issue 14 item 1). At 1280×720 (a projector) and 1440×900 (a laptop), for a traversal
//! task, a runtime task and an instruction-following task: paste a wrong answer and see the rubric
//! and the answer line its failing item points at inside the window with the page not scrolled;
//! follow the line link and see the line; switch panels and code tabs by keyboard (never while
//! typing); open the help dialog with `?` and close it with Escape (focus back where it was); large
//! type still fits; `panel=` in a link opens that panel, an unknown one shows a banner; the runtime
//! "why this branch?" is reachable by keyboard; the controls fold the settings that do not apply; the
//! agents page (watching and walking) fits the window the same way.
//!
//! Needs what tests/browser_e2e.rs needs (dist/, chromedriver, Chromium). Without them the test is
//! skipped with a message, except under CI.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use crate::viewport::{in_view, open, spec};
use browser::*;
use cabrito_gen::task::link;
use serde_json::{json, Value};
use std::path::Path;
use thirtyfour::prelude::*;

/// Which side panel is on show (`#side[data-panel]`), and whether exactly its body is visible.
async fn shown_panel(driver: &WebDriver) -> Res<String> {
    let v = js(
        driver,
        "const s = document.getElementById('side'); const p = s.dataset.panel; \
         const open = [...s.querySelectorAll('[role=tabpanel]')].filter(b => !b.hidden).map(b => b.id); \
         const tab = document.getElementById('panel-tab-' + p); \
         return (open.length === 1 && open[0] === 'panel-' + p && tab.getAttribute('aria-selected') === 'true') ? p : `inconsistent: ${p} ${open}`;",
        vec![],
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

/// Press keys on whatever has the focus (the page's body after a click on nothing).
async fn press(driver: &WebDriver, keys: &str) -> Res {
    driver.action_chain().send_keys(keys).perform().await?;
    Ok(())
}

async fn blur(driver: &WebDriver) -> Res {
    js(driver, "if (document.activeElement) document.activeElement.blur();", vec![]).await?;
    Ok(())
}

/// Paste the starter (a wrong answer), then check that the rubric's failing item and the answer
/// line it links to are in the window together, and that following the link shows and selects it.
async fn wrong_answer_to_line(driver: &WebDriver, what: &str) -> Res {
    press_panel(driver, "r", "grade").await?;
    browser::click_id(driver, "use-starter").await?;
    wait_for(
        driver,
        "a failing rubric item with a line link",
        "const v = document.getElementById('static-verdict'); \
         return !!v && v.dataset.passed === 'false' && !!v.querySelector('.item[data-passed=\"false\"] .line-link');",
        60,
    )
    .await?;
    // The failing item's link, brought into view inside its own panel (never the page).
    js(
        driver,
        "document.querySelector('#static-verdict .item[data-passed=\"false\"] .line-link').scrollIntoView({block: 'nearest'});",
        vec![],
    )
    .await?;
    in_view(
        driver,
        &format!("{what}: the rubric and its failing item's link, beside the code"),
        &["#verdicts", "#static-verdict > p", "#static-verdict .item[data-passed=\"false\"] .line-link", "#code-panel"],
    )
    .await?;
    // Following it opens "Your solution" in the code editor at that line, selected and in view.
    let answer = js(driver, "return document.getElementById('solution').value;", vec![]).await?;
    let (line, selected) =
        browser::follow_line_link(driver, "#static-verdict .item[data-passed=\"false\"] .line-link").await?;
    let want = answer.as_str().unwrap_or_default().split('\n').nth(line as usize - 1).unwrap_or_default().to_string();
    if selected != want {
        return Err(format!("{what}: following the line link {line} selected {selected:?}, not {want:?}").into());
    }
    in_view(
        driver,
        &format!("{what}: after following the line link"),
        &["#solution", "#verdicts", "#static-verdict > p"],
    )
    .await?;
    Ok(())
}

/// Press a panel's key (with the focus on the page, not in a box) and check that it opened.
async fn press_panel(driver: &WebDriver, key: &str, panel: &str) -> Res {
    blur(driver).await?;
    press(driver, key).await?;
    let got = wait_for(
        driver,
        &format!("the {panel} panel after pressing {key}"),
        &format!("return document.getElementById('side').dataset.panel === '{panel}' ? 'yes' : null;"),
        5,
    )
    .await;
    if got.is_err() {
        return Err(
            format!("pressing {key} did not open the {panel} panel (on show: {})", shown_panel(driver).await?).into()
        );
    }
    let now = shown_panel(driver).await?;
    if now != panel {
        return Err(format!("after {key}: {now}").into());
    }
    // The link now names the panel, without a new history entry.
    let hash = js(driver, "return location.hash;", vec![]).await?;
    if !hash.as_str().unwrap_or_default().ends_with(&format!("panel={panel}")) {
        return Err(format!("after {key} the link is {hash}, without panel={panel}").into());
    }
    // The grade panel is a lazily loaded module: wait for it (it loads at once when its tab is shown).
    if panel == "grade" {
        wait_for(driver, "the grade panel's module", "return !!document.getElementById('use-starter');", 30).await?;
    }
    Ok(())
}

/// The panels and code tabs by keyboard, never while typing in the answer.
async fn keyboard(driver: &WebDriver, what: &str, kind_panel: Option<(&str, &str)>) -> Res {
    let history = js(driver, "return history.length;", vec![]).await?;
    press_panel(driver, "g", "graph").await?;
    in_view(driver, &format!("{what}: the graph panel"), &["#panel-graph .graph-scroll", "#code-panel"]).await?;
    press_panel(driver, "s", "statement").await?;
    in_view(driver, &format!("{what}: the statement"), &["top:#prompt"]).await?;
    press_panel(driver, "p", "prompt").await?;
    press_panel(driver, "r", "grade").await?;
    press_panel(driver, "]", "prompt").await?;
    press_panel(driver, "[", "grade").await?;
    if let Some((key, panel)) = kind_panel {
        press_panel(driver, key, panel).await?;
    }
    if js(driver, "return history.length;", vec![]).await? != history {
        return Err(format!("{what}: switching panels added history entries").into());
    }
    // Code tabs: 2 the reference (behind its reveal), 3 the diff, 1 the starter; c focuses the code.
    for (key, tab) in [("2", "tab-reference"), ("3", "tab-diff"), ("1", "tab-starter")] {
        blur(driver).await?;
        press(driver, key).await?;
        wait_for(
            driver,
            &format!("the code tab {tab} after {key}"),
            &format!("return document.getElementById('{tab}').getAttribute('aria-selected') === 'true';"),
            5,
        )
        .await?;
    }
    blur(driver).await?;
    press(driver, "c").await?;
    wait_for(driver, "the focus in the code after c", "return !!document.activeElement.closest('#code-panel');", 5)
        .await?;
    // Typing in the answer (4 opens it in the code editor) is text, not shortcuts.
    press_panel(driver, "r", "grade").await?;
    blur(driver).await?;
    press(driver, "4").await?;
    wait_for(
        driver,
        "the code editor after 4",
        "const h = document.getElementById('solution'); return !!h && !!h.cabritoEditor && !!h.querySelector('.cm-content');",
        30,
    )
    .await?;
    js(driver, "document.getElementById('solution').cabritoEditor.set(''); return true;", vec![]).await?;
    driver.find(By::Css("#solution .cm-content")).await?.click().await?;
    press(driver, "gsp?").await?;
    wait_for(driver, "the typed text", "return document.getElementById('solution').value === 'gsp?';", 5).await.ok();
    let typed = js(
        driver,
        "return {value: document.getElementById('solution').value, panel: document.getElementById('side').dataset.panel, \
                 help: document.getElementById('help').open};",
        vec![],
    )
    .await?;
    if typed != json!({"value": "gsp?", "panel": "grade", "help": false}) {
        return Err(format!("{what}: keys typed in the answer box acted as shortcuts: {typed}").into());
    }
    // Nor with Ctrl held.
    blur(driver).await?;
    driver.action_chain().key_down(Key::Control).send_keys("g").key_up(Key::Control).perform().await?;
    if shown_panel(driver).await? != "grade" {
        return Err(format!("{what}: Ctrl+g switched the panel").into());
    }
    // Back to the starter for what follows.
    blur(driver).await?;
    press(driver, "1").await?;
    Ok(())
}

/// `?` opens the help dialog with the focus in it; Escape closes it and the focus returns.
async fn help(driver: &WebDriver) -> Res {
    driver.find(By::Id("panel-tab-graph")).await?.focus().await?;
    press(driver, "?").await?;
    let opened = wait_for(
        driver,
        "the help dialog",
        "const d = document.getElementById('help'); return d.open && d.contains(document.activeElement) ? d.getAttribute('aria-labelledby') : null;",
        5,
    )
    .await?;
    let name = js(driver, "return document.getElementById(arguments[0]).textContent;", vec![opened]).await?;
    if name != json!("Keyboard shortcuts") {
        return Err(format!("the help dialog is named {name}").into());
    }
    let listed = js(driver, "return document.querySelectorAll('#help .shortcuts tr').length;", vec![]).await?;
    if listed.as_u64().unwrap_or(0) < 12 {
        return Err(format!("the help lists {listed} shortcuts").into());
    }
    // Keys inside the dialog do nothing behind it.
    press(driver, "s").await?;
    if shown_panel(driver).await? != "grade" {
        return Err("a key pressed in the help dialog switched the panel behind it".into());
    }
    driver.action_chain().send_keys(Key::Escape).perform().await?;
    wait_for(
        driver,
        "the help dialog to close and the focus to return",
        "return !document.getElementById('help').open && document.activeElement.id === 'panel-tab-graph';",
        5,
    )
    .await?;
    Ok(())
}

/// Large type on (the shortcut), still in one screen; off again by the header's button.
async fn large_type(driver: &WebDriver, what: &str) -> Res {
    let before =
        js(driver, "return parseFloat(getComputedStyle(document.querySelector('#code-panel pre')).fontSize);", vec![])
            .await?;
    blur(driver).await?;
    press(driver, "l").await?;
    wait_for(driver, "large type", "return document.documentElement.dataset.largeType === 'on';", 5).await?;
    let after =
        js(driver, "return parseFloat(getComputedStyle(document.querySelector('#code-panel pre')).fontSize);", vec![])
            .await?;
    if after.as_f64().unwrap_or(0.0) < before.as_f64().unwrap_or(0.0) * 1.15 {
        return Err(format!("{what}: large type sets the code at {after} px (was {before})").into());
    }
    in_view(
        driver,
        &format!("{what}: large type, grade"),
        &["#run-hidden", "#verdicts", "#static-verdict > p", "#code-panel pre"],
    )
    .await?;
    press_panel(driver, "g", "graph").await?;
    in_view(driver, &format!("{what}: large type, graph"), &["#panel-graph .graph-scroll", "#code-panel pre"]).await?;
    let stored = js(driver, "return localStorage.getItem('cabrito-large-type');", vec![]).await?;
    if stored != json!("on") {
        return Err(format!("large type is not remembered ({stored})").into());
    }
    driver.find(By::Id("large-toggle")).await?.click().await?;
    wait_for(driver, "large type off", "return !document.documentElement.dataset.largeType;", 5).await?;
    press_panel(driver, "r", "grade").await?;
    Ok(())
}

async fn scenario(driver: &WebDriver, base: &str, size: (u32, u32), shots: &Path) -> Res {
    let tag = format!("{}x{}", size.0, size.1);
    // A traversal task.
    let trav = spec("v=1&kind=add_parameter&domain=math&axis=traversal&n=25&seed=3");
    open(driver, base, &link(&trav), &trav).await?;
    in_view(
        driver,
        &format!("{tag} traversal: on opening"),
        &["#code-panel", "#side", ".controls", "#panel-tab-graph"],
    )
    .await?;
    // It opens on what explains it: the call graph (beside the code).
    if shown_panel(driver).await? != "graph" {
        return Err("a task opens on its call graph".into());
    }
    // The settings that do not apply are folded away.
    // (The fold's knobs are drawn just after the first paint.)
    let idle = wait_for(
        driver,
        "the fold of settings that do not apply",
        "const d = document.getElementById('knobs-idle'); return d && d.querySelector('.knobs') ? [d.open, d.querySelectorAll('[disabled]').length, d.querySelector('summary').textContent] : null;",
        5,
    )
    .await?;
    if idle.get(0) != Some(&json!(false)) || idle.get(1).and_then(Value::as_u64).unwrap_or(0) == 0 {
        return Err(format!("the settings that do not apply are not folded away: {idle}").into());
    }
    let greyed_outside = js(
        driver,
        "return [...document.querySelectorAll('.controls [disabled]')].filter(e => !e.closest('#knobs-idle')).length;",
        vec![],
    )
    .await?;
    if greyed_outside != json!(0) {
        return Err(format!("{greyed_outside} greyed settings outside the fold").into());
    }
    wrong_answer_to_line(driver, &format!("{tag} traversal")).await?;
    driver.screenshot(&shots.join(format!("layout-{tag}-grade.png"))).await?;
    keyboard(driver, &format!("{tag} traversal"), None).await?;
    help(driver).await?;
    large_type(driver, &format!("{tag} traversal")).await?;

    // A runtime task: "why this branch?" by keyboard.
    let rt = spec("v=1&kind=add_parameter&domain=math&axis=runtime&n=25&seed=3");
    open(driver, base, &link(&rt), &rt).await?;
    wrong_answer_to_line(driver, &format!("{tag} runtime")).await?;
    keyboard(driver, &format!("{tag} runtime"), Some(("w", "why"))).await?;
    press_panel(driver, "w", "why").await?;
    let first = driver.find(By::Css("#panel-why .why-functions button")).await?;
    first.focus().await?;
    driver.action_chain().send_keys(Key::Enter).perform().await?;
    wait_for(
        driver,
        "the why view after Enter on a function",
        "return !!document.querySelector('#panel-why #why h2');",
        5,
    )
    .await?;
    in_view(driver, &format!("{tag} runtime: why this branch"), &["#why h2", "#code-panel"]).await?;
    driver.screenshot(&shots.join(format!("layout-{tag}-why.png"))).await?;

    // An instruction-following task: the requirements beside the code.
    let ins = spec("v=1&kind=add_parameter&domain=math&axis=instructions&n=25&seed=3");
    open(driver, base, &link(&ins), &ins).await?;
    wrong_answer_to_line(driver, &format!("{tag} instructions")).await?;
    keyboard(driver, &format!("{tag} instructions"), Some(("q", "requirements"))).await?;
    press_panel(driver, "q", "requirements").await?;
    driver.find(By::Id("req-1")).await?.click().await?;
    wait_for(
        driver,
        "the requirement's lines",
        "return document.querySelectorAll('#reference-code .line.marked').length > 0;",
        5,
    )
    .await?;
    in_view(
        driver,
        &format!("{tag} instructions: a requirement and its lines"),
        &["#req-1", "#reference-code .line.marked"],
    )
    .await?;

    // A link can open a panel; an unknown one is named in a banner and the task still opens.
    let with_panel = format!("{}&panel=statement", link(&trav));
    open(driver, base, &with_panel, &trav).await?;
    wait_for(
        driver,
        "the statement panel from the link",
        "return document.getElementById('side').dataset.panel === 'statement';",
        10,
    )
    .await?;
    in_view(driver, &format!("{tag}: panel=statement"), &["top:#prompt"]).await?;
    let bad = format!("{}&panel=sideways", link(&rt));
    open(driver, base, &bad, &rt).await?;
    // As a freshly opened link (in the same page a link without a known panel keeps the one on show).
    driver.refresh().await?;
    open(driver, base, &bad, &rt).await?;
    let banner = wait_for(
        driver,
        "the unknown-panel banner",
        "const e = document.getElementById('panel-error'); return e ? e.textContent : null;",
        10,
    )
    .await?;
    let text = banner.as_str().unwrap_or_default();
    if !(text.contains("'sideways'") && text.contains("graph, renames") && text.contains("statement")) {
        return Err(format!("the banner for an unknown panel says: {text}").into());
    }
    // The first panel: the call graph, which explains the task.
    if shown_panel(driver).await? != "graph" {
        return Err("an unknown panel does not fall back to the call graph".into());
    }

    // The agents page in the same scheme: the run's regions side by side, no page to scroll.
    driver.goto(format!("{base}#/agents?v=1&n=25&seed=3")).await?;
    wait_for(driver, "the agents page", "return !!document.querySelector('#watch #step-next');", 60).await?;
    in_view(
        driver,
        &format!("{tag}: the agents page, watching"),
        &["#step-next", "#watch .watch-left", "#watch .code-panel", "#watch > .graph-panel"],
    )
    .await?;
    driver.screenshot(&shots.join(format!("layout-{tag}-agents.png"))).await?;
    driver.find(By::Id("tab-walk")).await?.click().await?;
    wait_for(driver, "the console", "return !!document.getElementById('console-input');", 10).await?;
    in_view(driver, &format!("{tag}: the agents page, walking"), &["#console-input", "#walk .code-panel"]).await?;
    console_clean(driver, &format!("the layout at {tag}")).await?;
    Ok(())
}

async fn run(size: (u32, u32)) {
    let failure_shot = format!("layout-e2e-{}x{}-failure.png", size.0, size.1);
    run_scenario("layout", size, &failure_shot, async |s| {
        let driver = &s.driver;
        // The window's outer size is not the page's: make the page exactly `size`.
        let inner = js(driver, "return [innerWidth, innerHeight];", vec![]).await?;
        let (iw, ih) = (inner[0].as_i64().unwrap_or(0), inner[1].as_i64().unwrap_or(0));
        let rect = driver.get_window_rect().await?;
        driver
            .set_window_rect(0, 0, (rect.width + size.0 as i64 - iw) as u32, (rect.height + size.1 as i64 - ih) as u32)
            .await?;
        scenario(driver, &s.base, size, &s.shots).await
    })
    .await;
}

#[tokio::test]
async fn e2e_layout_projector_1280x720() {
    run((1280, 720)).await;
}

#[tokio::test]
async fn e2e_layout_laptop_1440x900() {
    run((1440, 900)).await;
}
