//! End to end in headless Chromium against the real `cabrito serve`: the agents page. From a task,
//! open "watch an agent", step through a scripted agent's calls (next, back, play) and see the call,
//! the lines it looked at, the functions it touched and the ledger grow, reach the end and a passing
//! grade (the static rubric in the page, the hidden tests on the worker); change a setting and see
//! the run change and the link keep it; then walk the task yourself in the console (view, search,
//! a refused edit, lint, `run` on the worker, no grade before submit unless hints are asked for,
//! submit) and see the ledger move beside the agents' turns. Every step is
//! checked for console errors. It also prints how long the agents take in the browser (for
//! BENCHMARKS.md; never asserted).
//!
//! Needs what tests/browser_e2e.rs needs (dist/, chromedriver, Chromium), and CPython for the
//! worker's hidden tests. Without them the test is skipped with a message, except under CI.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use browser::*;
use serde_json::{json, Value};
use std::path::Path;
use thirtyfour::prelude::*;

async fn attr(driver: &WebDriver, selector: &str, name: &str) -> Res<Value> {
    js(
        driver,
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;",
        vec![json!(selector), json!(name)],
    )
    .await
}

async fn click(driver: &WebDriver, id: &str) -> Res {
    driver.find(By::Id(id)).await?.click().await?;
    Ok(())
}

async fn at(driver: &WebDriver) -> Res<usize> {
    Ok(attr(driver, "#step-label", "data-at").await?.as_str().and_then(|s| s.parse().ok()).ok_or("no step label")?)
}

async fn set_value(driver: &WebDriver, id: &str, value: &str) -> Res {
    js(
        driver,
        "const e = document.getElementById(arguments[0]); e.value = arguments[1]; e.dispatchEvent(new Event('change', {bubbles: true})); return true;",
        vec![json!(id), json!(value)],
    )
    .await?;
    Ok(())
}

async fn turns(driver: &WebDriver, ledger: &str) -> Res<usize> {
    Ok(attr(driver, &format!("#{ledger} .ledger-total"), "data-turns")
        .await?
        .as_str()
        .and_then(|s| s.parse().ok())
        .ok_or("no ledger total")?)
}

