//! Behavioural grading, the pure part (no processes, files or clocks; builds for wasm): the test
//! plan (which functions, which inputs, which stub block per trial), the request the harness
//! reads, the output comparison with the reference's semantics, and verdicts.
//!
//! The native runner (`native::runner`) executes the reference and the candidate in separate
//! Python processes on the same [`Request`] data and hands both [`RunOutcome`]s to [`verdict`].

pub mod outcome;
pub mod plan;
pub mod value;
pub mod verdict;

pub use crate::program::ProgramError;
pub use outcome::{CallResult, PyError, RunOutcome, RunStatus, TrialOutcome};
pub use plan::{build_plan, reference_functions, task_key, FunctionSpec, InputScheme, Plan, PlanError};
pub use value::{compare, Comparison, Value};
pub use verdict::{wilson, CheckOutcome, CheckResult, FirstFailure, FunctionResult, FunctionStatus};

use crate::program::Program;
use cabrito_gen::domain::stubs::STROPS_SOURCE;
use cabrito_gen::spec::{Axis, Domain, Kind};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Default trials per function (decision D5: the paper's 50).
pub const DEFAULT_TRIALS: usize = 50;

/// Most trials per function a batch may ask for.
pub const MAX_TRIALS: usize = 10_000;

/// Seconds one call may take before the harness raises a timeout in it (the reference's 2 s).
pub const DEFAULT_CALL_TIMEOUT_SECONDS: f64 = 2.0;

pub use cabrito_gen::kinds::Behaviour;

/// What grading needs to know about a task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeTask {
    pub kind: Kind,
    pub domain: Domain,
    /// The scaling axis (its required checks join the kind's).
    #[serde(default = "first_axis")]
    pub axis: Axis,
    pub starter: String,
    pub reference: String,
    /// A stable identity (a dag_id or task name); the inputs key adds a digest of the reference.
    pub key: String,
    /// The record's `metadata` (`Null` when it has none).
    #[serde(default)]
    pub metadata: serde_json::Value,
}

fn first_axis() -> Axis {
    Axis::ALL[0]
}

impl GradeTask {
    /// From a Cabrito task.
    pub fn from_task(t: &cabrito_gen::Task) -> GradeTask {
        GradeTask {
            kind: t.spec.kind,
            domain: t.spec.domain,
            axis: t.spec.axis,
            starter: t.starter_code.clone(),
            reference: t.solution_code.clone(),
            key: t.dag_id.clone(),
            metadata: t.metadata.clone(),
        }
    }

    /// What the static rubric reads of this task.
    pub fn task_ref(&self) -> crate::TaskRef<'_> {
        crate::TaskRef {
            kind: self.kind,
            domain: self.domain,
            axis: self.axis,
            starter: &self.starter,
            reference: &self.reference,
            metadata: &self.metadata,
        }
    }

    /// The key the inputs are drawn from.
    /// (Tasks graded with the indexed `mylibrary` have keys of their own, so no cache mixes the libraries.)
    pub fn input_key(&self) -> String {
        let library = if self.axis.def().instructions() { "/indexed" } else { "" };
        task_key(&format!("{}/{}/{}{library}", self.key, self.kind.as_str(), self.domain.as_str()), &self.reference)
    }
}

/// A planned task: the functions to test and every trial's inputs and stubs.
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    pub plan: Plan,
    /// The reference program as the harness runs it (its top-level defs).
    pub reference_program: String,
    /// Names of every top-level def of the reference (for memoisation).
    pub reference_defs: Vec<String>,
}

/// Plan a task with `trials` trials per function and the default input scheme (one draw per trial,
/// shared by the functions: [`InputScheme::PerTrial`]).
pub fn prepare(task: &GradeTask, trials: usize) -> Result<Prepared, PlanError> {
    prepare_with(task, trials, InputScheme::default())
}

