//! The sandboxed Python runner (decision D7).
//!
//! Every program run is a fresh `python3` process, never the grader's own, and the reference and
//! the candidate never share an interpreter. Each process gets, from outside:
//! - its own process group, killed as a whole at a wall-clock limit;
//! - `setrlimit` on address space, CPU seconds, processes, file size, open files and core size;
//! - when the grader runs as root with namespaces (probed once, see [`isolation`]): a fresh
//!   network namespace (no interfaces but a downed loopback: no network), a private mount
//!   namespace with its own tmpfs `/tmp` (the working directory), `/var/tmp` and `/dev/shm`, the
//!   root filesystem remounted read-only, directories other users cannot enter (such as `/root`)
//!   hidden behind an empty tmpfs with only the Python installation bound back read-only, and a
//!   fresh unprivileged uid per run (so `RLIMIT_NPROC` holds, and every process the run leaves
//!   behind, even outside its process group, is killed with `kill(-1)` as that uid afterwards);
//! - otherwise (not root, no namespaces) a temporary working directory, the process group and
//!   the rlimits, and [`isolation`] says so.
//!
//! Output is captured through pipes and capped; results come back on a separate pipe (fd 3).

use crate::grade::{self, outcome::Ending, GradeTask, HarnessOptions, Prepared, RunOutcome, RunStatus, Verdict};
use std::collections::{BTreeSet, HashMap};
use std::ffi::CString;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The harness every run executes (`python3 -I -S -c HARNESS SITE_PACKAGES`).
pub const HARNESS: &str = include_str!("harness.py");

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
    pub harness: HarnessOptions,
    pub limits: Limits,
    /// Where expected outputs are cached on disk (besides the in-memory cache).
    pub cache_dir: Option<PathBuf>,
}

