//! The interpreter pool: one pre-started Python process (the *zygote*, `pool.py`) that already
//! holds the harnesses (grading, Merge Codebases, whole programs) and, once a run asks for it,
//! numpy, and forks a fresh child per run. The command line, the worker and [`super::runner::run_python`]
//! all run through it.
//!
//! Isolation is the same as a fresh process per run ([`super::sandbox`]) and does not rest on the
//! zygote: the zygote never sees a program, an input or a result. The grader creates the run's
//! four pipes (stdin, stdout, stderr, results) and passes their child ends over the control socket
//! with the run's private uid and rlimits; the zygote forks; the child moves the pipes to fds 0–3,
//! closes every other fd (the control socket among them), enters new mount, network and IPC
//! namespaces with a fresh tmpfs `/tmp`, sets its rlimits, drops to its
//! uid with no groups, sets `no_new_privs` and a death signal, and only then reads its request. So
//! a candidate shares no interpreter with the reference, the grader or another candidate: every
//! run is a separate process forked from the same untouched image, and what one leaves in its
//! memory, files, signal handlers or environment dies with it.
//!
//! The zygote itself runs as root (it must create namespaces and switch uids for its children) in
//! the sandbox of [`Sandbox::prepare_zygote`]: no network, the minimal read-only root (nothing of
//! the host but the interpreter, its libraries and numpy), private `/tmp`. A
//! candidate cannot reach it: a different uid cannot signal or trace it, its control socket is an
//! unnamed socket pair closed in the child, and it runs nothing it is sent.
//!
//! The pool is used only on the full isolation tier (root with namespaces and a uid per run); on
//! weaker tiers, when it is disabled, busy ([`MAX_CHILDREN`]), dead or broken, runs start fresh
//! processes as before ([`super::runner::run_raw`]). A zygote that dies is started again on the
//! next run; a run whose zygote died under it is run again in a fresh process.

use super::code_cache;
use super::runner::{reader, Harness, Limits, RawRun};
use super::sandbox::{kill_uid, next_uid, Isolation, Sandbox};
use cabrito_check::grade::RunStatus;
use std::collections::HashMap;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The zygote's source.
pub const POOL_SOURCE: &str = include_str!("pool.py");

/// What the zygote's interpreter is started with (`-c`): it loads `pool.py` and, later, each
/// harness from the blobs on its stdin ([`super::code_cache`]) when they are this interpreter's,
/// else compiles them and keeps the new blobs in `FRESH` for `pool.py` to send to the grader.
const BOOT: &str = r#"import marshal, sys
TAG = sys.version.encode() + b"\0"
BLOBS = {}
FRESH = []
try:
    data = sys.stdin.buffer.read()
    while data:
        head, _, data = data.partition(b"\n")
        mode, size = head.split(b" ")
        BLOBS[mode], data = data[: int(size)], data[int(size) :]
except Exception:
    BLOBS.clear()


def load(mode, source, name):
    blob = BLOBS.pop(mode, None)
    if blob is not None and blob.startswith(TAG):
        try:
            return marshal.loads(memoryview(blob)[len(TAG) :])
        except Exception:
            pass
    code = compile(source, name, "exec")
    try:
        FRESH.append(mode + b" " + TAG + marshal.dumps(code))
    except Exception:
        pass
    return code


data = None
exec(load(b"pool", sys.argv[5], "pool.py"))
"#;

/// The sources the zygote loads, by the word it knows each by (`pool`: `pool.py` itself).
fn zygote_sources() -> [(&'static str, &'static str); 4] {
    [
        ("pool", POOL_SOURCE),
        ("grade", Harness::Grade.source()),
        ("merge", Harness::Merge.source()),
        ("script", Harness::Script.source()),
    ]
}

/// Runs in flight through the pool at once; beyond, runs start fresh processes.
pub const MAX_CHILDREN: usize = 64;

/// After the zygote failed to start or to sandbox a child, fresh processes are used for this long.
const RETRY_AFTER: Duration = Duration::from_secs(30);

/// What the zygote says about one run.
enum Event {
    Started(i32),
    Failed,
    /// The raw wait status.
    Exited(i32),
}

struct Zygote {
    ctl: OwnedFd,
    pid: i32,
    child: Mutex<Child>,
    alive: Arc<AtomicBool>,
    ready: Arc<(Mutex<bool>, std::sync::Condvar)>,
    /// Runs waiting for `started`, by request id.
    waiting: Arc<Mutex<HashMap<u64, mpsc::Sender<Event>>>>,
    send: Mutex<()>,
}

