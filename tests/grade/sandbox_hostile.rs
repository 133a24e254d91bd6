//! A run sees nothing of the host (issue 35 item 9): its root holds only the interpreter, its
//! standard library and shared libraries, numpy and the run's own `/tmp`. Candidates try every
//! route to the host's files (restricted builtins escaped through `object.__subclasses__()`,
//! `open`, `os.open`, `ctypes` straight to libc, `/proc`, listing folders), in children of the
//! interpreter pool and in fresh processes, through the grader, the program runner and the
//! `cabrito grade` command; none of them reads a byte.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::grade::GradeTask;
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::runner::{self, grade, isolation, run_python, GradeOptions, Limits};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::guard;

const MARKER: &str = "CABRITO-HOST-SECRET-7f3a";

/// Whether this machine gives runs the minimal root (else the test cannot show anything).
fn minimal_root() -> bool {
    if isolation().mount_namespace {
        return true;
    }
    guard::cannot_run(&format!("runs get no mount namespace here: {}", isolation().describe()));
    false
}

/// A world-readable file holding [`MARKER`], in world-enterable folders of the host.
fn secret() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("sandbox-secret-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let f = dir.join("secret.txt");
    std::fs::write(&f, MARKER).unwrap();
    std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
    f
}

/// Host paths a run must not read: the secret, the project's sources, the system's files, the
/// grader's own process.
fn targets(secret: &Path) -> Vec<String> {
    vec![
        secret.display().to_string(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml").to_string(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/crates/native/src/sandbox.rs").to_string(),
        "/etc/passwd".into(),
        "/etc/hostname".into(),
        "/proc/self/status".into(),
        "/proc/1/cmdline".into(),
        format!("/proc/{}/cmdline", std::process::id()),
        "/sys/kernel/hostname".into(),
        "/home".into(),
    ]
}

/// A whole program trying every route with full builtins; prints `READ <path>` for what it reads.
fn full_program(paths: &[String]) -> String {
    format!(
        r#"import os, sys, ctypes
paths = {paths:?}
libc = ctypes.CDLL(None, use_errno=True)
for p in paths:
    try:
        print("READ", p, open(p, "rb").read(200))
    except Exception as e:
        print("denied open", p, type(e).__name__)
    try:
        fd = os.open(p, os.O_RDONLY)
        print("READ", p, os.read(fd, 200))
    except Exception as e:
        print("denied os.open", p, type(e).__name__)
    fd = libc.open(p.encode(), 0)
    if fd >= 0:
        buf = ctypes.create_string_buffer(200)
        n = libc.read(fd, buf, 200)
        print("READ", p, "by ctypes", buf.raw[:max(n, 0)])
    else:
        print("denied ctypes", p, ctypes.get_errno())
for d in ["/", "/etc", "/work", "/root", "/proc", "/sys", "/var", "/home", "/opt", "/mnt"]:
    try:
        print("LIST", d, sorted(os.listdir(d)))
    except Exception as e:
        print("denied list", d, type(e).__name__)
"#
    )
}

fn check_full_output(how: &str, out: &str, secret: &Path) {
    eprintln!("{how}:\n{out}");
    assert!(!out.contains(MARKER), "{how}: the run read the host's secret file:\n{out}");
    assert!(!out.contains("READ "), "{how}: the run read a host file:\n{out}");
    assert!(
        out.contains(&format!("denied ctypes {}", secret.display())),
        "{how}: the program did not run to the end:\n{out}"
    );
    for line in out.lines().filter(|l| l.starts_with("LIST ")) {
        let (dir, rest) = line[5..].split_once(' ').unwrap();
        match dir {
            "/" => {
                for name in ["work", "home", "proc", "sys", "var", "opt", "mnt", "srv", "boot", "run"] {
                    assert!(!rest.contains(&format!("'{name}'")), "{how}: / lists {name}: {line}");
                }
            }
            "/etc" => assert!(
                rest == "[]" || rest == "['ld.so.cache']",
                "{how}: /etc holds more than the loader's cache: {line}"
            ),
            "/root" => {
                assert!(rest == "[]" || rest == "['.pyenv']", "{how}: /root holds more than the interpreter: {line}")
            }
            _ => panic!("{how}: {dir} exists in the run: {line}"),
        }
    }
}