impl Default for GradeOptions {
    fn default() -> Self {
        GradeOptions {
            trials: grade::DEFAULT_TRIALS,
            harness: HarnessOptions::default(),
            limits: Limits::default(),
            cache_dir: None,
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Isolation: what this machine allows, probed once.

/// The isolation every run gets on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isolation {
    /// The Python executable (resolved, not a shim).
    pub python: PathBuf,
    /// The folder numpy is imported from (the harness runs with `-S` and adds it itself).
    pub site_packages: String,
    pub new_uid_per_run: bool,
    pub network_namespace: bool,
    pub mount_namespace: bool,
    /// Why a stronger tier was not used, if it was not.
    pub note: String,
}

impl Isolation {
    /// One line for logs.
    pub fn describe(&self) -> String {
        let mut parts = vec![
            "fresh python3 process per run".to_string(),
            "own process group killed at the wall-clock limit".into(),
        ];
        parts.push("rlimits on address space, CPU, processes, file size, open files".into());
        if self.network_namespace {
            parts.push("no network (empty network namespace)".into());
        } else {
            parts.push("NETWORK NOT ISOLATED".into());
        }
        if self.mount_namespace {
            parts.push("private tmpfs /tmp as working dir, read-only root, unreadable dirs hidden".into());
        } else {
            parts.push("temporary working directory".into());
        }
        if self.new_uid_per_run {
            parts.push("fresh unprivileged uid per run (process limit enforced, leftovers killed)".into());
        } else {
            parts.push("same uid as the grader".into());
        }
        let mut s = parts.join("; ");
        if !self.note.is_empty() {
            s.push_str(&format!(" [{}]", self.note));
        }
        s
    }
}

/// Mounts prepared in the parent (no allocation after fork).
struct MountPlan {
    tmp: CString,
    extra_tmpfs: Vec<CString>,
    tmpfs_type: CString,
    tmpfs_opts: CString,
    root: CString,
    /// (staging dir on the new /tmp, the python prefix, the hidden ancestor, dirs to create
    /// inside it in order, the prefix again as the final target).
    python_bind: Option<(CString, CString, CString, Vec<CString>)>,
}

struct Sandbox {
    uid: Option<u32>,
    netns: bool,
    mounts: Option<MountPlan>,
}

fn cstr(p: &std::path::Path) -> Option<CString> {
    CString::new(p.as_os_str().as_encoded_bytes()).ok()
}

/// Whether `path` can be reached and read by a user that is neither owner nor in the group.
fn world_reachable(path: &std::path::Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let mut cur = PathBuf::new();
    for c in path.components() {
        cur.push(c);
        let meta = std::fs::metadata(&cur).ok()?;
        if meta.is_dir() && meta.permissions().mode() & 0o001 == 0 {
            return Some(cur);
        }
    }
    None
}

fn resolve_python() -> Result<(PathBuf, PathBuf, String), String> {
    let out = Command::new("python3")
        .args([
            "-I",
            "-c",
            "import os, sys, numpy; print(os.path.realpath(sys.executable)); print(os.path.realpath(sys.base_prefix)); print(os.path.dirname(os.path.dirname(numpy.__file__)))",
        ])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("python3 not found: {e}"))?;
    if !out.status.success() {
        return Err(format!("python3 with numpy does not run: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let exe = PathBuf::from(lines.next().unwrap_or("python3"));
    let prefix = PathBuf::from(lines.next().unwrap_or("/"));
    let site = lines.next().unwrap_or("").to_string();
    Ok((exe, prefix, site))
}

fn mount_plan(prefix: &std::path::Path) -> Option<MountPlan> {
    let python_bind = match world_reachable(prefix) {
        None => None,
        Some(hidden) => {
            let rel = prefix.strip_prefix(&hidden).ok()?;
            let mut dirs = Vec::new();
            let mut cur = hidden.clone();
            for c in rel.components() {
                cur.push(c);
                dirs.push(cstr(&cur)?);
            }
            Some((cstr(std::path::Path::new("/tmp/.cabrito-python"))?, cstr(prefix)?, cstr(&hidden)?, dirs))
        }
    };
    Some(MountPlan {
        tmp: CString::new("/tmp").ok()?,
        extra_tmpfs: ["/var/tmp", "/dev/shm"]
            .iter()
            .filter(|p| std::path::Path::new(p).is_dir())
            .filter_map(|p| CString::new(*p).ok())
            .collect(),
        tmpfs_type: CString::new("tmpfs").ok()?,
        tmpfs_opts: CString::new("size=64m,mode=1777").ok()?,
        root: CString::new("/").ok()?,
        python_bind,
    })
}

/// The isolation of this machine, probed once by starting Python under each tier in turn.
pub fn isolation() -> &'static Isolation {
    static ISO: OnceLock<Isolation> = OnceLock::new();
    ISO.get_or_init(|| {
        let (python, prefix, site_packages) = match resolve_python() {
            Ok(p) => p,
            Err(e) => {
                return Isolation {
                    python: "python3".into(),
                    site_packages: String::new(),
                    new_uid_per_run: false,
                    network_namespace: false,
                    mount_namespace: false,
                    note: e,
                }
            }
        };
        let root = unsafe { libc::geteuid() } == 0;
        let mut notes = Vec::new();
        if !root {
            notes.push("not root: no namespaces or uid switch".to_string());
        }
        let tiers: &[(bool, bool, bool)] = if root {
            &[(true, true, true), (true, true, false), (false, true, false), (false, false, false)]
        } else {
            &[(false, false, false)]
        };
        for &(mountns, netns, uid) in tiers {
            let probe = Isolation {
                python: python.clone(),
                site_packages: site_packages.clone(),
                new_uid_per_run: uid,
                network_namespace: netns,
                mount_namespace: mountns,
                note: String::new(),
            };
            if mountns && mount_plan(&prefix).is_none() {
                continue;
            }
            if uid && !mountns && world_reachable(&prefix).is_some() {
                notes.push("python is not reachable by other users without a mount namespace".into());
                continue;
            }
            let raw = run_raw(
                &probe,
                &prefix,
                b"",
                "import os, sys\nsys.path.append(sys.argv[1])\nimport numpy\nos.write(3, b'ok')\n",
                &Limits::default(),
                Duration::from_secs(20),
            );
            if raw.result == b"ok" {
                let mut iso = probe;
                iso.note = notes.join("; ");
                return iso;
            }
            notes.push(format!(
                "tier (mount ns {mountns}, net ns {netns}, uid {uid}) failed: {}",
                raw.spawn_error.clone().unwrap_or_else(|| String::from_utf8_lossy(&raw.stderr)
                    .trim()
                    .chars()
                    .take(200)
                    .collect())
            ));
        }
        Isolation {
            python,
            site_packages,
            new_uid_per_run: false,
            network_namespace: false,
            mount_namespace: false,
            note: notes.join("; "),
        }
    })
}

fn python_prefix() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| resolve_python().map(|(_, p, _)| p).unwrap_or_else(|_| PathBuf::from("/")))
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

fn next_uid() -> u32 {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let c = COUNTER.fetch_add(1, Ordering::Relaxed) & 0x3FF;
    1_000_000 + ((std::process::id() & 0x7FFF) << 10) + c
}

fn setrlimit(res: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
    let r = libc::rlimit { rlim_cur: soft as libc::rlim_t, rlim_max: hard as libc::rlim_t };
    if unsafe { libc::setrlimit(res, &r) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn check(rc: libc::c_int) -> std::io::Result<()> {
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Runs in the child between fork and exec: only async-signal-safe calls, no allocation.
fn enter_sandbox(sb: &Sandbox, result_fd: libc::c_int, limits: &Limits) -> std::io::Result<()> {
    unsafe {
        if sb.netns {
            check(libc::unshare(libc::CLONE_NEWNET))?;
        }
        if let Some(m) = &sb.mounts {
            check(libc::unshare(libc::CLONE_NEWNS))?;
            check(libc::mount(
                std::ptr::null(),
                m.root.as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            check(libc::mount(
                m.tmpfs_type.as_ptr(),
                m.tmp.as_ptr(),
                m.tmpfs_type.as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV,
                m.tmpfs_opts.as_ptr().cast(),
            ))?;
            for p in &m.extra_tmpfs {
                let _ = libc::mount(
                    m.tmpfs_type.as_ptr(),
                    p.as_ptr(),
                    m.tmpfs_type.as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    m.tmpfs_opts.as_ptr().cast(),
                );
            }
            if let Some((stage, prefix, hidden, dirs)) = &m.python_bind {
                check(libc::mkdir(stage.as_ptr(), 0o755))?;
                check(libc::mount(
                    prefix.as_ptr(),
                    stage.as_ptr(),
                    std::ptr::null(),
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ))?;
                check(libc::mount(
                    m.tmpfs_type.as_ptr(),
                    hidden.as_ptr(),
                    m.tmpfs_type.as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV,
                    c"size=1m,mode=755".as_ptr().cast(),
                ))?;
                for d in dirs {
                    check(libc::mkdir(d.as_ptr(), 0o755))?;
                }
                check(libc::mount(stage.as_ptr(), prefix.as_ptr(), std::ptr::null(), libc::MS_MOVE, std::ptr::null()))?;
                let _ = libc::mount(
                    std::ptr::null(),
                    prefix.as_ptr(),
                    std::ptr::null(),
                    libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY,
                    std::ptr::null(),
                );
                let _ = libc::mount(
                    std::ptr::null(),
                    hidden.as_ptr(),
                    std::ptr::null(),
                    libc::MS_REMOUNT | libc::MS_RDONLY,
                    std::ptr::null(),
                );
                let _ = libc::rmdir(stage.as_ptr());
            }
            check(libc::mount(
                std::ptr::null(),
                m.root.as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY,
                std::ptr::null(),
            ))?;
            check(libc::chdir(m.tmp.as_ptr()))?;
        }
        if libc::dup2(result_fd, 3) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        setrlimit(libc::RLIMIT_AS, limits.address_space_bytes, limits.address_space_bytes)?;
        setrlimit(libc::RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1)?;
        setrlimit(libc::RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes)?;
        setrlimit(libc::RLIMIT_NOFILE, limits.open_files, limits.open_files)?;
        setrlimit(libc::RLIMIT_NPROC, limits.processes, limits.processes)?;
        setrlimit(libc::RLIMIT_CORE, 0, 0)?;
        if let Some(uid) = sb.uid {
            check(libc::setgroups(0, std::ptr::null()))?;
            check(libc::setgid(uid))?;
            check(libc::setuid(uid))?;
        }
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
        // After the uid change (which clears it): die with the grader thread that started us.
        check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0))?;
    }
    Ok(())
}

/// Kill every process of a run's private uid (they may have left the process group).
fn kill_uid(uid: u32) {
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            if libc::setgid(uid) == 0 && libc::setuid(uid) == 0 {
                libc::kill(-1, libc::SIGKILL);
            }
            libc::_exit(0);
        } else if pid > 0 {
            let mut st = 0;
            libc::waitpid(pid, &mut st, 0);
        }
    }
}

fn reader(mut r: impl Read + Send + 'static, cap: usize) -> mpsc::Receiver<(Vec<u8>, bool)> {
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
pub fn run_raw(
    iso: &Isolation,
    prefix: &std::path::Path,
    stdin: &[u8],
    script: &str,
    limits: &Limits,
    wall: Duration,
) -> RawRun {
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
    let uid = iso.new_uid_per_run.then(next_uid);
    let sandbox = Sandbox {
        uid,
        netns: iso.network_namespace,
        mounts: if iso.mount_namespace { mount_plan(prefix) } else { None },
    };
    let workdir = if iso.mount_namespace {
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
    let limits_child = limits.clone();
    unsafe {
        cmd.pre_exec(move || enter_sandbox(&sandbox, wfd, &limits_child));
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
        std::thread::sleep(sleep);
        sleep = (sleep * 2).min(Duration::from_millis(10));
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
    let req = grade::request(plan, program, defs, only, &opts.harness);
    let calls: usize = plan.trials.iter().map(|t| t.calls.len()).sum();
    let shape = grade::shape(plan);
    let iso = isolation();
    let body = serde_json::to_vec(&req).unwrap_or_default();
    let raw = run_raw(iso, python_prefix(), &body, HARNESS, &opts.limits, opts.limits.wall_for(calls));
    outcome_from_raw(raw, &shape)
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn outcome_from_raw(raw: RawRun, shape: &[usize]) -> RunOutcome {
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
    crate::rng::hex_id(
        &format!(
            "{}|{}|{}|{}|{}|{}|{}",
            task.input_key(),
            task.domain.as_str(),
            opts.trials,
            opts.harness.memoize,
            opts.harness.restrict_builtins,
            opts.harness.call_timeout,
            crate::rng::hex_id(HARNESS, "harness", 8)
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
    let req = grade::request(plan, &prep.reference_program, &prep.reference_defs, None, &opts.harness);
    let calls: usize = plan.trials.iter().map(|t| t.calls.len()).sum();
    let body = serde_json::to_vec(&req).unwrap_or_default();
    let raw = run_raw(isolation(), python_prefix(), &body, HARNESS, &opts.limits, opts.limits.wall_for(calls));
    let text = raw.result.clone();
    let out = Arc::new(outcome_from_raw(raw, &grade::shape(plan)));
    if out.status == RunStatus::Completed {
        remember(&key, &out);
        if let Some(path) = &disk {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, &text).is_ok() {
                let _ = std::fs::rename(&tmp, path);
            }
        }
    }
    (out, false)
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
fn prepared(task: &GradeTask, trials: usize) -> Result<Arc<Prepared>, grade::PlanError> {
    type Plans = Mutex<HashMap<(String, usize), Arc<Prepared>>>;
    static PLANS: OnceLock<Plans> = OnceLock::new();
    let plans = PLANS.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (format!("{}|{}", task.input_key(), task.domain.as_str()), trials);
    if let Some(p) = plans.lock().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(p);
    }
    let p = Arc::new(grade::prepare(task, trials)?);
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
    let start = Instant::now();
    let prep = match prepared(task, opts.trials) {
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
