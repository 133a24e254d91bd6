//! End to end in headless Chromium against the static build (dist/ served by `python3 -m http.server`,
//! as the README shows: no worker): the hidden tests run in the page with Pyodide. Python is not
//! fetched before a user asks for hidden tests; a reference passes and a starter fails for a math, a
//! string and a Merge Codebases task; the verdicts agree item by item with the native grader's on a
//! sample of every kind and axis in math and string, merge tasks and calls stopped at the per-call
//! limit; a candidate that swallows its per-call limit is stopped at the run's limit and the next
//! grade works; hostile candidates are contained; an array task says it needs numpy and the native
//! worker.
//!
//! Needs what tests/browser_e2e.rs needs (dist/, chromedriver, Chromium) and python3; without them the
//! tests are skipped with a message, except under CI. Pyodide loads once in each of the two tests.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use browser::*;
use cabrito_check::grade::GradeTask;
use cabrito_check::protocol::report::{graded_result, read_and_check};
use cabrito_check::protocol::GradeResult;
use cabrito_check::TaskRef;
use cabrito_gen::task::{generate, link};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;
use thirtyfour::prelude::*;

/// dist/ served by Python's plain static file server on a free port, its request log in a file
/// (to check that no graded code reached it); the base URL and the log's path.
fn static_server(dist: &Path, log: &Path) -> Res<(Group, String)> {
    let port = free_port()?;
    let child = Command::new("python3")
        .args(["-u", "-m", "http.server", "--bind", "127.0.0.1", &port.to_string(), "--directory"])
        .arg(dist)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log)?)
        .process_group(0)
        .spawn()?;
    let group = Group(child);
    browser::wait_for_port(port, "python3 -m http.server")?;
    Ok((group, format!("http://127.0.0.1:{port}/")))
}

/// The requests in the server's log whose path carries `marker` (what a hostile candidate asks for).
fn requests_with(log: &Path, marker: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(marker))
        .map(str::to_string)
        .collect()
}

async fn open_task(driver: &WebDriver, base: &str, s: &TaskSpec) -> Res {
    driver.goto(format!("{base}index.html{}&panel=grade", link(s))).await?;
    let canonical = s.canonical();
    wait_for(
        driver,
        &format!("the task {canonical}"),
        &format!("const t = document.getElementById('task'); return t && t.dataset.spec === '{canonical}';"),
        60,
    )
    .await?;
    wait_for(
        driver,
        "no worker found",
        "const w = document.getElementById('worker-status'); return w && w.dataset.worker === 'absent';",
        30,
    )
    .await?;
    Ok(())
}

/// Put `text` in the answer box as a paste would.
async fn set_answer(driver: &WebDriver, text: &str) -> Res {
    js(
        driver,
        "const t = document.getElementById('solution'); t.value = arguments[0]; \
         t.dispatchEvent(new Event('input', {bubbles: true})); return true;",
        vec![Value::from(text)],
    )
    .await?;
    wait_for(
        driver,
        "the answer taken",
        "const t = document.getElementById('solution'); \
         return t && t.value === arguments[0].replace(/\\r\\n?/g, '\\n') || null;",
        20,
    )
    .await
    .or_else(|_| Ok::<Value, Box<dyn std::error::Error>>(Value::Null))?;
    Ok(())
}

/// The grade of the answer in the box, in the page: the hidden verdict's data and failing functions.
async fn run_in_page(driver: &WebDriver, secs: u64) -> Res<Value> {
    wait_for(driver, "the run button", "const b = document.getElementById('run-hidden'); return b && !b.disabled;", 30)
        .await?;
    js(
        driver,
        "const v = document.getElementById('hidden-verdict'); if (v) v.dataset.old = '1'; \
         document.getElementById('run-hidden').click(); return true;",
        vec![],
    )
    .await?;
    wait_for(
        driver,
        "the hidden tests' verdict in the page",
        "const v = document.getElementById('hidden-verdict'); \
         if (!v || v.dataset.old) return null; \
         return {passed: v.dataset.passed, hidden: v.dataset.hidden || null, ran: v.dataset.ran, \
                 failure: v.dataset.failure || null, text: v.textContent, \
                 fns: [...v.querySelectorAll('li[data-fn]')].map(l => l.textContent.split(' first failure')[0])};",
        secs,
    )
    .await
}

