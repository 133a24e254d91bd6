//! Response reading against generated tasks: the reference solution given as a file block, a bare
//! file, and a unified diff (with and without line numbers) reads back to exactly the reference.

use cabrito_check::response::{parse_response, Format, MAX_RESPONSE_BYTES};
use cabrito_check::rubric::{static_checks, TaskRef};
use cabrito_gen::spec::Support;
use cabrito_gen::{generate, Axis, Domain, Kind, TaskSpec};
use similar::TextDiff;

fn unified(starter: &str, reference: &str, radius: usize) -> String {
    TextDiff::from_lines(starter, reference)
        .unified_diff()
        .context_radius(radius)
        .header("a/solution.py", "b/solution.py")
        .to_string()
}

/// The same diff with every `@@ -a,b +c,d @@` header replaced by `@@ ... @@`.
fn without_numbers(diff: &str) -> String {
    diff.lines().map(|l| if l.starts_with("@@") { "@@ ... @@" } else { l }).collect::<Vec<_>>().join("\n")
}

fn specs() -> Vec<TaskSpec> {
    let mut out = Vec::new();
    for &kind in Kind::ALL {
        // A knob that does not apply to the kind (merge's domain and axis) keeps its default.
        let domains = match kind.def().domains() {
            Support::Only(_) => Domain::ALL,
            Support::NotApplicable => &[Domain::Math][..],
        };
        let axes = match kind.def().axes() {
            Support::Only(_) => Axis::ALL,
            Support::NotApplicable => &[Axis::Traversal][..],
        };
        for &domain in domains {
            for &axis in axes {
                for (i, n) in [2u32, 5, 10, 25, 50].into_iter().enumerate() {
                    for seed in [1u64, 7, 1000 + i as u64] {
                        let spec = TaskSpec::new(kind, domain, axis, n, seed);
                        if spec.validate().is_ok() {
                            out.push(spec);
                        }
                    }
                }
            }
        }
    }
    out.retain(|s| s.validate().is_ok());
    out
}

#[test]
fn reference_round_trips_in_every_format() {
    let mut checked = 0;
    for spec in specs() {
        let t = generate(&spec).expect("spec is valid");
        let (starter, reference) = (&t.starter_code, &t.solution_code);
        let what = format!("{spec:?}");

        let block = format!("<solution>\n# === solution.py ===\n```python\n{reference}\n```\n</solution>");
        let c = parse_response(&block, starter).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(c.format, Format::FileBlock);
        assert_eq!(c.code.trim_end(), reference.trim_end(), "{what}");

        let c = parse_response(reference, starter).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(c.format, Format::Bare);
        assert_eq!(c.code.trim_end(), reference.trim_end(), "{what}");

        let diff = unified(starter, reference, 3);
        let c = parse_response(&diff, starter).unwrap_or_else(|e| panic!("{what}: {e}\n{diff}"));
        assert_eq!(c.format, Format::Diff);
        assert_eq!(&c.code, reference, "{what}: numbered diff");

        let fenced = format!("Here is the patch.\n```diff\n{}\n```\n", without_numbers(&diff));
        let c = parse_response(&fenced, starter).unwrap_or_else(|e| panic!("{what}: {e}\n{fenced}"));
        assert_eq!(c.format, Format::Diff);
        assert_eq!(&c.code, reference, "{what}: diff without numbers");
        let task = TaskRef::of(&t);
        assert!(static_checks(&task, &c.code).passed(), "{what}: the diffed reference fails the rubric");
        checked += 1;
    }
    assert!(checked > 100);
}

#[test]
fn diff_with_shifted_numbers_still_applies_once() {
    let t = generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 10, 3)).unwrap();
    let diff = unified(&t.starter_code, &t.solution_code, 3);
    // Shift every old start by 2 lines, as a model that miscounted would.
    let shifted: Vec<String> = diff
        .lines()
        .map(|l| {
            if let Some(rest) = l.strip_prefix("@@ -") {
                let (start, tail) = rest.split_once(',').unwrap_or((rest, ""));
                let n: usize = start.split_whitespace().next().unwrap().parse().unwrap();
                format!("@@ -{},{tail}", n + 2)
            } else {
                l.to_string()
            }
        })
        .collect();
    let c = parse_response(&shifted.join("\n"), &t.starter_code).unwrap();
    assert_eq!(c.code, t.solution_code);
    assert!(c.notes.iter().any(|n| n.contains("applied there")), "{:?}", c.notes);
}

