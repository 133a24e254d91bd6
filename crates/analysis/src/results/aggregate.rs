//! Accuracy per model × axis × kind × domain × `n` with Wilson 95% intervals (the paper's figure 2
//! and its facets by kind and domain), which checks fail as `n` grows, and the comparison of two
//! result sets (the difference per cell with Newcombe's interval, and the tasks that flipped), and
//! what the answers cost against `n` (the ledger's totals the response records carry).

use super::read::{CountRow, Dataset, TaskResult};
use super::runs;
use cabrito_check::grade::wilson;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A line of the figures: one model of one loaded set.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Series {
    pub set: usize,
    pub model: Arc<str>,
}

impl Series {
    pub fn of(r: &TaskResult) -> Series {
        Series { set: r.set, model: r.model.clone() }
    }
    /// The name shown: the model, prefixed by its set's name when several sets are loaded.
    pub fn name(&self, ds: &Dataset) -> String {
        if ds.sets.len() > 1 {
            format!("{} · {}", ds.sets.get(self.set).map_or("?", String::as_str), self.model)
        } else {
            self.model.to_string()
        }
    }
    /// A stable text key (`set/model`) for links and form values.
    pub fn key(&self) -> String {
        format!("{}/{}", self.set, self.model)
    }
    pub fn parse_key(key: &str) -> Option<Series> {
        let (s, m) = key.split_once('/')?;
        Some(Series { set: s.parse().ok()?, model: Arc::from(m) })
    }
}

/// Every series in the dataset, by set then model.
pub fn all_series(ds: &Dataset) -> Vec<Series> {
    let mut v: Vec<Series> = ds.records.iter().map(Series::of).collect();
    v.extend(ds.counts.iter().map(|c| Series { set: c.set, model: c.model.clone() }));
    v.sort();
    v.dedup();
    v
}

/// How the points of a figure are split beyond axis and `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Facet {
    /// One panel per axis (the paper's figure 2).
    All,
    /// One row of panels per kind (appendix A.3–A.4).
    Kind,
    /// One row of panels per domain (appendix A.5–A.6).
    Domain,
}

impl Facet {
    pub const ALL: &'static [Facet] = &[Facet::All, Facet::Kind, Facet::Domain];
    pub fn as_str(self) -> &'static str {
        match self {
            Facet::All => "all",
            Facet::Kind => "kind",
            Facet::Domain => "domain",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Facet::All => "every kind and domain together",
            Facet::Kind => "one row per kind",
            Facet::Domain => "one row per domain",
        }
    }
    pub fn parse(s: &str) -> Option<Facet> {
        Facet::ALL.iter().copied().find(|f| f.as_str() == s)
    }
}

/// Which results count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    /// Only these series (all when `None`).
    pub series: Option<Vec<Series>>,
    pub kinds: Option<Vec<String>>,
    pub domains: Option<Vec<String>>,
}

impl Filter {
    fn keeps(&self, s: &Series, kind: &str, domain: &str) -> bool {
        self.series.as_ref().is_none_or(|v| v.contains(s))
            && self.kinds.as_ref().is_none_or(|v| v.iter().any(|k| k == kind))
            && self.domains.as_ref().is_none_or(|v| v.iter().any(|d| d == domain))
    }
}

/// One point of a figure (one cell of a table): a series on one axis, kind, domain and `n`
/// (`all` for what is pooled).
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub series: Series,
    pub axis: Arc<str>,
    pub kind: Arc<str>,
    pub domain: Arc<str>,
    pub n: Option<f64>,
    pub tasks: usize,
    pub passed: usize,
    /// Wilson 95% interval.
    pub lo: f64,
    pub hi: f64,
    /// Indices into [`Dataset::records`] (empty for counts from a summary).
    pub records: Vec<usize>,
}

impl Point {
    pub fn accuracy(&self) -> f64 {
        if self.tasks == 0 {
            0.0
        } else {
            self.passed as f64 / self.tasks as f64
        }
    }
}

/// A sortable key for `n` (thousandths; unknown last).
pub fn n_key(n: Option<f64>) -> i64 {
    n.map_or(i64::MAX, |x| (x * 1000.0).round() as i64)
}

