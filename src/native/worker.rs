//! The grading worker: a WebSocket at `/ws` speaking [`crate::protocol`] (playground.md, "The
//! worker").
//!
//! A client sends a task spec and a solution; the worker regenerates the task itself (it trusts
//! nothing else the client sends), reads the response (file block, bare file or diff), runs the
//! static rubric at once, then the hidden tests through [`runner::grade`] on tokio's blocking pool,
//! at most `workers` jobs at a time, streaming `progress`. Every accepted request gets exactly one
//! final reply (`result` or `error`).
//!
//! Limits, all set by `cabrito serve` flags and all enforced:
//! - `Origin` allow-list at the upgrade: no `Origin` (not a browser), the page's own origin when
//!   it is an IP address or localhost, any localhost origin, and every `--allow-origin` (a host
//!   name's own origin must be listed, so a DNS-rebinding page cannot pass as same-origin);
//! - message size (`too_large`; messages over four times the limit close the connection with 1009);
//! - a per-connection job cap and a bounded global queue (`busy`), and a cap on open connections
//!   (HTTP 503 at the upgrade);
//! - handshake (first message), idle and job timeouts (`timeout`), and at most `max_trials`.
//!
//! Cancelling a queued job removes it; cancelling a running job (or its timeout, or a client that
//! goes away) answers at once and leaves the job's Python processes to the runner's own limits:
//! the runner has no cancellation hook, so the job's wall-clock limit is the job timeout plus one
//! second, the job keeps its worker slot until then, and its outcome is discarded.
//!
//! Logs: one JSON line per job on stderr (connection, id, spec, trials, outcome, times).

use super::cli::Failure;
use super::runner::{self, GradeOptions};
use crate::check::response::parse_response;
use crate::check::rubric::{static_checks, TaskRef};
use crate::grade::{FunctionStatus, GradeTask};
use crate::protocol::{
    self, Accepted, Check, CheckSource, ClientMessage, ErrorCode, FirstFailure, FunctionReport, GradeRequest,
    GradeResult, HelloReply, Progress, ServerMessage, PROTOCOL_VERSION,
};
use crate::spec::SERVED_VERSIONS;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use clap::{value_parser, Arg, ArgAction, ArgMatches};
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::{mpsc, watch, Semaphore};

/// Bytes of the candidate's stdout and stderr sent back in a result.
const OUTPUT_BYTES: usize = 4096;
/// How long one message may take to reach a client that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Messages queued for one connection's socket.
const OUT_CAPACITY: usize = 64;

