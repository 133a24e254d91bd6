//! `cabrito solve` against a stand-in model server: a real HTTP server on the loopback answering in
//! the OpenAI chat-completions format (bodies and event streams), with a rate limit, a server
//! error, a body and a stream that stop halfway, tool calls in agent mode, and a request that never
//! ends. The answers are graded by `cabrito grade` (CPython).
#![cfg(not(target_arch = "wasm32"))]

use crate::run_support::ok;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A planned misbehaviour for the next request.
#[derive(Clone, Debug)]
enum Fault {
    TooMany(u64),
    ServerError,
    CutBody,
    CutStream,
    BadRequest,
    /// A redirect (status, Location).
    Redirect(u16, String),
}

#[derive(Default)]
struct Stand {
    /// Bodies received, with when and the Authorization header.
    requests: Vec<(Instant, Value, Option<String>)>,
    faults: VecDeque<Fault>,
    /// starter → reference.
    answers: HashMap<String, String>,
    /// A request whose prompt holds this never gets an answer.
    hang: Option<String>,
    /// Event streams cut into chunks of this many bytes (a character split across two).
    byte_chunks: usize,
    /// A line added to every answer's code (to see its bytes come back whole).
    decorate: Option<String>,
    /// The `Referer` headers received.
    referers: Vec<String>,
    /// Agent mode: every tool, malformed calls among them, over five turns (see [`every_tool`]).
    every_tool: bool,
}

type Shared = Arc<Mutex<Stand>>;

fn usage(prompt: &Value, completion: &str) -> Value {
    let p = prompt.to_string().len() as u64 / 4;
    json!({"prompt_tokens": p, "completion_tokens": completion.len() / 4 + 1, "total_tokens": p + 1,
           "prompt_tokens_details": {"cached_tokens": p / 2}})
}

/// The file a view's numbered lines show.
fn unnumber(view: &str) -> String {
    let mut out = String::new();
    for l in view.lines().skip(1) {
        if let Some((n, t)) = l.split_once(": ") {
            if n.parse::<u32>().is_ok() {
                out.push_str(t);
                out.push('\n');
            }
        } else if let Some(n) = l.strip_suffix(':') {
            if n.parse::<u32>().is_ok() {
                out.push('\n');
            }
        }
    }
    out
}

/// The stand-in model: the reference answer for the task it recognises.
fn answer(st: &Stand, body: &Value) -> (String, Vec<Value>) {
    let (content, calls) = plain_answer(st, body);
    let Some(extra) = &st.decorate else { return (content, calls) };
    let content = content.replace("\n</solution>", &format!("\n{extra}\n</solution>"));
    let calls = calls
        .into_iter()
        .map(|mut c| {
            if c["function"]["name"] == "edit" {
                let mut args: Value = serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap();
                args["new"] = json!(format!("{}\n{extra}\n", args["new"].as_str().unwrap().trim_end()));
                c["function"]["arguments"] = json!(args.to_string());
            }
            c
        })
        .collect();
    (content, calls)
}

fn plain_answer(st: &Stand, body: &Value) -> (String, Vec<Value>) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if body.get("tools").is_none() {
        let prompt = messages[0]["content"].as_str().unwrap_or("");
        let starter = prompt
            .split("<code repository>\n# === solution.py ===\n")
            .nth(1)
            .and_then(|r| r.split("\n</code repository>").next())
            .unwrap_or("");
        let reference = st.answers.get(starter.trim_end()).cloned().unwrap_or_else(|| "unknown task".into());
        return (
            format!(
                "<thought>The reference rule.</thought>\n<solution>\n# === solution.py ===\n{reference}\n</solution>"
            ),
            vec![],
        );
    }
    let tool_results: Vec<&Value> = messages.iter().filter(|m| m["role"] == "tool").collect();
    let call = |id: &str, name: &str, args: Value| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}});
    if st.every_tool {
        return every_tool(st, &tool_results);
    }
    match tool_results.len() {
        0 => (
            "Let me read the file.".into(),
            vec![call("c0", "view", json!({"path": "solution.py", "start": 1, "end": 100000}))],
        ),
        1 => {
            let code = unnumber(tool_results[0]["content"].as_str().unwrap_or(""));
            let reference = st.answers.get(code.trim_end()).cloned().unwrap_or_else(|| "unknown task".into());
            let lines = code.lines().count();
            (
                String::new(),
                vec![
                    call("c1", "edit", json!({"path": "solution.py", "start": 1, "end": lines, "new": reference})),
                    call("c2", "lint", json!({})),
                ],
            )
        }
        _ => ("Done.".into(), vec![call("c3", "submit", json!({}))]),
    }
}

