//! End to end in headless Chromium against the real `cabrito serve`: the Results view (drop result
//! files, one line per model with error bars, click a point, open its task with the model's answer,
//! compare two sets, export SVG, PNG and CSV), the Traces view (drop traces, the labelled timeline,
//! the task beside it with the functions a call touched, correct a label and export it, figure 3),
//! and the static pages of `cabrito report` and `cabrito traces`, all with no console error. It also
//! times 100,000 result records loaded and plotted, and 100,000 tool calls labelled, in the browser
//! (printed for BENCHMARKS.md, never asserted).
//!
//! Needs what tests/browser_e2e.rs needs (dist/, chromedriver, Chromium), and CPython for the small
//! grid it grades. Without them the test is skipped with a message, except under CI.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use browser::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use thirtyfour::prelude::*;

/// Drop files (name, text) onto an element, as a user dropping them from a file manager.
async fn drop_files(driver: &WebDriver, target: &str, files: &[(String, String)]) -> Res {
    let list: Vec<Value> = files.iter().map(|(n, t)| json!([n, t])).collect();
    js(
        driver,
        "const dt = new DataTransfer(); for (const [n, t] of arguments[0]) dt.items.add(new File([t], n)); \
         document.getElementById(arguments[1]).dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true})); return true;",
        vec![Value::Array(list), Value::String(target.into())],
    )
    .await?;
    Ok(())
}

/// The text of the last export (the blob behind `#last-export`), and its file name.
async fn last_export(driver: &WebDriver, name_ends: &str) -> Res<(String, String, String)> {
    let v = wait_for(
        driver,
        &format!("an export named *{name_ends}"),
        &format!(
            "const a = document.getElementById('last-export'); if (!a || !a.download.endsWith('{name_ends}')) return null; \
             const done = arguments[arguments.length - 1]; return a.download;"
        ),
        20,
    )
    .await?;
    let name = v.as_str().unwrap_or_default().to_string();
    let got = driver
        .execute_async(
            "const done = arguments[arguments.length - 1]; const a = document.getElementById('last-export'); \
             fetch(a.href).then(r => r.blob()).then(b => b.text().then(t => done([b.type, t.length > 3000000 ? t.slice(0, 3000000) : t, b.size]))).catch(e => done(['error', String(e), 0]));",
            vec![],
        )
        .await?
        .json()
        .clone();
    let mime = got.get(0).and_then(Value::as_str).unwrap_or_default().to_string();
    let text = got.get(1).and_then(Value::as_str).unwrap_or_default().to_string();
    Ok((name, mime, text))
}

fn cabrito(args: &[&str]) -> Res<String> {
    let o = Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output()?;
    if !o.status.success() {
        return Err(format!("cabrito {} failed: {}", args.join(" "), String::from_utf8_lossy(&o.stderr)).into());
    }
    Ok(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// A small grid graded by `cabrito grade` for two models (reference answers, and the starter on
/// the first seed), with its responses: returns the output folder.
fn graded(root: &Path) -> Res<PathBuf> {
    let grid = root.join("grid");
    cabrito(&[
        "grid",
        "--out",
        grid.to_str().unwrap(),
        "--axes",
        "traversal,search",
        "--sizes",
        "5,10",
        "--samples",
        "2",
        "--kinds",
        "add_parameter",
        "--domains",
        "math",
    ])?;
    let tasks_root = grid.join("tasks");
    for run in std::fs::read_dir(&tasks_root)? {
        let run = run?.path();
        let file = run.join("math_function/add_parameter.json");
        let tasks: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&file)?)?;
        for (model, starter_first) in [("model-a", true), ("model-b", false)] {
            let d = root.join("runs/responses").join(run.file_name().unwrap()).join("math_function/add_parameter/code");
            std::fs::create_dir_all(&d)?;
            let lines: Vec<String> = tasks
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let code = if starter_first && i == 0 { &t["starter_code"] } else { &t["solution_code"] };
                    json!({"name": t["name"], "dag_id": t["dag_id"], "output": format!("# === solution.py ===\n{}", code.as_str().unwrap_or("")), "metadata": {}}).to_string()
                })
                .collect();
            std::fs::write(d.join(format!("{model}.jsonl")), lines.join("\n") + "\n")?;
        }
    }
    let out = root.join("graded");
    cabrito(&[
        "grade",
        "--tasks",
        grid.to_str().unwrap(),
        "--responses",
        root.join("runs").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--trials",
        "2",
    ])?;
    // Responses beside the results, as a researcher's folder holds them.
    Command::new("cp").arg("-r").arg(root.join("runs/responses")).arg(&out).status()?;
    Ok(out)
}

