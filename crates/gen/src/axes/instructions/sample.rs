//! Drawing a task's requirements (generation.md §4.4.3) and, beyond the reference, the conditions of
//! conditional requirements.
//!
//! The reference draws a value and a kind uniformly and retries when the pair is not allowed (a
//! second temporary for a value) or when the kind's literals are used up for the value. Conditional on
//! success, that is a uniform draw over the allowed (value, kind) pairs, then a uniform unused literal:
//! this module draws exactly that, directly, so it meets `K` in `K` steps whenever `K` is within the
//! values' capacity (and never loops).

use super::bank::{Bank, Category, Draw, PHRASINGS, TEMP_NAMES};
use crate::graph::sample::below;
use crate::rng::Rng;

/// Draw `k` requirements over `values` values from one bank, in drawing order. `k` must not exceed
/// `values × bank.capacity()` (callers validate it); past it, the draw stops early.
pub fn draw(rng: &mut Rng, bank: Bank, values: usize, k: usize) -> Vec<Draw> {
    let kinds = bank.kinds();
    // used[value][kind] = which literals the value has used with the kind.
    let mut used: Vec<Vec<Vec<bool>>> =
        (0..values).map(|_| kinds.iter().map(|kd| vec![false; kd.literals(bank)]).collect()).collect();
    let mut has_temp = vec![false; values];
    let mut out = Vec::with_capacity(k);
    while out.len() < k {
        let allowed = |v: usize, i: usize| -> bool {
            let kind = kinds[i];
            !(kind.category() == Category::Temp && has_temp[v]) && used[v][i].iter().any(|u| !u)
        };
        let pairs: Vec<(usize, usize)> =
            (0..values).flat_map(|v| (0..kinds.len()).map(move |i| (v, i))).filter(|&(v, i)| allowed(v, i)).collect();
        if pairs.is_empty() {
            break;
        }
        let (v, i) = pairs[below(rng, pairs.len())];
        let free: Vec<usize> = (0..used[v][i].len()).filter(|&j| !used[v][i][j]).collect();
        let literal = free[below(rng, free.len())];
        let temp_name = below(rng, TEMP_NAMES.len());
        let phrasing = below(rng, PHRASINGS);
        used[v][i][literal] = true;
        if kinds[i].category() == Category::Temp {
            has_temp[v] = true;
        }
        out.push(Draw { value: v, kind: kinds[i], literal, temp_name, phrasing });
    }
    out
}

/// A condition on the functions a requirement applies in (beyond "every eligible function"): on the
/// function's name, or on its place in the call graph. Each is decided exactly from the code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// The name sorts before this name, comparing as strings (`'aa' < 'b'`).
    NameBefore(String),
    /// The name has exactly this many letters.
    NameLength(usize),
    /// The name contains this letter.
    NameHas(char),
    /// The function calls no function of `solution.py`.
    CallsNone,
    /// The function calls two or more different functions of `solution.py`.
    CallsSeveral,
    /// Two or more different functions of `solution.py` call it (`main()` counts).
    CalledBySeveral,
}

/// What a condition needs to know about a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub name: String,
    /// Different functions of the file it calls.
    pub callees: usize,
    /// Different functions of the file that call it, `main()` included.
    pub callers: usize,
}