struct Pool {
    current: Mutex<Option<Arc<Zygote>>>,
    /// When the pool last failed (spawn or sandbox): fresh processes until [`RETRY_AFTER`].
    failed_at: Mutex<Option<Instant>>,
    in_flight: AtomicUsize,
    next_id: AtomicU64,
    enabled: AtomicBool,
    started: AtomicUsize,
    max_children: AtomicUsize,
}

fn pool() -> &'static Pool {
    static P: OnceLock<Pool> = OnceLock::new();
    P.get_or_init(|| Pool {
        current: Mutex::new(None),
        failed_at: Mutex::new(None),
        in_flight: AtomicUsize::new(0),
        next_id: AtomicU64::new(1),
        enabled: AtomicBool::new(std::env::var_os("CABRITO_NO_POOL").is_none()),
        started: AtomicUsize::new(0),
        max_children: AtomicUsize::new(MAX_CHILDREN),
    })
}

/// Turn the pool on or off for this process (on by default unless `CABRITO_NO_POOL` is set).
pub fn set_enabled(on: bool) {
    pool().enabled.store(on, Ordering::Release);
}

/// Runs in flight through the pool at once before runs start fresh processes ([`MAX_CHILDREN`]
/// by default; tests lower it to exhaust the pool).
pub fn set_max_children(n: usize) {
    pool().max_children.store(n, Ordering::Release);
}

/// Whether runs go through the pool on this machine (enabled and the tier allows it).
pub fn available(iso: &Isolation) -> bool {
    pool().enabled.load(Ordering::Acquire) && iso.mount_namespace && iso.network_namespace && iso.new_uid_per_run
}

/// The isolation line of logs and summaries, with how runs start (`pool`: the caller's option).
pub fn describe(iso: &Isolation, pool: bool) -> String {
    let how = if pool && available(iso) {
        "runs forked from a pre-started interpreter (the pool), each entering its own namespaces, minimal root, uid and rlimits"
    } else {
        "a fresh python3 process per run"
    };
    format!("{how}; {}", iso.describe())
}

/// The zygote's pid, if one is running (tests kill it to check that the pool recovers).
pub fn zygote_pid() -> Option<i32> {
    let cur = pool().current.lock().ok()?;
    cur.as_ref().filter(|z| z.alive.load(Ordering::Acquire)).map(|z| z.pid)
}

/// How many zygotes this process has started.
pub fn zygotes_started() -> usize {
    pool().started.load(Ordering::Relaxed)
}

/// Start the zygote now (if the pool is available) and wait until it is ready, so the first run
/// does not pay for it. Returns whether a ready zygote is there.
pub fn warm(iso: &Isolation) -> bool {
    if !available(iso) {
        return false;
    }
    let Some(z) = zygote(iso) else { return false };
    let (lock, cv) = &*z.ready;
    let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
    let (guard, _) = cv
        .wait_timeout_while(guard, Duration::from_secs(30), |ready| !*ready && z.alive.load(Ordering::Acquire))
        .unwrap_or_else(|e| e.into_inner());
    *guard && z.alive.load(Ordering::Acquire)
}

/// Probe this machine's isolation ([`super::sandbox::isolation`], which on the full tier probes
/// through the zygote: see [`probe`]) and [`warm`] the pool on it. Returns whether a ready zygote
/// is there.
pub fn warm_probed() -> bool {
    let iso = super::sandbox::isolation();
    pool().enabled.load(Ordering::Acquire) && warm(iso)
}

/// The isolation probe of the full tier `iso`, run by the zygote (started on `iso`) as one child
/// that enters a run's sandbox (its own namespaces, private `/tmp`, uid, rlimits, no new
/// privileges) and checks what a fresh probe process checks. True when it did: the zygote is then
/// ready for the runs. Otherwise the pool is set aside as after any failure, and the caller
/// probes with a fresh process.
pub(crate) fn probe(iso: &Isolation) -> bool {
    if !available(iso) {
        return false;
    }
    let limits = Limits::default();
    match run(iso, Harness::Probe, false, b"", &limits, Duration::from_secs(20)) {
        Some(raw) if raw.status == RunStatus::Completed && raw.result == b"ok" => true,
        Some(_) => {
            mark_failed();
            false
        }
        None => false,
    }
}

fn mark_failed() {
    if let Ok(mut f) = pool().failed_at.lock() {
        *f = Some(Instant::now());
    }
    if let Ok(mut cur) = pool().current.lock() {
        if let Some(z) = cur.take() {
            z.kill();
        }
    }
}

