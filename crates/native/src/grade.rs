//! `cabrito grade`: grade responses against tasks in the reference's layout (D11), in parallel,
//! resumably, writing the reference's result records plus a summary with Wilson intervals.
//!
//! Inputs (found and read by [`super::records`]): `--tasks DIR` holding
//! `tasks/<run>/<task_set>/<task_type>.json[.gz]` (or those run folders directly), and either
//! `--responses DIR` holding `responses/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl[.gz]` (or
//! those run folders directly), or `--solutions DIR` with one `<task name>.py` (or `<dag_id>.py` when that
//! dag_id names one task only) per task.
//! Output: `OUT/results/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl` (+ `.meta.json`)
//! and `OUT/summary.json`.
//!
//! One bad item never stops the batch: a response that cannot be read, matched or graded gets a record
//! saying why, and every job runs on a thread with a known stack ([`JOB_STACK_BYTES`]) inside
//! `catch_unwind`, so even a bug that panics on one response costs that response only.

use super::cli::Failure;
use super::records::{self, Place, TaskRecord};
use super::runner::{self, GradeOptions};
use cabrito_check::grade::{
    wilson, CheckOutcome, GradeTask, Verdict, DEFAULT_CALL_TIMEOUT_SECONDS, DEFAULT_TRIALS, MAX_TRIALS,
};
use cabrito_gen::spec::TaskSpec;
use cabrito_gen::words::count;
use clap::{Arg, ArgAction, ArgMatches, Command};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use super::records::axis_and_n;

/// Stack of each grading thread: generous, and known (a thread pool's default is not).
pub const JOB_STACK_BYTES: usize = 64 << 20;

pub fn command() -> Command {
    Command::new("grade")
        .about("Grade responses (reference JSONL layout) or a folder of solutions against tasks, by running them")
        .arg(Arg::new("tasks").long("tasks").required(true).value_name("DIR").help("tasks in the reference layout: DIR/tasks/<run>/<task_set>/<task_type>.json[.gz] (or DIR/<run>/...)"))
        .arg(Arg::new("responses").long("responses").value_name("DIR").help("responses: DIR/responses/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl[.gz] (or DIR/<run>/...)"))
        .arg(Arg::new("solutions").long("solutions").value_name("DIR").help("instead of --responses: a folder of <task name>.py files (<dag_id>.py when that dag_id names one task only)"))
        .arg(Arg::new("out").long("out").required(true).value_name("DIR").help("results go to DIR/results/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl, the summary to DIR/summary.json"))
        .arg(Arg::new("trials").long("trials").value_name("N").default_value(DEFAULT_TRIALS.to_string()).help(format!("trials per function, 1 to {MAX_TRIALS} (the paper's {DEFAULT_TRIALS}; the reference code's 5)")))
        .arg(Arg::new("call-timeout").long("call-timeout").value_name("SECONDS").default_value(DEFAULT_CALL_TIMEOUT_SECONDS.to_string()).help("seconds one call of a function may take before it counts as a time-out (the reference's)"))
        .arg(Arg::new("shard").long("shard").value_name("K/N").help("grade only shard K of N of the responses (results files get a .shard-K-of-N suffix; a later run without --shard merges them)"))
        .arg(Arg::new("jobs").long("jobs").value_name("N").help("parallel gradings (default: one per core)"))
        .arg(Arg::new("no-memoize").long("no-memoize").action(ArgAction::SetTrue).help("do not cache function results per trial"))
        .arg(Arg::new("cache").long("cache").value_name("DIR").help("cache the reference's outputs on disk in DIR"))
        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("print the summary as JSON instead of a table"))
}

