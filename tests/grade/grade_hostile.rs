//! Hostile candidates get a verdict in bounded time and do not hurt the grader (D7).
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::grade::{FunctionStatus, GradeTask, Verdict};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::runner::{grade, isolation, GradeOptions, Limits};
use std::time::{Duration, Instant};

fn task() -> (GradeTask, String, String) {
    let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 3)).unwrap();
    let gt = GradeTask::from_task(&t);
    // A function that every trial calls: the first def of the reference other than main.
    let victim = cabrito_check::grade::reference_functions(&t.solution_code).unwrap()[0].name.clone();
    (gt, t.solution_code.clone(), victim)
}

fn opts(restrict: bool) -> GradeOptions {
    let mut o = GradeOptions { trials: 3, ..Default::default() };
    o.harness.restrict_builtins = restrict;
    o.harness.call_timeout = 1.0;
    o.limits = Limits { wall_seconds: Some(8.0), cpu_seconds: 8, address_space_bytes: 1 << 30, ..Limits::default() };
    o
}

/// The reference with `victim` redefined (the last definition wins) as `body`.
fn hostile(reference: &str, victim: &str, body: &str) -> String {
    let indented: String = body.lines().map(|l| format!("    {l}\n")).collect();
    format!("{reference}\n\ndef {victim}(*args, **kwargs):\n{indented}")
}

fn check_hostile(name: &str, body: &str, restrict: bool) -> Verdict {
    let (gt, reference, victim) = task();
    let start = Instant::now();
    let v = grade(&gt, &hostile(&reference, &victim, body), &opts(restrict), &|_, _| {});
    let took = start.elapsed();
    eprintln!("{name} (restrict={restrict}): {:.1}s, {}", took.as_secs_f64(), v.message);
    assert!(!v.passed, "{name}: a hostile candidate must not pass");
    assert!(took < Duration::from_secs(30), "{name}: took {took:?}");
    let f = v.functions.iter().find(|f| f.name == victim).expect("victim tested");
    assert!(matches!(f.status, FunctionStatus::Error | FunctionStatus::Fail), "{name}: {:?}", f.status);
    // The grader keeps working: the reference still scores 1 afterwards.
    let again = grade(&gt, &reference, &opts(restrict), &|_, _| {});
    assert!(again.passed, "{name}: grader broken afterwards: {}", again.message);
    v
}

#[test]
fn infinite_loop_times_out() {
    for r in [true, false] {
        let v = check_hostile("infinite loop", "while True:\n    pass", r);
        assert!(v.message.to_lowercase().contains("time"), "{}", v.message);
    }
}

#[test]
fn a_loop_that_swallows_the_timeout_is_killed_from_outside() {
    let v = check_hostile(
        "stubborn loop",
        "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass",
        true,
    );
    assert!(v.message.contains("wall-clock") || v.message.to_lowercase().contains("time"), "{}", v.message);
}

#[test]
fn fork_loop_is_contained() {
    check_hostile("fork loop", "import os\nwhile True:\n    os.fork()", false);
    check_hostile("fork loop (whitelist)", "import os\nwhile True:\n    os.fork()", true);
}

#[test]
fn memory_hog_is_contained() {
    for r in [true, false] {
        check_hostile("memory hog", "x = [1] * (10 ** 10)\nreturn 0.0", r);
    }
}

#[test]
fn endless_print_is_contained() {
    for r in [true, false] {
        check_hostile("endless print", "while True:\n    print('goat' * 1000)", r);
    }
}

#[test]
fn file_write_outside_the_run_does_not_land() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("pwned");
    let target_s = target.display().to_string();
    let tmp_target = format!("/tmp/cabrito-pwned-{}", std::process::id());
    let tree_target = format!("{}/cabrito-pwned-{}", env!("CARGO_TARGET_TMPDIR"), std::process::id());
    for path in [&target_s, &tree_target, &tmp_target] {
        let body = format!("open({path:?}, 'w').write('x')\nreturn 0.0");
        check_hostile("file write", &body, false);
    }
    assert!(!target.exists(), "the candidate wrote {target_s}");
    assert!(!std::path::Path::new(&tree_target).exists(), "the candidate wrote {tree_target}");
    if isolation().mount_namespace {
        assert!(!std::path::Path::new(&tmp_target).exists(), "the candidate wrote {tmp_target}");
    }
    let _ = std::fs::remove_file(&tmp_target);
}

#[test]
fn killing_the_grader_fails() {
    if !isolation().new_uid_per_run {
        eprintln!("SKIPPED with full builtins: runs share the grader's uid here ({})", isolation().describe());
        check_hostile("kill parent (whitelist)", "import os\nos.kill(os.getppid(), 9)\nreturn 0.0", true);
        return;
    }
    for r in [true, false] {
        check_hostile("kill parent", "import os\nos.kill(os.getppid(), 9)\nreturn 0.0", r);
    }
}

#[test]
fn no_network() {
    if !isolation().network_namespace {
        eprintln!("network is not isolated on this machine: {}", isolation().describe());
        return;
    }
    let v = check_hostile(
        "network",
        "import socket\ns = socket.create_connection(('1.1.1.1', 53), timeout=0.5)\nreturn 0.0",
        false,
    );
    assert!(
        v.functions.iter().any(|f| f
            .first_failure
            .as_ref()
            .is_some_and(|ff| ff.message.contains("OSError") || ff.message.contains("unreachable"))),
        "{}",
        v.message
    );
}

#[test]
fn hostile_default_argument_is_an_error() {
    let (gt, reference, victim) = task();
    let code = format!("{reference}\n\ndef {victim}(val: float, mult: float = __import__('os').kill(__import__('os').getppid(), 9)):\n    return val\n");
    let v = grade(&gt, &code, &opts(false), &|_, _| {});
    assert!(!v.passed);
    assert!(v.message.contains("loading") || v.message.contains("raised"), "{}", v.message);
}

#[test]
fn flooding_the_real_stdout_is_capped() {
    let v = check_hostile("fd 1 flood", "import os\nwhile True:\n    os.write(1, b'goat' * 4096)", false);
    assert!(v.candidate_stdout.len() <= Limits::default().output_cap, "{} bytes kept", v.candidate_stdout.len());
    assert!(v.candidate_stdout.starts_with("goat"), "the captured output is kept for diagnosis");
}

#[test]
fn a_malformed_float_on_the_result_channel_is_an_error() {
    // The candidate writes a result line of its own, its float field not 16 hex digits, then leaves.
    let body = r#"import os
os.write(3, b'{"k":"call","trial":0,"i":0,"value":{"t":"float","hex":"3ff0zz"}}\n')
os._exit(0)"#;
    let v = check_hostile("bad float hex", body, false);
    assert!(v.message.contains("UnreadableValue: float hex"), "{}", v.message);
}

#[test]
fn a_raised_cancel_flag_kills_the_runs_at_once() {
    let (gt, reference, victim) = task();
    let stubborn =
        "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass";
    let code = hostile(&reference, &victim, stubborn);
    let mut o = opts(true);
    // Without the flag this run would last the whole 60 s wall-clock limit.
    o.limits.wall_seconds = Some(60.0);
    o.harness.call_timeout = 60.0;
    let flag = cabrito_native::runner::CancelFlag::new();
    o.limits.cancel = flag.clone();
    let raiser = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(800));
        flag.cancel();
    });
    let start = Instant::now();
    let v = grade(&gt, &code, &o, &|_, _| {});
    let took = start.elapsed();
    raiser.join().unwrap();
    assert!(!v.passed);
    assert!(took < Duration::from_secs(10), "cancel took {took:?}");
}