/// The live zygote, started if needed.
fn zygote(iso: &Isolation) -> Option<Arc<Zygote>> {
    let p = pool();
    if p.failed_at.lock().ok()?.is_some_and(|t| t.elapsed() < RETRY_AFTER) {
        return None;
    }
    let mut cur = p.current.lock().ok()?;
    if let Some(z) = cur.as_ref() {
        if z.alive.load(Ordering::Acquire) {
            return Some(z.clone());
        }
        z.kill();
    }
    match Zygote::spawn(iso) {
        Ok(z) => {
            p.started.fetch_add(1, Ordering::Relaxed);
            let z = Arc::new(z);
            *cur = Some(z.clone());
            Some(z)
        }
        Err(_) => {
            *cur = None;
            drop(cur);
            if let Ok(mut f) = p.failed_at.lock() {
                *f = Some(Instant::now());
            }
            None
        }
    }
}

fn seqpacket_pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: socketpair writes two fds into the array on success.
    let rc = unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both fds are fresh and owned by us.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 writes two fds into the array on success.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both fds are fresh and owned by us.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// One message with `fds` attached (SCM_RIGHTS).
fn send_with_fds(sock: RawFd, data: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    let payload = std::mem::size_of_val(fds);
    // SAFETY: CMSG_SPACE / CMSG_LEN only compute sizes.
    let space = unsafe { libc::CMSG_SPACE(payload as u32) } as usize;
    // u64 words keep the control buffer aligned for cmsghdr.
    let mut cbuf = vec![0u64; space.div_ceil(8)];
    let mut iov = libc::iovec { iov_base: data.as_ptr() as *mut libc::c_void, iov_len: data.len() };
    // SAFETY: msghdr is plain data; every pointer set below outlives the sendmsg call, and the
    // control buffer has CMSG_SPACE bytes for one header carrying `fds`.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() {
            return Err(std::io::Error::other("no room for the control message"));
        }
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(payload as u32) as _;
        std::ptr::copy_nonoverlapping(fds.as_ptr().cast::<u8>(), libc::CMSG_DATA(cmsg), payload);
        if libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

