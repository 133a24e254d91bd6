//! The `run` tool natively, against hostile code and the hostile corpus: loops, a loop that
//! swallows every exception, forks, memory, output floods (print and fd 1), the network, signals
//! to the parent, files outside the run. Each run is contained, its answer says how it ended, and
//! the next call of the same session works.
#![cfg(not(target_arch = "wasm32"))]

use crate::hostile;

use cabrito_agents::aci::Aci;
use cabrito_agents::Settings;
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::run_tool::SandboxRunner;
use cabrito_native::runner::isolation;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn session() -> Aci {
    session_with(SandboxRunner::default())
}

fn session_with(runner: SandboxRunner) -> Aci {
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 3)).unwrap();
    Aci::for_task(&t, Settings::default(), Arc::new(runner))
}

/// The limit of the runs that go on until they are killed, once the users' 10 s has been met: each
/// meets this one the same way, in less time.
const SHORT_SECONDS: u64 = 3;

/// `main(0.5)` of the starter, as a healthy run shows it.
fn healthy(aci: &mut Aci) -> String {
    let out = aci.call("run", &json!({"code": "main(0.5)"}));
    assert!(out.starts_with("the run finished (exit status 0)\nvalue: "), "the next call works: {out}");
    out
}

/// Run `code`; the answer must come within the limit and start with how the run ended.
fn contained(aci: &mut Aci, name: &str, code: &str) -> String {
    let start = Instant::now();
    let out = aci.call("run", &json!({"code": code}));
    let took = start.elapsed();
    eprintln!("{name}: {:.1} s: {}", took.as_secs_f64(), out.lines().next().unwrap_or(""));
    assert!(took < Duration::from_secs(25), "{name}: took {took:?}");
    assert!(out.starts_with("the run "), "{name}: {out}");
    out
}

#[test]
fn hostile_code_is_contained_and_the_next_call_works() {
    let mut aci = session();
    let first = healthy(&mut aci);

    let out = contained(&mut aci, "loop", "while True:\n    pass");
    assert!(out.starts_with("the run was killed at the time limit (10 s)"), "{out}");
    assert_eq!(healthy(&mut aci), first);

    let mut short = session_with(SandboxRunner::within(SHORT_SECONDS));
    let stubborn =
        "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass";
    let out = contained(&mut short, "stubborn loop", stubborn);
    assert!(out.starts_with(&format!("the run was killed at the time limit ({SHORT_SECONDS} s)")), "{out}");

    let out = contained(&mut short, "fork loop", "import os\nwhile True:\n    os.fork()");
    assert!(out.contains("time limit") || out.contains("BlockingIOError") || out.contains("exit"), "{out}");
    assert_eq!(healthy(&mut short), first);

    let out = contained(&mut aci, "memory", "x = [1] * (10 ** 10)");
    assert!(out.contains("MemoryError") || out.contains("killed by"), "{out}");

    let out = contained(&mut short, "print flood", "while True:\n    print('goat' * 1000)");
    assert!(out.contains("time limit") && out.contains("[stdout cut at 16 KiB]"), "{out}");
    assert!(out.len() < 40_000, "{} bytes", out.len());

    let out = contained(&mut short, "fd 1 flood", "import os\nwhile True:\n    os.write(1, b'goat' * 4096)");
    assert!(out.contains("[stdout cut at 16 KiB]"), "{out}");
    assert_eq!(healthy(&mut short), first);

    let out =
        contained(&mut aci, "stderr flood", "import sys\nfor i in range(10**6):\n    sys.stderr.write('x' * 100)");
    assert!(out.contains("[stderr cut at 16 KiB]"), "{out}");

    if isolation().network_namespace {
        let out = contained(&mut aci, "network", "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)");
        assert!(out.contains("OSError") || out.contains("unreachable"), "{out}");
    }
    if isolation().new_uid_per_run {
        let out = contained(&mut aci, "kill parent", "import os\nos.kill(os.getppid(), 9)");
        assert!(out.contains("PermissionError"), "{out}");
        let out = contained(&mut aci, "kill everyone", "import os, signal\nos.kill(-1, signal.SIGKILL)");
        assert!(out.starts_with("the run "), "{out}");
    }
    let out = contained(&mut aci, "kill own group", "import os, signal\nos.killpg(0, signal.SIGKILL)");
    assert!(out.contains("killed by SIGKILL"), "{out}");

    // The repository, its fixtures and any task file under the working directory's top folder are
    // out of sight of a run (with a mount namespace; else only the uid's permissions hold).
    if isolation().mount_namespace {
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let out = contained(&mut aci, "read the repository", &format!("print(open({manifest:?}).read()[:40])"));
        assert!(out.contains("FileNotFoundError"), "{out}");
        let out = contained(
            &mut aci,
            "list the work folder",
            "import os\nprint(os.listdir('/work') if os.path.isdir('/work') else [])",
        );
        assert!(out.ends_with("stdout:\n[]\n"), "{out}");
    }
    let here = format!("{}/cabrito-run-pwned-{}", env!("CARGO_TARGET_TMPDIR"), std::process::id());
    contained(&mut aci, "file write", &format!("open({here:?}, 'w').write('x')"));
    assert!(!std::path::Path::new(&here).exists(), "the run wrote {here}");

    let out = contained(&mut aci, "exit code", "import sys\nprint('bye')\nsys.exit(3)");
    assert!(out.starts_with("the run exited with status 3\nstdout:\nbye\n"), "{out}");
    let out = contained(&mut aci, "recursion", "def f(n):\n    return f(n + 1)\nf(0)");
    assert!(out.contains("RecursionError") && out.contains("<run>"), "{out}");
    assert!(!out.contains("File \"<string>\""), "the harness's frames are not shown: {out}");

    // The process is fine and the session still answers every tool.
    assert_eq!(healthy(&mut aci), first);
    assert!(aci.call("lint", &json!({})).ends_with("compiles"));
}