/// Everything `cabrito grade` takes.
#[derive(Clone, Debug)]
pub struct GradeArgs {
    pub tasks: PathBuf,
    pub responses: Option<PathBuf>,
    pub solutions: Option<PathBuf>,
    pub out: PathBuf,
    pub opts: GradeOptions,
    pub shard: (usize, usize),
    pub jobs: Option<usize>,
    /// Draw a progress bar on stderr.
    pub progress: bool,
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let usage = Failure::Usage;
    let path = |k: &str| m.get_one::<String>(k).map(PathBuf::from);
    let trials: usize = m
        .get_one::<String>("trials")
        .expect("default")
        .parse()
        .ok()
        .filter(|t| (1..=MAX_TRIALS).contains(t))
        .ok_or_else(|| usage(format!("--trials must be an integer from 1 to {MAX_TRIALS}")))?;
    let call_timeout: f64 = m
        .get_one::<String>("call-timeout")
        .expect("default")
        .parse()
        .ok()
        .filter(|t: &f64| t.is_finite() && *t > 0.0 && *t <= 3600.0)
        .ok_or_else(|| usage("--call-timeout must be a number of seconds above 0 and at most 3600".into()))?;
    let shard = match m.get_one::<String>("shard") {
        Some(s) => super::grid::parse_shard(s).map_err(usage)?,
        None => (1, 1),
    };
    let jobs = match m.get_one::<String>("jobs") {
        Some(j) => Some(
            j.parse::<usize>()
                .ok()
                .filter(|j| *j >= 1)
                .ok_or_else(|| usage("--jobs must be a positive integer".into()))?,
        ),
        None => None,
    };
    if path("responses").is_some() == path("solutions").is_some() {
        return Err(usage("give exactly one of --responses DIR and --solutions DIR".into()));
    }
    let mut opts = GradeOptions { trials, cache_dir: path("cache"), ..Default::default() };
    opts.harness.memoize = !m.get_flag("no-memoize");
    opts.harness.call_timeout = call_timeout;
    let args = GradeArgs {
        tasks: path("tasks").expect("required"),
        responses: path("responses"),
        solutions: path("solutions"),
        out: path("out").expect("required"),
        opts,
        shard,
        jobs,
        progress: true,
    };
    let summary = grade_dirs(&args)?;
    if m.get_flag("json") {
        println!("{}", serde_json::to_string_pretty(&summary.to_json()).expect("json"));
    } else {
        print!("{}", summary.table());
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Jobs.

/// One response file's place: run, task set, task type and the model path (`<backend>/<model>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Combo {
    run: String,
    task_set: String,
    task_type: String,
    model: String,
}

impl Combo {
    fn new(place: &Place, model: &str) -> Combo {
        Combo {
            run: place.run.clone(),
            task_set: place.task_set.clone(),
            task_type: place.task_type.clone(),
            model: model.to_string(),
        }
    }
    fn place(&self) -> Place {
        Place { run: self.run.clone(), task_set: self.task_set.clone(), task_type: self.task_type.clone() }
    }
}

/// One unit of work.
#[derive(Clone, Debug)]
struct Job {
    combo: Combo,
    /// Position in its combo's deduplicated order.
    order: usize,
    name: Option<String>,
    dag_id: Option<String>,
    /// The candidate text, or why there is none.
    response: Result<String, String>,
    /// A solution file's code is taken as is; a response goes through the response reader.
    raw_code: bool,
}

/// Read a response JSONL: deduplicated by (name, dag_id), the last line winning, first-seen order
/// kept. Unreadable lines and lines with missing fields become jobs that carry the problem (with the
/// file and line); the other lines of the file are read on.
fn read_responses(combo: &Combo, path: &Path) -> Vec<Job> {
    let lines = match records::read_lines(path) {
        Ok(l) => l,
        Err(e) => {
            return vec![Job {
                combo: combo.clone(),
                order: 0,
                name: None,
                dag_id: None,
                response: Err(e),
                raw_code: false,
            }];
        }
    };
    // (name, dag_id, line for records without both)
    type Key = (Option<String>, Option<String>, usize);
    let mut order: Vec<Key> = Vec::new();
    let mut latest: HashMap<Key, Result<String, String>> = HashMap::new();
    for line in lines {
        let lineno = line.no;
        if line.text.trim().is_empty() && line.problem.is_none() {
            continue;
        }
        let where_ = format!("{} line {lineno}", path.display());
        let (key, resp) = match serde_json::from_str::<Json>(&line.text) {
            Err(e) => ((None, None, lineno), Err(line.problem.unwrap_or(format!("{where_}: not a JSON record ({e})")))),
            Ok(j) => {
                let name = j.get("name").and_then(Json::as_str).map(str::to_string);
                let dag = j.get("dag_id").and_then(Json::as_str).map(str::to_string);
                let resp = match (&name, &dag, j.get("output")) {
                    // A line that is not UTF-8 names its task (read with the bytes replaced) and why.
                    _ if line.problem.is_some() => Err(line.problem.clone().unwrap_or_default()),
                    (None, _, _) | (_, None, _) => {
                        Err(format!("{where_}: the record lacks a string 'name' or 'dag_id'"))
                    }
                    (_, _, Some(Json::String(s))) => Ok(s.clone()),
                    (_, _, Some(Json::Null)) | (_, _, None) => Err(match j.get("error").and_then(Json::as_str) {
                        Some(e) => format!("the response has no output (its error: {e})"),
                        None => format!("{where_}: the record has no 'output'"),
                    }),
                    (_, _, Some(_)) => Err(format!("{where_}: 'output' is not a string")),
                };
                let key = if name.is_some() && dag.is_some() { (name, dag, 0) } else { (name, dag, lineno) };
                (key, resp)
            }
        };
        if !latest.contains_key(&key) {
            order.push(key.clone());
        }
        latest.insert(key, resp);
    }
    order
        .into_iter()
        .enumerate()
        .map(|(i, key)| {
            let response = latest.remove(&key).unwrap_or_else(|| Err("internal: lost record".into()));
            Job { combo: combo.clone(), order: i, name: key.0, dag_id: key.1, response, raw_code: false }
        })
        .collect()
}

/// The task files read so far, by place.
type TaskIndex = HashMap<Place, Result<Vec<TaskRecord>, String>>;

/// The jobs of `--solutions DIR`: every `<key>.py` matched to exactly one task by name or dag_id.
fn solution_jobs(dir: &Path, tasks_root: &Path, index: &mut TaskIndex) -> Result<Vec<Job>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no .py files in {}", dir.display()));
    }
    let (found, problems) = records::task_files(tasks_root);
    if let Some(p) = problems.first() {
        return Err(p.clone());
    }
    // (place, name, dag_id) of every task, for matching file names.
    let mut tasks: Vec<((Place, String, String), String, String)> = Vec::new();
    for (place, path) in found {
        let recs = index.entry(place.clone()).or_insert_with(|| records::read_task_records(&path));
        if let Ok(recs) = recs {
            for r in recs.iter() {
                tasks.push(((place.clone(), r.name.clone(), r.dag_id.clone()), r.name.clone(), r.dag_id.clone()));
            }
        }
    }
    let model = format!("files/{}", dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
    let unmatched = Place { run: "unmatched".into(), task_set: "unmatched".into(), task_type: "unmatched".into() };
    Ok(files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let key = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            match records::match_solution(&key, &tasks) {
                Ok((place, name, dag)) => Job {
                    combo: Combo::new(place, &model),
                    order: i,
                    name: Some(name.clone()),
                    dag_id: Some(dag.clone()),
                    // Decoded as `python file.py` would (BOM, coding line, bytes in comments).
                    response: records::read_solution(f).and_then(|bytes| {
                        cabrito_check::source::decode(&bytes)
                            .map(|d| d.text.into_owned())
                            .map_err(|e| format!("{}: {e}", f.display()))
                    }),
                    raw_code: true,
                },
                Err(why) => {
                    eprintln!("{}: not graded: {why}", f.display());
                    Job {
                        combo: Combo::new(&unmatched, &model),
                        order: i,
                        name: Some(key.clone()),
                        dag_id: None,
                        response: Err(format!("{}: {why} (under {})", f.display(), tasks_root.display())),
                        raw_code: true,
                    }
                }
            }
        })
        .collect())
}

