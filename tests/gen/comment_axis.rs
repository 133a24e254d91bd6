//! The comment-copying axis (issue 10, item 7): for every kind built along it, every domain and many
//! sizes and seeds, the reference carries the task's comment in exactly its edited functions and
//! passes the rubric, the starter fails `comment_copy`; mutants of the comment (one word changed, on
//! the same line as code, above the `def`, missing, extra or lost words, in an untouched function)
//! fail `comment_copy` alone, naming the first function and word, at the comment's line; the real
//! grader (CPython in the sandbox) passes the reference and fails the starter and the mutants.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::grade::{CheckOutcome, GradeTask, Verdict};
use cabrito_check::rubric::{static_checks, Rubric, TaskRef};
use cabrito_gen::axes::comment::word_list;
use cabrito_gen::{generate, Axis, Domain, Kind, Task, TaskSpec};
use cabrito_native::runner::{grade, GradeOptions};
use rayon::prelude::*;

/// The kinds built along the comment axis.
fn kinds() -> Vec<Kind> {
    Kind::ALL.iter().copied().filter(|k| k.def().axes().allows(&Axis::Comment)).collect()
}

fn task(kind: Kind, domain: Domain, n: u32, seed: u64) -> Task {
    generate(&TaskSpec::new(kind, domain, Axis::Comment, n, seed)).unwrap()
}

fn comment(t: &Task) -> String {
    t.metadata["comment"].as_str().expect("the record names its comment").to_string()
}

fn failed(r: &Rubric) -> Vec<String> {
    r.failed_must_haves().map(|i| format!("{}: {} (line {:?})", i.id, i.reason, i.line)).collect()
}

/// The 1-based lines of the reference's comment lines, with the function each is in.
fn comment_lines(t: &Task) -> Vec<(usize, String)> {
    let text = format!("    # {}", comment(t));
    let mut current = String::new();
    let mut out = Vec::new();
    for (i, l) in t.solution_code.lines().enumerate() {
        if let Some(rest) = l.strip_prefix("def ") {
            current = rest.split('(').next().unwrap().to_string();
        }
        if l == text {
            out.push((i + 1, current.clone()));
        }
    }
    out
}

fn replace_line(code: &str, line: usize, new: &str) -> String {
    let mut lines: Vec<String> = code.lines().map(str::to_string).collect();
    lines[line - 1] = new.to_string();
    lines.join("\n")
}

#[test]
fn dead_code_has_no_comment_axis() {
    let e = TaskSpec::from_pairs([("kind", "dead_code"), ("axis", "comment")]).unwrap_err();
    assert_eq!(e.key, "axis");
    assert!(e.message.contains("dead_code has no comment axis"), "{e}");
    assert!(e.message.contains("add_parameter"), "{e}");
    assert!(kinds().len() == 4, "{:?}", kinds());
}

