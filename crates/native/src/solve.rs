//! `cabrito solve --endpoint URL --model NAME --tasks DIR --out DIR`: a language model on a folder of
//! tasks, through any OpenAI-compatible chat-completions server.
//!
//! - `--mode single` (default): the full prompt in, one answer out, as the reference runs models
//!   (grading.md §7.1).
//! - `--mode agent`: the model drives the tool interface through tool calls, up to `--max-turns`.
//!
//! Requests run concurrently. Rate limits, server errors, timeouts and cut streams are retried with
//! backoff (and `Retry-After`). Each answer is appended and flushed as it arrives, so a rerun resumes
//! where the last one stopped. Nothing is sent anywhere but `--endpoint`.

use super::agent::{load_tasks, settings_args, settings_from, write_file, AgentTask};
use super::cli::Failure;
use cabrito_agents::aci::{tool_schemas, Aci};
use cabrito_agents::ledger::TurnTokens;
use cabrito_agents::settings::Settings;
use cabrito_analysis::traces::{
    plain,
    plain::{Header, Tokens},
};
use cabrito_gen::kinds::prompt::llm_prompt;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{json, Value as Json};
use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Makes rustls's `ring` provider the process's TLS cryptography, which every HTTP client
/// (reqwest's, here and in the browser tests' WebDriver) needs before it is built. `ring` rather than
/// reqwest's default `aws-lc-rs`, whose C build was the slowest part of a fresh build
/// (BENCHMARKS.md, "The test suite"). Calling it again changes nothing.
pub fn use_ring_for_tls() {
    // An error means a provider is installed already: the first one stays.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

pub fn command() -> Command {
    Command::new("solve")
        .about("Run a model on tasks through an OpenAI-compatible chat-completions server: one prompt per task, or as an agent driving the tool interface")
        .arg(Arg::new("endpoint").long("endpoint").required(true).value_name("URL").help("the server's base URL (http://127.0.0.1:8000/v1) or its chat-completions URL; nothing is sent anywhere else"))
        .arg(Arg::new("model").long("model").required(true).value_name("NAME").help("the model name the server knows"))
        .arg(Arg::new("tasks").long("tasks").required(true).value_name("DIR").help("tasks in the reference layout (DIR/tasks/<run>/<task_set>/<task_type>.json), as `cabrito grid` writes them"))
        .arg(Arg::new("out").long("out").required(true).value_name("DIR").help("responses go to DIR/responses/…/<code|agent>/<model>.jsonl, traces to DIR/traces/"))
        .arg(Arg::new("mode").long("mode").value_name("single|agent").default_value("single").help("single: the full LLM prompt in, one answer out; agent: the model calls the tools view, search, edit, lint, run, submit"))
        .arg(Arg::new("api-key-env").long("api-key-env").value_name("VAR").help("the environment variable holding the API key (sent as a bearer token); none by default"))
        .arg(Arg::new("concurrency").long("concurrency").value_name("N").default_value("4").help("tasks in flight at once"))
        .arg(Arg::new("retries").long("retries").value_name("N").default_value("6").help("retries of a request after a rate limit, a server error, a lost connection or a cut-off body"))
        .arg(Arg::new("backoff-ms").long("backoff-ms").value_name("MS").default_value("1000").help("first wait before a retry; it doubles each time (a Retry-After header wins)"))
        .arg(Arg::new("max-wait").long("max-wait").value_name("SECONDS").default_value("120").help("longest wait before a retry"))
        .arg(Arg::new("timeout").long("timeout").value_name("SECONDS").default_value("600").help("limit on one request"))
        .arg(Arg::new("max-turns").long("max-turns").value_name("N").default_value("50").help("agent mode: model turns per task"))
        .arg(Arg::new("max-tokens").long("max-tokens").value_name("N").help("the max_tokens of each request (the server's default when absent)"))
        .arg(Arg::new("temperature").long("temperature").value_name("X").help("the sampling temperature (the server's default when absent)"))
        .arg(Arg::new("stream").long("stream").action(ArgAction::SetTrue).help("ask for a server-sent event stream (with usage) instead of one body"))
        .arg(Arg::new("limit").long("limit").value_name("N").help("only the first N tasks"))
        .arg(Arg::new("retry-errors").long("retry-errors").action(ArgAction::SetTrue).help("also redo tasks whose earlier answer is an error record"))
        .arg(Arg::new("max-failures").long("max-failures").value_name("N").default_value("5").help("stop starting new tasks after this many failures in a row"))
        .args(settings_args())
}

/// How the run goes.
#[derive(Clone, Debug)]
struct Config {
    url: String,
    model: String,
    agent: bool,
    key: Option<String>,
    concurrency: usize,
    retries: u32,
    backoff: Duration,
    max_wait: Duration,
    timeout: Duration,
    max_turns: usize,
    max_tokens: Option<u64>,
    temperature: Option<f64>,
    stream: bool,
    settings: Settings,
    retry_errors: bool,
    max_failures: usize,
    out: PathBuf,
}

impl Config {
    /// `<backend>/<model>`: `code/…` for one prompt (as the reference's LLM runs), `agent/…`.
    fn model_path(&self) -> String {
        let safe: String =
            self.model.chars().map(|c| if c.is_control() || c == '\\' || c == ':' { '_' } else { c }).collect();
        let safe = safe.split('/').filter(|p| !p.is_empty() && *p != "." && *p != "..").collect::<Vec<_>>().join("/");
        format!("{}/{safe}", if self.agent { "agent" } else { "code" })
    }
}

fn number<T: std::str::FromStr>(m: &ArgMatches, key: &str, what: &str) -> Result<Option<T>, Failure> {
    match m.get_one::<String>(key) {
        None => Ok(None),
        Some(s) => s.trim().parse::<T>().map(Some).map_err(|_| {
            Failure::Usage(format!("--{key} must be {what}, got '{}'", s.chars().take(30).collect::<String>()))
        }),
    }
}

/// The chat-completions URL of an endpoint.
pub fn completions_url(endpoint: &str) -> Result<String, String> {
    let e = endpoint.trim().trim_end_matches('/');
    if !(e.starts_with("http://") || e.starts_with("https://")) || e.len() < 10 || e.chars().any(char::is_whitespace) {
        return Err(format!(
            "--endpoint must be an http:// or https:// URL such as http://127.0.0.1:8000/v1, got '{}'",
            endpoint.chars().take(60).collect::<String>()
        ));
    }
    Ok(if e.ends_with("/chat/completions") { e.to_string() } else { format!("{e}/chat/completions") })
}

fn config(m: &ArgMatches) -> Result<Config, Failure> {
    let usage = Failure::Usage;
    let url = completions_url(m.get_one::<String>("endpoint").expect("required")).map_err(usage)?;
    let model = m.get_one::<String>("model").expect("required").trim().to_string();
    if model.is_empty() || model.len() > 200 {
        return Err(usage("--model must be a model name of 1 to 200 characters".into()));
    }
    let agent = match m.get_one::<String>("mode").map(String::as_str) {
        Some("single") | None => false,
        Some("agent") => true,
        Some(other) => {
            return Err(usage(format!(
                "--mode must be single or agent, got '{}'",
                other.chars().take(20).collect::<String>()
            )))
        }
    };
    let key = match m.get_one::<String>("api-key-env") {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(k) if !k.trim().is_empty() => Some(k.trim().to_string()),
            _ => return Err(usage(format!("--api-key-env names {var}, but that environment variable is not set"))),
        },
    };
    let positive = |key: &str, default: u64, max: u64| -> Result<u64, Failure> {
        let v = number::<u64>(m, key, &format!("a whole number from 1 to {max}"))?.unwrap_or(default);
        if (1..=max).contains(&v) {
            Ok(v)
        } else {
            Err(Failure::Usage(format!("--{key} must be a whole number from 1 to {max}")))
        }
    };
    let retries = number::<u32>(m, "retries", "a whole number from 0 to 100")?.unwrap_or(6);
    if retries > 100 {
        return Err(usage("--retries must be a whole number from 0 to 100".into()));
    }
    let temperature = number::<f64>(m, "temperature", "a number from 0 to 2")?;
    if temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
        return Err(usage("--temperature must be a number from 0 to 2".into()));
    }
    let backoff_ms = number::<u64>(m, "backoff-ms", "a whole number of milliseconds")?.unwrap_or(1000);
    Ok(Config {
        url,
        model,
        agent,
        key,
        concurrency: positive("concurrency", 4, 256)? as usize,
        retries,
        backoff: Duration::from_millis(backoff_ms.min(600_000)),
        max_wait: Duration::from_secs(
            number::<u64>(m, "max-wait", "a whole number of seconds")?.unwrap_or(120).min(3600),
        ),
        timeout: Duration::from_secs(positive("timeout", 600, 86_400)?),
        max_turns: positive("max-turns", 50, 5_000)? as usize,
        max_tokens: match m.get_one::<String>("max-tokens") {
            Some(_) => Some(positive("max-tokens", 1, 10_000_000)?),
            None => None,
        },
        temperature,
        stream: m.get_flag("stream"),
        settings: settings_from(m).map_err(usage)?,
        retry_errors: m.get_flag("retry-errors"),
        max_failures: positive("max-failures", 5, 1_000_000)? as usize,
        out: PathBuf::from(m.get_one::<String>("out").expect("required")),
    })
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let cfg = config(m)?;
    let dir = PathBuf::from(m.get_one::<String>("tasks").expect("required"));
    if !dir.is_dir() {
        return Err(Failure::Usage(format!("--tasks {} is not a folder", dir.display())));
    }
    let mut problems = Vec::new();
    let mut items = load_tasks(&dir, &mut problems);
    for p in &problems {
        eprintln!("cabrito: skipped: {p}");
    }
    if let Some(limit) = number::<usize>(m, "limit", "a whole number")? {
        items.truncate(limit);
    }
    if items.is_empty() {
        return Err(Failure::Usage(format!(
            "no task under {} (tasks/<run>/<task_set>/<task_type>.json)",
            dir.display()
        )));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(run_all(cfg, items, problems.len()))
}