type CellKey = (Series, usize, Arc<str>, Arc<str>, Arc<str>, i64);

/// Accuracy of every cell: per series × axis × (kind or `all`) × (domain or `all`) × `n`.
pub fn accuracy(ds: &Dataset, facet: Facet, filter: &Filter) -> Vec<Point> {
    let by_kind = facet == Facet::Kind;
    let by_domain = facet == Facet::Domain;
    cells(ds, by_kind, by_domain, filter)
}

/// Accuracy split by both kind and domain (the finest table).
pub fn accuracy_fine(ds: &Dataset, filter: &Filter) -> Vec<Point> {
    cells(ds, true, true, filter)
}

fn cells(ds: &Dataset, by_kind: bool, by_domain: bool, filter: &Filter) -> Vec<Point> {
    let all: Arc<str> = Arc::from("all");
    let mut map: BTreeMap<CellKey, Point> = BTreeMap::new();
    let mut cell = |s: Series, axis: &Arc<str>, kind: &Arc<str>, domain: &Arc<str>, n: Option<f64>| -> CellKey {
        let k = if by_kind { kind.clone() } else { all.clone() };
        let d = if by_domain { domain.clone() } else { all.clone() };
        let key = (s.clone(), runs::axis_rank(axis), axis.clone(), k.clone(), d.clone(), n_key(n));
        map.entry(key.clone()).or_insert_with(|| Point {
            series: s,
            axis: axis.clone(),
            kind: k,
            domain: d,
            n,
            tasks: 0,
            passed: 0,
            lo: 0.0,
            hi: 1.0,
            records: Vec::new(),
        });
        key
    };
    let mut keys: Vec<(CellKey, usize, bool)> = Vec::new();
    for (i, r) in ds.records.iter().enumerate() {
        let s = Series::of(r);
        if !filter.keeps(&s, &r.kind, &r.domain) {
            continue;
        }
        keys.push((cell(s, &r.axis, &r.kind, &r.domain, r.n), i, r.passed));
    }
    let rows: Vec<&CountRow> = ds.counts_without_records();
    let mut row_keys: Vec<(CellKey, usize, usize)> = Vec::new();
    for c in rows {
        let s = Series { set: c.set, model: c.model.clone() };
        if !filter.keeps(&s, &c.kind, &c.domain) {
            continue;
        }
        row_keys.push((cell(s, &c.axis, &c.kind, &c.domain, c.n), c.tasks, c.passed));
    }
    for (k, i, passed) in keys {
        let p = map.get_mut(&k).expect("cell made above");
        p.tasks += 1;
        p.passed += usize::from(passed);
        p.records.push(i);
    }
    for (k, tasks, passed) in row_keys {
        let p = map.get_mut(&k).expect("cell made above");
        p.tasks += tasks;
        p.passed += passed;
    }
    map.into_values()
        .map(|mut p| {
            (p.lo, p.hi) = wilson(p.passed, p.tasks);
            p
        })
        .collect()
}

/// How often one check kind failed (or errored) among the tasks of a cell that ran it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRate {
    pub series: Series,
    pub axis: Arc<str>,
    pub n: Option<f64>,
    pub check: Arc<str>,
    /// Tasks whose record has this check.
    pub tasks: usize,
    /// Of those, the ones where it failed or errored.
    pub failed: usize,
}

impl CheckRate {
    pub fn rate(&self) -> f64 {
        if self.tasks == 0 {
            0.0
        } else {
            self.failed as f64 / self.tasks as f64
        }
    }
}

/// Series, axis rank, axis, `n`, check.
type RateKey = (Series, usize, Arc<str>, i64, Arc<str>);

/// The pseudo-check counted when a response could not be read at all.
pub const UNREADABLE: &str = "response_unreadable";

