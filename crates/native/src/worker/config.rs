//! The worker's configuration, its defaults (one constant each, used by the code and by the flags'
//! help), and the flags of `cabrito serve` that set it.

use super::origin::normalise_origin;
use crate::cli::Failure;
use crate::runner::GradeOptions;
use cabrito_check::{protocol, protocol::GradeRequest};
use clap::{value_parser, Arg, ArgAction, ArgMatches};
use std::sync::{Arc, OnceLock};

/// Largest WebSocket message accepted, in bytes (`--max-message-bytes`): room for a grade request
/// carrying the reference solution of the largest task the app offers (`n = 2,000`: up to about
/// 400 KB of Python), twice over.
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;
/// The largest value `--max-message-bytes` takes.
pub const MAX_MESSAGE_BYTES_LIMIT: usize = 64 << 20;
/// Jobs one connection may have queued or running (`--max-jobs-per-connection`).
pub const MAX_JOBS_PER_CONNECTION: usize = 4;
/// Jobs queued or running across all connections (`--max-queued-jobs`).
pub const MAX_QUEUED_JOBS: usize = 64;
/// Trials per function when a request does not say (`--trials`; D5).
pub const DEFAULT_TRIALS: usize = cabrito_check::grade::DEFAULT_TRIALS;
/// Most trials per function a request may ask for (`--max-trials`).
pub const MAX_TRIALS: usize = 100;
/// Seconds a job may run before it is answered with `timeout` (`--job-timeout`).
pub const JOB_TIMEOUT_SECONDS: f64 = 60.0;
/// Seconds without a message before a connection is closed (`--idle-timeout`).
pub const IDLE_TIMEOUT_SECONDS: f64 = 300.0;
/// Seconds within which a connection's first message must arrive (`--handshake-timeout`).
pub const HANDSHAKE_TIMEOUT_SECONDS: f64 = 10.0;
/// WebSocket connections open at once (`--max-connections`).
pub const MAX_CONNECTIONS: usize = 256;
/// The longest any timeout flag may be.
pub const MAX_TIMEOUT_SECONDS: f64 = 86_400.0;
/// Stack of each thread that grades a job: generous and known, whatever the platform's default
/// for tokio's blocking pool (parsing and checking a hostile response recurses).
pub const JOB_STACK_BYTES: usize = 64 << 20;

/// Jobs graded at the same time by default: the number of cores.
pub fn default_workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)
}

/// A function every job calls first on its grading thread, for tests that need a job to fail in
/// ways no request can cause (a panic, a deep recursion). Only code that builds a
/// [`WorkerConfig`] can set it: no flag and no message does.
#[derive(Clone)]
pub struct JobHook(pub Arc<dyn Fn(&GradeRequest) + Send + Sync>);

impl std::fmt::Debug for JobHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JobHook(..)")
    }
}

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
    /// Stack of each job's grading thread, in bytes.
    pub job_stack_bytes: usize,
    /// Called first in every job's grading thread (tests only; see [`JobHook`]).
    pub before_job: Option<JobHook>,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        WorkerConfig {
            limits: protocol::Limits {
                max_message_bytes: MAX_MESSAGE_BYTES,
                max_jobs_per_connection: MAX_JOBS_PER_CONNECTION,
                max_queued_jobs: MAX_QUEUED_JOBS,
                workers: default_workers(),
                default_trials: DEFAULT_TRIALS,
                max_trials: MAX_TRIALS,
                job_timeout_seconds: JOB_TIMEOUT_SECONDS,
                idle_timeout_seconds: IDLE_TIMEOUT_SECONDS,
                handshake_timeout_seconds: HANDSHAKE_TIMEOUT_SECONDS,
                max_connections: MAX_CONNECTIONS,
            },
            allowed_origins: vec![],
            allow_localhost: true,
            grade: GradeOptions::default(),
            log: true,
            job_stack_bytes: JOB_STACK_BYTES,
            before_job: None,
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Flags of `cabrito serve`.

fn seconds_arg(id: &'static str, default: f64, help: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .value_name("SECONDS")
        .default_value(default.to_string())
        .value_parser(value_parser!(f64))
        .help(help)
}

fn count_arg(id: &'static str, default: usize, help: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .value_name("N")
        .default_value(default.to_string())
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
            .default_value(MAX_MESSAGE_BYTES.to_string())
            .value_parser(value_parser!(u64).range(1024..=MAX_MESSAGE_BYTES_LIMIT as u64))
            .help("largest WebSocket message accepted (larger: too_large); at most 64 MiB"),
        count_arg("max-connections", MAX_CONNECTIONS, "WebSocket connections open at once (beyond: HTTP 503)"),
        count_arg(
            "max-jobs-per-connection",
            MAX_JOBS_PER_CONNECTION,
            "jobs one connection may have queued or running (beyond: busy)",
        ),
        count_arg("max-queued-jobs", MAX_QUEUED_JOBS, "jobs queued or running across all connections (beyond: busy)"),
        Arg::new("workers")
            .long("workers")
            .value_name("N")
            .value_parser(value_parser!(u64).range(1..=1024))
            .help("jobs graded at the same time (default: the number of cores)"),
        count_arg("trials", DEFAULT_TRIALS, "trials per function when a request does not say"),
        count_arg("max-trials", MAX_TRIALS, "most trials per function a request may ask for"),
        seconds_arg("job-timeout", JOB_TIMEOUT_SECONDS, "seconds a job may run before it is answered with timeout"),
        seconds_arg(
            "idle-timeout",
            IDLE_TIMEOUT_SECONDS,
            "seconds without a message (and no job in flight) before a connection is closed",
        ),
        seconds_arg(
            "handshake-timeout",
            HANDSHAKE_TIMEOUT_SECONDS,
            "seconds after connecting within which the first message must arrive",
        ),
    ]
}

