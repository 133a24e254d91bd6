//! The Traces view's state (`web::traces`): the loaded sessions, the hand corrections of their
//! labels, the session on show and what the reader does in it, in one struct with its
//! [`TracesAction`]s and a pure reducer.

use cabrito_analysis::results::input::Problem;
use cabrito_analysis::traces::{Label, Session};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Everything loaded, kept while the page lives.
#[derive(Default)]
pub struct TracesData {
    pub sessions: Vec<Session>,
    pub problems: Vec<Problem>,
    /// Bumped at every load; the view's memos key on it.
    pub generation: u64,
    /// Reading and labelling, milliseconds.
    pub label_ms: Option<f64>,
    /// What the built-in sample is, while the data is the sample (and not the reader's own).
    pub sample: Option<String>,
}

/// Hand corrections: (session index, call index) → label.
pub type Corrections = BTreeMap<(usize, usize), Label>;

/// How many calls the timeline shows at first (more on request).
pub const PAGE: usize = 200;

/// The Traces view's state.
#[derive(Clone)]
pub struct TracesState {
    pub data: Rc<TracesData>,
    pub fixes: Rc<Corrections>,
    /// What is being read, while it is.
    pub busy: Option<String>,
    /// The session on show.
    pub selected: Option<usize>,
    /// Of the session on show: how many calls its timeline shows,
    pub shown: usize,
    /// the call picked,
    pub picked: Option<usize>,
    /// whether every call up to the picked one is marked,
    pub cumulative: bool,
    /// the link typed for its task,
    pub link_text: String,
    /// and its task's link (its own, or the one typed).
    pub link: Option<String>,
    /// Why something could not be loaded.
    pub note: Option<String>,
}

impl PartialEq for TracesState {
    fn eq(&self, o: &Self) -> bool {
        self.data.generation == o.data.generation
            && Rc::ptr_eq(&self.fixes, &o.fixes)
            && (&self.busy, self.selected, self.shown, self.picked, self.cumulative, &self.link_text, &self.link)
                == (&o.busy, o.selected, o.shown, o.picked, o.cumulative, &o.link_text, &o.link)
            && self.note == o.note
    }
}

/// What changes the Traces view's state.
pub enum TracesAction {
    /// Reading files (what, for the status line).
    Busy(String),
    /// New data: the first new session on show (or, when none came, the one that was).
    Loaded(Rc<TracesData>),
    /// Everything cleared: no data, no corrections.
    Cleared(Rc<TracesData>),
    /// New data in place of the old (the sample, or the reader's files in place of the sample): no
    /// corrections, the first session on show.
    Replaced(Rc<TracesData>),
    /// A call's label set by hand (`None`: back to the rules').
    Fix {
        session: usize,
        call: usize,
        label: Option<Label>,
    },
    Select(usize),
    ShowMore,
    PickCall(usize),
    Cumulative(bool),
    LinkText(String),
    /// Show the task of the link typed.
    AttachLink,
    Note(String),
}

impl TracesState {
    pub fn new(data: Rc<TracesData>, fixes: Rc<Corrections>) -> TracesState {
        let selected = (!data.sessions.is_empty()).then_some(0);
        TracesState {
            data,
            fixes,
            busy: None,
            selected: None,
            shown: PAGE,
            picked: None,
            cumulative: false,
            link_text: String::new(),
            link: None,
            note: None,
        }
        .select(selected)
    }

    /// `si` on show, its timeline from the start.
    fn select(self, si: Option<usize>) -> TracesState {
        let link = si.and_then(|i| self.data.sessions.get(i)).and_then(|s| s.task.link.clone());
        TracesState {
            selected: si,
            shown: PAGE,
            picked: None,
            cumulative: false,
            link_text: String::new(),
            link,
            ..self
        }
    }