/// The turns of the every-tool model: each tool, well formed and malformed (arguments that are not
/// JSON, of the wrong type, missing, an unknown tool, a file that is not the workspace's), then the
/// reference answer written, linted, run and submitted. The turn is told by the tool results so far.
fn every_tool(st: &Stand, results: &[&Value]) -> (String, Vec<Value>) {
    let raw = |id: &str, name: &str, args: &str| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}});
    let call = |id: &str, name: &str, args: Value| raw(id, name, &args.to_string());
    match results.len() {
        0 => (
            "Reading.".into(),
            vec![
                call("a0", "view", json!({"path": "solution.py", "start": 1, "end": 100000})),
                call("a1", "search", json!({"pattern": "def main"})),
                call("a2", "view", json!({"path": "problem.md", "start": 1, "end": 3})),
            ],
        ),
        3 => (
            "Trying things.".into(),
            vec![
                raw("b0", "view", "{\"path\": \"solution.py\", \"start\": "),
                call("b1", "edit", json!({"path": 3, "new": "x"})),
                call("b2", "run", json!({})),
                call("b3", "shell", json!({"command": "cat tests.py"})),
                call("b4", "search", json!({"path": "solution.py"})),
                call("b5", "lint", json!({"path": "problem.md"})),
                call("b6", "view", json!({"path": "../reference.py", "start": 1})),
                call("b7", "run", json!({"code": "main(0.5)", "path": "solution.py"})),
                raw("b8", "submit", "[1, 2]"),
            ],
        ),
        12 => {
            let code = unnumber(results[0]["content"].as_str().unwrap_or(""));
            let reference = st.answers.get(code.trim_end()).cloned().unwrap_or_else(|| "unknown task".into());
            let lines = code.lines().count();
            (
                String::new(),
                vec![
                    call("c0", "edit", json!({"path": "solution.py", "start": 1, "end": lines, "new": reference})),
                    call("c1", "lint", json!({})),
                    call("c2", "run", json!({"code": "main(0.5)"})),
                    call("c3", "run", json!({"path": "solution.py", "args": ["0.5"]})),
                    call("c4", "check", json!({})),
                ],
            )
        }
        _ => ("Done.".into(), vec![call("d0", "submit", json!({}))]),
    }
}

fn sse(events: Vec<String>, byte_chunks: usize) -> Response {
    let mut chunks: Vec<Result<Bytes, std::io::Error>> =
        events.into_iter().map(|e| Ok(Bytes::from(format!("data: {e}\n\n")))).collect();
    if byte_chunks > 0 {
        let all: Vec<u8> = chunks.into_iter().flat_map(|c| c.unwrap().to_vec()).collect();
        chunks = all.chunks(byte_chunks).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    }
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(futures_util::stream::iter(chunks)))
        .unwrap()
}

