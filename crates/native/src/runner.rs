//! The Python runner (decision D7): runs programs and reads their outcomes.
//!
//! Every program run is its own process, never the grader's own, and the reference and the
//! candidate never share an interpreter: a child forked from the interpreter pool
//! ([`super::pool`]) where this machine's tier allows it, else a fresh `python3`. Each process gets,
//! from outside, its own process group (killed as a whole at a wall-clock limit, or at once when
//! its [`CancelFlag`] is raised) and the sandbox of [`super::sandbox`] (namespaces, a minimal root,
//! a private uid, rlimits). Without a mount namespace the run gets a temporary working directory.
//!
//! Output is captured through pipes and capped; results come back on a separate pipe (fd 3).
//! [`run_python`] runs any program this way and returns its stdout, stderr and exit status.

pub use super::sandbox::{isolation, Isolation};
use super::sandbox::{kill_uid, Sandbox};
use cabrito_check::{
    grade,
    grade::{outcome::Ending, GradeTask, HarnessOptions, InputScheme, Prepared, RunOutcome, RunStatus, Verdict},
};
use std::collections::{BTreeSet, HashMap};
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The harness every grading run executes (`python3 -I -S -c HARNESS SITE_PACKAGES`).
pub const HARNESS: &str = include_str!("harness.py");

/// What [`run_python`] executes: reads a program from stdin and runs it as `__main__`.
pub const SCRIPT: &str = include_str!("script.py");

/// Which program a run executes; the pool's children run the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harness {
    /// The grading harness (`harness.py`): one program's functions on a plan.
    Grade,
    /// The Merge Codebases harness (`merge_harness.py`).
    Merge,
    /// A whole program ([`run_python`]).
    Script,
    /// The isolation probe ([`super::sandbox::isolation`]): writes `ok` once inside its sandbox.
    Probe,
}

impl Harness {
    pub fn source(self) -> &'static str {
        match self {
            Harness::Grade => HARNESS,
            Harness::Merge => super::merge_runner::MERGE_HARNESS,
            Harness::Script => SCRIPT,
            Harness::Probe => super::sandbox::PROBE,
        }
    }

    /// The word the pool's zygote knows it by.
    pub fn word(self) -> &'static str {
        match self {
            Harness::Grade => "grade",
            Harness::Merge => "merge",
            Harness::Script => "script",
            Harness::Probe => "probe",
        }
    }
}

/// Resource limits of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Wall-clock seconds before the whole process group is killed. `None`: derived from the
    /// number of calls ([`Limits::wall_for`]).
    pub wall_seconds: Option<f64>,
    pub cpu_seconds: u64,
    pub address_space_bytes: u64,
    pub processes: u64,
    pub file_size_bytes: u64,
    pub open_files: u64,
    /// Bytes kept of the program's stdout and of its stderr (the rest is read and dropped).
    pub output_cap: usize,
    /// Bytes accepted on the result channel.
    pub result_cap: usize,
    /// Set from outside (a cancelled or timed-out worker job) to kill the run at once.
    pub cancel: CancelFlag,
}

/// A flag another thread raises to stop a run; the runner kills the process group within ~10 ms.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Option<std::sync::Arc<std::sync::atomic::AtomicBool>>);

impl CancelFlag {
    /// A flag that can be raised.
    pub fn new() -> CancelFlag {
        CancelFlag(Some(Default::default()))
    }
    pub fn cancel(&self) {
        if let Some(f) = &self.0 {
            f.store(true, std::sync::atomic::Ordering::Release);
        }
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(std::sync::atomic::Ordering::Acquire))
    }
}

impl PartialEq for CancelFlag {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall_seconds: None,
            cpu_seconds: 120,
            address_space_bytes: 2 << 30,
            processes: 32,
            file_size_bytes: 16 << 20,
            open_files: 64,
            output_cap: 64 << 10,
            result_cap: 128 << 20,
            cancel: CancelFlag::default(),
        }
    }
}

impl Limits {
    /// The wall-clock limit of a run with `calls` calls: 20 s of start-up allowance plus 20 ms a
    /// call, at most 600 s, or the explicit limit.
    pub fn wall_for(&self, calls: usize) -> Duration {
        let secs = self.wall_seconds.unwrap_or_else(|| (20.0 + 0.02 * calls as f64).min(600.0));
        Duration::from_secs_f64(secs.max(0.1))
    }
}