/// Plan a task with `trials` trials per function, drawing inputs by `scheme`.
pub fn prepare_with(task: &GradeTask, trials: usize, scheme: InputScheme) -> Result<Prepared, PlanError> {
    let with_main = task.kind.def().grades_main();
    let reference = Program::read(&task.reference).map_err(PlanError::Syntax)?;
    let functions = plan::functions_to_test(&reference, with_main)?;
    let defs = reference.top_defs();
    let keep: BTreeSet<String> =
        defs.iter().filter(|d| !d.is_async && (with_main || d.name != "main")).map(|d| d.name.clone()).collect();
    let reference_program = plan::filter_program(&defs, &keep);
    let mut plan = build_plan(&task.input_key(), task.domain, functions, trials, scheme);
    if task.axis.def().instructions() {
        plan.library = cabrito_gen::domain::stubs::Library::Indexed;
    }
    Ok(Prepared { plan, reference_program, reference_defs: keep.into_iter().collect() })
}

/// The candidate as the harness runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateProgram {
    /// Its top-level defs whose names the reference has (everything else is discarded, §3.2).
    pub program: String,
    pub defs: Vec<String>,
    /// Reference functions it defines (tested).
    pub tested: BTreeSet<String>,
    /// Reference functions it lacks (D6).
    pub missing: Vec<String>,
}

/// Filter a candidate against a prepared task. The candidate is read as `ast.parse` reads it (the
/// reference's step 2): a problem the front end finds is returned with its line.
pub fn candidate_program(prep: &Prepared, candidate: &str) -> Result<CandidateProgram, ProgramError> {
    filtered(prep, &Program::read(candidate)?)
}

fn filtered(prep: &Prepared, candidate: &Program) -> Result<CandidateProgram, ProgramError> {
    let defs = candidate.top_defs();
    let wanted: BTreeSet<String> = prep.reference_defs.iter().cloned().collect();
    let present: BTreeSet<String> =
        defs.iter().filter(|d| !d.is_async && wanted.contains(&d.name)).map(|d| d.name.clone()).collect();
    let program = plan::filter_program(&defs, &wanted);
    let tested: BTreeSet<String> =
        prep.plan.functions.iter().filter(|f| present.contains(&f.name)).map(|f| f.name.clone()).collect();
    let missing = prep.plan.functions.iter().filter(|f| !present.contains(&f.name)).map(|f| f.name.clone()).collect();
    Ok(CandidateProgram { program, defs: present.into_iter().collect(), tested, missing })
}

/// Harness behaviour switches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HarnessOptions {
    /// Cache every program-defined function per trial (§3.2 step 10).
    pub memoize: bool,
    /// The reference's builtins whitelist (§3.2 step 6). The process sandbox does not rely on it.
    pub restrict_builtins: bool,
    /// Seconds per call before the harness raises a timeout in it (the reference's 2 s).
    pub call_timeout: f64,
}

impl Default for HarnessOptions {
    fn default() -> Self {
        HarnessOptions { memoize: true, restrict_builtins: true, call_timeout: DEFAULT_CALL_TIMEOUT_SECONDS }
    }
}

/// The JSON request the harness reads on stdin: `program` under `plan`, calling only the
/// functions in `only` (all when `None`). [`request_body`] as a JSON tree.
pub fn request(
    plan: &Plan,
    program: &str,
    defs: &[String],
    only: Option<&BTreeSet<String>>,
    opts: &HarnessOptions,
) -> serde_json::Value {
    serde_json::from_slice(&request_body(plan, program, defs, only, opts)).expect("the request is JSON")
}

