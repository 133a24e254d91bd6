//! What the instruction-following views show (pure, tested natively): the task's requirements as the
//! statement numbers them, each with the lines of the reference that carry it, and a
//! `constraint_structure` reason split into its findings, each with the line it names.

use cabrito_gen::axes::instructions::RuleSet;
use std::collections::HashMap;

/// One requirement of the numbered list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// Its number in the statement.
    pub number: usize,
    /// The statement's sentence for it (without the number).
    pub sentence: String,
    /// The line of Python it asks for, as written.
    pub code: String,
    /// The 1-based lines of the reference that are this line (one per function it applies in).
    pub lines: Vec<usize>,
}

/// The requirements of a task in the statement's order, from its record's `metadata`, each with the
/// lines of `reference` that satisfy it. Empty when the task has no requirements.
pub fn requirements(metadata: &serde_json::Value, reference: &str) -> Vec<Listed> {
    let Some(set) = RuleSet::from_metadata(metadata) else { return Vec::new() };
    let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, line) in reference.lines().enumerate() {
        at.entry(line.trim()).or_default().push(i + 1);
    }
    set.in_statement_order()
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let code = r.req.code();
            let lines = at.get(code.as_str()).cloned().unwrap_or_default();
            Listed { number: r.number.unwrap_or(i + 1), sentence: r.sentence(), code, lines }
        })
        .collect()
}

/// A rubric reason split into its findings (they are joined by `; ` outside backquoted code), each
/// with the first line it names (`line 40`).
pub fn findings(reason: &str) -> Vec<(String, Option<usize>)> {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut in_code = false;
    let mut chars = reason.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '`' {
            in_code = !in_code;
        }
        if c == ';' && !in_code && chars.peek() == Some(&' ') {
            chars.next();
            parts.push(std::mem::take(&mut cur));
            continue;
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts.into_iter().map(|p| (p.clone(), first_line(&p))).collect()
}

/// The first `line N` a finding names outside backquoted code.
fn first_line(text: &str) -> Option<usize> {
    let mut in_code = false;
    let mut outside = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '`' {
            in_code = !in_code;
            outside.push(' ');
        } else {
            outside.push(if in_code { ' ' } else { c });
        }
    }
    let mut words = outside.split(|c: char| c.is_whitespace() || c == ',' || c == ')' || c == '(');
    while let Some(w) = words.next() {
        if w == "line" {
            if let Some(n) = words.next().and_then(|n| n.parse::<usize>().ok()) {
                return (n > 0).then_some(n);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};
    use cabrito_gen::task::generate;

    #[test]
    fn every_requirement_points_at_its_lines_in_the_reference() {
        for (kind, domain, n, conditional) in [
            (Kind::AddParameter, Domain::Math, 25, 0),
            (Kind::ExtractHelper, Domain::String, 50, 30),
            (Kind::CacheFunction, Domain::Array, 5, 0),
        ] {
            let mut spec = TaskSpec::new(kind, domain, Axis::Instructions, n, 4);
            spec.conditional = conditional;
            let t = generate(&spec).unwrap();
            let list = requirements(&t.metadata, &t.solution_code);
            assert_eq!(list.len(), n as usize);
            let numbers: Vec<usize> = list.iter().map(|r| r.number).collect();
            assert_eq!(numbers, (1..=n as usize).collect::<Vec<_>>());
            let lines: Vec<&str> = t.solution_code.lines().collect();
            for r in &list {
                assert!(!r.lines.is_empty(), "{spec:?}: requirement {} has no line", r.number);
                for &l in &r.lines {
                    assert_eq!(lines[l - 1].trim(), r.code);
                }
            }
            // The starter carries none of them.
            assert!(requirements(&t.metadata, &t.starter_code).iter().all(|r| r.lines.is_empty()));
        }
        let plain = generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 0)).unwrap();
        assert!(requirements(&plain.metadata, &plain.solution_code).is_empty());
    }

    #[test]
    fn reasons_split_into_findings_with_their_lines() {
        let reason = "requirement 17, `assert mult3 < 125`, is missing in `ab`, line 40; the prints come before \
                      the asserts in `q`, line 12; `print(f'x; line 9 {mult1}')` in `c` (line 7) (and 2 more)";
        assert_eq!(
            findings(reason),
            vec![
                ("requirement 17, `assert mult3 < 125`, is missing in `ab`, line 40".to_string(), Some(40)),
                ("the prints come before the asserts in `q`, line 12".to_string(), Some(12)),
                ("`print(f'x; line 9 {mult1}')` in `c` (line 7) (and 2 more)".to_string(), Some(7)),
            ]
        );
        assert_eq!(
            findings(
                "requirement 1 asks for `assert mult6 < 125` in `m`, but line 29 has `assert mult6 < 132` instead"
            ),
            vec![(
                "requirement 1 asks for `assert mult6 < 125` in `m`, but line 29 has `assert mult6 < 132` instead"
                    .to_string(),
                Some(29)
            )]
        );
        assert_eq!(findings("all fine"), vec![("all fine".to_string(), None)]);
        assert_eq!(findings("`f` is missing: it must carry 3 lines; `g` is missing: it must carry 2 lines")[1].1, None);
        assert_eq!(findings("line 0"), vec![("line 0".to_string(), None)]);
    }
}