async fn completions(State(st): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let (fault, hang, chunk) = {
        let mut s = st.lock().unwrap();
        let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string);
        s.requests.push((Instant::now(), body.clone(), auth));
        if let Some(r) = headers.get("referer").and_then(|v| v.to_str().ok()) {
            s.referers.push(r.to_string());
        }
        let hang = s.hang.as_ref().is_some_and(|h| body.to_string().contains(h.as_str()));
        (s.faults.pop_front(), hang, s.byte_chunks)
    };
    if hang {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    match fault {
        Some(Fault::TooMany(s)) => {
            return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", s.to_string())], "slow down").into_response()
        }
        Some(Fault::ServerError) => return (StatusCode::INTERNAL_SERVER_ERROR, "boom").into_response(),
        Some(Fault::BadRequest) => {
            return (StatusCode::BAD_REQUEST, "{\"error\":{\"message\":\"bad model\"}}").into_response()
        }
        Some(Fault::Redirect(code, to)) => {
            return (StatusCode::from_u16(code).unwrap(), [("location", to)], "moved").into_response()
        }
        Some(Fault::CutBody) => {
            // Half a body, a pause (so the headers and the half are on the wire), then the connection drops.
            let chunks = futures_util::stream::unfold(0, |step| async move {
                match step {
                    0 => Some((
                        Ok(Bytes::from_static(
                            b"{\"id\":\"x\",\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"<solu",
                        )),
                        1,
                    )),
                    1 => {
                        tokio::time::sleep(Duration::from_millis(150)).await;
                        Some((Err(std::io::Error::other("cut")), 2))
                    }
                    _ => None,
                }
            });
            return Response::builder()
                .header("content-type", "application/json")
                .body(Body::from_stream(chunks))
                .unwrap();
        }
        Some(Fault::CutStream) => {
            return sse(
                vec![json!({"id": "x", "choices": [{"delta": {"content": "<solution>\n# === sol"}}]}).to_string()],
                chunk,
            )
        }
        None => {}
    }
    let (content, calls) = answer(&st.lock().unwrap(), &body);
    let u = usage(&body["messages"], &content);
    if body["stream"] == json!(true) {
        let mut events = Vec::new();
        let half = content.len() / 2;
        let cut = (0..=half).rev().find(|i| content.is_char_boundary(*i)).unwrap_or(0);
        events.push(
            json!({"id": "s1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": &content[..cut]}}]})
                .to_string(),
        );
        events.push(json!({"id": "s1", "choices": [{"index": 0, "delta": {"content": &content[cut..]}}]}).to_string());
        for (i, c) in calls.iter().enumerate() {
            let args = c["function"]["arguments"].as_str().unwrap().to_string();
            let mid = args.len() / 2;
            let mid = (0..=mid).rev().find(|i| args.is_char_boundary(*i)).unwrap_or(0);
            events.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "id": c["id"], "type": "function", "function": {"name": c["function"]["name"], "arguments": &args[..mid]}}]}}]}).to_string());
            events.push(json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, "function": {"arguments": &args[mid..]}}]}}]}).to_string());
        }
        let finish = if calls.is_empty() { "stop" } else { "tool_calls" };
        events.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}).to_string());
        events.push(json!({"choices": [], "usage": u}).to_string());
        events.push("[DONE]".into());
        return sse(events, chunk);
    }
    let mut message = json!({"role": "assistant", "content": content});
    if !calls.is_empty() {
        message["tool_calls"] = json!(calls);
    }
    let finish = if calls.is_empty() { "stop" } else { "tool_calls" };
    axum::Json(json!({"id": "r1", "object": "chat.completion", "model": body["model"], "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": u})).into_response()
}

/// Start the stand-in on a free loopback port; returns its base URL and state.
fn stand_in(answers: HashMap<String, String>) -> (String, Shared) {
    let st: Shared = Arc::new(Mutex::new(Stand { answers, ..Stand::default() }));
    let (tx, rx) = std::sync::mpsc::channel();
    let state = st.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            let app = Router::new()
                .route("/v1/chat/completions", post(completions))
                .route("/v2/chat/completions", post(completions))
                .fallback(completions)
                .with_state(state);
            axum::serve(listener, app).await.unwrap();
        });
    });
    let addr = rx.recv().unwrap();
    (format!("http://{addr}/v1"), st)
}

/// The binary: the one Cargo built, or `CABRITO_BIN` (to see these tests fail on an older build).
fn bin() -> String {
    std::env::var("CABRITO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_cabrito").to_string())
}

fn cabrito(args: &[&str]) -> Output {
    Command::new(bin()).args(args).env_remove("CABRITO_TEST_KEY").output().expect("run cabrito")
}

/// A small grid and its starter → reference table.
fn grid(dir: &Path, kinds: &str) -> HashMap<String, String> {
    ok(
        &cabrito(&[
            "grid",
            "--out",
            dir.to_str().unwrap(),
            "--sizes",
            "5",
            "--samples",
            "2",
            "--domains",
            "math",
            "--axes",
            "traversal",
            "--kinds",
            kinds,
        ]),
        "grid",
    );
    let mut out = HashMap::new();
    let mut stack = vec![dir.join("tasks")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let list: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                for r in list {
                    out.insert(
                        r["starter_code"].as_str().unwrap().trim_end().to_string(),
                        r["solution_code"].as_str().unwrap().to_string(),
                    );
                }
            }
        }
    }
    out
}

fn response_lines(out: &Path) -> Vec<Value> {
    let mut v = Vec::new();
    let mut stack = vec![out.join("responses")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                v.extend(
                    std::fs::read_to_string(&p).unwrap().lines().map(|l| serde_json::from_str::<Value>(l).unwrap()),
                );
            }
        }
    }
    v
}

fn graded_all_pass(tasks: &Path, out: &Path, n: usize) {
    let g = tempfile::tempdir().unwrap();
    let s = ok(
        &cabrito(&[
            "grade",
            "--tasks",
            tasks.to_str().unwrap(),
            "--responses",
            out.to_str().unwrap(),
            "--out",
            g.path().to_str().unwrap(),
            "--trials",
            "3",
            "--json",
        ]),
        "grade",
    );
    let summary: Value = serde_json::from_str(&s).unwrap();
    let (tasks_n, passed): (u64, u64) = summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .fold((0, 0), |a, r| (a.0 + r["tasks"].as_u64().unwrap(), a.1 + r["passed"].as_u64().unwrap()));
    assert_eq!((tasks_n, passed), (n as u64, n as u64), "{summary}");
}

