//! The generator's extra parts as a module of their own (issue 14 item 3, `web::gen`), in headless
//! Chromium against the real `cabrito serve`: the app's first download lacks Merge Codebases,
//! variable renaming and the runtime, instructions and comment axes; a task link of each fetches
//! `gen_bg.wasm` after the page is up and shows exactly the task the native generator makes (prompt, starter code and the record's hash); a
//! link that needs nothing of it never fetches it; the gallery's cards of those rows fill in from the
//! module once scrolled to; the scale page along those axes does too; the task page's task is
//! generated in the module's Web Worker, not on the main thread, and a failed worker is reported and
//! replaced; and when the module cannot be fetched the page says so and other tasks still open.
//!
//! Needs the built app (`trunk build --release`) and chromedriver; skipped locally without them.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use browser::{fetched_gen_module, js, run_scenario, wait_for, Res};
use cabrito_gen::task::{generate, link, task_hash};
use cabrito_gen::TaskSpec;
use std::path::Path;
use thirtyfour::prelude::*;

fn spec(query: &str) -> TaskSpec {
    TaskSpec::from_pairs(query.split('&').map(|p| p.split_once('=').expect("key=value"))).expect("valid spec")
}

/// JS that is true when the page's task came from the worker index.html's first script starts for a
/// task link of the module's (`web::gen::EARLY`): the app took its answer, a task's tape.
const FROM_EARLY: &str = "const e = window.cabritoEarly; return !!e && e.taken === true && typeof e.took === 'number';";

/// The page shows `spec`'s task as the native generator makes it.
/// JS that is true once the task view shows the task `canonical` with its hash, which is written once
/// the page is idle after the view rendered.
fn task_shown(canonical: &str) -> String {
    format!(
        "const t = document.getElementById('task'); return t && t.dataset.spec === '{canonical}' && !!t.dataset.hash;"
    )
}

async fn expect_task(driver: &WebDriver, spec: &TaskSpec) -> Res {
    let canonical = spec.canonical();
    wait_for(driver, &format!("the task {canonical}"), &task_shown(&canonical), 60).await?;
    let task = generate(spec)?;
    // The statement panel may be drawn a paint after the task view.
    let prompt = wait_for(
        driver,
        &format!("the prompt of {canonical}"),
        "const p = document.getElementById('prompt'); return p ? p.textContent : null;",
        20,
    )
    .await?;
    if prompt.as_str() != Some(task.prompt.as_str()) {
        return Err(format!("the prompt of {canonical} differs from the native one").into());
    }
    let code = wait_for(driver, &format!("the starter code of {canonical}"), browser::STARTER_TEXT, 20).await?;
    if code.as_str() != Some(task.starter_code.as_str()) {
        return Err(format!("the starter code of {canonical} differs from the native one").into());
    }
    let hash = js(driver, "return document.getElementById('task').dataset.hash;", vec![]).await?;
    if hash.as_str() != Some(task_hash(&task).as_str()) {
        return Err(
            format!("the task hash of {canonical} in the browser is {hash}, natively {}", task_hash(&task)).into()
        );
    }
    Ok(())
}

/// The task on the page has the native task's hash (`how`: where the page's task came from).
async fn same_hash(driver: &WebDriver, spec: &TaskSpec, how: &str) -> Res {
    let hash = js(driver, "return document.getElementById('task').dataset.hash;", vec![]).await?;
    let native = task_hash(&generate(spec)?);
    if hash.as_str() != Some(native.as_str()) {
        return Err(format!("the task hash of {} {how} is {hash}, natively {native}", spec.canonical()).into());
    }
    Ok(())
}

