//! What the app keeps of a generated task ([`Made`]), and the `gen` module's answer that carries one
//! to the page: MessagePack (`rmp-serde`) of derived serde types, one `Uint8Array` across. A binary,
//! self-describing format keeps a float's exact bits, `1` against `1.0` and a map's order, which the
//! task's hash needs. The page reads it into a JSON value, then into the types with
//! `serde_path_to_error` (one MessagePack reader for every type, so the first download stays small).
//! The why panel's request and answer to the module are JSON text.

use crate::playground::branches::{GuardOutcome, StepRow};
use cabrito_gen::axes::runtime::guard::GuardCall;
use cabrito_gen::graph::{CallGraph, Node, Part};
use cabrito_gen::kinds::merge_codebases::render::Piece;
use cabrito_gen::kinds::merge_codebases::view::{DiffInfo, FlowDrawing, MergeView};
use cabrito_gen::kinds::Role;
use cabrito_gen::task::{Generated, Task, View};
use cabrito_gen::TaskSpec;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// What the app keeps of a generated task: the record and what it draws beside the code (the
/// task's [`View`] without the built programs, which no page reads).
#[derive(Clone, Debug)]
pub struct Made {
    /// The record; its `graph` is `null` while [`Made::graph`] holds it.
    pub task: Task,
    pub view: Drawn,
    /// The record's node-link graph as the module sent it (MessagePack), read only for the hash:
    /// no page draws it, and it is most of a big answer.
    graph: Option<Vec<u8>>,
}

/// [`View`] as the app draws it.
#[derive(Clone, Debug)]
pub enum Drawn {
    /// A call-graph kind: the joined graph and each function's role, in node order.
    Graph { graph: CallGraph, roles: Vec<Role> },
    /// (Shared: the app's views hold it without copying.)
    Merge(Rc<MergeView>),
    Renaming {
        renames: Vec<(String, String)>,
        /// The renaming panel's HTML (`variable_renaming::panel_html`), made with the task.
        panel: String,
    },
}

impl From<Generated> for Made {
    fn from(g: Generated) -> Made {
        use cabrito_gen::kinds::variable_renaming::panel_html;
        let view = match g.view {
            View::Graph { graph, built } => Drawn::Graph { graph, roles: built.roles },
            View::Merge(m) => Drawn::Merge(Rc::new(m)),
            View::Renaming { renames } => {
                // (Only a build with the renaming generator makes one: the app reads it from `gen`.)
                let panel = match cabrito_gen::task::require(cabrito_gen::task::Extra::Renaming) {
                    Ok(()) => panel_html(&g.task.starter_code, &renames),
                    Err(_) => String::new(),
                };
                Drawn::Renaming { renames, panel }
            }
        };
        Made { task: g.task, view, graph: None }
    }
}

impl Made {
    /// The record's graph, read from what the module sent if it is still there.
    fn graph_value(&self) -> Result<Option<serde_json::Value>, String> {
        match &self.graph {
            None => Ok(None),
            Some(bytes) => decode::<serde_json::Value>(bytes).map(Some).map_err(|e| cannot_read(format!("graph: {e}"))),
        }
    }

    /// [`cabrito_gen::task::task_hash`] of the whole record, or why its graph cannot be read.
    pub fn hash(&self) -> Result<String, String> {
        Ok(match self.graph_value()? {
            None => cabrito_gen::task::task_hash(&self.task),
            Some(graph) => cabrito_gen::task::task_hash_with_graph(&self.task, &graph),
        })
    }

    /// The whole record (a copy, with its graph), or why its graph cannot be read.
    pub fn record(&self) -> Result<Task, String> {
        let graph = self.graph_value()?;
        Ok(Task { graph: graph.unwrap_or_else(|| self.task.graph.clone()), ..self.task.clone() })
    }

    /// The call graph and each function's role, for the call-graph kinds.
    pub fn call_graph(&self) -> Option<(&CallGraph, &[Role])> {
        match &self.view {
            Drawn::Graph { graph, roles } => Some((graph, roles)),
            Drawn::Merge(_) | Drawn::Renaming { .. } => None,
        }
    }
}