#[test]
fn single_shot_retries_rate_limits_server_errors_and_cut_bodies() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "add_parameter,cache_function");
    let n = answers.len();
    assert_eq!(n, 4);
    let (url, st) = stand_in(answers);
    st.lock().unwrap().faults.extend([Fault::TooMany(1), Fault::ServerError, Fault::CutBody]);
    let out = tmp.path().join("run");
    let o = out.to_str().unwrap();
    let args = [
        "solve",
        "--endpoint",
        &url,
        "--model",
        "stand-in/m1",
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        o,
        "--concurrency",
        "1",
        "--backoff-ms",
        "20",
    ];
    let r = cabrito(&args);
    let stdout = ok(&r, "solve");
    assert!(stdout.contains(&format!("{n} answered, 0 failed")), "{stdout}");
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("429") && err.contains("500") && err.contains("stopped halfway"), "{err}");
    {
        let s = st.lock().unwrap();
        assert_eq!(s.requests.len(), n + 3);
        // The retry after the 429 waited what Retry-After asked (1 s), not the 20 ms backoff.
        let gap = s.requests[1].0 - s.requests[0].0;
        assert!(gap >= Duration::from_millis(950), "{gap:?}");
        assert!(s.requests.iter().all(|r| r.2.is_none()), "no key was asked for, none is sent");
        assert_eq!(s.requests[0].1["model"], "stand-in/m1");
    }
    let recs = response_lines(&out);
    assert_eq!(recs.len(), n);
    for r in &recs {
        assert!(r["output"].as_str().unwrap().starts_with("# === solution.py ==="), "{r}");
        assert!(r["metadata"]["n_input_tokens"].as_f64().unwrap() > 100.0);
        assert!(r["metadata"]["raw_output"].as_str().unwrap().contains("<thought>"));
        let trace = std::fs::read_to_string(out.join(r["metadata"]["trace_path"].as_str().unwrap())).unwrap();
        let msg: Value = serde_json::from_str(trace.lines().nth(1).unwrap()).unwrap();
        assert_eq!(msg["tokens"]["input"], r["metadata"]["n_input_tokens"]);
    }
    assert!(response_path_has(&out, "code/stand-in/m1.jsonl"));
    graded_all_pass(&tasks, &out, n);
    // A rerun asks nothing: every task is answered.
    let before = st.lock().unwrap().requests.len();
    let again = ok(&cabrito(&args), "rerun");
    assert!(again.contains(&format!("0 answered, 0 failed, {n} skipped")), "{again}");
    assert_eq!(st.lock().unwrap().requests.len(), before);
}

fn response_path_has(out: &Path, suffix: &str) -> bool {
    let mut stack = vec![out.join("responses")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(suffix) {
                return true;
            }
        }
    }
    false
}

#[test]
fn agent_mode_drives_the_tools_through_a_stream_and_passes() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "extract_helper,dead_code");
    let n = answers.len();
    let (url, st) = stand_in(answers);
    st.lock().unwrap().faults.extend([Fault::CutStream, Fault::ServerError]);
    let out = tmp.path().join("run");
    let r = Command::new(bin())
        .args([
            "solve",
            "--endpoint",
            &url,
            "--model",
            "m2",
            "--mode",
            "agent",
            "--stream",
            "--window",
            "2000",
            "--tasks",
            tasks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--backoff-ms",
            "10",
            "--api-key-env",
            "CABRITO_TEST_KEY",
            "--concurrency",
            "3",
        ])
        .env("CABRITO_TEST_KEY", "sk-test-123")
        .output()
        .unwrap();
    let stdout = ok(&r, "solve --mode agent");
    assert!(stdout.contains(&format!("{n} answered")), "{stdout}");
    assert!(String::from_utf8_lossy(&r.stderr).contains("stopped halfway"));
    {
        let s = st.lock().unwrap();
        // Three turns a task (view; edit + check; submit) and the two faults.
        assert_eq!(s.requests.len(), 3 * n + 2);
        assert!(s.requests.iter().all(|r| r.2.as_deref() == Some("Bearer sk-test-123")));
        let last = &s.requests.last().unwrap().1;
        assert_eq!(last["stream"], json!(true));
        assert_eq!(last["tools"].as_array().unwrap().len(), 6);
        assert!(last["messages"].as_array().unwrap().iter().any(|m| m["role"] == "tool"));
    }
    let recs = response_lines(&out);
    assert_eq!(recs.len(), n);
    for r in &recs {
        let md = &r["metadata"];
        assert_eq!(md["stopped"], "submitted", "{r}");
        assert_eq!(md["tool_calls"], 4);
        assert_eq!(md["turns"], 3);
        assert_eq!(md["static_checks_pass"], true, "{r}");
        let trace = std::fs::read_to_string(out.join(md["trace_path"].as_str().unwrap())).unwrap();
        let lines: Vec<Value> = trace.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let tools: Vec<&str> = lines[1..].iter().map(|l| l["tool"].as_str().unwrap_or("")).collect();
        assert_eq!(tools, vec!["view", "edit", "lint", "submit"]);
        assert_eq!(lines[2]["turn"], lines[3]["turn"]);
        assert!(lines[2]["tokens"]["input"].as_f64().unwrap() > 0.0 && lines[3].get("tokens").is_none());
        let mut s = cabrito_analysis::traces::plain::read("t.jsonl", &trace);
        s.classify();
        assert_eq!(s.turns.len(), 3);
        assert_eq!(s.usage.input_tokens, md["n_input_tokens"].as_f64());
    }
    assert!(response_path_has(&out, "agent/m2.jsonl"));
    graded_all_pass(&tasks, &out, n);
}

