//! Spec → task: the task record, and the one entry point that validates a spec and hands it to its
//! kind ([`crate::kinds::TaskKind::generate`]).

use crate::graph::CallGraph;
use crate::kinds::{Built, Role};
use crate::spec::{SpecError, TaskSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Size figures of a task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sizes {
    /// Functions in the starter, `main` excluded.
    pub functions: usize,
    /// Functions the kind changes or deletes.
    pub functions_to_edit: usize,
    pub starter_lines: usize,
    pub starter_chars: usize,
    pub solution_lines: usize,
    /// A rough token count of the whole model prompt (statement + code), at four characters a token.
    pub prompt_tokens_estimate: usize,
}

/// A task record: the reference's fields first (`name`, `dag_id`, `prompt`, `starter_code`,
/// `solution_code`, `metadata`), then Cabrito's own. It serialises as `RecordOut`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Task {
    pub name: String,
    pub dag_id: String,
    pub prompt: String,
    pub starter_code: String,
    pub solution_code: String,
    pub metadata: serde_json::Value,
    pub spec: TaskSpec,
    /// The share link's fragment (`#/task?v=1&…`).
    pub link: String,
    /// The call graph in networkx node-link form.
    pub graph: serde_json::Value,
    /// Each function's role, by name.
    pub roles: BTreeMap<String, Role>,
    /// The functions the kind changes or deletes, sorted by name.
    pub edit_set: Vec<String>,
    pub sizes: Sizes,
    /// Runtime resolution: which branch of each function runs, and its guards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<crate::axes::runtime::Record>,
}

/// A task record's fields by reference, in order: how a [`Task`] serialises (its one `Serialize`),
/// with its graph given apart, so that a record whose graph is kept elsewhere (the app's
/// `playground::gen_answer::Made`) serialises and hashes whole without a copy of the task.
#[derive(Serialize)]
struct RecordOut<'a> {
    name: &'a str,
    dag_id: &'a str,
    prompt: &'a str,
    starter_code: &'a str,
    solution_code: &'a str,
    metadata: &'a serde_json::Value,
    spec: &'a TaskSpec,
    link: &'a str,
    graph: &'a serde_json::Value,
    roles: &'a BTreeMap<String, Role>,
    edit_set: &'a [String],
    sizes: &'a Sizes,
    #[serde(skip_serializing_if = "Option::is_none")]
    runtime: &'a Option<crate::axes::runtime::Record>,
}

impl<'a> RecordOut<'a> {
    fn of(t: &'a Task, graph: &'a serde_json::Value) -> RecordOut<'a> {
        // Every field named (none left to `..`): a field added to `Task` fails to compile here
        // until it is written too.
        let Task {
            name,
            dag_id,
            prompt,
            starter_code,
            solution_code,
            metadata,
            spec,
            link,
            graph: _,
            roles,
            edit_set,
            sizes,
            runtime,
        } = t;
        RecordOut {
            name,
            dag_id,
            prompt,
            starter_code,
            solution_code,
            metadata,
            spec,
            link,
            graph,
            roles,
            edit_set,
            sizes,
            runtime,
        }
    }
}

impl Serialize for Task {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RecordOut::of(self, &self.graph).serialize(s)
    }
}

/// Everything generation produced, for callers that draw or check it (the app, the tests).
#[derive(Clone, Debug)]
pub struct Generated {
    pub task: Task,
    /// What the app draws beside the code, per family of kinds.
    pub view: View,
}

/// What a kind gives the app beyond the record. A kind not made from a call graph (Merge
/// Codebases, variable renaming) adds a variant, and the compiler points at every place that draws one.
// One View per generated task: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum View {
    /// A call-graph kind: the joined graph and the built programs with each function's role.
    Graph { graph: CallGraph, built: Built },
    /// Merge Codebases: the pieces of both classes and the data-flow graph.
    Merge(crate::kinds::merge_codebases::view::MergeView),
    /// variable_renaming: the renames, in the order the chain defines the old names.
    Renaming { renames: Vec<(String, String)> },
}

impl Generated {
    /// The call graph and built programs, for the call-graph kinds.
    pub fn call_graph(&self) -> Option<(&CallGraph, &Built)> {
        match &self.view {
            View::Graph { graph, built } => Some((graph, built)),
            View::Merge(_) => None,
            View::Renaming { .. } => None,
        }
    }
}

