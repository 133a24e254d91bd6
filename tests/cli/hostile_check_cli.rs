//! `cabrito check` (the real binary) on every entry of the hostile corpus: it exits 1 with a reason,
//! and for a Python file CPython refuses, the reason names the line CPython names (see hostile_cpython.rs).
#![cfg(not(target_arch = "wasm32"))]

use crate::hostile;

use serde_json::Value;
use std::process::Command;
use std::time::Instant;

/// Exit status and the reason `cabrito check --json` gives: the response error, or the first failing
/// must-have item (with its line), or the one-line error on stderr.
fn check(file: &std::path::Path) -> (i32, String, f64) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args([
            "check",
            "--kind",
            "add_parameter",
            "--domain",
            "math",
            "--n",
            "5",
            "--seed",
            "1",
            "--json",
            "--solution",
        ])
        .arg(file)
        .output()
        .expect("cabrito runs");
    let secs = started.elapsed().as_secs_f64();
    let code = out.status.code().unwrap_or(-1);
    let reason = match serde_json::from_slice::<Value>(&out.stdout) {
        Ok(j) if j["response"]["ok"] == false => {
            format!("response line {}: {}", j["response"]["error"]["line"], j["response"]["error"]["message"])
        }
        Ok(j) => j["items"]
            .as_array()
            .and_then(|items| items.iter().find(|i| i["must_have"] == true && i["passed"] == false))
            .map(|i| format!("{} line {}: {}", i["id"], i["line"], i["reason"].as_str().unwrap_or("")))
            .unwrap_or_default(),
        Err(_) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
    };
    (code, reason, secs)
}

#[test]
fn check_exits_1_with_a_reason_for_every_hostile_input() {
    let dir = tempfile::tempdir().unwrap();
    let cases = hostile::corpus();
    let started = Instant::now();
    let results: Vec<(String, i32, String, f64)> = std::thread::scope(|s| {
        let chunks: Vec<&[hostile::Case]> = cases.chunks(cases.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let dir = dir.path();
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|c| {
                            let f = dir.join(format!("{}.txt", c.name));
                            std::fs::write(&f, &c.bytes).unwrap();
                            let (code, reason, secs) = check(&f);
                            (c.name.clone(), code, reason, secs)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut wrong = Vec::new();
    for (name, code, reason, secs) in &results {
        eprintln!("{name:32} exit {code}  {secs:5.2} s  {}", reason.chars().take(110).collect::<String>());
        // A reason is one line a person reads, however big the input.
        if *code != 1 || reason.is_empty() || reason.len() > 1000 {
            wrong.push(format!("{name}: exit {code}, reason {reason:?}"));
        }
    }
    eprintln!("{} inputs in {:.1} s", results.len(), started.elapsed().as_secs_f64());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // A file CPython refuses fails `compilation` at a line (or cannot be read, with its line).
    for (name, _, reason, _) in &results {
        let case = cases.iter().find(|c| &c.name == name).unwrap();
        if case.python && !case.compiles {
            assert!(reason.contains("line"), "{name}: {reason}");
        }
    }
}
