//! The Results view's state (`web::results`): the loaded results, what the reader picked and typed,
//! in one struct with its [`ResultsAction`]s and a pure reducer; and what the view shows of two
//! models side by side ([`comparison`], [`frontiers`]), from the code of `cabrito report`.

use cabrito_analysis::results::aggregate::{self, all_series, Facet, Filter, Point, Series};
use cabrito_analysis::results::frontier::{self, Frontier};
use cabrito_analysis::results::paired::{self, Paired, PairedTask};
use cabrito_analysis::results::read::Dataset;
use cabrito_analysis::results::runs::format_n;
use std::collections::BTreeSet;
use std::rc::Rc;

/// Everything loaded, kept while the page lives (so coming back from a task finds it again).
#[derive(Default)]
pub struct ResultsData {
    pub ds: Dataset,
    /// Bumped at every load; the view's memos key on it.
    pub generation: u64,
    pub read_ms: Option<f64>,
    /// What the built-in sample is, while the data is the sample (and not the reader's own).
    pub sample: Option<String>,
}

/// The paired comparison of B against A as the view shows it: `cabrito report --compare A,B`'s
/// numbers (its bootstrap resamples and seed).
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub a: Series,
    pub b: Series,
    pub paired: Paired,
    /// Per task both were graded on: the records of A and B.
    pub tasks: Vec<PairedTask>,
}

/// The comparison of the two chosen series, when both are chosen, differ and are loaded.
pub fn comparison(ds: &Dataset, keys: &[String; 2]) -> Option<Comparison> {
    let (a, b) = (Series::parse_key(&keys[0])?, Series::parse_key(&keys[1])?);
    let loaded = all_series(ds);
    if a == b || !loaded.contains(&a) || !loaded.contains(&b) {
        return None;
    }
    let (paired, tasks) = paired::compare_paired(ds, &a, &b, paired::DEFAULT_RESAMPLES, paired::DEFAULT_SEED);
    Some(Comparison { a, b, paired, tasks })
}

/// The capability frontier of every shown series on every axis (the report's, over the pooled points).
pub fn frontiers(ds: &Dataset, hidden: &BTreeSet<String>) -> Vec<Frontier> {
    let filter = Filter {
        series: Some(all_series(ds).into_iter().filter(|s| !hidden.contains(&s.key())).collect()),
        ..Filter::default()
    };
    frontier::frontiers(&aggregate::accuracy(ds, Facet::All, &filter))
}

/// The pair compared when the reader has not chosen one: the first two series loaded.
fn default_pair(ds: &Dataset) -> Option<[String; 2]> {
    match all_series(ds).as_slice() {
        [a, b, ..] => Some([a.key(), b.key()]),
        _ => None,
    }
}

/// A point picked on a figure or in a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub series: String,
    pub axis: String,
    pub kind: String,
    pub domain: String,
    pub n: String,
}

impl Cell {
    pub fn of(p: &Point) -> Cell {
        Cell {
            series: p.series.key(),
            axis: p.axis.to_string(),
            kind: p.kind.to_string(),
            domain: p.domain.to_string(),
            n: format_n(p.n),
        }
    }

    pub fn matches(&self, p: &Point) -> bool {
        *self == Cell::of(p)
    }
}

/// The Results view's state.
#[derive(Clone)]
pub struct ResultsState {
    pub data: Rc<ResultsData>,
    /// What is being read, while it is.
    pub busy: Option<String>,
    pub facet: Facet,
    /// The series (by key) whose lines are hidden.
    pub hidden: BTreeSet<String>,
    /// The point whose tasks are listed.
    pub cell: Option<Cell>,
    /// The two series compared (keys; empty until chosen).
    pub compare: [String; 2],
    /// Load the next files as a new set.
    pub new_set: bool,
    /// Why a task could not be opened.
    pub note: Option<String>,
}

impl PartialEq for ResultsState {
    fn eq(&self, o: &Self) -> bool {
        self.data.generation == o.data.generation
            && (&self.busy, self.facet, &self.hidden, &self.cell, &self.compare, self.new_set, &self.note)
                == (&o.busy, o.facet, &o.hidden, &o.cell, &o.compare, o.new_set, &o.note)
    }
}