/// Everything that tunes grading.
#[derive(Clone, Debug)]
pub struct GradeOptions {
    /// Trials per function (D5: 50).
    pub trials: usize,
    /// How inputs are drawn (D5): one value per trial shared by the functions (linear in `n`, the
    /// default), or one per function as the reference does.
    pub inputs: InputScheme,
    pub harness: HarnessOptions,
    pub limits: Limits,
    /// Where expected outputs are cached on disk (besides the in-memory cache).
    pub cache_dir: Option<PathBuf>,
    /// Fork runs from the pre-started interpreter of [`super::pool`] where this machine allows it
    /// (the same sandbox as a fresh process; see there). Off: a fresh process per run.
    pub pool: bool,
}

impl Default for GradeOptions {
    fn default() -> Self {
        GradeOptions {
            trials: grade::DEFAULT_TRIALS,
            inputs: InputScheme::default(),
            harness: HarnessOptions::default(),
            limits: Limits::default(),
            cache_dir: None,
            pool: true,
        }
    }
}

// ------------------------------------------------------------------------------------------------
// One process.

/// What one process produced.
#[derive(Debug)]
pub struct RawRun {
    pub status: RunStatus,
    pub result: Vec<u8>,
    pub result_overflow: bool,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub seconds: f64,
    pub spawn_error: Option<String>,
}

pub(super) fn reader(mut r: impl Read + Send + 'static, cap: usize) -> mpsc::Receiver<(Vec<u8>, bool)> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut overflow = false;
        let mut buf = [0u8; 65536];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    if n > room {
                        overflow = true;
                    }
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        let _ = tx.send((kept, overflow));
    });
    rx
}

/// Run `script` (Python source) in a fresh sandboxed process with `stdin`; results from fd 3.
pub fn run_raw(iso: &Isolation, stdin: &[u8], script: &str, limits: &Limits, wall: Duration) -> RawRun {
    let start = Instant::now();
    let fail = |msg: String| RawRun {
        status: RunStatus::SpawnFailed { message: msg.clone() },
        result: vec![],
        result_overflow: false,
        stdout: vec![],
        stderr: vec![],
        seconds: 0.0,
        spawn_error: Some(msg),
    };
    // The result pipe, close-on-exec on both ends (the child dup2s the write end to fd 3).
    let mut fds = [0 as libc::c_int; 2];
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return fail(format!("pipe: {}", std::io::Error::last_os_error()));
    }
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let sandbox = Sandbox::prepare(iso, limits);
    let uid = sandbox.uid();
    let workdir = if sandbox.has_private_tmp() {
        None
    } else {
        match tempfile::Builder::new().prefix("cabrito-run-").tempdir() {
            Ok(d) => Some(d),
            Err(e) => return fail(format!("temporary directory: {e}")),
        }
    };
    let mut cmd = Command::new(&iso.python);
    cmd.args(["-I", "-S", "-c", script, &iso.site_packages])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", "/tmp")
        .env("LANG", "C.UTF-8")
        .env("OPENBLAS_NUM_THREADS", "1")
        .env("OMP_NUM_THREADS", "1")
        .env("MKL_NUM_THREADS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(d) = &workdir {
        cmd.current_dir(d.path());
    }
    let wfd = {
        use std::os::fd::AsRawFd;
        write_end.as_raw_fd()
    };
    // SAFETY: `Sandbox::enter` follows the rules of `native::sandbox` (no allocation, only
    // async-signal-safe calls, everything prepared before the fork).
    unsafe {
        cmd.pre_exec(move || sandbox.enter(wfd));
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return fail(format!("{e}")),
    };
    drop(write_end);
    let pid = child.id() as i32;
    let out_rx = reader(child.stdout.take().expect("piped"), limits.output_cap);
    let err_rx = reader(child.stderr.take().expect("piped"), limits.output_cap);
    let res_rx = reader(std::fs::File::from(read_end), limits.result_cap);
    if let Some(mut si) = child.stdin.take() {
        let data = stdin.to_vec();
        std::thread::spawn(move || {
            let _ = si.write_all(&data);
        });
    }
    let deadline = start + wall;
    let mut sleep = Duration::from_micros(200);
    // A pidfd wakes the wait the moment the process ends (a sleep would add up to its length).
    // SAFETY: pidfd_open has no memory preconditions; a negative result means no pidfd.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as libc::c_int;
    let pidfd = (pidfd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(pidfd) });
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(Ok(st)),
            Ok(None) => {}
            Err(_) => break None,
        }
        let cancelled = limits.cancel.is_cancelled();
        if cancelled || Instant::now() >= deadline {
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
            let _ = child.wait();
            break if cancelled { Some(Err(())) } else { None };
        }
        match &pidfd {
            Some(fd) => {
                use std::os::fd::AsRawFd;
                let mut p = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut p, 1, 10) };
            }
            None => {
                std::thread::sleep(sleep);
                sleep = (sleep * 2).min(Duration::from_millis(10));
            }
        }
    };
    // Whatever the run left behind dies now: its group, and with a private uid every process of it.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
    if let Some(uid) = uid {
        kill_uid(uid);
    }
    let seconds = start.elapsed().as_secs_f64();
    let grace = Duration::from_millis(500);
    let (result, result_overflow) = res_rx.recv_timeout(grace).unwrap_or_default();
    let (stdout, _) = out_rx.recv_timeout(grace).unwrap_or_default();
    let (stderr, _) = err_rx.recv_timeout(grace).unwrap_or_default();
    let status = match status {
        None => RunStatus::TimedOut { seconds: wall.as_secs_f64() },
        Some(Err(())) => RunStatus::Cancelled,
        Some(Ok(st)) => match (st.code(), st.signal()) {
            (Some(0), _) => RunStatus::Completed,
            (Some(c), _) => RunStatus::Exited { code: c },
            (None, Some(s)) => RunStatus::Signalled { signal: s },
            _ => RunStatus::Exited { code: -1 },
        },
    };
    RawRun { status, result, result_overflow, stdout, stderr, seconds, spawn_error: None }
}

