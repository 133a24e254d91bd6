//! The variable_renaming kind (issue 10, item 8): over many seeds, chain lengths and rename counts,
//! the chain has the promised shape, the renames are fresh names of chain variables, starter and
//! reference agree under CPython, the reference passes the rubric and the grader and the starter
//! fails `renames`; mutants (one use not renamed, the definition not renamed, an extra name renamed,
//! a capture, a wrong new name, a changed constant) fail `renames` at the right line; usage errors
//! name what is allowed.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::grade::{CheckOutcome, GradeTask, Verdict};
use cabrito_check::rubric::{static_checks, TaskRef};
use cabrito_gen::{generate, Kind, Task, TaskSpec};
use cabrito_native::runner::{grade, GradeOptions};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};

fn spec(n: u32, chain: u32, seed: u64) -> TaskSpec {
    TaskSpec::from_pairs([
        ("kind", "variable_renaming".to_string()),
        ("n", n.to_string()),
        ("chain", chain.to_string()),
        ("seed", seed.to_string()),
    ])
    .unwrap()
}

fn renames(t: &Task) -> Vec<(String, String)> {
    t.metadata["renames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
        .collect()
}

/// The assignment lines of main(): (line number, target, expression).
fn chain_lines(code: &str) -> Vec<(usize, String, String)> {
    code.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let l = l.strip_prefix("    ")?;
            let (t, e) = l.split_once(" = ")?;
            Some((i + 1, t.to_string(), e.to_string()))
        })
        .collect()
}

fn sizes() -> Vec<(u32, u32, u64)> {
    let mut out = Vec::new();
    for (chain, ns) in
        [(2u32, vec![1u32, 2]), (10, vec![1, 5, 10]), (200, vec![1, 5, 25, 100, 200]), (400, vec![50, 400])]
    {
        for n in ns {
            for seed in 0..3u64 {
                out.push((n, chain, seed * 31 + n as u64));
            }
        }
    }
    out.push((10, 2000, 1));
    out
}

