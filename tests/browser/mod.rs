//! Shared by the end-to-end tests that drive the built app in headless Chromium against the real
//! `cabrito serve`: what they need (the built app, chromedriver, Chromium; missing pieces skip the
//! test locally and fail it under CI, through `guard`), the server and chromedriver as process
//! groups killed on drop, a browser session, and waiting, scripting and console checks.
//!
//! A test is one [`run_scenario`] call: it owns the set-up (server on dist/, chromedriver, a
//! browser of the given size, test-artifacts/), the failure screenshot and the teardown, after a
//! success, an error or a panic alike.
#![allow(dead_code)]

use crate::guard;
use futures_util::FutureExt;
use serde_json::Value;
use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use thirtyfour::prelude::*;
use thirtyfour::LoggingPrefsLogLevel;

pub type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// A process group this test started; killed (the whole group) when dropped.
pub struct Group(pub Child);

impl Drop for Group {
    fn drop(&mut self) {
        let pid = self.0.id() as i32;
        // SAFETY: kill(2) on the process group this test created (process_group(0) made the
        // child its leader); it touches no memory.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.0.wait();
    }
}

pub fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join(name)).find(|f| f.is_file()))
}

pub struct Setup {
    pub dist: PathBuf,
    pub chromedriver: PathBuf,
    pub chromium: PathBuf,
}

/// What a browser test needs, or `None` after `guard::cannot_run` names what `test` (the test's
/// own name, for the message) is missing.
pub fn setup(test: &str) -> Option<Setup> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dist = std::env::var_os("CABRITO_DIST").map(PathBuf::from).unwrap_or_else(|| root.join("dist"));
    let chromium =
        std::env::var_os("CABRITO_CHROMIUM").map(PathBuf::from).unwrap_or_else(|| "/usr/bin/chromium".into());
    let mut missing = Vec::new();
    if !dist.join("index.html").is_file() {
        missing.push(format!(
            "the built app ({} is missing; run `trunk build --release`)",
            dist.join("index.html").display()
        ));
    }
    let chromedriver = on_path("chromedriver");
    if chromedriver.is_none() {
        missing.push("chromedriver on PATH (apt-get install chromium-driver)".to_string());
    }
    if !chromium.is_file() {
        missing.push(format!("Chromium at {} (apt-get install chromium)", chromium.display()));
    }
    if missing.is_empty() {
        return Some(Setup { dist, chromedriver: chromedriver.expect("checked"), chromium });
    }
    guard::cannot_run(&format!("the {test} end-to-end test needs {}", missing.join(", ")));
    None
}

pub fn start_server(dist: &Path) -> Res<(Group, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["serve", "--addr", "127.0.0.1:0", "--dist"])
        .arg(dist)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let group = Group(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                let _ = tx.send(url.to_string());
            }
        }
    });
    let url = rx.recv_timeout(Duration::from_secs(20)).map_err(|_| "cabrito serve printed no URL within 20 s")?;
    Ok((group, url))
}

/// A port free at the time of asking, on the loopback.
pub fn free_port() -> Res<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Start chromedriver on a free port and wait until it listens.
pub fn start_chromedriver(bin: &Path) -> Res<(Group, u16)> {
    let port = free_port()?;
    let child = Command::new(bin)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()?;
    let group = Group(child);
    wait_for_port(port, "chromedriver")?;
    Ok((group, port))
}