/// Everything that tunes the worker.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    pub limits: protocol::Limits,
    /// Extra allowed origins (`scheme://host[:port]`, lower case); `*` allows every origin.
    pub allowed_origins: Vec<String>,
    /// Allow any `localhost` / loopback origin.
    pub allow_localhost: bool,
    /// Harness and process limits of the runs (trials and the wall-clock limit are set per job).
    pub grade: GradeOptions,
    /// Write one line per job (and a start-up line) on stderr.
    pub log: bool,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        WorkerConfig {
            limits: protocol::Limits {
                max_message_bytes: 256 << 10,
                max_jobs_per_connection: 4,
                max_queued_jobs: 64,
                workers,
                default_trials: crate::grade::DEFAULT_TRIALS,
                max_trials: 100,
                job_timeout_seconds: 60.0,
                idle_timeout_seconds: 300.0,
                handshake_timeout_seconds: 10.0,
                max_connections: 256,
            },
            allowed_origins: vec![],
            allow_localhost: true,
            grade: GradeOptions::default(),
            log: true,
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Flags of `cabrito serve`.

fn seconds_arg(id: &'static str, default: &'static str, help: &'static str) -> Arg {
    Arg::new(id).long(id).value_name("SECONDS").default_value(default).value_parser(value_parser!(f64)).help(help)
}

fn count_arg(id: &'static str, default: &'static str, help: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .value_name("N")
        .default_value(default)
        .value_parser(value_parser!(u64).range(1..=1_000_000))
        .help(help)
}

/// The worker's flags (added to `cabrito serve`).
pub fn args() -> Vec<Arg> {
    vec![
        Arg::new("allow-origin").long("allow-origin").value_name("ORIGIN").action(ArgAction::Append).help(
            "also accept WebSocket connections from pages at ORIGIN (scheme://host[:port]; '*' for any); repeatable",
        ),
        Arg::new("no-localhost-origins")
            .long("no-localhost-origins")
            .action(ArgAction::SetTrue)
            .help("refuse pages served from other localhost ports (the worker's own origin stays allowed)"),
        Arg::new("max-message-bytes")
            .long("max-message-bytes")
            .value_name("BYTES")
            .default_value("262144")
            .value_parser(value_parser!(u64).range(1024..=(64 << 20)))
            .help("largest WebSocket message accepted (larger: too_large); at most 64 MiB"),
        count_arg("max-connections", "256", "WebSocket connections open at once (beyond: HTTP 503)"),
        count_arg("max-jobs-per-connection", "4", "jobs one connection may have queued or running (beyond: busy)"),
        count_arg("max-queued-jobs", "64", "jobs queued or running across all connections (beyond: busy)"),
        Arg::new("workers")
            .long("workers")
            .value_name("N")
            .value_parser(value_parser!(u64).range(1..=1024))
            .help("jobs graded at the same time (default: the number of cores)"),
        count_arg("trials", "50", "trials per function when a request does not say"),
        count_arg("max-trials", "100", "most trials per function a request may ask for"),
        seconds_arg("job-timeout", "60", "seconds a job may run before it is answered with timeout"),
        seconds_arg(
            "idle-timeout",
            "300",
            "seconds without a message (and no job in flight) before a connection is closed",
        ),
        seconds_arg("handshake-timeout", "10", "seconds after connecting within which the first message must arrive"),
    ]
}

/// The configuration the flags describe.
pub fn config_from(m: &ArgMatches) -> Result<WorkerConfig, Failure> {
    let mut c = WorkerConfig::default();
    let count = |id: &str| m.try_get_one::<u64>(id).ok().flatten().map(|&x| x as usize);
    let secs = |id: &str| -> Result<Option<f64>, Failure> {
        match m.try_get_one::<f64>(id).ok().flatten() {
            None => Ok(None),
            Some(&s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(Some(s)),
            Some(s) => {
                Err(Failure::Usage(format!("--{id} must be a number of seconds above 0 and at most 86400, got {s}")))
            }
        }
    };
    let l = &mut c.limits;
    if let Some(x) = count("max-message-bytes") {
        l.max_message_bytes = x;
    }
    if let Some(x) = count("max-connections") {
        l.max_connections = x;
    }
    if let Some(x) = count("max-jobs-per-connection") {
        l.max_jobs_per_connection = x;
    }
    if let Some(x) = count("max-queued-jobs") {
        l.max_queued_jobs = x;
    }
    if let Some(x) = count("workers") {
        l.workers = x;
    }
    if let Some(x) = count("trials") {
        l.default_trials = x;
    }
    if let Some(x) = count("max-trials") {
        l.max_trials = x;
    }
    if l.default_trials > l.max_trials {
        return Err(Failure::Usage(format!(
            "--trials ({}) must not exceed --max-trials ({})",
            l.default_trials, l.max_trials
        )));
    }
    if let Some(s) = secs("job-timeout")? {
        l.job_timeout_seconds = s;
    }
    if let Some(s) = secs("idle-timeout")? {
        l.idle_timeout_seconds = s;
    }
    if let Some(s) = secs("handshake-timeout")? {
        l.handshake_timeout_seconds = s;
    }
    if let Ok(Some(origins)) = m.try_get_many::<String>("allow-origin") {
        for o in origins {
            c.allowed_origins.push(normalise_origin(o).map_err(Failure::Usage)?);
        }
    }
    if m.try_get_one::<bool>("no-localhost-origins").ok().flatten() == Some(&true) {
        c.allow_localhost = false;
    }
    Ok(c)
}

fn normalise_origin(o: &str) -> Result<String, String> {
    let o = o.trim().trim_end_matches('/').to_ascii_lowercase();
    if o == "*" {
        return Ok(o);
    }
    match o.split_once("://") {
        Some((scheme, host)) if !scheme.is_empty() && !host.is_empty() && !host.contains('/') => Ok(o),
        _ => {
            Err(format!("--allow-origin must be scheme://host[:port] (such as https://example.org) or '*', got '{o}'"))
        }
    }
}

static CONFIGURED: OnceLock<WorkerConfig> = OnceLock::new();

/// Read the flags of `cabrito serve` into the configuration [`routes`] uses.
pub fn configure(m: &ArgMatches) -> Result<(), Failure> {
    let c = config_from(m)?;
    let _ = CONFIGURED.set(c);
    Ok(())
}

/// The worker's routes with the configuration of [`configure`] (the defaults when not called).
pub fn routes() -> Router {
    router(CONFIGURED.get().cloned().unwrap_or_default())
}

// ------------------------------------------------------------------------------------------------
// Shared state.

struct Shared {
    cfg: WorkerConfig,
    /// One permit per job graded at the same time. A job holds its permit until its blocking work
    /// ends, even when its reply (cancelled, timeout) went out earlier.
    slots: Arc<Semaphore>,
    /// Jobs accepted and not yet answered, across connections.
    pending: AtomicUsize,
    /// Connections open (upgrades answered and not yet closed).
    connections: AtomicUsize,
    next_conn: AtomicU64,
    isolation: String,
}

/// The `/ws` route with its own state (tests build servers with their own configurations).
pub fn router(cfg: WorkerConfig) -> Router {
    let isolation = runner::isolation().describe();
    if cfg.log {
        log(json!({
            "event": "worker_start",
            "route": "/ws",
            "limits": cfg.limits,
            "allowed_origins": cfg.allowed_origins,
            "allow_localhost": cfg.allow_localhost,
            "isolation": isolation,
        }));
    }
    let shared = Arc::new(Shared {
        slots: Arc::new(Semaphore::new(cfg.limits.workers.max(1))),
        cfg,
        pending: AtomicUsize::new(0),
        connections: AtomicUsize::new(0),
        next_conn: AtomicU64::new(1),
        isolation,
    });
    Router::new().route("/ws", get(upgrade)).with_state(shared)
}

fn log(v: serde_json::Value) {
    let ts = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
    let mut line = json!({"ts": (ts * 1000.0).round() / 1000.0});
    if let (Some(dst), serde_json::Value::Object(src)) = (line.as_object_mut(), v) {
        dst.extend(src);
    }
    eprintln!("{line}");
}

/// The largest message read at all: between the limit and this, a message is answered with
/// `too_large` and the connection stays open; beyond it the connection is closed.
fn hard_cap(limit: usize) -> usize {
    limit.saturating_mul(4).max(64 << 10)
}

// ------------------------------------------------------------------------------------------------
// The upgrade: the Origin allow-list.

async fn upgrade(State(sh): State<Arc<Shared>>, headers: HeaderMap, ws: WebSocketUpgrade) -> Response {
    if let Err(why) = origin_allowed(&sh.cfg, &headers) {
        if sh.cfg.log {
            log(json!({"event": "forbidden", "reason": why}));
        }
        return (StatusCode::FORBIDDEN, why).into_response();
    }
    let max = sh.cfg.limits.max_connections;
    if sh.connections.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1)).is_err() {
        if sh.cfg.log {
            log(json!({"event": "busy", "reason": "connection limit", "max_connections": max}));
        }
        return (StatusCode::SERVICE_UNAVAILABLE, format!("busy: the worker has {max} connections open (its limit)"))
            .into_response();
    }
    // The slot is freed when the connection ends, or when the upgrade never completes (the
    // callback, and the guard it owns, are then dropped).
    let guard = ConnectionSlot(sh.clone());
    let cap = hard_cap(sh.cfg.limits.max_message_bytes);
    ws.max_message_size(cap).max_frame_size(cap).on_upgrade(move |socket| async move {
        let _slot = guard;
        connection(socket, sh).await
    })
}

