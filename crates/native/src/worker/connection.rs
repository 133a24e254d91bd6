//! One connection: the upgrade (origin policy, connection cap, message size caps), then the loop
//! that reads client messages, answers them, starts jobs ([`super::job`]) and writes what the jobs
//! send, until the client leaves or times out.
//!
//! Its limits, all `cabrito serve` flags: message size (`too_large`; four times over closes the
//! connection with 1009), jobs per connection and a bounded global queue (`busy`), open connections
//! (HTTP 503 at the upgrade), handshake, idle and job timeouts (`timeout`), and `max_trials`.

use super::job::{job, Work};
use super::origin::origin_allowed;
use super::schedule::{estimate_seconds, LARGE_SECONDS};
use super::{log, Shared};
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use cabrito_check::protocol::{Accepted, ClientMessage, ErrorCode, HelloReply, ServerMessage, PROTOCOL_VERSION};
use cabrito_gen::spec::SERVED_VERSIONS;
use serde_json::json;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How long one message may take to reach a client that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Messages queued for one connection's socket.
const OUT_CAPACITY: usize = 64;

/// The largest message read at all: between the limit and this, a message is answered with
/// `too_large` and the connection stays open; beyond it the connection is closed.
fn hard_cap(limit: usize) -> usize {
    limit.saturating_mul(4).max(64 << 10)
}

pub(super) async fn upgrade(State(sh): State<Arc<Shared>>, headers: HeaderMap, ws: WebSocketUpgrade) -> Response {
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

/// What a job hands the connection's writer.
pub(super) enum Out {
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
    // Whether the client said hello: nothing is graded or cancelled before it.
    let mut said_hello = false;
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
                    None => break,
                    Some(Ok(Message::Close(_))) => {
                        // The client's close frame has a reply queued; the next read sends it, so
                        // the client sees a clean close (its code echoed), not a dropped socket.
                        let _ = tokio::time::timeout(Duration::from_secs(2), socket.recv()).await;
                        break;
                    }
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
                let reply = on_text(text.as_str(), &sh, conn, &mut jobs, &out_tx, &mut said_hello);
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
    said_hello: &mut bool,
) -> Option<ServerMessage> {
    let limits = &sh.cfg.limits;
    if text.len() > limits.max_message_bytes {
        return Some(too_large(text.len(), limits.max_message_bytes));
    }
    let msg = match ClientMessage::parse(text) {
        Ok(m) => m,
        Err(e) => return Some(e.reply()),
    };
    let id = match &msg {
        ClientMessage::Hello(_) => None,
        ClientMessage::Grade(g) => Some(g.id.clone()),
        ClientMessage::Cancel(c) => Some(c.id.clone()),
        ClientMessage::Run(r) => Some(r.id.clone()),
    };
    if id.is_some() && !*said_hello {
        return Some(ServerMessage::error(
            id,
            ErrorCode::BadRequest,
            format!(
                "say hello first ({}): the worker answers with its limits, then grades",
                ClientMessage::hello().to_json()
            ),
        ));
    }
    match msg {
        ClientMessage::Hello(_) => {
            *said_hello = true;
            Some(ServerMessage::Hello(HelloReply {
                v: PROTOCOL_VERSION,
                server: format!("cabrito {}", env!("CARGO_PKG_VERSION")),
                limits: limits.clone(),
                generator_versions: SERVED_VERSIONS.to_vec(),
                isolation: sh.isolation.clone(),
            }))
        }
        ClientMessage::Cancel(c) => {
            // A job that already ended got its final reply: nothing more is said about it.
            if let Some(job) = jobs.get(&c.id) {
                let _ = job.cancel.send(true);
            }
            None
        }
        ClientMessage::Run(r) => {
            let id = r.id.clone();
            if let Some(refused) = admit(&id, sh, jobs) {
                return Some(refused);
            }
            let (cancel_tx, cancel_rx) = watch::channel(false);
            jobs.insert(id, JobEntry { cancel: cancel_tx });
            // A run waits for a slot like a grade; it is small (a second or two, ten at most).
            let (ticket, _) = sh.sched.enqueue(conn, RUN_ESTIMATE_SECONDS);
            tokio::spawn(job(sh.clone(), conn, Work::Run(r), out.clone(), cancel_rx, ticket));
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
            if let Some(refused) = admit(&id, sh, jobs) {
                return Some(refused);
            }
            let (cancel_tx, cancel_rx) = watch::channel(false);
            jobs.insert(id.clone(), JobEntry { cancel: cancel_tx });
            // Queued now, in arrival order, with its estimate (the scheduler decides when it runs).
            let estimate = estimate_seconds(&g.spec, trials);
            let (ticket, queued_ahead) = sh.sched.enqueue(conn, estimate);
            let accepted = ServerMessage::Accepted(Accepted {
                v: PROTOCOL_VERSION,
                id: id.clone(),
                spec: g.spec.to_query(),
                trials,
                estimated_seconds: Some((estimate * 10.0).ceil() / 10.0),
                queued_ahead: Some(queued_ahead),
                note: (estimate >= LARGE_SECONDS).then(|| {
                    format!("a large task: grading takes about {:.0} s; smaller jobs may run first", estimate.ceil())
                }),
            });
            // `accepted` goes out before anything the job sends: the connection loop sends it
            // before it next reads the job's messages.
            tokio::spawn(job(sh.clone(), conn, Work::Grade { req: g, trials }, out.clone(), cancel_rx, ticket));
            Some(accepted)
        }
    }
}

/// Seconds the scheduler counts for a `run` message.
const RUN_ESTIMATE_SECONDS: f64 = 1.0;

/// Admit a new job with this id: `None`, or the reply refusing it (a duplicate id, the connection's
/// job cap, a full queue). An admitted job counts as pending until its final reply.
fn admit(id: &str, sh: &Arc<Shared>, jobs: &HashMap<String, JobEntry>) -> Option<ServerMessage> {
    let limits = &sh.cfg.limits;
    if jobs.contains_key(id) {
        return Some(ServerMessage::error(
            Some(id.to_string()),
            ErrorCode::BadRequest,
            format!("a job with id '{id}' is already queued or running on this connection; use a new id"),
        ));
    }
    if jobs.len() >= limits.max_jobs_per_connection {
        return Some(ServerMessage::error(
            Some(id.to_string()),
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
            Some(id.to_string()),
            ErrorCode::Busy,
            format!("the worker's queue is full ({} jobs); try again shortly", limits.max_queued_jobs),
        ));
    }
    None
}
