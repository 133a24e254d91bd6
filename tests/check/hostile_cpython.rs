//! The `compilation` item agrees with CPython 3.11 on every Python file of the hostile corpus: the same
//! verdict, and the same line whenever CPython names one. CPython runs as `python3` (3.11 required).
#![cfg(not(target_arch = "wasm32"))]

use crate::hostile;

use cabrito_check::program::Program;
use cabrito_check::rubric::{static_checks, TaskRef};
use cabrito_check::source::decode;
use std::collections::HashMap;
use std::time::Instant;

#[test]
fn compilation_agrees_with_cpython_on_the_corpus() {
    let t = cabrito_gen::generate(&cabrito_gen::TaskSpec::new(
        cabrito_gen::Kind::AddParameter,
        cabrito_gen::Domain::Math,
        cabrito_gen::Axis::Traversal,
        5,
        1,
    ))
    .unwrap();
    let task = TaskRef::of(&t);
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<hostile::Case> = hostile::corpus().into_iter().filter(|c| c.python).collect();
    let files: Vec<String> = cases.iter().map(|c| format!("{}.py", c.name)).collect();
    for (c, f) in cases.iter().zip(&files) {
        std::fs::write(dir.path().join(f), &c.bytes).unwrap();
    }
    let started = Instant::now();
    let paths: Vec<std::path::PathBuf> = files.iter().map(|f| dir.path().join(f)).collect();
    let theirs: HashMap<String, hostile::CpythonVerdict> =
        files.iter().cloned().zip(hostile::cpython(&paths)).collect();
    eprintln!("CPython compiled {} files in {:.2} s", files.len(), started.elapsed().as_secs_f64());
    let mut wrong = Vec::new();
    for (c, f) in cases.iter().zip(&files) {
        let started = Instant::now();
        // As `cabrito check` reads a file: decode the bytes, then the rubric's compilation item.
        let ours: Result<(), (usize, String)> = match decode(&c.bytes) {
            Err(e) => Err((e.line, e.message)),
            Ok(d) => {
                let item = static_checks(&task, &d.text).items.into_iter().find(|i| i.id == "compilation").unwrap();
                // The grader's reading of the same text says the same.
                assert_eq!(Program::parse(&d.text).is_ok(), item.passed, "{}", c.name);
                if item.passed {
                    Ok(())
                } else {
                    Err((item.line.unwrap_or(0), item.reason))
                }
            }
        };
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let (ok, line, error) = theirs.get(f).cloned().unwrap_or_else(|| panic!("no CPython verdict for {f}"));
        eprintln!(
            "{:32} {:>9} bytes {:>8.1} ms  CPython {:5} line {:>5}  ours {}",
            c.name,
            c.bytes.len(),
            ms,
            ok,
            line.map(|l| l.to_string()).unwrap_or_else(|| "-".into()),
            match &ours {
                Ok(()) => "compiles".to_string(),
                Err((l, m)) => format!("line {l}: {}", m.chars().take(90).collect::<String>()),
            }
        );
        if ok != c.compiles {
            wrong.push(format!("{}: the corpus says compiles={} but CPython says {ok} ({error})", c.name, c.compiles));
        }
        match (&ours, ok) {
            (Ok(()), true) => {}
            (Err((l, _)), false) => {
                if let Some(theirs) = line.filter(|&l| l > 0) {
                    if *l as u64 != theirs {
                        wrong.push(format!("{}: CPython names line {theirs}, Cabrito line {l} ({error})", c.name));
                    }
                }
            }
            (Ok(()), false) => wrong.push(format!("{}: CPython refuses it ({error}), Cabrito accepts it", c.name)),
            (Err((l, m)), true) => {
                wrong.push(format!("{}: CPython compiles it, Cabrito refuses it: line {l}: {m}", c.name))
            }
        }
    }
    assert!(wrong.is_empty(), "disagreements with CPython 3.11:\n{}", wrong.join("\n"));
}