// ---- the answer as it crosses ----------------------------------------------------------------

/// The module's answer: a task, or why it could not make one.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenAnswer {
    Ok(Box<SentTask>),
    Error(String),
}

/// A task as the module sends it. Its record's graph is `null` here: the graph follows the answer,
/// a MessagePack value of its own that the page keeps unread until it hashes the task.
#[derive(Serialize, Deserialize)]
pub struct SentTask {
    pub task: Task,
    pub view: SentView,
}

/// [`Drawn`] as it crosses (indices and piece codes the reader checks).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SentView {
    Graph {
        nodes: Vec<(String, SentPart)>,
        edges: Vec<(usize, usize)>,
        main_levels: Vec<Vec<usize>>,
        edit_levels: Vec<Vec<usize>>,
        main_root: usize,
        special: usize,
        excluded_entries: Vec<usize>,
        roles: Vec<Role>,
    },
    Merge {
        lines: [Vec<(usize, String)>; 2],
        blocks: usize,
        diffs: Vec<SentDiff>,
        block_lines: Vec<usize>,
        flow: SentFlow,
    },
    Renaming {
        renames: Vec<(String, String)>,
        panel: String,
    },
}

/// [`Part`] as it crosses.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SentPart {
    Init,
    Edit,
    Special,
}

/// [`DiffInfo`] as it crosses.
#[derive(Serialize, Deserialize)]
pub struct SentDiff {
    pub target: String,
    pub how: String,
}

/// [`FlowDrawing`] as it crosses.
#[derive(Serialize, Deserialize)]
pub struct SentFlow {
    pub markup: String,
    pub width: usize,
    pub height: usize,
    pub vertices: usize,
}

/// How deep the reader lets an answer nest (the deepest real answer is 11 levels; `serde_json`
/// stops at 128 too).
pub const MAX_DEPTH: usize = 128;

impl From<Made> for SentTask {
    /// The task as sent (its record's graph left `null`: [`answer_bytes`] sends it after).
    fn from(mut made: Made) -> SentTask {
        made.task.graph = serde_json::Value::Null;
        let view = match made.view {
            Drawn::Graph { graph, roles } => SentView::Graph {
                nodes: (0..graph.len())
                    .map(|v| {
                        let part = match graph.part(v) {
                            Part::Init => SentPart::Init,
                            Part::Edit => SentPart::Edit,
                            Part::Special => SentPart::Special,
                        };
                        (graph.name(v).to_string(), part)
                    })
                    .collect(),
                edges: graph.edges(),
                main_levels: graph.main_levels,
                edit_levels: graph.edit_levels,
                main_root: graph.main_root,
                special: graph.special,
                excluded_entries: graph.excluded_entries,
                roles,
            },
            Drawn::Merge(m) => {
                let m = Rc::unwrap_or_clone(m);
                SentView::Merge {
                    lines: m.lines.map(|l| l.into_iter().map(|(n, p)| (n, p.code())).collect()),
                    blocks: m.blocks,
                    diffs: m.diffs.into_iter().map(|d| SentDiff { target: d.target, how: d.how }).collect(),
                    block_lines: m.block_lines,
                    flow: SentFlow {
                        markup: m.flow.markup,
                        width: m.flow.width,
                        height: m.flow.height,
                        vertices: m.flow.vertices,
                    },
                }
            }
            Drawn::Renaming { renames, panel } => SentView::Renaming { renames, panel },
        };
        SentTask { task: made.task, view }
    }
}

/// `x` in MessagePack (structs as maps, so optional fields may be left out).
fn encode<T: Serialize + ?Sized>(x: &T) -> Vec<u8> {
    // Writing to memory fails only on a map key that is not text, which no task has.
    rmp_serde::to_vec_named(x).unwrap_or_default()
}