#[test]
fn the_chain_and_the_renames_are_as_promised() {
    for (n, chain, seed) in sizes() {
        let t = generate(&spec(n, chain, seed)).unwrap();
        let what = format!("n={n} chain={chain} seed={seed}");
        let lines = chain_lines(&t.starter_code);
        assert_eq!(lines.len(), chain as usize, "{what}");
        let mut defined: BTreeSet<String> = BTreeSet::from(["val".to_string()]);
        for (_, target, expr) in &lines {
            assert!(target.len() <= 3 && target.bytes().all(|b| b.is_ascii_lowercase()), "{what}: {target}");
            assert!(defined.insert(target.clone()), "{what}: {target} is defined twice");
            let parts: Vec<&str> = expr.split(' ').collect();
            assert_eq!(parts.len(), 3, "{what}: {expr}");
            assert!(parts[1] == "+" || parts[1] == "-", "{what}: {expr}");
            for p in [parts[0], parts[2]] {
                let ok = defined.contains(p) || p.parse::<u32>().is_ok_and(|k| (1..=9).contains(&k));
                assert!(ok, "{what}: {expr} uses {p} before it is defined");
            }
        }
        let last = &lines.last().unwrap().1;
        assert!(t.starter_code.contains(&format!("\n    return {last}\n")), "{what}");
        let r = renames(&t);
        assert_eq!(r.len(), n as usize, "{what}");
        let olds: BTreeSet<&String> = r.iter().map(|x| &x.0).collect();
        let news: BTreeSet<&String> = r.iter().map(|x| &x.1).collect();
        assert_eq!((olds.len(), news.len()), (r.len(), r.len()), "{what}");
        for (old, new) in &r {
            assert!(defined.contains(old) && !defined.contains(new), "{what}: {old} → {new}");
            assert!(t.prompt.contains(&format!("- `{old}` → `{new}`")), "{what}");
        }
        // The reference is the starter with the renames applied to whole names.
        let table: std::collections::BTreeMap<&str, &str> = r.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let renamed: String = t
            .starter_code
            .lines()
            .map(|l| {
                cabrito_gen::kinds::variable_renaming::split_line(l, &table)
                    .into_iter()
                    .map(|(text, new)| new.unwrap_or(text))
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(renamed, t.solution_code, "{what}");
        assert_eq!(t.sizes.functions, 1);
        assert_eq!(t.edit_set, ["main"]);
        // One seed, one chain, whatever n.
        assert_eq!(generate(&spec(1, chain, seed)).unwrap().starter_code, t.starter_code, "{what}");
        let rubric = static_checks(&TaskRef::of(&t), &t.solution_code);
        assert!(rubric.passed() && rubric.items.iter().all(|i| i.passed), "{what}: {:?}", rubric.items);
        assert!(rubric.item("main_unchanged").is_none(), "{what}: main() is the function to change");
        let s = static_checks(&TaskRef::of(&t), &t.starter_code);
        let item = s.item("renames").unwrap();
        assert!(item.must_have && !item.passed, "{what}");
        assert!(item.reason.contains("is not renamed here"), "{what}: {}", item.reason);
        assert_eq!(s.failed_must_haves().count(), 1, "{what}: {:?}", s.items);
    }
}

#[test]
fn usage_errors_name_what_is_allowed() {
    let e = TaskSpec::from_pairs([("kind", "variable_renaming"), ("domain", "string")]).unwrap_err();
    assert_eq!(e.message, "variable_renaming is not built for the string domain; domain must be one of math");
    let e = TaskSpec::from_pairs([("kind", "variable_renaming"), ("n", "201")]).unwrap_err();
    assert_eq!(e.key, "n");
    assert!(e.message.contains("n must be an integer from 1 to 200"), "{e}");
    let e = TaskSpec::from_pairs([("kind", "variable_renaming"), ("n", "30"), ("chain", "20")]).unwrap_err();
    assert!(e.message.contains("from 1 to 20"), "{e}");
    let e = TaskSpec::from_pairs([("kind", "variable_renaming"), ("chain", "1")]).unwrap_err();
    assert!(e.message.contains("chain must be an integer from 2 to 2000"), "{e}");
    let e = TaskSpec::from_pairs([("kind", "variable_renaming"), ("axis", "search")]).unwrap_err();
    assert!(e.message.contains("'axis' does not apply to variable_renaming"), "{e}");
    let e = TaskSpec::from_pairs([("kind", "variable_renaming"), ("n_init", "5")]).unwrap_err();
    assert!(e.message.contains("does not apply"), "{e}");
    let e = TaskSpec::from_pairs([("chain", "50")]).unwrap_err();
    assert_eq!(e.message, "'chain' does not apply to add_parameter; leave it out (got '50')");
    // Links carry the chain only when it is not the default.
    let s = spec(7, 200, 3);
    assert_eq!(s.to_query(), "v=1&kind=variable_renaming&n=7&seed=3");
    assert_eq!(spec(7, 50, 3).to_query(), "v=1&kind=variable_renaming&n=7&seed=3&chain=50");
    assert_eq!(TaskSpec::from_pairs(s.to_query().split('&').map(|p| p.split_once('=').unwrap())).unwrap(), s);
    assert_eq!(s.canonical(), "v=1&kind=variable_renaming&domain=math&n=7&seed=3&chain=200");
}

/// Apply a change to one line of the reference.
fn edit_line(code: &str, line: usize, f: impl Fn(&str) -> String) -> String {
    code.lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == line { f(l) } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Replace whole-name occurrences of `from` by `to` in one line (or every line when `line` is None).
fn rename_in(code: &str, line: Option<usize>, from: &str, to: &str) -> String {
    let table: std::collections::BTreeMap<&str, &str> = [(from, to)].into_iter().collect();
    code.lines()
        .enumerate()
        .map(|(i, l)| {
            if line.is_some_and(|x| x != i + 1) {
                return l.to_string();
            }
            cabrito_gen::kinds::variable_renaming::split_line(l, &table)
                .into_iter()
                .map(|(text, new)| new.unwrap_or(text))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn mutants_fail_renames_at_the_right_line() {
    let mut checked = 0;
    for seed in 0..12u64 {
        let t = generate(&spec(5, 30 + seed as u32, seed)).unwrap();
        let code = &t.solution_code;
        let r = renames(&t);
        let lines = chain_lines(code);
        // A renamed variable with a later use.
        let (old, new) = r
            .iter()
            .find(|(_, new)| {
                lines.iter().filter(|(_, _, e)| e.split(' ').any(|w| w == new)).count() > 0
                    || code.contains(&format!("return {new}"))
            })
            .unwrap()
            .clone();
        let def_line = lines.iter().find(|(_, tgt, _)| *tgt == new).unwrap().0;
        let use_line = code
            .lines()
            .enumerate()
            .filter(|(i, l)| i + 1 > def_line && l.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w == new))
            .map(|(i, _)| i + 1)
            .next()
            .unwrap();
        // An unrenamed variable, and another one.
        let renamed: BTreeSet<&str> = r.iter().map(|x| x.1.as_str()).collect();
        let keep: Vec<&(usize, String, String)> =
            lines.iter().filter(|(_, tgt, _)| !renamed.contains(tgt.as_str())).collect();
        let (kline, kname) = (keep[0].0, keep[0].1.clone());
        let other = keep[1].1.clone();
        let cases: Vec<(&str, String, usize, String)> = vec![
            (
                "one use not renamed",
                rename_in(code, Some(use_line), &new, &old),
                use_line,
                format!("`{old}` is not renamed here"),
            ),
            (
                "the definition not renamed",
                rename_in(code, Some(def_line), &new, &old),
                def_line,
                format!("`{old}` is not renamed here"),
            ),
            (
                "an extra name renamed",
                rename_in(code, None, &kname, "qqq"),
                kline,
                format!("`{kname}` was renamed to `qqq`; only the listed variables change names"),
            ),
            (
                "a capture",
                rename_in(code, None, &kname, &other),
                kline,
                format!("`{kname}` became `{other}`, the name `{other}` now has"),
            ),
            (
                "a wrong new name",
                rename_in(code, None, &new, "zzz"),
                def_line,
                format!("`{old}` became `zzz`; it must become `{new}`"),
            ),
            (
                "a changed constant",
                edit_line(code, lines[0].0, |l| format!("{} + 0", l)),
                lines[0].0,
                "is not the starter's statement with names changed".to_string(),
            ),
        ];
        for (name, mutated, line, want) in cases {
            let rb = static_checks(&TaskRef::of(&t), &mutated);
            let item = rb.item("renames").unwrap();
            let what = format!("seed {seed} {name}");
            assert!(!item.passed, "{what}\n{mutated}");
            assert_eq!(item.line, Some(line), "{what}: {}", item.reason);
            assert!(item.reason.contains(&want), "{what}: `{}` lacks `{want}`", item.reason);
            checked += 1;
        }
    }
    assert_eq!(checked, 12 * 6);
}

fn run(t: &Task, code: &str) -> Verdict {
    grade(&GradeTask::from_task(t), code, &GradeOptions { trials: 5, ..Default::default() }, &|_, _| {})
}

fn outcome(v: &Verdict, kind: &str) -> Option<CheckOutcome> {
    v.checks.iter().find(|c| c.kind == kind).map(|c| c.outcome)
}

/// The real grader (CPython in the sandbox): main() itself is called; the reference passes, the
/// starter behaves the same but fails `renames`, an unrenamed use raises and fails both.
#[test]
fn the_grader_tests_main_and_requires_the_renames() {
    let failures: Vec<String> = sizes()
        .par_iter()
        .filter(|(_, chain, _)| *chain <= 400)
        .flat_map(|&(n, chain, seed)| {
            let t = generate(&spec(n, chain, seed)).unwrap();
            let what = format!("n={n} chain={chain} seed={seed}");
            let mut bad = Vec::new();
            let v = run(&t, &t.solution_code);
            let tested: Vec<&str> = v.functions.iter().map(|f| f.name.as_str()).collect();
            if !v.passed || tested != ["main"] || v.functions[0].passed != 5 {
                bad.push(format!("{what}: the reference: {} {:?}", v.message, v.functions));
            }
            let s = run(&t, &t.starter_code);
            if s.passed
                || outcome(&s, "behavioral") != Some(CheckOutcome::Pass)
                || outcome(&s, "renames") != Some(CheckOutcome::Fail)
            {
                bad.push(format!("{what}: the starter: {} {:?}", s.message, s.checks));
            }
            let (old, new) = renames(&t)[0].clone();
            let ret = t.solution_code.replacen(&format!("return {new}\n"), &format!("return {old}\n"), 1);
            if ret != t.solution_code {
                let m = run(&t, &ret);
                if m.passed
                    || outcome(&m, "behavioral") == Some(CheckOutcome::Pass)
                    || outcome(&m, "renames") != Some(CheckOutcome::Fail)
                {
                    bad.push(format!("{what}: the unrenamed return: {} {:?}", m.message, m.checks));
                }
            }
            bad
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(Kind::VariableRenaming.def().required_checks(), ["behavioral", "renames"]);
}

/// CPython runs starter and reference of many tasks on the same inputs: same results.
#[test]
fn cpython_runs_starter_and_reference_alike() {
    let mut cases = Vec::new();
    for (i, (n, chain, seed)) in sizes().into_iter().enumerate() {
        let t = generate(&spec(n, chain, seed)).unwrap();
        cases.push(json!({
            "id": i, "kind": "variable_renaming", "domain": "math",
            "starter": t.starter_code, "reference": t.solution_code,
            "stubs": "", "strops": "", "inputs": [0.5, -0.25, 0.0, 7.25, -1.0, 1e-3],
        }));
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/run_programs.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs");
    let payload = serde_json::to_vec(&cases).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&payload));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success());
    let results: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(results.len(), cases.len());
    for r in &results {
        let (st, re) = (&r["starter"], &r["reference"]);
        assert_eq!(st, re, "case {}", r["id"]);
        assert!(st.as_array().unwrap().iter().all(|o| o[0] == "ok"), "case {}: {st}", r["id"]);
    }
}