/// The corpus's runs are killed after this many seconds instead of the users' 10: the entries that
/// never end (loops, floods, fork loops) meet the limit as they would at 10 s, a fifth as long.
const CORPUS_SECONDS: u64 = 2;

#[test]
fn every_corpus_entry_runs_contained_as_solution_py() {
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 3)).unwrap();
    let cases: Vec<hostile::Case> = hostile::corpus().into_iter().filter(|c| c.python).collect();
    assert!(cases.len() > 20, "{} python entries", cases.len());
    let start = Instant::now();
    let outs: Vec<(String, String, String)> = std::thread::scope(|s| {
        let chunk = cases.len().div_ceil(2);
        let handles: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                let t = &t;
                s.spawn(move || {
                    part.iter()
                        .map(|c| {
                            let mut ws = cabrito_agents::aci::Workspace::of(t);
                            ws.solution = c.text();
                            let mut aci = Aci::new(
                                ws,
                                cabrito_agents::aci::Grading::of(t),
                                Settings::default(),
                                Arc::new(SandboxRunner::within(CORPUS_SECONDS)),
                            );
                            let file = aci.call("run", &json!({"path": "solution.py"}));
                            let code = aci.call("run", &json!({"code": "print(1 + 1)"}));
                            (c.name.clone(), file, code)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    for (name, file, code) in &outs {
        let ok = |o: &str| o.starts_with("the run ") || o.starts_with("run is not available: solution.py is");
        assert!(ok(file), "{name}: {file}");
        assert!(ok(code), "{name}: {code}");
    }
    eprintln!("{} corpus entries run twice each in {:.1} s", outs.len(), start.elapsed().as_secs_f64());
    let mut aci = session();
    healthy(&mut aci);
}

#[test]
fn a_file_run_takes_arguments_and_a_script_sees_the_solution() {
    let mut aci = session();
    let out = aci.call("run", &json!({"path": "solution.py", "args": ["0.5"]}));
    assert_eq!(out, "the run finished (exit status 0)\n(no output)\n");
    let out = aci.call("run", &json!({"path": "solution.py"}));
    assert!(out.contains("IndexError") && out.contains("solution.py"), "{out}");
    let out = aci.call("run", &json!({"code": "import solution\nprint(solution.main(0.5) == main(0.5))"}));
    assert_eq!(out, "the run finished (exit status 0)\nstdout:\nTrue\n");
    let out = aci.call("run", &json!({"code": "import mylibrary\nprint(mylibrary.default())"}));
    assert!(out.starts_with("the run finished"), "mylibrary is installed: {out}");
    let out = aci.call("run", &json!({"code": "nothing_here"}));
    assert!(out.contains("NameError: name 'nothing_here' is not defined"), "{out}");
    let out = aci.call("run", &json!({"path": "problem.md"}));
    assert!(out.contains("not 'problem.md'"), "{out}");
    assert!(!aci.steps().last().unwrap().ok);
}
