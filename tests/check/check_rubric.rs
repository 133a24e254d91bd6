//! The static rubric on generated tasks: for every registered kind, on every domain and axis it is built
//! for, over several seeds and sizes, the reference passes every item and the starter fails one of the
//! kind's own must-haves. The registry is iterated, so a new kind is covered as soon as it is registered.

use cabrito_check::rubric::{static_checks, Level, Rubric, TaskRef, CHECKS};
use cabrito_gen::spec::Support;
use cabrito_gen::{generate, Axis, Domain, Kind, Task, TaskSpec};

fn task_ref(t: &Task) -> TaskRef<'_> {
    TaskRef::of(t)
}

fn show(r: &Rubric) -> String {
    r.items
        .iter()
        .map(|i| {
            format!(
                "{} {} {} [{}] line {:?}: {}",
                if i.passed { "✓" } else { "✗" },
                if i.must_have { "must" } else { "nice" },
                i.id,
                i.title,
                i.line,
                i.reason
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The domains and axes a kind is built for (the default one when the knob does not apply).
fn combos(kind: Kind) -> (Vec<Domain>, Vec<Axis>) {
    let def = kind.def();
    let base = TaskSpec::default();
    let domains = match def.domains() {
        Support::Only(d) => d.to_vec(),
        Support::NotApplicable => vec![base.domain],
    };
    let axes = match def.axes() {
        Support::Only(a) => a.to_vec(),
        Support::NotApplicable => vec![base.axis],
    };
    (domains, axes)
}

/// Every registered kind × every domain and axis it is built for × sizes from its smallest up × seeds.
fn specs() -> Vec<TaskSpec> {
    let mut out = Vec::new();
    for &kind in Kind::ALL {
        let (domains, axes) = combos(kind);
        for &domain in &domains {
            for &axis in &axes {
                for (i, n) in [2u32, 3, 5, 10, 25, 50].into_iter().enumerate() {
                    for seed in [0u64, 11, 4242 + i as u64] {
                        let spec = TaskSpec::new(kind, domain, axis, n, seed);
                        // Sizes a kind cannot be built at are an error, tested elsewhere.
                        if spec.validate().is_ok() {
                            out.push(spec);
                        }
                    }
                }
                for n in [100u32, 200] {
                    out.push(TaskSpec::new(kind, domain, axis, n, 5));
                }
            }
        }
    }
    out
}

#[test]
fn every_kind_lists_rubric_items_that_exist() {
    for &kind in Kind::ALL {
        for (id, _) in kind.def().rubric() {
            assert!(CHECKS.iter().any(|c| c.id == *id), "{kind} lists an unknown rubric item {id}");
        }
        assert!(kind.def().rubric().iter().any(|(_, l)| *l == Level::Must), "{kind}: no must-have of its own");
    }
}

#[test]
fn reference_passes_and_starter_fails_everywhere() {
    let mut n = 0;
    let mut covered = std::collections::BTreeSet::new();
    for spec in specs() {
        let t = generate(&spec).unwrap();
        let task = task_ref(&t);
        let r = static_checks(&task, &t.solution_code);
        assert!(r.passed(), "{spec:?}: the reference fails\n{}", show(&r));
        assert!(r.items.iter().all(|i| i.passed), "{spec:?}: the reference fails a nice-to-have\n{}", show(&r));
        let s = static_checks(&task, &t.starter_code);
        assert!(!s.passed());
        // The starter fails one of the must-haves the kind itself adds to the rubric.
        let own: Vec<&str> =
            spec.kind.def().rubric().iter().filter(|(_, l)| *l == Level::Must).map(|(id, _)| *id).collect();
        assert!(
            s.failed_must_haves().any(|i| own.contains(&i.id.as_ref())),
            "{spec:?}: the starter fails none of {own:?}\n{}",
            show(&s)
        );
        if let Some(e) = s.item("edit_path") {
            assert!(!e.passed, "{spec:?}");
        }
        covered.insert((spec.kind, spec.domain, spec.axis));
        n += 1;
    }
    assert!(n > 300);
    let combos: usize = Kind::ALL
        .iter()
        .map(|&k| {
            let (d, a) = combos(k);
            d.len() * a.len()
        })
        .sum();
    assert_eq!(covered.len(), combos, "every kind × domain × axis it is built for");
}

#[test]
fn huge_and_binary_candidates() {
    let t = generate(&TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Traversal, 5, 1)).unwrap();
    let huge = "x = 1\n".repeat(50 * 1024 * 1024 / 6);
    let r = static_checks(&task_ref(&t), &huge);
    let c = r.item("compilation").unwrap();
    assert!(!c.passed && c.reason.contains("2 MB"), "{}", c.reason);
    assert_eq!(r.reference_type("compilation"), Some("error"));
    assert_eq!(r.reference_type("function_existence"), Some("error"));
    assert_eq!(r.reference_type("no_such_item"), None);
    let nul = format!("{}\0\n", t.solution_code);
    let r = static_checks(&task_ref(&t), &nul);
    let c = r.item("compilation").unwrap();
    assert!(!c.passed && c.reason.contains("null bytes"), "{}", c.reason);
    assert_eq!(c.line, Some(t.solution_code.matches('\n').count() + 1));
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn base() -> Task {
        generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 2)).unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Arbitrary text as the candidate.
        #[test]
        fn random_candidates(s in "(?s).{0,300}") {
            let t = base();
            let r = static_checks(&task_ref(&t), &s);
            prop_assert_eq!(&r.items[0].id, "compilation");
        }

        /// Python-ish fragments spliced into the reference at random places.
        #[test]
        fn spliced_references(at in 0usize..4000, frag in prop_oneof![
            Just("return".to_string()), Just("def f(:".to_string()), Just("\n    break\n".to_string()),
            Just("((((".to_string()), Just("'''".to_string()), Just("\nglobal x\n".to_string()),
            Just("\nclass A:\n    pass\n".to_string()), Just("\n@dec\n".to_string()), Just("lambda: (yield)".to_string()),
            Just("\nasync def g():\n    await x\n".to_string()), Just("\\".to_string()), Just("\t".to_string()),
            "[a-z(),:=\\n ]{0,20}",
        ]) {
            let t = base();
            let r = &t.solution_code;
            let mut at = at.min(r.len());
            while !r.is_char_boundary(at) { at -= 1; }
            let code = format!("{}{}{}", &r[..at], frag, &r[at..]);
            let _ = static_checks(&task_ref(&t), &code);
        }

        /// Garbage as the task's own starter or reference (records Cabrito did not write).
        #[test]
        fn broken_tasks(s in "(?s).{0,200}") {
            let t = base();
            let task = TaskRef { kind: Kind::DeadCode, domain: Domain::String, starter: &s, ..TaskRef::of(&t) };
            let _ = static_checks(&task, &t.solution_code);
            let task = TaskRef { kind: Kind::CacheFunction, domain: Domain::Array, reference: &s, ..TaskRef::of(&t) };
            let r = static_checks(&task, &t.solution_code);
            prop_assert!(r.items.len() > 1);
        }
    }
}
