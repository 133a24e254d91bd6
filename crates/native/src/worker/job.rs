//! One job: wait for a grading slot, grade (or run an agent's code) on a thread of its own, stream
//! progress, and send exactly one final reply.
//!
//! The work runs on a dedicated thread with a known stack
//! ([`WorkerConfig::job_stack_bytes`](super::WorkerConfig)) under `catch_unwind`: a panic becomes an
//! `internal` reply and the server goes on. A cancel, the timeout or a client that leaves answers at
//! once and raises the job's [`CancelFlag`], which kills its Python runs. The job keeps its slot until
//! its thread ends; whatever the thread still computes is discarded.

use super::connection::Out;
use super::schedule::Ticket;
use super::{log, Shared};
use crate::{
    runner,
    runner::{CancelFlag, GradeOptions},
};
use cabrito_check::grade::GradeTask;
use cabrito_check::protocol::{report, report::read_and_check};
use cabrito_check::protocol::{
    run::Ran, ErrorCode, GradeRequest, GradeResult, RunRequest, RunResult, ServerMessage, PROTOCOL_VERSION,
};
use cabrito_check::TaskRef;
use serde_json::json;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};

/// How a job ended.
pub(super) enum JobEnd {
    Result(Box<GradeResult>),
    Ran(Ran),
    Error(ErrorCode, String),
}

/// What a job does.
pub(super) enum Work {
    Grade {
        req: GradeRequest,
        trials: usize,
    },
    /// The agent interface's `run`: the job's Python in the sandbox ([`crate::run_tool`]).
    Run(RunRequest),
}

pub(super) async fn job(
    sh: Arc<Shared>,
    conn: u64,
    work: Work,
    out: mpsc::Sender<Out>,
    cancel: watch::Receiver<bool>,
    ticket: oneshot::Receiver<Ticket>,
) {
    let (id, spec_query, trials) = match &work {
        Work::Grade { req, trials } => (req.id.clone(), req.spec.to_query(), *trials),
        Work::Run(r) => (r.id.clone(), "run".to_string(), 0),
    };
    let queued_at = Instant::now();
    let limits = sh.cfg.limits.clone();
    // Wait for a slot (a cancel removes a queued job: its receiver is dropped).
    let permit = tokio::select! {
        biased;
        _ = cancelled(cancel.clone()) => None,
        t = ticket => t.ok(),
    };
    let started = Instant::now();
    let end = match permit {
        None => JobEnd::Error(ErrorCode::Cancelled, "cancelled before it started".into()),
        Some(permit) => {
            let (ptx, mut prx) = mpsc::unbounded_channel::<ServerMessage>();
            let mut opts = sh.cfg.grade.clone();
            opts.trials = trials;
            // The runs end (killed from outside) one second after the job's reply is due, or at
            // once when the job is cancelled, times out or loses its client.
            opts.limits.wall_seconds = Some(limits.job_timeout_seconds + 1.0);
            let stop = CancelFlag::new();
            opts.limits.cancel = stop.clone();
            let hook = sh.cfg.before_job.clone();
            let run_stop = stop.clone();
            let work = move || {
                let _permit = permit;
                match work {
                    Work::Grade { req, trials } => {
                        if let Some(h) = &hook {
                            (h.0)(&req);
                        }
                        run_job(&req, trials, &opts, &|m| {
                            let _ = ptx.send(m);
                        })
                    }
                    Work::Run(r) => match crate::run_tool::run_job(&r.job, run_stop) {
                        Ok(ran) => JobEnd::Ran(ran),
                        Err(e) => JobEnd::Error(ErrorCode::Internal, e),
                    },
                }
            };
            match spawn_graded(&id, sh.cfg.job_stack_bytes, work) {
                Err(e) => JobEnd::Error(ErrorCode::Internal, e),
                Ok(mut done) => {
                    let timeout = tokio::time::sleep(Duration::from_secs_f64(limits.job_timeout_seconds));
                    tokio::pin!(timeout);
                    loop {
                        tokio::select! {
                            biased;
                            r = &mut done => {
                                while let Ok(p) = prx.try_recv() {
                                    let _ = out.send(Out::Msg(p)).await;
                                }
                                break r.unwrap_or_else(|_| {
                                    JobEnd::Error(ErrorCode::Internal, "the grading thread ended without a verdict".into())
                                });
                            }
                            Some(p) = prx.recv() => {
                                let _ = out.send(Out::Msg(p)).await;
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
        JobEnd::Ran(ran) => {
            if sh.cfg.log {
                log(json!({
                    "event": "run", "conn": conn, "id": id, "outcome": ran.end,
                    "queued_ms": queued_ms.round(), "run_ms": run_ms.round(),
                }));
            }
            ServerMessage::Ran(RunResult { v: PROTOCOL_VERSION, id: id.clone(), ran })
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

/// Run `work` on a new thread with a `stack_bytes` stack, catching a panic as an `internal` error
/// naming the job. The receiver resolves when the work ends.
fn spawn_graded(
    id: &str,
    stack_bytes: usize,
    work: impl FnOnce() -> JobEnd + Send + 'static,
) -> Result<oneshot::Receiver<JobEnd>, String> {
    let (tx, rx) = oneshot::channel();
    let job_id = id.to_string();
    std::thread::Builder::new()
        .name("cabrito-job".into())
        .stack_size(stack_bytes)
        .spawn(move || {
            let end = catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".into());
                JobEnd::Error(
                    ErrorCode::Internal,
                    format!(
                        "the grader failed on job '{}' ({}); this is a bug in Cabrito, not in the solution",
                        report::capped(&job_id, 128),
                        report::capped(&what, 300)
                    ),
                )
            });
            let _ = tx.send(end);
        })
        .map_err(|e| format!("the worker cannot start a grading thread: {e}"))?;
    Ok(rx)
}

/// Resolves when the job is cancelled (or its connection's table is gone).
pub(super) async fn cancelled(mut c: watch::Receiver<bool>) {
    let _ = c.wait_for(|v| *v).await;
}

/// The blocking part of a job: regenerate, read, check, run.
fn run_job(req: &GradeRequest, trials: usize, opts: &GradeOptions, send: &dyn Fn(ServerMessage)) -> JobEnd {
    let start = Instant::now();
    let id = req.id.as_str();
    let task = match cabrito_gen::generate(&req.spec) {
        Ok(t) => t,
        Err(e) => return JobEnd::Error(ErrorCode::BadRequest, format!("spec: {e}")),
    };
    let spec = task.spec.to_query();
    let reading = match read_and_check(&TaskRef::of(&task), &req.solution) {
        Ok(r) => r,
        Err(e) => {
            let mut result = report::unreadable_result(id, &spec, trials, &e);
            result.seconds = start.elapsed().as_secs_f64();
            return JobEnd::Result(Box::new(result));
        }
    };
    send(report::static_progress(id, report::static_checks(&reading.rubric)));
    let verdict = runner::grade(&GradeTask::from_task(&task), &reading.candidate.code, opts, &|done, of| {
        send(report::run_progress(id, done, of))
    });
    let mut result = report::graded_result(id, &spec, trials, &reading, &verdict);
    result.seconds = start.elapsed().as_secs_f64();
    JobEnd::Result(Box::new(result))
}