/// What changes the Results view's state.
pub enum ResultsAction {
    /// Reading files (what, for the status line).
    Busy(String),
    /// New data (read, or cleared): no point picked any more.
    Loaded(Rc<ResultsData>),
    /// Another facet: the picked point is no longer on the figure.
    Facet(Facet),
    /// Show or hide a series' line.
    ToggleSeries(String),
    Pick(Option<Cell>),
    /// Series `0` (A) or `1` (B) of the comparison.
    Compare(usize, String),
    NewSet(bool),
    Note(String),
}

impl ResultsState {
    pub fn new(data: Rc<ResultsData>) -> ResultsState {
        ResultsState {
            data,
            busy: None,
            facet: Facet::All,
            hidden: BTreeSet::new(),
            cell: None,
            compare: [String::new(), String::new()],
            new_set: false,
            note: None,
        }
    }

    pub fn reduce(mut self, action: ResultsAction) -> ResultsState {
        match action {
            ResultsAction::Busy(what) => {
                self.busy = Some(what);
                self.note = None;
            }
            ResultsAction::Loaded(data) => {
                self.data = data;
                self.busy = None;
                self.cell = None;
                // A pair no longer loaded gives way to the first two series (none: nothing chosen).
                let loaded: Vec<String> = all_series(&self.data.ds).iter().map(Series::key).collect();
                if !self.compare.iter().all(|k| loaded.contains(k)) {
                    self.compare = default_pair(&self.data.ds).unwrap_or_default();
                }
            }
            ResultsAction::Facet(facet) => {
                self.facet = facet;
                self.cell = None;
            }
            ResultsAction::ToggleSeries(key) => {
                if !self.hidden.remove(&key) {
                    self.hidden.insert(key);
                }
            }
            ResultsAction::Pick(cell) => self.cell = cell,
            ResultsAction::Compare(which, key) => {
                if let Some(slot) = self.compare.get_mut(which) {
                    *slot = key;
                }
            }
            ResultsAction::NewSet(on) => self.new_set = on,
            ResultsAction::Note(note) => self.note = Some(note),
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(n: &str) -> Cell {
        Cell {
            series: "m".into(),
            axis: "traversal".into(),
            kind: "dead_code".into(),
            domain: "math".into(),
            n: n.into(),
        }
    }

    #[test]
    fn new_data_and_a_new_facet_drop_the_picked_point() {
        let s = ResultsState::new(Rc::new(ResultsData::default()))
            .reduce(ResultsAction::Busy("Reading…".into()))
            .reduce(ResultsAction::Pick(Some(cell("5"))));
        assert_eq!((s.busy.as_deref(), s.cell.clone()), (Some("Reading…"), Some(cell("5"))));
        let s = s.reduce(ResultsAction::Loaded(Rc::new(ResultsData { generation: 1, ..ResultsData::default() })));
        assert_eq!((s.busy.clone(), s.cell.clone(), s.data.generation), (None, None, 1));
        let s = s.reduce(ResultsAction::Pick(Some(cell("25")))).reduce(ResultsAction::Facet(Facet::Kind));
        assert_eq!((s.cell.clone(), s.facet), (None, Facet::Kind));
    }

    #[test]
    fn series_toggle_and_the_comparison_takes_two() {
        let s = ResultsState::new(Rc::new(ResultsData::default()))
            .reduce(ResultsAction::ToggleSeries("a".into()))
            .reduce(ResultsAction::ToggleSeries("b".into()))
            .reduce(ResultsAction::ToggleSeries("a".into()))
            .reduce(ResultsAction::Compare(1, "b".into()))
            .reduce(ResultsAction::Compare(0, "a".into()))
            .reduce(ResultsAction::Compare(7, "x".into()));
        assert_eq!(s.hidden.iter().collect::<Vec<_>>(), ["b"]);
        assert_eq!(s.compare, ["a".to_string(), "b".to_string()]);
        let s = s.reduce(ResultsAction::NewSet(true)).reduce(ResultsAction::Note("no".into()));
        assert!(s.new_set && s.note.as_deref() == Some("no"));
    }
}
