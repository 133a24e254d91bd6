//! The agent interface's `run` tool natively: a job's Python in a fresh sandboxed process, through
//! the runner's [`run_raw`] with the grader's isolation ([`super::sandbox`]: namespaces, a private
//! uid, rlimits, its own process group killed at the limit) and the limits of
//! [`cabrito_check::protocol::run`]. `cabrito agent`, `cabrito solve --mode agent` and the worker's
//! `run` message all come here.

use super::runner::{isolation, run_raw, CancelFlag, Limits};
use cabrito_agents::aci::Runner;
use cabrito_check::grade::RunStatus;
use cabrito_check::protocol::run::{
    Ran, RunEnd, RunJob, RunTarget, CPU_SECONDS, MEMORY_BYTES, OUTPUT_BYTES, WALL_SECONDS,
};
use cabrito_gen::domain::stubs::{block, library_source, STROPS_SOURCE};
use cabrito_gen::spec::Domain;
use serde_json::json;
use std::time::Duration;

/// The harness every run executes (`python3 -I -S -c RUN_HARNESS SITE_PACKAGES`).
pub const RUN_HARNESS: &str = include_str!("run_harness.py");

/// The stub block every workspace has installed: the first of its domain (a fixed library, the
/// same for every task of the domain; the hidden tests draw theirs apart).
const INSTALLED_BLOCK: usize = 0;

/// Processes a run may have at once (its own uid makes the limit hold).
const PROCESSES: u64 = 32;

/// Runs jobs in the sandbox, one fresh process each, within the protocol's time limit
/// ([`WALL_SECONDS`], what users get) or a lower one ([`SandboxRunner::within`]).
#[derive(Clone, Copy, Debug)]
pub struct SandboxRunner {
    seconds: u64,
}

impl Default for SandboxRunner {
    fn default() -> Self {
        SandboxRunner { seconds: WALL_SECONDS }
    }
}

impl SandboxRunner {
    /// A runner whose runs are killed after `seconds` (at most [`WALL_SECONDS`], at least 1) of
    /// wall or CPU time: tests whose hostile code runs to the limit use a short one.
    pub fn within(seconds: u64) -> Self {
        SandboxRunner { seconds: seconds.clamp(1, WALL_SECONDS) }
    }
}

impl Runner for SandboxRunner {
    fn run(&self, job: &RunJob) -> Result<Ran, String> {
        run_job_within(job, CancelFlag::default(), self.seconds)
    }
}

/// The limits of one run.
pub fn limits(cancel: CancelFlag) -> Limits {
    limits_within(cancel, WALL_SECONDS)
}

/// The limits of one run killed after `seconds` of wall or CPU time.
fn limits_within(cancel: CancelFlag, seconds: u64) -> Limits {
    Limits {
        wall_seconds: Some(seconds as f64),
        cpu_seconds: seconds.min(CPU_SECONDS),
        address_space_bytes: MEMORY_BYTES,
        processes: PROCESSES,
        file_size_bytes: 16 << 20,
        open_files: 64,
        // One byte more than is shown, so that a longer output is known to be cut.
        output_cap: OUTPUT_BYTES + 1,
        result_cap: 64 << 10,
        cancel,
    }
}

/// The harness's request for a job.
fn request(job: &RunJob) -> Vec<u8> {
    let library = job.library.map(|i| library_source(i.domain, i.library, block(i.domain, INSTALLED_BLOCK)));
    let strops = job.library.filter(|i| i.domain == Domain::String).map(|_| STROPS_SOURCE);
    let target = match &job.target {
        RunTarget::Code { code } => json!({"kind": "code", "code": code}),
        RunTarget::File { args } => json!({"kind": "file", "args": args}),
    };
    serde_json::to_vec(&json!({"solution": job.solution, "library": library, "strops": strops, "target": target}))
        .unwrap_or_default()
}

/// Text of an output, cut at [`OUTPUT_BYTES`].
fn shown(bytes: &[u8]) -> (String, bool) {
    let cut = bytes.len() > OUTPUT_BYTES;
    (String::from_utf8_lossy(&bytes[..bytes.len().min(OUTPUT_BYTES)]).into_owned(), cut)
}

/// Run a job; `Err` when Python could not be started at all, or the run was cancelled.
pub fn run_job(job: &RunJob, cancel: CancelFlag) -> Result<Ran, String> {
    run_job_within(job, cancel, WALL_SECONDS)
}

/// [`run_job`] with the run killed after `seconds` instead of [`WALL_SECONDS`].
fn run_job_within(job: &RunJob, cancel: CancelFlag, seconds: u64) -> Result<Ran, String> {
    job.validate()?;
    let limits = limits_within(cancel, seconds);
    let raw = run_raw(isolation(), &request(job), RUN_HARNESS, &limits, Duration::from_secs(seconds));
    let end = match raw.status {
        RunStatus::Completed => RunEnd::Finished,
        RunStatus::Exited { code } => RunEnd::Exited { code },
        RunStatus::TimedOut { .. } => RunEnd::TimedOut { seconds },
        // The CPU limit's signals: the time limit as the run meets it.
        RunStatus::Signalled { signal } if signal == libc::SIGXCPU => RunEnd::TimedOut { seconds },
        RunStatus::Signalled { signal } => RunEnd::Signalled { signal },
        RunStatus::Cancelled => return Err("the run was cancelled".into()),
        other => return Err(format!("the sandbox could not run Python: {}", other.describe())),
    };
    let value = String::from_utf8_lossy(&raw.result)
        .lines()
        .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()?.get("value")?.as_str().map(str::to_string));
    let (stdout, stdout_cut) = shown(&raw.stdout);
    let (stderr, stderr_cut) = shown(&raw.stderr);
    Ok(Ran { end, value, stdout, stderr, stdout_cut, stderr_cut })
}
