//! End to end in headless Chromium against the real `cabrito serve`: open share links and see
//! exactly the right task (compared with the native generator), follow the address bar and the
//! controls, and answer malformed links with a message and the nearest valid task.
//!
//! Needs the built app (`trunk build --release` → dist/, or CABRITO_DIST) and `chromedriver` on PATH
//! with Chromium at /usr/bin/chromium (or CABRITO_CHROMIUM). Without them the test is skipped with a
//! message, except under CI (CI set), where it fails. `bash scripts/test.sh` builds and runs all of
//! it. Screenshots go to test-artifacts/.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use browser::{run_scenario, Res};
use cabrito_gen::task::{generate, link, task_hash};
use cabrito_gen::TaskSpec;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};
use thirtyfour::components::SelectElement;
use thirtyfour::prelude::*;

fn spec(query: &str) -> TaskSpec {
    TaskSpec::from_pairs(query.split('&').map(|p| p.split_once('=').expect("key=value"))).expect("valid spec")
}

/// Run a script until it returns something other than null/false/"" (20 s at most).
async fn wait_for(driver: &WebDriver, what: &str, script: &str) -> Res<Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let v = driver.execute(script, Vec::new()).await?.json().clone();
        let done = !matches!(&v, Value::Null | Value::Bool(false)) && v != Value::String(String::new());
        if done {
            return Ok(v);
        }
        if Instant::now() > deadline {
            return Err(format!("timed out after 20 s waiting for {what}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn text_of(driver: &WebDriver, id: &str) -> Res<String> {
    let v = driver
        .execute(format!("const e = document.getElementById('{id}'); return e ? e.textContent : null;"), Vec::new())
        .await?
        .json()
        .clone();
    v.as_str().map(str::to_string).ok_or_else(|| format!("no element #{id} on the page").into())
}

/// Wait until the page shows the task of `spec`, then check its prompt, code and hash against the
/// native generator.
async fn expect_task(driver: &WebDriver, spec: &TaskSpec) -> Res {
    let canonical = spec.canonical();
    wait_for(
        driver,
        &format!("the task {canonical}"),
        &format!("const t = document.getElementById('task'); return t && t.dataset.spec === '{canonical}';"),
    )
    .await?;
    let task = generate(spec)?;
    // The side panels fill in once the code is painted.
    wait_for(driver, "the prompt panel", "const e = document.getElementById('prompt'); return e && e.textContent;")
        .await?;
    let prompt = text_of(driver, "prompt").await?;
    if prompt != task.prompt {
        return Err(format!(
            "#prompt of {canonical} differs from the native prompt:\n--- page\n{prompt}\n--- native\n{}",
            task.prompt
        )
        .into());
    }
    let code = wait_for(driver, &format!("the starter code of {canonical}"), browser::STARTER_TEXT).await?;
    let code = code.as_str().unwrap_or_default();
    if code != task.starter_code {
        return Err(format!(
            "#starter-code of {canonical} differs from the native starter code:\n--- page\n{code}\n--- native\n{}",
            task.starter_code
        )
        .into());
    }
    // (Written once the page is idle after the view rendered.)
    let hash = wait_for(
        driver,
        &format!("the hash of {canonical}"),
        &format!("const t = document.getElementById('task'); return t && t.dataset.spec === '{canonical}' && t.dataset.hash || null;"),
    )
    .await?;
    if hash.as_str() != Some(task_hash(&task).as_str()) {
        return Err(format!("task hash of {canonical} in the browser is {hash}, natively {}", task_hash(&task)).into());
    }
    Ok(())
}

/// Open a bad link and check the message and the nearest valid task.
async fn expect_bad_link(driver: &WebDriver, base: &str, fragment: &str, says: &str, nearest: &TaskSpec) -> Res {
    driver.goto(format!("{base}{fragment}")).await?;
    let message = wait_for(
        driver,
        &format!("the error message of {fragment}"),
        "const e = document.getElementById('error-message'); return e && e.textContent;",
    )
    .await?;
    let message = message.as_str().unwrap_or_default().to_string();
    if !message.contains(says) {
        return Err(format!("the message for {fragment} is '{message}', expected it to say '{says}'").into());
    }
    expect_task(driver, nearest).await?;
    let href = driver.find(By::Id("nearest-link")).await?.attr("href").await?.unwrap_or_default();
    if href != link(nearest) {
        return Err(format!("the nearest-task link of {fragment} is '{href}', expected '{}'", link(nearest)).into());
    }
    Ok(())
}

/// Fail when the page logged a console error, an uncaught exception (or rejected promise) or a
/// failed load since the last call, except entries containing one of `expected` (each use says why).
async fn console_clean(driver: &WebDriver, step: &str, expected: &[&str]) -> Res {
    let entries = driver.browser_log().await?;
    let bad: Vec<String> = entries
        .iter()
        .filter(|e| e.level == "SEVERE" && !expected.iter().any(|x| e.message.contains(x)))
        .map(|e| format!("{} {}", e.source.as_deref().unwrap_or("?"), e.message))
        .collect();
    if !bad.is_empty() {
        return Err(format!("console errors during {step}:\n  {}", bad.join("\n  ")).into());
    }
    Ok(())
}

async fn no_fatal(driver: &WebDriver) -> Res {
    let fatal = driver
        .execute("const e = document.getElementById('fatal'); return e ? e.textContent : null;", Vec::new())
        .await?;
    if let Some(t) = fatal.json().as_str() {
        return Err(format!("the app stopped: {t}").into());
    }
    Ok(())
}

async fn scenario(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    // 1. A share link opens exactly its task.
    let first = spec("v=1&kind=cache_function&domain=string&axis=search&n=10&seed=42");
    driver.goto(format!("{base}{}", link(&first))).await?;
    expect_task(driver, &first).await?;
    let title = driver.title().await?;
    if !title.contains("seed 42") {
        return Err(format!("the page title '{title}' does not name the task").into());
    }
    driver.screenshot(&shots.join("e2e-task.png")).await?;
    // The checker worker starts once the page is idle, even on a first visit (printed for BENCHMARKS).
    wait_for(driver, "the checker to load", "return performance.getEntriesByName('cabrito-checker-ready').length > 0;")
        .await?;
    println!(
        "timing first visit (empty cache) {}: task view rendered {}, checker ready {}",
        first.to_query(),
        mark(driver, "cabrito-task-rendered").await?,
        mark(driver, "cabrito-checker-ready").await?
    );
    graph_and_code(driver, &first).await?;
    console_clean(driver, "a share link, the graph and the code", &[]).await?;

    // 2. Editing the address bar's fragment shows the new task (hashchange).
    let second = spec("v=1&kind=add_return_value&domain=array&axis=traversal&n=25&seed=3");
    driver.execute(format!("location.hash = '{}';", link(&second)), Vec::new()).await?;
    expect_task(driver, &second).await?;

    // 3. The kind control rewrites the link and shows the new task.
    let select = SelectElement::new(&driver.find(By::Id("knob-kind")).await?).await?;
    select.select_by_value("dead_code").await?;
    let third = spec("v=1&kind=dead_code&domain=array&axis=traversal&n=25&seed=3");
    expect_task(driver, &third).await?;
    let hash = driver.execute("return location.hash;", Vec::new()).await?.json().clone();
    if hash.as_str() != Some(link(&third).as_str()) {
        return Err(format!("after choosing dead_code the address bar shows {hash}, expected {}", link(&third)).into());
    }
    // An out-of-range number in a control is refused with the allowed range, and the task stays.
    let n = driver.find(By::Id("knob-n")).await?;
    n.clear().await?;
    n.send_keys("99999").await?;
    driver
        .execute("document.getElementById('knob-n').dispatchEvent(new Event('change', {bubbles: true}));", Vec::new())
        .await?;
    let complaint = wait_for(
        driver,
        "the control's complaint",
        "const e = document.getElementById('control-error'); return e && e.textContent;",
    )
    .await?;
    if !complaint.as_str().unwrap_or_default().contains("from 1 to 2000") {
        return Err(format!("the complaint about n=99999 is {complaint}, expected it to name the range").into());
    }
    expect_task(driver, &third).await?;
    console_clean(driver, "the address bar and the controls", &[]).await?;

    // 4. Malformed and out-of-range links: a message and the nearest valid task, never a blank page.
    expect_bad_link(driver, base, "#/task?v=1&kind=nope&n=7&seed=3", "unknown kind 'nope'", &spec("v=1&n=7&seed=3"))
        .await?;
    let message = text_of(driver, "error-message").await?;
    if !message.contains("dead_code, add_parameter") {
        return Err(format!("the message '{message}' does not list the valid kinds").into());
    }
    driver.screenshot(&shots.join("e2e-bad-link.png")).await?;
    // Following the offered link opens the nearest task without a complaint.
    driver.find(By::Id("nearest-link")).await?.click().await?;
    wait_for(driver, "the error to go away", "return document.getElementById('error') === null;").await?;
    expect_task(driver, &spec("v=1&n=7&seed=3")).await?;

    expect_bad_link(
        driver,
        base,
        "#/task?v=1&domain=array&n=0&seed=5",
        "out of range",
        &spec("v=1&domain=array&n=1&seed=5"),
    )
    .await?;
    expect_bad_link(driver, base, "#/task?v=1&n=abc&seed=2", "must be an integer", &spec("v=1&seed=2")).await?;
    expect_bad_link(
        driver,
        base,
        "#/task?v=1&kind=dead_code&garbage",
        "not of the form key=value",
        &spec("v=1&kind=dead_code"),
    )
    .await?;
    expect_bad_link(driver, base, "#/task?v=99&kind=dead_code", "not served", &spec("v=1&kind=dead_code")).await?;
    expect_bad_link(driver, base, "#/nowhere", "there is no page", &TaskSpec::default()).await?;
    expect_bad_link(driver, base, "#/task?v=1&seed=%E2%82%AC%ZZ", "must be an integer", &TaskSpec::default()).await?;
    no_fatal(driver).await?;
    console_clean(driver, "malformed links", &[]).await?;

    // 5. The gallery opens tasks; the theme toggles; the embed has no controls.
    gallery_theme_embed(driver, base, shots).await?;
    no_fatal(driver).await?;
    console_clean(driver, "the gallery, the theme, the scale page and the embed", &[]).await?;

    // 6. Grading: the static rubric in the page, the hidden tests on the worker.
    grading(driver, base, shots).await?;
    console_clean(driver, "grading", &[]).await?;

    // 6b. The runtime axis: what runs and what never does, why, and branch placement (issue 8).
    runtime(driver, base, shots).await?;
    no_fatal(driver).await?;
    console_clean(driver, "a runtime task", &[]).await?;

    // 6c. A merge codebases task: the classes side by side, tinted blocks, the data-flow graph, grading.
    merge_view(driver, base, shots).await?;
    no_fatal(driver).await?;
    console_clean(driver, "the merge codebases task", &[]).await?;
    // 6d. Instruction following: the requirements beside the code, each marking its lines, and the
    // unmet ones in the grade panel (issue 9).
    instructions(driver, base, shots).await?;
    no_fatal(driver).await?;
    console_clean(driver, "an instructions task", &[]).await?;

    // 6d. The appendix tasks: comment copying and variable renaming, shown and graded.
    appendix(driver, base, shots).await?;
    no_fatal(driver).await?;
    console_clean(driver, "the appendix tasks", &[]).await?;

    // 7. How fast a fresh page shows a large task (printed for BENCHMARKS, never asserted).
    timing(driver, base).await?;
    no_fatal(driver).await?;
    console_clean(driver, "fresh page loads", &[]).await?;
    Ok(())
}

/// Load fresh pages and print the first paint and the time until the task view has rendered.
async fn timing(driver: &WebDriver, base: &str) -> Res {
    for query in ["v=1&kind=add_parameter&n=25&seed=3", "v=1&kind=cache_function&axis=traversal&n=200&seed=11"] {
        let s = spec(query);
        // A different path each time so that the browser loads a new document.
        driver.goto(format!("{base}index.html?fresh={}{}", s.seed, link(&s))).await?;
        expect_task(driver, &s).await?;
        let v = driver
            .execute(
                "const p = performance.getEntriesByName('first-contentful-paint')[0]; \
                 const r = performance.getEntriesByName('cabrito-task-rendered')[0]; \
                 const n = performance.getEntriesByType('navigation')[0]; \
                 const w = performance.getEntriesByType('resource').filter(e => e.name.endsWith('.wasm'))[0]; \
                 return [p ? p.startTime : null, r ? r.startTime : null, n ? n.domContentLoadedEventEnd : null, w ? w.responseEnd : null];",
                Vec::new(),
            )
            .await?
            .json()
            .clone();
        let f = |i: usize| v.get(i).and_then(Value::as_f64).map_or("n/a".to_string(), |x| format!("{x:.0} ms"));
        let stats = text_of(driver, "stats").await?;
        println!(
            "timing {query}: first contentful paint {}, DOMContentLoaded {}, wasm downloaded {}, task view rendered {} ({stats})",
            f(0),
            f(2),
            f(3),
            f(1)
        );
        // From a paste to the rubric on the page (the checker worker has started while the page
        // was idle), for the reference and then the starter.
        grade_click(driver, "use-reference").await?;
        wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
        let first = verdict_times(driver).await?;
        grade_click(driver, "use-starter").await?;
        wait_attr(driver, "static-verdict", "data-passed", &["false"]).await?;
        let second = verdict_times(driver).await?;
        // Three more pastes of the reference (the rubric's "checked in" of each).
        let mut again = Vec::new();
        for _ in 0..3 {
            grade_click(driver, "use-starter").await?;
            wait_attr(driver, "static-verdict", "data-passed", &["false"]).await?;
            grade_click(driver, "use-reference").await?;
            wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
            again.push(verdict_times(driver).await?.1);
        }
        let ready = mark(driver, "cabrito-checker-ready").await?;
        println!(
            "timing {query}: checker ready {ready}; rubric after a paste: reference {} (checked in {}), starter {} (checked in {}); the reference again: checked in {}",
            first.0,
            first.1,
            second.0,
            second.1,
            again.join(", ")
        );
    }
    Ok(())
}

/// When the performance mark `name` was set, from navigation start ("n/a" if it was not).
async fn mark(driver: &WebDriver, name: &str) -> Res<String> {
    let v = driver
        .execute(
            format!("const m = performance.getEntriesByName('{name}')[0]; return m ? m.startTime : null;"),
            Vec::new(),
        )
        .await?
        .json()
        .clone();
    Ok(v.as_f64().map_or("n/a".to_string(), |x| format!("{x:.0} ms")))
}

/// From the paste to the verdict on the page, and the time spent checking in the worker.
async fn verdict_times(driver: &WebDriver) -> Res<(String, String)> {
    let v = driver
        .execute(
            "const e = document.getElementById('static-verdict'); return [e.dataset.waitMs || 'n/a', e.dataset.checkMs || 'n/a'];",
            Vec::new(),
        )
        .await?
        .json()
        .clone();
    let f = |i: usize| v.get(i).and_then(Value::as_str).map_or("n/a".to_string(), |x| format!("{x} ms"));
    Ok((f(0), f(1)))
}

/// Attribute `attr` of the element `id`, once it has one of `values` (20 s at most).
async fn wait_attr(driver: &WebDriver, id: &str, attr: &str, values: &[&str]) -> Res<String> {
    let list = serde_json::to_string(values)?;
    let v = wait_for(
        driver,
        &format!("#{id}[{attr}] to be one of {list}"),
        &format!("const e = document.getElementById('{id}'); const v = e && e.getAttribute('{attr}'); return {list}.includes(v) ? v : null;"),
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

async fn grading(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    let graded = spec("v=1&kind=add_parameter&domain=math&n=5&seed=1");
    driver.goto(format!("{base}{}", link(&graded))).await?;
    expect_task(driver, &graded).await?;
    wait_attr(driver, "worker-status", "data-worker", &["connected"]).await?;

    // The reference: every must-have passes, and so do the hidden tests.
    grade_click(driver, "use-reference").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    let failing_musts = count(driver, "#static-verdict .item[data-must=\"true\"][data-passed=\"false\"]").await?;
    if failing_musts != 0 {
        return Err(format!("the reference fails {failing_musts} must-have items").into());
    }
    grade_click(driver, "run-hidden").await?;
    let hidden = wait_attr(driver, "hidden-verdict", "data-passed", &["true", "false", "error"]).await?;
    if hidden != "true" {
        let t = text_of(driver, "hidden-verdict").await?;
        return Err(format!("the reference's hidden tests gave {hidden}: {t}").into());
    }
    driver.screenshot(&shots.join("e2e-grade-pass.png")).await?;

    // The starter: failing items and a failing hidden test.
    grade_click(driver, "use-starter").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["false"]).await?;
    if count(driver, "#static-verdict .item[data-passed=\"false\"]").await? == 0 {
        return Err("the starter shows no failing rubric item".into());
    }
    // Clicking a failing item's line opens the answer in the code editor at that line, selected and
    // in view.
    let answer = driver.execute("return document.getElementById('solution').value;", Vec::new()).await?.json().clone();
    let (line, selected) =
        browser::follow_line_link(driver, "#static-verdict .item[data-passed=\"false\"] .line-link").await?;
    let want = answer.as_str().unwrap_or_default().split('\n').nth(line as usize - 1).unwrap_or_default().to_string();
    if selected != want {
        return Err(format!(
            "clicking the starter's first failing line link selected {selected:?}, not line {line} {want:?}"
        )
        .into());
    }
    wait_for(driver, "the old verdict to clear", "return document.getElementById('run-hidden').disabled === false;")
        .await?;
    grade_click(driver, "run-hidden").await?;
    let hidden = wait_attr(driver, "hidden-verdict", "data-passed", &["false", "true", "error"]).await?;
    if hidden != "false" {
        let t = text_of(driver, "hidden-verdict").await?;
        return Err(format!("the starter's hidden tests gave {hidden}, expected false: {t}").into());
    }
    driver.screenshot(&shots.join("e2e-grade-fail.png")).await?;

    // Dropping a file replaces the answer: drop the reference, see the static checks pass.
    let task = generate(&graded)?;
    driver
        .execute(
            "const dt = new DataTransfer(); \
             dt.items.add(new File([arguments[0]], 'solution.py', {type: 'text/x-python'})); \
             document.getElementById('solution').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));",
            vec![Value::String(task.solution_code.clone())],
        )
        .await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    let value = driver.execute("return document.getElementById('solution').value;", Vec::new()).await?.json().clone();
    if value.as_str() != Some(task.solution_code.as_str()) {
        return Err("the dropped file did not become the answer".into());
    }

    // Share with solution: the link carries the answer in its fragment and reopens with it.
    grade_click(driver, "share-solution").await?;
    let href = wait_for(
        driver,
        "the solution link",
        "const a = document.getElementById('solution-link'); return a && a.href;",
    )
    .await?;
    let href = href.as_str().unwrap_or_default().to_string();
    if !href.contains("&solution=") || !href.contains(&link(&graded)[1..]) {
        return Err(format!("the solution link is {href}").into());
    }
    driver.goto("about:blank").await?;
    driver.goto(href).await?;
    expect_task(driver, &graded).await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    // The solution came with the page, so its check started the checker (printed for BENCHMARKS).
    let (waited, checked) = verdict_times(driver).await?;
    println!("timing a page opened with its solution: rubric {waited} after the request, starting the checker (checked in {checked})");
    let value = driver.execute("return document.getElementById('solution').value;", Vec::new()).await?.json().clone();
    if value.as_str() != Some(task.solution_code.as_str()) {
        return Err("the shared link did not bring its solution".into());
    }
    Ok(())
}

/// With the server gone, a task page that is already loaded says plainly that no worker is there,
/// and still gives the static verdict.
async fn no_worker(driver: &WebDriver, shots: &Path) -> Res {
    let other = spec("v=1&kind=dead_code&domain=math&n=5&seed=2");
    driver.execute("location.hash = '#/';", Vec::new()).await?;
    wait_for(driver, "the gallery", "return document.getElementById('gallery') !== null;").await?;
    driver.execute(format!("location.hash = '{}';", link(&other)), Vec::new()).await?;
    expect_task(driver, &other).await?;
    wait_attr(driver, "worker-status", "data-worker", &["absent"]).await?;
    let notice = text_of(driver, "worker-status").await?;
    if !notice.contains("No grading worker") {
        return Err(format!("the no-worker notice reads '{notice}'").into());
    }
    grade_click(driver, "use-reference").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    driver.screenshot(&shots.join("e2e-no-worker.png")).await?;
    no_fatal(driver).await?;
    // The gallery's cards of the runtime, instructions and merge rows ask the stopped server for the
    // generator module (web::gen) once scrolled near: each says it could not be loaded, and the other
    // cards are drawn.
    let said = wait_for(
        driver,
        "the runtime card's notice",
        "location.hash = '#/'; const c = document.querySelector('#card-runtime-dead_code .card-stats'); \
         if (c) c.scrollIntoView(); \
         return c && /could not be/.test(c.textContent) && c.textContent;",
    )
    .await?;
    if !said.as_str().is_some_and(|t| t.contains("runtime-resolution generator")) {
        return Err(format!("the runtime card without the server says {said}").into());
    }
    // Expected: Chromium itself logs the refused connection of the probe for the worker and of those
    // cards' fetch of gen.js (a page cannot silence it); the app reports both as the notices checked
    // above, and logs nothing else.
    console_clean(
        driver,
        "the page without its worker",
        &["/ws' failed: Error in connection establishment", "/gen.js - Failed to load resource"],
    )
    .await
}

async fn count(driver: &WebDriver, selector: &str) -> Res<u64> {
    let v = driver.execute(format!("return document.querySelectorAll('{selector}').length;"), Vec::new()).await?;
    v.json().as_u64().ok_or_else(|| format!("cannot count {selector}").into())
}

/// The call graph has one vertex per function; a vertex and its function's code select each other;
/// the reference is behind a reveal; the diff and the full LLM prompt are there.
async fn graph_and_code(driver: &WebDriver, spec: &TaskSpec) -> Res {
    let task = generate(spec)?;
    // The graph is a tab of the side panel (the grade panel opens first).
    open_panel(driver, "graph").await?;
    let vertices = count(driver, "#call-graph g.vertex[data-name]").await?;
    if vertices as usize != task.sizes.functions {
        return Err(format!("the call graph shows {vertices} vertices for {} functions", task.sizes.functions).into());
    }
    // Click an edited function's vertex: its code lines light up.
    let name = task.edit_set.first().ok_or("the task edits nothing")?.clone();
    driver.find(By::Id(format!("v-{name}"))).await?.click().await?;
    let lit = wait_for(
        driver,
        &format!("the code of {name} to be highlighted"),
        "const l = [...document.querySelectorAll('#starter-code .line.selected')]; return l.length ? l.map(e => e.dataset.fn) : null;",
    )
    .await?;
    let lit: Vec<String> = serde_json::from_value(lit)?;
    if lit.len() < 2 || lit.iter().any(|f| *f != name) {
        return Err(format!("clicking {name} highlighted the lines of {lit:?}").into());
    }
    // Click another function's code: its vertex is selected.
    let other = task.roles.keys().find(|k| **k != name).ok_or("one function only")?.clone();
    driver.find(By::Css(format!("#starter-code .line[data-fn='{other}']"))).await?.click().await?;
    wait_for(
        driver,
        &format!("the vertex of {other} to be selected"),
        &format!("const v = document.getElementById('v-{other}'); return v && v.classList.contains('selected');"),
    )
    .await?;
    keyboard_graph(driver, &other).await?;
    // The reference solution only after the reveal, then exactly the generator's.
    driver.find(By::Id("tab-reference")).await?.click().await?;
    if count(driver, "#reference-code").await? != 0 {
        return Err("the reference solution shows before the reveal".into());
    }
    driver.find(By::Id("reveal")).await?.click().await?;
    wait_for(driver, "the reference solution", "return document.getElementById('reference-code') !== null;").await?;
    if text_of(driver, "reference-code").await? != task.solution_code {
        return Err("#reference-code differs from the native reference solution".into());
    }
    driver.find(By::Id("tab-diff")).await?.click().await?;
    wait_for(driver, "the diff", "return document.querySelectorAll('#diff .diff-add, #diff .diff-del').length > 0;")
        .await?;
    let llm = cabrito_gen::kinds::prompt::llm_prompt(&task.prompt, &task.starter_code);
    if count(driver, "#llm-prompt").await? != 0 {
        return Err("the 100 KB LLM prompt is in the page while its panel is closed".into());
    }
    open_panel(driver, "prompt").await?;
    if text_of(driver, "llm-prompt").await? != llm {
        return Err("#llm-prompt differs from the native LLM prompt".into());
    }
    driver.screenshot(&Path::new(env!("CARGO_MANIFEST_DIR")).join("test-artifacts/e2e-diff.png")).await?;
    open_panel(driver, "grade").await?;
    Ok(())
}

/// What a script returns, as text.
async fn js_str(driver: &WebDriver, script: &str) -> Res<String> {
    Ok(driver.execute(script, Vec::new()).await?.json().as_str().unwrap_or_default().to_string())
}

/// Click a button of the grade panel (opening its tab first: a task opens on its call graph).
async fn grade_click(driver: &WebDriver, id: &str) -> Res {
    let shown =
        driver.execute("const s = document.getElementById('side'); return s && s.dataset.panel;", Vec::new()).await?;
    if shown.json() != &Value::String("grade".into()) {
        browser::click_id(driver, "panel-tab-grade").await?;
    }
    browser::click_id(driver, id).await
}

/// Open a tab of the task page's side panel (grade, graph, statement, …) by clicking it.
async fn open_panel(driver: &WebDriver, name: &str) -> Res {
    driver.find(By::Id(format!("panel-tab-{name}"))).await?.click().await?;
    wait_for(
        driver,
        &format!("the {name} panel"),
        &format!("const b = document.getElementById('panel-{name}'); return !!b && !b.hidden;"),
    )
    .await?;
    Ok(())
}

/// The id of the focused element.
async fn focused(driver: &WebDriver) -> Res<String> {
    let v = driver.execute("const e = document.activeElement; return e ? e.id : '';", Vec::new()).await?;
    Ok(v.json().as_str().unwrap_or_default().to_string())
}

/// The call graph by keyboard: one tab stop (the selected vertex `selected`), reached with Tab from
/// the zoom buttons; the arrow keys move to other vertices (named for screen readers), and Enter
/// selects the focused one, whose code lights up.
async fn keyboard_graph(driver: &WebDriver, selected: &str) -> Res {
    let stops: Vec<String> = serde_json::from_value(
        driver
            .execute(
                "return [...document.querySelectorAll('#call-graph [tabindex=\"0\"]')].map(e => e.id);",
                Vec::new(),
            )
            .await?
            .json()
            .clone(),
    )?;
    if stops != [format!("v-{selected}")] {
        return Err(format!("the call graph's tab stops are {stops:?}, expected only v-{selected}").into());
    }
    driver.execute("document.getElementById('zoom-in').focus();", Vec::new()).await?;
    driver.action_chain().send_keys(Key::Tab).perform().await?;
    let at = focused(driver).await?;
    if at != format!("v-{selected}") {
        return Err(format!("Tab from the zoom buttons reached '{at}', not the selected vertex v-{selected}").into());
    }
    // Walk with the arrow keys until the focus is on another vertex.
    let mut moved = String::new();
    for key in [Key::Right, Key::Left, Key::Down, Key::Up] {
        driver.action_chain().send_keys(key).perform().await?;
        let now = focused(driver).await?;
        if now.starts_with("v-") && now != at {
            moved = now;
            break;
        }
    }
    let name = moved.strip_prefix("v-").ok_or("the arrow keys moved the focus to no other vertex")?.to_string();
    let label = driver.find(By::Id(&moved)).await?.attr("aria-label").await?.unwrap_or_default();
    if !label.starts_with(&format!("{name}: ")) {
        return Err(format!("vertex {moved} is named '{label}' for screen readers").into());
    }
    driver.action_chain().send_keys(Key::Enter).perform().await?;
    wait_for(
        driver,
        &format!("Enter on {moved} to select {name} and light its code"),
        &format!(
            "const v = document.getElementById('{moved}'); const l = [...document.querySelectorAll('#starter-code .line.selected')]; \
             return v.classList.contains('selected') && v.getAttribute('aria-pressed') === 'true' && l.length > 0 && l.every(e => e.dataset.fn === '{name}');"
        ),
    )
    .await?;
    Ok(())
}

/// The gallery's cards: one per kind and domain it is built for, and a row per fixed-size axis with
/// one card per kind built along it (runtime resolution's and instruction following's rows are sections of their
/// own, `#gallery-runtime` and `#gallery-instructions`).
fn gallery_cards() -> usize {
    use cabrito_gen::spec::{Axis, Kind, Support};
    let kinds: usize = Kind::ALL
        .iter()
        .map(|k| match k.def().domains() {
            Support::Only(d) => d.len(),
            Support::NotApplicable => 1,
        })
        .sum();
    let axes: usize = Axis::ALL
        .iter()
        .filter(|&&a| {
            a.def().grows() == cabrito_gen::axes::Grows::Neither && ![Axis::Runtime, Axis::Instructions].contains(&a)
        })
        .map(|a| Kind::ALL.iter().filter(|k| k.def().axes().allows(a)).count())
        .sum();
    kinds + axes
}

/// Put `text` in the answer box as if typed.
async fn type_answer(driver: &WebDriver, text: &str) -> Res {
    driver.execute(browser::SET_ANSWER, vec![Value::String(text.to_string())]).await?;
    Ok(())
}

/// Run the hidden tests on the worker and return `data-passed` of the verdict.
async fn run_hidden(driver: &WebDriver) -> Res<String> {
    wait_for(driver, "the run button", "return document.getElementById('run-hidden').disabled === false;").await?;
    grade_click(driver, "run-hidden").await?;
    wait_attr(driver, "hidden-verdict", "data-passed", &["true", "false", "error"]).await
}

/// The state of one rubric item on the page: `data-passed`, or None when it is not shown.
async fn item_state(driver: &WebDriver, id: &str) -> Res<Option<String>> {
    let v = driver
        .execute(
            format!("const e = document.querySelector('#static-verdict .item[data-id=\"{id}\"]'); return e ? e.dataset.passed : null;"),
            Vec::new(),
        )
        .await?;
    Ok(v.json().as_str().map(str::to_string))
}

/// Comment copying and variable renaming in the page: the right task, the renaming panel, the
/// rubric item of each in the page's checker, the hidden tests on the worker.
async fn appendix(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    // Comment copying: the reference passes, one word changed fails comment_copy here and on the worker.
    let copied = spec("v=1&kind=add_parameter&axis=comment&n=6&seed=2");
    driver.goto(format!("{base}{}", link(&copied))).await?;
    expect_task(driver, &copied).await?;
    let task = generate(&copied)?;
    let comment = task.metadata["comment"].as_str().ok_or("no comment")?.to_string();
    if !text_of(driver, "prompt").await?.contains(&format!("# {comment}")) {
        return Err("the statement does not quote the comment".into());
    }
    wait_attr(driver, "worker-status", "data-worker", &["connected"]).await?;
    grade_click(driver, "use-reference").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    if item_state(driver, "comment_copy").await?.as_deref() != Some("true") {
        return Err("the reference's comment_copy item does not pass".into());
    }
    let hidden = run_hidden(driver).await?;
    if hidden != "true" {
        return Err(format!(
            "the comment reference's hidden tests gave {hidden}: {}",
            text_of(driver, "hidden-verdict").await?
        )
        .into());
    }
    let first = comment.split(' ').next().unwrap_or_default();
    let mutant =
        task.solution_code.replacen(&format!("# {comment}"), &format!("# {}", comment.replacen(first, "zzz", 1)), 1);
    type_answer(driver, &mutant).await?;
    wait_attr(driver, "static-verdict", "data-passed", &["false"]).await?;
    if item_state(driver, "comment_copy").await?.as_deref() != Some("false") {
        return Err("a changed word does not fail comment_copy in the page".into());
    }
    driver.screenshot(&shots.join("e2e-comment.png")).await?;
    let hidden = run_hidden(driver).await?;
    if hidden != "false" || !text_of(driver, "hidden-verdict").await?.contains("comment_copy") {
        return Err(format!(
            "the comment mutant on the worker gave {hidden}: {}",
            text_of(driver, "hidden-verdict").await?
        )
        .into());
    }

    // Variable renaming: the panel lists the renames and marks their names in the chain.
    let renaming = spec("v=1&kind=variable_renaming&n=5&seed=1&chain=30");
    driver.goto(format!("{base}{}", link(&renaming))).await?;
    expect_task(driver, &renaming).await?;
    let rows = count(driver, "#rename-table tbody tr").await?;
    let marks = count(driver, "#rename-chain mark.rename-from").await?;
    if rows != 5 || marks < 5 {
        return Err(format!("the renaming panel shows {rows} renames and {marks} marked names").into());
    }
    driver.screenshot(&shots.join("e2e-renaming.png")).await?;
    wait_attr(driver, "worker-status", "data-worker", &["connected"]).await?;
    grade_click(driver, "use-reference").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    let hidden = run_hidden(driver).await?;
    if hidden != "true" {
        return Err(format!(
            "the renaming reference's hidden tests gave {hidden}: {}",
            text_of(driver, "hidden-verdict").await?
        )
        .into());
    }
    grade_click(driver, "use-starter").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["false"]).await?;
    if item_state(driver, "renames").await?.as_deref() != Some("false") {
        return Err("the starter does not fail renames in the page".into());
    }
    let hidden = run_hidden(driver).await?;
    if hidden != "false" {
        return Err(format!("the renaming starter's hidden tests gave {hidden}").into());
    }
    // The gallery has a card for each, which opens its task.
    driver.goto(format!("{base}#/")).await?;
    wait_for(driver, "the renaming card", "return document.getElementById('card-variable_renaming-math') !== null;")
        .await?;
    driver.find(By::Id("card-comment-cache_function")).await?.click().await?;
    expect_task(driver, &spec("v=1&kind=cache_function&axis=comment&n=10")).await?;
    driver.execute("location.hash = '#/';", Vec::new()).await?;
    wait_for(driver, "the gallery", "return document.getElementById('gallery') !== null;").await?;
    driver.find(By::Id("card-variable_renaming-math")).await?.click().await?;
    expect_task(driver, &spec("v=1&kind=variable_renaming&n=10")).await?;
    Ok(())
}

async fn gallery_theme_embed(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    driver.goto(format!("{base}#/")).await?;
    wait_for(
        driver,
        "the gallery",
        &format!("return document.querySelectorAll('#gallery .card').length === {};", gallery_cards()),
    )
    .await?;
    // The cards after the first row draw their tasks one at a time after the first paint (web/cards.rs):
    // every one of them gets its picture (those from the `gen` module once scrolled near).
    wait_for(
        driver,
        "every card's picture",
        "const w = document.querySelector('.card .card-pending'); if (w) w.scrollIntoView(); \
         return document.querySelectorAll('.card .card-pending').length === 0 \
         && document.querySelectorAll('.card .card-graph > :first-child').length === document.querySelectorAll('.card').length;",
    )
    .await?;
    driver.execute("window.scrollTo(0, 0);", Vec::new()).await?;
    // A card is one tab stop: its small call graph is a picture, not buttons.
    let inner = count(driver, "#gallery .card [tabindex], #gallery .card [role=button]").await?;
    if inner != 0 {
        return Err(format!("the gallery's cards hold {inner} focusable or button elements").into());
    }
    // The merge card draws its data-flow graph.
    if count(driver, "#card-merge_codebases-math svg .flow-node").await? == 0 {
        return Err("the merge codebases card shows no data-flow graph".into());
    }
    driver.screenshot(&shots.join("e2e-gallery.png")).await?;
    driver.find(By::Id("card-dead_code-string")).await?.click().await?;
    expect_task(driver, &spec("v=1&kind=dead_code&domain=string&n=10")).await?;

    let theme = "return document.documentElement.dataset.theme;";
    let before = driver.execute(theme, Vec::new()).await?.json().clone();
    driver.find(By::Id("theme-toggle")).await?.click().await?;
    let after = driver.execute(theme, Vec::new()).await?.json().clone();
    if before == after || !matches!(after.as_str(), Some("dark" | "light")) {
        return Err(format!("the theme toggle went from {before} to {after}").into());
    }
    if after.as_str() == Some("light") {
        driver.find(By::Id("theme-toggle")).await?.click().await?;
    }
    driver.screenshot(&shots.join("e2e-dark.png")).await?;

    // The scale page: one row per paper size, each opening its task.
    let scaled = spec("v=1&kind=add_return_value&domain=string&seed=5");
    driver.goto(format!("{base}#/scale?{}", scaled.to_query())).await?;
    wait_for(driver, "the scale table", "return document.querySelectorAll('#scale-table tbody tr').length === 6;")
        .await?;
    driver.screenshot(&shots.join("e2e-scale.png")).await?;
    driver.find(By::Css("#scale-table tr[data-n='50'] a")).await?.click().await?;
    expect_task(driver, &spec("v=1&kind=add_return_value&domain=string&n=50&seed=5")).await?;

    let embedded = spec("v=1&kind=extract_helper&domain=math&n=8&seed=4");
    driver.goto(format!("{base}?embed=1{}", link(&embedded))).await?;
    expect_task(driver, &embedded).await?;
    if count(driver, "#knob-kind, .topbar, #share-link").await? != 0 {
        return Err("the embed shows controls, the header or the share line".into());
    }
    driver.screenshot(&shots.join("e2e-embed.png")).await?;
    Ok(())
}

/// A merge codebases link: both classes side by side with every shared block tinted the same in the
/// two columns and the differing lines marked, the data-flow graph with one vertex per variable, the
/// domain control greyed out, the merge knobs in the link, and grading (the reference passes, the
/// starter fails `difference_blocks` statically and in the hidden tests).
async fn merge_view(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    let merge = spec("v=1&kind=merge_codebases&n=25&seed=3&d=2");
    driver.goto(format!("{base}{}", link(&merge))).await?;
    expect_task(driver, &merge).await?;
    let columns = wait_for(
        driver,
        "the two classes side by side",
        "const a = document.getElementById('merge-CalculateA'), b = document.getElementById('merge-CalculateB');          if (!a || !b) return null;          const tints = col => { const m = {}; for (const l of col.querySelectorAll('.line.piece-block')) {              const k = [...l.classList].find(c => c.startsWith('block-')); const c = getComputedStyle(l).backgroundColor;              (m[k] = m[k] || new Set()).add(c); }            return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, [...v]])); };          return {a: tints(a), b: tints(b), diffs: [a, b].map(c => c.querySelectorAll('.line.piece-diff').length),                  marks: getComputedStyle(a.querySelector('.line.piece-diff'), '::after').content};",
    )
    .await?;
    let (a, b) = (&columns["a"], &columns["b"]);
    let blocks = a.as_object().map(|m| m.len()).unwrap_or(0);
    if blocks != 3 || b.as_object().map(|m| m.len()) != Some(3) {
        return Err(format!("expected 3 tinted blocks in each class, got {columns}").into());
    }
    for k in 0..3 {
        let key = format!("block-{k}");
        let (ta, tb) = (&a[&key], &b[&key]);
        if ta.as_array().map(Vec::len) != Some(1)
            || ta != tb
            || ta[0].as_str().unwrap_or("").contains("rgba(0, 0, 0, 0)")
        {
            return Err(format!("block {k} is not tinted one colour in both classes: {ta} vs {tb}").into());
        }
    }
    if a["block-0"] == a["block-1"] {
        return Err(format!("blocks 0 and 1 share a tint: {columns}").into());
    }
    if columns["diffs"] != serde_json::json!([2, 2]) || !columns["marks"].as_str().unwrap_or("").contains('≠') {
        return Err(format!("expected two marked differing lines per class, got {columns}").into());
    }
    // The data-flow graph: one vertex per parameter and variable, the differences outlined. The task
    // opens on it; it is drawn only while its panel is open.
    if js_str(driver, "return document.getElementById('side').dataset.panel;").await? != "graph" {
        return Err("a merge task does not open on its data-flow graph".into());
    }
    wait_for(driver, "the data-flow graph", "return document.querySelector('#data-flow .flow-node') ? true : null;")
        .await?;
    let nodes = count(driver, "#data-flow .flow-node").await?;
    if nodes != 10 + 25 + 2 || count(driver, "#data-flow .flow-diff").await? != 2 {
        return Err(format!("the data-flow graph shows {nodes} vertices, expected 37 with 2 differences").into());
    }
    browser::click_id(driver, "panel-tab-grade").await?;
    wait_for(driver, "the data-flow graph to go", "return document.getElementById('data-flow') ? null : true;").await?;
    // Hovering a line lights its whole block in both classes.
    let first = driver.find(By::Css("#merge-CalculateA .line.block-1")).await?;
    driver.action_chain().move_to_element_center(&first).perform().await?;
    let lit = wait_for(
        driver,
        "a block lit in both classes",
        "const l = [...document.querySelectorAll('.merge-code .line.lit')];          return l.length && l.every(e => e.classList.contains('block-1')) ?            [document.querySelectorAll('#merge-CalculateA .line.lit').length, document.querySelectorAll('#merge-CalculateB .line.lit').length] : null;",
    )
    .await?;
    if lit[0].as_u64().unwrap_or(0) == 0 || lit[1].as_u64().unwrap_or(0) == 0 {
        return Err(format!("hovering block 1 lit {lit} lines").into());
    }
    driver.screenshot(&shots.join("e2e-merge.png")).await?;
    // The domain does not apply: its control is greyed out and says so.
    let domain = driver.find(By::Id("knob-domain")).await?;
    if domain.attr("disabled").await?.is_none()
        || !domain.attr("title").await?.unwrap_or_default().contains("merge_codebases")
    {
        return Err("the domain control of a merge task is not greyed out with its reason".into());
    }
    // … and folded away with the other settings that do not apply.
    if count(driver, "#knobs-idle:not([open]) #knob-domain").await? != 1 {
        return Err("the domain control of a merge task is not in the closed fold of settings that do not apply".into());
    }
    // The merge knobs: a number and a set, each rewriting the link.
    driver
        .execute(
            "const d = document.getElementById('knob-d'); d.value = '3'; d.dispatchEvent(new Event('change', {bubbles: true}));",
            Vec::new(),
        )
        .await?;
    let three = spec("v=1&kind=merge_codebases&n=25&seed=3&d=3");
    expect_task(driver, &three).await?;
    driver.find(By::Id("knob-transformations-reorder")).await?.click().await?;
    let fewer = spec(
        "v=1&kind=merge_codebases&n=25&seed=3&d=3&transformations=rename_variables,shuffle_lines,multi_lines,logical_equiv",
    );
    expect_task(driver, &fewer).await?;

    // Grading: the reference passes, the starter fails difference_blocks, statically and hidden.
    driver.goto(format!("{base}{}", link(&merge))).await?;
    expect_task(driver, &merge).await?;
    wait_attr(driver, "worker-status", "data-worker", &["connected"]).await?;
    grade_click(driver, "use-reference").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    grade_click(driver, "run-hidden").await?;
    let hidden = wait_attr(driver, "hidden-verdict", "data-passed", &["true", "false", "error"]).await?;
    if hidden != "true" {
        let t = text_of(driver, "hidden-verdict").await?;
        return Err(format!("the merge reference's hidden tests gave {hidden}: {t}").into());
    }
    grade_click(driver, "use-starter").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["false"]).await?;
    if count(driver, "#static-verdict .item[data-passed=\"false\"]").await? != 1 {
        return Err("the merge starter should fail exactly one rubric item (difference_blocks)".into());
    }
    let item = text_of(driver, "static-verdict").await?;
    if !item.contains("CalculateA.compute (line") {
        return Err(format!("the starter's failing item does not name the class and line: {item}").into());
    }
    wait_for(driver, "the old verdict to clear", "return document.getElementById('run-hidden').disabled === false;")
        .await?;
    grade_click(driver, "run-hidden").await?;
    let hidden = wait_attr(driver, "hidden-verdict", "data-passed", &["false", "true", "error"]).await?;
    if hidden != "false" {
        let t = text_of(driver, "hidden-verdict").await?;
        return Err(format!("the merge starter's hidden tests gave {hidden}, expected false: {t}").into());
    }
    driver.screenshot(&shots.join("e2e-merge-grade.png")).await?;
    Ok(())
}

#[tokio::test]
async fn e2e_share_links_open_the_right_task() {
    run_scenario("browser", (1280, 1000), "e2e-failure.png", async |s| {
        scenario(&s.driver, &s.base, &s.shots).await?;
        // Stop the server (and its worker) under the loaded page.
        s.stop_server();
        no_worker(&s.driver, &s.shots).await
    })
    .await;
}

/// The leaf bodies of a runtime body, left to right.
fn runtime_leaves(body: &mut Vec<cabrito_gen::python::Stmt>) -> Vec<&mut Vec<cabrito_gen::python::Stmt>> {
    use cabrito_gen::python::Stmt;
    if let [Stmt::If { .. }] = body.as_slice() {
        let Some(Stmt::If { body, orelse, .. }) = body.first_mut() else { unreachable!() };
        let mut out = runtime_leaves(body);
        out.extend(runtime_leaves(orelse));
        return out;
    }
    vec![body]
}

/// Issue 8 in the browser: a runtime link shows its task; in the code the branches that never run are
/// greyed and the ones that run are not, as the record says; the graph says which branch each function
/// runs; clicking a condition opens "why this branch?" with the check() steps a page at a time; the
/// reference passes (static rubric and hidden tests) and a mutant that copies an edit into a branch
/// that never runs fails branch_placement, whose line link selects the changed block's line.
async fn runtime(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    let s = spec("v=1&kind=add_parameter&domain=math&axis=runtime&n=200&seed=3");
    driver.goto(format!("{base}{}", link(&s))).await?;
    expect_task(driver, &s).await?;
    let gen = cabrito_gen::task::generate_full(&s)?;
    let rec = gen.task.runtime.clone().ok_or("a runtime task without its record")?;
    // Each function: the lines of the branch that never runs are greyed, those of the one that runs not.
    let runs_if: serde_json::Map<String, Value> =
        rec.functions.iter().map(|f| (f.name.clone(), Value::Bool(f.path[0]))).collect();
    let wrong = driver
        .execute(
            "const runsIf = arguments[0]; const bad = []; \
             for (const [name, ifRuns] of Object.entries(runsIf)) { \
               const lines = [...document.querySelectorAll(`#starter-code .line[data-fn='${name}']`)]; \
               const at = lines.findIndex(l => l.textContent.startsWith('    else:')); \
               if (at < 0 || !lines[1].classList.contains('guard')) { bad.push(name + ': no if/else'); continue; } \
               lines.slice(2).forEach((l, i) => { \
                 if (!l.textContent.trim()) return; \
                 const inIf = i + 2 < at, grey = l.classList.contains('never-runs'); \
                 if (i + 2 !== at && grey !== (inIf !== ifRuns)) bad.push(name + ': ' + l.textContent.trim()); }); } \
             return bad;",
            vec![Value::Object(runs_if)],
        )
        .await?
        .json()
        .clone();
    if wrong.as_array().is_none_or(|a| !a.is_empty()) {
        return Err(format!("greyed lines disagree with the branches that run: {wrong}").into());
    }
    let f = &rec.functions[0];
    let runs = driver
        .execute(format!("return document.getElementById('v-{}').dataset.runs;", f.name), Vec::new())
        .await?
        .json()
        .clone();
    if runs.as_str() != Some(f.describe().as_str()) {
        return Err(format!("the graph says {}() runs {runs}, the record {}", f.name, f.describe()).into());
    }
    driver.screenshot(&shots.join("e2e-runtime.png")).await?;

    // "Why this branch?": click the condition of the first function.
    driver.find(By::Css(format!("#starter-code .line.guard[data-fn='{}']", f.name))).await?.click().await?;
    let title =
        wait_for(driver, "the why view", "const e = document.querySelector('#why h2'); return e && e.textContent;")
            .await?;
    if title.as_str() != Some(format!("Why does {}() run {}?", f.name, f.describe()).as_str()) {
        return Err(format!("the why view is titled {title}").into());
    }
    let call = f.guards[0].calls[0];
    let result = text_of(driver, "why-result-0").await?;
    let says = format!("so this call returns {}", if call.value() { "True" } else { "False" });
    if !result.contains(&says) || !result.contains(&format!("After {} steps", call.steps)) {
        return Err(format!("the why view's result reads '{result}', expected it to say '{says}'").into());
    }
    if count(driver, "#why .why-steps tbody tr").await? != 50 {
        return Err("the why view does not show a page of 50 steps".into());
    }
    driver.find(By::Id("why-last")).await?.click().await?;
    wait_for(
        driver,
        "the last page of steps",
        "const e = document.getElementById('why-page'); return e && e.textContent === 'steps 151–200 of 200';",
    )
    .await?;
    driver.screenshot(&shots.join("e2e-runtime-why.png")).await?;
    // A guard on the way is a button that explains it from its first step.
    driver.find(By::Css("#why .why-path button[data-guard='0']")).await?.click().await?;
    wait_for(
        driver,
        "the guard's first page again",
        "const e = document.getElementById('why-page'); return e && e.textContent === 'steps 1–50 of 200';",
    )
    .await?;
    // Close: the list of functions again, the panel's holder hidden.
    browser::click_id(driver, "why-close").await?;
    wait_for(
        driver,
        "the list of functions after Close",
        "const r = document.getElementById('why-root'); \
         return !!document.querySelector('#panel-why .why-functions') && !!r && r.hidden;",
    )
    .await?;
    // And a function of the list opens it again.
    driver.find(By::Css(format!("#why-fn-{}", f.name))).await?.click().await?;
    wait_for(
        driver,
        "the why view again",
        "const r = document.getElementById('why-root'); return !r.hidden && !!document.querySelector('#why h2');",
    )
    .await?;

    // The reference passes here and on the worker.
    wait_attr(driver, "worker-status", "data-worker", &["connected"]).await?;
    open_panel(driver, "grade").await?;
    grade_click(driver, "use-reference").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    if count(driver, "#static-verdict .item[data-id=\"branch_placement\"][data-passed=\"true\"]").await? != 1 {
        return Err("the runtime rubric has no passing branch_placement item for the reference".into());
    }
    grade_click(driver, "run-hidden").await?;
    let hidden = wait_attr(driver, "hidden-verdict", "data-passed", &["true", "false", "error"]).await?;
    if hidden != "true" {
        return Err(format!(
            "the runtime reference's hidden tests gave {hidden}: {}",
            text_of(driver, "hidden-verdict").await?
        )
        .into());
    }

    // A mutant: an edited function's running branch copied into its branch that never runs.
    let (_, built) = gen.call_graph().ok_or("a call-graph task")?;
    let target = rec
        .functions
        .iter()
        .find(|f| gen.task.edit_set.contains(&f.name) && built.starter.functions.iter().any(|x| x.name == f.name))
        .ok_or("no edited function")?;
    let mut module = built.reference.clone();
    let fun = module.functions.iter_mut().find(|x| x.name == target.name).ok_or("the function")?;
    let mut leaves = runtime_leaves(&mut fun.body);
    let copy = leaves[target.leaf].clone();
    *leaves[1 - target.leaf] = copy;
    let mutant = cabrito_gen::python::module(&module);
    let lines: Vec<&str> = mutant.lines().collect();
    let def = lines.iter().position(|l| l.starts_with(&format!("def {}(", target.name))).ok_or("def")?;
    let header = if target.leaf == 1 {
        def + 1
    } else {
        def + lines[def..].iter().position(|l| *l == "    else:").ok_or("else")?
    };
    let idle_line = header + 2;
    driver.execute(browser::SET_ANSWER, vec![Value::String(mutant.clone())]).await?;
    wait_attr(driver, "static-verdict", "data-passed", &["false"]).await?;
    let item = "#static-verdict .item[data-id=\"branch_placement\"][data-passed=\"false\"]";
    if count(driver, item).await? != 1 {
        return Err("the mutant does not fail branch_placement on the page".into());
    }
    // Its reason names the function (as code) and its line link opens the answer in the editor there.
    let reason = driver
        .execute(format!("return document.querySelector('{item} .reason').textContent;"), Vec::new())
        .await?
        .json()
        .as_str()
        .unwrap_or_default()
        .to_string();
    let (at, selected) = browser::follow_line_link(driver, &format!("{item} .line-link")).await?;
    let jump = serde_json::json!({"line": at, "selected": selected, "reason": reason});
    let ok =
        at == idle_line as u64 && selected == lines[idle_line - 1] && reason.starts_with(&format!("{}:", target.name));
    if !ok {
        return Err(format!(
            "the mutant's branch_placement item gave {jump}, expected line {idle_line} of {}",
            target.name
        )
        .into());
    }
    wait_for(driver, "the old verdict to clear", "return document.getElementById('run-hidden').disabled === false;")
        .await?;
    grade_click(driver, "run-hidden").await?;
    let hidden = wait_attr(driver, "hidden-verdict", "data-passed", &["false", "true", "error"]).await?;
    if hidden != "false" {
        return Err(format!("the mutant's hidden verdict is {hidden}, expected false (branch placement)").into());
    }
    driver.screenshot(&shots.join("e2e-runtime-mutant.png")).await?;
    Ok(())
}

/// Issue 9 in the browser: an instructions link shows its task with the numbered requirements beside
/// the code; clicking one shows the reference with exactly that requirement's lines marked and the
/// first in view; the reference passes (static rubric, with constraint_structure, and hidden tests on
/// the worker); a mutant with an assert's bound changed fails constraint_structure, the finding names
/// the requirement and its line, and its line link selects that line in the answer.
async fn instructions(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    use cabrito::playground::requirements::requirements;
    let s = spec("v=1&kind=add_parameter&domain=math&axis=instructions&n=25&seed=3");
    driver.goto(format!("{base}{}", link(&s))).await?;
    expect_task(driver, &s).await?;
    let t = generate(&s)?;
    let reqs = requirements(&t.metadata, &t.solution_code);
    if reqs.len() != 25 || count(driver, "#requirements ol.requirements > li").await? != 25 {
        return Err("the page does not list the task's 25 requirements".into());
    }
    // Click a requirement that applies in more than one function, else the last.
    let r = reqs.iter().find(|r| r.lines.len() > 1).unwrap_or(&reqs[reqs.len() - 1]);
    open_panel(driver, "requirements").await?;
    driver.find(By::Id(format!("req-{}", r.number))).await?.click().await?;
    let marked = wait_for(
        driver,
        "the requirement's lines to be marked",
        "const pre = document.getElementById('reference-code'); if (!pre) return null; \
         const lines = [...pre.querySelectorAll('.line')]; const m = []; \
         lines.forEach((l, i) => { if (l.classList.contains('marked')) m.push(i + 1); }); \
         if (!m.length) return null; \
         const first = lines[m[0] - 1]; \
         const visible = first.offsetTop >= pre.scrollTop && first.offsetTop < pre.scrollTop + pre.clientHeight; \
         return {lines: m, visible, text: first.textContent.trim()};",
    )
    .await?;
    let want: Vec<Value> = r.lines.iter().map(|&l| Value::from(l as u64)).collect();
    if marked.get("lines") != Some(&Value::Array(want)) || marked.get("visible") != Some(&Value::Bool(true)) {
        return Err(format!(
            "requirement {} marks {marked}, expected lines {:?} with the first in view",
            r.number, r.lines
        )
        .into());
    }
    if marked.get("text").and_then(Value::as_str) != Some(r.code.as_str()) {
        return Err(format!("requirement {}'s first marked line is {marked}, expected `{}`", r.number, r.code).into());
    }
    driver.screenshot(&shots.join("e2e-instructions.png")).await?;

    // The reference passes here and on the worker.
    wait_attr(driver, "worker-status", "data-worker", &["connected"]).await?;
    open_panel(driver, "grade").await?;
    grade_click(driver, "use-reference").await?;
    wait_attr(driver, "static-verdict", "data-passed", &["true"]).await?;
    if count(driver, "#static-verdict .item[data-id=\"constraint_structure\"][data-passed=\"true\"]").await? != 1 {
        return Err("the instructions rubric has no passing constraint_structure item for the reference".into());
    }
    grade_click(driver, "run-hidden").await?;
    let hidden = wait_attr(driver, "hidden-verdict", "data-passed", &["true", "false", "error"]).await?;
    if hidden != "true" {
        return Err(format!(
            "the instructions reference's hidden tests gave {hidden}: {}",
            text_of(driver, "hidden-verdict").await?
        )
        .into());
    }

    // A mutant: the first assert requirement's first line with another bound.
    let a = reqs.iter().find(|r| r.code.starts_with("assert ")).ok_or("no assert requirement")?;
    let line = a.lines[0];
    let (head, lit) = a.code.rsplit_once(' ').ok_or("an assert")?;
    let wrong = match lit.parse::<i64>() {
        Ok(x) => format!("{head} {}", x + 7),
        Err(_) => format!("{head} 'Z'"),
    };
    let mut lines: Vec<String> = t.solution_code.lines().map(str::to_string).collect();
    let indent = lines[line - 1].len() - lines[line - 1].trim_start().len();
    lines[line - 1] = format!("{}{wrong}", " ".repeat(indent));
    let mutant = lines.join("\n") + "\n";
    driver.execute(browser::SET_ANSWER, vec![Value::String(mutant.clone())]).await?;
    wait_attr(driver, "static-verdict", "data-passed", &["false"]).await?;
    let item = "#static-verdict .item[data-id=\"constraint_structure\"][data-passed=\"false\"]";
    if count(driver, item).await? != 1 {
        return Err("the mutant does not fail constraint_structure on the page".into());
    }
    // The finding that names the requirement: its line link opens the answer in the editor there.
    let found = driver
        .execute(
            &format!(
                "const f = [...document.querySelectorAll('{item} .finding')]; \
                 const k = f.findIndex(x => x.textContent.includes(arguments[0])); \
                 return k < 0 ? {{findings: f.map(x => x.textContent)}} : {{index: k + 1, finding: f[k].textContent}};"
            ),
            vec![Value::String(format!("requirement {}", a.number))],
        )
        .await?
        .json()
        .clone();
    let Some(k) = found.get("index").and_then(Value::as_u64) else {
        return Err(format!("no finding names requirement {}: {found}", a.number).into());
    };
    let (at, selected) =
        browser::follow_line_link(driver, &format!("{item} .finding:nth-child({k}) .line-link")).await?;
    let jump = serde_json::json!({"line": at, "selected": selected, "finding": found.get("finding")});
    let ok = at == line as u64 && selected == lines[line - 1];
    if !ok {
        return Err(
            format!("the mutant's finding for requirement {} gave {jump}, expected line {line}", a.number).into()
        );
    }
    driver.screenshot(&shots.join("e2e-instructions-mutant.png")).await?;
    Ok(())
}
