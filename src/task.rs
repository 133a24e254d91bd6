//! Spec → task: sample the graph, draw operations, build the kind's programs, write the record.

use crate::domain::{self, DomainInfo};
use crate::graph::{self, sample, CallGraph};
use crate::kinds::{self, prompt, Built, Ctx, Role};
use crate::python;
use crate::rng::{stream, uuid_like};
use crate::spec::{Kind, SpecError, TaskSpec};
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
/// `solution_code`, `metadata`), then Cabrito's own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
}

/// Everything generation produced, for callers that draw or check it (the app, the tests).
#[derive(Clone, Debug)]
pub struct Generated {
    pub task: Task,
    pub graph: CallGraph,
    pub built: Built,
}

/// The operations of every vertex, each drawn from (graph key, domain, function name) (D3).
pub fn draw_ops(key: &str, d: &DomainInfo, g: &CallGraph) -> Vec<Vec<String>> {
    (0..g.len())
        .map(|v| {
            let mut rng = stream(key, &format!("ops/{}/{}", d.domain.as_str(), g.name(v)));
            let k = g.out_degree(v);
            let (bank, count) = if k <= 1 { (d.unary, 1) } else { (d.binary, k - 1) };
            (0..count).map(|_| bank[sample::below(&mut rng, bank.len())].to_string()).collect()
        })
        .collect()
}

/// The file order of the functions: a shuffle of the vertices.
pub fn file_order(key: &str, kind: Kind, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    sample::shuffle(&mut stream(key, &format!("order/{}", kind.as_str())), &mut order);
    order
}

/// The share-link fragment of a spec.
pub fn link(spec: &TaskSpec) -> String {
    format!("#/task?{}", spec.to_query())
}

/// The reference's run name of a spec's bucket (generation.md §5.2).
pub fn run_name(spec: &TaskSpec) -> String {
    let s = spec.sizes();
    format!(
        "{}_cn=({},{})_en=({},{})_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)",
        spec.axis.experiment(),
        s.n_init,
        s.n_init,
        s.n_edit,
        s.n_edit
    )
}

/// Generate the task of a spec, with its graph and programs.
pub fn generate_full(spec: &TaskSpec) -> Result<Generated, SpecError> {
    spec.validate()?;
    let key = graph::dag_key(spec);
    let g = graph::build(spec);
    let d = domain::info(spec.domain);
    let ops = draw_ops(&key, d, &g);
    let order = file_order(&key, spec.kind, g.len());
    let built = kinds::build(spec.kind, &Ctx { graph: &g, domain: d, ops: &ops, order: &order });
    let starter_code = python::module(&built.starter);
    let solution_code = python::module(&built.reference);
    let statement = prompt::statement(spec.kind, d);
    let dag_id = uuid_like(&key, "dag_id");
    let task_set = Kind::task_set(spec.domain);
    let roles: BTreeMap<String, Role> = (0..g.len()).map(|v| (g.name(v).to_string(), built.roles[v])).collect();
    let mut edit_set: Vec<String> = built.edit_set().into_iter().map(|v| g.name(v).to_string()).collect();
    edit_set.sort();
    let sizes = Sizes {
        functions: g.len(),
        functions_to_edit: edit_set.len(),
        starter_lines: starter_code.lines().count(),
        starter_chars: starter_code.chars().count(),
        solution_lines: solution_code.lines().count(),
        prompt_tokens_estimate: (statement.chars().count() + starter_code.chars().count()).div_ceil(4),
    };
    let task = Task {
        name: format!("{task_set}_{}_{dag_id}", spec.kind.as_str()),
        dag_id,
        prompt: statement,
        starter_code,
        solution_code,
        metadata: serde_json::json!({}),
        spec: spec.clone(),
        link: link(spec),
        graph: g.node_link(),
        roles,
        edit_set,
        sizes,
    };
    Ok(Generated { task, graph: g, built })
}

/// Generate the task record of a spec.
pub fn generate(spec: &TaskSpec) -> Result<Task, SpecError> {
    generate_full(spec).map(|g| g.task)
}

/// A stable digest of everything a task's bytes hold, for golden determinism tests.
pub fn task_hash(task: &Task) -> String {
    let json = serde_json::to_string(task).expect("a task serialises");
    crate::rng::hex_id(&json, "task-hash", 16)
}
