//! End to end in headless Chromium against the real `cabrito serve`: the classroom screen's other
//! pages (issue 30 stories 4, 5, 7 and 9, issue 32 item 5). At 1280×720 (a projector), light, dark
//! and in large type, each story's named elements lie inside the window with the page not scrolled:
//!
//! - the gallery's first screen: what Cabra is with the paper's link, a first step, one card per
//!   kind and per axis with distinct pictures, the header's tagline whole;
//! - the agents page: the watched call, `solution.py` and every column of the ledger together; and
//!   walking, the console's last output still in view (and tall) once the grade box fills in;
//! - Results opening on its marked sample with "load your own" beside it, the accuracy plot with
//!   the frontier drawn, the paired comparison and the frontier table; their numbers are those of
//!   `cabrito report` on the same files;
//! - Traces opening on its marked sample with a labelled timeline and the task beside it.
//!
//! At 390×844 (a phone) the same pages in reading order with nothing wider than the screen. Hostile
//! input through the sample loaders and "load your own" (a sample that is not one, a huge file, a
//! binary file) gets a clear message and the page lives. Screenshots go to test-artifacts/.
//!
//! Needs what tests/browser_e2e.rs needs (dist/, chromedriver, Chromium). Without them the test is
//! skipped with a message, except under CI.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use browser::*;
use serde_json::{json, Value};
use std::path::Path;
use thirtyfour::prelude::*;

/// Make the page exactly `size` (the window's outer size is not the page's).
async fn size_page(driver: &WebDriver, size: (u32, u32)) -> Res {
    for _ in 0..3 {
        let inner = js(driver, "return [innerWidth, innerHeight];", vec![]).await?;
        let (iw, ih) = (inner[0].as_i64().unwrap_or(0), inner[1].as_i64().unwrap_or(0));
        if (iw, ih) == (size.0 as i64, size.1 as i64) {
            return Ok(());
        }
        let rect = driver.get_window_rect().await?;
        driver
            .set_window_rect(0, 0, (rect.width + size.0 as i64 - iw) as u32, (rect.height + size.1 as i64 - ih) as u32)
            .await?;
    }
    Ok(())
}

/// Each selector's elements (the first, or every one for `all:…`) have a size and lie inside the
/// window, the page is not scrolled and nothing is wider than the window. What failed, if anything.
async fn in_view(driver: &WebDriver, what: &str, selectors: &[&str]) -> Res {
    let v = js(
        driver,
        "const out = []; const W = innerWidth, H = innerHeight; const se = document.scrollingElement; \
         if (se.scrollTop !== 0 || se.scrollLeft !== 0) out.push(`the page is scrolled to ${se.scrollLeft},${se.scrollTop}`); \
         if (se.scrollWidth > W + 1) out.push(`the page is ${se.scrollWidth} px wide in a ${W} px window`); \
         for (const item of arguments[0]) { const all = item.startsWith('all:'); const sel = all ? item.slice(4) : item; \
           const els = all ? [...document.querySelectorAll(sel)] : [document.querySelector(sel)].filter(Boolean); \
           if (!els.length) { out.push(`no ${sel}`); continue; } \
           for (const e of els) { const r = e.getBoundingClientRect(); \
             if (r.width < 1 || r.height < 1) out.push(`${sel} is not shown`); \
             else if (r.top < -0.5 || r.left < -0.5 || r.bottom > H + 0.5 || r.right > W + 0.5) \
               out.push(`${sel} at ${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)} is outside the ${W}×${H} window`); } } \
         return out.join('; ');",
        vec![json!(selectors)],
    )
    .await?;
    match v.as_str().filter(|s| !s.is_empty()) {
        None => Ok(()),
        Some(why) => Err(format!("{what}: {why}").into()),
    }
}