/// A model that calls every tool, malformed arguments among them: each bad call gets a one-line
/// error and the episode goes on; the request offers exactly the six tools, each with a JSON
/// schema; the trace (read by `cabrito traces`' reader) records every call with its turn and the
/// server's usage; the record's tokens are the server's; the answer passes the hidden tests.
#[test]
fn agent_mode_offers_exactly_the_tools_and_records_every_call() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "cache_function");
    let n = answers.len();
    let (url, st) = stand_in(answers);
    st.lock().unwrap().every_tool = true;
    let out = tmp.path().join("run");
    let r = cabrito(&[
        "solve",
        "--endpoint",
        &url,
        "--model",
        "every-tool",
        "--mode",
        "agent",
        "--window",
        "2000",
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--backoff-ms",
        "10",
        "--concurrency",
        "1",
    ]);
    let stdout = ok(&r, "solve --mode agent (every tool)");
    assert!(stdout.contains(&format!("{n} answered")), "{stdout}");
    // Exactly the six tools, each a function with a JSON-schema object of parameters.
    let requests: Vec<Value> = st.lock().unwrap().requests.iter().map(|r| r.1.clone()).collect();
    assert_eq!(requests.len(), 4 * n);
    for body in &requests {
        let tools = body["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["view", "search", "edit", "lint", "run", "submit"]);
        for t in tools {
            assert_eq!(t["type"], "function");
            assert_eq!(t["function"]["parameters"]["type"], "object", "{t}");
            assert!(t["function"]["parameters"]["properties"].is_object(), "{t}");
        }
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("run(code)") && !system.contains("check()"), "{system}");
    }
    let recs = response_lines(&out);
    assert_eq!(recs.len(), n);
    for rec in &recs {
        let md = &rec["metadata"];
        assert_eq!(md["stopped"], "submitted", "{rec}");
        assert_eq!(md["turns"], 4);
        assert_eq!(md["tool_calls"], 3 + 9 + 5 + 1);
        let trace = std::fs::read_to_string(out.join(md["trace_path"].as_str().unwrap())).unwrap();
        let calls: Vec<Value> = trace.lines().skip(1).map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(calls.len(), 18);
        let outcome =
            |i: usize| (calls[i]["success"].as_bool().unwrap(), calls[i]["output"].as_str().unwrap().to_string());
        // Malformed calls: clear one-line errors, recorded as failed; the next call still works.
        for (i, want) in [
            (3, "not a JSON object"),
            (4, "'path' must be a string"),
            (5, "run needs 'code'"),
            (6, "unknown tool 'shell'"),
            (7, "search needs a 'pattern'"),
            (8, "not Python"),
            (9, "no such file"),
            (10, "not both"),
            (11, "must be a JSON object"),
        ] {
            let (ok, text) = outcome(i);
            assert!(!ok && text.contains(want) && !text.contains('\n'), "call {i}: {text}");
        }
        assert_eq!(calls[12]["tool"], "edit");
        assert!(outcome(12).0);
        assert_eq!(outcome(13), (true, "solution.py compiles".to_string()));
        assert!(outcome(14).1.starts_with("the run finished (exit status 0)\nvalue: "), "{}", outcome(14).1);
        assert_eq!(outcome(15).1, "the run finished (exit status 0)\n(no output)\n");
        assert_eq!(outcome(16), (true, "solution.py compiles".to_string()));
        assert!(outcome(17).1.starts_with("submitted solution.py") && !outcome(17).1.contains("PASS"));
        // Turns and tokens: each turn's first call carries the server's usage for it.
        let turns: Vec<u64> = calls.iter().map(|c| c["turn"].as_u64().unwrap()).collect();
        assert_eq!(turns, [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3]);
        let firsts = [0usize, 3, 12, 17];
        for (i, c) in calls.iter().enumerate() {
            assert_eq!(c.get("tokens").is_some(), firsts.contains(&i), "call {i}: {c}");
        }
        let sum = |k: &str| firsts.iter().map(|&i| calls[i]["tokens"][k].as_f64().unwrap()).sum::<f64>();
        assert_eq!(md["n_input_tokens"].as_f64(), Some(sum("input")));
        assert_eq!(md["n_cached_tokens"].as_f64(), Some(sum("cached")));
        assert_eq!(md["n_output_tokens"].as_f64(), Some(sum("output")));
        // The same figures as the server reported, turn by turn, for this task's requests.
        let mut s = cabrito_analysis::traces::plain::read("t.jsonl", &trace);
        s.classify();
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        assert_eq!(s.turns.len(), 4);
        assert_eq!(s.usage.input_tokens, md["n_input_tokens"].as_f64());
        let labels: Vec<&str> = s.calls.iter().map(|c| c.label.as_str()).collect();
        assert!(labels.contains(&"read"), "{labels:?}");
    }
    let reported: f64 = requests.iter().map(|b| (b["messages"].to_string().len() / 4) as f64).sum();
    let recorded: f64 = recs.iter().map(|r| r["metadata"]["n_input_tokens"].as_f64().unwrap()).sum();
    assert_eq!(recorded, reported, "the ledger is the server's usage");
    graded_all_pass(&tasks, &out, n);
}