/// The request's bytes, written without building a JSON tree (which took about a tenth of a
/// grading job's CPU).
///
/// Compact: the functions' parameter names are listed once (`functions`), each trial lists its
/// distinct input values once (`values`, tagged as [`Value::to_json`]) and its calls as
/// `[call index, function index, [value index per parameter]]`; the harness decodes a fresh copy
/// of every value for every call, so a call that mutates its input cannot reach the next one.
pub fn request_body(
    plan: &Plan,
    program: &str,
    defs: &[String],
    only: Option<&BTreeSet<String>>,
    opts: &HarnessOptions,
) -> Vec<u8> {
    use std::fmt::Write;
    let text = |out: &mut String, s: &str| value::write_json_str(out, s);
    let index: std::collections::HashMap<&str, usize> =
        plan.functions.iter().enumerate().map(|(i, f)| (f.name.as_str(), i)).collect();
    let mut out = String::with_capacity(program.len() * 2 + plan.trials.len() * 1024);
    out.push_str("{\"program\":");
    text(&mut out, program);
    out.push_str(",\"defs\":[");
    for (i, d) in defs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        text(&mut out, d);
    }
    let _ = write!(out, "],\"domain\":\"{}\",\"functions\":[", plan.domain.as_str());
    for (i, f) in plan.functions.iter().enumerate() {
        out.push_str(if i > 0 { ",[" } else { "[" });
        text(&mut out, &f.name);
        out.push_str(",[");
        for (j, (n, _)) in f.params.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            text(&mut out, n);
        }
        out.push_str("]]");
    }
    out.push_str("],\"trials\":[");
    let mut stubs: BTreeMap<usize, String> = BTreeMap::new();
    let mut values = String::new();
    let mut one = String::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (ti, t) in plan.trials.iter().enumerate() {
        stubs.entry(t.stub_index).or_insert_with(|| plan::plan_stub_source(plan, t.stub_index));
        values.clear();
        seen.clear();
        let _ = write!(out, "{}{{\"stub\":{},\"calls\":[", if ti > 0 { "," } else { "" }, t.stub_index);
        let mut first = true;
        for (i, c) in t.calls.iter().enumerate() {
            if only.is_some_and(|o| !o.contains(&c.function)) {
                continue;
            }
            let Some(&f) = index.get(c.function.as_str()) else { continue };
            let _ = write!(out, "{}[{i},{f},[", if first { "" } else { "," });
            first = false;
            for (k, (_, v)) in c.args.iter().enumerate() {
                one.clear();
                v.write_json(&mut one);
                let next = seen.len();
                let r = *seen.entry(one.clone()).or_insert_with(|| {
                    if next > 0 {
                        values.push(',');
                    }
                    values.push_str(&one);
                    next
                });
                let _ = write!(out, "{}{r}", if k > 0 { "," } else { "" });
            }
            out.push_str("]]");
        }
        out.push_str("],\"values\":[");
        out.push_str(&values);
        out.push_str("]}");
    }
    out.push_str("],\"stubs\":{");
    for (i, (k, src)) in stubs.iter().enumerate() {
        let _ = write!(out, "{}\"{k}\":", if i > 0 { "," } else { "" });
        text(&mut out, src);
    }
    out.push_str("},\"strops\":");
    if plan.domain == Domain::String {
        text(&mut out, STROPS_SOURCE);
    } else {
        out.push_str("null");
    }
    let _ = write!(
        out,
        ",\"memoize\":{},\"restrict_builtins\":{},\"call_timeout\":{}}}",
        opts.memoize,
        opts.restrict_builtins,
        serde_json::Value::from(opts.call_timeout)
    );
    out.into_bytes()
}

/// Calls per trial of a plan (the shape `outcome::read_results` needs).
pub fn shape(plan: &Plan) -> Vec<usize> {
    plan.trials.iter().map(|t| t.calls.len()).collect()
}

/// The grade of one candidate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The task scores 1.
    pub passed: bool,
    pub kind: Kind,
    /// One line: why it passed or the first reason it failed.
    pub message: String,
    /// compilation, function_existence, behavioral (suite order).
    pub checks: Vec<CheckResult>,
    pub functions: Vec<FunctionResult>,
    pub trials: usize,
    /// What the candidate printed (capped), for diagnosis.
    #[serde(default)]
    pub candidate_stdout: String,
    #[serde(default)]
    pub candidate_stderr: String,
    /// Wall-clock seconds of the two runs (0 for a cached reference).
    #[serde(default)]
    pub seconds: f64,
}

impl Verdict {
    pub fn score(&self) -> u8 {
        u8::from(self.passed)
    }
}

