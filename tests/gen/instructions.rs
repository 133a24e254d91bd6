//! The instruction-following axis (issue 9): the sampler's properties over many seeds, the reference's
//! requirement lines (every one, in every eligible function, in the prescribed order), reference passes
//! and starter fails the static rubric for every kind × domain, conditional requirements, and mutants
//! that each fail `constraint_structure` naming the right requirement, function and line.

use cabrito::playground::requirements::findings;
use cabrito_check::rubric::{static_checks, Rubric, TaskRef};
use cabrito_gen::axes::instructions::bank::{Bank, Category, Draw, Requirement, PHRASINGS};
use cabrito_gen::axes::instructions::sample::draw;
use cabrito_gen::axes::instructions::{places, RuleSet};
use cabrito_gen::rng::stream;
use cabrito_gen::task::generate_full;
use cabrito_gen::{Axis, Domain, Kind, Task, TaskSpec};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The four kinds built along the axis.
fn kinds() -> Vec<Kind> {
    Kind::ALL.iter().copied().filter(|k| k.def().axes().allows(&Axis::Instructions)).collect()
}

fn spec(kind: Kind, domain: Domain, n: u32, seed: u64, conditional: u32) -> TaskSpec {
    let mut s = TaskSpec::new(kind, domain, Axis::Instructions, n, seed);
    s.conditional = conditional;
    s
}