/// The configuration the flags describe.
pub fn config_from(m: &ArgMatches) -> Result<WorkerConfig, Failure> {
    let mut c = WorkerConfig::default();
    let count = |id: &str| m.try_get_one::<u64>(id).ok().flatten().map(|&x| usize::try_from(x).unwrap_or(usize::MAX));
    let secs = |id: &str| -> Result<Option<f64>, Failure> {
        match m.try_get_one::<f64>(id).ok().flatten() {
            None => Ok(None),
            Some(&s) if s.is_finite() && s > 0.0 && s <= MAX_TIMEOUT_SECONDS => Ok(Some(s)),
            Some(s) => Err(Failure::Usage(format!(
                "--{id} must be a number of seconds above 0 and at most {MAX_TIMEOUT_SECONDS}, got {s}"
            ))),
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

static CONFIGURED: OnceLock<WorkerConfig> = OnceLock::new();

/// Read the flags of `cabrito serve` into the configuration [`super::routes`] uses.
pub fn configure(m: &ArgMatches) -> Result<(), Failure> {
    let c = config_from(m)?;
    let _ = CONFIGURED.set(c);
    Ok(())
}

/// The configuration of [`configure`] (the defaults when it was not called).
pub fn configured() -> WorkerConfig {
    CONFIGURED.get().cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(flags: &[&str]) -> Result<WorkerConfig, Failure> {
        let cmd = clap::Command::new("serve").args(args());
        let m = cmd.try_get_matches_from(std::iter::once("serve").chain(flags.iter().copied())).unwrap();
        config_from(&m)
    }

    #[test]
    fn no_flags_give_the_defaults_the_code_uses() {
        let c = parse(&[]).unwrap();
        let d = WorkerConfig::default();
        assert_eq!(c.limits, d.limits);
        assert_eq!(c.limits.max_message_bytes, MAX_MESSAGE_BYTES);
        assert_eq!(c.limits.default_trials, cabrito_check::grade::DEFAULT_TRIALS);
        assert_eq!(c.limits.job_timeout_seconds, JOB_TIMEOUT_SECONDS);
        assert_eq!((c.allow_localhost, c.allowed_origins.len()), (true, 0));
    }

    #[test]
    fn the_largest_tasks_fit_in_a_message() {
        use cabrito_gen::spec::{Axis, Domain, Kind, Support, TaskSpec, KNOBS};
        let n_knob = KNOBS.iter().find(|k| k.key == "n").unwrap();
        // Every kind on each domain and axis it takes (the default when the knob does not apply to it).
        fn each<T: Copy>(s: Support<T>, default: T) -> Vec<T> {
            match s {
                Support::Only(list) => list.to_vec(),
                Support::NotApplicable => vec![default],
            }
        }
        let defaults = TaskSpec::default();
        for &kind in Kind::ALL {
            let def = kind.def();
            for domain in each::<Domain>(def.domains(), defaults.domain) {
                for axis in each::<Axis>(def.axes(), defaults.axis) {
                    // The largest n the axis takes (10,000 hops on the runtime axis).
                    let mut spec = TaskSpec::new(kind, domain, axis, 1, 1);
                    let max_n = n_knob.range(&spec).map_or(2000, |(_, max)| u32::try_from(max).unwrap());
                    spec.n = max_n;
                    // Variable renaming's chain bounds n: at its largest too.
                    if kind == Kind::VariableRenaming {
                        spec.chain = max_n;
                    }
                    let t = cabrito_gen::generate(&spec).unwrap();
                    let msg = protocol::ClientMessage::grade("j".to_string(), &spec, t.solution_code, None).to_json();
                    assert!(
                        msg.len() * 2 <= MAX_MESSAGE_BYTES,
                        "{kind} {domain} {axis} n={max_n}: {} bytes",
                        msg.len()
                    );
                }
            }
        }
    }

    #[test]
    fn flags_set_the_configuration_and_bad_values_are_refused() {
        let c = parse(&["--trials", "5", "--max-trials", "9", "--job-timeout", "2.5", "--workers", "3"]).unwrap();
        assert_eq!((c.limits.default_trials, c.limits.max_trials, c.limits.workers), (5, 9, 3));
        assert_eq!(c.limits.job_timeout_seconds, 2.5);
        let c = parse(&["--allow-origin", "https://Cabrito.example/", "--no-localhost-origins"]).unwrap();
        assert_eq!((c.allowed_origins, c.allow_localhost), (vec!["https://cabrito.example".to_string()], false));
        for bad in [
            &["--trials", "50", "--max-trials", "10"][..],
            &["--job-timeout", "0"],
            &["--idle-timeout=-1"],
            &["--handshake-timeout", "NaN"],
            &["--handshake-timeout", "1e9"],
            &["--allow-origin", "example.org"],
        ] {
            match parse(bad) {
                Err(Failure::Usage(m)) => assert!(m.starts_with("--"), "{m}"),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }
}
