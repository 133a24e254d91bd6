//! `cabrito._core`: the Python package's native module (D14: one core, every front). Every function
//! calls the crates the CLI calls, so the same spec and response give the same bytes and verdicts;
//! values cross as JSON text and the Python layer (`python/cabrito`) turns them into dicts.
//! Work runs without the GIL on a thread with a known stack, and a panic becomes an exception.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)] // a shell: threads, files

use cabrito_analysis::results::{frontier, paired};
use cabrito_check::grade::{DEFAULT_CALL_TIMEOUT_SECONDS, DEFAULT_TRIALS, MAX_TRIALS};
use cabrito_gen::spec::{TaskSpec, Values, KNOBS};
use cabrito_native::grid::{grid_specs, GridRequest};
use cabrito_native::runner::GradeOptions;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use serde_json::{json, Value};

create_exception!(_core, CabritoError, PyException, "Every error of the cabrito package.");
create_exception!(
    _core,
    SpecError,
    CabritoError,
    "A spec, knob or grid that cannot be generated (the CLI's usage errors)."
);
create_exception!(_core, TaskError, CabritoError, "A task record that cannot be read (missing fields, unknown kind).");
create_exception!(_core, ResponseError, CabritoError, "A response that cannot be read (too large, undecodable bytes).");
create_exception!(_core, GradeUnavailable, CabritoError, "Grading cannot run here (no python3 with numpy on PATH).");

/// Stack of the thread every call runs on (the grader's own).
const STACK_BYTES: usize = cabrito_native::grade::JOB_STACK_BYTES;

/// Why a call failed, and which exception says it.
enum Error {
    Spec(String),
    Task(String),
    Response(String),
    Unavailable(String),
    Internal(String),
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        match e {
            Error::Spec(m) => SpecError::new_err(m),
            Error::Task(m) => TaskError::new_err(m),
            Error::Response(m) => ResponseError::new_err(m),
            Error::Unavailable(m) => GradeUnavailable::new_err(m),
            Error::Internal(m) => CabritoError::new_err(m),
        }
    }
}

/// Run `f` without the GIL on a thread of its own (a known stack; a panic is an error, not a crash).
fn guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    let out = py.detach(|| {
        std::thread::scope(|s| {
            let h = std::thread::Builder::new().stack_size(STACK_BYTES).spawn_scoped(s, f);
            match h {
                Ok(h) => h.join().unwrap_or_else(|p| {
                    let what = p
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a panic".into());
                    Err(Error::Internal(format!("internal error (please report it): {what}")))
                }),
                Err(e) => Err(Error::Internal(format!("cannot start a thread: {e}"))),
            }
        })
    });
    out.map_err(PyErr::from)
}

/// The package's version (the workspace's).
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The generator version this build writes (`v` of a spec).
#[pyfunction]
fn generator_version() -> u32 {
    cabrito_gen::spec::GENERATOR_VERSION
}

/// Every knob of a spec: (key, help, allowed values, default or None).
#[pyfunction]
fn knobs() -> Vec<(&'static str, &'static str, String, Option<&'static str>)> {
    KNOBS.iter().map(|k| (k.key, k.help, k.allowed(), k.default)).collect()
}

/// The values a choice knob takes (`kind`, `domain`, `axis`, …), in the registry's order.
#[pyfunction]
fn choices(key: &str) -> PyResult<Vec<&'static str>> {
    match KNOBS.iter().find(|k| k.key == key).map(|k| k.values) {
        Some(Values::Choice(c)) => Ok(c.to_vec()),
        _ => Err(Error::Spec(format!("'{key}' is not a knob with named values")).into()),
    }
}

/// The knobs whose values are integers.
#[pyfunction]
fn int_knobs() -> Vec<&'static str> {
    KNOBS.iter().filter(|k| matches!(k.values, Values::Int { .. })).map(|k| k.key).collect()
}

fn spec_of(pairs: &[(String, String)]) -> Result<TaskSpec, Error> {
    cabrito_native::cli::spec_of_pairs(pairs).map_err(Error::Spec)
}

fn record_text(spec: &TaskSpec, pretty: bool) -> Result<String, Error> {
    let task = cabrito_gen::task::generate(spec).map_err(|e| Error::Spec(e.to_string()))?;
    let record = cabrito_gen::task::export(&task);
    let text = if pretty { serde_json::to_string_pretty(&record) } else { serde_json::to_string(&record) };
    text.map_err(|e| Error::Internal(e.to_string()))
}

