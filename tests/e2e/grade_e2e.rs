//! End to end in headless Chromium against the real `cabrito serve`: the task page's grade panel. It
//! grades the task the link names, byte for byte, following each new task; a link with
//! `panel=grade` shows the panel with the link's shared solution without a click; an `n = 2,000`
//! task's panel grades that task; and when the static checker's worker cannot be fetched the panel
//! says so, while the code, the graph and the other panels keep working.
//!
//! Needs what tests/browser_e2e.rs needs (dist/, chromedriver, Chromium); without them the test is
//! skipped with a message, except under CI.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use browser::*;
use cabrito_gen::task::{generate, link};
use cabrito_gen::TaskSpec;
use serde_json::Value;
use std::path::Path;
use thirtyfour::prelude::*;

fn spec(query: &str) -> TaskSpec {
    TaskSpec::from_pairs(query.split('&').map(|p| p.split_once('=').expect("key=value"))).expect("valid spec")
}

async fn open_task(driver: &WebDriver, url: &str, s: &TaskSpec) -> Res {
    driver.goto(url).await?;
    let canonical = s.canonical();
    wait_for(
        driver,
        &format!("the task {canonical}"),
        &format!("const t = document.getElementById('task'); return t && t.dataset.spec === '{canonical}';"),
        60,
    )
    .await?;
    Ok(())
}