#[test]
fn failures_are_recorded_and_retried_on_request() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "add_return_value");
    let n = answers.len();
    let (url, st) = stand_in(answers);
    st.lock().unwrap().faults.extend([Fault::BadRequest]);
    let out = tmp.path().join("run");
    let args = [
        "solve",
        "--endpoint",
        &url,
        "--model",
        "m3",
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "1",
    ];
    let r = cabrito(&args);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("400 Bad Request"), "{}", String::from_utf8_lossy(&r.stderr));
    let recs = response_lines(&out);
    assert_eq!(recs.len(), n);
    assert_eq!(recs.iter().filter(|r| r["output"].is_null() && r["error"].is_string()).count(), 1);
    assert_eq!(st.lock().unwrap().requests.len(), n, "a 400 is not retried");
    let r = cabrito(&args);
    assert_eq!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(st.lock().unwrap().requests.len(), n, "the failure is kept without --retry-errors");
    let mut retry = args.to_vec();
    retry.push("--retry-errors");
    ok(&cabrito(&retry), "retry");
    assert_eq!(st.lock().unwrap().requests.len(), n + 1);
    assert_eq!(response_lines(&out).len(), n + 1);
    graded_all_pass(&tasks, &out, n);
}

#[test]
fn an_interrupted_run_keeps_every_answer_and_resumes() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "dead_code,add_parameter");
    let n = answers.len();
    // A line only one task's code has.
    let first = answers.keys().min().unwrap().clone();
    let hang_on = first
        .lines()
        .find(|l| l.len() > 12 && answers.keys().filter(|k| k.contains(*l)).count() == 1)
        .expect("a line of its own")
        .to_string();
    let (url, st) = stand_in(answers);
    st.lock().unwrap().hang = Some(hang_on);
    let out = tmp.path().join("run");
    let args = [
        "solve",
        "--endpoint",
        &url,
        "--model",
        "m4",
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "2",
    ];
    let mut child = Command::new(bin()).args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while response_lines(&out).len() < n - 1 {
        assert!(Instant::now() < deadline, "the answers did not arrive");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(response_lines(&out).len(), n - 1, "every answer received is on disk");
    let asked = st.lock().unwrap().requests.len();
    assert_eq!(asked, n);
    st.lock().unwrap().hang = None;
    let s = ok(&cabrito(&args), "resume");
    assert!(s.contains(&format!("1 answered, 0 failed, {} skipped", n - 1)), "{s}");
    assert_eq!(st.lock().unwrap().requests.len(), n + 1);
    graded_all_pass(&tasks, &out, n);
}

