//! A bad spec on the command line names every problem it has, not only the first: random
//! combinations of bad spec flags on every command that takes them (generate, link, check, agent),
//! each bad flag named with its value, exit status 2, nothing written. The words are the share
//! links' (`cabrito_gen::mend`).
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use std::process::{Command, Output};

fn cabrito(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("the binary runs")
}

/// Bad values of the spec flags, each with what its message must quote.
const BAD: &[(&str, &str)] = &[
    ("kind", "nope"),
    ("domain", "nowhere"),
    ("axis", "sideways"),
    ("n", "-3"),
    ("n", "many"),
    ("n", "100000"),
    ("seed", "x"),
    ("seed", "-1"),
];

/// The commands that take the spec flags, each with what else it needs (`OUT` is a folder that must
/// stay unwritten).
fn commands(dir: &std::path::Path) -> Vec<Vec<String>> {
    let out = dir.join("out").to_string_lossy().into_owned();
    let sol = dir.join("solution.py");
    std::fs::write(&sol, "def f():\n    return 1\n").unwrap();
    let sol = sol.to_string_lossy().into_owned();
    [
        vec!["generate", "--out", &out],
        vec!["link"],
        vec!["check", "--solution", &sol],
        vec!["agent", "--strategy", "reader", "--out", &out],
    ]
    .into_iter()
    .map(|c| c.into_iter().map(str::to_string).collect())
    .collect()
}

fn check(command: &[String], bad: &[(&str, &str)], dir: &std::path::Path) -> Result<(), TestCaseError> {
    let mut args = command.to_vec();
    for (k, v) in bad {
        args.push(format!("--{k}"));
        args.push(v.to_string());
    }
    let o = cabrito(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    prop_assert_eq!(o.status.code(), Some(2), "{:?}: {}", args, err);
    for (k, v) in bad {
        // -3 and -1 are named by the clamped knob, as the share links do.
        let named = err.contains(&format!("'{v}'")) || err.contains(&format!("{k} = {v}"));
        prop_assert!(named, "{:?}: --{} {} not named in:\n{}", args, k, v, err);
    }
    if bad.len() > 1 {
        prop_assert!(err.contains(&format!("{} problems", bad.len())), "{:?}:\n{}", args, err);
        for (k, _) in bad {
            prop_assert!(err.contains(&format!("--{k}: ")), "{:?}: --{} not named in:\n{}", args, k, err);
        }
    }
    prop_assert!(!err.contains("panicked"), "{}", err);
    prop_assert!(!dir.join("out").exists(), "{:?} wrote its output", args);
    prop_assert!(o.stdout.is_empty(), "{:?} printed {}", args, String::from_utf8_lossy(&o.stdout));
    Ok(())
}

/// A non-empty set of bad flags, at most one value per flag.
fn bad_flags() -> impl Strategy<Value = Vec<(&'static str, &'static str)>> {
    proptest::sample::subsequence(BAD.to_vec(), 1..=5).prop_map(|mut v| {
        v.dedup_by_key(|(k, _)| *k);
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_bad_spec_flag_is_named(bad in bad_flags(), which in 0usize..4) {
        let dir = tempfile::tempdir().unwrap();
        let command = commands(dir.path()).swap_remove(which);
        check(&command, &bad, dir.path())?;
    }
}

#[test]
fn generate_names_an_unknown_kind_and_a_negative_n() {
    let dir = tempfile::tempdir().unwrap();
    let o = cabrito(&["generate", "--kind", "nope", "--n", "-3"].map(str::to_string));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("2 problems"), "{err}");
    assert!(err.contains("--kind: unknown kind 'nope'") && err.contains("add_parameter"), "{err}");
    assert!(err.contains("--n: n must be an integer from 1"), "{err}");
    assert!(err.contains("'-3'"), "{err}");
    // Each of the two alone reads as it did: one line, no count.
    let o = cabrito(&["generate", "--kind", "nope"].map(str::to_string));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!((o.status.code(), err.lines().count()), (Some(2), 1), "{err}");
    check(&commands(dir.path())[0], &[("kind", "nope"), ("n", "-3")], dir.path()).unwrap();
}

#[test]
fn grid_names_every_bad_flag() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = cabrito(
        &[
            "grid",
            "--out",
            out.to_str().unwrap(),
            "--kinds",
            "nope",
            "--axes",
            "sideways",
            "--samples",
            "0",
            "--seed",
            "x",
        ]
        .map(str::to_string),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for said in ["4 problems", "'nope'", "'sideways'", "--samples", "--seed"] {
        assert!(err.contains(said), "{said} not in {err}");
    }
    assert!(!out.exists());
}