/// The answer box's text after a click on `button` (`use-starter` or `use-reference`).
async fn pasted(driver: &WebDriver, button: &str) -> Res<String> {
    click_id(driver, button).await?;
    let v = wait_for(
        driver,
        "the pasted answer",
        "const t = document.getElementById('solution'); return t && t.value.length > 0 ? t.value : null;",
        20,
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

/// A fresh task page on another tab than Grade: its grade panel (in the hidden tab) grades the
/// link's task and follows the next one.
async fn grades_the_links_task(driver: &WebDriver, base: &str) -> Res {
    let s = spec("v=1&kind=add_parameter&domain=math&axis=traversal&n=25&seed=3");
    open_task(driver, &format!("{base}index.html?fresh=1{}&panel=statement", link(&s)), &s).await?;
    let v = wait_for(
        driver,
        "the first paint and the task view",
        "const p = performance.getEntriesByName('first-contentful-paint')[0]; \
         const t = performance.getEntriesByName('cabrito-task-rendered')[0]; \
         return p && t ? {paint: p.startTime, rendered: t.startTime} : null;",
        60,
    )
    .await?;
    let at = |k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
    println!(
        "timing {}: first contentful paint {:.0} ms, task view rendered {:.0} ms",
        s.to_query(),
        at("paint"),
        at("rendered")
    );
    wait_for(driver, "the grade panel", "return !!document.getElementById('solution');", 30).await?;
    js(driver, "document.getElementById('panel-tab-grade').click(); return true;", vec![]).await?;
    let task = generate(&s)?;
    if pasted(driver, "use-starter").await? != task.starter_code {
        return Err("the grade panel's starter is not the link's task's".into());
    }
    wait_for(
        driver,
        "the starter's rubric",
        "const v = document.getElementById('static-verdict'); return v && v.dataset.passed === 'false';",
        60,
    )
    .await?;
    // A new seed: the panel's task follows (and the answer is cleared).
    let next = spec("v=1&kind=add_parameter&domain=math&axis=traversal&n=25&seed=4");
    js(driver, &format!("location.hash = '{}'; return true;", link(&next)), vec![]).await?;
    let canonical = next.canonical();
    wait_for(
        driver,
        "the next task",
        &format!(
            "const t = document.getElementById('task'); const a = document.getElementById('solution'); \
             return t && t.dataset.spec === '{canonical}' && a && a.value === '';"
        ),
        30,
    )
    .await?;
    let task = generate(&next)?;
    if pasted(driver, "use-reference").await? != task.solution_code {
        return Err("after a new seed, the grade panel's reference is not the new task's".into());
    }
    wait_for(
        driver,
        "the reference's rubric",
        "const v = document.getElementById('static-verdict'); return v && v.dataset.passed === 'true';",
        60,
    )
    .await?;
    console_clean(driver, "a task page and its grade panel").await
}

/// A link that asks for the grade panel shows it without a click, with the link's shared solution.
async fn grade_link(driver: &WebDriver, base: &str) -> Res {
    let s = spec("v=1&kind=dead_code&domain=string&axis=search&n=10&seed=5");
    let task = generate(&s)?;
    let url = format!(
        "{base}index.html?fresh=2{}&panel=grade&{}={}",
        link(&s),
        cabrito::playground::share::SOLUTION_KEY,
        cabrito::playground::share::encode_solution(&task.solution_code)
    );
    open_task(driver, &url, &s).await?;
    let v = wait_for(
        driver,
        "the grade panel with the shared solution, rubric passed",
        "const a = document.getElementById('solution'); const v = document.getElementById('static-verdict'); \
         const b = document.getElementById('panel-grade'); \
         return a && v && v.dataset.passed === 'true' && !b.hidden ? a.value : null;",
        60,
    )
    .await?;
    if v.as_str() != Some(task.solution_code.as_str()) {
        return Err("the shared solution in the grade panel is not the one in the link".into());
    }
    console_clean(driver, "a link with panel=grade").await
}

/// At `n = 2,000`: the grade panel grades the link's task; what generating it took is printed.
async fn big_task(driver: &WebDriver, base: &str) -> Res {
    let s = spec("v=1&kind=add_parameter&domain=math&axis=traversal&n=2000&seed=3");
    open_task(driver, &format!("{base}index.html?fresh=3{}&panel=grade", link(&s)), &s).await?;
    let v = wait_for(
        driver,
        "the n = 2,000 task's grade panel",
        "const g = performance.getEntriesByName('cabrito-generate', 'measure'); \
         return g.length && document.getElementById('solution') ? g[g.length - 1].duration : null;",
        120,
    )
    .await?;
    let task = generate(&s)?;
    if pasted(driver, "use-starter").await? != task.starter_code {
        return Err("the n = 2,000 grade panel's starter is not the link's task's".into());
    }
    println!(
        "timing n=2000 {}: generating the task in the page {:.1} ms ({} B of starter, {} B of reference)",
        s.to_query(),
        v.as_f64().unwrap_or(f64::NAN),
        task.starter_code.len(),
        task.solution_code.len()
    );
    console_clean(driver, "an n = 2,000 task's grade panel").await
}

/// With the static checker's worker missing from the server: the grade panel says the static
/// checks cannot run and why, and the code, the graph and the statement still work.
async fn checker_missing(driver: &WebDriver, base: &str) -> Res {
    let s = spec("v=1&kind=add_parameter&domain=math&axis=traversal&n=10&seed=8");
    open_task(driver, &format!("{base}{}&panel=grade", link(&s)), &s).await?;
    // The panel on show is drawn a paint after the task view.
    click_id(driver, "use-starter").await?;
    let v = wait_for(
        driver,
        "the grade panel's notice",
        "const e = document.querySelector('#static-pending[data-checker=\"failed\"]'); return e ? e.textContent : null;",
        60,
    )
    .await?;
    let text = v.as_str().unwrap_or_default();
    if !(text.contains("The static checker could not run here") && text.contains("hidden tests")) {
        return Err(format!("the grade panel's notice reads {text:?}").into());
    }
    // The rest of the page works: the starter's code, the graph (a click selects a function), the statement.
    let task = generate(&s)?;
    let first = task.starter_code.lines().find(|l| l.starts_with("def ")).unwrap_or_default().to_string();
    let code =
        js(driver, "const c = document.getElementById('starter-code'); return c ? c.textContent : '';", vec![]).await?;
    if !code.as_str().unwrap_or_default().contains(&first) {
        return Err(format!("the starter code is not shown (looking for {first:?})").into());
    }
    driver.find(By::Id("panel-tab-graph")).await?.click().await?;
    let name = task.edit_set.first().ok_or("the task edits nothing")?.clone();
    driver.find(By::Id(format!("v-{name}"))).await?.click().await?;
    wait_for(
        driver,
        &format!("the code of {name} to be highlighted after a click on its vertex"),
        "const l = [...document.querySelectorAll('#starter-code .line.selected')]; return l.length ? l.map(e => e.dataset.fn) : null;",
        20,
    )
    .await?;
    js(driver, "document.getElementById('panel-tab-statement').click(); return true;", vec![]).await?;
    wait_for(
        driver,
        "the statement",
        "const p = document.getElementById('prompt'); return p && !document.getElementById('panel-statement').hidden && p.textContent.length > 0;",
        20,
    )
    .await?;
    let fatal =
        js(driver, "const e = document.getElementById('fatal'); return e ? e.textContent : null;", vec![]).await?;
    if let Some(t) = fatal.as_str() {
        return Err(format!("the app stopped without its checker: {t}").into());
    }
    Ok(())
}

/// The same app as `dist` with its checker worker taken away (a failed fetch).
fn without_checker(dist: &Path) -> Res<tempfile::TempDir> {
    let broken = tempfile::tempdir()?;
    for entry in std::fs::read_dir(dist)? {
        let entry = entry?;
        let name = entry.file_name();
        if entry.path().is_file() && !name.to_string_lossy().starts_with("checker") {
            std::fs::copy(entry.path(), broken.path().join(&name))?;
        }
    }
    Ok(broken)
}

#[tokio::test]
async fn e2e_grade_panel() {
    run_scenario("grade panel", (1280, 1000), "grade-e2e-failure.png", async |s| {
        let broken = without_checker(&s.setup.dist)?;
        let (_broken_server, broken_base) = start_server(broken.path())?;
        grades_the_links_task(&s.driver, &s.base).await?;
        grade_link(&s.driver, &s.base).await?;
        big_task(&s.driver, &s.base).await?;
        checker_missing(&s.driver, &broken_base).await
    })
    .await;
}