#[test]
fn a_whole_program_reads_nothing_of_the_host() {
    if !minimal_root() {
        return;
    }
    let secret = secret();
    let program = full_program(&targets(&secret));
    let limits = Limits { wall_seconds: Some(30.0), ..Limits::default() };
    // Through the runner (a child of the pool where this machine has one).
    let run = run_python(&program, b"", &limits);
    assert_eq!(run.exit_code, Some(0), "{:?}: {}", run.status, String::from_utf8_lossy(&run.stderr));
    check_full_output("run_python", &String::from_utf8_lossy(&run.stdout), &secret);
    // In a fresh process.
    let mut body = format!("{}\n", program.len()).into_bytes();
    body.extend_from_slice(program.as_bytes());
    let raw = runner::run_raw(isolation(), &body, runner::SCRIPT, &limits, Duration::from_secs(30));
    assert!(raw.spawn_error.is_none(), "{:?}", raw.spawn_error);
    check_full_output("fresh process", &String::from_utf8_lossy(&raw.stdout), &secret);
}

#[test]
fn numpy_still_works_in_the_minimal_root() {
    if !minimal_root() {
        return;
    }
    let run = run_python(
        "import numpy\nprint(int(numpy.arange(10).sum()), float(numpy.linalg.norm(numpy.ones(4))))\nimport sys\nsys.exit(3)\n",
        b"",
        &Limits { wall_seconds: Some(60.0), ..Limits::default() },
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout).trim(), "45 2.0", "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(run.exit_code, Some(3));
}

/// A candidate function that escapes the restricted builtins through `object.__subclasses__()`
/// (the classes of `io` and `os` it finds there) and puts whatever it reads in its error.
fn escaping_candidate(path: &str) -> String {
    format!(
        r#"
    found = []
    classes, seen = [().__class__.__base__], []
    while classes:
        c = classes.pop()
        if c in seen:
            continue
        seen.append(c)
        try:
            classes.extend(c.__subclasses__())
        except TypeError:
            pass
        if c.__name__ == "FileIO":
            try:
                found.append("READ " + repr(c({path:?}).read(200)))
            except Exception as e:
                found.append("denied FileIO " + type(e).__name__)
        if c.__name__ == "_wrap_close":
            g = c.__init__.__globals__
            try:
                fd = g["open"]({path:?}, g["O_RDONLY"])
                found.append("READ " + repr(g["read"](fd, 200)))
            except Exception as e:
                found.append("denied os.open " + type(e).__name__)
            try:
                found.append("LIST " + repr(g["listdir"]("/")))
            except Exception as e:
                found.append("denied listdir " + type(e).__name__)
    raise ValueError(" | ".join(found) or "nothing found")
"#
    )
}

fn task() -> (GradeTask, String, String) {
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 3)).unwrap();
    let victim = cabrito_check::grade::reference_functions(&t.solution_code).unwrap()[0].name.clone();
    (GradeTask::from_task(&t), t.solution_code.clone(), victim)
}

fn hostile(reference: &str, victim: &str, body: &str) -> String {
    format!("{reference}\n\ndef {victim}(*args, **kwargs):{body}")
}

#[test]
fn escaping_the_restricted_builtins_reads_nothing() {
    if !minimal_root() {
        return;
    }
    let secret = secret();
    let (gt, reference, victim) = task();
    for pool in [true, false] {
        for path in targets(&secret) {
            let code = hostile(&reference, &victim, &escaping_candidate(&path));
            let mut o = GradeOptions { trials: 2, pool, ..Default::default() };
            o.limits.wall_seconds = Some(30.0);
            let v = grade(&gt, &code, &o, &|_, _| {});
            let text = serde_json::to_string(&v).unwrap();
            assert!(!v.passed, "pool {pool}, {path}: the escaping candidate passed");
            assert!(!text.contains(MARKER), "pool {pool}: the verdict carries the secret: {text}");
            assert!(!text.contains("READ "), "pool {pool}, {path}: the candidate read a host file: {text}");
            assert!(text.contains("denied FileIO"), "pool {pool}, {path}: the escape did not run: {text}");
            assert!(!text.contains("'work'") && !text.contains("'home'"), "pool {pool}: / lists host folders: {text}");
        }
    }
}

