//! A bad spec mended: the nearest valid spec to some `key=value` pairs, with every problem met on
//! the way. Share links and the command line name the problems of a bad spec from here, so both say
//! the same thing in the same words.

use crate::spec::{knob, Axis, SpecError, TaskSpec, Values};

/// The closest valid spec to some pairs (repeatedly clamp an out-of-range number into its range, or
/// drop the key the spec parser complains about, until the spec parses; ends at the default spec),
/// and each problem it mended, in the order it met them, one a key.
pub fn nearest_valid(pairs: &[(String, String)]) -> (TaskSpec, Vec<SpecError>) {
    let mut pairs: Vec<(String, String)> = pairs.to_vec();
    let mut problems: Vec<SpecError> = Vec::new();
    // Each round removes a pair or clamps one into range, so this terminates well within the bound.
    for _ in 0..(2 * pairs.len() + 2) {
        match TaskSpec::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
            Ok(spec) => return (spec, problems),
            Err(e) => {
                let key = e.key.clone();
                // One problem a key: a key mended once (dropped to its default, say) can fail
                // again for the same reason, which would only repeat the first.
                if !problems.iter().any(|p| p.key == e.key || p.message == e.message) {
                    problems.push(e);
                }
                let positions: Vec<usize> =
                    pairs.iter().enumerate().filter(|(_, (k, _))| k.trim() == key).map(|(i, _)| i).collect();
                let Some(&first) = positions.first() else { break };
                if positions.len() > 1 {
                    // A repeated key: keep the first occurrence.
                    for &i in positions[1..].iter().rev() {
                        pairs.remove(i);
                    }
                    continue;
                }
                match clamped(&pairs[first].0, &pairs[first].1, &pairs) {
                    Some(c) if c != pairs[first].1.trim() => pairs[first].1 = c,
                    _ => {
                        pairs.remove(first);
                    }
                }
            }
        }
    }
    (TaskSpec::default(), problems)
}

/// An integer knob's value moved into the knob's range (for `n`, the range on the axis the pairs
/// name), if the value is a (possibly huge or negative) integer at all.
fn clamped(key: &str, value: &str, pairs: &[(String, String)]) -> Option<String> {
    let k = knob(key.trim())?;
    let Values::Int { .. } = k.values else { return None };
    let mut spec = TaskSpec::default();
    if let Some(axis) = pairs.iter().find(|(k, _)| k.trim() == "axis").and_then(|(_, v)| Axis::parse(v.trim())) {
        spec.axis = axis;
    }
    let (min, max) = k.range(&spec)?;
    let v = value.trim();
    let digits = v.strip_prefix('-').or_else(|| v.strip_prefix('+')).unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if v.starts_with('-') {
        return Some(min.to_string());
    }
    Some(
        match digits.trim_start_matches('0').parse::<u64>() {
            Ok(x) => x.clamp(min, max),
            Err(_) if digits.trim_start_matches('0').is_empty() => min,
            Err(_) => max, // more digits than a u64 holds
        }
        .to_string(),
    )
}

/// One line naming every problem: the one problem as it is, or "2 problems: …; …", each problem
/// without its explanation (the text after its first "; ") and cut to a line, so that at most four
/// are listed and the rest counted.
pub fn every_problem(problems: &[String]) -> String {
    const SHOWN: usize = 4;
    const CHARS: usize = 70;
    let short = |p: &String| {
        let head = p.split("; ").next().unwrap_or(p);
        if head.chars().count() > CHARS {
            format!("{}…", head.chars().take(CHARS).collect::<String>())
        } else {
            head.to_string()
        }
    };
    match problems {
        [] => "this link does not name a valid task".to_string(),
        [one] => one.clone(),
        many => {
            let mut listed: Vec<String> = many.iter().take(SHOWN).map(short).collect();
            if many.len() > SHOWN {
                listed.push(format!("and {} more", many.len() - SHOWN));
            }
            format!("{} problems: {}", many.len(), listed.join("; "))
        }
    }
}