/// The selectors' first elements come in this order down the page (a phone's reading order), and
/// nothing is wider than the screen.
async fn in_order(driver: &WebDriver, what: &str, selectors: &[&str]) -> Res {
    let v = js(
        driver,
        "const out = []; const se = document.scrollingElement; \
         if (se.scrollWidth > innerWidth + 1) out.push(`the page is ${se.scrollWidth} px wide in a ${innerWidth} px window`); \
         let last = -Infinity, lastSel = ''; \
         for (const sel of arguments[0]) { const e = document.querySelector(sel); if (!e) { out.push(`no ${sel}`); continue; } \
           const r = e.getBoundingClientRect(); const top = r.top + scrollY; \
           if (r.width < 1) out.push(`${sel} is not shown`); \
           if (r.right > innerWidth + 0.5) out.push(`${sel} reaches ${Math.round(r.right)} px in a ${innerWidth} px window`); \
           if (top + 0.5 < last) out.push(`${sel} (at ${Math.round(top)}) comes above ${lastSel} (at ${Math.round(last)})`); \
           last = top; lastSel = sel; } \
         return out.join('; ');",
        vec![json!(selectors)],
    )
    .await?;
    match v.as_str().filter(|s| !s.is_empty()) {
        None => Ok(()),
        Some(why) => Err(format!("{what}: {why}").into()),
    }
}

/// Open a fragment afresh (a reload, so a page module starts from its first visit).
async fn open(driver: &WebDriver, base: &str, fragment: &str) -> Res {
    driver.goto(format!("{base}{fragment}")).await?;
    js(driver, "if (location.hash !== arguments[0]) location.hash = arguments[0];", vec![json!(fragment)]).await?;
    Ok(())
}

/// The reader's theme and type size, as the app keeps them, from the next load on.
async fn look(driver: &WebDriver, base: &str, theme: &str, large: bool) -> Res {
    driver.goto(base.to_string()).await?;
    js(
        driver,
        "localStorage.setItem('cabrito-theme', arguments[0]); localStorage.setItem('cabrito-large-type', arguments[1] ? 'on' : 'off'); return true;",
        vec![json!(theme), json!(large)],
    )
    .await?;
    Ok(())
}

async fn gallery(driver: &WebDriver, base: &str, tag: &str, shots: &Path) -> Res {
    open(driver, base, "#/").await?;
    wait_for(
        driver,
        "the gallery's range",
        "return document.querySelectorAll('#gallery-intro .mini-card').length >= 12;",
        30,
    )
    .await?;
    in_view(
        driver,
        &format!("{tag}: the gallery's first screen"),
        &[
            "#gallery-intro h1",
            "#what-is-cabra",
            "#paper-link",
            "#first-step",
            "all:#range-kinds .mini-card",
            "all:#range-axes .mini-card",
            ".topbar .tagline",
        ],
    )
    .await?;
    let v = js(
        driver,
        "const t = document.querySelector('.topbar .tagline'); \
         const pics = [...document.querySelectorAll('#gallery-intro .pictogram')].map(p => p.innerHTML); \
         const kinds = document.querySelectorAll('#range-kinds .mini-card').length, axes = document.querySelectorAll('#range-axes .mini-card').length; \
         return [t.scrollWidth <= t.clientWidth + 1 && t.scrollHeight <= t.clientHeight + 1, pics.length, new Set(pics).size, kinds, axes, \
           document.getElementById('paper-link').href];",
        vec![],
    )
    .await?;
    if v[0] != json!(true) {
        return Err(format!("{tag}: the header's tagline is cut").into());
    }
    let kinds = cabrito_gen::spec::Kind::ALL.len() as u64;
    let axes = cabrito_gen::spec::Axis::ALL.len() as u64;
    if v[3] != json!(kinds) || v[4] != json!(axes) || v[1] != v[2] {
        return Err(format!(
            "{tag}: the range shows {} kinds of {kinds}, {} axes of {axes}, {} distinct pictures of {}",
            v[3], v[4], v[2], v[1]
        )
        .into());
    }
    if !v[5].as_str().unwrap_or("").starts_with("https://") {
        return Err(format!("{tag}: the paper's link is {}", v[5]).into());
    }
    driver.screenshot(&shots.join(format!("pages-{tag}-gallery.png"))).await?;
    // The first step opens a task.
    let href = js(driver, "return document.getElementById('first-step').getAttribute('href');", vec![]).await?;
    if !href.as_str().unwrap_or("").starts_with("#/task?") {
        return Err(format!("{tag}: the first step goes to {href}").into());
    }
    console_clean(driver, &format!("{tag}: the gallery")).await
}