/// The share-link fragment of a spec.
pub fn link(spec: &TaskSpec) -> String {
    format!("#/task?{}", spec.to_query())
}

/// The reference's run name of a spec's bucket (generation.md §5.2).
pub fn run_name(spec: &TaskSpec) -> String {
    spec.kind.def().run_name(spec).unwrap_or_else(|| crate::axes::run_name(spec))
}

/// A task as written out: the record, or the kind's own reference format (merge). Native only.
#[cfg(not(target_arch = "wasm32"))]
pub fn export(task: &Task) -> serde_json::Value {
    task.spec.kind.def().export(task)
}

/// The reference's task-set name of a spec (`math_function`).
pub fn task_set(spec: &TaskSpec) -> String {
    spec.axis.def().task_set(spec.domain)
}

/// A part of the generator that a build may leave out: the app's first download is built without the
/// cargo feature `gen-extra` (on by default: the CLI, the worker, the tests and every other wasm
/// module have it) and loads these from the `gen` module when a spec needs one (`web::gen`). Every
/// kind and axis stays in the registry in both builds; generating a spec that needs a part the build
/// left out is the error [`SpecError::needs`] names, never a different task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extra {
    /// Merge Codebases (its whole generator and statement).
    MergeCodebases,
    /// The runtime-resolution axis (guard trees, their exact arithmetic, the record's `runtime`).
    Runtime,
    /// The instruction-following axis (the rule banks, the sampler, the indexed refactorings).
    Instructions,
    /// The comment-copying axis (the BIP-39 word list, the drawn comment, the statement's rule and
    /// its worked example's comment).
    Comment,
    /// Variable renaming (the chain, its renames, its statement and worked example).
    Renaming,
}

impl Extra {
    /// What the part is, for the page's loading notice and errors.
    pub fn what(self) -> &'static str {
        match self {
            Extra::MergeCodebases => "the Merge Codebases generator",
            Extra::Runtime => "the runtime-resolution generator",
            Extra::Instructions => "the instruction-following generator",
            Extra::Comment => "the comment-copying generator",
            Extra::Renaming => "the variable-renaming generator",
        }
    }
}

/// Whether this build has the parts of [`Extra`] (the cargo feature `gen-extra`).
pub const HAS_EXTRAS: bool = cfg!(feature = "gen-extra");

/// The part of the generator a spec needs beyond the core, if any (its kind's, else its axis's).
pub fn extra_of(spec: &TaskSpec) -> Option<Extra> {
    // A kind the axis knob does not apply to keeps the default axis, which needs nothing.
    spec.kind.def().extra().or(spec.axis.def().extra())
}

/// `Ok` when this build has `part`; else the error that says the spec needs it. Called right before
/// the part's code, so that in a build without it the code after it is unreachable and left out.
#[inline(always)]
pub fn require(part: Extra) -> Result<(), SpecError> {
    if HAS_EXTRAS {
        Ok(())
    } else {
        Err(SpecError {
            key: String::new(),
            message: format!("this build leaves out {}; it is loaded as a module of its own", part.what()),
            needs: Some(part),
        })
    }
}

/// Generate the task of a spec, with what the app draws.
/// A valid spec that needs a part of the generator this build leaves out is the error
/// [`require`] gives, before anything is drawn.
pub fn generate_full(spec: &TaskSpec) -> Result<Generated, SpecError> {
    spec.validate()?;
    if let Some(part) = extra_of(spec) {
        require(part)?;
    }
    crate::kinds::generate(spec)
}

/// Generate the task record of a spec.
pub fn generate(spec: &TaskSpec) -> Result<Task, SpecError> {
    generate_full(spec).map(|g| g.task)
}

/// A stable digest of everything a task's bytes hold, for golden determinism tests.
pub fn task_hash(task: &Task) -> String {
    task_hash_with_graph(task, &task.graph)
}

/// [`task_hash`] of `task` with `graph` as its graph.
pub fn task_hash_with_graph(task: &Task, graph: &serde_json::Value) -> String {
    let json = serde_json::to_string(&RecordOut::of(task, graph)).expect("a task serialises");
    crate::rng::hex_id(&json, "task-hash", 16)
}
