//! What the agents page shows of a session at one step, computed without the DOM (so it is tested
//! natively): the code as it was, each line's mark (viewed, matched, edited), the functions the call
//! touched (for the call graph), and a short description of the call.

use super::aci::{Aci, Step};
use cabrito_analysis::traces::touch::spans;
use std::collections::BTreeSet;

/// How a line of the code is marked at a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    None,
    Viewed,
    Matched,
    Edited,
}

impl Mark {
    /// The CSS class.
    pub fn class(self) -> &'static str {
        match self {
            Mark::None => "",
            Mark::Viewed => "viewed",
            Mark::Matched => "matched",
            Mark::Edited => "edited",
        }
    }
}

/// `solution.py` before step `i` (the starter for the first).
pub fn before<'a>(starter: &'a str, steps: &'a [Step], i: usize) -> &'a str {
    if i == 0 {
        starter
    } else {
        steps.get(i - 1).map_or(starter, |s| &s.solution)
    }
}

/// The code to show at step `i` (after an edit, the edited file; else the file the call saw) and the
/// mark of each of its lines.
pub fn marks<'a>(starter: &'a str, steps: &'a [Step], i: usize) -> (&'a str, Vec<Mark>) {
    let Some(step) = steps.get(i) else {
        let code = steps.last().map_or(starter, |s| &s.solution);
        return (code, vec![Mark::None; code.lines().count()]);
    };
    let code: &str = if step.looked.edited.is_some() { &step.solution } else { before(starter, steps, i) };
    let n = code.lines().count();
    let mut out = vec![Mark::None; n];
    let mut set = |a: usize, b: usize, m: Mark| {
        for slot in out.iter_mut().take(b.min(n)).skip(a.saturating_sub(1)) {
            *slot = m;
        }
    };
    if let Some((a, b)) = step.looked.viewed {
        set(a, b, Mark::Viewed);
    }
    for &l in &step.looked.matched {
        set(l, l, Mark::Matched);
    }
    if let Some((a, b)) = step.looked.edited {
        set(a, b, Mark::Edited);
    }
    (code, out)
}

/// The functions the call at step `i` looked at or changed.
pub fn touched(starter: &str, steps: &[Step], i: usize) -> BTreeSet<String> {
    let (code, m) = marks(starter, steps, i);
    let mut out = BTreeSet::new();
    for s in spans(code) {
        if m.iter().take(s.end).skip(s.start.saturating_sub(1)).any(|x| *x != Mark::None) {
            out.insert(s.name);
        }
    }
    out
}

/// The first marked line at step `i` (to scroll to).
pub fn first_marked(starter: &str, steps: &[Step], i: usize) -> Option<usize> {
    marks(starter, steps, i).1.iter().position(|m| *m != Mark::None).map(|p| p + 1)
}

/// `view solution.py 1-100`, `search "def "`, `edit solution.py lines 12-15`, `check`, `submit`.
pub fn describe(step: &Step) -> String {
    let a = &step.arguments;
    let s = |k: &str| a.get(k).and_then(|v| v.as_str()).unwrap_or("");
    let n = |k: &str| a.get(k).and_then(|v| v.as_u64());
    let short = |t: &str| -> String {
        let one: String = t.chars().map(|c| if c == '\n' { '⏎' } else { c }).take(40).collect();
        if t.chars().count() > 40 {
            one + "…"
        } else {
            one
        }
    };
    match step.tool.as_str() {
        "view" => match (n("start"), n("end")) {
            (Some(a), Some(b)) => format!("view {} {a}-{b}", s("path")),
            (Some(a), None) => format!("view {} from {a}", s("path")),
            _ => format!("view {}", s("path")),
        },
        "search" => match n("from_line") {
            Some(f) => format!("search \"{}\" from line {f}", short(s("pattern"))),
            None => format!("search \"{}\"", short(s("pattern"))),
        },
        "edit" => match (n("start"), n("end")) {
            (Some(a), Some(b)) => format!("edit {} lines {a}-{b}", s("path")),
            _ => format!("edit {}: \"{}\"", s("path"), short(s("old"))),
        },
        other => other.chars().take(40).collect(),
    }
}

/// Turns, estimated input tokens and cost of a session under a page's prices (for the "agent's
/// count beside yours").
pub fn totals(aci: &Aci, prices: super::Prices, caching: bool) -> (usize, f64, f64) {
    let turns = aci.turns(caching);
    let l = super::Ledger::of(&turns, prices);
    (turns.len(), l.total.input, l.cost)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run, Settings, Strategy};
    use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};

    #[test]
    fn each_step_marks_what_it_looked_at() {
        let t = cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 2)).unwrap();
        let aci = run(
            &t,
            Strategy::Navigator,
            Settings::default(),
            std::sync::Arc::new(crate::aci::Unavailable("no runs here".into())),
        );
        let steps = aci.steps();
        let mut saw = [false; 3];
        for (i, st) in steps.iter().enumerate() {
            let (code, m) = marks(&t.starter_code, steps, i);
            assert_eq!(m.len(), code.lines().count());
            let t_ = touched(&t.starter_code, steps, i);
            match st.tool.as_str() {
                "view" => {
                    saw[0] = true;
                    assert!(m.contains(&Mark::Viewed));
                }
                "search" => {
                    saw[1] = true;
                    assert!(m.contains(&Mark::Matched) || st.output.starts_with("no match"));
                }
                "edit" if st.ok => {
                    saw[2] = true;
                    assert!(m.contains(&Mark::Edited));
                    assert_eq!(code, &*st.solution);
                    assert!(!t_.is_empty(), "{}", describe(st));
                }
                _ => {}
            }
            assert!(!describe(st).is_empty());
        }
        assert_eq!(saw, [true; 3]);
        let last = steps.len();
        let (code, m) = marks(&t.starter_code, steps, last);
        assert_eq!(code, aci.solution());
        assert!(m.iter().all(|x| *x == Mark::None));
        let (turns, input, cost) = totals(&aci, super::super::Prices::default(), true);
        assert!(turns == steps.len() && input > 0.0 && cost > 0.0);
    }
}