async fn agents(driver: &WebDriver, base: &str, tag: &str, shots: &Path) -> Res {
    open(driver, base, "#/agents?v=1&n=25&seed=3").await?;
    wait_for(driver, "the agents page", "return !!document.querySelector('#watch #step-next');", 60).await?;
    // Step to the first edit: the moves, the code they touch and the ledger so far.
    for _ in 0..40 {
        let tool =
            js(driver, "const c = document.getElementById('current-call'); return c ? c.dataset.tool : null;", vec![])
                .await?;
        if tool == json!("edit") || tool == json!("end") {
            break;
        }
        driver.find(By::Id("step-next")).await?.click().await?;
    }
    let ledger_ths =
        js(driver, "return [...document.querySelectorAll('#watch-ledger thead th')].map(t => t.textContent);", vec![])
            .await?;
    if ledger_ths.as_array().map_or(0, Vec::len) != 8 {
        return Err(format!("{tag}: the ledger's columns are {ledger_ths}").into());
    }
    in_view(
        driver,
        &format!("{tag}: the agents page, watching"),
        &[
            "#step-next",
            "#current-call h2",
            "#agent-code",
            "#agent-code .line.edited",
            "all:#watch-ledger thead th",
            "all:#watch-ledger tbody tr:last-child td",
            "#watch-ledger .ledger-total",
            "#agent-graph",
        ],
    )
    .await?;
    driver.screenshot(&shots.join(format!("pages-{tag}-agents-watch.png"))).await?;

    driver.find(By::Id("tab-walk")).await?.click().await?;
    wait_for(driver, "the console", "return !!document.getElementById('console-input');", 20).await?;
    let area = driver.find(By::Id("console-input")).await?;
    area.send_keys("view 1 20").await?;
    area.send_keys(Key::Enter).await?;
    wait_for(
        driver,
        "the view's output",
        "return document.querySelectorAll('#console-log .console-entry').length === 1;",
        20,
    )
    .await?;
    // The grade box fills in (a learner's hints), then the session is submitted: the console's
    // output stays in view, more than a line of it.
    driver.find(By::Id("console-hints")).await?.click().await?;
    wait_for(driver, "the hints", "return !!document.querySelector('#final-grade.hints #static-verdict');", 20).await?;
    let area = driver.find(By::Id("console-input")).await?;
    area.send_keys("submit").await?;
    area.send_keys(Key::Enter).await?;
    wait_for(driver, "the grade after submit", "const e = document.getElementById('console-input'); return e && e.disabled && !!document.getElementById('static-verdict');", 20).await?;
    js(driver, "const l = document.getElementById('console-log'); l.scrollTop = 0; return true;", vec![]).await?;
    in_view(
        driver,
        &format!("{tag}: the agents page, walking"),
        &[
            "#console-log .console-entry pre",
            "#console-input",
            "#walk-code",
            "#static-verdict",
            "all:#walk-ledger thead th",
        ],
    )
    .await?;
    let h = js(driver, "return [document.getElementById('console-log').getBoundingClientRect().height, document.querySelector('#console-log .console-entry pre').getBoundingClientRect().height];", vec![]).await?;
    if h[0].as_f64().unwrap_or(0.0) < 150.0 || h[1].as_f64().unwrap_or(0.0) < 100.0 {
        return Err(
            format!("{tag}: the console's output shrank to {h} px (log, first output) once the grade came").into()
        );
    }
    driver.screenshot(&shots.join(format!("pages-{tag}-agents-walk.png"))).await?;
    console_clean(driver, &format!("{tag}: the agents page")).await
}

/// `cabrito report`'s paired comparison of the sample (tables/paired.csv), as (header, row).
fn report_paired() -> Res<Vec<(String, String)>> {
    let bundle = cabrito::playground::sample::parse(include_bytes!("../../www/samples/results.json"))?;
    let dir = tempfile::tempdir()?;
    for (path, bytes) in &bundle.files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().ok_or("a path")?)?;
        std::fs::write(p, bytes)?;
    }
    let out = dir.path().join("report");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["report", "--results"])
        .arg(dir.path().join("sample"))
        .arg("--out")
        .arg(&out)
        .args(["--compare", "scripted/myopic,scripted/navigator"])
        .output()?;
    if !o.status.success() {
        return Err(format!("cabrito report: {}", String::from_utf8_lossy(&o.stderr)).into());
    }
    let text = std::fs::read_to_string(out.join("tables/paired.csv"))?;
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().ok_or("no header")?.split(',').map(str::to_string).collect();
    let row: Vec<String> = lines.next().ok_or("no row")?.split(',').map(str::to_string).collect();
    Ok(head.into_iter().zip(row).collect())
}