impl Zygote {
    fn spawn(iso: &Isolation) -> std::io::Result<Zygote> {
        let sandbox = Sandbox::prepare_zygote(iso)
            .ok_or_else(|| std::io::Error::other("this machine's isolation tier has no pool"))?;
        let (ours, theirs) = seqpacket_pair()?;
        let theirs_fd = theirs.as_raw_fd();
        // The compiled code kept from an earlier command, framed `word size\n blob` on stdin.
        let files: HashMap<String, std::path::PathBuf> = match code_cache::dir() {
            Some(dir) => zygote_sources()
                .iter()
                .map(|(word, src)| (word.to_string(), code_cache::file(&dir, &iso.python, word, src)))
                .collect(),
            None => HashMap::new(),
        };
        let mut blobs = Vec::new();
        for (word, path) in &files {
            if let Some(blob) = code_cache::read(path) {
                blobs.extend_from_slice(format!("{word} {}\n", blob.len()).as_bytes());
                blobs.extend_from_slice(&blob);
            }
        }
        let mut cmd = Command::new(&iso.python);
        cmd.args([
            "-I",
            "-S",
            "-c",
            BOOT,
            &iso.site_packages,
            Harness::Grade.source(),
            Harness::Merge.source(),
            Harness::Script.source(),
            POOL_SOURCE,
        ])
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", "/tmp")
        .env("LANG", "C.UTF-8")
        .env("OPENBLAS_NUM_THREADS", "1")
        .env("OMP_NUM_THREADS", "1")
        .env("MKL_NUM_THREADS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
        // SAFETY: `Sandbox::enter` follows the rules of `native::sandbox` (no allocation,
        // async-signal-safe calls only, everything prepared before the fork).
        unsafe {
            cmd.pre_exec(move || sandbox.enter(theirs_fd));
        }
        let mut child = cmd.spawn()?;
        drop(theirs);
        if let Some(mut stdin) = child.stdin.take() {
            // Written beside the zygote's start (more than a pipe holds); closed when done.
            std::thread::Builder::new().name("cabrito-pool-code".into()).spawn(move || {
                let _ = stdin.write_all(&blobs);
            })?;
        }
        let pid = child.id() as i32;
        let alive = Arc::new(AtomicBool::new(true));
        let ready = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let waiting: Arc<Mutex<HashMap<u64, mpsc::Sender<Event>>>> = Arc::default();
        let running: Arc<Mutex<HashMap<i32, mpsc::Sender<Event>>>> = Arc::default();
        let read_fd = ours.try_clone()?;
        {
            let (alive, ready, waiting, running) = (alive.clone(), ready.clone(), waiting.clone(), running.clone());
            std::thread::Builder::new().name("cabrito-pool".into()).spawn(move || {
                listen(read_fd, &ready, &waiting, &running, &files);
                alive.store(false, Ordering::Release);
                // Every run still waiting sees its channel close.
                if let Ok(mut w) = waiting.lock() {
                    w.clear();
                }
                if let Ok(mut r) = running.lock() {
                    r.clear();
                }
                let (lock, cv) = &*ready;
                drop(lock.lock());
                cv.notify_all();
            })?;
        }
        Ok(Zygote { ctl: ours, pid, child: Mutex::new(child), alive, ready, waiting, send: Mutex::new(()) })
    }

    fn kill(&self) {
        self.alive.store(false, Ordering::Release);
        // SAFETY: kill has no memory preconditions; the zygote is its own process group.
        unsafe {
            libc::kill(-self.pid, libc::SIGKILL);
        }
        if let Ok(mut c) = self.child.lock() {
            let _ = c.wait();
        }
    }
}

/// The zygote's messages, until its socket closes.
fn listen(
    fd: OwnedFd,
    ready: &(Mutex<bool>, std::sync::Condvar),
    waiting: &Mutex<HashMap<u64, mpsc::Sender<Event>>>,
    running: &Mutex<HashMap<i32, mpsc::Sender<Event>>>,
    code_files: &HashMap<String, std::path::PathBuf>,
) {
    // Room for the largest compiled harness the zygote sends back (`code WORD BLOB`).
    let mut buf = vec![0u8; 1 << 20];
    loop {
        // SAFETY: the buffer is valid for its length.
        let n = unsafe { libc::recv(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            return;
        }
        let msg = &buf[..n as usize];
        if let Some(rest) = msg.strip_prefix(b"code ") {
            // A harness the zygote compiled: kept for the next command's zygote.
            if let Some(sp) = rest.iter().position(|&b| b == b' ') {
                let word = String::from_utf8_lossy(&rest[..sp]);
                if let Some(path) = code_files.get(word.as_ref()) {
                    code_cache::write(path, &rest[sp + 1..]);
                }
            }
            continue;
        }
        let text = String::from_utf8_lossy(msg).into_owned();
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["ready"] => {
                let (lock, cv) = ready;
                if let Ok(mut r) = lock.lock() {
                    *r = true;
                }
                cv.notify_all();
            }
            ["started", id, pid] => {
                let (Ok(id), Ok(pid)) = (id.parse::<u64>(), pid.parse::<i32>()) else { continue };
                let tx = waiting.lock().ok().and_then(|mut w| w.remove(&id));
                if let Some(tx) = tx {
                    let _ = tx.send(Event::Started(pid));
                    if let Ok(mut r) = running.lock() {
                        r.insert(pid, tx);
                    }
                } else {
                    // Nobody waits for it any more: it must not run.
                    // SAFETY: kill has no memory preconditions.
                    unsafe {
                        libc::kill(-pid, libc::SIGKILL);
                    }
                }
            }
            ["failed", id, ..] => {
                if let Some(tx) = id.parse::<u64>().ok().and_then(|id| waiting.lock().ok()?.remove(&id)) {
                    let _ = tx.send(Event::Failed);
                }
            }
            ["exited", pid, status] => {
                let (Ok(pid), Ok(status)) = (pid.parse::<i32>(), status.parse::<i32>()) else { continue };
                if let Some(tx) = running.lock().ok().and_then(|mut r| r.remove(&pid)) {
                    let _ = tx.send(Event::Exited(status));
                }
            }
            _ => {}
        }
    }
}

/// Releases a slot of [`MAX_CHILDREN`] when dropped.
struct Slot;

impl Drop for Slot {
    fn drop(&mut self) {
        pool().in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Have the zygote import numpy now (started if needed), so array runs do not wait for it later.
pub fn preload_numpy(iso: &Isolation) {
    if !available(iso) {
        return;
    }
    if let Some(z) = zygote(iso) {
        let _g = z.send.lock();
        // SAFETY: the buffer is valid for its length.
        unsafe {
            libc::send(z.ctl.as_raw_fd(), b"numpy".as_ptr().cast(), 5, libc::MSG_NOSIGNAL);
        }
    }
}

/// Run `harness` on `stdin` in a child of the zygote (`numpy`: load it in the zygote first).
/// `None` when the pool cannot take the run (unavailable, busy, dead, or it died during the run):
/// the caller then starts a fresh process.
pub fn run(
    iso: &Isolation,
    harness: Harness,
    numpy: bool,
    stdin: &[u8],
    limits: &Limits,
    wall: Duration,
) -> Option<RawRun> {
    if !available(iso) {
        return None;
    }
    let p = pool();
    let max = p.max_children.load(Ordering::Acquire);
    if p.in_flight.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1)).is_err() {
        return None;
    }
    let _slot = Slot;
    let z = zygote(iso)?;
    let start = Instant::now();
    let (in_r, in_w) = pipe().ok()?;
    let (out_r, out_w) = pipe().ok()?;
    let (err_r, err_w) = pipe().ok()?;
    let (res_r, res_w) = pipe().ok()?;
    let uid = next_uid();
    let id = p.next_id.fetch_add(1, Ordering::Relaxed);
    let (tx, rx) = mpsc::channel();
    z.waiting.lock().ok()?.insert(id, tx);
    let msg = format!(
        "run {id} {uid} {} {} {} {} {} {} {}",
        limits.address_space_bytes,
        limits.cpu_seconds,
        limits.file_size_bytes,
        limits.open_files,
        limits.processes,
        harness.word(),
        u8::from(numpy)
    );
    let sent = {
        let _g = z.send.lock().ok()?;
        send_with_fds(
            z.ctl.as_raw_fd(),
            msg.as_bytes(),
            &[in_r.as_raw_fd(), out_w.as_raw_fd(), err_w.as_raw_fd(), res_w.as_raw_fd()],
        )
    };
    drop((in_r, out_w, err_w, res_w));
    if sent.is_err() {
        if let Ok(mut w) = z.waiting.lock() {
            w.remove(&id);
        }
        z.alive.store(false, Ordering::Release);
        return None;
    }
    let pid = match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(Event::Started(pid)) => pid,
        Ok(_) | Err(_) => {
            if let Ok(mut w) = z.waiting.lock() {
                w.remove(&id);
            }
            return None;
        }
    };
    let out_rx = reader(std::fs::File::from(out_r), limits.output_cap);
    let err_rx = reader(std::fs::File::from(err_r), limits.output_cap);
    let res_rx = reader(std::fs::File::from(res_r), limits.result_cap);
    {
        let data = stdin.to_vec();
        let mut si = std::fs::File::from(in_w);
        std::thread::spawn(move || {
            let _ = si.write_all(&data);
        });
    }
    let deadline = start + wall;
    let kill_group = || {
        // SAFETY: kill has no memory preconditions; the child is its own process group.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    };
    // Some(Ok(status)): exited; Some(Err(())): cancelled; None: timed out.
    let mut zygote_died = false;
    let status = loop {
        match rx.recv_timeout(Duration::from_millis(10)) {
            Ok(Event::Exited(st)) => break Some(Ok(st)),
            Ok(_) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                zygote_died = true;
                break None;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let cancelled = limits.cancel.is_cancelled();
                if cancelled || Instant::now() >= deadline {
                    kill_group();
                    // The zygote reaps it and says so (or dies, which ends the wait too).
                    let _ = rx.recv_timeout(Duration::from_secs(2));
                    break if cancelled { Some(Err(())) } else { None };
                }
            }
        }
    };
    kill_group();
    kill_uid(uid);
    let seconds = start.elapsed().as_secs_f64();
    let grace = Duration::from_millis(500);
    let (result, result_overflow) = res_rx.recv_timeout(grace).unwrap_or_default();
    let (stdout, _) = out_rx.recv_timeout(grace).unwrap_or_default();
    let (stderr, _) = err_rx.recv_timeout(grace).unwrap_or_default();
    if zygote_died {
        z.alive.store(false, Ordering::Release);
        return None;
    }
    let status = match status {
        None => RunStatus::TimedOut { seconds: wall.as_secs_f64() },
        Some(Err(())) => RunStatus::Cancelled,
        Some(Ok(st)) => {
            if libc::WIFEXITED(st) {
                let code = libc::WEXITSTATUS(st);
                if code == 70 && stderr.starts_with(b"cabrito pool:") {
                    // The child could not enter its sandbox: never run anything through this pool.
                    mark_failed();
                    return None;
                }
                if code == 0 {
                    RunStatus::Completed
                } else {
                    RunStatus::Exited { code }
                }
            } else if libc::WIFSIGNALED(st) {
                RunStatus::Signalled { signal: libc::WTERMSIG(st) }
            } else {
                RunStatus::Exited { code: -1 }
            }
        }
    };
    Some(RawRun { status, result, result_overflow, stdout, stderr, seconds, spawn_error: None })
}