async fn watch(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    driver.goto(format!("{base}#/task?v=1&kind=add_parameter&n=5&seed=3")).await?;
    wait_for(driver, "the task page", "return document.getElementById('open-agents') !== null;", 20).await?;
    click(driver, "open-agents").await?;
    wait_for(driver, "the agents page", "const w = document.getElementById('watch'); return w && w.dataset.steps;", 30)
        .await?;
    let ready = js(driver, "const m = performance.getEntriesByName('cabrito-agents-ready')[0]; const r = performance.getEntriesByType('resource').find(e => e.name.endsWith('agents_bg.wasm')); return [m ? m.startTime : null, r ? r.transferSize : null];", vec![]).await?;
    println!(
        "timing the lazily loaded agents module: ready {:.0} ms after navigation start ({} bytes transferred)",
        ready[0].as_f64().unwrap_or(f64::NAN),
        ready[1]
    );
    console_clean(driver, "opening the agents page").await?;
    // Watch the reader.
    set_value(driver, "strategy", "reader").await?;
    wait_for(
        driver,
        "the reader's run",
        "const w = document.getElementById('watch'); return w && w.dataset.strategy === 'reader';",
        20,
    )
    .await?;
    let hash = js(driver, "return location.hash;", vec![]).await?;
    if !hash.as_str().unwrap_or("").contains("strategy=reader") {
        return Err(format!("the link does not keep the strategy: {hash}").into());
    }
    let steps: usize =
        attr(driver, "#watch", "data-steps").await?.as_str().and_then(|s| s.parse().ok()).ok_or("no steps")?;
    if steps < 5 {
        return Err(format!("the reader made only {steps} calls").into());
    }
    // Step 1 is a view: its lines are marked, the functions in it lit, one turn on the ledger.
    if at(driver).await? != 0 || turns(driver, "watch-ledger").await? != 1 {
        return Err("the watch does not start at the first call with one turn".into());
    }
    if attr(driver, "#current-call", "data-tool").await? != json!("view") {
        return Err("the reader's first call is not a view".into());
    }
    let viewed = js(driver, "return document.querySelectorAll('#agent-code .line.viewed').length;", vec![]).await?;
    let lit = js(driver, "return document.querySelectorAll('#agent-graph .vertex.touched').length;", vec![]).await?;
    if viewed.as_u64().unwrap_or(0) < 10 || lit.as_u64().unwrap_or(0) < 3 {
        return Err(format!("the first view marks {viewed} lines and lights {lit} functions").into());
    }
    // Next, next, back: the step and the ledger follow.
    click(driver, "step-next").await?;
    click(driver, "step-next").await?;
    click(driver, "step-back").await?;
    if at(driver).await? != 1 || turns(driver, "watch-ledger").await? != 2 {
        return Err("next, next, back did not end at the second call with two turns".into());
    }
    let input_1: f64 = attr(driver, "#watch-ledger .ledger-total", "data-input")
        .await?
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    // Play moves on by itself.
    click(driver, "step-play").await?;
    wait_for(
        driver,
        "play to move on",
        "const e = document.getElementById('step-label'); return e && Number(e.dataset.at) >= 4;",
        20,
    )
    .await?;
    click(driver, "step-play").await?;
    let input_4: f64 = attr(driver, "#watch-ledger .ledger-total", "data-input")
        .await?
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    if input_4 <= input_1 {
        return Err(format!("the ledger's input did not grow ({input_1} → {input_4})").into());
    }
    // An edit marks the lines it wrote.
    let edit = js(driver, "return document.getElementById('current-call').dataset.tool;", vec![]).await?;
    while at(driver).await? < steps - 1
        && js(driver, "return document.getElementById('current-call').dataset.tool;", vec![]).await? != json!("edit")
    {
        click(driver, "step-next").await?;
    }
    let edited = js(driver, "return document.querySelectorAll('#agent-code .line.edited').length;", vec![]).await?;
    if edited.as_u64().unwrap_or(0) == 0 {
        return Err(format!("an edit call (after {edit}) marks no edited line").into());
    }
    driver.screenshot(&shots.join("agents-watch.png")).await?;
    // The end: the grade. Static in the page, hidden tests on the worker.
    click(driver, "step-end").await?;
    wait_for(
        driver,
        "the static verdict",
        "const e = document.getElementById('static-verdict'); return e && e.dataset.passed;",
        20,
    )
    .await?;
    if attr(driver, "#static-verdict", "data-passed").await? != json!("true") {
        let t = js(driver, "return document.getElementById('final-grade').textContent;", vec![]).await?;
        return Err(format!("the reader's answer fails the static rubric: {t}").into());
    }
    click(driver, "run-hidden").await?;
    let hidden = wait_for(driver, "the hidden tests", "const e = document.getElementById('hidden-verdict'); return e && e.dataset.passed !== undefined ? e.dataset.passed : null;", 60).await?;
    if hidden != json!("true") {
        let t = js(driver, "return document.getElementById('hidden-verdict').textContent;", vec![]).await?;
        return Err(format!("the hidden tests did not pass: {t}").into());
    }
    driver.screenshot(&shots.join("agents-grade.png")).await?;
    console_clean(driver, "watching the reader to a passing grade").await?;
    // A smaller window: more views, and the link says so.
    set_value(driver, "setting-window", "20").await?;
    let more = wait_for(driver, "a new run with window 20", &format!("const w = document.getElementById('watch'); return w && Number(w.dataset.steps) > {steps} ? Number(w.dataset.steps) : null;"), 20).await?;
    let hash = js(driver, "return location.hash;", vec![]).await?;
    if !hash.as_str().unwrap_or("").contains("window=20") {
        return Err(format!("the link does not keep the window: {hash}").into());
    }
    println!("reader on add_parameter n=5: {steps} calls with window 100, {more} with window 20");
    // The myopic agent on a large task fails the static rubric.
    driver.goto(format!("{base}#/agents?v=1&kind=add_parameter&n=100&seed=3&strategy=myopic")).await?;
    wait_for(
        driver,
        "myopic's run",
        "const w = document.getElementById('watch'); return w && w.dataset.strategy === 'myopic' && w.dataset.steps;",
        30,
    )
    .await?;
    click(driver, "step-end").await?;
    wait_for(
        driver,
        "myopic's verdict",
        "const e = document.getElementById('static-verdict'); return e && e.dataset.passed;",
        20,
    )
    .await?;
    if attr(driver, "#static-verdict", "data-passed").await? != json!("false") {
        return Err("myopic passes an n = 100 task".into());
    }
    console_clean(driver, "myopic at n = 100").await?;
    Ok(())
}