async fn results(driver: &WebDriver, base: &str, tag: &str, shots: &Path, check_numbers: bool) -> Res {
    open(driver, base, "#/results").await?;
    wait_for(driver, "the Results sample", "const s = document.getElementById('results-status'); return s && s.dataset.sample === 'true' && !!document.getElementById('paired-summary');", 60).await?;
    in_view(
        driver,
        &format!("{tag}: Results on its sample"),
        &[
            "#results-sample .badge-sample",
            "#results-drop",
            "#fig-accuracy-wrap svg",
            "#paired-summary",
            "#paired-table",
            "#frontier-table",
        ],
    )
    .await?;
    // The frontier is drawn on the plot (a fitted curve per model).
    let drawn = js(driver, "return document.querySelectorAll('#fig-accuracy-wrap svg .fit').length;", vec![]).await?;
    if drawn.as_u64().unwrap_or(0) == 0 {
        return Err(format!("{tag}: no frontier drawn on the accuracy plot").into());
    }
    let rows = js(driver, "return [...document.querySelectorAll('#frontier-table tbody tr')].map(r => r.dataset.model + ': ' + r.dataset.crossing);", vec![]).await?;
    let rows: Vec<String> = serde_json::from_value(rows)?;
    if !rows.iter().any(|r| r.contains("never crosses"))
        || !rows.iter().any(|r| r.contains("n50") || r.contains("falls from"))
    {
        return Err(format!("{tag}: the frontier table says {rows:?}").into());
    }
    if check_numbers {
        let shown = js(driver, "const d = document.getElementById('paired-summary').dataset; return [d.tasks, d.onlyA, d.onlyB, d.both, d.neither, d.p, d.diff, d.lo, d.hi];", vec![]).await?;
        let report = report_paired()?;
        let get = |k: &str| report.iter().find(|(h, _)| h == k).map(|(_, v)| v.clone()).unwrap_or_default();
        let num = |v: &Value| v.as_str().and_then(|s| s.parse::<f64>().ok()).unwrap_or(f64::NAN);
        let close = |a: f64, b: &str| b.parse::<f64>().is_ok_and(|b| (a - b).abs() <= 1e-3 * b.abs().max(1e-3));
        let counts = [
            ("tasks", &shown[0]),
            ("only_a", &shown[1]),
            ("only_b", &shown[2]),
            ("both", &shown[3]),
            ("neither", &shown[4]),
        ];
        for (k, v) in counts {
            if v.as_str() != Some(get(k).as_str()) {
                return Err(format!("{tag}: the page's {k} is {v}, cabrito report's {}", get(k)).into());
            }
        }
        for (k, v) in [("mcnemar_p", &shown[5]), ("diff", &shown[6]), ("ci_low", &shown[7]), ("ci_high", &shown[8])] {
            if !close(num(v), &get(k)) {
                return Err(format!("{tag}: the page's {k} is {v}, cabrito report's {}", get(k)).into());
            }
        }
        println!("pages e2e: the Results sample's paired comparison equals cabrito report's: {report:?}");
    }
    driver.screenshot(&shots.join(format!("pages-{tag}-results.png"))).await?;
    console_clean(driver, &format!("{tag}: Results")).await
}

async fn traces(driver: &WebDriver, base: &str, tag: &str, shots: &Path) -> Res {
    open(driver, base, "#/traces").await?;
    wait_for(driver, "the Traces sample", "const s = document.getElementById('traces-status'); return s && s.dataset.sample === 'true' && !!document.querySelector('#timeline li.call') && !!document.getElementById('trace-graph');", 60).await?;
    in_view(
        driver,
        &format!("{tag}: Traces on its sample"),
        &[
            "#traces-sample .badge-sample",
            "#traces-drop",
            ".sessions-wrap",
            "#sessions tbody tr.selected td",
            "#timeline li.call .label-select",
            "#trace-graph",
        ],
    )
    .await?;
    let status = js(driver, "return document.getElementById('traces-status').textContent;", vec![]).await?;
    if !status.as_str().unwrap_or("").contains(" sessions, ") {
        return Err(format!("{tag}: the Traces status says {status}").into());
    }
    driver.screenshot(&shots.join(format!("pages-{tag}-traces.png"))).await?;
    console_clean(driver, &format!("{tag}: Traces")).await
}