/// Wait until `what` listens on the local `port` (at most 20 s).
pub fn wait_for_port(port: u16, what: &str) -> Res {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err(format!("{what} did not listen on port {port} within 20 s").into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// The window size of the tests that do not ask for one.
pub const DEFAULT_SIZE: (u32, u32) = (1400, 1100);

pub async fn browser(port: u16, chromium: &Path, profile: &Path) -> Res<WebDriver> {
    browser_sized(port, chromium, profile, DEFAULT_SIZE).await
}

/// Headless Chromium through chromedriver on `port`, its window `size` pixels wide and high, with a
/// fresh profile. chromedriver keeps the page's console errors, uncaught exceptions and failed loads
/// (SEVERE) across navigations, for the tests' console checks.
pub async fn browser_sized(port: u16, chromium: &Path, profile: &Path, size: (u32, u32)) -> Res<WebDriver> {
    let mut caps = DesiredCapabilities::chrome();
    caps.set_binary(&chromium.to_string_lossy())?;
    for arg in [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
    ] {
        caps.add_arg(arg)?;
    }
    // Chromium's own UI pages off (scripts/chromium-quiet.flags says why; the benchmarks read it too).
    for arg in quiet_flags() {
        caps.add_arg(arg)?;
    }
    caps.add_arg(&format!("--window-size={},{}", size.0, size.1))?;
    caps.add_arg(&format!("--user-data-dir={}", profile.display()))?;
    caps.set_browser_log_level(LoggingPrefsLogLevel::Severe)?;
    cabrito_native::solve::use_ring_for_tls();
    Ok(WebDriver::new(format!("http://127.0.0.1:{port}"), caps).await?)
}

/// The flags of scripts/chromium-quiet.flags (one per line, `#` comments).
pub fn quiet_flags() -> impl Iterator<Item = &'static str> {
    include_str!("../../scripts/chromium-quiet.flags")
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
}

/// Run a script until it returns something other than null/false/"" (`secs` at most).
pub async fn wait_for(driver: &WebDriver, what: &str, script: &str, secs: u64) -> Res<Value> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let v = driver.execute(script, Vec::new()).await?.json().clone();
        if !matches!(&v, Value::Null | Value::Bool(false)) && v != Value::String(String::new()) {
            return Ok(v);
        }
        if Instant::now() > deadline {
            return Err(format!("timed out after {secs} s waiting for {what}").into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Click the element `id` once it is on the page (30 s at most). The grade panel's buttons come with
/// its lazy module after the first paint, so a test that clicks them at once races the module.
pub async fn click_id(driver: &WebDriver, id: &str) -> Res {
    wait_for(driver, &format!("#{id} on the page"), &format!("return !!document.getElementById('{id}');"), 30).await?;
    driver.find(By::Id(id)).await?.click().await?;
    Ok(())
}

pub async fn js(driver: &WebDriver, script: &str, args: Vec<Value>) -> Res<Value> {
    Ok(driver.execute(script, args).await?.json().clone())
}

pub async fn console_clean(driver: &WebDriver, step: &str) -> Res {
    let entries = driver.browser_log().await?;
    let bad: Vec<String> = entries
        .iter()
        .filter(|e| e.level == "SEVERE")
        .map(|e| format!("{} {}", e.source.as_deref().unwrap_or("?"), e.message))
        .collect();
    if !bad.is_empty() {
        return Err(format!("console errors during {step}:\n  {}", bad.join("\n  ")).into());
    }
    let fatal =
        js(driver, "const e = document.getElementById('fatal'); return e ? e.textContent : null;", vec![]).await?;
    if let Some(t) = fatal.as_str() {
        return Err(format!("the app stopped during {step}: {t}").into());
    }
    Ok(())
}

/// What a scenario drives: the browser, the server's URL, where screenshots go, and what
/// [`setup`] found. Its processes are killed when it is dropped (after the browser has quit).
pub struct Session {
    pub driver: WebDriver,
    /// `cabrito serve`'s URL, ending in `/`.
    pub base: String,
    /// test-artifacts/ (created).
    pub shots: PathBuf,
    pub setup: Setup,
    // Dropped in this order, after `driver`'s session has been quit.
    server: RefCell<Option<Group>>,
    _chromedriver: Group,
    _profile: tempfile::TempDir,
}

impl Session {
    /// Stop the server (and its worker) under the loaded page.
    pub fn stop_server(&self) {
        drop(self.server.borrow_mut().take());
    }
}

/// Run one browser test: skip it (or fail under CI) when [`setup`] finds something missing
/// (`test` names it); else start `cabrito serve` on dist/, chromedriver and headless Chromium with
/// a `size` window, and run `scenario`. When it returns an error or panics, the page is saved as
/// test-artifacts/`failure_shot` first. Either way the browser quits, the server and chromedriver
/// are killed, and the test fails with the error (or the panic goes on).
pub async fn run_scenario(
    test: &str,
    size: (u32, u32),
    failure_shot: &str,
    scenario: impl AsyncFnOnce(&Session) -> Res,
) {
    let Some(setup) = setup(test) else { return };
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-artifacts");
    std::fs::create_dir_all(&shots).expect("create test-artifacts/");
    let (server, base) = start_server(&setup.dist).expect("start cabrito serve");
    let (chromedriver, port) = start_chromedriver(&setup.chromedriver).expect("start chromedriver");
    let profile = tempfile::tempdir().expect("a temporary Chromium profile");
    let driver = browser_sized(port, &setup.chromium, profile.path(), size).await.expect("start headless Chromium");
    let session = Session {
        driver,
        base,
        shots,
        setup,
        server: RefCell::new(Some(server)),
        _chromedriver: chromedriver,
        _profile: profile,
    };
    let outcome = AssertUnwindSafe(scenario(&session)).catch_unwind().await;
    let shot = session.shots.join(failure_shot);
    if !matches!(outcome, Ok(Ok(()))) {
        let _ = session.driver.screenshot(&shot).await;
    }
    let _ = session.driver.clone().quit().await;
    drop(session);
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("{e}\n(screenshot: test-artifacts/{failure_shot})"),
        Err(panicked) => {
            eprintln!("(screenshot: test-artifacts/{failure_shot})");
            std::panic::resume_unwind(panicked)
        }
    }
}

/// Whether the page has fetched the generator module's wasm (`gen_bg.wasm`, loaded only when a spec
/// needs a part of the generator the first download leaves out).
pub async fn fetched_gen_module(driver: &WebDriver) -> Res<bool> {
    let v = js(
        driver,
        "return performance.getEntriesByType('resource').some(e => e.name.includes('gen_bg.wasm'));",
        vec![],
    )
    .await?;
    Ok(v.as_bool() == Some(true))
}

/// JS that returns the task view's starter code (`#starter-code`'s text), or null until it is on the
/// page whole (a block fills in after its first paint, `data-window` marking it partial). A Merge
/// Codebases task shows its whole file in a `<details>` that renders the block only while open
/// (`web::view`): the script opens it, and closes it again once read, leaving the page as it was.
pub const STARTER_TEXT: &str = "const d = document.querySelector('details.whole-file'); \
     if (d && !d.open) { d.open = true; d.dataset.testOpened = '1'; } \
     const e = document.getElementById('starter-code'); if (!e || e.querySelector('[data-window]')) return null; const t = e.textContent; \
     if (d && d.dataset.testOpened) { delete d.dataset.testOpened; d.open = false; } return t;";

/// Click the rubric line link `selector` and wait until "Your solution" shows that line in the code
/// editor (fetched on first use): selected, in view inside the editor, with the focus. Returns the
/// link's line and the selected text.
pub async fn follow_line_link(driver: &WebDriver, selector: &str) -> Res<(u64, String)> {
    let line = js(
        driver,
        "const b = document.querySelector(arguments[0]); if (!b) return null; b.click(); return +b.dataset.line;",
        vec![Value::String(selector.to_string())],
    )
    .await?;
    let line = line.as_u64().ok_or_else(|| format!("no line link {selector}"))?;
    let got = wait_for(
        driver,
        &format!("line {line} selected in the editor"),
        "const h = document.getElementById('solution'); if (!h || !h.cabritoEditor) return null; \
         const a = h.querySelector('.cm-activeLine'), sc = h.querySelector('.cm-scroller'); if (!a || !sc) return null; \
         const r = a.getBoundingClientRect(), s = sc.getBoundingClientRect(); \
         if (!(r.top >= s.top - 1 && r.bottom <= s.bottom + 1 && h.contains(document.activeElement))) return null; \
         return h.cabritoEditor.selected();",
        30,
    )
    .await?;
    Ok((line, got.as_str().unwrap_or_default().to_string()))
}

/// JS that replaces the answer with `arguments[0]` as a reader's edit would: in the code editor once
/// it is there, else in the text box that stands for it until then.
pub const SET_ANSWER: &str = "const t = document.getElementById('solution'); \
     if (t.cabritoEditor) t.cabritoEditor.set(arguments[0]); \
     else { t.value = arguments[0]; t.dispatchEvent(new Event('input', {bubbles: true})); } return true;";