/// The native grader's result for the same answer (the worker's job, without the socket).
fn native(task: &cabrito_gen::Task, text: &str) -> Res<GradeResult> {
    let reading = read_and_check(&TaskRef::of(task), text).map_err(|e| e.to_string())?;
    let opts = cabrito_native::runner::GradeOptions::default();
    let v = cabrito_native::runner::grade(&GradeTask::from_task(task), &reading.candidate.code, &opts, &|_, _| {});
    Ok(graded_result("native", &task.spec.to_query(), opts.trials, &reading, &v))
}

/// The page's verdict and the native one agree: pass or fail, the hidden tests, and every failing
/// function shown with its counts.
fn agree(what: &str, page: &Value, n: &GradeResult) -> Res {
    let hidden = n.hidden_passed.map_or("none".to_string(), |h| h.to_string());
    let fns: Vec<String> = n
        .functions
        .iter()
        .filter(|f| f.status != "pass")
        .take(20)
        .map(|f| format!("{}: {} ({} passed, {} failed, {} errors)", f.name, f.status, f.passed, f.failed, f.errored))
        .collect();
    let page_fns: Vec<String> =
        page["fns"].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect();
    if page["ran"] != "browser"
        || page["passed"] != n.passed.to_string().as_str()
        || page["hidden"] != hidden.as_str()
        || page_fns != fns
    {
        return Err(format!(
            "{what}: the page and the native grader disagree\n  page:   {page}\n  native: passed {} hidden {hidden} {fns:?} ({})",
            n.passed, n.message
        )
        .into());
    }
    Ok(())
}

/// The verdict's text, shortened for the log.
fn short(v: &Value) -> String {
    v["text"].as_str().unwrap_or("").chars().take(600).collect()
}