fn concat_results(dir: &Path, model: &str) -> Res<String> {
    let mut out = String::new();
    let mut stack = vec![dir.join("results")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n.to_string_lossy() == format!("{model}.jsonl")) {
                out.push_str(&std::fs::read_to_string(&p)?);
            }
        }
    }
    Ok(out)
}

async fn results_view(driver: &WebDriver, base: &str, graded: &Path, shots: &Path) -> Res {
    driver.goto(format!("{base}#/results")).await?;
    wait_for(driver, "the Results view", "return document.getElementById('results-drop') !== null;", 20).await?;
    let ready = js(driver, "const m = performance.getEntriesByName('cabrito-analysis-ready')[0]; const r = performance.getEntriesByType('resource').find(e => e.name.endsWith('analysis_bg.wasm')); return [m ? m.startTime : null, r ? r.transferSize : null];", vec![]).await?;
    println!("timing the lazily loaded Results and Traces module: ready {:.0} ms after navigation start (first visit; {} bytes transferred)", ready[0].as_f64().unwrap_or(f64::NAN), ready[1]);
    if driver.find(By::Id("nav-results")).await.is_err() {
        return Err("no Results link in the header".into());
    }
    // 1. Drop two result files of `cabrito grade`, one per model, without their folders: the
    //    dag_ids give each task's axis and n.
    let a = concat_results(graded, "model-a")?;
    let b = concat_results(graded, "model-b")?;
    drop_files(driver, "results-drop", &[("model-a.jsonl".into(), a), ("model-b.jsonl".into(), b)]).await?;
    wait_for(driver, "the two files to be read", "const e = document.getElementById('results-status'); return e && e.dataset.records === '16' && e.dataset.busy === 'false';", 30).await?;
    let lines = js(
        driver,
        "const s = [...document.querySelectorAll('#fig-accuracy-wrap svg g.panel')]; \
         return s.map(p => [p.dataset.panel, [...p.querySelectorAll('g.series')].map(g => [g.dataset.series, g.querySelectorAll('circle.pt').length, g.querySelectorAll('path.bar').length, g.querySelectorAll('polyline').length])]);",
        vec![],
    )
    .await?;
    // Two panels (traversal, search), each with one line per model: two points, two error bars.
    let panels = lines.as_array().ok_or("no panels")?;
    if panels.len() != 2 {
        return Err(format!("expected the traversal and search panels, got {lines}").into());
    }
    for p in panels {
        let series = p[1].as_array().ok_or("no series")?;
        let names: Vec<&str> = series.iter().filter_map(|s| s[0].as_str()).collect();
        if names != ["model-a", "model-b"] || series.iter().any(|s| s[1] != 2 || s[2] != 2 || s[3] != 1) {
            return Err(format!("expected one line per model with two points and error bars in {p}").into());
        }
    }
    driver.screenshot(&shots.join("results-figure.png")).await?;
    console_clean(driver, "dropping result files").await?;

    // 2. Click a point (model-a, traversal, n = 5): its tasks are listed; open the failing one.
    js(
        driver,
        "const c = document.querySelector('#fig-accuracy-wrap circle.pt[data-series=\"0/model-a\"][data-axis=\"traversal\"][data-n=\"5\"]'); \
         c.dispatchEvent(new MouseEvent('click', {bubbles: true})); return true;",
        vec![],
    )
    .await?;
    wait_for(
        driver,
        "the point's tasks",
        "const e = document.getElementById('cell-tasks'); return e && e.dataset.tasks === '2';",
        20,
    )
    .await?;
    let rows =
        js(driver, "return [...document.querySelectorAll('#cell-tasks li.task-row')].map(l => l.className);", vec![])
            .await?;
    if rows.as_array().map(Vec::len) != Some(2) {
        return Err(format!("expected two tasks for the point, got {rows}").into());
    }
    driver.find(By::Id("open-task-0")).await?.click().await?;
    let spec =
        wait_for(driver, "the task view", "const t = document.getElementById('task'); return t && t.dataset.spec;", 30)
            .await?;
    let spec = spec.as_str().unwrap_or_default().to_string();
    if !spec.contains("kind=add_parameter") || !spec.contains("axis=traversal") || !spec.contains("n=5") {
        return Err(format!("the opened task is {spec}").into());
    }
    console_clean(driver, "opening a task from a point").await?;

    // 3. Back to the results (still loaded), then the whole folder with its responses as a new set:
    //    the task opens with the model's answer in the grade box.
    driver.goto(format!("{base}#/results")).await?;
    wait_for(
        driver,
        "the results to be kept",
        "const e = document.getElementById('results-status'); return e && e.dataset.records === '16';",
        20,
    )
    .await?;
    driver.find(By::Id("results-new-set")).await?.click().await?;
    let folder = driver.find(By::Id("results-folder")).await?;
    let folder_ok = folder.send_keys(graded.to_string_lossy().as_ref()).await.is_ok();
    if folder_ok {
        wait_for(driver, "the folder to be read", "const e = document.getElementById('results-status'); return e && e.dataset.records === '32' && e.dataset.busy === 'false';", 60).await?;
    } else {
        // chromedriver without folder uploads: drop the same records with their layout in the
        // records themselves.
        return Err("chromedriver could not send a folder to the folder picker".into());
    }
    let series = js(
        driver,
        "return [...document.querySelectorAll('#series-toggles input')].map(i => i.dataset.series);",
        vec![],
    )
    .await?;
    if series.as_array().map(Vec::len) != Some(4) {
        return Err(format!("expected four series (two models in two sets), got {series}").into());
    }
    let answer_series = series[2].as_str().unwrap_or_default().to_string();
    js(
        driver,
        &format!("const c = document.querySelector('#fig-accuracy-wrap circle.pt[data-series=\"{answer_series}\"][data-axis=\"search\"][data-n=\"10\"]'); c.dispatchEvent(new MouseEvent('click', {{bubbles: true}})); return true;"),
        vec![],
    )
    .await?;
    wait_for(
        driver,
        "the tasks with answers",
        "return document.querySelectorAll('#cell-tasks .has-answer').length === 2;",
        20,
    )
    .await?;
    driver.find(By::Id("open-task-0")).await?.click().await?;
    wait_for(
        driver,
        "the task view with its answer",
        "const s = document.getElementById('solution'); return s && s.value.includes('def main');",
        30,
    )
    .await?;
    let verdict = wait_for(
        driver,
        "the static verdict",
        "const v = document.getElementById('static-verdict'); return v && v.dataset.passed;",
        30,
    )
    .await?;
    println!("results e2e: the opened task's answer gets a static verdict: passed = {verdict}");
    console_clean(driver, "opening a task with its answer").await?;

    // 4. Compare the two sets' model-a, and export the figure and the tables.
    driver.goto(format!("{base}#/results")).await?;
    wait_for(driver, "the results", "return document.getElementById('compare-a') !== null;", 20).await?;
    js(
        driver,
        "const a = document.getElementById('compare-a'), b = document.getElementById('compare-b'); \
         a.value = a.options[1].value; a.dispatchEvent(new Event('change', {bubbles: true})); \
         b.value = b.options[2].value; b.dispatchEvent(new Event('change', {bubbles: true})); return true;",
        vec![],
    )
    .await?;
    let flips = wait_for(
        driver,
        "the comparison",
        "const h = document.getElementById('flips-head'); return h && h.textContent;",
        20,
    )
    .await?;
    if !flips.as_str().unwrap_or_default().contains("4 tasks flipped: 4 now pass") {
        return Err(format!("model-a against model-b: {flips}").into());
    }
    driver.find(By::Id("export-accuracy-svg")).await?.click().await?;
    let (name, mime, svg) = last_export(driver, ".svg").await?;
    if mime != "image/svg+xml"
        || !svg.starts_with("<?xml")
        || svg.matches("class=\"pt\"").count() < 8
        || !svg.trim_end().ends_with("</svg>")
    {
        return Err(
            format!("the exported SVG {name} ({mime}) is not the figure: {}", &svg[..svg.len().min(300)]).into()
        );
    }
    driver.find(By::Id("export-accuracy-png")).await?.click().await?;
    let (name, mime, png) = last_export(driver, ".png").await?;
    if mime != "image/png" || png.len() < 1000 {
        return Err(format!("the exported PNG {name} is {mime}, {} bytes", png.len()).into());
    }
    driver.find(By::Id("export-accuracy-csv")).await?.click().await?;
    let (_, _, csv) = last_export(driver, ".csv").await?;
    if !csv.starts_with("model,axis,kind,domain,n,tasks,passed,accuracy,ci_low,ci_high") {
        return Err(format!("the exported CSV starts {}", &csv[..csv.len().min(120)]).into());
    }
    driver.screenshot(&shots.join("results-compare.png")).await?;
    console_clean(driver, "comparing and exporting").await?;
    Ok(())
}