#[test]
fn the_reference_carries_the_comment_exactly_where_it_edits() {
    let words = word_list();
    let mut n = 0;
    for kind in kinds() {
        for &domain in Domain::ALL {
            for (w, seed) in [(1u32, 0u64), (2, 1), (5, 2), (10, 3), (25, 4), (100, 5), (200, 6), (2000, 7)] {
                let t = task(kind, domain, w, seed);
                let what = format!("{kind} {domain} n={w} seed={seed}");
                let c = comment(&t);
                assert_eq!(c.split(' ').count(), w as usize, "{what}");
                assert!(c.split(' ').all(|x| words.contains(&x)), "{what}");
                assert_eq!(t.sizes.functions_to_edit, t.edit_set.len());
                assert_eq!((t.spec.sizes().n_init, t.spec.sizes().n_edit), (10, 10), "{what}");
                let carriers: Vec<String> = comment_lines(&t).into_iter().map(|(_, f)| f).collect();
                let mut sorted = carriers.clone();
                sorted.sort();
                assert_eq!(sorted, t.edit_set, "{what}: the comment is in exactly the edited functions");
                assert!(!t.starter_code.contains('#'), "{what}: the starter has no comment");
                assert!(t.prompt.contains(&format!("\n# {c}\n")), "{what}: the statement quotes the comment");
                // Without its comment lines the reference is the traversal-style reference of the same graph.
                let stripped: String = t
                    .solution_code
                    .lines()
                    .filter(|l| l.trim_start() != format!("# {c}"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let plain =
                    generate(&TaskSpec { n_init: Some(10), ..TaskSpec::new(kind, domain, Axis::Traversal, 10, seed) })
                        .unwrap();
                assert_eq!(stripped, plain.solution_code, "{what}");
                assert_eq!(t.starter_code, plain.starter_code, "{what}");
                assert_ne!(t.dag_id, plain.dag_id, "{what}: the id names the comment's length too");
                assert_eq!(t.graph, plain.graph, "{what}: one seed, one graph");
                let r = static_checks(&TaskRef::of(&t), &t.solution_code);
                assert!(r.passed() && r.items.iter().all(|i| i.passed), "{what}: {:?}", failed(&r));
                let s = static_checks(&TaskRef::of(&t), &t.starter_code);
                let cc = s.item("comment_copy").expect("on the comment axis");
                assert!(cc.must_have && !cc.passed, "{what}");
                assert!(cc.reason.contains("does not carry the comment"), "{what}: {}", cc.reason);
                n += 1;
            }
        }
    }
    assert_eq!(n, 4 * 3 * 8);
    // Other axes have no comment item.
    let t = generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 0)).unwrap();
    assert!(static_checks(&TaskRef::of(&t), &t.solution_code).item("comment_copy").is_none());
}

/// Mutants of the reference's comment: each fails `comment_copy` (and nothing else), naming the
/// function, at the right line.
#[test]
fn comment_mutants_fail_for_the_right_reason_and_line() {
    let mut checked = 0;
    for kind in kinds() {
        for &domain in Domain::ALL {
            for seed in 0..4u64 {
                let t = task(kind, domain, 4 + seed as u32 * 3, seed);
                let c = comment(&t);
                let words: Vec<&str> = c.split(' ').collect();
                let lines = comment_lines(&t);
                let (line, f) = lines[lines.len() / 2].clone();
                let what = format!("{kind} {domain} seed {seed} `{f}` line {line}");
                let k = words.len() - 1;
                let other = if words[k] == "zoo" { "abandon" } else { "zoo" };
                let mut changed = words.clone();
                changed[k] = other;
                let next_code = t.solution_code.lines().nth(line).unwrap().trim_start().to_string();
                let cases: Vec<(&str, String, usize, String)> = vec![
                    (
                        "one word changed",
                        replace_line(&t.solution_code, line, &format!("    # {}", changed.join(" "))),
                        line,
                        format!("`{f}`'s copy of the comment (line {line}) differs: word {} is `{other}`", k + 1),
                    ),
                    (
                        "on the same line as code",
                        replace_line(
                            &replace_line(&t.solution_code, line + 1, &format!("    {next_code}  # {c}")),
                            line,
                            "",
                        ),
                        line + 1,
                        format!("`{f}` has the comment on the same line as code (line {})", line + 1),
                    ),
                    (
                        "a word lost",
                        replace_line(&t.solution_code, line, &format!("    # {}", words[..k].join(" "))),
                        line,
                        format!("the copy stops after {k} words; word {} should be `{}`", k + 1, words[k]),
                    ),
                    (
                        "an extra word",
                        replace_line(&t.solution_code, line, &format!("    # {c} {other}")),
                        line,
                        format!("an extra word `{other}`"),
                    ),
                    (
                        "missing",
                        replace_line(&t.solution_code, line, "    pass"),
                        line - 1,
                        format!("`{f}` does not carry the comment"),
                    ),
                    (
                        "above the def",
                        replace_line(
                            &replace_line(&t.solution_code, line, &format!("    {}", "pass")),
                            line - 2,
                            &format!("# {c}"),
                        ),
                        line - 2,
                        format!("the comment above `{f}` (line {}) is outside the function", line - 2),
                    ),
                ];
                for (name, code, want_line, want) in cases {
                    let r = static_checks(&TaskRef::of(&t), &code);
                    let bad: Vec<&str> = r.failed_must_haves().map(|i| i.id.as_ref()).collect();
                    assert_eq!(bad, ["comment_copy"], "{what} {name}: {:?}\n{code}", failed(&r));
                    let item = r.item("comment_copy").unwrap();
                    assert_eq!(item.line, Some(want_line), "{what} {name}: {}", item.reason);
                    assert!(item.reason.contains(&want), "{what} {name}: {} lacks {want}", item.reason);
                    checked += 1;
                }
                // In an untouched function: the comment marks a function not to change.
                let untouched = t.roles.iter().find(|(_, r)| !r.is_edited()).map(|(n, _)| n.clone()).unwrap();
                let def = format!("def {untouched}(");
                let at = t.solution_code.lines().position(|l| l.starts_with(&def)).unwrap() + 1;
                let mut lines_v: Vec<String> = t.solution_code.lines().map(str::to_string).collect();
                lines_v.insert(at, format!("    # {c}"));
                let code = lines_v.join("\n");
                let r = static_checks(&TaskRef::of(&t), &code);
                let item = r.item("comment_copy").unwrap();
                assert!(
                    !item.passed && item.reason.contains(&format!("`{untouched}` carries the comment")),
                    "{what}: {}",
                    item.reason
                );
                assert_eq!(item.line, Some(at + 1));
                // Two functions wrong: the first in the file is named, the other counted.
                let (l1, f1) = lines[0].clone();
                let (l2, _) = lines[lines.len() - 1].clone();
                if l1 != l2 {
                    let code = replace_line(&replace_line(&t.solution_code, l2, "    # nothing"), l1, "    # nothing");
                    let item = static_checks(&TaskRef::of(&t), &code).item("comment_copy").unwrap().clone();
                    assert_eq!(item.line, Some(l1), "{what}");
                    assert!(
                        item.reason.contains(&format!("`{f1}`")) && item.reason.contains("(and 1 more)"),
                        "{}",
                        item.reason
                    );
                }
            }
        }
    }
    assert_eq!(checked, 4 * 3 * 4 * 6);
}