// ------------------------------------------------------------------------------------------------
// Response files: appended and flushed one record at a time.

#[derive(Default)]
struct Writers {
    files: HashMap<PathBuf, File>,
}

impl Writers {
    /// Append one record as one line. A write that fails is undone (the file is cut back to its
    /// length before), so a later record never lands on a torn line.
    fn append(&mut self, path: &Path, record: &Json) -> Result<(), String> {
        if !self.files.contains_key(path) {
            if let Some(d) = path.parent() {
                std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
            }
            let f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            self.files.insert(path.to_path_buf(), f);
        }
        let f = self.files.get_mut(path).expect("opened");
        let mut line = serde_json::to_string(record).expect("json");
        line.push('\n');
        let before = f.metadata().map(|m| m.len()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let written = f.write_all(line.as_bytes()).and_then(|_| f.flush()).and_then(|_| f.sync_data());
        written.map_err(|e| {
            let undone = f.set_len(before).and_then(|_| f.sync_data()).is_ok();
            format!(
                "cannot write {}: {e}{}",
                path.display(),
                if undone { "" } else { " (and the part written could not be removed: rerun to repair it)" }
            )
        })
    }
}

/// Make a response file end with a whole line before anything is appended to it: a last line cut
/// short (a run killed mid-write) is moved to `<file>.torn`, or, when it is a whole record that only
/// lacks its line break, given one. Returns a note saying what was done.
pub fn repair_tail(path: &Path) -> Result<Option<String>, String> {
    use std::io::{Read, Seek, SeekFrom};
    let cannot = |e: std::io::Error| format!("cannot repair {}: {e}", path.display());
    let mut f = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(cannot(e)),
    };
    let len = f.metadata().map_err(cannot)?.len();
    // Where the last line starts: after the last line break.
    let mut start = 0u64;
    let mut end = len;
    let mut chunk = vec![0u8; 64 << 10];
    while end > 0 {
        let from = end.saturating_sub(chunk.len() as u64);
        let k = (end - from) as usize;
        f.seek(SeekFrom::Start(from)).map_err(cannot)?;
        f.read_exact(&mut chunk[..k]).map_err(cannot)?;
        if end == len && chunk[k - 1] == b'\n' {
            return Ok(None);
        }
        if let Some(i) = chunk[..k].iter().rposition(|&b| b == b'\n') {
            start = from + i as u64 + 1;
            break;
        }
        end = from;
    }
    if start == len {
        return Ok(None);
    }
    let mut tail = Vec::new();
    f.seek(SeekFrom::Start(start)).map_err(cannot)?;
    f.read_to_end(&mut tail).map_err(cannot)?;
    if tail.iter().all(u8::is_ascii_whitespace) {
        f.set_len(start).and_then(|_| f.sync_data()).map_err(cannot)?;
        return Ok(None);
    }
    if serde_json::from_slice::<Json>(&tail).is_ok_and(|v| v.is_object()) {
        f.seek(SeekFrom::End(0)).map_err(cannot)?;
        f.write_all(b"\n").and_then(|_| f.sync_data()).map_err(cannot)?;
        return Ok(Some(format!("{}: the last record lacked its line break; added", path.display())));
    }
    let mut aside = path.as_os_str().to_owned();
    aside.push(".torn");
    let aside = PathBuf::from(aside);
    let mut t = OpenOptions::new().create(true).append(true).open(&aside).map_err(cannot)?;
    tail.push(b'\n');
    t.write_all(&tail).and_then(|_| t.sync_data()).map_err(cannot)?;
    f.set_len(start).and_then(|_| f.sync_data()).map_err(cannot)?;
    Ok(Some(format!(
        "{}: its last line was cut short ({} bytes, a run stopped while writing it); moved to {}, and its task is asked again",
        path.display(),
        tail.len() - 1,
        aside.display()
    )))
}