/// The task record of a spec given as `(knob, value)` pairs: `cabrito generate --json` (pretty) or a
/// line of `cabrito grid`'s JSON Lines (compact), without the final newline.
#[pyfunction]
#[pyo3(signature = (pairs, pretty = true))]
fn generate_json(py: Python<'_>, pairs: Vec<(String, String)>, pretty: bool) -> PyResult<String> {
    guarded(py, || record_text(&spec_of(&pairs)?, pretty))
}

/// The share-link fragment of a spec (`#/task?v=1&…`), as `cabrito link` prints after its base.
#[pyfunction]
fn link(pairs: Vec<(String, String)>) -> PyResult<String> {
    Ok(cabrito_gen::task::link(&spec_of(&pairs)?))
}

/// The whole prompt a model is given for a task: the CLI's `llm_prompt.md` and `cabrito solve`'s.
#[pyfunction]
fn llm_prompt(statement: &str, starter_code: &str) -> String {
    cabrito_gen::kinds::prompt::llm_prompt(statement, starter_code)
}

/// The tasks of a grid, generated as they are asked for: a small batch at a time, in parallel as
/// `cabrito grid` does, handed out in the grid's order.
#[pyclass(module = "cabrito._core")]
struct Grid {
    specs: Vec<TaskSpec>,
    next: usize,
    /// Generated and not yet handed out, in order.
    ready: std::collections::VecDeque<String>,
    skipped: Vec<String>,
}

#[pymethods]
impl Grid {
    fn __len__(&self) -> usize {
        self.specs.len()
    }
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    /// The next task record, as compact JSON text.
    fn __next__(mut slf: PyRefMut<'_, Self>) -> PyResult<Option<String>> {
        if let Some(text) = slf.ready.pop_front() {
            return Ok(Some(text));
        }
        let batch = rayon::current_num_threads().max(1) * 2;
        let end = (slf.next + batch).min(slf.specs.len());
        if slf.next >= end {
            return Ok(None);
        }
        let specs = slf.specs[slf.next..end].to_vec();
        slf.next = end;
        let texts = guarded(slf.py(), move || {
            use rayon::prelude::*;
            specs.par_iter().map(|s| record_text(s, false)).collect::<Result<Vec<String>, Error>>()
        })?;
        slf.ready.extend(texts);
        Ok(slf.ready.pop_front())
    }
    /// What the grid left out, and why (as `cabrito grid` says it).
    #[getter]
    fn skipped(&self) -> Vec<String> {
        self.skipped.clone()
    }
    /// The spec of every task, as its share-link fragment.
    fn links(&self) -> Vec<String> {
        self.specs.iter().map(cabrito_gen::task::link).collect()
    }
}

fn grid_request(
    axes: Option<String>,
    kinds: Option<String>,
    domains: Option<String>,
    sizes: Option<String>,
    samples: Option<u64>,
    seed: u64,
    shard: Option<String>,
) -> GridRequest {
    let d = GridRequest::default();
    GridRequest {
        axes: axes.unwrap_or(d.axes),
        kinds: kinds.unwrap_or(d.kinds),
        domains: domains.unwrap_or(d.domains),
        sizes,
        samples,
        seed,
        shard,
    }
}

/// A grid with `cabrito grid`'s knobs (lists as comma-separated text).
#[pyfunction]
#[pyo3(signature = (axes = None, kinds = None, domains = None, sizes = None, samples = None, seed = 0, shard = None))]
#[allow(clippy::too_many_arguments)]
fn grid(
    axes: Option<String>,
    kinds: Option<String>,
    domains: Option<String>,
    sizes: Option<String>,
    samples: Option<u64>,
    seed: u64,
    shard: Option<String>,
) -> PyResult<Grid> {
    let req = grid_request(axes, kinds, domains, sizes, samples, seed, shard);
    let (specs, skipped) = grid_specs(&req).map_err(Error::Spec)?;
    Ok(Grid { specs, next: 0, ready: Default::default(), skipped })
}

