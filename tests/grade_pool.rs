//! The interpreter pool (`native::pool`): runs forked from one pre-started interpreter are as
//! isolated as fresh processes. A candidate cannot reach the pool, the grader, a sibling run or a
//! later run (state left in a module, a file, a signal handler, an environment variable), and a
//! killed or exhausted pool recovers.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::grade::{GradeTask, Verdict};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::pool;
use cabrito_native::runner::{grade, isolation, GradeOptions, Limits};
use std::sync::Mutex;
use std::time::{Duration, Instant};

mod guard;

/// The tests share this process's pool: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn pooled() -> bool {
    if pool::available(isolation()) && pool::warm(isolation()) {
        return true;
    }
    guard::cannot_run(&format!("the pool needs the full isolation tier here: {}", isolation().describe()));
    false
}

fn task() -> (GradeTask, String, String) {
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 3)).unwrap();
    let victim = cabrito_check::grade::reference_functions(&t.solution_code).unwrap()[0].name.clone();
    (GradeTask::from_task(&t), t.solution_code.clone(), victim)
}

fn opts(trials: usize) -> GradeOptions {
    let mut o = GradeOptions { trials, ..Default::default() };
    o.harness.restrict_builtins = false;
    o.harness.call_timeout = 6.0;
    o.limits = Limits { wall_seconds: Some(30.0), ..Limits::default() };
    o
}

/// The reference with `victim` redefined as `body` (the last definition wins).
fn with_victim(reference: &str, victim: &str, body: &str) -> String {
    let indented: String = body.lines().map(|l| format!("    {l}\n")).collect();
    format!("{reference}\n\ndef {victim}(*args, **kwargs):\n{indented}")
}

/// Every line of `m` that says `what` says it is `clean` (and there is at least one).
fn all_say(m: &str, what: &str, clean: &str) -> bool {
    let said: Vec<&str> = m.lines().filter(|l| l.contains(what)).collect();
    !said.is_empty() && said.iter().all(|l| l.ends_with(&format!("{what}{clean}")))
}