/// The tasks a response file already answers: (name, dag_id) → whether the last record has an
/// output. The file is read a line at a time; a line that is not a record is left out.
fn answered(path: &Path) -> Result<HashMap<(String, String), bool>, String> {
    use std::io::BufRead;
    let mut out = HashMap::new();
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    for line in std::io::BufReader::new(f).split(b'\n') {
        let line = line.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let Ok(r) = serde_json::from_slice::<Json>(&line) else { continue };
        if let (Some(n), Some(d)) = (r.get("name").and_then(Json::as_str), r.get("dag_id").and_then(Json::as_str)) {
            out.insert((n.to_string(), d.to_string()), r.get("output").is_some_and(Json::is_string));
        }
    }
    Ok(out)
}

// ------------------------------------------------------------------------------------------------
// One request, with retries.

/// A tool call the model asked for.
#[derive(Clone, Debug, PartialEq)]
struct ToolRequest {
    id: String,
    name: String,
    arguments: String,
}

/// What one completion gave.
#[derive(Clone, Debug, Default)]
struct Reply {
    content: String,
    tool_calls: Vec<ToolRequest>,
    finish_reason: Option<String>,
    usage: Option<TurnTokens>,
    id: Option<String>,
}

/// Why a request failed, and whether trying again may help.
#[derive(Debug)]
struct CallError {
    message: String,
    retry: bool,
    retry_after: Option<Duration>,
}

fn retryable(message: String) -> CallError {
    CallError { message, retry: true, retry_after: None }
}

fn usage_of(u: &Json) -> Option<TurnTokens> {
    let n = |v: Option<&Json>| v.and_then(Json::as_f64).filter(|x| x.is_finite() && *x >= 0.0);
    let input = n(u.get("prompt_tokens")).or_else(|| n(u.get("input_tokens")))?;
    let output = n(u.get("completion_tokens")).or_else(|| n(u.get("output_tokens"))).unwrap_or(0.0);
    let cached = n(u.pointer("/prompt_tokens_details/cached_tokens"))
        .or_else(|| n(u.pointer("/input_tokens_details/cached_tokens")))
        .or_else(|| n(u.get("cached_tokens")))
        .unwrap_or(0.0);
    Some(TurnTokens { input, cached, output })
}

