//! The Results view's state (`web::results`): the loaded results, what the reader picked and typed,
//! in one struct with its [`ResultsAction`]s and a pure reducer.

use cabrito_analysis::results::aggregate::{Facet, Point};
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
            ResultsAction::Busy(what) => self.busy = Some(what),
            ResultsAction::Loaded(data) => {
                self.data = data;
                self.busy = None;
                self.cell = None;
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
        Cell { series: "m".into(), axis: "traversal".into(), kind: "dead_code".into(), domain: "math".into(), n: n.into() }
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