/// Every first-failure message of a verdict.
fn messages(v: &Verdict) -> String {
    v.functions
        .iter()
        .filter_map(|f| f.first_failure.as_ref().map(|ff| ff.message.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn state_left_by_a_run_is_gone_in_the_next() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !pooled() {
        return;
    }
    let (gt, reference, victim) = task();
    let zygote = pool::zygote_pid();
    let leave = "import sys, os, signal, builtins, math, json\n\
                 math.pi = 3.0\n\
                 builtins.CABRITO_LEFT = 1\n\
                 os.environ['CABRITO_LEFT'] = '1'\n\
                 open('/tmp/cabrito-left', 'w').write('x')\n\
                 open('/dev/shm/cabrito-left', 'w').write('x')\n\
                 os.chdir('/')\n\
                 signal.signal(signal.SIGALRM, signal.SIG_IGN)\n\
                 signal.signal(signal.SIGTERM, signal.SIG_IGN)\n\
                 sys.modules['json'].CABRITO_LEFT = 1\n\
                 sys.path.insert(0, '/tmp')\n\
                 raise RuntimeError('left state behind')";
    let v = grade(&gt, &with_victim(&reference, &victim, leave), &opts(2), &|_, _| {});
    assert!(messages(&v).contains("left state behind"), "the first run ran: {}", v.message);
    let look = "import sys, os, signal, builtins, math, json\n\
                left = []\n\
                if math.pi != 3.141592653589793: left.append('math.pi')\n\
                if hasattr(builtins, 'CABRITO_LEFT'): left.append('builtins')\n\
                if 'CABRITO_LEFT' in os.environ: left.append('environment')\n\
                if os.path.exists('/tmp/cabrito-left'): left.append('/tmp file')\n\
                if os.path.exists('/dev/shm/cabrito-left'): left.append('/dev/shm file')\n\
                if os.getcwd() != '/tmp': left.append('working directory ' + os.getcwd())\n\
                if signal.getsignal(signal.SIGALRM) == signal.SIG_IGN: left.append('SIGALRM handler')\n\
                if signal.getsignal(signal.SIGTERM) == signal.SIG_IGN: left.append('SIGTERM handler')\n\
                if hasattr(json, 'CABRITO_LEFT'): left.append('module attribute')\n\
                if '/tmp' in sys.path: left.append('sys.path')\n\
                raise RuntimeError('leftovers: ' + (', '.join(left) or 'none'))";
    let v = grade(&gt, &with_victim(&reference, &victim, look), &opts(2), &|_, _| {});
    let m = messages(&v);
    assert!(all_say(&m, "leftovers: ", "none"), "a later run saw what an earlier one left: {m}");
    assert_eq!(pool::zygote_pid(), zygote, "both runs came from the same zygote");
}

#[test]
fn a_candidate_cannot_reach_the_pool_or_the_grader() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !pooled() {
        return;
    }
    let (gt, reference, victim) = task();
    let zygote = pool::zygote_pid().expect("a zygote");
    let started = pool::zygotes_started();
    let grader = std::process::id();
    let attack = format!(
        r#"import os, signal
reached = []
for what, f in [('kill parent', lambda: os.kill(os.getppid(), 9)), ('kill zygote', lambda: os.kill({zygote}, 9)),
                ('kill zygote group', lambda: os.killpg({zygote}, 9)), ('kill grader', lambda: os.kill({grader}, 9)),
                ('stop zygote', lambda: os.kill({zygote}, signal.SIGSTOP)),
                ('read zygote memory', lambda: open('/proc/{zygote}/mem', 'rb').read(1)),
                ('zygote fds', lambda: os.listdir('/proc/{zygote}/fd')),
                ('control socket', lambda: os.fstat(4)), ('inherited fd 5', lambda: os.fstat(5))]:
    try:
        f()
        reached.append(what)
    except Exception:
        pass
raise RuntimeError('reached: ' + (', '.join(reached) or 'nothing'))"#
    );
    let v = grade(&gt, &with_victim(&reference, &victim, &attack), &opts(1), &|_, _| {});
    let m = messages(&v);
    assert!(all_say(&m, "reached: ", "nothing"), "{m}");
    // The pool is untouched and still grades.
    let again = grade(&gt, &reference, &opts(3), &|_, _| {});
    assert!(again.passed, "{}", again.message);
    assert_eq!(pool::zygote_pid(), Some(zygote));
    assert_eq!(pool::zygotes_started(), started);
}

#[test]
fn sibling_runs_cannot_meet() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !pooled() {
        return;
    }
    let (gt, reference, victim) = task();
    // The first run holds an abstract socket, files and a shared-memory segment for 3 s.
    // (Callers of the victim call it again in the same run: only the first call holds.)
    let hold = r#"import socket, time, os, builtins
if not hasattr(builtins, 'held'):
    builtins.held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    builtins.held.bind('\0cabrito-sibling')
    builtins.held.listen(1)
    open('/tmp/cabrito-sibling', 'w').write('x')
    open('/dev/shm/cabrito-sibling', 'w').write('x')
    time.sleep(3)
raise RuntimeError('held to the end')"#;
    // The second tries to find it, and to kill every process it can see.
    let seek = r#"import socket, os
met = []
try:
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect('\0cabrito-sibling')
    met.append('abstract socket')
except OSError:
    pass
for p in ['/tmp/cabrito-sibling', '/dev/shm/cabrito-sibling']:
    if os.path.exists(p):
        met.append(p)
try:
    pids = [int(p) for p in os.listdir('/proc') if p.isdigit()]
except OSError:
    pids = []  # the run's root has no /proc: no process to see
for pid in pids:
    if pid != os.getpid():
        try:
            os.kill(pid, 9)
            met.append('killed %d' % pid)
        except OSError:
            pass
raise RuntimeError('met: ' + (', '.join(met) or 'nobody'))"#;
    let (first, second) = std::thread::scope(|s| {
        let a = s.spawn(|| grade(&gt, &with_victim(&reference, &victim, hold), &opts(1), &|_, _| {}));
        std::thread::sleep(Duration::from_millis(1200));
        let b = grade(&gt, &with_victim(&reference, &victim, seek), &opts(1), &|_, _| {});
        (a.join().unwrap(), b)
    });
    assert!(all_say(&messages(&second), "met: ", "nobody"), "{}", messages(&second));
    assert!(messages(&first).contains("held to the end"), "the first run was disturbed: {}", messages(&first));
}

