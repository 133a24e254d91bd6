//! The task view's state (`web::view::TaskView`): one struct, its [`TaskAction`]s and a pure reducer,
//! so what a click or a new task does is tested natively.

use crate::playground::route::SidePanel;
use std::rc::Rc;

/// Which code the code panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeTab {
    Starter,
    Reference,
    Diff,
}

/// "Why this branch?" open on a function's guard (its pre-order index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhyOpen {
    pub function: Rc<str>,
    pub guard: usize,
}

/// Everything the task view changes on its own (the task and the link come as props).
#[derive(Clone, Debug, PartialEq)]
pub struct TaskViewState {
    /// The function selected in the code or the graph.
    pub selected: Option<Rc<str>>,
    /// The function under the pointer.
    pub hovered: Option<Rc<str>>,
    pub code_tab: CodeTab,
    /// The reference solution is shown (it starts hidden).
    pub revealed: bool,
    /// Merge Codebases: the whole file's `<details>` under the two classes is open.
    pub whole_open: bool,
    /// The graph panel's zoom factor.
    pub zoom: f64,
    /// Runtime tasks: the guard "why this branch?" works out, else the list of functions.
    pub why: Option<WhyOpen>,
    /// Instruction following: the requirement picked in the list (its number).
    pub picked: Option<usize>,
    /// The side panel asked for (by the link or a switch); the view shows it if the task has it.
    pub panel: Option<SidePanel>,
}

/// What changes the task view's state.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskAction {
    /// Another task: nothing selected, the starter on show, the reference hidden, no guard or
    /// requirement picked.
    NewTask,
    Select(Option<Rc<str>>),
    Hover(Option<Rc<str>>),
    CodeTab(CodeTab),
    Reveal,
    WholeFile(bool),
    /// Zoom by a factor (within 0.2 and 4), or back to fit with `None`.
    Zoom(Option<f64>),
    /// Open "why this branch?" on a guard, in the Why panel.
    Explain(WhyOpen),
    /// Back to the list of functions.
    CloseWhy,
    /// A requirement clicked: picked (the reference shown with its lines), or unpicked when it was.
    Pick(usize),
    /// A panel switched to.
    Panel(SidePanel),
}

impl TaskViewState {
    /// A task view opened on the panel its link asks for.
    pub fn new(panel: Option<SidePanel>) -> TaskViewState {
        TaskViewState {
            selected: None,
            hovered: None,
            code_tab: CodeTab::Starter,
            revealed: false,
            whole_open: false,
            zoom: 1.0,
            why: None,
            picked: None,
            panel,
        }
    }

    pub fn reduce(self, action: TaskAction) -> TaskViewState {
        match action {
            TaskAction::NewTask => TaskViewState {
                selected: None,
                code_tab: CodeTab::Starter,
                revealed: false,
                why: None,
                picked: None,
                ..self
            },
            TaskAction::Select(selected) => TaskViewState { selected, ..self },
            TaskAction::Hover(hovered) => TaskViewState { hovered, ..self },
            TaskAction::CodeTab(code_tab) => TaskViewState { code_tab, ..self },
            TaskAction::Reveal => TaskViewState { revealed: true, ..self },
            TaskAction::WholeFile(whole_open) => TaskViewState { whole_open, ..self },
            TaskAction::Zoom(factor) => {
                let zoom = factor.map_or(1.0, |f| (self.zoom * f).clamp(0.2, 4.0));
                TaskViewState { zoom, ..self }
            }
            TaskAction::Explain(why) => TaskViewState { why: Some(why), panel: Some(SidePanel::Why), ..self },
            TaskAction::CloseWhy => TaskViewState { why: None, ..self },
            TaskAction::Pick(n) if self.picked == Some(n) => TaskViewState { picked: None, ..self },
            TaskAction::Pick(n) => {
                TaskViewState { picked: Some(n), revealed: true, code_tab: CodeTab::Reference, ..self }
            }
            TaskAction::Panel(to) => TaskViewState { panel: Some(to), ..self },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> Option<Rc<str>> {
        Some(Rc::from(s))
    }

    #[test]
    fn a_new_task_clears_what_belonged_to_the_old_one() {
        let s = TaskViewState::new(None)
            .reduce(TaskAction::Select(name("f1")))
            .reduce(TaskAction::Reveal)
            .reduce(TaskAction::CodeTab(CodeTab::Diff))
            .reduce(TaskAction::Explain(WhyOpen { function: Rc::from("f2"), guard: 3 }))
            .reduce(TaskAction::Pick(2))
            .reduce(TaskAction::Zoom(Some(2.0)))
            .reduce(TaskAction::WholeFile(true));
        assert_eq!(s.panel, Some(SidePanel::Why));
        let n = s.clone().reduce(TaskAction::NewTask);
        assert_eq!(
            (n.selected.clone(), n.code_tab, n.revealed, n.why.clone(), n.picked),
            (None, CodeTab::Starter, false, None, None)
        );
        // The reader's zoom, open fold and panel stay.
        assert_eq!((n.zoom, n.whole_open, n.panel), (2.0, true, Some(SidePanel::Why)));
        // A first task changes nothing (so the view does not render again).
        assert_eq!(TaskViewState::new(None).reduce(TaskAction::NewTask), TaskViewState::new(None));
    }

    #[test]
    fn a_requirement_shows_the_reference_and_toggles() {
        let s = TaskViewState::new(Some(SidePanel::Requirements)).reduce(TaskAction::Pick(4));
        assert_eq!((s.picked, s.revealed, s.code_tab), (Some(4), true, CodeTab::Reference));
        let s = s.reduce(TaskAction::CodeTab(CodeTab::Starter)).reduce(TaskAction::Pick(4));
        assert_eq!((s.picked, s.revealed, s.code_tab), (None, true, CodeTab::Starter));
    }

    #[test]
    fn zoom_stays_in_bounds_and_fits_back() {
        let mut s = TaskViewState::new(None);
        for _ in 0..20 {
            s = s.reduce(TaskAction::Zoom(Some(1.25)));
        }
        assert_eq!(s.zoom, 4.0);
        for _ in 0..40 {
            s = s.reduce(TaskAction::Zoom(Some(0.8)));
        }
        assert_eq!(s.zoom, 0.2);
        assert_eq!(s.reduce(TaskAction::Zoom(None)).zoom, 1.0);
    }

    #[test]
    fn explaining_opens_the_why_panel_and_closing_keeps_it() {
        let s = TaskViewState::new(Some(SidePanel::Graph))
            .reduce(TaskAction::Explain(WhyOpen { function: Rc::from("f"), guard: 0 }));
        assert_eq!(s.panel, Some(SidePanel::Why));
        let s = s.reduce(TaskAction::CloseWhy);
        assert_eq!((s.why, s.panel), (None, Some(SidePanel::Why)));
    }
}