/// The first MessagePack value of `bytes` as a JSON value, and the bytes after it.
fn first_value(bytes: &[u8]) -> Result<(serde_json::Value, &[u8]), String> {
    let mut rest = bytes;
    let mut de = rmp_serde::Deserializer::new(&mut rest);
    de.set_max_depth(MAX_DEPTH);
    let value = serde_json::Value::deserialize(&mut de)
        .map_err(|e| format!("not a MessagePack value ({})", one_line(&e.to_string())))?;
    Ok((value, rest))
}

/// Read one MessagePack value that is all of `bytes`, as `T`; an error names the field by its path.
fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let (value, rest) = first_value(bytes)?;
    if !rest.is_empty() {
        return Err(format!("{} bytes after the value", rest.len()));
    }
    serde_path_to_error::deserialize(value).map_err(path_error)
}

/// A serde error with the path to its field (`ok.task.sizes.functions: invalid type: …`), on one line.
fn path_error<E: std::fmt::Display>(e: serde_path_to_error::Error<E>) -> String {
    match e.path().to_string() {
        p if p == "." => one_line(&e.inner().to_string()),
        p => format!("{}: {}", one_line(&p), one_line(&e.inner().to_string())),
    }
}

/// The task a spec query asks for (a spec as its link writes it, read as the task page reads its
/// link's, the keys that are not the spec's left aside), or why not. Any text gives one of the two.
pub fn made_for(query: &str) -> Result<Made, String> {
    use crate::playground::route::{parse, Route, TASK_PATH};
    match parse(&format!("{TASK_PATH}?{query}")) {
        Route::Task(spec) => cabrito_gen::task::generate_full(&spec).map(Made::from).map_err(|e| e.to_string()),
        Route::BadLink { message, .. } => Err(format!("the spec cannot be read: {message}")),
        _ => Err("the spec cannot be read".into()),
    }
}

/// The module's answer to a `generate` call, as it crosses: the [`GenAnswer`], and for a task its
/// record's graph after it.
pub fn answer_bytes(made: Result<Made, String>) -> Vec<u8> {
    match made {
        Ok(mut made) => {
            let graph = match made.graph.take() {
                Some(bytes) => bytes,
                None => encode(&made.task.graph),
            };
            let mut out = encode(&GenAnswer::Ok(Box::new(SentTask::from(made))));
            out.extend(graph);
            out
        }
        Err(e) => encode(&GenAnswer::Error(one_line(&e))),
    }
}

/// [`answer_bytes`] of [`made_for`] a spec query.
pub fn answer(query: &str) -> Vec<u8> {
    answer_bytes(made_for(query))
}

/// Why the `gen` module's answer cannot be read.
pub fn cannot_read(e: String) -> String {
    format!("the generator module's answer cannot be read: {e}")
}

/// Read the module's answer for `spec`, as the app gets it: the task, the module's error, or why
/// the answer cannot be read (naming the field). The task's graph stays unread ([`Made::hash`]).
pub fn read_answer(bytes: &[u8], spec: &TaskSpec) -> Result<Made, String> {
    let (value, graph) = first_value(bytes).map_err(cannot_read)?;
    match serde_path_to_error::deserialize(value).map_err(|e| cannot_read(path_error(e)))? {
        GenAnswer::Error(e) => Err(e),
        GenAnswer::Ok(_) if graph.is_empty() => Err(cannot_read("no graph after the task".into())),
        GenAnswer::Ok(sent) => sent.into_made(spec, graph.to_vec()).map_err(cannot_read),
    }
}

/// `at: what` for a value the reader refuses after serde read it.
fn bad<T>(at: impl std::fmt::Display, what: impl std::fmt::Display) -> Result<T, String> {
    Err(format!("{at}: {what}"))
}