    pub fn reduce(mut self, action: TracesAction) -> TracesState {
        match action {
            TracesAction::Busy(what) => {
                self.busy = Some(what);
                self.note = None;
            }
            TracesAction::Note(note) => self.note = Some(note),
            TracesAction::Loaded(data) => {
                let before = self.data.sessions.len();
                let first_new = (data.sessions.len() > before).then_some(before);
                self.data = data;
                self.busy = None;
                let si = first_new.or(self.selected);
                return self.select(si);
            }
            TracesAction::Cleared(data) => {
                self.data = data;
                self.fixes = Rc::new(Corrections::new());
                self.busy = None;
                return self.select(None);
            }
            TracesAction::Replaced(data) => {
                let first = (!data.sessions.is_empty()).then_some(0);
                self.data = data;
                self.fixes = Rc::new(Corrections::new());
                self.busy = None;
                return self.select(first);
            }
            TracesAction::Fix { session, call, label } => {
                let mut f = (*self.fixes).clone();
                match label {
                    Some(l) => f.insert((session, call), l),
                    None => f.remove(&(session, call)),
                };
                self.fixes = Rc::new(f);
            }
            TracesAction::Select(si) => return self.select(Some(si)),
            TracesAction::ShowMore => self.shown += PAGE,
            TracesAction::PickCall(ci) => self.picked = Some(ci),
            TracesAction::Cumulative(on) => self.cumulative = on,
            TracesAction::LinkText(t) => self.link_text = t,
            TracesAction::AttachLink => {
                let t = self.link_text.trim();
                if !t.is_empty() {
                    self.link = Some(t.to_string());
                }
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(generation: u64, links: &[Option<&str>]) -> Rc<TracesData> {
        let sessions = links
            .iter()
            .enumerate()
            .map(|(i, l)| Session {
                id: format!("s{i}"),
                format: cabrito_analysis::traces::Format::Plain,
                model: String::new(),
                agent: String::new(),
                calls: Vec::new(),
                turns: Vec::new(),
                usage: Default::default(),
                task: cabrito_analysis::traces::TaskRef { link: l.map(str::to_string), ..Default::default() },
                problems: Vec::new(),
                path: String::new(),
            })
            .collect();
        Rc::new(TracesData { sessions, generation, ..TracesData::default() })
    }

    #[test]
    fn loading_shows_the_first_new_session_from_its_start() {
        let s = TracesState::new(data(0, &[]), Rc::default());
        assert_eq!(s.selected, None);
        let s =
            s.reduce(TracesAction::Busy("Reading…".into())).reduce(TracesAction::Loaded(data(1, &[None, Some("q")])));
        assert_eq!((s.selected, s.busy.clone(), s.link.clone()), (Some(0), None, None));
        let s =
            s.reduce(TracesAction::PickCall(3)).reduce(TracesAction::ShowMore).reduce(TracesAction::Cumulative(true));
        assert_eq!((s.picked, s.shown, s.cumulative), (Some(3), 2 * PAGE, true));
        let s = s.reduce(TracesAction::Loaded(data(2, &[None, Some("q"), Some("r")])));
        assert_eq!(
            (s.selected, s.picked, s.shown, s.cumulative, s.link.as_deref()),
            (Some(2), None, PAGE, false, Some("r"))
        );
        // Nothing new: the session on show stays, its timeline from the start.
        let s = s.reduce(TracesAction::Select(1)).reduce(TracesAction::PickCall(1));
        let s = s.reduce(TracesAction::Loaded(data(3, &[None, Some("q"), Some("r")])));
        assert_eq!((s.selected, s.picked, s.link.as_deref()), (Some(1), None, Some("q")));
    }

    #[test]
    fn corrections_set_unset_and_clear() {
        let s = TracesState::new(data(1, &[None]), Rc::default())
            .reduce(TracesAction::Fix { session: 0, call: 2, label: Some(Label::ALL[0]) })
            .reduce(TracesAction::Fix { session: 0, call: 3, label: Some(Label::ALL[1]) })
            .reduce(TracesAction::Fix { session: 0, call: 2, label: None });
        assert_eq!(s.fixes.keys().collect::<Vec<_>>(), [&(0, 3)]);
        let s = s.reduce(TracesAction::Cleared(data(2, &[])));
        assert!(s.fixes.is_empty() && s.selected.is_none() && s.data.sessions.is_empty());
    }

    #[test]
    fn new_data_in_place_of_the_old_shows_its_first_session_without_corrections() {
        let s = TracesState::new(data(1, &[None, None, None]), Rc::default())
            .reduce(TracesAction::Select(2))
            .reduce(TracesAction::Fix { session: 2, call: 0, label: Some(Label::ALL[0]) })
            .reduce(TracesAction::Replaced(data(2, &[Some("q")])));
        assert_eq!((s.selected, s.fixes.len(), s.link.as_deref()), (Some(0), 0, Some("q")));
        let s = s.reduce(TracesAction::Replaced(data(3, &[])));
        assert_eq!(s.selected, None);
    }

    #[test]
    fn a_typed_link_is_taken_when_it_is_not_blank() {
        let s = TracesState::new(data(1, &[None]), Rc::default()).reduce(TracesAction::LinkText("  ".into()));
        assert_eq!(s.clone().reduce(TracesAction::AttachLink).link, None);
        let s = s.reduce(TracesAction::LinkText(" #/task?v=1 ".into())).reduce(TracesAction::AttachLink);
        assert_eq!(s.link.as_deref(), Some("#/task?v=1"));
    }
}
