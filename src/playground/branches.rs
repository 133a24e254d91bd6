//! What the app shows of a runtime task's branches (pure, natively tested): which lines of a program
//! run and which never do, which lines hold a guard, and the `check` steps of a guard, a page at a time.
//!
//! Lines are read from the text the generator printed (`if …:`, `elif …:`, `else:` headers and their
//! indented blocks); a header's condition is looked up in the task's record by its text, so nothing
//! is evaluated again.

use cabrito_gen::axes::runtime::guard::{show_value, GuardCall, Trajectory};
use cabrito_gen::axes::runtime::Record;
use std::collections::HashMap;

/// What a line of a runtime program is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineState {
    /// Outside the if/else trees (imports, `check`, `main`, `def` lines), or in a branch that runs.
    Runs,
    /// In a branch that never runs.
    Never,
    /// An `if`/`elif` header: its function and the guard's index in the record (pre-order), and
    /// whether the line itself is reached.
    Guard { function: String, guard: usize, reached: bool },
    /// An `else:` header and whether it is reached.
    Else { reached: bool },
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The state of every line of a program printed by the generator (`code`), from the task's record.
pub fn line_states(code: &str, record: &Record) -> Vec<LineState> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = vec![LineState::Runs; lines.len()];
    // Each function's guards by their source text.
    let mut guards: HashMap<&str, HashMap<String, usize>> = HashMap::new();
    for f in &record.functions {
        let m = guards.entry(f.name.as_str()).or_default();
        for (i, g) in f.guards.iter().enumerate() {
            m.entry(g.source()).or_insert(i);
        }
    }
    let values: HashMap<&str, Vec<bool>> =
        record.functions.iter().map(|f| (f.name.as_str(), f.guards.iter().map(|g| g.value).collect())).collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(rest) = lines[i].strip_prefix("def ") else {
            i += 1;
            continue;
        };
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let end = (i + 1..lines.len()).find(|&j| !lines[j].is_empty() && indent(lines[j]) == 0).unwrap_or(lines.len());
        if let (Some(g), Some(v)) = (guards.get(name.as_str()), values.get(name.as_str())) {
            block(&lines, i + 1, end, 4, true, &name, g, v, &mut out);
        }
        i = end;
    }
    out
}

/// The condition of an `if`/`elif` header, without its keyword and colon.
fn condition<'a>(line: &'a str, keyword: &str) -> Option<&'a str> {
    line.trim_start().strip_prefix(keyword)?.strip_prefix(' ')?.strip_suffix(':')
}

/// Mark the lines `from..to` of a block at `depth` (spaces), `live` when the block runs.
#[allow(clippy::too_many_arguments)]
fn block(
    lines: &[&str],
    from: usize,
    to: usize,
    depth: usize,
    live: bool,
    name: &str,
    guards: &HashMap<String, usize>,
    values: &[bool],
    out: &mut [LineState],
) {
    let mut i = from;
    // Whether an earlier branch of the current if/elif chain ran (then later ones are not reached).
    let mut chain: Option<bool> = None;
    while i < to {
        let line = lines[i];
        if line.trim().is_empty() || indent(line) != depth {
            out[i] = if live { LineState::Runs } else { LineState::Never };
            i += 1;
            continue;
        }
        let end = (i + 1..to).find(|&j| !lines[j].trim().is_empty() && indent(lines[j]) <= depth).unwrap_or(to);
        let header = condition(line, "if").map(|c| (c, false)).or_else(|| condition(line, "elif").map(|c| (c, true)));
        if let Some((cond, is_elif)) = header {
            let taken_before = if is_elif { chain.unwrap_or(false) } else { false };
            let reached = live && !taken_before;
            let index = guards.get(cond).copied();
            let value = index.and_then(|g| values.get(g).copied());
            out[i] = match index {
                Some(g) => LineState::Guard { function: name.to_string(), guard: g, reached },
                None if reached => LineState::Runs,
                None => LineState::Never,
            };
            let runs = reached && value.unwrap_or(true);
            block(lines, i + 1, end, depth + 4, runs, name, guards, values, out);
            chain = Some(taken_before || value.unwrap_or(true));
        } else if line.trim() == "else:" && chain.is_some() {
            let reached = live && !chain.unwrap_or(false);
            out[i] = LineState::Else { reached };
            block(lines, i + 1, end, depth + 4, reached, name, guards, values, out);
            chain = None;
        } else {
            chain = None;
            for s in out.iter_mut().take(end).skip(i) {
                *s = if live { LineState::Runs } else { LineState::Never };
            }
        }
        i = end;
    }
}

/// One row of the steps of a `check` call: the value before the step, its parity, what the step does.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StepRow {
    /// 1-based step.
    pub step: u32,
    /// The value before the step (shortened when long).
    pub value: String,
    pub odd: bool,
    /// `x // 2` or `a * x + b` with the numbers.
    pub action: String,
}

/// At most this many digits of a value are shown whole.
pub const SHOWN_DIGITS: usize = 40;