// ------------------------------------------------------------------------------------------------
// Grading one job.

/// The reference's result record for a graded job, with Cabrito's extra fields.
fn result_record(job: &Job, trials: usize, graded: Result<(Verdict, &'static str), String>) -> Json {
    match graded {
        Ok((v, format)) => {
            let mut summary = serde_json::Map::new();
            for c in &v.checks {
                let (p, f, e) = match c.outcome {
                    CheckOutcome::Pass => (1, 0, 0),
                    CheckOutcome::Fail => (0, 1, 0),
                    CheckOutcome::Error => (0, 0, 1),
                };
                summary.insert(c.kind.clone(), json!({"pass": p, "fail": f, "error": e, "pass_rate": p as f64}));
            }
            let results: Vec<Json> = v
                .checks
                .iter()
                .map(|c| json!({"kind": c.kind, "type": c.outcome, "metadata": c.metadata, "message": c.message}))
                .collect();
            json!({
                "name": job.name, "dag_id": job.dag_id, "parsed_ok": true,
                "summary": summary, "results": results,
                "score": v.score(), "message": v.message, "trials": trials, "format": format,
                "functions": v.functions, "seconds": (v.seconds * 1000.0).round() / 1000.0, "graded_by": "cabrito",
            })
        }
        Err(problem) => json!({
            "name": job.name, "dag_id": job.dag_id, "parsed_ok": false, "skipped": true,
            "summary": {}, "results": [], "score": 0, "error": problem, "trials": trials, "graded_by": "cabrito",
        }),
    }
}

fn find_task<'a>(index: &'a TaskIndex, job: &Job) -> Result<&'a TaskRecord, String> {
    let place = job.combo.place();
    let recs = match index.get(&place) {
        Some(Ok(r)) => r,
        Some(Err(e)) => return Err(e.clone()),
        None => return Err(format!("no task file tasks/{place}.json (or .json.gz)")),
    };
    records::find_record(recs, job.name.as_deref(), job.dag_id.as_deref(), &format!("tasks/{place}"))
}