fn sample(rel: &str) -> Res<String> {
    Ok(std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces").join(rel))?)
}

async fn traces_view(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    driver.goto(format!("{base}#/traces")).await?;
    wait_for(driver, "the Traces view", "return document.getElementById('traces-drop') !== null;", 20).await?;
    // A Copilot session: its timeline, each call labelled as the native classifier labels it.
    let sid = "5b0f6f2e-1d8a-4c55-9f3e-4a1c2b7d9e01";
    let events = sample(&format!("copilot_traces/{sid}/events.jsonl"))?;
    let native = cabrito_analysis::traces::read_trace(&format!("{sid}/events.jsonl"), events.as_bytes())
        .map_err(|p| p.to_string())?;
    drop_files(driver, "traces-drop", &[("events.jsonl".into(), events)]).await?;
    wait_for(
        driver,
        "the session",
        &format!("const s = document.getElementById('session'); return s && s.dataset.session === '{sid}';"),
        30,
    )
    .await?;
    let labels =
        js(driver, "return [...document.querySelectorAll('#timeline li.call')].map(c => c.dataset.label);", vec![])
            .await?;
    let want: Vec<&str> = native.calls.iter().map(|c| c.label.as_str()).collect();
    if labels != json!(want) {
        return Err(format!("the timeline's labels {labels} differ from the native classifier's {want:?}").into());
    }
    let usage = js(driver, "return document.getElementById('usage').textContent;", vec![]).await?;
    if !usage.as_str().unwrap_or_default().contains("3.25") {
        return Err(format!("the usage panel reads {usage}").into());
    }
    console_clean(driver, "dropping a Copilot trace").await?;

    // The plain trace names its Cabrito task: the task sits beside the timeline, and a call's
    // functions light up in the code and the graph.
    let plain = sample("plain/reader-cache-n10-seed0.jsonl")?;
    let native = cabrito_analysis::traces::read_trace("reader.jsonl", plain.as_bytes()).map_err(|p| p.to_string())?;
    let search = native.calls.iter().position(|c| c.tool == "search").ok_or("no search call in the sample")?;
    drop_files(driver, "traces-drop", &[("reader-cache-n10-seed0.jsonl".into(), plain)]).await?;
    wait_for(driver, "the task beside the plain trace", "const s = document.getElementById('session'); return s && s.dataset.session === 'reader-cache-n10-seed0' && document.getElementById('trace-graph') !== null;", 30).await?;
    // The search for "slow(" touches the functions that call slow().
    js(driver, &format!("document.querySelector('#call-{search} .call-head .tool').click(); return true;"), vec![])
        .await?;
    let touched = wait_for(
        driver,
        "the touched functions",
        "const t = document.getElementById('touched'); return t && t.dataset.functions;",
        20,
    )
    .await?;
    let touched: Vec<String> = touched.as_str().unwrap_or_default().split(',').map(str::to_string).collect();
    let lit = js(driver, "return [[...document.querySelectorAll('#trace-graph .vertex.touched')].map(v => v.dataset.name), new Set([...document.querySelectorAll('#trace-code .line.touched')].map(l => l.dataset.fn)).size];", vec![]).await?;
    let spec = cabrito_gen::TaskSpec::from_pairs([("kind", "cache_function"), ("n", "10")])?;
    let task = cabrito_gen::generate(&spec)?;
    let callers: Vec<String> = cabrito_analysis::traces::touch::spans(&task.starter_code)
        .into_iter()
        .filter(|s| task.starter_code.lines().skip(s.start - 1).take(s.end - s.start + 1).any(|l| l.contains("slow(")))
        .map(|s| s.name)
        .collect();
    let mut sorted = touched.clone();
    sorted.sort();
    let mut want = callers.clone();
    want.sort();
    if sorted != want || lit[0].as_array().map(Vec::len) != Some(want.len()) || lit[1] != want.len() {
        return Err(format!("the search for slow( lit {touched:?} ({lit}); the callers of slow() are {want:?}").into());
    }
    driver.screenshot(&shots.join("traces-timeline.png")).await?;

    // Correct a label and export the correction as a label record.
    js(driver, "const s = document.getElementById('label-0'); s.value = 'plan'; s.dispatchEvent(new Event('change', {bubbles: true})); return true;", vec![]).await?;
    wait_for(driver, "the correction", "return document.getElementById('call-0').dataset.label === 'plan';", 20)
        .await?;
    driver.find(By::Id("export-corrections")).await?.click().await?;
    let (_, _, text) = last_export(driver, ".jsonl").await?;
    let rec: Value = serde_json::from_str(text.lines().next().ok_or("an empty export")?)?;
    if rec["label"] != "plan"
        || rec["rule_label"] != "read"
        || rec["session_id"] != "reader-cache-n10-seed0"
        || rec["tool_call_index"] != 0
    {
        return Err(format!("the exported correction is {rec}").into());
    }
    // Figure 3 over the loaded sessions (the plain one is placed by its task).
    let points = js(driver, "return document.querySelectorAll('#fig-calls-wrap circle.pt').length;", vec![]).await?;
    if points.as_u64().unwrap_or(0) == 0 {
        return Err("figure 3 has no point".into());
    }
    console_clean(driver, "the traces view").await?;

    // The whole sample folder through the folder picker: the Copilot sessions are joined to their
    // tasks by the responses that name them, so they are placed and their task sits beside them.
    driver.find(By::Id("traces-clear")).await?.click().await?;
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces");
    driver.find(By::Id("traces-folder")).await?.send_keys(folder.to_string_lossy().as_ref()).await?;
    wait_for(driver, "the sample folder", "const e = document.getElementById('traces-status'); return e && e.dataset.sessions === '3' && e.dataset.busy === 'false';", 30).await?;
    let row = js(driver, &format!("const r = [...document.querySelectorAll('#sessions tbody tr')].find(r => r.textContent.includes('{}')); if (!r) return null; r.click(); return r.textContent;", &sid[..8]), vec![]).await?;
    if !row.as_str().unwrap_or_default().contains("traversal · 10") {
        return Err(format!("the joined Copilot session's row reads {row}").into());
    }
    wait_for(driver, "the joined session's task", &format!("const s = document.getElementById('session'); return s && s.dataset.session === '{sid}' && document.getElementById('trace-graph') !== null;"), 30).await?;
    console_clean(driver, "a folder of traces with their responses").await?;
    Ok(())
}

/// The static pages of `cabrito report` and `cabrito traces` open with no console error.
async fn static_pages(driver: &WebDriver, graded: &Path, root: &Path) -> Res {
    let site = root.join("site");
    cabrito(&[
        "report",
        "--results",
        graded.to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
        "--compare",
        "code/model-a,code/model-b",
    ])?;
    let tr = root.join("tr");
    cabrito(&[
        "traces",
        "--traces",
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces").to_str().unwrap(),
        "--out",
        tr.to_str().unwrap(),
    ])?;
    for (page, figures) in [(site.join("index.html"), 5), (tr.join("index.html"), 3)] {
        driver.goto(format!("file://{}", page.display())).await?;
        let n = wait_for(
            driver,
            "the static page",
            "return document.readyState === 'complete' && document.querySelectorAll('svg.figure').length;",
            20,
        )
        .await?;
        if n.as_u64() != Some(figures) {
            return Err(format!("{} shows {n} figures, expected {figures}", page.display()).into());
        }
        console_clean(driver, &format!("opening {}", page.display())).await?;
    }
    Ok(())
}

/// 100,000 result records and 100,000 tool calls, made in the page and dropped: printed timings.
async fn timings(driver: &WebDriver, base: &str) -> Res {
    driver.goto(format!("{base}index.html?fresh=bench#/results")).await?;
    wait_for(driver, "the Results view", "return document.getElementById('results-drop') !== null;", 20).await?;
    let made = js(
        driver,
        "const runs = n => ({traversal: `function_traversal_cn=(25,25)_en=(${n},${n})_prop=(0.45,0.55)`, search: `function_search_cn=(${n},${n})_en=(25,25)_prop=(0.45,0.55)`}); \
         const kinds = ['dead_code','add_parameter','add_return_value','cache_function','extract_helper'], doms = ['math','string','array'], sizes = [5,10,25,50,100,200]; \
         const files = []; let total = 0, x = 12345; \
         for (const m of ['model-a','model-b','agent-c','agent-d']) { const lines = []; \
           for (let i = 0; i < 25000; i++) { x = (x * 1103515245 + 12345) % 2147483648; \
             const axis = i % 2 ? 'search' : 'traversal', n = sizes[(i >> 1) % 6], k = kinds[(i >> 3) % 5], d = doms[(i >> 5) % 3]; \
             const pass = (x % 1000) / 1000 < 0.95 - 0.003 * n; const s = pass ? 1 : 0; const dag = `d-${m}-${i}`; \
             lines.push(JSON.stringify({name: `${d}_function_${k}_${dag}`, dag_id: dag, parsed_ok: true, run_name: runs(n)[axis], task_set: `${d}_function`, task_type: k, \
               summary: {compilation: {pass: 1, fail: 0, error: 0, pass_rate: 1}, behavioral: {pass: s, fail: 1 - s, error: 0, pass_rate: s}, function_existence: {pass: 1, fail: 0, error: 0, pass_rate: 1}, edit_path: {pass: 0, fail: 1, error: 0, pass_rate: 0}}, \
               results: [{kind: 'compilation', type: 'pass', metadata: {}}, {kind: 'behavioral', type: s ? 'pass' : 'fail', metadata: {total: 50}}]})); total++; } \
           files.push(new File([lines.join('\\n')], `${m}.jsonl`)); } \
         const bytes = files.reduce((a, f) => a + f.size, 0); const dt = new DataTransfer(); files.forEach(f => dt.items.add(f)); \
         window.__t0 = performance.now(); document.getElementById('results-drop').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true})); \
         return [total, bytes];",
        vec![],
    )
    .await?;
    wait_for(driver, "100,000 records", "const e = document.getElementById('results-status'); return e && e.dataset.records === '100000' && e.dataset.busy === 'false' && performance.getEntriesByName('cabrito-results-plotted').length > 0;", 300).await?;
    let t = js(
        driver,
        "const e = document.getElementById('results-status'); const m = performance.getEntriesByName('cabrito-results-plotted')[0]; \
         return [e.dataset.readMs, e.dataset.plotMs, m.startTime - window.__t0];",
        vec![],
    )
    .await?;
    println!(
        "timing results in the browser: {} records ({} bytes of JSONL in 4 files): read {} ms, aggregate + draw {} ms, drop to plotted {:.0} ms",
        made[0], made[1], t[0].as_str().unwrap_or("?"), t[1].as_str().unwrap_or("?"), t[2].as_f64().unwrap_or(0.0)
    );
    console_clean(driver, "100,000 result records").await?;

    let labelled = include_str!("../data/tool_calls.jsonl");
    let calls: Vec<Value> = labelled
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str::<Value>(l).map(|v| json!([v["tool"], v["arguments"]])))
        .collect::<Result<_, _>>()?;
    driver.goto(format!("{base}index.html?fresh=bench2#/traces")).await?;
    wait_for(driver, "the Traces view", "return document.getElementById('traces-drop') !== null;", 20).await?;
    js(
        driver,
        "const calls = arguments[0]; const lines = [JSON.stringify({type: 'session.start', data: {sessionId: 'bench', selectedModel: 'm'}})]; \
         for (let i = 0; i < 100000; i++) { const [tool, args] = calls[i % calls.length]; \
           lines.push(JSON.stringify({type: 'assistant.message', data: {outputTokens: 100, toolRequests: [{toolCallId: 'c' + i, name: tool, arguments: args}]}})); \
           lines.push(JSON.stringify({type: 'tool.execution_complete', data: {toolCallId: 'c' + i, success: true, result: {content: 'ok'}}})); } \
         const f = new File([lines.join('\\n')], 'events.jsonl'); window.__bytes = f.size; const dt = new DataTransfer(); dt.items.add(f); \
         window.__t0 = performance.now(); document.getElementById('traces-drop').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true})); return true;",
        vec![Value::Array(calls)],
    )
    .await?;
    wait_for(driver, "100,000 calls labelled", "const e = document.getElementById('traces-status'); return e && e.dataset.calls === '100000' && e.dataset.busy === 'false' && document.getElementById('timeline') !== null;", 300).await?;
    let t = js(
        driver,
        "const e = document.getElementById('traces-status'); const m = performance.getEntriesByName('cabrito-traces-labelled')[0]; return [e.dataset.labelMs, m.startTime - window.__t0, performance.now() - window.__t0, window.__bytes];",
        vec![],
    )
    .await?;
    println!(
        "timing traces in the browser: 100000 tool calls ({} bytes of events.jsonl): read + label {} ms; drop to labelled {:.0} ms; to the timeline on screen {:.0} ms",
        t[3], t[0].as_str().unwrap_or("?"), t[1].as_f64().unwrap_or(0.0), t[2].as_f64().unwrap_or(0.0)
    );
    console_clean(driver, "100,000 tool calls").await?;
    Ok(())
}

#[tokio::test]
async fn e2e_results_and_traces() {
    run_scenario("results and traces", DEFAULT_SIZE, "results-e2e-failure.png", async |s| {
        let work = tempfile::tempdir()?;
        let graded = graded(work.path())?;
        results_view(&s.driver, &s.base, &graded, &s.shots).await?;
        traces_view(&s.driver, &s.base, &s.shots).await?;
        static_pages(&s.driver, &graded, work.path()).await?;
        timings(&s.driver, &s.base).await
    })
    .await;
}