impl SentTask {
    /// The task, once what serde cannot see holds: it is the spec's, and every index the app will
    /// use is below what it indexes.
    fn into_made(self, spec: &TaskSpec, graph: Vec<u8>) -> Result<Made, String> {
        let SentTask { task, view } = self;
        if task.spec != *spec {
            return bad("ok.task.spec", spec_difference(&task.spec, spec));
        }
        if !task.graph.is_null() {
            return bad("ok.task.graph", "is not null (the graph is sent after the answer)");
        }
        if cabrito_gen::task::extra_of(spec) == Some(cabrito_gen::task::Extra::Comment)
            && !task.metadata.get("comment").is_some_and(serde_json::Value::is_string)
        {
            return bad("ok.task.metadata.comment", "is not text");
        }
        if let Some(r) = &task.runtime {
            check_runtime(r)?;
        }
        let view = match view {
            SentView::Graph { nodes, edges, main_levels, edit_levels, main_root, special, excluded_entries, roles } => {
                let n = nodes.len();
                let node = |at: String, i: usize| {
                    if i < n {
                        Ok(i)
                    } else {
                        bad(at, format!("{i} is not below {n}, the graph's nodes"))
                    }
                };
                for (k, &(a, b)) in edges.iter().enumerate() {
                    node(format!("ok.view.graph.edges[{k}][0]"), a)?;
                    node(format!("ok.view.graph.edges[{k}][1]"), b)?;
                }
                for (name, levels) in [("main_levels", &main_levels), ("edit_levels", &edit_levels)] {
                    for (i, level) in levels.iter().enumerate() {
                        for (j, &v) in level.iter().enumerate() {
                            node(format!("ok.view.graph.{name}[{i}][{j}]"), v)?;
                        }
                    }
                }
                node("ok.view.graph.main_root".into(), main_root)?;
                node("ok.view.graph.special".into(), special)?;
                for (i, &v) in excluded_entries.iter().enumerate() {
                    node(format!("ok.view.graph.excluded_entries[{i}]"), v)?;
                }
                if roles.len() != n {
                    return bad("ok.view.graph.roles", format!("{} roles for {n} nodes", roles.len()));
                }
                let mut g = petgraph::graph::DiGraph::<Node, ()>::new();
                for (name, part) in nodes {
                    let part = match part {
                        SentPart::Init => Part::Init,
                        SentPart::Edit => Part::Edit,
                        SentPart::Special => Part::Special,
                    };
                    g.add_node(Node { name, part });
                }
                for (a, b) in edges {
                    g.add_edge(petgraph::graph::NodeIndex::new(a), petgraph::graph::NodeIndex::new(b), ());
                }
                let graph = CallGraph { g, main_levels, edit_levels, main_root, special, excluded_entries };
                Drawn::Graph { graph, roles }
            }
            SentView::Merge { lines, blocks, diffs, block_lines, flow } => {
                if blocks != block_lines.len() {
                    return bad(
                        "ok.view.merge.blocks",
                        format!("{blocks} blocks, but block_lines has {}", block_lines.len()),
                    );
                }
                let mut read = [Vec::new(), Vec::new()];
                for (c, class) in lines.into_iter().enumerate() {
                    for (i, (line, code)) in class.into_iter().enumerate() {
                        let piece = match Piece::from_code(&code) {
                            Some(Piece::Block(k)) if k < blocks => Piece::Block(k),
                            Some(Piece::Diff(d)) if d < diffs.len() => Piece::Diff(d),
                            Some(Piece::Return) => Piece::Return,
                            _ => {
                                let shown: String = code.chars().take(24).collect();
                                return bad(
                                    format!("ok.view.merge.lines[{c}][{i}][1]"),
                                    format!(
                                        "{shown:?} is not a piece of the {blocks} blocks and {} differences",
                                        diffs.len()
                                    ),
                                );
                            }
                        };
                        read[c].push((line, piece));
                    }
                }
                Drawn::Merge(Rc::new(MergeView {
                    lines: read,
                    blocks,
                    diffs: diffs.into_iter().map(|d| DiffInfo { target: d.target, how: d.how }).collect(),
                    block_lines,
                    flow: FlowDrawing {
                        markup: flow.markup,
                        width: flow.width,
                        height: flow.height,
                        vertices: flow.vertices,
                    },
                }))
            }
            SentView::Renaming { renames, panel } => Drawn::Renaming { renames, panel },
        };
        Ok(Made { task, view, graph: Some(graph) })
    }
}