fn grade_task(rec: &TaskRecord, place: &Place) -> Result<GradeTask, String> {
    let file = format!("tasks/{place}");
    let (kind, domain) = records::kind_and_domain(rec, Some(place), (None, None), &file)?;
    let axis = records::axis_of(rec, Some(place), &file)?;
    let missing = |f: &str| format!("task {} has no '{f}' string", rec.label());
    Ok(GradeTask {
        kind,
        domain,
        axis,
        starter: rec.starter.clone().ok_or_else(|| missing("starter_code"))?,
        reference: rec.reference.clone().ok_or_else(|| missing("solution_code"))?,
        key: if rec.dag_id.is_empty() { rec.name.clone() } else { rec.dag_id.clone() },
        metadata: rec.metadata.clone(),
    })
}

fn grade_job(job: &Job, index: &TaskIndex, opts: &GradeOptions) -> Json {
    guarded(job, opts.trials, || {
        let graded = (|| {
            let text = job.response.clone()?;
            let rec = find_task(index, job)?;
            let task = grade_task(rec, &job.combo.place())?;
            let (code, format) = if job.raw_code {
                (text, "file")
            } else {
                let cand = cabrito_check::response::parse_response(&text, &task.starter)
                    .map_err(|e| format!("the response cannot be read: {e}"))?;
                (cand.code, cand.format.as_str())
            };
            Ok((runner::grade(&task, &code, opts, &|_, _| {}), format))
        })();
        result_record(job, opts.trials, graded)
    })
}

/// Grade one response against one task record given as JSON (the bindings' `grade`): the record
/// `cabrito grade` writes for it, graded by the same runner and sandbox. `chosen` overrides the
/// record's kind, domain and axis as `cabrito check` does.
pub fn grade_value(
    record: &Json,
    response: &str,
    chosen: (Option<&str>, Option<&str>, Option<&str>),
    opts: &GradeOptions,
) -> Result<Json, String> {
    let (task, name, dag_id) = super::check::grade_task_of_value(record, chosen)?;
    let job = Job {
        combo: Combo { run: String::new(), task_set: String::new(), task_type: String::new(), model: String::new() },
        order: 0,
        name: Some(name),
        dag_id: Some(dag_id),
        response: Ok(response.to_string()),
        raw_code: false,
    };
    Ok(guarded(&job, opts.trials, || {
        let graded = cabrito_check::response::parse_response(response, &task.starter)
            .map_err(|e| format!("the response cannot be read: {e}"))
            .map(|cand| (runner::grade(&task, &cand.code, opts, &|_, _| {}), cand.format.as_str()));
        result_record(&job, opts.trials, graded)
    }))
}

/// The second wall: a panic while grading one job becomes that job's error record.
fn guarded(job: &Job, trials: usize, f: impl FnOnce() -> Json) -> Json {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(rec) => rec,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            let who = job.name.as_deref().or(job.dag_id.as_deref()).unwrap_or("this response");
            result_record(job, trials, Err(format!("internal error while grading {who}: {what}")))
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Summary.

/// One row of the summary: a model on one cell of the grid.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub tasks: usize,
    pub passed: usize,
}