/// Every way out of the Python worker a candidate might try: the `js` and pyodide modules (by
/// import, through the builtins it can dig out of any module), any JsProxy left in Python's heap,
/// JS compiled from text, importScripts, a forged message to the page. What each reached comes back
/// as the value (the request paths carry `exfil`, which the server's log must never show).
const HOSTILE_JS: &str = r#"
def _report_js():
    # The builtins the harness withholds, from the globals of a class any program can list.
    B = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "_wrap_close"][0].__init__.__globals__["__builtins__"]
    imp, getattr, BaseException = B["__import__"], B["getattr"], B["BaseException"]
    out = []
    def note(k, f):
        try:
            out.append("%s=%s" % (k, str(f())[:60]))
        except BaseException as e:
            out.append("%s!%s" % (k, type(e).__name__))
    sys = imp("sys")
    if getattr(sys, "hostile_report", None):
        return sys.hostile_report
    note("js", lambda: imp("js").fetch("/exfil-js"))
    note("js_post", lambda: imp("js").postMessage({"type": "ran", "output": "forged"}))
    note("pyodide_js", lambda: imp("pyodide_js")._api)
    note("ffi", lambda: imp("pyodide.ffi").JsProxy)
    note("run_js", lambda: imp("pyodide.code").run_js("fetch('/exfil-runjs')"))
    note("core", lambda: imp("_pyodide_core"))
    note("ctypes", lambda: imp("ctypes"))
    note("loader", lambda: [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "BuiltinImporter"][0].load_module("js"))
    note("modules", lambda: sorted(n for n, m in sys.modules.items() if m is not None and n.split(".")[0] in ("js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "ctypes")))
    gc = imp("gc")
    proxies = []
    for o in gc.get_objects():
        if "JsProxy" in type(o).__name__:
            proxies.append(o)
        elif type(o) is dict:
            proxies.extend(v for v in list(o.values()) if "JsProxy" in type(v).__name__)
        elif type(o) in (list, tuple):
            proxies.extend(v for v in o if "JsProxy" in type(v).__name__)
    note("heap_proxies", lambda: len(proxies))
    reached = set()
    for p in proxies[:300]:
        for name in ("fetch", "importScripts", "XMLHttpRequest", "WebSocket", "postMessage", "eval", "Function", "indexedDB", "caches", "navigator"):
            try:
                if getattr(p, name, None) is not None:
                    reached.add(name)
            except BaseException:
                pass
        for name in ("self", "globalThis"):
            try:
                g = getattr(p, name, None)
                if g is not None:
                    reached.add(name)
                    g.fetch("/exfil-global")
                    reached.add(name + ".fetch")
            except BaseException:
                pass
        try:
            p.constructor.constructor("fetch('/exfil-ctor')")()
            reached.add("constructor")
        except BaseException:
            pass
        try:
            p.setTimeout("fetch('/exfil-timer')", 0)
            reached.add("string timer")
        except BaseException:
            pass
        try:
            p.importScripts("/exfil-importscripts")
            reached.add("importScripts()")
        except BaseException:
            pass
        try:
            p.postMessage({"type": "ran", "run": "x", "output": "forged", "error": None, "seconds": 0})
            reached.add("postMessage()")
        except BaseException:
            pass
    note("via_heap", lambda: sorted(reached))
    sys.hostile_report = "|".join(out)
    return sys.hostile_report
"#;

/// Memory without bound: the worker's memory cap makes it a MemoryError (said once; the report is
/// kept for the other calls).
const HOSTILE_MEMORY: &str = r#"
def _report_memory():
    B = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == "_wrap_close"][0].__init__.__globals__["__builtins__"]
    sys = B["__import__"]("sys")
    if B["getattr"](sys, "memory_report", None):
        return sys.memory_report
    x = []
    try:
        while True:
            x.append(" " * 10_000_000)
    except B["MemoryError"]:
        n = len(x)
        x = None
        sys.memory_report = "MemoryError after %d MB" % (n * 10)
    return sys.memory_report
"#;

/// Recursion without bound.
const HOSTILE_RECURSION: &str = r#"
def _report_recursion(n=0):
    return _report_recursion(n + 1) + 1
"#;

/// The verdict's pass/fail as a bool (an error is neither).
fn passed(v: &Value) -> Option<bool> {
    v["passed"].as_str().and_then(|p| p.parse().ok())
}

/// `code` with an endless loop before its first `return` at `indent`.
fn loop_in_first_return(code: &str, indent: &str) -> Res<String> {
    let at = format!("\n{indent}return ");
    let looped = code.replacen(&at, &format!("\n{indent}while True:\n{indent}    pass{at}"), 1);
    if looped == code {
        return Err("the looping candidate could not be made".into());
    }
    Ok(looped)
}

/// A merge reference whose last class returns one more than it should (its structure intact).
fn wrong_class(reference: &str) -> Res<String> {
    let at = reference.rfind("\n        return ").ok_or("the wrong merge candidate could not be made")?;
    let cut = at + "\n        return ".len();
    Ok(format!("{}1 + {}", &reference[..cut], &reference[cut..]))
}

/// Verdicts: nothing of Python fetched before it is asked for; the reference passes and the starter
/// fails for a math, a string and a Merge Codebases task; a sample of every kind and axis agrees item by
/// item with the native grader.
async fn verdicts(driver: &WebDriver, base: &str) -> Res {
    // Math: nothing of Python is fetched before the first run; the reference passes, the starter fails.
    let math = TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 8, 2);
    let task = generate(&math)?;
    open_task(driver, base, &math).await?;
    let fetched = "return performance.getEntriesByType('resource').some(e => /pyodide|pygrade/.test(e.name));";
    if js(driver, fetched, vec![]).await?.as_bool() == Some(true) {
        return Err("Python was fetched before any hidden tests were asked for".into());
    }
    set_answer(driver, &task.solution_code).await?;
    let start = Instant::now();
    let v = run_in_page(driver, 300).await?;
    println!(
        "in-page grading: first run (Python's download and start included) {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if passed(&v) != Some(true)
        || v["ran"] != "browser"
        || !v["text"].as_str().unwrap_or("").contains("in your browser")
    {
        return Err(format!("the math reference did not pass in the page: {v}").into());
    }
    agree("math reference", &v, &native(&task, &task.solution_code)?)?;
    set_answer(driver, &task.starter_code).await?;
    let v = run_in_page(driver, 120).await?;
    if passed(&v) != Some(false) {
        return Err(format!("the math starter did not fail in the page: {v}").into());
    }
    agree("math starter", &v, &native(&task, &task.starter_code)?)?;

    // String: the same.
    let string = TaskSpec::new(Kind::DeadCode, Domain::String, Axis::Traversal, 8, 4);
    let task = generate(&string)?;
    open_task(driver, base, &string).await?;
    for (what, text, want) in [("reference", &task.solution_code, true), ("starter", &task.starter_code, false)] {
        set_answer(driver, text).await?;
        let start = Instant::now();
        let v = run_in_page(driver, 120).await?;
        println!("in-page grading: string {what} {:.1} s", start.elapsed().as_secs_f64());
        if passed(&v) != Some(want) {
            return Err(
                format!("the string {what} did not {} in the page: {v}", if want { "pass" } else { "fail" }).into()
            );
        }
        agree(&format!("string {what}"), &v, &native(&task, text)?)?;
    }

    // Merge Codebases (its own harness): the reference passes, the starter and a reference with one
    // wrong class fail; all three agree with the native grader.
    let merge = TaskSpec { d: 2, ..TaskSpec::new(Kind::MergeCodebases, Domain::Math, Axis::Traversal, 20, 10) };
    let task = generate(&merge)?;
    open_task(driver, base, &merge).await?;
    let wrong = wrong_class(&task.solution_code)?;
    for (what, text, want) in [
        ("reference", &task.solution_code, true),
        ("starter", &task.starter_code, false),
        ("wrong class", &wrong, false),
    ] {
        set_answer(driver, text).await?;
        let start = Instant::now();
        let v = run_in_page(driver, 120).await?;
        println!("in-page grading: merge {what} {:.1} s", start.elapsed().as_secs_f64());
        if passed(&v) != Some(want) {
            return Err(
                format!("the merge {what} did not {} in the page: {v}", if want { "pass" } else { "fail" }).into()
            );
        }
        agree(&format!("merge {what}"), &v, &native(&task, text)?)?;
    }

    // Agreement on a sample of every kind graded function by function and every axis, in math and
    // string (reference and starter).
    let kinds: Vec<Kind> = Kind::ALL
        .iter()
        .copied()
        .filter(|k| k.def().behaviour() == cabrito_check::grade::Behaviour::Functions)
        .collect();
    let start = Instant::now();
    let mut sampled = 0;
    let mut specs = vec![];
    for i in 0..kinds.len().max(Axis::ALL.len()) {
        let domain = if i % 2 == 0 { Domain::String } else { Domain::Math };
        specs.push(TaskSpec::new(kinds[i % kinds.len()], domain, Axis::ALL[i % Axis::ALL.len()], 6, 10 + i as u64));
    }
    for spec in &specs {
        let Ok(task) = generate(spec) else { continue };
        open_task(driver, base, spec).await?;
        for (what, text) in [("reference", &task.solution_code), ("starter", &task.starter_code)] {
            set_answer(driver, text).await?;
            let v = run_in_page(driver, 180).await?;
            agree(&format!("{} {what}", spec.to_query()), &v, &native(&task, text)?)?;
            sampled += 1;
        }
    }
    println!(
        "in-page grading: {sampled} verdicts agree with the native grader ({:.1} s)",
        start.elapsed().as_secs_f64()
    );

    Ok(())
}

/// Limits and containment: a looping call stopped at the per-call limit, a swallowing one at the
/// run's limit, hostile candidates and the corpus contained; an array task refused.
async fn limits(driver: &WebDriver, base: &str, log: &Path) -> Res {
    let math = TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 8, 2);
    let merge = TaskSpec { d: 2, ..TaskSpec::new(Kind::MergeCodebases, Domain::Math, Axis::Traversal, 20, 10) };
    // A call that loops is stopped at the harness's per-call limit, as natively (2 s; 5 s for a
    // merge class): the same verdict, item by item.
    let task = generate(&math)?;
    open_task(driver, base, &math).await?;
    let looping = loop_in_first_return(&task.solution_code, "    ")?;
    set_answer(driver, &looping).await?;
    let start = Instant::now();
    let v = run_in_page(driver, 120).await?;
    println!("in-page grading: a looping call stopped at the per-call limit in {:.1} s", start.elapsed().as_secs_f64());
    if passed(&v) != Some(false) || !v["text"].as_str().unwrap_or("").contains("Timeout") {
        return Err(format!("the looping call was not stopped at the per-call limit: {v}").into());
    }
    agree("math looping call", &v, &native(&task, &looping)?)?;
    let merge_task = generate(&merge)?;
    open_task(driver, base, &merge).await?;
    let looping = loop_in_first_return(&merge_task.solution_code, "        ")?;
    set_answer(driver, &looping).await?;
    let v = run_in_page(driver, 120).await?;
    agree("merge looping class", &v, &native(&merge_task, &looping)?)?;

    // A call that swallows its per-call limit is stopped at the run's limit; the next grade works.
    open_task(driver, base, &math).await?;
    js(driver, "localStorage.setItem('cabrito-browser-limit-seconds', '8'); return true;", vec![]).await?;
    let swallowing = task.solution_code.replacen(
        "\n    return ",
        "\n    while True:\n        try:\n            while True:\n                pass\n        except:\n            pass\n    return ",
        1,
    );
    set_answer(driver, &swallowing).await?;
    let v = run_in_page(driver, 120).await?;
    if passed(&v) != Some(false)
        || v["ran"] != "browser"
        || !v["text"].as_str().unwrap_or("").contains("wall-clock limit of 8.0 s")
    {
        return Err(format!("the swallowing candidate was not stopped at the run's limit and failed: {v}").into());
    }
    println!("in-page grading: swallowing candidate: {}", short(&v));
    js(driver, "localStorage.setItem('cabrito-browser-limit-seconds', '30'); return true;", vec![]).await?;
    set_answer(driver, &task.solution_code).await?;
    let v = run_in_page(driver, 300).await?;
    if passed(&v) != Some(true) {
        return Err(format!("the grade after the stopped one did not pass: {v}").into());
    }

    // Hostile candidates: contained (no request reaches the server, an honest fail), and the page
    // lives. Each is the reference with an attack nested in its first function, whose value then is
    // the attack's report (a wrong value: the verdict shows it as that function's first failure).
    let attack = |name: &str, code: &str| -> Res<String> {
        let nested: String = code.lines().map(|l| format!("    {l}\n")).collect();
        let text = &task.solution_code;
        let patched = text.replacen("\n    return ", &format!("\n{nested}    return _report_{name}()\n    return "), 1);
        if patched == *text {
            return Err("the hostile candidate could not be made".into());
        }
        Ok(patched)
    };
    let hostile = [
        ("js", attack("js", HOSTILE_JS)?),
        ("memory", attack("memory", HOSTILE_MEMORY)?),
        ("recursion", attack("recursion", HOSTILE_RECURSION)?),
        (
            "exit",
            task.solution_code.replacen(
                "\n    return ",
                "\n    [c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0].__init__.__globals__['sys'].exit(3)\n    return ",
                1,
            ),
        ),
    ];
    for (what, text) in hostile {
        set_answer(driver, &text).await?;
        let v = run_in_page(driver, 300).await?;
        let leaked = requests_with(log, "exfil");
        if v["ran"] != "browser" || passed(&v) != Some(false) || !leaked.is_empty() {
            return Err(format!("the hostile candidate '{what}' was not contained: {v}; requests: {leaked:?}").into());
        }
        let text = v["text"].as_str().unwrap_or("");
        let at = text.find("first failure").unwrap_or(0);
        println!("in-page grading: hostile '{what}': {}", text[at..].chars().take(1200).collect::<String>());
    }
    // The corpus's files run under a short limit: one that loops costs 5 s, not the default.
    js(driver, "localStorage.setItem('cabrito-browser-limit-seconds', '5'); return true;", vec![]).await?;
    let corpus = crate::hostile::corpus();
    let start = Instant::now();
    let mut graded = 0;
    for case in corpus.iter().filter(|c| c.python && c.compiles && c.bytes.len() < 200_000) {
        set_answer(driver, &String::from_utf8_lossy(&case.bytes)).await?;
        if let Ok(v) = run_in_page(driver, 120).await {
            if passed(&v) == Some(true) {
                return Err(format!("the hostile entry '{}' passed in the page: {v}", case.name).into());
            }
            graded += 1;
        }
    }
    println!("in-page grading: {graded} corpus files graded as failing in {:.1} s", start.elapsed().as_secs_f64());
    js(driver, "localStorage.setItem('cabrito-browser-limit-seconds', '30'); return true;", vec![]).await?;
    set_answer(driver, &task.solution_code).await?;
    let v = run_in_page(driver, 300).await?;
    if passed(&v) != Some(true) {
        return Err(format!("after the hostile candidates the reference did not pass: {v}").into());
    }

    // An array task says it needs numpy and the native worker; its run button is off.
    let array = TaskSpec::new(Kind::AddParameter, Domain::Array, Axis::Traversal, 8, 2);
    open_task(driver, base, &array).await?;
    let said = wait_for(
        driver,
        "the array task's message",
        "const r = document.getElementById('browser-refusal'); const b = document.getElementById('run-hidden'); \
         return r && b ? {text: r.textContent, disabled: b.disabled} : null;",
        30,
    )
    .await?;
    let text = said["text"].as_str().unwrap_or("");
    if !text.contains("numpy") || !text.contains("native worker") || said["disabled"] != true {
        return Err(format!("the array task does not say it needs numpy and the worker: {said}").into());
    }
    Ok(())
}

/// Runs `part` against the static build with its own server and browser.
async fn in_page(what: &str, shot: &str, part: impl AsyncFnOnce(&WebDriver, &str, &Path) -> Res) {
    run_scenario(what, (1280, 1000), shot, async |s| {
        if browser::on_path("python3").is_none() {
            crate::guard::cannot_run("the in-page grading end-to-end tests need python3 (their static server)");
            return Ok(());
        }
        let log = std::env::temp_dir().join(format!("cabrito-inpage-requests-{}-{shot}.log", std::process::id()));
        let (_server, base) = static_server(&s.setup.dist, &log)?;
        let r = part(&s.driver, &base, &log).await;
        let _ = std::fs::remove_file(&log);
        r
    })
    .await;
}

// Two tests, so that the browser tests' two lanes share the in-page work (BENCHMARKS.md, "The test suite").
#[tokio::test]
async fn e2e_inpage_grading_verdicts() {
    in_page("in-page grading, verdicts", "inpage-verdicts-e2e-failure.png", async |d, base, _log| verdicts(d, base).await)
        .await;
}

#[tokio::test]
async fn e2e_inpage_grading_limits() {
    in_page("in-page grading, limits", "inpage-limits-e2e-failure.png", limits).await;
}