#[test]
fn a_killed_pool_recovers() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !pooled() {
        return;
    }
    let (gt, reference, victim) = task();
    let started = pool::zygotes_started();
    // Killed between runs.
    let z = pool::zygote_pid().expect("a zygote");
    unsafe {
        libc::kill(z, libc::SIGKILL);
    }
    std::thread::sleep(Duration::from_millis(200));
    let v = grade(&gt, &reference, &opts(3), &|_, _| {});
    assert!(v.passed, "{}", v.message);
    let z2 = pool::zygote_pid().expect("a new zygote");
    assert_ne!(z2, z);
    assert_eq!(pool::zygotes_started(), started + 1);
    // Killed while a run is in flight: the run is done again in a fresh process.
    let slow = "import time\ntime.sleep(2)\nraise RuntimeError('slept')";
    let start = Instant::now();
    let v = std::thread::scope(|s| {
        let h = s.spawn(|| grade(&gt, &with_victim(&reference, &victim, slow), &opts(1), &|_, _| {}));
        std::thread::sleep(Duration::from_millis(700));
        unsafe {
            libc::kill(z2, libc::SIGKILL);
        }
        h.join().unwrap()
    });
    assert!(messages(&v).contains("slept"), "the run was completed after all: {}", messages(&v));
    assert!(start.elapsed() < Duration::from_secs(20));
    let v = grade(&gt, &reference, &opts(3), &|_, _| {});
    assert!(v.passed, "{}", v.message);
    assert!(pool::zygote_pid().is_some_and(|z3| z3 != z2));
}

#[test]
fn an_exhausted_pool_falls_back_to_fresh_processes() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !pooled() {
        return;
    }
    let (gt, reference, _) = task();
    pool::set_max_children(1);
    let verdicts: Vec<Verdict> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4).map(|_| s.spawn(|| grade(&gt, &reference, &opts(5), &|_, _| {}))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    pool::set_max_children(pool::MAX_CHILDREN);
    for v in verdicts {
        assert!(v.passed, "{}", v.message);
    }
}

/// The zygote's compiled code is kept between zygotes (`native::code_cache`); a damaged, foreign
/// or undecodable blob is compiled afresh and replaced, and grading is unchanged.
#[test]
fn a_damaged_code_cache_is_compiled_afresh() {
    use cabrito_native::code_cache;
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if !pooled() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("CABRITO_CODE_CACHE", dir.path());
    let restart = || {
        let z = pool::zygote_pid().expect("a zygote");
        unsafe {
            libc::kill(z, libc::SIGKILL);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while pool::zygote_pid() == Some(z) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // The files of pool.py and the grading harness, once the zygote sent them.
    let blobs = || -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let mut found: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "bin"))
                .filter_map(|p| code_cache::read(&p).map(|b| (p, b)))
                .collect();
            found.sort();
            if found.len() >= 2 || Instant::now() > deadline {
                return found;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let (gt, reference, victim) = task();
    let wrong = with_victim(&reference, &victim, "return 'not it'");
    restart();
    let v = grade(&gt, &reference, &opts(3), &|_, _| {});
    assert!(v.passed, "{}", v.message);
    let first = blobs();
    let names: Vec<String> = first.iter().map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert!(names.iter().any(|n| n.starts_with("pool-")) && names.iter().any(|n| n.starts_with("grade-")), "{names:?}");
    let version_of = |b: &[u8]| b[..b.iter().position(|&c| c == 0).expect("a version, then a NUL")].to_vec();
    // Loaded from the cache: the same verdicts, and nothing is written again.
    restart();
    let v = grade(&gt, &reference, &opts(3), &|_, _| {});
    assert!(v.passed, "{}", v.message);
    assert!(!grade(&gt, &wrong, &opts(3), &|_, _| {}).passed);
    assert_eq!(blobs(), first);
    // Damaged three ways: this interpreter's blob cut short, another interpreter's blob, a file
    // whose checksum fails. Each time the zygote compiles afresh, and the file is whole again.
    let version = version_of(&first[0].1);
    let damages: [&dyn Fn(&std::path::Path); 3] = [
        &|p| {
            let mut cut = version.clone();
            cut.extend_from_slice(b"\0\xe3\x00\x00");
            code_cache::write(p, &cut)
        },
        &|p| code_cache::write(p, b"2.7.18 (elsewhere)\0\xe3garbage"),
        &|p| std::fs::write(p, b"cabrito-code 1\nnot a checksum").unwrap(),
    ];
    for damage in damages {
        for (path, _) in &first {
            damage(path);
        }
        restart();
        let v = grade(&gt, &reference, &opts(3), &|_, _| {});
        assert!(v.passed, "{}", v.message);
        assert!(!grade(&gt, &wrong, &opts(3), &|_, _| {}).passed);
        let deadline = Instant::now() + Duration::from_secs(10);
        let whole = || {
            let now = blobs();
            now.len() == first.len() && now.iter().all(|(_, b)| version_of(b) == version && b.len() > 1000)
        };
        while !whole() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(whole(), "the damaged blobs were not replaced");
    }
    std::env::remove_var("CABRITO_CODE_CACHE");
    restart();
}