/// Run one program (reference or candidate) on a plan.
pub fn run_program(
    prep: &Prepared,
    program: &str,
    defs: &[String],
    only: Option<&BTreeSet<String>>,
    opts: &GradeOptions,
) -> RunOutcome {
    let plan = &prep.plan;
    let body = grade::request_body(plan, program, defs, only, &opts.harness);
    let calls: usize = plan.trials.iter().map(|t| t.calls.len()).sum();
    let shape = grade::shape(plan);
    outcome_from_raw(execute(Harness::Grade, plan.domain == cabrito_gen::Domain::Array, &body, opts, calls), &shape)
}

/// Run a harness on a request (`numpy`: the run imports it, so a pool child should find it
/// loaded): through the pool when it can take the run, else in a fresh process.
pub fn execute(harness: Harness, numpy: bool, body: &[u8], opts: &GradeOptions, calls: usize) -> RawRun {
    let wall = opts.limits.wall_for(calls);
    execute_for(harness, numpy, body, &opts.limits, wall, opts.pool)
}

fn execute_for(harness: Harness, numpy: bool, body: &[u8], limits: &Limits, wall: Duration, pool: bool) -> RawRun {
    let iso = isolation();
    if pool {
        if let Some(raw) = super::pool::run(iso, harness, numpy, body, limits, wall) {
            return raw;
        }
    }
    run_raw(iso, body, harness.source(), limits, wall)
}

/// What [`run_python`] gives back.
#[derive(Debug)]
pub struct ProgramRun {
    /// How the process ended (`Completed`: exit 0; `Exited`, `Signalled`, `TimedOut`, ...).
    pub status: RunStatus,
    /// The exit code, when the process exited by itself.
    pub exit_code: Option<i32>,
    /// The first [`Limits::output_cap`] bytes of each.
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub seconds: f64,
}