/// A summary row's cell: model, kind, domain, axis, n.
pub type RowKey = (String, String, String, String, String);

/// Accuracy per model × kind × domain × axis × n.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub rows: BTreeMap<RowKey, Row>,
    pub graded: usize,
    pub reused: usize,
    pub problems: usize,
    /// Shard result files (`<model>.shard-K-of-N.jsonl`) folded into whole files by an unsharded run.
    pub merged_shards: usize,
    pub seconds: f64,
    pub isolation: String,
}

/// Axis and n of a reference run name (`function_traversal_…_en=(25,25)…`).
impl Summary {
    fn add(&mut self, combo: &Combo, spec: Option<&TaskSpec>, passed: bool) {
        let (axis, n) = match spec {
            Some(s) => (s.axis.as_str().to_string(), s.n.to_string()),
            None => axis_and_n(&combo.run),
        };
        let domain = cabrito_gen::axes::domain_of_task_set(&combo.task_set)
            .map(|d| d.as_str().to_string())
            .unwrap_or_else(|_| combo.task_set.clone());
        let row = self.rows.entry((combo.model.clone(), combo.task_type.clone(), domain, axis, n)).or_default();
        row.tasks += 1;
        row.passed += usize::from(passed);
    }

    /// The rows in order: model, kind, domain, axis, then `n` as a number (5, 25, 50, 200; one that
    /// is not a number after those, by its text).
    pub fn sorted_rows(&self) -> Vec<(&RowKey, &Row)> {
        let mut rows: Vec<(&RowKey, &Row)> = self.rows.iter().collect();
        let n_key =
            |n: &str| (n.parse::<f64>().ok().filter(|x| x.is_finite()).is_none(), n.parse::<f64>().unwrap_or(0.0));
        rows.sort_by(|(a, _), (b, _)| {
            (&a.0, &a.1, &a.2, &a.3)
                .cmp(&(&b.0, &b.1, &b.2, &b.3))
                .then_with(|| {
                    let (x, y) = (n_key(&a.4), n_key(&b.4));
                    x.0.cmp(&y.0).then(x.1.total_cmp(&y.1))
                })
                .then_with(|| a.4.cmp(&b.4))
        });
        rows
    }

    pub fn to_json(&self) -> Json {
        let rows: Vec<Json> = self
            .sorted_rows()
            .into_iter()
            .map(|((model, kind, domain, axis, n), r)| {
                let (lo, hi) = wilson(r.passed, r.tasks);
                json!({"model": model, "kind": kind, "domain": domain, "axis": axis, "n": n, "tasks": r.tasks, "passed": r.passed,
                       "accuracy": if r.tasks > 0 { r.passed as f64 / r.tasks as f64 } else { 0.0 }, "wilson95": [lo, hi]})
            })
            .collect();
        json!({"rows": rows, "graded": self.graded, "reused": self.reused, "problems": self.problems,
               "merged_shard_files": self.merged_shards, "seconds": self.seconds, "isolation": self.isolation})
    }

    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<28} {:<17} {:<7} {:<10} {:>4} {:>6} {:>8}  {}\n",
            "model", "kind", "domain", "axis", "n", "tasks", "accuracy", "Wilson 95%"
        );
        for ((model, kind, domain, axis, n), r) in self.sorted_rows() {
            let (lo, hi) = wilson(r.passed, r.tasks);
            let acc = if r.tasks > 0 { r.passed as f64 / r.tasks as f64 } else { 0.0 };
            s.push_str(&format!(
                "{model:<28} {kind:<17} {domain:<7} {axis:<10} {n:>4} {:>6} {acc:>8.3}  [{lo:.3}, {hi:.3}]\n",
                r.tasks
            ));
        }
        s.push_str(&format!(
            "graded {} ({} reused from earlier runs, {} could not be graded) in {:.1} s\nisolation: {}\n",
            count(self.graded, "response", "responses"),
            self.reused,
            self.problems,
            self.seconds,
            self.isolation
        ));
        if self.merged_shards > 0 {
            s.push_str(&format!(
                "merged {} into whole files\n",
                count(self.merged_shards, "shard result file", "shard result files")
            ));
        }
        s
    }
}