/// Per series × axis × `n` × check kind: how many tasks ran the check and how many failed it.
/// An unreadable response counts as a failed [`UNREADABLE`] check.
pub fn check_failures(ds: &Dataset, filter: &Filter) -> Vec<CheckRate> {
    let unreadable: Arc<str> = Arc::from(UNREADABLE);
    let mut map: BTreeMap<RateKey, CheckRate> = BTreeMap::new();
    for r in &ds.records {
        let s = Series::of(r);
        if !filter.keeps(&s, &r.kind, &r.domain) {
            continue;
        }
        let mut add = |check: &Arc<str>, failed: bool| {
            let key = (s.clone(), runs::axis_rank(&r.axis), r.axis.clone(), n_key(r.n), check.clone());
            let e = map.entry(key).or_insert_with(|| CheckRate {
                series: s.clone(),
                axis: r.axis.clone(),
                n: r.n,
                check: check.clone(),
                tasks: 0,
                failed: 0,
            });
            e.tasks += 1;
            e.failed += usize::from(failed);
        };
        add(&unreadable, !r.parsed);
        for (k, c) in r.checks.iter() {
            add(k, c.fail > 0 || c.error > 0);
        }
    }
    map.into_values().collect()
}

/// The checks that fail most over a set of rates, most failures first.
pub fn worst_checks(rates: &[CheckRate]) -> Vec<(Arc<str>, usize, usize)> {
    let mut totals: HashMap<Arc<str>, (usize, usize)> = HashMap::new();
    for r in rates {
        let e = totals.entry(r.check.clone()).or_default();
        e.0 += r.failed;
        e.1 += r.tasks;
    }
    let mut v: Vec<(Arc<str>, usize, usize)> = totals.into_iter().map(|(k, (f, t))| (k, f, t)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The difference B − A in one cell, with Newcombe's hybrid score interval (method 10).
#[derive(Clone, Debug, PartialEq)]
pub struct Diff {
    pub axis: Arc<str>,
    pub kind: Arc<str>,
    pub domain: Arc<str>,
    pub n: Option<f64>,
    pub a_tasks: usize,
    pub a_passed: usize,
    pub b_tasks: usize,
    pub b_passed: usize,
    pub diff: f64,
    pub lo: f64,
    pub hi: f64,
}

/// Newcombe's interval for the difference of two independent proportions, from their Wilson
/// intervals: returns (pb − pa, low, high).
pub fn newcombe(a_passed: usize, a_tasks: usize, b_passed: usize, b_tasks: usize) -> (f64, f64, f64) {
    let p = |x: usize, n: usize| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    let (pa, pb) = (p(a_passed, a_tasks), p(b_passed, b_tasks));
    let (la, ua) = wilson(a_passed, a_tasks);
    let (lb, ub) = wilson(b_passed, b_tasks);
    let d = pb - pa;
    let lo = d - libm::sqrt((pb - lb).powi(2) + (ua - pa).powi(2));
    let hi = d + libm::sqrt((ub - pb).powi(2) + (pa - la).powi(2));
    (d, lo.max(-1.0), hi.min(1.0))
}

/// B − A per cell present in both.
pub fn compare(ds: &Dataset, a: &Series, b: &Series, facet: Facet) -> Vec<Diff> {
    let pick = |s: &Series| Filter { series: Some(vec![s.clone()]), ..Filter::default() };
    let pa = accuracy(ds, facet, &pick(a));
    let pb = accuracy(ds, facet, &pick(b));
    let key = |p: &Point| (runs::axis_rank(&p.axis), p.axis.clone(), p.kind.clone(), p.domain.clone(), n_key(p.n));
    let bmap: BTreeMap<_, &Point> = pb.iter().map(|p| (key(p), p)).collect();
    let mut out = Vec::new();
    for p in &pa {
        if let Some(q) = bmap.get(&key(p)) {
            let (diff, lo, hi) = newcombe(p.passed, p.tasks, q.passed, q.tasks);
            out.push(Diff {
                axis: p.axis.clone(),
                kind: p.kind.clone(),
                domain: p.domain.clone(),
                n: p.n,
                a_tasks: p.tasks,
                a_passed: p.passed,
                b_tasks: q.tasks,
                b_passed: q.passed,
                diff,
                lo,
                hi,
            });
        }
    }
    out
}

/// A task both series were graded on, with a different outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Flip {
    /// The record of A and of B.
    pub a: usize,
    pub b: usize,
    /// True when B passes and A fails.
    pub now_passes: bool,
}

/// The tasks that flipped between A and B (same run, task set, task type and dag_id).
pub fn flips(ds: &Dataset, a: &Series, b: &Series) -> Vec<Flip> {
    let of = |s: &Series| -> HashMap<_, usize> {
        ds.records.iter().enumerate().filter(|(_, r)| Series::of(r) == *s).map(|(i, r)| (r.task_key(), i)).collect()
    };
    let bmap = of(b);
    let mut out: Vec<Flip> = ds
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| Series::of(r) == *a)
        .filter_map(|(i, r)| {
            let j = *bmap.get(&r.task_key())?;
            (r.passed != ds.records[j].passed).then_some(Flip { a: i, b: j, now_passes: ds.records[j].passed })
        })
        .collect();
    out.sort_by(|x, y| {
        let (rx, ry) = (&ds.records[x.a], &ds.records[y.a]);
        (runs::axis_rank(&rx.axis), &rx.axis, n_key(rx.n), &rx.kind, &rx.domain, &rx.name).cmp(&(
            runs::axis_rank(&ry.axis),
            &ry.axis,
            n_key(ry.n),
            &ry.kind,
            &ry.domain,
            &ry.name,
        ))
    });
    out
}