async fn projector(s: &Session, theme: &str, large: bool) -> Res {
    let driver = &s.driver;
    size_page(driver, (1280, 720)).await?;
    let tag = format!("1280x720-{theme}{}", if large { "-large" } else { "" });
    look(driver, &s.base, theme, large).await?;
    gallery(driver, &s.base, &tag, &s.shots).await?;
    agents(driver, &s.base, &tag, &s.shots).await?;
    results(driver, &s.base, &tag, &s.shots, theme == "light" && !large).await?;
    traces(driver, &s.base, &tag, &s.shots).await
}

#[tokio::test]
async fn e2e_pages_projector_light_and_dark() {
    run_scenario("pages", (1280, 720), "pages-e2e-projector-failure.png", async |s| {
        projector(s, "light", false).await?;
        projector(s, "dark", false).await
    })
    .await;
}

#[tokio::test]
async fn e2e_pages_projector_large_type() {
    run_scenario("pages", (1280, 720), "pages-e2e-large-failure.png", async |s| projector(s, "light", true).await)
        .await;
}

#[tokio::test]
async fn e2e_pages_phone() {
    run_scenario("pages", (390, 844), "pages-e2e-phone-failure.png", async |s| {
        let driver = &s.driver;
        size_page(driver, (390, 844)).await?;
        for theme in ["light", "dark"] {
            look(driver, &s.base, theme, false).await?;
            open(driver, &s.base, "#/").await?;
            wait_for(driver, "the gallery's range", "return document.querySelectorAll('#gallery-intro .mini-card').length >= 12;", 30).await?;
            in_order(driver, "phone: the gallery", &["#gallery-intro h1", "#what-is-cabra", "#first-step", "#range-kinds", "#range-axes"]).await?;
            in_view(driver, "phone: the gallery's first screen", &["#gallery-intro h1", "#paper-link", "#first-step"]).await?;
            driver.screenshot(&s.shots.join(format!("pages-390x844-{theme}-gallery.png"))).await?;

            open(driver, &s.base, "#/agents?v=1&n=25&seed=3").await?;
            wait_for(driver, "the agents page", "return !!document.querySelector('#watch #step-next');", 60).await?;
            driver.find(By::Id("step-next")).await?.click().await?;
            in_order(driver, "phone: the agents page", &["#step-next", "#current-call", "#watch-ledger", "#agent-code", "#agent-graph"]).await?;
            driver.screenshot(&s.shots.join(format!("pages-390x844-{theme}-agents.png"))).await?;

            open(driver, &s.base, "#/results").await?;
            wait_for(driver, "the Results sample", "const s = document.getElementById('results-status'); return s && s.dataset.sample === 'true' && !!document.getElementById('paired-summary');", 60).await?;
            in_order(driver, "phone: Results", &["#results-sample", "#results-drop", "#fig-accuracy-wrap", "#paired-summary", "#frontier-table"]).await?;
            in_view(driver, "phone: Results' first screen", &["#results-sample .badge-sample", "#results-drop"]).await?;
            driver.screenshot(&s.shots.join(format!("pages-390x844-{theme}-results.png"))).await?;

            open(driver, &s.base, "#/traces").await?;
            wait_for(driver, "the Traces sample", "const s = document.getElementById('traces-status'); return s && s.dataset.sample === 'true' && !!document.querySelector('#timeline li.call');", 60).await?;
            in_order(driver, "phone: Traces", &["#traces-sample", "#traces-drop", ".sessions-wrap", "#timeline"]).await?;
            driver.screenshot(&s.shots.join(format!("pages-390x844-{theme}-traces.png"))).await?;
            console_clean(driver, &format!("phone, {theme}")).await?;
        }
        Ok(())
    })
    .await;
}

/// Drop files made in the page (name, and a script that makes the file's contents from `n`).
async fn drop_made(driver: &WebDriver, target: &str, name: &str, make: &str) -> Res {
    js(
        driver,
        &format!(
            "const made = (function () {{ {make} }})(); const dt = new DataTransfer(); dt.items.add(new File([made], arguments[0])); \
             document.getElementById(arguments[1]).dispatchEvent(new DragEvent('drop', {{dataTransfer: dt, bubbles: true, cancelable: true}})); return true;"
        ),
        vec![json!(name), json!(target)],
    )
    .await?;
    Ok(())
}