struct ConnectionSlot(Arc<Shared>);

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The host name of `host[:port]` (IPv6 literals keep their brackets).
fn host_name(authority: &str) -> &str {
    if authority.starts_with('[') {
        match authority.find(']') {
            Some(i) => &authority[..=i],
            None => authority,
        }
    } else {
        authority.split(':').next().unwrap_or(authority)
    }
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "[::1]"
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

fn is_ip_literal(host: &str) -> bool {
    host.parse::<std::net::Ipv4Addr>().is_ok()
        || (host.starts_with('[')
            && host.ends_with(']')
            && host[1..host.len() - 1].parse::<std::net::Ipv6Addr>().is_ok())
}

/// Whether a browser page at the request's `Origin` may use the worker.
fn origin_allowed(cfg: &WorkerConfig, headers: &HeaderMap) -> Result<(), String> {
    let Some(raw) = headers.get(header::ORIGIN) else {
        return Ok(()); // not a browser: an Origin check protects browsers' users only
    };
    let origin = raw.to_str().map_err(|_| "the Origin header is not text".to_string())?.trim().to_ascii_lowercase();
    if cfg.allowed_origins.iter().any(|a| a == "*" || *a == origin) {
        return Ok(());
    }
    if let Some((_, authority)) = origin.split_once("://") {
        let name = host_name(authority);
        let request_host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_ascii_lowercase);
        if request_host.as_deref() == Some(authority) && (is_ip_literal(name) || is_loopback_name(name)) {
            return Ok(());
        }
        if cfg.allow_localhost && is_loopback_name(name) {
            return Ok(());
        }
    }
    Err(format!(
        "forbidden: pages at origin '{}' may not use this worker; start it with --allow-origin {} to allow them",
        origin.chars().take(200).collect::<String>(),
        origin.chars().take(200).collect::<String>()
    ))
}

