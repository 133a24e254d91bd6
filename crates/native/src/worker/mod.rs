//! The grading worker: a WebSocket at `/ws` speaking [`cabrito_check::protocol`].
//!
//! A client sends a spec and a solution. The worker regenerates the task itself, runs the static
//! rubric at once, then the hidden tests through [`runner::grade`]. Every accepted request gets one
//! final reply; a job that panics gets an `internal` error and the server goes on. Each job logs one
//! JSON line on stderr.
//!
//! - [`config`]: [`WorkerConfig`], its defaults and `cabrito serve`'s flags;
//! - [`origin`]: which pages may connect;
//! - `connection`: one connection's loop and its limits;
//! - `schedule`: the fair queue; `job`: one job, from its slot to its reply.

pub mod config;
mod connection;
mod job;
pub mod origin;
pub mod schedule;

pub use config::{args, config_from, configure, JobHook, WorkerConfig};

use super::runner;
use axum::routing::get;
use axum::Router;
use serde_json::json;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// The worker's routes with the configuration of [`configure`] (the defaults when not called).
pub fn routes() -> Router {
    router(config::configured())
}

// ------------------------------------------------------------------------------------------------
// Shared state.

/// State shared by every connection of one router.
pub(crate) struct Shared {
    pub(crate) cfg: WorkerConfig,
    /// The grading slots and their fair queue ([`schedule`]). A job holds its ticket until its
    /// blocking work ends, even when its reply (cancelled, timeout) went out earlier.
    pub(crate) sched: Arc<schedule::Scheduler>,
    /// Jobs accepted and not yet answered, across connections.
    pub(crate) pending: AtomicUsize,
    /// Connections open (upgrades answered and not yet closed).
    pub(crate) connections: AtomicUsize,
    pub(crate) next_conn: AtomicU64,
    pub(crate) isolation: String,
}

/// The `/ws` route with its own state (tests build servers with their own configurations).
pub fn router(cfg: WorkerConfig) -> Router {
    let isolation = super::pool::describe(runner::isolation(), cfg.grade.pool);
    // Start the interpreter pool now, with numpy, so the first job does not wait for either.
    if cfg.grade.pool {
        std::thread::spawn(|| {
            if super::pool::warm(runner::isolation()) {
                super::pool::preload_numpy(runner::isolation());
            }
        });
    }
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
        sched: schedule::Scheduler::new(cfg.limits.workers.max(1)),
        cfg,
        pending: AtomicUsize::new(0),
        connections: AtomicUsize::new(0),
        next_conn: AtomicU64::new(1),
        isolation,
    });
    Router::new().route("/ws", get(connection::upgrade)).with_state(shared)
}

fn log(v: serde_json::Value) {
    let ts = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
    let mut line = json!({"ts": (ts * 1000.0).round() / 1000.0});
    if let (Some(dst), serde_json::Value::Object(src)) = (line.as_object_mut(), v) {
        dst.extend(src);
    }
    eprintln!("{line}");
}