fn tool_requests(calls: Option<&Json>) -> Vec<ToolRequest> {
    calls
        .and_then(Json::as_array)
        .map(|list| {
            list.iter()
                .enumerate()
                .map(|(i, c)| ToolRequest {
                    id: c
                        .get("id")
                        .and_then(Json::as_str)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("call_{i}")),
                    name: c.pointer("/function/name").and_then(Json::as_str).unwrap_or("").to_string(),
                    arguments: match c.pointer("/function/arguments") {
                        Some(Json::String(s)) => s.clone(),
                        Some(Json::Null) | None => String::new(),
                        Some(other) => other.to_string(),
                    },
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Read a whole completion body.
fn reply_of_body(body: &Json) -> Result<Reply, CallError> {
    if let Some(e) = body.get("error") {
        return Err(retryable(format!("the server answered with an error: {}", clip(&e.to_string(), 300))));
    }
    let msg = body.pointer("/choices/0/message").ok_or_else(|| CallError {
        message: format!("the answer has no choices[0].message: {}", clip(&body.to_string(), 200)),
        retry: false,
        retry_after: None,
    })?;
    Ok(Reply {
        content: msg.get("content").and_then(Json::as_str).unwrap_or("").to_string(),
        tool_calls: tool_requests(msg.get("tool_calls")),
        finish_reason: body.pointer("/choices/0/finish_reason").and_then(Json::as_str).map(str::to_string),
        usage: body.get("usage").and_then(usage_of),
        id: body.get("id").and_then(Json::as_str).map(str::to_string),
    })
}

/// A stream being put together from its chunks.
#[derive(Default)]
struct StreamState {
    reply: Reply,
    /// Tool calls by their index: id, name, arguments.
    calls: Vec<(String, String, String)>,
    done: bool,
}

impl StreamState {
    fn event(&mut self, data: &str) -> Result<(), CallError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Json =
            serde_json::from_str(data).map_err(|e| retryable(format!("a stream event is not JSON ({e})")))?;
        if let Some(e) = chunk.get("error") {
            return Err(retryable(format!("the stream carried an error: {}", clip(&e.to_string(), 300))));
        }
        if let Some(u) = chunk.get("usage").and_then(usage_of) {
            self.reply.usage = Some(u);
        }
        if self.reply.id.is_none() {
            self.reply.id = chunk.get("id").and_then(Json::as_str).map(str::to_string);
        }
        if let Some(choice) = chunk.pointer("/choices/0") {
            if let Some(f) = choice.get("finish_reason").and_then(Json::as_str) {
                self.reply.finish_reason = Some(f.to_string());
            }
            let delta = choice.get("delta").unwrap_or(&Json::Null);
            if let Some(c) = delta.get("content").and_then(Json::as_str) {
                self.reply.content.push_str(c);
            }
            for (pos, tc) in delta.get("tool_calls").and_then(Json::as_array).into_iter().flatten().enumerate() {
                let i = tc.get("index").and_then(Json::as_u64).map_or(pos, |i| i as usize).min(1_000);
                while self.calls.len() <= i {
                    self.calls.push(Default::default());
                }
                let slot = &mut self.calls[i];
                if let Some(id) = tc.get("id").and_then(Json::as_str) {
                    slot.0 = id.to_string();
                }
                if let Some(n) = tc.pointer("/function/name").and_then(Json::as_str) {
                    slot.1.push_str(n);
                }
                if let Some(a) = tc.pointer("/function/arguments").and_then(Json::as_str) {
                    slot.2.push_str(a);
                }
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Reply, CallError> {
        if !self.done && self.reply.finish_reason.is_none() {
            return Err(retryable("the stream stopped halfway (no finish reason and no [DONE])".into()));
        }
        self.reply.tool_calls = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(i, (id, name, arguments))| ToolRequest {
                id: if id.is_empty() { format!("call_{i}") } else { id },
                name,
                arguments,
            })
            .collect();
        Ok(self.reply)
    }
}

/// Most bytes read from one answer.
const MAX_BODY: usize = 64 * 1024 * 1024;

fn clip(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().count() > n {
        out.push('…');
    }
    out
}

/// `Retry-After` in seconds (a number; an HTTP date falls back to the backoff).
fn retry_after(h: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = h.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?.trim().parse::<f64>().ok()?;
    (v.is_finite() && v >= 0.0).then(|| Duration::from_secs_f64(v.min(86_400.0)))
}

async fn send_once(client: &reqwest::Client, cfg: &Config, body: &Json) -> Result<Reply, CallError> {
    let mut req =
        client.post(&cfg.url).header(reqwest::header::CONTENT_TYPE, "application/json").body(body.to_string());
    if let Some(k) = &cfg.key {
        req = req.bearer_auth(k);
    }
    let mut resp = req.send().await.map_err(|e| {
        if e.is_redirect() {
            CallError {
                message: format!("the request was not sent on: {}", describe(&e)),
                retry: false,
                retry_after: None,
            }
        } else {
            retryable(format!("the request failed: {}", describe(&e)))
        }
    })?;
    let status = resp.status();
    if status.as_u16() == 429 || status.is_server_error() {
        let after = retry_after(resp.headers());
        let text = resp.text().await.unwrap_or_default();
        return Err(CallError {
            message: format!("the server answered {status}: {}", clip(text.trim(), 200)),
            retry: true,
            retry_after: after,
        });
    }
    if !status.is_success() {
        let text = resp.text().await.unwrap_or_default();
        return Err(CallError {
            message: format!("the server answered {status}: {}", clip(text.trim(), 300)),
            retry: false,
            retry_after: None,
        });
    }
    let mut bytes: Vec<u8> = Vec::new();
    let mut stream = StreamState::default();
    // Bytes of the event stream not yet ended by a line break: a character may be split across
    // two chunks, so lines are decoded whole, never chunks.
    let mut pending: Vec<u8> = Vec::new();
    let mut total = 0usize;
    loop {
        let chunk =
            resp.chunk().await.map_err(|e| retryable(format!("the answer stopped halfway: {}", describe(&e))))?;
        let Some(chunk) = chunk else { break };
        total += chunk.len();
        if total > MAX_BODY {
            return Err(CallError {
                message: format!("the answer is larger than {MAX_BODY} bytes"),
                retry: false,
                retry_after: None,
            });
        }
        if cfg.stream {
            pending.extend_from_slice(&chunk);
            let mut start = 0;
            while let Some(i) = pending[start..].iter().position(|&b| b == b'\n') {
                stream_line(&mut stream, &pending[start..start + i])?;
                start += i + 1;
            }
            pending.drain(..start);
        } else {
            bytes.extend_from_slice(&chunk);
        }
    }
    if cfg.stream {
        stream_line(&mut stream, &pending)?;
        return stream.finish();
    }
    let body: Json = serde_json::from_slice(&bytes)
        .map_err(|e| retryable(format!("the answer is not complete JSON (it may have stopped halfway): {e}")))?;
    reply_of_body(&body)
}

/// One line of an event stream: its `data:` given to the stream (a line that is not UTF-8 is an
/// error, never replaced characters).
fn stream_line(stream: &mut StreamState, line: &[u8]) -> Result<(), CallError> {
    let line = std::str::from_utf8(line)
        .map_err(|e| retryable(format!("the stream is not UTF-8 text (byte {} of a line)", e.valid_up_to())))?;
    if let Some(data) = line.trim_end_matches(['\r', '\n']).strip_prefix("data:") {
        stream.event(data.trim_start())?;
    }
    Ok(())
}

fn describe(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    clip(&s, 300)
}

/// Redirects: only a 307 or 308 (which send the same POST again) to the endpoint's own origin is
/// followed, at most five times; a redirect to another scheme, host or port is an error, so
/// nothing is ever sent anywhere but `--endpoint` (reqwest's default follows any).
fn same_origin_only() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(|u| u.origin());
        let status = attempt.status().as_u16();
        let to = attempt.url().clone();
        if first.as_ref() != Some(&to.origin()) {
            let from = first.map(|o| o.ascii_serialization()).unwrap_or_default();
            return attempt.error(format!(
                "the server redirected ({status}) to {}, another origin than the endpoint's ({from}); nothing is sent there",
                to.origin().ascii_serialization()
            ));
        }
        if status != 307 && status != 308 {
            return attempt.error(format!(
                "the server redirected ({status}) to {to}; only a 307 or 308 keeps the request a POST"
            ));
        }
        if attempt.previous().len() > 5 {
            return attempt.error("more than five redirects");
        }
        attempt.follow()
    })
}

/// Send a request, retrying what may pass on a second try. Returns the reply and the attempts made.
async fn send(client: &reqwest::Client, cfg: &Config, body: &Json) -> Result<(Reply, u32), (CallError, u32)> {
    let mut attempt = 0u32;
    loop {
        match send_once(client, cfg, body).await {
            Ok(r) => return Ok((r, attempt + 1)),
            Err(e) if e.retry && attempt < cfg.retries => {
                let backoff = cfg.backoff.saturating_mul(2u32.saturating_pow(attempt.min(20)));
                let wait = e.retry_after.unwrap_or(backoff).min(cfg.max_wait);
                eprintln!(
                    "cabrito: {} — retrying in {:.1} s (attempt {} of {})",
                    e.message,
                    wait.as_secs_f64(),
                    attempt + 2,
                    cfg.retries + 1
                );
                tokio::time::sleep(wait).await;
                attempt += 1;
            }
            Err(e) => return Err((e, attempt + 1)),
        }
    }
}

fn request_body(cfg: &Config, messages: &[Json], tools: Option<&Json>) -> Json {
    let mut b = json!({"model": cfg.model, "messages": messages});
    if let Some(t) = tools {
        b["tools"] = t.clone();
        b["tool_choice"] = json!("auto");
    }
    if let Some(m) = cfg.max_tokens {
        b["max_tokens"] = json!(m);
    }
    if let Some(t) = cfg.temperature {
        b["temperature"] = json!(t);
    }
    if cfg.stream {
        b["stream"] = json!(true);
        b["stream_options"] = json!({"include_usage": true});
    }
    b
}

/// The answer in a reply, as the reference reads it: the first `<solution>…</solution>` span
/// (a missing closing tag is added), else the whole text.
pub fn solution_of(text: &str) -> String {
    let t = if text.contains("</solution>") { text.to_string() } else { format!("{text}</solution>") };
    match t.find("<solution>") {
        Some(a) => {
            let inner = &t[a + "<solution>".len()..];
            inner[..inner.find("</solution>").unwrap_or(inner.len())].trim().to_string()
        }
        None => text.trim().to_string(),
    }
}

// ------------------------------------------------------------------------------------------------
// One task.

/// A trace file written as the session goes. A write that fails is kept as the trace's error (the
/// session goes on; its answer is still worth keeping) and makes the run end in an error.
struct TraceFile {
    file: Option<File>,
    error: Option<String>,
    path_shown: String,
}

impl TraceFile {
    fn open(path: &Path, header: &Header) -> TraceFile {
        let opened = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|_| File::create(path))
            .map_err(|e| format!("cannot write the trace {}: {e}", path.display()));
        let mut t = match opened {
            Ok(f) => TraceFile { file: Some(f), error: None, path_shown: String::new() },
            Err(e) => TraceFile { file: None, error: Some(e), path_shown: String::new() },
        };
        t.path_shown = path.display().to_string();
        t.line(&serde_json::to_value(header).expect("json"));
        t
    }
    fn line(&mut self, v: &Json) {
        if let Some(f) = &mut self.file {
            let mut s = v.to_string();
            s.push('\n');
            if let Err(e) = f.write_all(s.as_bytes()).and_then(|_| f.flush()) {
                self.error = Some(format!("cannot write the trace {}: {e}", self.path_shown));
                self.file = None;
            }
        }
    }
}

fn tokens_json(t: Option<TurnTokens>) -> Option<Tokens> {
    t.map(|t| Tokens { input: Some(t.input), cached: Some(t.cached), output: Some(t.output) })
}

/// What a task came to.
struct TaskOutcome {
    output: Option<String>,
    error: Option<String>,
    meta: Json,
}

async fn single(client: &reqwest::Client, cfg: &Config, item: &AgentTask, trace: &mut TraceFile) -> TaskOutcome {
    let prompt = llm_prompt(&item.prompt, &item.starter);
    let body = request_body(cfg, &[json!({"role": "user", "content": prompt})], None);
    match send(client, cfg, &body).await {
        Ok((r, attempts)) => {
            trace.line(&json!({"type": "message", "turn": 0, "content": r.content, "tokens": tokens_json(r.usage)}));
            let output = solution_of(&r.content);
            TaskOutcome {
                output: Some(output),
                error: None,
                meta: json!({"raw_output": r.content, "parse_error": null, "n_input_tokens": r.usage.map(|u| u.input),
                    "n_cached_tokens": r.usage.map(|u| u.cached), "n_output_tokens": r.usage.map(|u| u.output),
                    "finish_reason": r.finish_reason, "response_id": r.id, "attempts": attempts}),
            }
        }
        Err((e, attempts)) => TaskOutcome { output: None, error: Some(e.message), meta: json!({"attempts": attempts}) },
    }
}

/// The user message of agent mode.
fn agent_task(statement: &str) -> String {
    format!("{statement}\n\nThe workspace holds solution.py. Use the tools to read and change it, then call submit.")
}

async fn agent(client: &reqwest::Client, cfg: &Config, item: &AgentTask, trace: &mut TraceFile) -> TaskOutcome {
    let mut aci: Aci =
        item.session(cfg.settings.clone(), std::sync::Arc::new(super::run_tool::SandboxRunner::default()));
    let tools = tool_schemas(&cfg.settings);
    let mut messages = vec![
        json!({"role": "system", "content": Aci::manual(&cfg.settings)}),
        json!({"role": "user", "content": agent_task(&item.prompt)}),
    ];
    let mut total = TurnTokens::default();
    let mut attempts_all = 0;
    let mut stop = "turn limit";
    let mut turns = 0;
    for turn in 0..cfg.max_turns {
        let body = request_body(cfg, &messages, Some(&tools));
        let (reply, attempts) = match send(client, cfg, &body).await {
            Ok(r) => r,
            Err((e, attempts)) => {
                return TaskOutcome {
                    output: None,
                    error: Some(e.message),
                    meta: json!({"attempts": attempts_all + attempts, "turns": turns, "tool_calls": aci.steps().len(), "partial_output": aci.response()}),
                }
            }
        };
        attempts_all += attempts;
        turns = turn + 1;
        if let Some(u) = reply.usage {
            total.input += u.input;
            total.cached += u.cached;
            total.output += u.output;
        }
        let mut assistant = json!({"role": "assistant", "content": if reply.content.is_empty() { Json::Null } else { json!(reply.content) }});
        if !reply.tool_calls.is_empty() {
            assistant["tool_calls"] = reply
                .tool_calls
                .iter()
                .map(
                    |c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}),
                )
                .collect();
        }
        messages.push(assistant);
        if reply.tool_calls.is_empty() {
            trace.line(
                &json!({"type": "message", "turn": turn, "content": reply.content, "tokens": tokens_json(reply.usage)}),
            );
            stop = "the model stopped calling tools";
            break;
        }
        for (i, c) in reply.tool_calls.iter().enumerate() {
            let args = Json::String(c.arguments.clone());
            // A `run` call waits for its sandboxed process: off the runtime's own threads.
            let output = tokio::task::block_in_place(|| {
                aci.call_in_turn(&c.name, &args, turn, if i == 0 { reply.usage } else { None })
            });
            let step = aci.steps().last().expect("a step");
            let call = plain::PlainCall {
                tool: step.tool.clone(),
                arguments: step.arguments.clone(),
                output: Some(output.clone()),
                turn: Some(turn as u64),
                tokens: if i == 0 { tokens_json(reply.usage) } else { None },
                success: Some(step.ok),
                thought: (i == 0 && !reply.content.is_empty()).then(|| reply.content.clone()),
                ..plain::PlainCall::default()
            };
            trace.line(&serde_json::to_value(&call).expect("json"));
            messages.push(json!({"role": "tool", "tool_call_id": c.id, "content": output}));
        }
        if aci.submitted() {
            stop = "submitted";
            break;
        }
    }
    TaskOutcome {
        output: Some(aci.response()),
        error: None,
        meta: json!({"turns": turns, "tool_calls": aci.steps().len(), "stopped": stop, "submitted": aci.submitted(),
            "n_input_tokens": total.input, "n_cached_tokens": total.cached, "n_output_tokens": total.output,
            "static_checks_pass": aci.rubric().passed(), "settings": cfg.settings, "attempts": attempts_all}),
    }
}