async fn type_command(driver: &WebDriver, text: &str, chord: bool) -> Res {
    let area = driver.find(By::Id("console-input")).await?;
    area.send_keys(text).await?;
    if chord {
        area.send_keys(Key::Control + Key::Enter).await?;
    } else {
        area.send_keys(Key::Enter).await?;
    }
    Ok(())
}

async fn walk(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    driver.goto(format!("{base}#/agents?v=1&kind=cache_function&n=5&seed=1")).await?;
    wait_for(driver, "the agents page", "return document.getElementById('tab-walk') !== null;", 30).await?;
    click(driver, "tab-walk").await?;
    wait_for(driver, "the console", "return document.getElementById('console-input') !== null;", 20).await?;
    if !js(driver, "return location.hash;", vec![]).await?.as_str().unwrap_or("").contains("tab=walk") {
        return Err("the link does not keep the tab".into());
    }
    let agents = js(driver, "return [...document.querySelectorAll('#agent-turns tr[data-strategy]')].map(r => [r.dataset.strategy, Number(r.dataset.turns)]);", vec![]).await?;
    if agents.as_array().map_or(0, |a| a.iter().filter(|r| r[1].as_u64().unwrap_or(0) > 0).count()) != 3 {
        return Err(format!("the agents' turns are not beside the console: {agents}").into());
    }
    type_command(driver, "view 1 20", false).await?;
    wait_for(
        driver,
        "one turn",
        "const e = document.querySelector('#walk-ledger .ledger-total'); return e && e.dataset.turns === '1';",
        10,
    )
    .await?;
    let shown = js(driver, "return document.querySelectorAll('#walk-code .line.viewed').length;", vec![]).await?;
    if shown != json!(20) {
        return Err(format!("view 1 20 marks {shown} lines").into());
    }
    let input_1: f64 = attr(driver, "#walk-ledger .ledger-total", "data-input")
        .await?
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    type_command(driver, "search slow()", false).await?;
    wait_for(
        driver,
        "two turns",
        "const e = document.querySelector('#walk-ledger .ledger-total'); return e && e.dataset.turns === '2';",
        10,
    )
    .await?;
    let input_2: f64 = attr(driver, "#walk-ledger .ledger-total", "data-input")
        .await?
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    if input_2 <= input_1 {
        return Err(format!("the student's ledger did not grow ({input_1} → {input_2})").into());
    }
    // A breaking edit: the lint gate refuses it with the compiler's reason.
    type_command(driver, "edit 3 3\ndef (((", true).await?;
    wait_for(
        driver,
        "three turns",
        "const e = document.querySelector('#walk-ledger .ledger-total'); return e && e.dataset.turns === '3';",
        10,
    )
    .await?;
    let refused = js(driver, "const e = [...document.querySelectorAll('#console-log .console-entry')].pop(); return [e.classList.contains('refused'), e.textContent];", vec![]).await?;
    if refused[0] != json!(true) || !refused[1].as_str().unwrap_or("").contains("lint gate") {
        return Err(format!("the breaking edit was not refused by the lint gate: {refused}").into());
    }
    type_command(driver, "lint", false).await?;
    wait_for(
        driver,
        "four turns",
        "const e = document.querySelector('#walk-ledger .ledger-total'); return e && e.dataset.turns === '4';",
        10,
    )
    .await?;
    let linted =
        js(driver, "return [...document.querySelectorAll('#console-log .console-entry')].pop().textContent;", vec![])
            .await?;
    if !linted.as_str().unwrap_or("").contains("solution.py compiles") {
        return Err(format!("lint does not say the file compiles: {linted}").into());
    }
    // `run` goes to the worker (the grader's sandbox) and its answer is the call's.
    type_command(driver, "run main(0.5)", false).await?;
    wait_for(
        driver,
        "the run's answer",
        "const e = document.querySelector('#walk-ledger .ledger-total'); return e && e.dataset.turns === '5';",
        60,
    )
    .await?;
    let ran =
        js(driver, "return [...document.querySelectorAll('#console-log .console-entry')].pop().textContent;", vec![])
            .await?;
    if !ran.as_str().unwrap_or("").contains("the run finished (exit status 0)") {
        return Err(format!("run main(0.5) did not run on the worker: {ran}").into());
    }
    let you = attr(driver, "#agent-turns tr.you", "data-turns").await?;
    if you != json!("5") {
        return Err(format!("the student's count beside the agents' is {you}").into());
    }
    // No grade before submit (D12); the hints, asked for, are labelled as such.
    let early = js(driver, "return [document.getElementById('static-verdict') === null, document.getElementById('grade-after-submit') !== null];", vec![]).await?;
    if early != json!([true, true]) {
        return Err(format!("the rubric shows before submit without hints: {early}").into());
    }
    click(driver, "console-hints").await?;
    wait_for(
        driver,
        "the hints",
        "const e = document.querySelector('#final-grade.hints #static-verdict'); return e ? e.dataset.passed : null;",
        10,
    )
    .await?;
    let title = js(driver, "return document.querySelector('#final-grade h2').textContent;", vec![]).await?;
    if !title.as_str().unwrap_or("").starts_with("Hints")
        || js(driver, "return document.getElementById('run-hidden') === null;", vec![]).await? != json!(true)
    {
        return Err(format!("the hints are not labelled, or offer the hidden tests: {title}").into());
    }
    type_command(driver, "submit", false).await?;
    wait_for(driver, "the grade after submit", "const e = document.getElementById('static-verdict'); return e && document.getElementById('console-input').disabled ? e.dataset.passed : null;", 10).await?;
    if attr(driver, "#static-verdict", "data-passed").await? != json!("false") {
        return Err("the untouched starter passes the static rubric".into());
    }
    driver.screenshot(&shots.join("agents-walk.png")).await?;
    console_clean(driver, "walking the task in the console").await?;
    Ok(())
}