// ------------------------------------------------------------------------------------------------
// One connection.

/// What a job hands the connection's writer.
enum Out {
    Msg(ServerMessage),
    /// A job's final reply: the job leaves the connection's table as it is sent.
    Final(String, ServerMessage),
}

struct JobEntry {
    cancel: watch::Sender<bool>,
}

fn deadline_after(seconds: f64) -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs_f64(seconds.clamp(0.001, 86_400.0 * 365.0))
}

async fn send(socket: &mut WebSocket, msg: &ServerMessage) -> Result<(), ()> {
    match tokio::time::timeout(WRITE_TIMEOUT, socket.send(Message::text(msg.to_json()))).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

async fn close(socket: &mut WebSocket, code: u16, reason: &str) {
    let frame = CloseFrame { code, reason: reason.chars().take(100).collect::<String>().into() };
    let _ = tokio::time::timeout(Duration::from_secs(2), socket.send(Message::Close(Some(frame)))).await;
}

async fn connection(mut socket: WebSocket, sh: Arc<Shared>) {
    let conn = sh.next_conn.fetch_add(1, Ordering::Relaxed);
    let limits = sh.cfg.limits.clone();
    let (out_tx, mut out_rx) = mpsc::channel::<Out>(OUT_CAPACITY);
    let mut jobs: HashMap<String, JobEntry> = HashMap::new();
    let mut greeted = false;
    let mut deadline = deadline_after(limits.handshake_timeout_seconds);
    loop {
        let idle = jobs.is_empty();
        tokio::select! {
            biased;
            Some(out) = out_rx.recv() => {
                let msg = match out {
                    Out::Msg(m) => m,
                    Out::Final(id, m) => {
                        jobs.remove(&id);
                        if jobs.is_empty() {
                            deadline = deadline_after(limits.idle_timeout_seconds);
                        }
                        m
                    }
                };
                if send(&mut socket, &msg).await.is_err() {
                    break;
                }
            }
            incoming = socket.recv() => {
                let text = match incoming {
                    None | Some(Ok(Message::Close(_))) => break,
                    Some(Err(e)) => {
                        // Beyond the hard cap (or a broken frame): say why, then close.
                        let text = e.to_string().to_ascii_lowercase();
                        let too_big = text.contains("message too long") || text.contains("space limit");
                        if too_big {
                            let _ = send(&mut socket, &ServerMessage::error(
                                None,
                                ErrorCode::TooLarge,
                                format!("the message is larger than {} bytes; the connection is closed", hard_cap(limits.max_message_bytes)),
                            )).await;
                            close(&mut socket, 1009, "message too big").await;
                        }
                        break;
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {
                        if greeted && idle {
                            deadline = deadline_after(limits.idle_timeout_seconds);
                        }
                        continue;
                    }
                    Some(Ok(Message::Binary(b))) => {
                        greeted = true;
                        deadline = deadline_after(limits.idle_timeout_seconds);
                        let reply = if b.len() > limits.max_message_bytes {
                            too_large(b.len(), limits.max_message_bytes)
                        } else {
                            ServerMessage::error(None, ErrorCode::BadRequest, "messages are JSON text; binary messages are not read")
                        };
                        if send(&mut socket, &reply).await.is_err() {
                            break;
                        }
                        continue;
                    }
                    Some(Ok(Message::Text(t))) => t,
                };
                greeted = true;
                deadline = deadline_after(limits.idle_timeout_seconds);
                let reply = on_text(text.as_str(), &sh, conn, &mut jobs, &out_tx);
                if let Some(reply) = reply {
                    if send(&mut socket, &reply).await.is_err() {
                        break;
                    }
                }
            }
            _ = tokio::time::sleep_until(deadline), if idle => {
                let (what, secs) = if greeted {
                    ("no message", limits.idle_timeout_seconds)
                } else {
                    ("no first message", limits.handshake_timeout_seconds)
                };
                let msg = format!("{what} for {secs} s; the connection is closed");
                let _ = send(&mut socket, &ServerMessage::error(None, ErrorCode::Timeout, msg)).await;
                close(&mut socket, 1000, "idle").await;
                break;
            }
        }
    }
    // The client is gone (or was sent away): its jobs end now; running ones are discarded.
    for job in jobs.values() {
        let _ = job.cancel.send(true);
    }
}

fn too_large(len: usize, max: usize) -> ServerMessage {
    ServerMessage::error(
        None,
        ErrorCode::TooLarge,
        format!("the message is {len} bytes; at most {max} bytes are accepted"),
    )
}

/// Handle one text message: the reply to send at once (if any); grade jobs are started here.
fn on_text(
    text: &str,
    sh: &Arc<Shared>,
    conn: u64,
    jobs: &mut HashMap<String, JobEntry>,
    out: &mpsc::Sender<Out>,
) -> Option<ServerMessage> {
    let limits = &sh.cfg.limits;
    if text.len() > limits.max_message_bytes {
        return Some(too_large(text.len(), limits.max_message_bytes));
    }
    let msg = match ClientMessage::parse(text) {
        Ok(m) => m,
        Err(e) => return Some(e.reply()),
    };
    match msg {
        ClientMessage::Hello(_) => Some(ServerMessage::Hello(HelloReply {
            v: PROTOCOL_VERSION,
            server: format!("cabrito {}", env!("CARGO_PKG_VERSION")),
            limits: limits.clone(),
            generator_versions: SERVED_VERSIONS.to_vec(),
            isolation: sh.isolation.clone(),
        })),
        ClientMessage::Cancel(c) => {
            // A job that already ended got its final reply: nothing more is said about it.
            if let Some(job) = jobs.get(&c.id) {
                let _ = job.cancel.send(true);
            }
            None
        }
        ClientMessage::Grade(g) => {
            let id = g.id.clone();
            let trials = g.trials.unwrap_or(limits.default_trials);
            if trials > limits.max_trials {
                return Some(ServerMessage::error(
                    Some(id),
                    ErrorCode::BadRequest,
                    format!(
                        "trials = {trials} is over this worker's limit; trials must be from 1 to {}",
                        limits.max_trials
                    ),
                ));
            }
            if jobs.contains_key(&id) {
                return Some(ServerMessage::error(
                    Some(id.clone()),
                    ErrorCode::BadRequest,
                    format!("a job with id '{id}' is already queued or running on this connection; use a new id"),
                ));
            }
            if jobs.len() >= limits.max_jobs_per_connection {
                return Some(ServerMessage::error(
                    Some(id),
                    ErrorCode::Busy,
                    format!(
                        "this connection already has {} jobs queued or running (the limit); wait for a result or cancel one",
                        jobs.len()
                    ),
                ));
            }
            let admitted = sh
                .pending
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |p| (p < limits.max_queued_jobs).then_some(p + 1))
                .is_ok();
            if !admitted {
                return Some(ServerMessage::error(
                    Some(id),
                    ErrorCode::Busy,
                    format!("the worker's queue is full ({} jobs); try again shortly", limits.max_queued_jobs),
                ));
            }
            let (cancel_tx, cancel_rx) = watch::channel(false);
            jobs.insert(id.clone(), JobEntry { cancel: cancel_tx });
            let accepted = ServerMessage::Accepted(Accepted {
                v: PROTOCOL_VERSION,
                id: id.clone(),
                spec: g.spec.to_query(),
                trials,
            });
            // `accepted` goes out before anything the job sends: the connection loop sends it
            // before it next reads the job's messages.
            tokio::spawn(job(sh.clone(), conn, g, trials, out.clone(), cancel_rx));
            Some(accepted)
        }
    }
}

// ------------------------------------------------------------------------------------------------
// One job.

enum JobEnd {
    Result(Box<GradeResult>),
    Error(ErrorCode, String),
}

async fn job(
    sh: Arc<Shared>,
    conn: u64,
    req: GradeRequest,
    trials: usize,
    out: mpsc::Sender<Out>,
    cancel: watch::Receiver<bool>,
) {
    let id = req.id.clone();
    let spec_query = req.spec.to_query();
    let queued_at = Instant::now();
    let limits = sh.cfg.limits.clone();
    // Wait for a slot (a cancel removes a queued job).
    let permit = tokio::select! {
        biased;
        _ = cancelled(cancel.clone()) => None,
        p = sh.slots.clone().acquire_owned() => p.ok(),
    };
    let started = Instant::now();
    let end = match permit {
        None => JobEnd::Error(ErrorCode::Cancelled, "cancelled before it started".into()),
        Some(permit) => {
            let (ptx, mut prx) = mpsc::unbounded_channel::<Progress>();
            let mut opts = sh.cfg.grade.clone();
            opts.trials = trials;
            // The runs end (killed from outside) one second after the job's reply is due, or at
            // once when the job is cancelled, times out or loses its client.
            opts.limits.wall_seconds = Some(limits.job_timeout_seconds + 1.0);
            let stop = runner::CancelFlag::new();
            opts.limits.cancel = stop.clone();
            let jid = id.clone();
            let mut handle = tokio::task::spawn_blocking(move || {
                let _permit = permit;
                run_job(&jid, &req, trials, &opts, &|p| {
                    let _ = ptx.send(p);
                })
            });
            let timeout = tokio::time::sleep(Duration::from_secs_f64(limits.job_timeout_seconds));
            tokio::pin!(timeout);
            loop {
                tokio::select! {
                    biased;
                    r = &mut handle => {
                        while let Ok(p) = prx.try_recv() {
                            let _ = out.send(Out::Msg(ServerMessage::Progress(p))).await;
                        }
                        break match r {
                            Ok(end) => end,
                            Err(e) => JobEnd::Error(ErrorCode::Internal, format!("the grader failed: {e}")),
                        };
                    }
                    Some(p) = prx.recv() => {
                        let _ = out.send(Out::Msg(ServerMessage::Progress(p))).await;
                    }
                    _ = cancelled(cancel.clone()) => {
                        stop.cancel();
                        break JobEnd::Error(ErrorCode::Cancelled, "cancelled while running".into());
                    }
                    _ = &mut timeout => {
                        stop.cancel();
                        break JobEnd::Error(ErrorCode::Timeout, format!(
                            "the job did not finish within {} s (the job timeout); a candidate that never returns fails this way",
                            limits.job_timeout_seconds
                        ));
                    }
                }
            }
        }
    };
    sh.pending.fetch_sub(1, Ordering::AcqRel);
    let run_ms = started.elapsed().as_secs_f64() * 1000.0;
    let queued_ms = (started - queued_at).as_secs_f64() * 1000.0;
    let reply = match end {
        JobEnd::Result(r) => {
            if sh.cfg.log {
                log(json!({
                    "event": "job", "conn": conn, "id": id, "spec": spec_query, "trials": trials,
                    "outcome": if r.passed { "passed" } else { "failed" },
                    "static_passed": r.static_passed, "hidden_passed": r.hidden_passed,
                    "format": r.format, "message": r.message,
                    "queued_ms": queued_ms.round(), "run_ms": run_ms.round(),
                }));
            }
            ServerMessage::Result(*r)
        }
        JobEnd::Error(code, message) => {
            if sh.cfg.log {
                log(json!({
                    "event": "job", "conn": conn, "id": id, "spec": spec_query, "trials": trials,
                    "outcome": code.as_str(), "message": message,
                    "queued_ms": queued_ms.round(), "run_ms": run_ms.round(),
                }));
            }
            ServerMessage::error(Some(id.clone()), code, message)
        }
    };
    let _ = out.send(Out::Final(id, reply)).await;
}

/// Resolves when the job is cancelled (or its connection's table is gone).
async fn cancelled(mut c: watch::Receiver<bool>) {
    let _ = c.wait_for(|v| *v).await;
}

fn capped(s: &str) -> String {
    if s.len() <= OUTPUT_BYTES {
        return s.to_string();
    }
    let mut end = OUTPUT_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &s[..end], s.len())
}

