//! What the task page hands its lazily loaded grade panel (`src/bin/grade.rs`, `web::grade`): the one
//! definition of the message between the app's wasm and the grade module's.
//!
//! ```text
//!  app (TaskView, web::grade_host)                         grade module (web::grade)
//!  GradeTask::of(spec, task, shared).to_json() ── mount(root, json) ──►  GradeTask::from_json → GradePanel
//!  (again on every new task or shared solution) ── mount(root, json) ──►  the same panel, new props
//! ```
//!
//! The module does not regenerate the task: it gets the task's texts as generated (byte for byte
//! the starter and reference the page shows, and the metadata the checker reads), as the checker
//! request it will send with an empty response. Handing over the texts is faster than generating
//! again at every size (BENCHMARKS.md, "The grade panel as a module"), and keeps the generator out of
//! the grade module.

use crate::protocol::checker::Request;
use crate::{Task, TaskSpec};
use serde::{Deserialize, Serialize};

/// The task the grade panel grades, and a solution that came with the link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeTask {
    /// The page's spec: the worker's grade job and the "share with solution" link name it.
    pub spec: TaskSpec,
    /// The task as the static checker reads it (`id` 0, `response` empty): kind, domain, axis,
    /// starter, reference, metadata.
    pub task: Request,
    /// A solution shared in the link, or why it cannot be read.
    pub shared: Option<Result<String, String>>,
}

impl GradeTask {
    /// The hand-off for a task shown under `spec`.
    pub fn of(spec: &TaskSpec, task: &Task, shared: Option<Result<String, String>>) -> GradeTask {
        GradeTask { spec: spec.clone(), task: Request::for_task(0, task, ""), shared }
    }

    /// The checker request for `response` to this task.
    pub fn request(&self, id: u64, response: &str) -> Request {
        Request { id, response: response.to_string(), ..self.task.clone() }
    }

    /// The starter solution.py, as the page shows it.
    pub fn starter(&self) -> &str {
        &self.task.starter
    }

    /// The reference solution, as the page shows it.
    pub fn reference(&self) -> &str {
        &self.task.reference
    }

    /// As the text `mount` carries.
    pub fn to_json(&self) -> String {
        // A struct of strings, a spec and a JSON value always serialises.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Read what `mount` carried; anything else is a one-line reason.
    pub fn from_json(text: &str) -> Result<GradeTask, String> {
        serde_json::from_str(text).map_err(|e| format!("the grade panel was handed something that is not a task: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Axis, Domain, Kind};
    use crate::task::generate;

    #[test]
    fn the_hand_off_carries_the_task_byte_for_byte() {
        let specs = [
            TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 25, 3),
            TaskSpec::new(Kind::DeadCode, Domain::String, Axis::Runtime, 10, 7),
            TaskSpec::new(Kind::CacheFunction, Domain::Array, Axis::Instructions, 10, 1),
            TaskSpec { kind: Kind::MergeCodebases, ..TaskSpec::default() },
        ];
        for (i, spec) in specs.iter().enumerate() {
            let task = generate(spec).unwrap();
            let shared = match i {
                0 => None,
                1 => Some(Ok("def f():\n    return 'é\\n'\n".to_string())),
                _ => Some(Err("the shared solution cannot be read".to_string())),
            };
            let h = GradeTask::of(spec, &task, shared.clone());
            let back = GradeTask::from_json(&h.to_json()).unwrap();
            assert_eq!(back, h, "{spec:?}");
            assert_eq!(back.starter(), task.starter_code);
            assert_eq!(back.reference(), task.solution_code);
            assert_eq!(back.shared, shared);
            assert_eq!(back.spec, *spec);
            // The checker gets what it got when the panel built its request from the task.
            assert_eq!(back.request(9, "x = 1\n"), Request::for_task(9, &task, "x = 1\n"));
        }
    }

    #[test]
    fn anything_else_is_a_one_line_reason() {
        for bad in ["", "null", "{}", "[1,2]", "{\"spec\": 3}", "\u{0}"] {
            let e = GradeTask::from_json(bad).unwrap_err();
            assert!(e.starts_with("the grade panel was handed something that is not a task"), "{bad:?}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