fn opts() -> GradeOptions {
    GradeOptions { trials: 4, ..Default::default() }
}

fn run(t: &Task, code: &str) -> Verdict {
    grade(&GradeTask::from_task(t), code, &opts(), &|_, _| {})
}

fn outcome(v: &Verdict, kind: &str) -> Option<CheckOutcome> {
    v.checks.iter().find(|c| c.kind == kind).map(|c| c.outcome)
}

/// The real grader: the reference scores 1; the starter 0; a reference whose comment lost a word
/// behaves like the reference but scores 0 on `comment_copy`.
#[test]
fn the_grader_requires_the_comment() {
    let mut cases = Vec::new();
    for kind in kinds() {
        for &domain in Domain::ALL {
            for (n, seed) in [(3u32, 1u64), (25, 2)] {
                cases.push((kind, domain, n, seed));
            }
        }
    }
    let failures: Vec<String> = cases
        .par_iter()
        .flat_map(|&(kind, domain, n, seed)| {
            let t = task(kind, domain, n, seed);
            let what = format!("{kind} {domain} n={n} seed={seed}");
            let mut bad = Vec::new();
            let v = run(&t, &t.solution_code);
            if !v.passed || outcome(&v, "comment_copy") != Some(CheckOutcome::Pass) {
                bad.push(format!("{what}: the reference fails: {}", v.message));
            }
            let s = run(&t, &t.starter_code);
            if s.passed || outcome(&s, "comment_copy") != Some(CheckOutcome::Fail) {
                bad.push(format!("{what}: the starter: {} {:?}", s.message, outcome(&s, "comment_copy")));
            }
            let (line, _) = comment_lines(&t)[0].clone();
            let c = comment(&t);
            let short: Vec<&str> = c.split(' ').collect();
            let code = replace_line(&t.solution_code, line, &format!("    # {} x", short.join(" ")));
            let m = run(&t, &code);
            if m.passed
                || outcome(&m, "behavioral") != Some(CheckOutcome::Pass)
                || outcome(&m, "comment_copy") != Some(CheckOutcome::Fail)
                || !m.message.starts_with("comment_copy: ")
            {
                bad.push(format!("{what}: the mutant: {} {:?}", m.message, m.checks));
            }
            bad
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