/// Rows `from..from+count` (1-based steps, clipped to the call's steps) of a call's steps.
pub fn steps_page(call: &GuardCall, from: u32, count: u32) -> Vec<StepRow> {
    let from = from.max(1);
    let last = call.steps.min(from.saturating_add(count).saturating_sub(1));
    let mut t = Trajectory::new(call.x, call.a, call.b);
    // A page past the last step has no rows: never walk further than the call does (the why panel's
    // jump box takes any number, and a walk to u32::MAX froze the page).
    t.advance_to((from - 1).min(last));
    let mut rows = Vec::new();
    for step in from..=last {
        let odd = t.odd();
        rows.push(StepRow {
            step,
            value: show_value(t.value(), SHOWN_DIGITS),
            odd,
            action: if odd { format!("{} · x + {}", call.a, call.b) } else { "x // 2".into() },
        });
        t.step();
    }
    rows
}

/// A call's outcome: the final value (shortened), its parity, the largest number of digits on the way.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GuardOutcome {
    pub last: String,
    pub parity: u8,
    pub value: bool,
    pub most_digits: usize,
    pub odd_steps: u32,
}

/// Run a call to its end.
pub fn outcome(call: &GuardCall) -> GuardOutcome {
    let mut t = Trajectory::new(call.x, call.a, call.b);
    let (mut most, mut odd_steps) = (1usize, 0u32);
    for _ in 0..call.steps {
        odd_steps += u32::from(t.odd());
        t.step();
        most = most.max(((t.value().bits() as f64) * std::f64::consts::LOG10_2) as usize + 1);
    }
    let parity = u8::from(t.odd());
    GuardOutcome {
        last: show_value(t.value(), SHOWN_DIGITS),
        parity,
        value: parity == call.target,
        most_digits: most,
        odd_steps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_gen::{generate, Axis, Domain, Kind, TaskSpec};

    fn runtime(kind: Kind, n: u32, branches: &str, seed: u64) -> cabrito_gen::Task {
        let s = TaskSpec::from_pairs([
            ("kind", kind.as_str()),
            ("axis", Axis::Runtime.as_str()),
            ("n", &n.to_string()),
            ("branches", branches),
            ("seed", &seed.to_string()),
            ("domain", Domain::Math.as_str()),
        ])
        .unwrap();
        generate(&s).unwrap()
    }

    #[test]
    fn the_lines_of_the_running_leaf_run_and_the_others_never_do() {
        for (kind, branches) in [(Kind::DeadCode, "2"), (Kind::AddParameter, "4"), (Kind::ExtractHelper, "8")] {
            for seed in 0..5 {
                let t = runtime(kind, 7, branches, seed);
                let rec = t.runtime.as_ref().unwrap();
                let states = line_states(&t.starter_code, rec);
                let lines: Vec<&str> = t.starter_code.lines().collect();
                // Every guard of every function is a guard line; returns run exactly once per function.
                let guard_lines = states.iter().filter(|s| matches!(s, LineState::Guard { .. })).count();
                let guards: usize = rec.functions.iter().map(|f| f.guards.len()).sum();
                assert_eq!(guard_lines, guards, "{kind} {seed}");
                let running_returns = lines
                    .iter()
                    .zip(&states)
                    .filter(|(l, s)| l.trim_start().starts_with("return ") && **s == LineState::Runs)
                    .count();
                // One running return per function, plus check's and main's.
                assert_eq!(running_returns, rec.functions.len() + 2, "{kind} {seed}");
                let never = states.iter().filter(|s| **s == LineState::Never).count();
                assert!(never > 0);
                // The reached guards of a function are exactly its path.
                for f in &rec.functions {
                    let reached: Vec<usize> = states
                        .iter()
                        .filter_map(|s| match s {
                            LineState::Guard { function, guard, reached: true } if *function == f.name => Some(*guard),
                            _ => None,
                        })
                        .collect();
                    assert_eq!(reached.len(), f.path.len(), "{kind} {seed} {}", f.name);
                }
            }
        }
    }

    #[test]
    fn steps_are_paged_and_exact() {
        let call = GuardCall { x: 27, a: 9, b: 9, target: 0, steps: 10_000 };
        let page = steps_page(&call, 1, 3);
        assert_eq!(page.len(), 3);
        assert_eq!((page[0].value.as_str(), page[0].odd, page[0].action.as_str()), ("27", true, "9 · x + 9"));
        assert_eq!(page[1].value, "252");
        assert_eq!((page[2].value.as_str(), page[2].action.as_str()), ("126", "x // 2"));
        let last = steps_page(&call, 9_990, 100);
        assert_eq!(last.len(), 11);
        assert_eq!(last.last().unwrap().step, 10_000);
        assert!(steps_page(&call, 20_000, 10).is_empty());
        // Far past the end: no rows, and no walk of four billion steps to find that out.
        assert!(steps_page(&call, u32::MAX, 50).is_empty());
        assert!(steps_page(&call, u32::MAX - 1, u32::MAX).is_empty());
        let o = outcome(&call);
        assert_eq!(o.parity, cabrito_gen::axes::runtime::guard::final_parity(27, 9, 9, 10_000));
        assert_eq!(o.value, o.parity == 0);
        assert!(o.most_digits > 100, "{o:?}");
    }
}