/// How a task's spec differs from the one asked for: the first knob (by its link key) that does.
fn spec_difference(got: &TaskSpec, asked: &TaskSpec) -> String {
    if got.v != asked.v {
        return format!("v is {}, not {} as asked", got.v, asked.v);
    }
    let differs = cabrito_gen::spec::KNOBS.iter().find_map(|k| {
        let (a, b) = ((k.get)(got).unwrap_or_default(), (k.get)(asked).unwrap_or_default());
        (a != b).then(|| format!("{} is {}, not {} as asked", k.key, one_line(&a), one_line(&b)))
    });
    differs.unwrap_or_else(|| format!("{} is not the spec asked for, {}", got.canonical(), asked.canonical()))
}

/// A runtime record as the app walks it: a function's path at most 16 levels (the app shifts by
/// it), its running leaf among its leaves, each guard at most its calls and each call a target of
/// 0 or 1 and at most a guard's hops.
fn check_runtime(r: &cabrito_gen::axes::runtime::Record) -> Result<(), String> {
    use cabrito_gen::axes::runtime::guard::MAX_GUARD_CALLS;
    for (i, f) in r.functions.iter().enumerate() {
        let at = format!("ok.task.runtime.functions[{i}]");
        if f.path.len() > 16 {
            return bad(format!("{at}.path"), format!("{} levels, more than 16", f.path.len()));
        }
        if f.leaf >= 1 << f.path.len() {
            return bad(
                format!("{at}.leaf"),
                format!("{} is not below {}, the function's leaves", f.leaf, 1 << f.path.len()),
            );
        }
        for (j, g) in f.guards.iter().enumerate() {
            if g.calls.len() > MAX_GUARD_CALLS as usize {
                return bad(
                    format!("{at}.guards[{j}].calls"),
                    format!("{} calls, more than {MAX_GUARD_CALLS}", g.calls.len()),
                );
            }
            for (k, c) in g.calls.iter().enumerate() {
                check_call(&format!("{at}.guards[{j}].calls[{k}]"), c)?;
            }
        }
    }
    Ok(())
}

/// A `check` call: a target of 0 or 1, at most as many steps as a guard has hops.
fn check_call(at: &str, c: &GuardCall) -> Result<(), String> {
    use cabrito_gen::axes::runtime::MAX_HOPS;
    if c.target > 1 {
        return bad(format!("{at}.target"), format!("{} is not 0 or 1", c.target));
    }
    if c.steps > MAX_HOPS {
        return bad(format!("{at}.steps"), format!("{} is more than {MAX_HOPS}", c.steps));
    }
    Ok(())
}

// ---- "why this branch?" (its exact arithmetic is the runtime axis's, in the module) -------------

/// The why panel's request: a call and a page of its steps.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct WhyRequest {
    pub call: GuardCall,
    pub from: u32,
    pub count: u32,
}

/// The module's answer to a [`WhyRequest`].
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhyAnswer {
    Ok { outcome: GuardOutcome, rows: Vec<StepRow> },
    Error(String),
}

/// Read JSON text as `T`; an error names the field by its path.
fn from_json<T: for<'a> Deserialize<'a>>(text: &str) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(path_error)?;
    de.end().map_err(|e| one_line(&e.to_string()))?;
    Ok(value)
}

/// The request's text (JSON).
pub fn why_request(c: &GuardCall, from: u32, count: u32) -> String {
    serde_json::to_string(&WhyRequest { call: *c, from, count }).unwrap_or_default()
}

/// Read [`why_request`]'s text; an error names the field.
pub fn why_read(text: &str) -> Result<WhyRequest, String> {
    let r: WhyRequest = from_json(text)?;
    check_call("call", &r.call)?;
    Ok(r)
}

