//! The task view's state (`web::view::TaskView`): one struct, its [`TaskAction`]s and a pure reducer,
//! so what a click or a new task does is tested natively.

use crate::playground::route::SidePanel;
use cabrito_gen::TaskSpec;
use std::rc::Rc;

/// Which code the code panel shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeTab {
    Starter,
    /// The reader's own solution, in the editor (or its diff against the starter).
    Solution,
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
    /// "Your solution" shows its diff against the starter instead of the editor.
    pub solution_diff: bool,
    /// The line of the solution a rubric link asked for, and a count that makes each ask new.
    pub goto: Option<(usize, u32)>,
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
    /// "Your solution": the diff against the starter (`true`) or the editor.
    SolutionDiff(bool),
    /// A rubric line link: the editor on show, at this line (1-based).
    Goto(usize),
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
            solution_diff: false,
            goto: None,
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
            TaskAction::SolutionDiff(solution_diff) => {
                TaskViewState { solution_diff, code_tab: CodeTab::Solution, ..self }
            }
            TaskAction::Goto(line) => {
                let count = self.goto.map_or(0, |(_, c)| c.wrapping_add(1));
                TaskViewState { code_tab: CodeTab::Solution, solution_diff: false, goto: Some((line, count)), ..self }
            }
        }
    }
}

/// The task in one sentence, for the top of the task page (inline code in backticks): what the kind
/// asks, then what the axis adds. `renames` is the number of renames of a variable_renaming task.
pub fn what_to_do(spec: &TaskSpec, renames: usize) -> String {
    let kind = match spec.kind.as_str() {
        "dead_code" => "Delete every function that no chain of calls from `main()` reaches, and leave the others exactly as they are.".to_string(),
        "add_parameter" => "Thread the parameter one function already takes down through every function below it; only the terminal functions use it.".to_string(),
        "add_return_value" => "`external()` now returns a `(value, key)` pair: make every function whose result depends on it return the pair, handing the key up.".to_string(),
        "cache_function" => "Call `slow()` exactly once, in the lowest common ancestor of the functions that call it, and hand its value down to them.".to_string(),
        "extract_helper" => "Compute the shared multiplier once, in the nearest common descendant of the functions that compute it, and return it up to them.".to_string(),
        "merge_codebases" => "Merge `CalculateA` and `CalculateB` into one `Calculate.compute()` (the template method pattern), keeping only their real differences in the subclasses.".to_string(),
        "variable_renaming" => format!("Apply the {} everywhere each variable appears, and change nothing else.", count(renames, "rename", "renames")),
        other => format!("Refactor `solution.py` as the statement says ({other})."),
    };
    let def = spec.axis.def();
    let applies = |key: &str| cabrito_gen::spec::knob(key).is_some_and(|k| (k.applies)(spec).is_ok());
    let axis = if !applies("axis") {
        String::new()
    } else if spec.axis == cabrito_gen::spec::Axis::Runtime {
        " Edit only the branches that run: shaded code never does.".to_string()
    } else if def.instructions() {
        format!(
            " Obey the {} in every function they apply to.",
            count(spec.n as usize, "numbered requirement", "numbered requirements")
        )
    } else if def.copies_comment() {
        " Put the given comment, word for word, in every function you change.".to_string()
    } else {
        String::new()
    };
    format!("{kind}{axis}")
}

use cabrito_gen::words::count;

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

    #[test]
    fn a_rubric_line_opens_the_editor_each_time() {
        let s = TaskViewState::new(None).reduce(TaskAction::SolutionDiff(true));
        assert_eq!((s.code_tab, s.solution_diff), (CodeTab::Solution, true));
        let a = s.reduce(TaskAction::Goto(7));
        assert_eq!((a.code_tab, a.solution_diff, a.goto.map(|g| g.0)), (CodeTab::Solution, false, Some(7)));
        // The same line asked again is a new ask (the editor scrolls back to it).
        let b = a.clone().reduce(TaskAction::CodeTab(CodeTab::Starter)).reduce(TaskAction::Goto(7));
        assert_ne!(a.goto, b.goto);
        assert_eq!(b.code_tab, CodeTab::Solution);
    }

    #[test]
    fn every_kind_and_axis_says_what_to_do_in_a_sentence() {
        use cabrito_gen::spec::{Axis, Domain, Kind};
        for &kind in Kind::ALL {
            for &axis in Axis::ALL {
                let spec = TaskSpec::new(kind, Domain::Math, axis, 5, 0);
                let s = what_to_do(&spec, 1);
                assert!(s.ends_with('.') && s.len() < 260, "{kind:?} {axis:?}: {s}");
                assert!(!s.contains("as the statement says"), "{kind:?} has no sentence of its own: {s}");
                assert_eq!(s.matches('`').count() % 2, 0, "unbalanced code marks: {s}");
                assert!(!s.contains(" 1 renames") && !s.contains(" 1 numbered requirements"), "{s}");
            }
        }
        let r = TaskSpec::new(Kind::ALL[0], Domain::Math, Axis::Instructions, 1, 0);
        assert!(
            what_to_do(&r, 0).contains("the 1 numbered requirement ") || !what_to_do(&r, 0).contains("requirement")
        );
        assert_eq!(count(1, "function", "functions"), "1 function");
        assert_eq!(count(0, "function", "functions"), "0 functions");
    }
}
