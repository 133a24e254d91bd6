//! What the five call-graph kinds share (generation.md §1–§3, §6): the [`GraphKind`] interface a
//! kind implements next to [`TaskKind`], and the pipeline that turns a spec into a task from it:
//! sample C_init, let the kind join its edit graph ([`crate::graph::Join`]), draw operations and file
//! order, let the kind transform the plain programs, print them, write the statement and the record.

pub mod comment;
pub mod instructions;
pub mod program;
pub mod runtime;
pub mod statement;

pub use program::{Built, Ctx};
pub use statement::{Example, Named};

use super::{Kind, Role, TaskKind};
use crate::axes;
use crate::python;
use crate::rng::{stream, uuid_like};
use crate::spec::{err, Axis, SpecError, TaskSpec, MAX_N};
use crate::task::{link, Extra, Generated, Sizes, Task, View};
use crate::{domain, domain::DomainInfo};
use crate::{
    graph,
    graph::{sample, CallGraph, Join},
};
use std::collections::BTreeMap;

/// The axes a call-graph kind that edits functions is built along.
pub const AXES: &[Axis] = &[Axis::Traversal, Axis::Search, Axis::Runtime, Axis::Instructions, Axis::Comment];

/// The call-graph side of a kind: how its edit graph joins the main graph, how it rewrites the plain
/// programs, and its statement's pieces. The pipeline ([`generate`]) does the rest.
pub trait GraphKind: TaskKind {
    /// The smallest C_edit the kind can be built from, and why (for the error message).
    fn min_edit(&self) -> (u32, &'static str) {
        (1, "")
    }
    /// Sample the kind's edit graph, splice it in, add its wrapper and cross edges (§1.7). Draws
    /// only from the join's streams, so the main graph and names stay the same across kinds.
    fn join(&self, j: &mut Join);
    /// From the joined graph, the operations and the file order: the starter, the reference
    /// solution and each function's role (§3).
    fn transform(&self, cx: &Ctx) -> Built;
    /// The tiny graph of the statement's worked example.
    fn example(&self) -> Example;
    /// The sentence after the worked example, naming its functions by role.
    fn example_note(&self, named: &Named, d: &DomainInfo) -> String;
    /// The statement's rules (§6), in the domain's words.
    fn rules(&self, d: &DomainInfo) -> String;
    /// The kind's refactoring over indexed values, for instruction following (`kinds/<kind>/instructions.rs`).
    fn indexed(&self) -> Option<&dyn instructions::IndexedKind> {
        None
    }
    /// What the runtime axis asks of the kind (`kinds/<kind>/runtime.rs`).
    fn runtime(&self) -> &'static dyn runtime::RuntimeKind;
}

/// The minimum edit size of a call-graph kind.
pub fn validate(k: &dyn GraphKind, spec: &TaskSpec) -> Result<(), SpecError> {
    let s = spec.sizes();
    let (min, why) = k.min_edit();
    if s.n_edit < min {
        let key = axes::edit_size_key(spec);
        return Err(err(
            key,
            format!(
                "{} needs at least {min} functions to edit ({why}), got {}; {key} must be an integer from {min} to {MAX_N}",
                spec.kind, s.n_edit
            ),
        ));
    }
    instructions::validate(spec)
}

/// The operations of every vertex, each drawn from (graph key, domain, function name) (D3).
pub fn draw_ops(key: &str, d: &DomainInfo, g: &CallGraph) -> Vec<Vec<&'static str>> {
    // `ops/<domain>/`, then each function's name in its place (one string, not one `format!` a vertex).
    let mut purpose = format!("ops/{}/", d.domain.as_str());
    let prefix = purpose.len();
    (0..g.len())
        .map(|v| {
            purpose.truncate(prefix);
            purpose.push_str(g.name(v));
            let mut rng = stream(key, &purpose);
            let k = g.out_degree(v);
            let (bank, count) = if k <= 1 { (d.unary, 1) } else { (d.binary, k - 1) };
            (0..count).map(|_| bank[sample::below(&mut rng, bank.len())]).collect()
        })
        .collect()
}

/// The file order of the functions: a shuffle of the vertices.
pub fn file_order(key: &str, kind: Kind, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    sample::shuffle(&mut stream(key, &format!("order/{}", kind.as_str())), &mut order);
    order
}

/// `text.lines().count()`, from a count of line feeds (a faster loop than finding each line).
fn line_count(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count() + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Make the task of a valid spec of a call-graph kind.
pub fn generate(k: &dyn GraphKind, spec: &TaskSpec) -> Result<Generated, SpecError> {
    let key = graph::dag_key(spec);
    let g = graph::build_with(spec, k.kind(), |j| k.join(j));
    let d = domain::info(spec.domain);
    let ops = draw_ops(&key, d, &g);
    let order = file_order(&key, spec.kind, g.len());
    let bodies = spec.axis.def().bodies(spec);
    let cx = Ctx { graph: &g, domain: d, ops: &ops, order: &order, bodies };
    let indexed = if spec.axis.def().instructions() {
        crate::task::require(Extra::Instructions)?;
        instructions::setup(k, spec, &g)?
    } else {
        None
    };
    let mut built = match &indexed {
        Some(ix) => ix.kind.transform(&cx, ix.rules.names.len(), &|v| ix.lines(v)),
        None => k.transform(&cx),
    };
    let branches = match bodies {
        axes::Bodies::Branched(shape) => {
            crate::task::require(Extra::Runtime)?;
            Some(runtime::branch(k.runtime(), &cx, &key, shape, &mut built))
        }
        axes::Bodies::Plain => None,
    };
    let comment = if spec.axis.def().copies_comment() {
        crate::task::require(Extra::Comment)?;
        let c = crate::axes::comment::draw(&key, spec.n);
        comment::annotate(&mut built, &g, &c);
        Some(c)
    } else {
        None
    };
    let starter_code = python::module(&built.starter);
    let solution_code = python::module(&built.reference);
    let statement = match &indexed {
        Some(ix) => instructions::statement(k, ix, d),
        None => statement::statement(k, d, spec.axis, comment.as_deref()),
    };
    let dag_id = uuid_like(&format!("{key}{}", spec.axis.def().id_suffix(spec)), "dag_id");
    let task_set = spec.axis.def().task_set(spec.domain);
    let roles: BTreeMap<String, Role> = (0..g.len()).map(|v| (g.name(v).to_string(), built.roles[v])).collect();
    let mut edit_set: Vec<String> = built.edit_set().into_iter().map(|v| g.name(v).to_string()).collect();
    edit_set.sort();
    let starter_chars = starter_code.chars().count();
    let sizes = Sizes {
        functions: g.len(),
        functions_to_edit: edit_set.len(),
        starter_lines: line_count(&starter_code),
        starter_chars,
        solution_lines: line_count(&solution_code),
        prompt_tokens_estimate: (statement.chars().count() + starter_chars).div_ceil(4),
    };
    let task = Task {
        name: format!("{task_set}_{}_{dag_id}", spec.kind.as_str()),
        dag_id,
        prompt: statement,
        starter_code,
        solution_code,
        metadata: match (&indexed, &comment) {
            (Some(ix), _) => ix.rules.metadata(),
            (None, Some(c)) => serde_json::json!({ "comment": c }),
            (None, None) => serde_json::json!({}),
        },
        spec: spec.clone(),
        link: link(spec),
        graph: g.node_link(),
        roles,
        edit_set,
        sizes,
        runtime: branches,
    };
    Ok(Generated { task, view: View::Graph { graph: g, built } })
}