impl Condition {
    /// The reference-style `check_key`.
    pub fn key(&self) -> &'static str {
        match self {
            Condition::NameBefore(_) => "name_before",
            Condition::NameLength(_) => "name_length",
            Condition::NameHas(_) => "name_contains",
            Condition::CallsNone => "calls_none",
            Condition::CallsSeveral => "calls_several",
            Condition::CalledBySeveral => "called_by_several",
        }
    }

    /// Does a function meet it?
    pub fn holds(&self, p: &Place) -> bool {
        match self {
            Condition::NameBefore(x) => p.name.as_str() < x.as_str(),
            Condition::NameLength(n) => p.name.chars().count() == *n,
            Condition::NameHas(c) => p.name.contains(*c),
            Condition::CallsNone => p.callees == 0,
            Condition::CallsSeveral => p.callees >= 2,
            Condition::CalledBySeveral => p.callers >= 2,
        }
    }

    /// The condition as the statement says it, after "in every eligible function".
    pub fn words(&self) -> String {
        match self {
            Condition::NameBefore(x) => format!("whose name sorts before `{x}` as a string (so `aa` sorts before `b`)"),
            Condition::NameLength(1) => "whose name is a single letter".into(),
            Condition::NameLength(n) => format!("whose name is exactly {n} letters long"),
            Condition::NameHas(c) => format!("whose name contains the letter `{c}`"),
            Condition::CallsNone => "that calls no other function of `solution.py`".into(),
            Condition::CallsSeveral => "that calls two or more different functions of `solution.py`".into(),
            Condition::CalledBySeveral => {
                "that two or more different functions of `solution.py` call (`main()` counts)".into()
            }
        }
    }

    /// The condition's parameter for the record (`{"kind": …, "arg": …}`).
    pub fn to_json(&self) -> serde_json::Value {
        let arg = match self {
            Condition::NameBefore(x) => serde_json::json!(x),
            Condition::NameLength(n) => serde_json::json!(n),
            Condition::NameHas(c) => serde_json::json!(c.to_string()),
            Condition::CallsNone | Condition::CallsSeveral | Condition::CalledBySeveral => serde_json::Value::Null,
        };
        serde_json::json!({"kind": self.key(), "arg": arg})
    }

    /// Read a condition back from a record.
    pub fn from_json(j: &serde_json::Value) -> Option<Condition> {
        let arg = j.get("arg");
        Some(match j.get("kind")?.as_str()? {
            "name_before" => Condition::NameBefore(arg?.as_str()?.to_string()),
            "name_length" => Condition::NameLength(usize::try_from(arg?.as_u64()?).ok()?),
            "name_contains" => {
                let s = arg?.as_str()?;
                let mut cs = s.chars();
                let c = cs.next()?;
                if cs.next().is_some() {
                    return None;
                }
                Condition::NameHas(c)
            }
            "calls_none" => Condition::CallsNone,
            "calls_several" => Condition::CallsSeveral,
            "called_by_several" => Condition::CalledBySeveral,
            _ => return None,
        })
    }

    /// Every condition that holds for some but not all of `places` (in a fixed order).
    pub fn splitting(places: &[Place]) -> Vec<Condition> {
        let mut candidates: Vec<Condition> = Vec::new();
        let mut names: Vec<&str> = places.iter().map(|p| p.name.as_str()).collect();
        names.sort();
        names.dedup();
        candidates.extend(names.iter().skip(1).map(|n| Condition::NameBefore(n.to_string())));
        let mut lengths: Vec<usize> = places.iter().map(|p| p.name.chars().count()).collect();
        lengths.sort();
        lengths.dedup();
        candidates.extend(lengths.into_iter().map(Condition::NameLength));
        let mut letters: Vec<char> = places.iter().flat_map(|p| p.name.chars()).collect();
        letters.sort();
        letters.dedup();
        candidates.extend(letters.into_iter().map(Condition::NameHas));
        candidates.extend([Condition::CallsNone, Condition::CallsSeveral, Condition::CalledBySeveral]);
        candidates
            .into_iter()
            .filter(|c| {
                let n = places.iter().filter(|p| c.holds(p)).count();
                n > 0 && n < places.len()
            })
            .collect()
    }
}

/// Give `count` of the `n` requirements a condition each (which ones, and which condition among those
/// that split `places`, drawn from `rng`): one entry per requirement, `None` for unconditional ones.
/// With fewer than two eligible functions no condition splits them, and every requirement stays
/// unconditional.
pub fn conditions(rng: &mut Rng, n: usize, count: usize, places: &[Place]) -> Vec<Option<Condition>> {
    let mut out = vec![None; n];
    let choices = Condition::splitting(places);
    if choices.is_empty() {
        return out;
    }
    let mut order: Vec<usize> = (0..n).collect();
    crate::graph::sample::shuffle(rng, &mut order);
    for &i in order.iter().take(count.min(n)) {
        out[i] = Some(choices[below(rng, choices.len())].clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn draws_meet_k_exactly_up_to_capacity() {
        for bank in [Bank::Float, Bank::Str] {
            let cap = 3 * bank.capacity();
            let d = draw(&mut stream("k", "t"), bank, 3, cap);
            assert_eq!(d.len(), cap);
            let d = draw(&mut stream("k", "t"), bank, 3, cap + 5);
            assert_eq!(d.len(), cap);
        }
    }

    #[test]
    fn conditions_split_the_eligible_functions() {
        let p = |name: &str, callees, callers| Place { name: name.into(), callees, callers };
        let places = vec![p("a", 0, 1), p("b", 2, 1), p("aa", 1, 2)];
        let all = Condition::splitting(&places);
        assert!(all.contains(&Condition::NameBefore("b".into())));
        assert!(!all.contains(&Condition::NameBefore("aa".into())) || places.iter().any(|x| x.name.as_str() < "aa"));
        for c in &all {
            let n = places.iter().filter(|x| c.holds(x)).count();
            assert!(n > 0 && n < 3, "{c:?}");
            assert_eq!(Condition::from_json(&c.to_json()).as_ref(), Some(c));
        }
        assert!(Condition::splitting(&places[..1]).is_empty());
        let c = conditions(&mut stream("k", "c"), 10, 4, &places);
        assert_eq!(c.iter().filter(|x| x.is_some()).count(), 4);
    }
}