/// The blocking part of a job: regenerate, read, check, run.
fn run_job(id: &str, req: &GradeRequest, trials: usize, opts: &GradeOptions, progress: &dyn Fn(Progress)) -> JobEnd {
    let start = Instant::now();
    let task = match crate::generate(&req.spec) {
        Ok(t) => t,
        Err(e) => return JobEnd::Error(ErrorCode::BadRequest, format!("spec: {e}")),
    };
    let spec = task.spec.to_query();
    let total = 3;
    let mut result = GradeResult {
        v: PROTOCOL_VERSION,
        id: id.to_string(),
        passed: false,
        checks: vec![],
        functions: vec![],
        message: String::new(),
        static_passed: false,
        hidden_passed: None,
        format: None,
        spec,
        trials,
        seconds: 0.0,
        stdout: String::new(),
        stderr: String::new(),
    };
    let candidate = match parse_response(&req.solution, &task.starter_code) {
        Ok(c) => c,
        Err(e) => {
            result.message = format!("the response cannot be read: {e}");
            result.checks.push(Check {
                id: "response".into(),
                title: "The response reads as a solution (file block, bare file or diff)".into(),
                must_have: true,
                passed: false,
                reason: e.message.clone(),
                line: e.line,
                source: CheckSource::Response,
            });
            result.seconds = start.elapsed().as_secs_f64();
            return JobEnd::Result(Box::new(result));
        }
    };
    result.format = Some(candidate.format.as_str().to_string());
    result.checks.push(Check {
        id: "response".into(),
        title: "The response reads as a solution (file block, bare file or diff)".into(),
        must_have: true,
        passed: true,
        reason: if candidate.notes.is_empty() {
            format!("read as {}", candidate.format.as_str())
        } else {
            format!("read as {} ({})", candidate.format.as_str(), candidate.notes.join("; "))
        },
        line: None,
        source: CheckSource::Response,
    });
    let rubric = static_checks(&TaskRef::of(&task), &candidate.code);
    let static_items: Vec<Check> = rubric
        .items
        .iter()
        .map(|i| Check {
            id: i.id.to_string(),
            title: i.title.clone(),
            must_have: i.must_have,
            passed: i.passed,
            reason: i.reason.clone(),
            line: i.line,
            source: CheckSource::Static,
        })
        .collect();
    result.static_passed = rubric.passed();
    progress(Progress {
        v: PROTOCOL_VERSION,
        id: id.to_string(),
        done: 1,
        total,
        stage: "static".into(),
        checks: static_items.clone(),
    });
    result.checks.extend(static_items);
    let gtask = GradeTask::from_task(&task);
    let verdict = runner::grade(&gtask, &candidate.code, opts, &|done, of| {
        progress(Progress {
            v: PROTOCOL_VERSION,
            id: id.to_string(),
            done: 1 + done,
            total: 1 + of,
            stage: if done >= of { "candidate" } else { "reference" }.into(),
            checks: vec![],
        })
    });
    result.checks.push(Check {
        id: "hidden_tests".into(),
        title: format!("Hidden tests: every function returns what the reference returns ({trials} trials)"),
        must_have: true,
        passed: verdict.passed,
        reason: verdict.message.clone(),
        line: verdict
            .checks
            .iter()
            .find(|c| c.outcome != crate::grade::Outcome::Pass)
            .and_then(|c| c.metadata.get("line"))
            .and_then(|l| l.as_u64())
            .map(|l| l as usize),
        source: CheckSource::Hidden,
    });
    result.functions = verdict
        .functions
        .iter()
        .map(|f| FunctionReport {
            name: f.name.clone(),
            status: match f.status {
                FunctionStatus::Pass => "pass",
                FunctionStatus::Fail => "fail",
                FunctionStatus::Error => "error",
                FunctionStatus::Missing => "missing",
            }
            .into(),
            passed: f.passed,
            failed: f.failed,
            errored: f.errored,
            first_failure: f.first_failure.as_ref().map(|ff| FirstFailure {
                trial: ff.trial,
                input: ff.inputs.clone(),
                expected: ff.expected.clone(),
                actual: ff.actual.clone(),
                message: ff.message.clone(),
            }),
        })
        .collect();
    result.hidden_passed = Some(verdict.passed);
    result.passed = result.static_passed && verdict.passed;
    result.message = if result.passed {
        verdict.message.clone()
    } else if let Some(item) = rubric.failed_must_haves().next() {
        format!("{}: {}", item.id, item.reason)
    } else {
        verdict.message.clone()
    };
    result.stdout = capped(&verdict.candidate_stdout);
    result.stderr = capped(&verdict.candidate_stderr);
    result.seconds = start.elapsed().as_secs_f64();
    JobEnd::Result(Box::new(result))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        h
    }

    #[test]
    fn origins() {
        let mut c = WorkerConfig::default();
        let ok = |c: &WorkerConfig, o: Option<&str>, host: &str| origin_allowed(c, &headers(o, host)).is_ok();
        assert!(ok(&c, None, "127.0.0.1:8080"));
        assert!(ok(&c, Some("http://127.0.0.1:8080"), "127.0.0.1:8080"));
        assert!(ok(&c, Some("http://localhost:3000"), "127.0.0.1:8080"));
        assert!(ok(&c, Some("http://[::1]:3000"), "[::1]:8080"));
        assert!(ok(&c, Some("http://192.168.1.5:8080"), "192.168.1.5:8080"));
        assert!(!ok(&c, Some("https://evil.example"), "127.0.0.1:8080"));
        assert!(!ok(&c, Some("null"), "127.0.0.1:8080"));
        // A host name is same-origin only when listed (a rebinding page has Host == Origin).
        assert!(!ok(&c, Some("http://rebind.example:8080"), "rebind.example:8080"));
        assert!(!ok(&c, Some("http://localhost.evil.example"), "127.0.0.1:8080"));
        c.allowed_origins.push(normalise_origin("https://Cabrito.example/").unwrap());
        assert!(ok(&c, Some("https://cabrito.example"), "worker.example"));
        c.allow_localhost = false;
        assert!(!ok(&c, Some("http://localhost:3000"), "127.0.0.1:8080"));
        assert!(ok(&c, Some("http://127.0.0.1:8080"), "127.0.0.1:8080"));
        c.allowed_origins.push("*".into());
        assert!(ok(&c, Some("https://anything.example"), "127.0.0.1:8080"));
        assert!(normalise_origin("example.org").is_err());
    }
}