/// Bytes no reader takes: a PNG header and noise.
const BINARY: &str = "const b = new Uint8Array(300000); b.set([137, 80, 78, 71, 13, 10, 26, 10]); \
     let x = 12345; for (let i = 8; i < b.length; i++) { x = (x * 1103515245 + 12345) >>> 0; b[i] = x >>> 24; } return b;";
/// 64 MB of one unterminated JSON string.
const HUGE: &str = "return '{\"name\": \"' + 'x'.repeat(64 << 20);";

#[tokio::test]
async fn e2e_pages_hostile_samples_and_files() {
    run_scenario("pages", (1280, 720), "pages-e2e-hostile-failure.png", async |s| {
        let driver = &s.driver;
        // 1. A sample that is not one (the server answers binary bytes, then a page of HTML): the
        //    view says why and offers its loaders.
        for (what, body) in [("binary", "new Uint8Array([0, 159, 146, 150, 255, 0, 1])"), ("html", "'<!doctype html><p>not here</p>'")] {
            for (view, note) in [("results", "results-note"), ("traces", "traces-note")] {
                open(driver, &s.base, "#/").await?;
                wait_for(driver, "the gallery", "return !!document.getElementById('gallery-intro');", 30).await?;
                js(
                    driver,
                    &format!("const real = window.fetch; window.fetch = function (u, o) {{ if (String(u.url || u).includes('samples/')) return Promise.resolve(new Response({body}, {{status: 200}})); return real.call(this, u, o); }}; location.hash = '#/{view}'; return true;"),
                    vec![],
                )
                .await?;
                let msg = wait_for(driver, "the sample's failure", &format!("const e = document.getElementById('{note}'); return e && e.textContent;"), 60).await?;
                let msg = msg.as_str().unwrap_or("").to_string();
                let want = if what == "binary" { "not text" } else { "not a sample bundle" };
                if !msg.contains("The sample could not be loaded") || !msg.contains(want) {
                    return Err(format!("{view} with a {what} sample says: {msg}").into());
                }
                if driver.find(By::Id(format!("{view}-files"))).await.is_err() {
                    return Err(format!("{view} with a {what} sample offers no loader").into());
                }
                console_clean(driver, &format!("{view} with a {what} sample")).await?;
            }
        }
        // 2. Load your own: a huge file and a binary one, on each view: a clear message, the page
        //    lives and still reads good files.
        for (view, unread) in [("results", "results-unread"), ("traces", "traces-unread")] {
            open(driver, &s.base, &format!("#/{view}")).await?;
            driver.refresh().await?;
            wait_for(driver, "the sample", &format!("const s = document.getElementById('{view}-status'); return s && s.dataset.sample === 'true';"), 60).await?;
            for (name, make, want) in [("huge.jsonl", HUGE, "line"), ("picture.jsonl.gz", BINARY, "")] {
                drop_made(driver, &format!("{view}-drop"), name, make).await?;
                let msg = wait_for(
                    driver,
                    &format!("{view}: the message about {name}"),
                    &format!("const s = document.getElementById('{view}-status'); const e = document.getElementById('{unread}'); return s.dataset.busy === 'false' && e && e.textContent;"),
                    120,
                )
                .await?;
                let msg = msg.as_str().unwrap_or("").to_string();
                if !msg.contains(name) || !msg.contains(want) {
                    return Err(format!("{view}: dropping {name} says: {msg}").into());
                }
                println!("pages e2e: {view}, {name}: {msg}");
                driver.screenshot(&s.shots.join(format!("pages-hostile-{view}-{name}.png"))).await?;
                console_clean(driver, &format!("{view}: dropping {name}")).await?;
                // Clear and go on with the next.
                driver.find(By::Id(format!("{view}-clear"))).await?.click().await?;
            }
            // The page lives: its sample comes back on request.
            driver.find(By::Id(format!("{view}-show-sample"))).await?.click().await?;
            wait_for(driver, "the sample again", &format!("const s = document.getElementById('{view}-status'); return s && s.dataset.sample === 'true' && s.dataset.busy === 'false';"), 60).await?;
            console_clean(driver, &format!("{view}: the sample again")).await?;
        }
        Ok(())
    })
    .await;
}