/// A verdict for a task or candidate that could not be run at all (planning failed, the reference
/// did not run): every check is an error with `message`.
pub fn error_verdict(task: &GradeTask, trials: usize, message: String) -> Verdict {
    let checks = ["compilation", "function_existence", "behavioral"]
        .iter()
        .map(|k| CheckResult {
            kind: k.to_string(),
            outcome: CheckOutcome::Error,
            message: message.clone(),
            metadata: serde_json::json!({}),
        })
        .collect();
    Verdict {
        passed: false,
        kind: task.kind,
        message,
        checks,
        functions: vec![],
        trials,
        candidate_stdout: String::new(),
        candidate_stderr: String::new(),
        seconds: 0.0,
    }
}

/// Assemble the verdict. `actual` is `None` when the candidate does not parse.
pub fn verdict(
    task: &GradeTask,
    prep: &Prepared,
    candidate: &str,
    expected: &RunOutcome,
    actual: Option<&RunOutcome>,
) -> Verdict {
    // Read once, by the one front end; every check below works from this reading.
    let read = Program::read(candidate);
    let compilation = verdict::compilation_check(&read);
    let existence = verdict::existence_check(&task.starter, &task.reference, &read);
    let program = read.as_ref().map_err(Clone::clone).and_then(|p| filtered(prep, p));
    let (behavioral, functions) = match (program, actual) {
        (Ok(cp), Some(actual)) => verdict::behavioural(&prep.plan, &cp.tested, &cp.missing, expected, actual),
        (Err(e), _) => (
            CheckResult {
                kind: "behavioral".into(),
                outcome: CheckOutcome::Error,
                message: format!("the candidate cannot be read: {e}"),
                metadata: serde_json::json!({"line": e.line}),
            },
            vec![],
        ),
        (Ok(_), None) => (
            CheckResult {
                kind: "behavioral".into(),
                outcome: CheckOutcome::Error,
                message: "the candidate was not run".into(),
                metadata: serde_json::json!({}),
            },
            vec![],
        ),
    };
    let mut checks = vec![compilation, existence, behavioral];
    let required = verdict::required_checks(task.kind, task.axis);
    checks.extend(static_required(task, candidate, &required));
    let passed = verdict::passes(&required, &checks);
    let message = if passed {
        format!("passed: every function matches the reference on {} trials", prep.plan.trials.len())
    } else {
        checks
            .iter()
            .filter(|c| {
                c.outcome != CheckOutcome::Pass && (required.contains(&c.kind.as_str()) || c.kind == "compilation")
            })
            .map(|c| format!("{}: {}", c.kind, c.message))
            .next()
            .unwrap_or_else(|| "failed".into())
    };
    let (stdout, stderr) = actual.map(|a| (a.stdout.clone(), a.stderr.clone())).unwrap_or_default();
    Verdict {
        passed,
        kind: task.kind,
        message,
        checks,
        functions,
        trials: prep.plan.trials.len(),
        candidate_stdout: stdout,
        candidate_stderr: stderr,
        seconds: 0.0,
    }
}

/// The required checks that are items of the static rubric (the runtime axis's `branch_placement`,
/// instruction following's `constraint_structure`, comment copying's `comment_copy`, variable renaming's
/// `renames`), run on the candidate as the rubric runs them: a failed item is a `fail`, an item not
/// checked because the candidate does not parse an `error`.
pub fn static_required(task: &GradeTask, candidate: &str, required: &[&str]) -> Vec<CheckResult> {
    const RUN: &[&str] = &["compilation", "function_existence", "behavioral"];
    let ids: Vec<&str> = required.iter().copied().filter(|id| !RUN.contains(id)).collect();
    if ids.is_empty() {
        return vec![];
    }
    let rubric = crate::static_checks(&task.task_ref(), candidate);
    ids.into_iter()
        .map(|id| match (rubric.item(id), rubric.reference_type(id)) {
            (Some(item), Some(t)) => CheckResult {
                kind: id.to_string(),
                outcome: match t {
                    "pass" => CheckOutcome::Pass,
                    "fail" => CheckOutcome::Fail,
                    _ => CheckOutcome::Error,
                },
                message: if item.passed { String::new() } else { item.reason.clone() },
                metadata: serde_json::json!({"line": item.line, "title": item.title}),
            },
            _ => CheckResult {
                kind: id.to_string(),
                outcome: CheckOutcome::Error,
                message: format!("the rubric has no item `{id}` for this task"),
                metadata: serde_json::json!({}),
            },
        })
        .collect()
}