/// Run a whole Python program as `__main__` under `limits`, with `stdin` as its standard input,
/// in the same sandbox as every grading run (its own process from the pool or a fresh one, no
/// network, the minimal root, a private uid, rlimits, killed at the wall-clock limit or when
/// `limits.cancel` is raised). numpy is importable. The wall clock is `limits.wall_seconds`
/// (default 20 s).
pub fn run_python(program: &str, stdin: &[u8], limits: &Limits) -> ProgramRun {
    let mut body = format!("{}\n", program.len()).into_bytes();
    body.extend_from_slice(program.as_bytes());
    body.extend_from_slice(stdin);
    let wall = limits.wall_for(0);
    let numpy = program.contains("numpy");
    let raw = execute_for(Harness::Script, numpy, &body, limits, wall, true);
    let exit_code = match raw.status {
        RunStatus::Completed => Some(0),
        RunStatus::Exited { code } => Some(code),
        _ => None,
    };
    ProgramRun { status: raw.status, exit_code, stdout: raw.stdout, stderr: raw.stderr, seconds: raw.seconds }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Read a run's result channel into per-trial outcomes (`shape[t]`: calls of trial `t`).
pub(crate) fn outcome_from_raw(raw: RawRun, shape: &[usize]) -> RunOutcome {
    if let RunStatus::SpawnFailed { .. } = raw.status {
        return RunOutcome::failed(raw.status, shape.len(), 0);
    }
    let text = String::from_utf8_lossy(&raw.result);
    // A run killed mid-line leaves a partial last line: drop it.
    let complete = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    let (trials, status) = match grade::outcome::read_results(complete, shape) {
        Ok((trials, ending)) => {
            let status = if raw.result_overflow {
                RunStatus::Protocol { message: "the results exceeded the output cap".into() }
            } else {
                match (ending, &raw.status) {
                    (Ending::Done, RunStatus::Completed) => RunStatus::Completed,
                    (Ending::StoppedAfterTimeout, RunStatus::Completed) => RunStatus::StoppedAfterTimeout,
                    (_, RunStatus::Completed) => RunStatus::Exited { code: 0 },
                    (_, s) => s.clone(),
                }
            };
            (trials, status)
        }
        Err(m) => {
            let mut failed = RunOutcome::failed(RunStatus::Protocol { message: m.clone() }, shape.len(), 0);
            failed.trials =
                shape.iter().map(|&n| grade::TrialOutcome { setup_error: None, calls: vec![None; n] }).collect();
            return RunOutcome { status: RunStatus::Protocol { message: m }, ..failed };
        }
    };
    let mut stderr = lossy(&raw.stderr);
    if status != RunStatus::Completed && stderr.trim().is_empty() {
        stderr = String::new();
    }
    RunOutcome { status, trials, stdout: lossy(&raw.stdout), stderr, seconds: raw.seconds }
}

// ------------------------------------------------------------------------------------------------
// Expected outputs, cached per task and plan.

fn cache() -> &'static Mutex<HashMap<String, Arc<RunOutcome>>> {
    static C: OnceLock<Mutex<HashMap<String, Arc<RunOutcome>>>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(HashMap::new()))
}

fn cache_key(task: &GradeTask, opts: &GradeOptions) -> String {
    cabrito_gen::rng::hex_id(
        &format!(
            "{}|{}|{}|{}|{}|{}|{}|{}",
            task.input_key(),
            task.domain.as_str(),
            opts.trials,
            opts.inputs.as_str(),
            opts.harness.memoize,
            opts.harness.restrict_builtins,
            opts.harness.call_timeout,
            cabrito_gen::rng::hex_id(HARNESS, "harness", 8)
        ),
        "grade/expected",
        16,
    )
}

/// The reference's outputs on the task's plan: from memory, from the disk cache, or from a run.
pub fn expected_outputs(task: &GradeTask, prep: &Prepared, opts: &GradeOptions) -> (Arc<RunOutcome>, bool) {
    let key = cache_key(task, opts);
    if let Some(hit) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return (hit, true);
    }
    let disk = opts.cache_dir.as_ref().map(|d| d.join(format!("{key}.jsonl")));
    if let Some(path) = &disk {
        if let Ok(text) = std::fs::read_to_string(path) {
            if let Ok((trials, Ending::Done)) = grade::outcome::read_results(&text, &grade::shape(&prep.plan)) {
                let out = Arc::new(RunOutcome {
                    status: RunStatus::Completed,
                    trials,
                    stdout: String::new(),
                    stderr: String::new(),
                    seconds: 0.0,
                });
                remember(&key, &out);
                return (out, true);
            }
        }
    }
    let plan = &prep.plan;
    let body = grade::request_body(plan, &prep.reference_program, &prep.reference_defs, None, &opts.harness);
    let calls: usize = plan.trials.iter().map(|t| t.calls.len()).sum();
    let raw = execute(Harness::Grade, plan.domain == cabrito_gen::Domain::Array, &body, opts, calls);
    let text = raw.result.clone();
    let out = Arc::new(outcome_from_raw(raw, &grade::shape(plan)));
    if out.status == RunStatus::Completed {
        remember(&key, &out);
        if let Some(path) = &disk {
            let _ = crate::outdir::write_whole(path, &text);
        }
    }
    (out, false)
}