// ------------------------------------------------------------------------------------------------
// The whole command.

fn out_path(out: &Path, combo: &Combo, shard: (usize, usize)) -> PathBuf {
    let suffix = if shard.1 > 1 { format!(".shard-{}-of-{}", shard.0, shard.1) } else { String::new() };
    out.join("results")
        .join(&combo.run)
        .join(&combo.task_set)
        .join(&combo.task_type)
        .join(format!("{}{suffix}.jsonl", combo.model))
}

/// The shard files of an unsharded results file: `<model>.shard-K-of-N.jsonl` beside `<model>.jsonl`.
fn shard_siblings(path: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem().and_then(|s| s.to_str())) else { return vec![] };
    let prefix = format!("{stem}.shard-");
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let Some(name) = p.file_name().and_then(|n| n.to_str()) else { return false };
            let Some(mid) = name.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".jsonl")) else { return false };
            super::grid::parse_shard(&mid.replacen("-of-", "/", 1)).is_ok()
        })
        .collect();
    found.sort();
    found
}

/// Earlier results of a file that can be reused (same trials), by (name, dag_id).
fn earlier(path: &Path, trials: usize) -> HashMap<(Option<String>, Option<String>), Json> {
    let Ok(text) = std::fs::read_to_string(path) else { return HashMap::new() };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .filter(|j| {
            j.get("graded_by").and_then(Json::as_str) == Some("cabrito")
                && j.get("trials").and_then(Json::as_u64) == Some(trials as u64)
        })
        .filter(|j| j.get("parsed_ok").and_then(Json::as_bool) == Some(true))
        .map(|j| {
            let k = (
                j.get("name").and_then(Json::as_str).map(str::to_string),
                j.get("dag_id").and_then(Json::as_str).map(str::to_string),
            );
            (k, j)
        })
        .collect()
}

/// The grading threads: `jobs` of them (one per core by default), each with [`JOB_STACK_BYTES`].
fn pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, String> {
    let n = jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2));
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .stack_size(JOB_STACK_BYTES)
        .thread_name(|i| format!("cabrito-grade-{i}"))
        .build()
        .map_err(|e| format!("cannot start {n} grading threads: {e}"))
}