async fn scenario(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    // A task the first download generates itself: no module.
    let plain = spec("v=1&kind=dead_code&domain=math&axis=traversal&n=10&seed=3");
    driver.goto(format!("{base}{}", link(&plain))).await?;
    expect_task(driver, &plain).await?;
    if fetched_gen_module(driver).await?
        || js(driver, "return 'cabritoEarly' in window;", vec![]).await?.as_bool() == Some(true)
    {
        return Err("a traversal task fetched the generator module, or started its worker".into());
    }

    // Each part the first download leaves out, opened fresh by its link: fetched, then the same task.
    for query in [
        "v=1&kind=add_parameter&domain=math&axis=runtime&n=10&seed=4",
        "v=1&kind=cache_function&domain=string&axis=instructions&n=10&seed=5",
        "v=1&kind=merge_codebases&n=30&seed=6",
        "v=1&kind=extract_helper&domain=array&axis=comment&n=12&seed=7",
        "v=1&kind=variable_renaming&n=8&seed=8&chain=40",
    ] {
        let s = spec(query);
        driver.goto("about:blank").await?;
        driver.goto(format!("{base}{}", link(&s))).await?;
        expect_task(driver, &s).await?;
        // Opened fresh: from the module's worker index.html's first script started (`web::gen::EARLY`).
        if js(driver, FROM_EARLY, vec![]).await?.as_bool() != Some(true) {
            return Err(format!("{query} was not made by the early worker: is the first download lean?").into());
        }
        if s.axis == cabrito_gen::spec::Axis::Runtime {
            // The page never loaded the module itself; "why this branch?" loads it, and works a call out.
            if js(driver, "return 'cabritoGen' in window;", vec![]).await?.as_bool() != Some(false) {
                return Err("the page loaded the generator module although the early worker made its task".into());
            }
            driver.find(By::Css("#starter-code .line.guard")).await?.click().await?;
            let said = wait_for(
                driver,
                "the why panel's first call",
                "const e = document.getElementById('why-result-0'); return e && e.textContent;",
                30,
            )
            .await?;
            if !said.as_str().is_some_and(|t| t.contains("so this call returns")) {
                return Err(format!("the why panel of {query} says {said}").into());
            }
        }
    }
    driver.screenshot(&shots.join("gensplit-merge.png")).await?;

    // The hand-over at n = 2,000 (the largest Merge Codebases task and a runtime task): the same task,
    // and what crossing took, from the module's mark after generating to the task read in the app
    // (`web::gen::HANDOFF_MEASURE`; printed for BENCHMARKS, never asserted).
    for query in
        ["v=1&kind=merge_codebases&n=2000&seed=1", "v=1&kind=add_parameter&domain=math&axis=runtime&n=2000&seed=1"]
    {
        let s = spec(query);
        driver.goto("about:blank").await?;
        driver.goto(format!("{base}{}", link(&s))).await?;
        // The code view shows a window of a long file: the record's hash says it is the same task.
        let canonical = s.canonical();
        wait_for(driver, &format!("the task {canonical}"), &task_shown(&canonical), 120).await?;
        same_hash(driver, &s, "in the browser").await?;
        let took = js(
            driver,
            "const m = performance.getEntriesByName('cabrito-gen-handoff'); \
             const g = performance.getEntriesByName('cabrito-generate'); \
             return JSON.stringify({ handoff: m.map(e => e.duration), generate_here: g.map(e => e.duration) });",
            vec![],
        )
        .await?;
        println!("hand-over of {query}: {took}");
    }

    // Off the main thread: the task page's task comes from the module's Web Worker (a blob script the
    // module makes once and reuses), never from the module's main-thread `generate`; Merge Codebases
    // at n = 1,000 (about 240 ms of generating) is still the native task.
    driver.goto("about:blank").await?;
    driver.goto(format!("{base}{}", link(&plain))).await?;
    expect_task(driver, &plain).await?;
    js(
        driver,
        "window.__workers = []; const W = window.Worker; \
         window.Worker = function (u, o) { window.__workers.push(String(u)); return new W(u, o); }; \
         window.Worker.prototype = W.prototype; window.__longest = 0; \
         new PerformanceObserver(l => { for (const e of l.getEntries()) \
           window.__longest = Math.max(window.__longest, e.duration); }).observe({ type: 'longtask' });",
        vec![],
    )
    .await?;
    let blob_workers = "return window.__workers.filter(u => u.startsWith('blob:')).length;";
    let small = spec("v=1&kind=merge_codebases&n=30&seed=9");
    js(driver, &format!("location.hash = {:?};", link(&small)), vec![]).await?;
    expect_task(driver, &small).await?;
    if js(driver, blob_workers, vec![]).await?.as_u64() != Some(1) {
        return Err("the merge task was not generated in a worker of the module's".into());
    }
    js(
        driver,
        "window.__here = 0; const g = window.cabritoGen.generate; \
         window.cabritoGen.generate = function (q) { window.__here++; return g.call(this, q); };",
        vec![],
    )
    .await?;
    let big = spec("v=1&kind=merge_codebases&n=1000&seed=3");
    js(driver, &format!("location.hash = {:?};", link(&big)), vec![]).await?;
    wait_for(driver, "the merge task at n = 1,000", &task_shown(&big.canonical()), 120).await?;
    same_hash(driver, &big, "from the worker").await?;
    let here = js(driver, "return window.__here;", vec![]).await?;
    let workers = js(driver, blob_workers, vec![]).await?;
    if here.as_u64() != Some(0) || workers.as_u64() != Some(1) {
        return Err(format!(
            "merge n = 1,000: the main thread's generate ran {here} times, {workers} blob workers were made (want 0 and 1)"
        )
        .into());
    }
    let longest = js(driver, "return window.__longest;", vec![]).await?;
    println!("merge n = 1,000 from the worker: the page's longest task {longest} ms");

    // Opened fresh, a link of the module's: index.html's first script starts the module's worker at
    // once, beside the app's download, and asks it for the link's task (`web::gen::EARLY`); the page
    // shows that answer, and the module's own worker is never made. When the browser refuses that
    // first worker, the page asks the module's own and shows the same task. (A script run before
    // the page's own counts the workers made (the module's are blob scripts), and refuses the first when `__refuse` is set.)
    let cdp = driver.cdp();
    let before_page =
        |source: &str| cdp.send_raw("Page.addScriptToEvaluateOnNewDocument", serde_json::json!({ "source": source }));
    let counting = before_page(
        "window.__workers = []; const W = window.Worker; \
         window.Worker = function (u, o) { window.__workers.push(String(u)); \
           if (window.__refuse && window.__workers.length === 1) \
             u = URL.createObjectURL(new Blob(['throw new Error(\"refused\")'], { type: 'text/javascript' })); \
           return new W(u, o); }; \
         window.Worker.prototype = W.prototype;",
    )
    .await?;
    let early_state = "const e = window.cabritoEarly; \
         return JSON.stringify([!!(e && e.taken), e ? typeof e.took : 'none', \
         window.__workers.filter(u => u.startsWith('blob:')).length]);";
    driver.goto("about:blank").await?;
    driver.goto(format!("{base}{}", link(&big))).await?;
    wait_for(driver, "the merge task at n = 1,000, opened fresh", &task_shown(&big.canonical()), 120).await?;
    same_hash(driver, &big, "from the early worker").await?;
    let state = js(driver, early_state, vec![]).await?;
    if state.as_str() != Some(r#"[true,"number",1]"#) {
        return Err(format!(
            "merge n = 1,000 opened fresh: [taken, took, blob workers made] is {state}, want [true,\"number\",1]"
        )
        .into());
    }
    let took = js(
        driver,
        "return [window.cabritoEarly.took, performance.getEntriesByName('cabrito-task-rendered')[0].startTime];",
        vec![],
    )
    .await?;
    println!("merge n = 1,000 opened fresh: [generated in the early worker (ms), task rendered (ms)] = {took}");
    let refuse = before_page("window.__refuse = true;").await?;
    let refused = spec("v=1&kind=add_parameter&domain=math&axis=runtime&n=30&seed=12");
    driver.goto("about:blank").await?;
    driver.goto(format!("{base}{}", link(&refused))).await?;
    expect_task(driver, &refused).await?;
    let state = js(driver, early_state, vec![]).await?;
    if state.as_str() != Some(r#"[true,"undefined",2]"#) {
        return Err(format!("a runtime link whose early worker was refused: [taken, took, blob workers made] is {state}, want [true,\"undefined\",2]").into());
    }
    for added in [refuse, counting] {
        let id = added["identifier"].clone();
        cdp.send_raw("Page.removeScriptToEvaluateOnNewDocument", serde_json::json!({ "identifier": id })).await?;
    }

    // The worker fails (here: its script throws at once): the page says so, and the next task makes a
    // new worker and shows.
    driver.goto("about:blank").await?;
    driver.goto(format!("{base}{}", link(&plain))).await?;
    expect_task(driver, &plain).await?;
    js(
        driver,
        "window.__W = window.Worker; \
         window.Worker = function () { return new window.__W(URL.createObjectURL( \
           new Blob(['throw new Error(\"no generator here\")'], { type: 'text/javascript' }))); };",
        vec![],
    )
    .await?;
    let broken = spec("v=1&kind=merge_codebases&n=30&seed=10");
    js(driver, &format!("location.hash = {:?};", link(&broken)), vec![]).await?;
    let said = wait_for(
        driver,
        "the worker's failure",
        "const e = document.getElementById('generate-error'); return e && e.textContent;",
        30,
    )
    .await?;
    let said = said.as_str().unwrap_or_default().to_string();
    if !said.contains("failed in its worker") || !said.contains("no generator here") {
        return Err(format!("the page says of a failed worker: {said}").into());
    }
    js(driver, "window.Worker = window.__W;", vec![]).await?;
    let again = spec("v=1&kind=merge_codebases&n=30&seed=11");
    js(driver, &format!("location.hash = {:?};", link(&again)), vec![]).await?;
    expect_task(driver, &again).await?;

    // The gallery: the runtime and instructions rows and the merge card fill in from the module
    // once scrolled to (each waits until it is near the viewport: tests/gallery_lazy_e2e.rs).
    driver.goto("about:blank").await?;
    driver.goto(format!("{base}#/")).await?;
    wait_for(
        driver,
        "every gallery card generated",
        "const s = [...document.querySelectorAll('.card-stats')]; \
         const w = s.find(e => /loading/.test(e.textContent)); if (w) w.scrollIntoView(); \
         return s.length > 0 && s.every(e => !/generating|loading|could not/.test(e.textContent));",
        60,
    )
    .await?;
    for id in ["card-runtime-dead_code", "card-instructions-add_parameter"] {
        let stats = js(
            driver,
            &format!(
                "const c = document.getElementById('{id}'); return c && c.querySelector('.card-stats').textContent;"
            ),
            vec![],
        )
        .await?;
        if !stats.as_str().is_some_and(|t| t.contains("functions")) {
            return Err(format!("the card #{id} shows {stats}").into());
        }
    }
    driver.screenshot(&shots.join("gensplit-gallery.png")).await?;

    // The scale page along the runtime axis: one row per paper size, from the module.
    let scale = spec("v=1&kind=dead_code&domain=math&axis=runtime&n=10&seed=1");
    driver.goto(format!("{base}{}", cabrito::playground::route::scale_fragment(&scale))).await?;
    let sizes = scale.axis.def().paper_sizes().len();
    wait_for(
        driver,
        "the scale page's rows",
        &format!("return document.querySelectorAll('#scale-table tbody tr').length === {sizes};"),
        60,
    )
    .await?;

    // A page that loaded the generator module loads another lazy module too (their glue, each
    // declaring `wasm_bindgen`, once clashed): the agents page, then a merge task again.
    let agents = spec("v=1&kind=dead_code&domain=math&axis=traversal&n=5&seed=2");
    driver.goto(format!("{base}{}", cabrito::playground::route::agents_fragment(&agents))).await?;
    wait_for(
        driver,
        "the agents page",
        "if (document.getElementById('agents-error')) return 'error: ' + document.getElementById('agents-error').textContent; \
         const w = document.getElementById('watch'); return w && w.dataset.steps;",
        60,
    )
    .await
    .and_then(|v| match v.as_str() {
        Some(e) if e.starts_with("error") => Err(e.to_string().into()),
        _ => Ok(v),
    })?;
    if !fetched_gen_module(driver).await? {
        return Err("the agents step ran in a page without the generator module".into());
    }
    let merge = spec("v=1&kind=merge_codebases&n=30&seed=7");
    driver.goto(format!("{base}{}", link(&merge))).await?;
    expect_task(driver, &merge).await?;

    // The module cannot be fetched: the page says what is missing, and other tasks still open.
    driver.goto("about:blank").await?;
    driver.goto(format!("{base}{}", link(&plain))).await?;
    expect_task(driver, &plain).await?;
    js(
        driver,
        "const f = window.fetch; \
         window.fetch = function (r, i) { \
           const u = typeof r === 'string' ? r : r.url; \
           return f.call(this, /gen\\.js$/.test(u) ? 'no-such-gen.js' : r, i); };",
        vec![],
    )
    .await?;
    let runtime = spec("v=1&kind=dead_code&domain=math&axis=runtime&n=20&seed=8");
    driver.goto(format!("{base}{}", link(&runtime))).await?;
    let said = wait_for(
        driver,
        "the module's error",
        "const e = document.getElementById('gen-error'); return e && e.textContent;",
        30,
    )
    .await?;
    let said = said.as_str().unwrap_or_default().to_string();
    if !said.contains("runtime-resolution generator") || !said.contains("could not be") {
        return Err(format!("the error for an unreachable module says: {said}").into());
    }
    driver.screenshot(&shots.join("gensplit-error.png")).await?;
    let other = spec("v=1&kind=extract_helper&domain=array&axis=search&n=10&seed=9");
    driver.goto(format!("{base}{}", link(&other))).await?;
    expect_task(driver, &other).await?;
    Ok(())
}

#[tokio::test]
async fn e2e_gen_module_makes_the_same_tasks() {
    run_scenario("gensplit", (1280, 1000), "gensplit-failure.png", async |s| {
        scenario(&s.driver, &s.base, &s.shots).await
    })
    .await;
}