/// The `gen` module's `why` entry: a request's text in, a [`WhyAnswer`]'s out.
pub fn why_answer(request: &str) -> String {
    use crate::playground::branches::{outcome, steps_page};
    let answer = match why_read(request) {
        Ok(r) => WhyAnswer::Ok { outcome: outcome(&r.call), rows: steps_page(&r.call, r.from, r.count) },
        Err(e) => WhyAnswer::Error(format!("the call cannot be read: {e}")),
    };
    serde_json::to_string(&answer).unwrap_or_default()
}

/// Read the module's answer to [`why_answer`], as the app gets it (text).
pub fn read_why(text: &str) -> Result<(GuardOutcome, Vec<StepRow>), String> {
    match from_json(text).map_err(|e| format!("the module's answer cannot be read: {e}"))? {
        WhyAnswer::Ok { outcome, rows } => Ok((outcome, rows)),
        WhyAnswer::Error(e) => Err(e),
    }
}

/// `text` on one line (control characters as spaces) and at most 300 bytes: error messages quote
/// values they cannot read, and a value sent may be of any size.
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
    use cabrito_gen::task::{generate_full, task_hash};
    use cabrito_gen::{Axis, Domain, Kind};

    fn round_trip(spec: &TaskSpec) {
        let made = Made::from(generate_full(spec).unwrap());
        let c = spec.canonical();
        let back = read_answer(&answer_bytes(Ok(made.clone())), spec).unwrap_or_else(|e| panic!("{c}: {e}"));
        // The graph kept unread, the whole record on demand.
        assert!(back.task.graph.is_null() && back.graph.is_some(), "{c}");
        let record = back.record().unwrap();
        assert_eq!(serde_json::to_string(&record).unwrap(), serde_json::to_string(&made.task).unwrap(), "{c}");
        assert_eq!(back.hash().unwrap(), task_hash(&made.task), "{c}");
        match (&made.view, &back.view) {
            (Drawn::Graph { graph: a, roles: ra }, Drawn::Graph { graph: b, roles: rb }) => {
                assert_eq!(ra, rb, "{c}");
                assert_eq!(a.edges(), b.edges(), "{c}");
                assert_eq!(
                    (0..a.len()).map(|v| (a.name(v), a.part(v))).collect::<Vec<_>>(),
                    (0..b.len()).map(|v| (b.name(v), b.part(v))).collect::<Vec<_>>(),
                    "{c}"
                );
                assert_eq!(
                    (&a.main_levels, &a.edit_levels, a.main_root, a.special, &a.excluded_entries),
                    (&b.main_levels, &b.edit_levels, b.main_root, b.special, &b.excluded_entries),
                    "{c}"
                );
            }
            (Drawn::Merge(a), Drawn::Merge(b)) => assert_eq!(a, b, "{c}"),
            (Drawn::Renaming { renames: a, panel: pa }, Drawn::Renaming { renames: b, panel: pb }) => {
                assert_eq!((a, pa), (b, pb), "{c}")
            }
            _ => panic!("{c}: another view came back"),
        }
    }

    /// Every kind on every axis it has (the parts the module makes and the rest), several seeds.
    #[test]
    fn a_task_reads_back_as_it_was_sent() {
        let mut parts = std::collections::HashSet::new();
        for &kind in Kind::ALL {
            let def = kind.def();
            let domains: Vec<Domain> = match def.domains() {
                cabrito_gen::spec::Support::Only(d) => d.to_vec(),
                cabrito_gen::spec::Support::NotApplicable => vec![Domain::Math],
            };
            let axes: Vec<Axis> = match def.axes() {
                cabrito_gen::spec::Support::Only(a) => a.to_vec(),
                cabrito_gen::spec::Support::NotApplicable => vec![Axis::Traversal],
            };
            for &domain in &domains {
                for &axis in &axes {
                    for seed in 0..3 {
                        let n = if kind == Kind::MergeCodebases { 30 } else { 10 };
                        let spec = TaskSpec::new(kind, domain, axis, n, seed);
                        if spec.validate().is_ok() {
                            round_trip(&spec);
                            parts.insert(cabrito_gen::task::extra_of(&spec));
                        }
                    }
                }
            }
        }
        use cabrito_gen::task::Extra;
        for part in [
            None,
            Some(Extra::MergeCodebases),
            Some(Extra::Runtime),
            Some(Extra::Instructions),
            Some(Extra::Comment),
            Some(Extra::Renaming),
        ] {
            assert!(parts.contains(&part), "no round trip of {part:?}");
        }
    }

    /// The why panel's answers read back as they were worked out, for every guard of a few tasks.
    #[test]
    fn why_reads_back() {
        use crate::playground::branches::{outcome, steps_page};
        for seed in 0..4 {
            let spec = TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Runtime, 25 + seed as u32 * 100, seed);
            let task = cabrito_gen::task::generate(&spec).unwrap();
            for f in &task.runtime.unwrap().functions {
                for c in f.guards.iter().flat_map(|g| &g.calls) {
                    for from in [1, 30, c.steps] {
                        let r = why_read(&why_request(c, from, 50)).unwrap();
                        assert_eq!(r, WhyRequest { call: *c, from, count: 50 });
                        let back = read_why(&why_answer(&why_request(c, from, 50))).unwrap();
                        assert_eq!(back, (outcome(c), steps_page(c, from, 50)));
                    }
                }
            }
        }
        for bad in [
            "1,2,3",
            "",
            "{}",
            r#"{"call": {"x": 1, "a": 1, "b": 1, "target": 300, "steps": 1}, "from": 1, "count": 1}"#,
        ] {
            let e = read_why(&why_answer(bad)).unwrap_err();
            assert!(e.starts_with("the call cannot be read") && !e.contains('\n'), "{e}");
        }
        let e = why_read(r#"{"call": {"x": 1, "a": 1, "b": 1, "target": 2, "steps": 1}, "from": 1, "count": 1}"#);
        assert_eq!(e.unwrap_err(), "call.target: 2 is not 0 or 1");
        assert!(read_why(r#"{"ok": {"outcome": 1, "rows": []}}"#).unwrap_err().contains("ok.outcome"));
    }

    /// A real answer cut short anywhere, or with bytes changed, is a task or a one-line error, never a
    /// panic; a byte after it is refused.
    #[test]
    fn a_damaged_answer_is_an_error_not_a_panic() {
        for spec in [
            TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Runtime, 10, 1),
            TaskSpec::new(Kind::MergeCodebases, Domain::Math, Axis::Traversal, 30, 2),
        ] {
            // Read as the page reads it: the answer, then (once idle) the whole record.
            let read = |t: &[u8]| read_answer(t, &spec).and_then(|m| m.hash());
            let bytes = answer(&spec.to_query());
            assert!(read(&bytes).is_ok());
            let longer = [bytes.as_slice(), &[0]].concat();
            assert!(read(&longer).unwrap_err().contains("graph: 1 bytes after the value"));
            for end in 0..bytes.len() {
                let e = read(&bytes[..end]).unwrap_err();
                assert!(!e.contains('\n') && e.len() <= 700, "{end}: {e}");
            }
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..3000 {
                let mut t = bytes.clone();
                for _ in 0..1 + x % 3 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let i = (x % t.len() as u64) as usize;
                    t[i] ^= (x >> 32) as u8 | 1;
                }
                if let Err(e) = read(&t) {
                    assert!(!e.contains('\n') && e.len() <= 700, "{e}");
                }
            }
        }
    }

    #[test]
    fn an_error_is_said_on_one_line() {
        let bytes = answer_bytes(Err("n must be\nat most 2000".to_string()));
        assert_eq!(read_answer(&bytes, &TaskSpec::default()).unwrap_err(), "n must be at most 2000");
    }

    #[test]
    fn another_spec_s_task_is_refused() {
        let spec = TaskSpec::default();
        let other = TaskSpec { seed: spec.seed + 1, ..spec.clone() };
        let e = read_answer(&answer(&other.to_query()), &spec).unwrap_err();
        assert!(e.contains("ok.task.spec: seed is "), "{e}");
    }
}