/// What the answers of one series on one axis and `n` cost, on average over the tasks whose
/// response record says (pooled over kinds and domains).
#[derive(Clone, Debug, PartialEq)]
pub struct CostPoint {
    pub series: Series,
    pub axis: Arc<str>,
    pub n: Option<f64>,
    /// Results whose response gave a cost.
    pub tasks: usize,
    /// Dollars per task.
    pub cost: f64,
    pub tool_calls: f64,
    pub input_tokens: f64,
    pub output_tokens: f64,
}

/// Mean cost per series × axis × `n`, from the results whose responses were loaded with them.
pub fn cost(ds: &Dataset, filter: &Filter) -> Vec<CostPoint> {
    #[derive(Default)]
    struct Sum {
        tasks: usize,
        cost: f64,
        calls: f64,
        input: f64,
        output: f64,
        n: Option<f64>,
    }
    let mut cells: BTreeMap<(Series, usize, Arc<str>, i64), Sum> = BTreeMap::new();
    for r in &ds.records {
        let s = Series::of(r);
        if !filter.keeps(&s, &r.kind, &r.domain) {
            continue;
        }
        let Some(spend) = ds.spend_of(r) else { continue };
        let Some(c) = spend.cost else { continue };
        let e = cells.entry((s, runs::axis_rank(&r.axis), r.axis.clone(), n_key(r.n))).or_default();
        e.tasks += 1;
        e.cost += c;
        e.calls += spend.tool_calls.unwrap_or(0.0);
        e.input += spend.input_tokens.unwrap_or(0.0);
        e.output += spend.output_tokens.unwrap_or(0.0);
        e.n = r.n;
    }
    cells
        .into_iter()
        .map(|((series, _, axis, _), m)| {
            let k = m.tasks.max(1) as f64;
            CostPoint {
                series,
                axis,
                n: m.n,
                tasks: m.tasks,
                cost: m.cost / k,
                tool_calls: m.calls / k,
                input_tokens: m.input / k,
                output_tokens: m.output / k,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newcombe_matches_a_known_value() {
        // Newcombe (1998), example (a): 56/70 vs 48/80 gives 0.2 with [0.0524, 0.3339].
        let (d, lo, hi) = newcombe(48, 80, 56, 70);
        assert!((d - 0.2).abs() < 1e-9);
        assert!((lo - 0.0524).abs() < 1e-3, "{lo}");
        assert!((hi - 0.3339).abs() < 1e-3, "{hi}");
        let (d, lo, hi) = newcombe(0, 0, 0, 0);
        assert_eq!(d, 0.0);
        assert!(lo >= -1.0 && hi <= 1.0);
    }

    #[test]
    fn series_keys_round_trip() {
        let s = Series { set: 2, model: Arc::from("code/openrouter/openai/gpt-5") };
        assert_eq!(Series::parse_key(&s.key()), Some(s));
        assert_eq!(Series::parse_key("x"), None);
    }
}