/// Grade everything `args` names; write results and the summary; return the summary.
pub fn grade_dirs(args: &GradeArgs) -> Result<Summary, Failure> {
    let started = std::time::Instant::now();
    let other = Failure::Other;
    if !args.tasks.is_dir() {
        return Err(Failure::Usage(format!("--tasks {} is not a folder", args.tasks.display())));
    }
    // The isolation probe (the pool's first child on the full tier) and the pool start while the
    // tasks and responses are read.
    if args.opts.pool {
        std::thread::spawn(super::pool::warm_probed);
    }
    let tasks_root = records::root(&args.tasks, "tasks");
    let mut index: TaskIndex = HashMap::new();
    let mut jobs: Vec<Job> = Vec::new();
    let mut merge: Option<Summary> = None;
    if let Some(dir) = &args.responses {
        if !dir.is_dir() {
            return Err(Failure::Usage(format!("--responses {} is not a folder", dir.display())));
        }
        // Merge runs have a layout of their own (native::merge_layout grades them).
        merge = super::merge_layout::grade_runs(args, dir, &tasks_root)?;
        let files = match records::response_files(dir) {
            Ok(f) => f,
            Err(_) if merge.is_some() => vec![],
            Err(e) => return Err(other(e)),
        };
        for file in files {
            if let std::collections::hash_map::Entry::Vacant(slot) = index.entry(file.place.clone()) {
                slot.insert(records::task_file(&tasks_root, &file.place).and_then(|p| records::read_task_records(&p)));
            }
            jobs.extend(read_responses(&Combo::new(&file.place, &file.model), &file.path));
        }
    } else if let Some(dir) = &args.solutions {
        jobs = solution_jobs(dir, &tasks_root, &mut index).map_err(other)?;
    }
    let jobs: Vec<Job> =
        jobs.into_iter().enumerate().filter(|(i, _)| i % args.shard.1 == args.shard.0 - 1).map(|(_, j)| j).collect();

    // Resume: reuse earlier records graded with the same number of trials.
    let mut combos: BTreeMap<Combo, Vec<Job>> = BTreeMap::new();
    for j in jobs {
        combos.entry(j.combo.clone()).or_default().push(j);
    }
    let mut reused_records: HashMap<(Combo, usize), Json> = HashMap::new();
    let mut todo: Vec<Job> = Vec::new();
    for (combo, js) in &combos {
        let path = out_path(&args.out, combo, args.shard);
        let mut old = earlier(&path, args.opts.trials);
        if args.shard.1 == 1 {
            // An unsharded run after `--shard` runs merges them: their records are reused like earlier
            // ones of this file (what a shard left ungraded is graded now), and the shard files go.
            for sibling in shard_siblings(&path) {
                for (k, rec) in earlier(&sibling, args.opts.trials) {
                    old.entry(k).or_insert(rec);
                }
            }
        }
        for j in js {
            match old.get(&(j.name.clone(), j.dag_id.clone())) {
                Some(rec) if j.response.is_ok() => {
                    reused_records.insert((combo.clone(), j.order), rec.clone());
                }
                _ => todo.push(j.clone()),
            }
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| other(format!("cannot create {}: {e}", dir.display())))?;
        }
        // Keep the reusable records in the file while new ones are appended.
        let mut keep = String::new();
        for j in js {
            if let Some(r) = reused_records.get(&(combo.clone(), j.order)) {
                keep.push_str(&r.to_string());
                keep.push('\n');
            }
        }
        std::fs::write(&path, keep).map_err(|e| other(format!("cannot write {}: {e}", path.display())))?;
    }

    let bar = if args.progress { ProgressBar::new(todo.len() as u64) } else { ProgressBar::hidden() };
    if args.progress {
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} responses ({per_sec}, eta {eta})",
            )
            .expect("template"),
        );
    }
    // Records are appended as they finish (so an interrupted run resumes), then rewritten in order.
    let writers: Mutex<HashMap<Combo, Option<std::fs::File>>> = Mutex::new(HashMap::new());
    let append = |combo: &Combo, rec: &Json| {
        if let Ok(mut w) = writers.lock() {
            let path = out_path(&args.out, combo, args.shard);
            let f = w
                .entry(combo.clone())
                .or_insert_with(|| std::fs::OpenOptions::new().append(true).create(true).open(&path).ok());
            if let Some(f) = f {
                // One write per record (formatting into the file writes each token on its own).
                let _ = f.write_all(format!("{rec}\n").as_bytes());
            }
        }
    };
    let work = || -> Vec<((Combo, usize), Json)> {
        todo.par_iter()
            .map(|j| {
                let rec = grade_job(j, &index, &args.opts);
                append(&j.combo, &rec);
                bar.inc(1);
                ((j.combo.clone(), j.order), rec)
            })
            .collect()
    };
    let fresh = pool(args.jobs).map_err(other)?.install(work);
    bar.finish_and_clear();
    drop(writers);

    let graded_now = fresh.len();
    let mut all: HashMap<(Combo, usize), Json> = reused_records;
    let reused = all.len();
    all.extend(fresh);
    let mut summary = Summary {
        isolation: super::pool::describe(runner::isolation(), args.opts.pool),
        graded: graded_now,
        reused,
        ..Summary::default()
    };
    for (combo, js) in &combos {
        let path = out_path(&args.out, combo, args.shard);
        let mut text = String::new();
        let (mut ran, mut skipped) = (0usize, 0usize);
        let mut by_kind: BTreeMap<String, [usize; 3]> = BTreeMap::new();
        for j in js {
            let Some(rec) = all.get(&(combo.clone(), j.order)) else { continue };
            text.push_str(&rec.to_string());
            text.push('\n');
            let parsed = rec.get("parsed_ok").and_then(Json::as_bool) == Some(true);
            if parsed {
                ran += 1;
            } else {
                skipped += 1;
                summary.problems += 1;
            }
            for r in rec.get("results").and_then(Json::as_array).into_iter().flatten() {
                let k = r.get("kind").and_then(Json::as_str).unwrap_or("?").to_string();
                let slot = match r.get("type").and_then(Json::as_str) {
                    Some("pass") => 0,
                    Some("fail") => 1,
                    _ => 2,
                };
                by_kind.entry(k).or_default()[slot] += 1;
            }
            if combo.run != "unmatched" {
                let spec = find_task(&index, j).ok().and_then(|t| t.spec.clone());
                summary.add(combo, spec.as_ref(), rec.get("score").and_then(Json::as_u64) == Some(1));
            }
        }
        crate::outdir::write_whole(&path, text.as_bytes())
            .map_err(|e| other(format!("cannot write {}: {e}", path.display())))?;
        let by_kind: serde_json::Map<String, Json> = by_kind
            .into_iter()
            .map(|(k, [p, f, e])| (k, json!({"pass": p, "fail": f, "error": e, "pass_rate": if p + f + e > 0 { p as f64 / (p + f + e) as f64 } else { 0.0 }})))
            .collect();
        let meta = json!({
            "run_name": combo.run, "task_set": combo.task_set, "task_type": combo.task_type, "model": combo.model,
            "responses_path": args.responses.as_ref().or(args.solutions.as_ref()).map(|p| p.display().to_string()),
            "n_records": js.len(), "n_ran": ran, "n_skipped": skipped, "by_kind": by_kind,
            "trials": args.opts.trials, "graded_by": "cabrito",
        });
        let meta_path = path.with_extension("meta.json");
        crate::outdir::write_whole(&meta_path, serde_json::to_string_pretty(&meta).expect("json").as_bytes())
            .map_err(|e| other(format!("cannot write {}: {e}", meta_path.display())))?;
        if args.shard.1 == 1 {
            // Every record of the shard files is now in the whole file (reused or graded again).
            for sibling in shard_siblings(&path) {
                std::fs::remove_file(&sibling)
                    .map_err(|e| other(format!("cannot remove the merged shard file {}: {e}", sibling.display())))?;
                let _ = std::fs::remove_file(sibling.with_extension("meta.json"));
                summary.merged_shards += 1;
            }
        }
    }
    if let Some(m) = merge {
        summary.rows.extend(m.rows);
        summary.graded += m.graded;
        summary.reused += m.reused;
        summary.problems += m.problems;
    }
    summary.seconds = started.elapsed().as_secs_f64();
    let name = if args.shard.1 > 1 {
        format!("summary.shard-{}-of-{}.json", args.shard.0, args.shard.1)
    } else {
        "summary.json".into()
    };
    if args.shard.1 == 1 && summary.merged_shards > 0 {
        for e in std::fs::read_dir(&args.out).into_iter().flatten().flatten() {
            let n = e.file_name().to_string_lossy().to_string();
            if n.starts_with("summary.shard-") && n.ends_with(".json") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let sp = args.out.join(name);
    std::fs::create_dir_all(&args.out).map_err(|e| other(format!("cannot create {}: {e}", args.out.display())))?;
    std::fs::write(&sp, serde_json::to_string_pretty(&summary.to_json()).expect("json"))
        .map_err(|e| other(format!("cannot write {}: {e}", sp.display())))?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str) -> Job {
        let place = Place { run: "r".into(), task_set: "math_function".into(), task_type: "dead_code".into() };
        Job {
            combo: Combo::new(&place, "m"),
            order: 0,
            name: Some(name.into()),
            dag_id: Some("d".into()),
            response: Ok(String::new()),
            raw_code: true,
        }
    }

    /// A panic in one job is that job's error record, on a pool of the known stack size; the others
    /// are graded on.
    #[test]
    fn a_panicking_job_costs_only_itself() {
        let pool = pool(Some(2)).unwrap();
        let recs: Vec<Json> = pool.install(|| {
            (0..6)
                .into_par_iter()
                .map(|i| {
                    let j = job(&format!("job{i}"));
                    guarded(&j, 3, || {
                        if i == 3 {
                            panic!("boom in job {i}");
                        }
                        result_record(&j, 3, Err("fine".into()))
                    })
                })
                .collect()
        });
        assert_eq!(recs.len(), 6);
        assert!(recs[3]["error"].as_str().unwrap().contains("internal error while grading job3: boom in job 3"));
        assert!(recs.iter().enumerate().all(|(i, r)| i == 3 || r["error"] == json!("fine")));
    }
}