#[cfg(test)]
mod request_tests {
    use super::*;
    use cabrito_gen::spec::TaskSpec;

    /// Every call of the request names its function and, through `values`, exactly the plan's
    /// arguments; the stubs, the strops and the options are there.
    #[test]
    fn the_request_holds_the_plan() {
        for (kind, domain) in
            [(Kind::AddParameter, Domain::Math), (Kind::DeadCode, Domain::String), (Kind::CacheFunction, Domain::Array)]
        {
            let t = cabrito_gen::generate(&TaskSpec::new(kind, domain, Axis::Traversal, 12, 5)).unwrap();
            let prep = prepare(&GradeTask::from_task(&t), 7).unwrap();
            let only: BTreeSet<String> = prep.plan.functions.iter().skip(1).map(|f| f.name.clone()).collect();
            let opts = HarnessOptions::default();
            let req = request(&prep.plan, &prep.reference_program, &prep.reference_defs, Some(&only), &opts);
            assert_eq!(req["program"], prep.reference_program.as_str());
            assert_eq!(req["domain"], domain.as_str());
            assert_eq!(req["strops"].is_string(), domain == Domain::String);
            assert_eq!(req["memoize"], opts.memoize);
            assert_eq!(req["call_timeout"], opts.call_timeout);
            let trials = req["trials"].as_array().unwrap();
            assert_eq!(trials.len(), prep.plan.trials.len());
            for (t, jt) in prep.plan.trials.iter().zip(trials) {
                assert!(req["stubs"][t.stub_index.to_string()].is_string());
                let values: Vec<Value> =
                    jt["values"].as_array().unwrap().iter().map(|v| Value::from_json(v).unwrap()).collect();
                let calls = jt["calls"].as_array().unwrap();
                let wanted: Vec<(usize, &plan::TrialCall)> =
                    t.calls.iter().enumerate().filter(|(_, c)| only.contains(&c.function)).collect();
                assert_eq!(calls.len(), wanted.len());
                for (jc, (i, c)) in calls.iter().zip(wanted) {
                    assert_eq!(jc[0], i);
                    let f = jc[1].as_u64().unwrap() as usize;
                    assert_eq!(prep.plan.functions[f].name, c.function);
                    let refs = jc[2].as_array().unwrap();
                    assert_eq!(refs.len(), c.args.len());
                    for (r, (_, v)) in refs.iter().zip(&c.args) {
                        assert_eq!(format!("{:?}", values[r.as_u64().unwrap() as usize]), format!("{v:?}"));
                    }
                }
            }
        }
    }

    #[test]
    fn values_write_as_to_json() {
        let vs = [
            Value::None,
            Value::Bool(true),
            Value::int(-3),
            Value::Float(f64::NAN),
            Value::Float(-0.5),
            Value::Str("a\"b\n\u{e9}".into()),
            Value::Tuple(vec![Value::Float(1e300), Value::List(vec![])]),
            Value::Array {
                shape: vec![2],
                dtype: "float64".into(),
                values: Some(vec![0.25, f64::INFINITY]),
                repr: String::new(),
            },
            Value::Array { shape: vec![1], dtype: "<U1".into(), values: None, repr: "array(['x'])".into() },
            Value::Other { type_name: "dict".into(), repr: "{}".into() },
        ];
        for v in vs {
            let mut s = String::new();
            v.write_json(&mut s);
            assert_eq!(serde_json::from_str::<serde_json::Value>(&s).unwrap(), v.to_json(), "{s}");
        }
    }
}