/// Through the command a user runs: the results file holds no byte of the host's file.
#[test]
fn cabrito_grade_returns_no_host_file() {
    if !minimal_root() {
        return;
    }
    let secret = secret();
    let dir = tempfile::tempdir().unwrap();
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 3)).unwrap();
    let victim = cabrito_check::grade::reference_functions(&t.solution_code).unwrap()[0].name.clone();
    let run_name = "function_traversal_cn=(25,25)_en=(5,5)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)";
    let tasks = dir.path().join("tasks");
    let set = tasks.join(run_name).join("math_function");
    std::fs::create_dir_all(&set).unwrap();
    let rec = serde_json::json!([{"name": t.name, "dag_id": t.dag_id, "prompt": "", "starter_code": t.starter_code,
                                  "solution_code": t.solution_code, "metadata": {}}]);
    std::fs::write(set.join("add_parameter.json"), rec.to_string()).unwrap();
    let sols = dir.path().join("solutions");
    std::fs::create_dir_all(&sols).unwrap();
    let name = t.name.clone();
    let exe = env!("CARGO_BIN_EXE_cabrito");
    let code = hostile(&t.solution_code, &victim, &escaping_candidate(&secret.display().to_string()));
    std::fs::write(sols.join(format!("{name}.py")), code).unwrap();
    let out = dir.path().join("out");
    let run = std::process::Command::new(exe)
        .args(["grade", "--trials", "2", "--tasks"])
        .arg(&tasks)
        .arg("--solutions")
        .arg(&sols)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let mut results = String::new();
    for p in walk(&out) {
        results.push_str(&std::fs::read_to_string(p).unwrap_or_default());
    }
    assert!(results.contains("denied FileIO"), "the escape did not run: {results}");
    assert!(!results.contains(MARKER), "the results carry the host's secret: {results}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The runner's entry point for tools (`run_python`): stdin in, stdout, stderr and exit status out,
/// killed at its wall-clock limit, no network.
#[test]
fn run_python_reads_stdin_reports_exit_and_stops_at_the_wall() {
    if !minimal_root() {
        return;
    }
    let limits = Limits { wall_seconds: Some(20.0), ..Limits::default() };
    let run = run_python(
        "import sys\ndata = sys.stdin.read()\nprint(data.upper())\nprint('warn', file=sys.stderr)\nraise SystemExit(4)\n",
        "goat é\nkid".as_bytes(),
        &limits,
    );
    assert_eq!(String::from_utf8_lossy(&run.stdout), "GOAT É\nKID\n");
    assert_eq!(String::from_utf8_lossy(&run.stderr), "warn\n");
    assert_eq!(run.exit_code, Some(4));
    let crash = run_python("def f():\n    raise KeyError('x')\nf()\n", b"", &limits);
    assert_eq!(crash.exit_code, Some(1));
    assert!(String::from_utf8_lossy(&crash.stderr).contains("KeyError"), "{:?}", crash);
    let net = run_python(
        "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=1)\n    print('connected')\nexcept OSError as e:\n    print('no network', type(e).__name__)\n",
        b"",
        &limits,
    );
    assert!(String::from_utf8_lossy(&net.stdout).starts_with("no network"), "{:?}", net);
    let start = std::time::Instant::now();
    let slow = run_python("while True:\n    pass\n", b"", &Limits { wall_seconds: Some(1.0), ..Limits::default() });
    assert!(matches!(slow.status, cabrito_check::grade::RunStatus::TimedOut { .. }), "{:?}", slow.status);
    assert_eq!(slow.exit_code, None);
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
}