async fn timings(driver: &WebDriver, base: &str) -> Res {
    for (kind, n, strategy) in [
        ("cache_function", 25, "reader"),
        ("cache_function", 25, "navigator"),
        ("cache_function", 200, "reader"),
        ("cache_function", 200, "navigator"),
    ] {
        driver.goto(format!("{base}#/agents?v=1&kind={kind}&n={n}&seed=2&strategy={strategy}")).await?;
        let ms = wait_for(driver, "the run", &format!("const w = document.getElementById('watch'); const m = document.getElementById('run-ms'); return w && w.dataset.strategy === '{strategy}' && m ? [m.dataset.ms, w.dataset.steps] : null;"), 120).await?;
        println!(
            "timing {strategy} on {kind} n={n} in the browser: {} ms for {} calls",
            ms[0].as_str().unwrap_or("?"),
            ms[1].as_str().unwrap_or("?")
        );
        console_clean(driver, "timing").await?;
        // A fresh page per run (the module keeps nothing across pages).
        driver.goto(format!("{base}#/")).await?;
    }
    Ok(())
}

#[tokio::test]
async fn e2e_agents() {
    run_scenario("agents", DEFAULT_SIZE, "agents-e2e-failure.png", async |s| {
        watch(&s.driver, &s.base, &s.shots).await?;
        walk(&s.driver, &s.base, &s.shots).await?;
        timings(&s.driver, &s.base).await
    })
    .await;
}