/// Write a grid as a Hugging Face dataset folder (`cabrito export --format hf`); returns the rows.
#[pyfunction]
#[pyo3(signature = (out, axes = None, kinds = None, domains = None, sizes = None, samples = None, seed = 0, shard = None))]
#[allow(clippy::too_many_arguments)]
fn export_hf(
    py: Python<'_>,
    out: std::path::PathBuf,
    axes: Option<String>,
    kinds: Option<String>,
    domains: Option<String>,
    sizes: Option<String>,
    samples: Option<u64>,
    seed: u64,
    shard: Option<String>,
) -> PyResult<usize> {
    let req = grid_request(axes, kinds, domains, sizes, samples, seed, shard);
    guarded(py, move || {
        cabrito_native::export::export_hf(&req, &out).map_err(|e| match e {
            cabrito_native::cli::Failure::Usage(m) => Error::Spec(m),
            cabrito_native::cli::Failure::Other(m) => Error::Internal(m),
        })
    })
}

/// A response given as `str` (taken as it is) or `bytes` (decoded as `cabrito check` reads a file).
fn response_text(response: &Bound<'_, PyAny>) -> PyResult<String> {
    const LABEL: &str = "<response>";
    if let Ok(s) = response.cast::<PyString>() {
        let text = s.to_str()?.to_string();
        if text.len() > cabrito_check::response::MAX_RESPONSE_BYTES {
            return Err(Error::Response(format!(
                "the solution {LABEL} is larger than {} bytes (2 MB); expected one Python file or response",
                cabrito_check::response::MAX_RESPONSE_BYTES
            ))
            .into());
        }
        return Ok(text);
    }
    if let Ok(b) = response.cast::<PyBytes>() {
        return cabrito_native::check::decode_response(b.as_bytes(), LABEL).map_err(|e| Error::Response(e).into());
    }
    Err(PyTypeError::new_err(format!(
        "the response must be str or bytes, not {}",
        response.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
    )))
}

fn task_value(task_json: &str) -> Result<Value, Error> {
    serde_json::from_str(task_json).map_err(|e| Error::Task(format!("the task is not JSON: {e}")))
}

/// `cabrito check --json` of a task record (JSON text) and a response.
#[pyfunction]
#[pyo3(signature = (task_json, response, kind = None, domain = None, axis = None))]
fn check_json(
    py: Python<'_>,
    task_json: String,
    response: &Bound<'_, PyAny>,
    kind: Option<String>,
    domain: Option<String>,
    axis: Option<String>,
) -> PyResult<String> {
    let text = response_text(response)?;
    guarded(py, move || {
        let task = task_value(&task_json)?;
        let chosen = (kind.as_deref(), domain.as_deref(), axis.as_deref());
        let report = cabrito_native::check::check_value(&task, &text, chosen, "<response>").map_err(Error::Task)?;
        Ok(report.to_string())
    })
}

/// Whether this machine can grade: a python3 with numpy on PATH (the sandbox probes it once).
fn grading_ready() -> Result<(), Error> {
    let iso = cabrito_native::sandbox::isolation();
    if iso.site_packages.is_empty() {
        return Err(Error::Unavailable(format!(
            "grading runs the candidate in a python3 with numpy, and none is usable here: {}",
            iso.note
        )));
    }
    Ok(())
}

/// The record `cabrito grade` writes for a response to a task record (JSON text), graded in the
/// same sandbox.
#[pyfunction]
#[pyo3(signature = (task_json, response, trials = DEFAULT_TRIALS as i64, call_timeout = DEFAULT_CALL_TIMEOUT_SECONDS, kind = None, domain = None, axis = None))]
#[allow(clippy::too_many_arguments)]
fn grade_json(
    py: Python<'_>,
    task_json: String,
    response: &Bound<'_, PyAny>,
    trials: i64,
    call_timeout: f64,
    kind: Option<String>,
    domain: Option<String>,
    axis: Option<String>,
) -> PyResult<String> {
    let trials = usize::try_from(trials)
        .ok()
        .filter(|t| (1..=MAX_TRIALS).contains(t))
        .ok_or_else(|| Error::Spec(format!("trials must be an integer from 1 to {MAX_TRIALS}, got {trials}")))?;
    if !(call_timeout.is_finite() && call_timeout > 0.0 && call_timeout <= 3600.0) {
        return Err(Error::Spec("call_timeout must be a number of seconds above 0 and at most 3600".into()).into());
    }
    let text = response_text(response)?;
    guarded(py, move || {
        let task = task_value(&task_json)?;
        grading_ready()?;
        let mut opts = GradeOptions { trials, ..Default::default() };
        opts.harness.call_timeout = call_timeout;
        let chosen = (kind.as_deref(), domain.as_deref(), axis.as_deref());
        let record = cabrito_native::grade::grade_value(&task, &text, chosen, &opts).map_err(Error::Task)?;
        Ok(record.to_string())
    })
}