fn show(r: &Rubric) -> String {
    r.items
        .iter()
        .map(|i| format!("{} {} {:?} {}", if i.passed { "✓" } else { "✗" }, i.id, i.line, i.reason))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_kinds_along_the_axis_are_the_papers_four() {
    assert_eq!(kinds(), [Kind::AddParameter, Kind::AddReturnValue, Kind::CacheFunction, Kind::ExtractHelper]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The sampler meets K exactly for every K up to 200 with ten values, never gives a value two
    /// temporaries, and never repeats a description or an implementation for one value.
    #[test]
    fn the_sampler_meets_k_and_repeats_nothing(k in 0usize..=200, seed in any::<u64>(), str_bank in any::<bool>()) {
        let bank = if str_bank { Bank::Str } else { Bank::Float };
        let draws: Vec<Draw> = draw(&mut stream(&format!("prop-{seed}"), "rules"), bank, 10, k);
        prop_assert_eq!(draws.len(), k);
        let mut temps = [0usize; 10];
        let mut seen: BTreeMap<usize, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
        for d in &draws {
            prop_assert!(d.value < 10 && d.phrasing < PHRASINGS);
            let r = Requirement::new(d, bank, &format!("v{}", d.value + 1));
            if r.category() == Category::Temp {
                temps[d.value] += 1;
            }
            let (descs, codes) = seen.entry(d.value).or_default();
            prop_assert!(descs.insert(r.description()), "description repeated: {}", r.description());
            prop_assert!(codes.insert(r.code()), "implementation repeated: {}", r.code());
            prop_assert!(r.description().contains(&r.var));
        }
        prop_assert!(temps.iter().all(|&t| t <= 1), "{:?}", temps);
    }
}

/// The requirement lines of a function of a program, in order (comments and statements that are lines
/// of a requirement of `set`).
fn requirement_lines(code: &str, function: &str, codes: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in code.lines() {
        if let Some(rest) = line.strip_prefix("def ") {
            inside = rest.starts_with(&format!("{function}("));
            continue;
        }
        if inside {
            let t = line.trim();
            if codes.contains(t) {
                out.push(t.to_string());
            }
        }
    }
    out
}

/// Every eligible function of the reference has exactly the requirements that apply to it, in the
/// prescribed order (comments, asserts, prints, temporaries; values in index order), and no other
/// function has any; the static rubric passes the reference and fails the starter.
fn check_reference(t: &Task, generated: &cabrito_gen::task::Generated) {
    let (g, _) = generated.call_graph().unwrap();
    let set = RuleSet::from_metadata(&t.metadata).expect("metadata holds the rules");
    assert_eq!(set.rules.len(), t.spec.n as usize, "{}", t.spec);
    let codes: BTreeSet<String> = set.rules.iter().map(|r| r.req.code()).collect();
    let ps = places(g);
    for (v, place) in ps.iter().enumerate() {
        let got = requirement_lines(&t.solution_code, &place.name, &codes);
        let eligible = t.edit_set.contains(&place.name);
        let want: Vec<String> =
            if eligible { set.lines(place).iter().map(|s| cabrito_gen::python::stmt(s, "")).collect() } else { vec![] };
        assert_eq!(got, want, "{}: function {} (vertex {v})", t.spec, place.name);
        let cats: Vec<(Category, usize)> = if eligible {
            set.applying(place).iter().map(|r| (r.req.category(), r.req.value)).collect()
        } else {
            vec![]
        };
        assert!(cats.windows(2).all(|w| w[0] <= w[1]), "{}: order in {}", t.spec, place.name);
        // The starter carries none of them.
        assert!(requirement_lines(&t.starter_code, &place.name, &codes).is_empty());
    }
    let task = TaskRef::of(t);
    let r = static_checks(&task, &t.solution_code);
    assert!(r.passed(), "{}: the reference fails\n{}", t.spec, show(&r));
    assert!(r.item("constraint_structure").is_some_and(|i| i.must_have && i.passed));
    let s = static_checks(&task, &t.starter_code);
    let item = s.item("constraint_structure").unwrap();
    assert!(!item.passed && !s.passed(), "{}: the starter passes constraint_structure", t.spec);
}

#[test]
fn the_reference_carries_every_requirement_in_order_and_the_starter_none() {
    for kind in kinds() {
        for &domain in Domain::ALL {
            for (n, seed) in [(5u32, 1u64), (25, 2), (200, 3), (1, 4), (60, 5)] {
                let s = spec(kind, domain, n, seed, 0);
                let g = generate_full(&s).unwrap();
                check_reference(&g.task, &g);
            }
        }
    }
}

#[test]
fn conditional_requirements_apply_exactly_where_their_condition_holds() {
    let mut conditional = 0;
    let mut somewhere_not = 0;
    for kind in kinds() {
        for &domain in Domain::ALL {
            for seed in 0..6u64 {
                let s = spec(kind, domain, 40, seed, 50);
                let g = generate_full(&s).unwrap();
                check_reference(&g.task, &g);
                let set = RuleSet::from_metadata(&g.task.metadata).unwrap();
                let (cg, _) = g.call_graph().unwrap();
                let ps = places(cg);
                let eligible: Vec<_> = ps.iter().filter(|p| g.task.edit_set.contains(&p.name)).collect();
                let with: Vec<_> = set.rules.iter().filter(|r| r.condition.is_some()).collect();
                assert_eq!(with.len(), 20, "{s}");
                conditional += with.len();
                for r in with {
                    let holds = eligible.iter().filter(|p| r.applies(p)).count();
                    assert!(holds > 0 && holds < eligible.len(), "{s}: {:?} does not split", r.condition);
                    somewhere_not += 1;
                    // The statement states the condition.
                    let c = r.condition.as_ref().unwrap();
                    let line =
                        format!("\n{}. `{}`, only in the functions {}: ", r.number.unwrap(), r.req.var, c.words());
                    assert!(g.task.prompt.contains(&line), "{s}: {line}");
                }
                // Applying every conditional requirement everywhere fails, naming a requirement.
                let first = set.rules.iter().find(|r| r.condition.is_some()).unwrap();
                let (name, line) = eligible
                    .iter()
                    .find(|p| !first.applies(p))
                    .map(|p| {
                        let at = g.task.solution_code.find(&format!("\ndef {}(", p.name)).unwrap() + 1;
                        (p.name.clone(), at)
                    })
                    .unwrap();
                let body = g.task.solution_code[line..].find('\n').unwrap() + line + 1;
                let mutant = format!(
                    "{}    {}\n{}",
                    &g.task.solution_code[..body],
                    first.req.code(),
                    &g.task.solution_code[body..]
                );
                let r = static_checks(&TaskRef::of(&g.task), &mutant);
                let item = r.item("constraint_structure").unwrap();
                assert!(!item.passed, "{s}: a conditional requirement applied everywhere passes");
                assert!(
                    item.reason.contains(&format!("requirement {}", first.number.unwrap()))
                        && item.reason.contains(&format!("`{name}`")),
                    "{s}: {}",
                    item.reason
                );
            }
        }
    }
    assert!(conditional > 0 && somewhere_not > 0);
}

#[test]
fn dead_code_has_no_instructions_axis() {
    let e = TaskSpec::from_pairs([("kind", "dead_code"), ("axis", "instructions")]).unwrap_err();
    assert_eq!(
        e.message,
        "dead_code has no instructions axis (its axes are traversal, search, runtime); the kinds built along it are \
         add_parameter, add_return_value, cache_function, extract_helper"
    );
}

// ------------------------------------------------------------------------------------------------
// Mutants

/// The line (1-based) and text of the first line of `code` equal to `needle` after `from`.
fn find_line(code: &str, needle: &str, from: usize) -> Option<usize> {
    code.lines().enumerate().skip(from).find(|(_, l)| l.trim() == needle).map(|(i, _)| i + 1)
}

fn replace_line(code: &str, line: usize, new: Option<&str>) -> String {
    let mut out: Vec<String> = code.lines().map(str::to_string).collect();
    match new {
        Some(n) => {
            let indent: String = out[line - 1].chars().take_while(|c| *c == ' ').collect();
            out[line - 1] = format!("{indent}{n}");
        }
        None => {
            out.remove(line - 1);
        }
    }
    out.join("\n")
}

/// The function whose body holds a line.
fn function_at(code: &str, line: usize) -> String {
    code.lines()
        .take(line)
        .filter_map(|l| l.strip_prefix("def "))
        .last()
        .map(|l| l[..l.find('(').unwrap()].to_string())
        .unwrap()
}

fn find_def(code: &str, function: &str) -> usize {
    code.lines().position(|l| l.starts_with(&format!("def {function}("))).unwrap() + 1
}

struct Mutant {
    what: &'static str,
    code: String,
    /// What the reason must name.
    names: Vec<String>,
    line: usize,
}

/// The five mutants of the issue on one task.
fn mutants(t: &Task) -> Vec<Mutant> {
    let set = RuleSet::from_metadata(&t.metadata).unwrap();
    let code = &t.solution_code;
    let mut out = Vec::new();
    let number = |code_text: &str| -> usize {
        set.rules.iter().find(|r| r.req.code() == code_text).and_then(|r| r.number).unwrap()
    };
    let by_cat = |c: Category| set.rules.iter().filter(move |r| r.req.category() == c);
    // A requirement dropped (its first line in the file): reported where the function's requirement
    // lines start.
    if let Some(r) = set.rules.first() {
        let line = find_line(code, &r.req.code(), 0).unwrap();
        let f = function_at(code, line);
        let mutant = replace_line(code, line, None);
        let codes: BTreeSet<String> = set.rules.iter().map(|r| r.req.code()).collect();
        let start = find_def(&mutant, &f);
        let first = mutant.lines().enumerate().skip(start).find(|(_, l)| codes.contains(l.trim())).map(|(i, _)| i + 1);
        let at = first.unwrap_or(start + 1);
        out.push(Mutant {
            what: "dropped",
            code: mutant,
            names: vec![format!("requirement {}", number(&r.req.code())), format!("`{f}`"), format!("line {at}")],
            line: at,
        });
    }
    // An assert with a wrong bound.
    if let Some(r) = by_cat(Category::Assert).next() {
        let text = r.req.code();
        let line = find_line(code, &text, 0).unwrap();
        let wrong = match text.rsplit_once(' ') {
            Some((head, lit)) if lit.starts_with('\'') => format!("{head} 'Z'"),
            Some((head, lit)) => format!("{head} {}", lit.parse::<i64>().unwrap() + 7),
            None => unreachable!(),
        };
        let f = function_at(code, line);
        out.push(Mutant {
            what: "wrong bound",
            code: replace_line(code, line, Some(&wrong)),
            names: vec![format!("requirement {}", number(&text)), format!("`{f}`"), format!("line {line}")],
            line,
        });
    }
    // A comment with a wrong word.
    if let Some(r) = by_cat(Category::Comment).next() {
        let text = r.req.code();
        let line = find_line(code, &text, 0).unwrap();
        let f = function_at(code, line);
        out.push(Mutant {
            what: "wrong comment word",
            code: replace_line(code, line, Some(&text.replacen(": ", "ed: ", 1))),
            names: vec![format!("requirement {}", number(&text)), format!("`{f}`"), format!("line {line}")],
            line,
        });
    }
    // A temporary computed from the wrong value.
    if let Some(r) = by_cat(Category::Temp).next() {
        let text = r.req.code();
        let line = find_line(code, &text, 0).unwrap();
        let (target, rhs) = text.split_once(" = ").unwrap();
        let other = set.names.iter().find(|n| **n != r.req.var).unwrap();
        let wrong = format!("{target} = {}", replace_word(rhs, &r.req.var, other));
        let f = function_at(code, line);
        out.push(Mutant {
            what: "temporary from the wrong value",
            code: replace_line(code, line, Some(&wrong)),
            names: vec![format!("requirement {}", number(&text)), format!("`{f}`"), format!("line {line}")],
            line,
        });
    }
    // Two requirement groups swapped: the asserts and the prints of the first function with both.
    let asserts: BTreeSet<String> = by_cat(Category::Assert).map(|r| r.req.code()).collect();
    let prints: BTreeSet<String> = by_cat(Category::Print).map(|r| r.req.code()).collect();
    if let (Some(a), Some(_)) = (find_line_in(code, &asserts), find_line_in(code, &prints)) {
        let f = function_at(code, a);
        let lines: Vec<&str> = code.lines().collect();
        let start = find_def(code, &f);
        let end = (start..lines.len()).find(|&i| lines[i].is_empty()).unwrap_or(lines.len());
        let body = &lines[start..end];
        let is = |set: &BTreeSet<String>, l: &&str| set.contains(l.trim());
        let group_a: Vec<&str> = body.iter().filter(|l| is(&asserts, l)).copied().collect();
        let group_p: Vec<&str> = body.iter().filter(|l| is(&prints, l)).copied().collect();
        if !group_a.is_empty() && !group_p.is_empty() {
            let mut new_body: Vec<&str> = Vec::new();
            let mut placed = false;
            for l in body {
                if is(&asserts, l) || is(&prints, l) {
                    if !placed {
                        new_body.extend(&group_p);
                        new_body.extend(&group_a);
                        placed = true;
                    }
                } else {
                    new_body.push(l);
                }
            }
            let mut all: Vec<&str> = lines[..start].to_vec();
            all.extend(new_body);
            all.extend(&lines[end..]);
            // The first assert now comes right after the prints.
            let first_assert =
                start + body.iter().position(|l| is(&asserts, l) || is(&prints, l)).unwrap() + group_p.len() + 1;
            out.push(Mutant {
                what: "asserts and prints swapped",
                code: all.join("\n"),
                names: vec![
                    "the prints come before the asserts".into(),
                    format!("`{f}`"),
                    format!("line {first_assert}"),
                ],
                line: first_assert,
            });
        }
    }
    out
}

fn find_line_in(code: &str, set: &BTreeSet<String>) -> Option<usize> {
    code.lines().position(|l| set.contains(l.trim())).map(|i| i + 1)
}

/// Replace `word` as a whole identifier.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + word.len()..].chars().next();
        out.push_str(&rest[..i]);
        if before.is_some_and(ident) || after.is_some_and(ident) {
            out.push_str(word);
        } else {
            out.push_str(by);
        }
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn mutants_fail_constraint_structure_naming_requirement_function_and_line() {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for kind in kinds() {
        for &domain in Domain::ALL {
            for (n, seed) in [(25u32, 7u64), (200, 8), (10, 9)] {
                let g = generate_full(&spec(kind, domain, n, seed, 0)).unwrap();
                let t = &g.task;
                for m in mutants(t) {
                    let r = static_checks(&TaskRef::of(t), &m.code);
                    let item = r.item("constraint_structure").unwrap();
                    assert!(!item.passed, "{} {}: the mutant passes\n{}", t.spec, m.what, show(&r));
                    for name in &m.names {
                        assert!(
                            item.reason.contains(name.as_str()),
                            "{} {}: `{name}` not in: {}",
                            t.spec,
                            m.what,
                            item.reason
                        );
                    }
                    assert_eq!(item.line, Some(m.line), "{} {}: {}", t.spec, m.what, item.reason);
                    // The app lists the findings one by one: the one naming the requirement (or the order)
                    // links to the line.
                    let found = findings(&item.reason);
                    assert!(
                        found.iter().any(|(text, line)| text.contains(m.names[0].as_str()) && *line == Some(m.line)),
                        "{} {}: no finding names {} at line {}: {found:?}",
                        t.spec,
                        m.what,
                        m.names[0],
                        m.line
                    );
                    // The other must-haves are not what fails.
                    let others: Vec<&str> = r
                        .failed_must_haves()
                        .map(|i| i.id.as_ref())
                        .filter(|id| *id != "constraint_structure")
                        .collect();
                    assert!(others.is_empty(), "{} {}: {others:?}", t.spec, m.what);
                    *seen.entry(m.what).or_default() += 1;
                }
            }
        }
    }
    assert_eq!(seen.len(), 5, "{seen:?}");
}

#[test]
fn nested_and_misplaced_lines_are_findings() {
    let g = generate_full(&spec(Kind::AddParameter, Domain::Math, 10, 11, 0)).unwrap();
    let t = &g.task;
    let set = RuleSet::from_metadata(&t.metadata).unwrap();
    let r = set.rules.iter().find(|r| r.req.category() == Category::Assert).unwrap();
    let code = &t.solution_code;
    let line = find_line(code, &r.req.code(), 0).unwrap();
    let f = function_at(code, line);
    // Nested inside an `if True:` (the reference would not see it: an extra line it ignores).
    let nested = replace_line(code, line, Some(&format!("if True:\n        {}", r.req.code())));
    let nested = {
        // keep the original line too, so the multisets still agree
        let mut lines: Vec<&str> = nested.lines().collect();
        let orig = format!("    {}", r.req.code());
        lines.insert(line - 1, &orig);
        lines.join("\n")
    };
    let rubric = static_checks(&TaskRef::of(t), &nested);
    let item = rubric.item("constraint_structure").unwrap();
    assert!(
        !item.passed && item.reason.contains("inside an `if`") && item.reason.contains(&format!("`{f}`")),
        "{}",
        item.reason
    );
    // After the value is first used: move the assert to just before the return of a function that
    // passes the values on.
    let passing = t
        .edit_set
        .iter()
        .find(|name| {
            let start = find_def(code, name);
            code.lines().skip(start).take_while(|l| !l.is_empty()).any(|l| l.contains("=mult1"))
        })
        .unwrap();
    let start = find_def(code, passing);
    let lines: Vec<&str> = code.lines().collect();
    let end = (start..lines.len()).find(|&i| lines[i].is_empty()).unwrap();
    let at = (start..end).find(|&i| lines[i].trim() == r.req.code()).unwrap();
    let mut moved: Vec<&str> = lines.clone();
    let l = moved.remove(at);
    moved.insert(end - 2, l);
    let rubric = static_checks(&TaskRef::of(t), &moved.join("\n"));
    let item = rubric.item("constraint_structure").unwrap();
    assert!(!item.passed && item.reason.contains("is first used"), "{}", item.reason);
}

/// Through the real grader (sandboxed CPython, indexed stubs): the reference scores 1; a dropped
/// requirement behaves the same but fails `constraint_structure`, which the pass rule requires.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_grader_requires_the_requirement_lines() {
    use cabrito_check::grade::{CheckOutcome, GradeTask};
    use cabrito_native::runner::{grade, GradeOptions};
    let opts = GradeOptions { trials: 3, ..Default::default() };
    for kind in kinds() {
        for &domain in Domain::ALL {
            let g = generate_full(&spec(kind, domain, 25, 21, 20)).unwrap();
            let t = &g.task;
            let task = GradeTask::from_task(t);
            let v = grade(&task, &t.solution_code, &opts, &|_, _| {});
            assert!(v.passed, "{}: the reference fails: {}", t.spec, v.message);
            let m = &mutants(t)[0];
            let v = grade(&task, &m.code, &opts, &|_, _| {});
            let outcome = |k: &str| v.checks.iter().find(|c| c.kind == k).map(|c| c.outcome);
            assert_eq!(outcome("behavioral"), Some(CheckOutcome::Pass), "{}: {}", t.spec, v.message);
            assert_eq!(outcome("constraint_structure"), Some(CheckOutcome::Fail), "{}", t.spec);
            assert!(!v.passed && v.message.starts_with("constraint_structure: ") && v.message.contains(&m.names[0]));
        }
    }
}