#[test]
fn nothing_is_sent_without_an_endpoint_and_bad_flags_are_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["solve", "--model", "m", "--tasks", t, "--out", t], "--endpoint"),
        (
            vec!["solve", "--endpoint", "localhost:8000", "--model", "m", "--tasks", t, "--out", t],
            "http:// or https://",
        ),
        (
            vec![
                "solve",
                "--endpoint",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--tasks",
                t,
                "--out",
                t,
                "--api-key-env",
                "CABRITO_TEST_KEY",
            ],
            "not set",
        ),
        (
            vec![
                "solve",
                "--endpoint",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--tasks",
                t,
                "--out",
                t,
                "--mode",
                "chat",
            ],
            "single or agent",
        ),
        (
            vec![
                "solve",
                "--endpoint",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                "--tasks",
                t,
                "--out",
                t,
                "--concurrency",
                "0",
            ],
            "from 1 to 256",
        ),
        (
            vec!["solve", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", "--tasks", t, "--out", t],
            "no task under",
        ),
    ];
    for (args, want) in cases {
        let r = cabrito(&args);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let _ = PathBuf::new();
}

/// Text with characters of two, three and four bytes.
const WIDE: &str = "# s = 'é…中😀'";

#[test]
fn streams_cut_inside_characters_keep_every_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "add_parameter");
    let n = answers.len();
    let (url, st) = stand_in(answers);
    {
        let mut s = st.lock().unwrap();
        // Three-byte chunks: most characters above are split across two of them.
        s.byte_chunks = 3;
        s.decorate = Some(WIDE.to_string());
    }
    for mode in ["single", "agent"] {
        let out = tmp.path().join(mode);
        let r = cabrito(&[
            "solve",
            "--endpoint",
            &url,
            "--model",
            "m",
            "--mode",
            mode,
            "--stream",
            "--window",
            "2000",
            "--tasks",
            tasks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        ok(&r, mode);
        let recs = response_lines(&out);
        assert_eq!(recs.len(), n);
        for r in &recs {
            let output = r["output"].as_str().unwrap();
            assert!(output.trim_end().ends_with(WIDE), "{mode}: the answer's last line is {:?}", output.lines().last());
            assert!(!output.contains('\u{fffd}'), "{mode}: replacement characters in {output}");
        }
        if mode == "agent" {
            // The tool call's arguments came through the same stream.
            let r = &recs[0];
            let trace = std::fs::read_to_string(out.join(r["metadata"]["trace_path"].as_str().unwrap())).unwrap();
            let edit: Value = trace
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|l| l["tool"] == "edit")
                .expect("an edit");
            assert!(edit["arguments"].to_string().contains(WIDE), "{edit}");
        }
    }
}

#[test]
fn a_redirect_to_another_origin_is_an_error_and_nothing_goes_there() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "add_parameter");
    let n = answers.len();
    assert_eq!(n, 2);
    let (url, st) = stand_in(answers.clone());
    // Another origin (another loopback port), able to answer: it must never be asked.
    let (other, other_st) = stand_in(answers);
    let elsewhere = format!("{other}/chat/completions");
    st.lock().unwrap().faults.extend([Fault::Redirect(307, elsewhere.clone()), Fault::Redirect(302, elsewhere)]);
    let out = tmp.path().join("run");
    let args = [
        "solve",
        "--endpoint",
        &url,
        "--model",
        "m",
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "1",
        "--api-key-env",
        "CABRITO_TEST_KEY",
        "--backoff-ms",
        "10",
    ];
    let r = Command::new(bin()).args(args).env("CABRITO_TEST_KEY", "sk-secret").output().unwrap();
    assert_ne!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stdout));
    assert_eq!(other_st.lock().unwrap().requests.len(), 0, "a request went to another origin");
    assert_eq!(st.lock().unwrap().requests.len(), n, "a redirect elsewhere is not retried");
    let recs = response_lines(&out);
    assert_eq!(recs.len(), n);
    for r in &recs {
        assert!(r["output"].is_null(), "{r}");
        assert!(r["error"].as_str().unwrap().contains("another origin"), "{r}");
    }
    // A 307 to the endpoint's own origin is followed, without a Referer.
    let same = url.replace("/v1", "/v2/chat/completions");
    st.lock().unwrap().faults.extend([Fault::Redirect(307, same)]);
    let mut retry = args.to_vec();
    retry.push("--retry-errors");
    let r = Command::new(bin()).args(&retry).env("CABRITO_TEST_KEY", "sk-secret").output().unwrap();
    ok(&r, "solve --retry-errors");
    let s = st.lock().unwrap();
    assert_eq!(s.requests.len(), 2 * n + 1);
    assert!(s.requests[n..].iter().all(|r| r.2.as_deref() == Some("Bearer sk-secret")));
    assert!(s.referers.is_empty(), "{:?}", s.referers);
    assert_eq!(other_st.lock().unwrap().requests.len(), 0);
}