async fn solve_one(client: reqwest::Client, cfg: Arc<Config>, item: AgentTask) -> Json {
    let started = Instant::now();
    let model_path = cfg.model_path();
    let session_id = item.session_id(&model_path);
    let trace_rel = format!("traces/{session_id}.jsonl");
    let agent_name = if cfg.agent { "agent" } else { "single" };
    let header = Header::new(&session_id, agent_name, &model_path, Some(item.plain()));
    let mut trace = TraceFile::open(&cfg.out.join(&trace_rel), &header);
    let outcome = if cfg.agent {
        agent(&client, &cfg, &item, &mut trace).await
    } else {
        single(&client, &cfg, &item, &mut trace).await
    };
    if let Some(f) = &mut trace.file {
        if let Err(e) = f.sync_data() {
            trace.error = Some(format!("cannot write the trace {}: {e}", trace.path_shown));
        }
    }
    let mut meta = outcome.meta;
    meta["session_id"] = json!(session_id);
    match &trace.error {
        None => meta["trace_path"] = json!(trace_rel),
        Some(e) => {
            meta["trace_path"] = Json::Null;
            meta["trace_error"] = json!(e);
        }
    }
    meta["mode"] = json!(agent_name);
    meta["model"] = json!(cfg.model);
    meta["time_seconds"] = json!((started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0);
    let mut rec = json!({"name": item.name, "dag_id": item.dag_id, "output": outcome.output, "metadata": meta});
    if let Some(e) = outcome.error {
        rec["error"] = json!(e);
    }
    rec
}

/// Run every item; `refused` task records (reported already) make the run end in an error too.
async fn run_all(cfg: Config, items: Vec<AgentTask>, refused: usize) -> Result<(), Failure> {
    let cfg = Arc::new(cfg);
    let model_path = cfg.model_path();
    // What earlier runs answered.
    let mut skip = 0usize;
    let mut kept_errors = 0usize;
    let mut todo = Vec::new();
    let mut seen_files: HashMap<PathBuf, HashMap<(String, String), bool>> = HashMap::new();
    let mut queued: HashSet<(PathBuf, String, String)> = HashSet::new();
    for item in items {
        let path = item.response_path(&cfg.out, &model_path);
        if !seen_files.contains_key(&path) {
            // A torn last line (a run killed mid-write) is set right before anything is appended.
            if let Some(note) = repair_tail(&path).map_err(Failure::Other)? {
                eprintln!("cabrito: {note}");
            }
            seen_files.insert(path.clone(), answered(&path).map_err(Failure::Other)?);
        }
        let done = &seen_files[&path];
        match done.get(&(item.name.clone(), item.dag_id.clone())) {
            Some(true) => skip += 1,
            Some(false) if !cfg.retry_errors => {
                skip += 1;
                kept_errors += 1;
            }
            _ => {
                if queued.insert((path, item.name.clone(), item.dag_id.clone())) {
                    todo.push(item);
                }
            }
        }
    }
    if skip > 0 {
        eprintln!(
            "cabrito: {skip} tasks already answered in {} are skipped{}",
            cfg.out.display(),
            if kept_errors > 0 {
                format!(" ({kept_errors} of them errors; --retry-errors redoes those)")
            } else {
                String::new()
            }
        );
    }
    use_ring_for_tls();
    let client = reqwest::Client::builder()
        .timeout(cfg.timeout)
        .connect_timeout(Duration::from_secs(30))
        .redirect(same_origin_only())
        .referer(false)
        .build()
        .map_err(|e| Failure::Other(format!("cannot build the HTTP client: {e}")))?;
    // A traces folder that cannot be made is found before any request is sent.
    let traces = cfg.out.join("traces");
    std::fs::create_dir_all(&traces)
        .map_err(|e| Failure::Other(format!("cannot create {}: {e}; nothing was sent", traces.display())))?;
    let writers = Arc::new(Mutex::new(Writers::default()));
    // Writes that failed: (a trace's, what happened).
    let lost: Arc<Mutex<Vec<(bool, String)>>> = Arc::default();
    let semaphore = Arc::new(tokio::sync::Semaphore::new(cfg.concurrency));
    let in_a_row = Arc::new(AtomicUsize::new(0));
    let stopped = Arc::new(AtomicBool::new(false));
    let (answers, failures) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let total = todo.len();
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for item in todo {
        let (client, cfg, writers, semaphore) = (client.clone(), cfg.clone(), writers.clone(), semaphore.clone());
        let (in_a_row, stopped, answers, failures, lost) =
            (in_a_row.clone(), stopped.clone(), answers.clone(), failures.clone(), lost.clone());
        set.spawn(async move {
            let Ok(_permit) = semaphore.acquire_owned().await else { return Ok(()) };
            if stopped.load(Ordering::SeqCst) {
                return Ok(());
            }
            let path = item.response_path(&cfg.out, &cfg.model_path());
            let name = item.name.clone();
            let rec = solve_one(client, cfg.clone(), item).await;
            let failed = rec.get("output").is_none_or(Json::is_null);
            let written = writers.lock().map_err(|_| "a writer panicked".to_string())?.append(&path, &rec);
            if let Err(e) = written {
                eprintln!("cabrito: {name}: {e}");
                lost.lock().map_err(|_| "a writer panicked".to_string())?.push((false, e));
                return Ok(());
            }
            if let Some(e) = rec.pointer("/metadata/trace_error").and_then(Json::as_str) {
                eprintln!("cabrito: {name}: {e} (the answer is kept)");
                lost.lock().map_err(|_| "a writer panicked".to_string())?.push((true, e.to_string()));
            }
            if failed {
                failures.fetch_add(1, Ordering::SeqCst);
                let n = in_a_row.fetch_add(1, Ordering::SeqCst) + 1;
                eprintln!("cabrito: {name}: {}", rec.get("error").and_then(Json::as_str).unwrap_or("failed"));
                if n >= cfg.max_failures && !stopped.swap(true, Ordering::SeqCst) {
                    eprintln!("cabrito: {n} failures in a row; no new task is started (rerun to resume)");
                }
            } else {
                in_a_row.store(0, Ordering::SeqCst);
                let k = answers.fetch_add(1, Ordering::SeqCst) + 1;
                eprintln!("cabrito: answered {name} ({k} of {total})");
            }
            Ok::<(), String>(())
        });
    }
    let mut write_error = None;
    while let Some(r) = set.join_next().await {
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => write_error = Some(e),
            Err(e) => write_error = Some(format!("a task stopped: {e}")),
        }
    }
    if let Some(e) = write_error {
        return Err(Failure::Other(e));
    }
    let lost = std::mem::take(&mut *lost.lock().map_err(|_| Failure::Other("a writer panicked".into()))?);
    let (a, f) = (answers.load(Ordering::SeqCst), failures.load(Ordering::SeqCst));
    let unwritten = lost.iter().filter(|(trace, _)| !trace).count();
    let not_started = total - a - f - unwritten;
    println!(
        "{a} answered, {f} failed, {skip} skipped (done before), {not_started} not started, in {:.1} s; responses under {}",
        started.elapsed().as_secs_f64(),
        cfg.out.join("responses").display()
    );
    if !lost.is_empty() {
        return Err(Failure::Other(format!(
            "{} writes failed ({unwritten} answers, {} traces; first: {}); what was written is kept, rerun to resume",
            lost.len(),
            lost.len() - unwritten,
            lost[0].1
        )));
    }
    if f > 0 || not_started > 0 {
        return Err(Failure::Other(format!(
            "{f} tasks failed and {not_started} were not started; rerun the same command to resume{}",
            if f > 0 { " (with --retry-errors to redo the failures)" } else { "" }
        )));
    }
    if refused > 0 {
        return Err(Failure::Other(format!(
            "{refused} task files or records could not be used (listed above as skipped); the others were answered"
        )));
    }
    write_file(&cfg.out.join(".solve-done"), &format!("{}\n", cfg.model_path()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_solution_span_is_read_as_the_reference_reads_it() {
        assert_eq!(
            solution_of("<thought>x</thought><solution>\n# === solution.py ===\nx = 1\n</solution> tail"),
            "# === solution.py ===\nx = 1"
        );
        assert_eq!(solution_of("<solution>\nA\n"), "A");
        assert_eq!(solution_of("  plain  "), "plain");
        assert_eq!(completions_url("http://h:1/v1/").unwrap(), "http://h:1/v1/chat/completions");
        assert_eq!(completions_url("https://x.org/v1/chat/completions").unwrap(), "https://x.org/v1/chat/completions");
        assert!(completions_url("ftp://x").is_err() && completions_url("localhost:8000").is_err());
    }

    #[test]
    fn streams_are_put_together_and_a_cut_stream_is_an_error() {
        let mut s = StreamState::default();
        for d in [
            r#"{"id":"c1","choices":[{"delta":{"content":"Hel"}}]}"#,
            r#"{"choices":[{"delta":{"content":"lo","tool_calls":[{"index":0,"id":"t1","function":{"name":"view","arguments":"{\"st"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"art\":1}"}}]},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4}}}"#,
            "[DONE]",
        ] {
            s.event(d).unwrap();
        }
        let r = s.finish().unwrap();
        assert_eq!(r.content, "Hello");
        assert_eq!(
            r.tool_calls,
            vec![ToolRequest { id: "t1".into(), name: "view".into(), arguments: "{\"start\":1}".into() }]
        );
        assert_eq!(r.usage, Some(TurnTokens { input: 10.0, cached: 4.0, output: 3.0 }));
        let mut cut = StreamState::default();
        cut.event(r#"{"choices":[{"delta":{"content":"Hel"}}]}"#).unwrap();
        assert!(cut.finish().unwrap_err().message.contains("stopped halfway"));
        assert!(StreamState::default().event("{not json").unwrap_err().retry);
    }
}