/// Forget the expected outputs held in memory (benchmarks measure cold grading with it).
pub fn forget_expected() {
    if let Ok(mut c) = cache().lock() {
        c.clear();
    }
}

fn remember(key: &str, out: &Arc<RunOutcome>) {
    if let Ok(mut c) = cache().lock() {
        if c.len() >= 512 {
            c.clear();
        }
        c.insert(key.to_string(), out.clone());
    }
}

// ------------------------------------------------------------------------------------------------
// The grader's entry point.

/// The plan of a task, kept for the next candidate of the same task.
fn prepared(task: &GradeTask, trials: usize, scheme: InputScheme) -> Result<Arc<Prepared>, grade::PlanError> {
    type Plans = Mutex<HashMap<(String, usize, InputScheme), Arc<Prepared>>>;
    static PLANS: OnceLock<Plans> = OnceLock::new();
    let plans = PLANS.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (format!("{}|{}", task.input_key(), task.domain.as_str()), trials, scheme);
    if let Some(p) = plans.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(p);
    }
    let p = Arc::new(grade::prepare_with(task, trials, scheme)?);
    if let Ok(mut m) = plans.lock() {
        if m.len() >= 64 {
            m.clear();
        }
        m.insert(key, p.clone());
    }
    Ok(p)
}

/// Grade a candidate solution of a task. `progress(done, total)` is called as the runs finish
/// (total 2: the reference run, then the candidate run). Never panics on hostile input.
pub fn grade(task: &GradeTask, candidate_code: &str, opts: &GradeOptions, progress: &dyn Fn(usize, usize)) -> Verdict {
    match task.kind.def().behaviour() {
        grade::Behaviour::Functions => {}
        grade::Behaviour::Calculators => return super::merge_runner::grade(task, candidate_code, opts, progress),
    }
    let start = Instant::now();
    let prep = match prepared(task, opts.trials, opts.inputs) {
        Ok(p) => p,
        Err(e) => return grade::error_verdict(task, opts.trials, format!("the task cannot be graded: {e}")),
    };
    let prep = &*prep;
    // A candidate that does not parse, or defines none of the reference's functions, needs no run.
    let cp = match grade::candidate_program(prep, candidate_code) {
        Ok(cp) if !cp.tested.is_empty() => cp,
        other => {
            let nothing = RunOutcome::failed(RunStatus::Completed, 0, 0);
            let actual = other.ok().map(|_| RunOutcome::failed(RunStatus::Completed, 0, 0));
            progress(2, 2);
            let mut v = grade::verdict(task, prep, candidate_code, &nothing, actual.as_ref());
            v.seconds = start.elapsed().as_secs_f64();
            return v;
        }
    };
    // The reference (unless cached) and the candidate run at the same time, in separate processes.
    let (expected, actual) = std::thread::scope(|scope| {
        let cand = scope.spawn(|| run_program(prep, &cp.program, &cp.defs, Some(&cp.tested), opts));
        let (expected, _cached) = expected_outputs(task, prep, opts);
        progress(1, 2);
        let actual = cand.join().unwrap_or_else(|_| {
            RunOutcome::failed(RunStatus::Protocol { message: "the candidate runner thread failed".into() }, 0, 0)
        });
        (expected, actual)
    });
    if expected.status != RunStatus::Completed {
        let mut v = grade::error_verdict(
            task,
            opts.trials,
            format!(
                "the reference solution did not run to the end: {}; {}",
                expected.status.describe(),
                expected.stderr.trim()
            ),
        );
        v.seconds = start.elapsed().as_secs_f64();
        progress(2, 2);
        return v;
    }
    let actual = Some(actual);
    progress(2, 2);
    let mut v = grade::verdict(task, prep, candidate_code, &expected, actual.as_ref());
    v.seconds = start.elapsed().as_secs_f64();
    v
}