#[test]
fn diff_with_wrong_context_names_the_line() {
    let t = generate(&TaskSpec::new(Kind::CacheFunction, Domain::String, Axis::Traversal, 10, 5)).unwrap();
    let diff = unified(&t.starter_code, &t.solution_code, 3);
    // Corrupt the first context line of the first hunk.
    let mut lines: Vec<String> = diff.lines().map(str::to_string).collect();
    let i = lines.iter().position(|l| l.starts_with(' ')).unwrap();
    lines[i] = " def this_function_is_not_there(val: str) -> str:".into();
    let e = parse_response(&lines.join("\n"), &t.starter_code).unwrap_err();
    assert_eq!(e.line, Some(i + 1), "{e}");
    assert!(e.to_string().starts_with(&format!("line {}:", i + 1)), "{e}");
}

#[test]
fn hostile_sizes_and_bytes() {
    let huge = "x = 1\n".repeat(50 * 1024 * 1024 / 6);
    let e = parse_response(&huge, "").unwrap_err();
    assert!(e.message.contains("2 MB"), "{e}");
    let just_under = "#".repeat(MAX_RESPONSE_BYTES);
    assert!(parse_response(&just_under, "").is_ok());
    let e = parse_response("x = 1\ny = 2\n\0\0\0binary", "").unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(parse_response("", "").is_err());
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    const STARTER: &str =
        "import math\n\ndef f(val: float) -> float:\n    return abs(val)\n\ndef main(val: float):\n    return f(val)\n";

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn random_text(s in "(?s).{0,400}") {
            let _ = parse_response(&s, STARTER);
        }

        #[test]
        fn random_diffish(lines in proptest::collection::vec(
            prop_oneof![
                Just("--- solution.py".to_string()), Just("+++ solution.py".to_string()),
                Just("@@ ... @@".to_string()), Just("@@ -3,2 +3,2 @@".to_string()), Just("@@ -0,0 +1 @@".to_string()),
                Just("@@ -99,1 +1,0 @@".to_string()),
                Just(" def f(val: float) -> float:".to_string()), Just("-    return abs(val)".to_string()),
                Just("+    return 1.0".to_string()), Just("".to_string()), Just("```".to_string()),
                Just("# === solution.py ===".to_string()), Just("<solution>".to_string()), Just("\\ No newline".to_string()),
                "[ -+@#`a-z]{0,12}",
            ], 0..30)) {
            let _ = parse_response(&lines.join("\n"), STARTER);
        }
    }
}

mod diff_round_trip {
    use super::*;
    use proptest::prelude::*;

    /// Files made of a few repeated lines, so hunks have ambiguous context and files may lack a final newline.
    fn file() -> impl Strategy<Value = String> {
        (
            proptest::collection::vec(
                prop_oneof![Just("a"), Just("b"), Just("    c = 1"), Just(""), Just("def f(x):")],
                0..25,
            ),
            any::<bool>(),
        )
            .prop_map(|(lines, newline)| {
                let mut s = lines.join("\n");
                if newline && !s.is_empty() {
                    s.push('\n');
                }
                s
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// A numbered unified diff always applies, and gives the new file exactly (the new file ending in a
        /// newline, as Python source does).
        #[test]
        fn numbered_diffs_apply_exactly(old in file(), new in file(), radius in 0usize..4) {
            let new = if new.is_empty() || new.ends_with('\n') { new } else { format!("{new}\n") };
            prop_assume!(old != new);
            let diff = unified(&old, &new, radius);
            match parse_response(&diff, &old) {
                Ok(c) => prop_assert_eq!(c.code, new, "diff:\n{}", diff),
                Err(e) => prop_assert!(false, "{} for diff:\n{}\nof:\n{:?}", e, diff, old),
            }
        }

        /// Without numbers, a diff either applies to exactly the new file or says why it cannot be placed.
        #[test]
        fn unnumbered_diffs_apply_exactly_or_explain(old in file(), new in file()) {
            let new = if new.is_empty() || new.ends_with('\n') { new } else { format!("{new}\n") };
            prop_assume!(old != new);
            let diff = without_numbers(&unified(&old, &new, 3));
            match parse_response(&diff, &old) {
                Ok(c) => prop_assert_eq!(c.code, new, "diff:\n{}", diff),
                Err(e) => prop_assert!(e.line.is_some(), "{}", e),
            }
        }
    }
}