/// Every line of a response file, which must all be records; (name, dag_id) of each.
fn keys_of(file: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.ends_with('\n'), "the file ends in a torn line");
    text.lines()
        .map(|l| {
            let r: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("an unreadable line ({e}): {l}"));
            assert!(r["output"].is_string(), "{r}");
            (r["name"].as_str().unwrap().to_string(), r["dag_id"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn a_torn_last_line_is_repaired_and_a_run_resumes_any_number_of_times() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "add_parameter");
    let n = answers.len();
    let (url, st) = stand_in(answers);
    let out = tmp.path().join("run");
    let args = [
        "solve",
        "--endpoint",
        &url,
        "--model",
        "m5",
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "1",
    ];
    ok(&cabrito(&args), "solve");
    let mut files = Vec::new();
    let mut stack = vec![out.join("responses")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                files.push(e.path());
            }
        }
    }
    assert_eq!(files.len(), 1);
    let file = files.pop().unwrap();
    let all = keys_of(&file);
    assert_eq!(all.len(), n);
    for round in 0..4 {
        let text = std::fs::read_to_string(&file).unwrap();
        let body = text.trim_end_matches('\n');
        let last_start = body.rfind('\n').map_or(0, |i| i + 1);
        let whole = round == 3;
        // A run stopped while writing its last record: half of it on disk, or (last round) all of
        // it but its line break.
        let torn =
            if whole { body.to_string() } else { format!("{}{}", &body[..last_start], &body[last_start..][..40]) };
        std::fs::write(&file, torn).unwrap();
        let before = st.lock().unwrap().requests.len();
        let r = cabrito(&args);
        let s = ok(&r, "resume");
        let err = String::from_utf8_lossy(&r.stderr);
        let asked = st.lock().unwrap().requests.len() - before;
        if whole {
            assert!(err.contains("lacked its line break"), "{err}");
            assert!(s.contains(&format!("0 answered, 0 failed, {n} skipped")), "{s}");
            assert_eq!(asked, 0);
        } else {
            assert!(err.contains("cut short"), "round {round}: {err}");
            assert!(s.contains(&format!("1 answered, 0 failed, {} skipped", n - 1)), "{s}");
            assert_eq!(asked, 1);
        }
        let mut keys = keys_of(&file);
        keys.sort();
        let mut want = all.clone();
        want.sort();
        assert_eq!(keys, want, "round {round}: every task once");
    }
    let mut aside = file.as_os_str().to_owned();
    aside.push(".torn");
    assert_eq!(std::fs::read_to_string(aside).unwrap().lines().count(), 3, "the torn lines are kept aside");
}

#[test]
fn traces_that_cannot_be_written_are_an_error_and_the_answers_are_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let tasks = tmp.path().join("grid");
    let answers = grid(&tasks, "dead_code");
    let n = answers.len();
    let (url, st) = stand_in(answers);
    let out = tmp.path().join("run");
    let args = [
        "solve",
        "--endpoint",
        &url,
        "--model",
        "m6",
        "--mode",
        "agent",
        "--window",
        "2000",
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    // A traces folder that cannot be made: an error before anything is asked.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("traces"), "a file where the folder goes").unwrap();
    let r = cabrito(&args);
    assert_ne!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stdout));
    assert!(String::from_utf8_lossy(&r.stderr).contains("traces"), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(st.lock().unwrap().requests.len(), 0, "nothing is asked when the traces cannot be kept");
    // One trace that cannot be written: that is an error, and every answer is still kept.
    std::fs::remove_file(out.join("traces")).unwrap();
    ok(&cabrito(&args), "solve");
    let first = response_lines(&out);
    let victim = first[0]["metadata"]["trace_path"].as_str().unwrap().to_string();
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::create_dir_all(out.join(&victim)).unwrap();
    let r = cabrito(&args);
    assert_ne!(r.status.code(), Some(0), "{}", String::from_utf8_lossy(&r.stdout));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains(&victim), "{err}");
    let recs = response_lines(&out);
    assert_eq!(recs.len(), n, "every answer is kept");
    assert!(recs.iter().all(|r| r["output"].is_string()));
    let lost: Vec<&Value> = recs.iter().filter(|r| r["metadata"]["trace_error"].is_string()).collect();
    assert_eq!(lost.len(), 1);
    assert!(lost[0]["metadata"]["trace_path"].is_null());
    for r in recs.iter().filter(|r| r["metadata"]["trace_path"].is_string()) {
        assert!(out.join(r["metadata"]["trace_path"].as_str().unwrap()).is_file());
    }
}
