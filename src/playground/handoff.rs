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

use cabrito_check::protocol::checker::Request;
use cabrito_gen::{Task, TaskSpec};
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
    /// A solution as the link carries it (deflated, base64url), which [`GradeTask::from_json`] reads
    /// into `shared` on the module's side: the page sends it unread, so its first download has no
    /// inflater. Never set after `from_json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_solution: Option<String>,
}

impl GradeTask {
    /// The hand-off for a task shown under `spec`.
    pub fn of(spec: &TaskSpec, task: &Task, shared: Option<Result<String, String>>) -> GradeTask {
        GradeTask { spec: spec.clone(), task: Request::for_task(0, task, ""), shared, link_solution: None }
    }

    /// The hand-off the page sends: the solution in the link (if any) as the link carries it.
    pub fn with_link_solution(spec: &TaskSpec, task: &Task, encoded: Option<String>) -> GradeTask {
        GradeTask { link_solution: encoded, ..GradeTask::of(spec, task, None) }
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

    /// Read what `mount` carried; anything else is a one-line reason that names the field (its path,
    /// as `spec.n` or `task.starter`): not JSON, a field missing or of the wrong type, a spec out of
    /// range, or a task of another kind, domain or axis than the spec.
    pub fn from_json(text: &str) -> Result<GradeTask, String> {
        let why = |e: String| format!("the grade panel was handed something that is not a task: {}", one_line(&e));
        let mut de = serde_json::Deserializer::from_str(text);
        let t: GradeTask =
            serde_path_to_error::deserialize(&mut de).map_err(|e| why(format!("{}: {}", e.path(), e.inner())))?;
        de.end().map_err(|e| why(e.to_string()))?;
        t.check().map_err(why)?;
        let mut t = t;
        if let Some(encoded) = t.link_solution.take() {
            t.shared = Some(super::share::decode_solution(&encoded));
        }
        Ok(t)
    }

    /// What serde cannot see: the spec in range, and the task made for it.
    fn check(&self) -> Result<(), String> {
        self.spec.validate().map_err(|e| format!("spec.{}: {e}", e.key))?;
        let (s, t) = (&self.spec, &self.task);
        if t.kind != s.kind {
            return Err(format!("task.kind: {} is not the spec's kind, {}", t.kind.as_str(), s.kind.as_str()));
        }
        if t.domain != s.domain {
            return Err(format!("task.domain: {} is not the spec's domain, {}", t.domain.as_str(), s.domain.as_str()));
        }
        if t.axis != s.axis {
            return Err(format!("task.axis: {} is not the spec's axis, {}", t.axis.as_str(), s.axis.as_str()));
        }
        Ok(())
    }
}

/// `text` on one line (control characters as spaces) and at most 300 bytes: error messages quote
/// values they cannot read, and a handed value can be of any size.
pub fn one_line(text: &str) -> String {
    const MAX: usize = 300;
    let mut out: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if out.len() > MAX {
        let mut end = MAX;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_gen::spec::{Axis, Domain, Kind};
    use cabrito_gen::task::generate;

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

    /// The page sends the link's solution unread; the module reads it, or says why it cannot.
    #[test]
    fn the_link_solution_is_read_on_the_module_side() {
        let spec = TaskSpec::default();
        let task = generate(&spec).unwrap();
        let text = "def f():\n    return 'é'\n";
        let enc = crate::playground::share::encode_solution(text);
        let sent = GradeTask::with_link_solution(&spec, &task, Some(enc.clone()));
        assert!(sent.to_json().contains(&enc));
        let back = GradeTask::from_json(&sent.to_json()).unwrap();
        assert_eq!(back.shared, Some(Ok(text.to_string())));
        assert_eq!(back.link_solution, None);
        let damaged = GradeTask::with_link_solution(&spec, &task, Some(format!("{}!", &enc[..enc.len() / 2])));
        let back = GradeTask::from_json(&damaged.to_json()).unwrap();
        assert!(matches!(&back.shared, Some(Err(why)) if why.contains("damaged")), "{:?}", back.shared);
        let none = GradeTask::from_json(&GradeTask::with_link_solution(&spec, &task, None).to_json()).unwrap();
        assert_eq!(none.shared, None);
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