/// The paired comparison of two models on the same tasks: `outcomes` holds (A solved, B solved).
#[pyfunction]
#[pyo3(signature = (outcomes, resamples = paired::DEFAULT_RESAMPLES, seed = paired::DEFAULT_SEED))]
fn paired_json(py: Python<'_>, outcomes: Vec<(bool, bool)>, resamples: usize, seed: u64) -> PyResult<String> {
    if resamples > 1_000_000 {
        return Err(Error::Spec(format!("resamples must be at most 1000000, got {resamples}")).into());
    }
    guarded(py, move || {
        let p = paired::paired(&outcomes, resamples, seed);
        Ok(json!({
            "tasks": p.tasks, "both": p.both, "only_a": p.only_a, "only_b": p.only_b, "neither": p.neither,
            "accuracy_a": p.accuracy_a, "accuracy_b": p.accuracy_b, "diff": p.diff,
            "interval": [p.lo, p.hi], "p_value": p.p_value, "resamples": p.resamples, "seed": p.seed,
        })
        .to_string())
    })
}

/// The two-sided exact McNemar p-value of `b` and `c` discordant tasks.
#[pyfunction]
fn mcnemar(b: usize, c: usize) -> f64 {
    paired::mcnemar_exact(b, c)
}

/// The capability frontier of one model on one axis from (n, passed, tasks) groups.
#[pyfunction]
fn frontier_json(groups: Vec<(f64, usize, usize)>) -> PyResult<String> {
    if let Some(g) = groups.iter().find(|g| g.1 > g.2) {
        return Err(Error::Spec(format!("a group has more passed than tasks: n = {}, {} of {}", g.0, g.1, g.2)).into());
    }
    let groups: Vec<frontier::Group> =
        groups.into_iter().map(|(n, passed, tasks)| frontier::Group { n, passed, tasks }).collect();
    let (fit, crossing) = frontier::crossing(&groups);
    let fit = fit.map(|f| {
        json!({
            "intercept": f.intercept, "slope": f.slope, "var_intercept": f.var_intercept,
            "var_slope": f.var_slope, "cov": f.cov, "iterations": f.iterations,
        })
    });
    let (status, n50, interval) = match crossing {
        frontier::Crossing::At { n50, lo, hi } => ("crosses", Some(n50), Some([lo, hi])),
        frontier::Crossing::AboveThroughout => ("above", None, None),
        frontier::Crossing::BelowThroughout => ("below", None, None),
        frontier::Crossing::NoDecline => ("no_decline", None, None),
        frontier::Crossing::Step { .. } => ("step", None, None),
        frontier::Crossing::TooFewSizes => ("too_few_sizes", None, None),
    };
    let step = match crossing {
        frontier::Crossing::Step { last_solved, first_failed } => Some([last_solved, first_failed]),
        _ => None,
    };
    Ok(json!({
        "status": status, "n50": n50, "interval": interval, "step": step,
        "describe": crossing.describe(), "fit": fit,
    })
    .to_string())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("CabritoError", py.get_type::<CabritoError>())?;
    m.add("SpecError", py.get_type::<SpecError>())?;
    m.add("TaskError", py.get_type::<TaskError>())?;
    m.add("ResponseError", py.get_type::<ResponseError>())?;
    m.add("GradeUnavailable", py.get_type::<GradeUnavailable>())?;
    m.add("DEFAULT_TRIALS", DEFAULT_TRIALS)?;
    m.add("MAX_TRIALS", MAX_TRIALS)?;
    m.add("DEFAULT_CALL_TIMEOUT_SECONDS", DEFAULT_CALL_TIMEOUT_SECONDS)?;
    m.add_class::<Grid>()?;
    for f in [
        wrap_pyfunction!(version, m)?,
        wrap_pyfunction!(generator_version, m)?,
        wrap_pyfunction!(knobs, m)?,
        wrap_pyfunction!(int_knobs, m)?,
        wrap_pyfunction!(choices, m)?,
        wrap_pyfunction!(generate_json, m)?,
        wrap_pyfunction!(link, m)?,
        wrap_pyfunction!(llm_prompt, m)?,
        wrap_pyfunction!(grid, m)?,
        wrap_pyfunction!(export_hf, m)?,
        wrap_pyfunction!(check_json, m)?,
        wrap_pyfunction!(grade_json, m)?,
        wrap_pyfunction!(paired_json, m)?,
        wrap_pyfunction!(mcnemar, m)?,
        wrap_pyfunction!(frontier_json, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
