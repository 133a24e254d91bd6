//! `cabrito grade`: grade responses against tasks in the reference's layout (D11), in parallel,
//! resumably, writing the reference's result records plus a summary with Wilson intervals.
//!
//! Inputs: `--tasks DIR` holding `tasks/<run>/<task_set>/<task_type>.json[.gz]` (or those run
//! folders directly), and either `--responses DIR` holding
//! `responses/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl[.gz]` (or those run folders
//! directly), or `--solutions DIR` with one `<dag_id or name>.py` per task.
//! Output: `OUT/results/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl` (+ `.meta.json`)
//! and `OUT/summary.json`.

use super::cli::Failure;
use super::runner::{self, GradeOptions};
use crate::grade::{self, wilson, GradeTask, Outcome, Verdict};
use crate::spec::{Axis, Kind, TaskSpec};
use clap::{Arg, ArgAction, ArgMatches, Command};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub fn command() -> Command {
    Command::new("grade")
        .about("Grade responses (reference JSONL layout) or a folder of solutions against tasks, by running them")
        .arg(Arg::new("tasks").long("tasks").required(true).value_name("DIR").help("tasks in the reference layout: DIR/tasks/<run>/<task_set>/<task_type>.json[.gz] (or DIR/<run>/...)"))
        .arg(Arg::new("responses").long("responses").value_name("DIR").help("responses: DIR/responses/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl[.gz] (or DIR/<run>/...)"))
        .arg(Arg::new("solutions").long("solutions").value_name("DIR").help("instead of --responses: a folder of <dag_id>.py or <task name>.py files"))
        .arg(Arg::new("out").long("out").required(true).value_name("DIR").help("results go to DIR/results/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl, the summary to DIR/summary.json"))
        .arg(Arg::new("trials").long("trials").value_name("N").default_value("50").help("trials per function (the paper's 50; the reference code's 5)"))
        .arg(Arg::new("shard").long("shard").value_name("K/N").help("grade only shard K of N of the responses (results files get a .shard-K-of-N suffix)"))
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
        .filter(|t| (1..=10_000).contains(t))
        .ok_or_else(|| usage("--trials must be an integer from 1 to 10000".into()))?;
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
// Reading.

/// Read a file, gunzipping `.gz`.
fn read_text(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .map_err(|e| format!("{} is not valid gzip: {e}", path.display()))?;
        out
    } else {
        bytes
    };
    String::from_utf8(bytes)
        .map_err(|e| format!("{} is not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to()))
}

fn strip_ext(name: &str) -> Option<&str> {
    name.strip_suffix(".jsonl.gz").or_else(|| name.strip_suffix(".jsonl"))
}

/// `DIR/<sub>` when it exists, else `DIR`.
fn root(dir: &Path, sub: &str) -> PathBuf {
    let inner = dir.join(sub);
    if inner.is_dir() {
        inner
    } else {
        dir.to_path_buf()
    }
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn name_of(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

/// One response file's place: run, task set, task type and the model path (`<backend>/<model>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Combo {
    run: String,
    task_set: String,
    task_type: String,
    model: String,
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

fn response_files(dir: &Path) -> Result<Vec<(Combo, PathBuf)>, String> {
    let base = root(dir, "responses");
    let mut out = Vec::new();
    for run in sorted_dirs(&base) {
        for set in sorted_dirs(&run) {
            for ty in sorted_dirs(&set) {
                let mut stack = vec![ty.clone()];
                while let Some(d) = stack.pop() {
                    let Ok(rd) = std::fs::read_dir(&d) else { continue };
                    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
                    entries.sort();
                    for p in entries {
                        if p.is_dir() {
                            stack.push(p);
                        } else if let Some(stem) = strip_ext(&name_of(&p)) {
                            let rel = p
                                .parent()
                                .and_then(|pp| pp.strip_prefix(&ty).ok())
                                .map(|r| r.to_string_lossy().into_owned())
                                .unwrap_or_default();
                            let model = if rel.is_empty() { stem.to_string() } else { format!("{rel}/{stem}") };
                            out.push((
                                Combo { run: name_of(&run), task_set: name_of(&set), task_type: name_of(&ty), model },
                                p,
                            ));
                        }
                    }
                }
            }
        }
    }
    if out.is_empty() {
        return Err(format!(
            "no response files (<run>/<task_set>/<task_type>/<backend>/<model>.jsonl) under {}",
            base.display()
        ));
    }
    out.sort();
    Ok(out)
}

/// Read a response JSONL: deduplicated by (name, dag_id), the last line winning, first-seen order
/// kept. Unreadable lines and lines with missing fields become jobs that carry the problem.
fn read_responses(combo: &Combo, path: &Path) -> Vec<Job> {
    let text = match read_text(path) {
        Ok(t) => t,
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
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let lineno = i + 1;
        let where_ = format!("{} line {lineno}", path.display());
        let (key, resp) = match serde_json::from_str::<Json>(line) {
            Err(e) => ((None, None, lineno), Err(format!("{where_}: not a JSON record ({e})"))),
            Ok(j) => {
                let name = j.get("name").and_then(Json::as_str).map(str::to_string);
                let dag = j.get("dag_id").and_then(Json::as_str).map(str::to_string);
                let resp = match (&name, &dag, j.get("output")) {
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

/// A task record and where it came from.
#[derive(Clone, Debug)]
struct TaskRec {
    name: String,
    dag_id: String,
    starter: Option<String>,
    reference: Option<String>,
    spec: Option<TaskSpec>,
}

type TaskIndex = HashMap<(String, String, String), Result<Vec<TaskRec>, String>>;

fn task_file(tasks_root: &Path, run: &str, set: &str, ty: &str) -> Option<PathBuf> {
    let dir = tasks_root.join(run).join(set);
    [format!("{ty}.json"), format!("{ty}.json.gz")].into_iter().map(|f| dir.join(f)).find(|p| p.is_file())
}

fn load_tasks(path: &Path) -> Result<Vec<TaskRec>, String> {
    let text = read_text(path)?;
    let j: Json =
        serde_json::from_str(&text).map_err(|e| format!("{} is not a JSON list of tasks: {e}", path.display()))?;
    let list = j.as_array().ok_or_else(|| format!("{} is not a JSON list of tasks", path.display()))?;
    Ok(list
        .iter()
        .map(|r| {
            let s = |k: &str| r.get(k).and_then(Json::as_str).map(str::to_string);
            TaskRec {
                name: s("name").unwrap_or_default(),
                dag_id: s("dag_id").unwrap_or_default(),
                starter: s("starter_code"),
                reference: s("solution_code"),
                spec: r.get("spec").and_then(|v| serde_json::from_value(v.clone()).ok()),
            }
        })
        .collect())
}

fn all_task_files(tasks_root: &Path) -> Vec<((String, String, String), PathBuf)> {
    let mut out = Vec::new();
    for run in sorted_dirs(tasks_root) {
        for set in sorted_dirs(&run) {
            let Ok(rd) = std::fs::read_dir(&set) else { continue };
            let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
            files.sort();
            for f in files {
                let n = name_of(&f);
                if let Some(ty) = n.strip_suffix(".json.gz").or_else(|| n.strip_suffix(".json")) {
                    out.push(((name_of(&run), name_of(&set), ty.to_string()), f));
                }
            }
        }
    }
    out
}

/// The jobs of `--solutions DIR`: every `<key>.py` matched to a task by dag_id or name.
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
    let mut by_key: HashMap<String, (String, String, String, String, String)> = HashMap::new();
    for (combo, path) in all_task_files(tasks_root) {
        let recs = index.entry(combo.clone()).or_insert_with(|| load_tasks(&path));
        if let Ok(recs) = recs {
            for r in recs.iter() {
                let v = (combo.0.clone(), combo.1.clone(), combo.2.clone(), r.name.clone(), r.dag_id.clone());
                by_key.insert(r.dag_id.clone(), v.clone());
                by_key.insert(r.name.clone(), v);
            }
        }
    }
    let model = format!("files/{}", name_of(dir));
    Ok(files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let key = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let code = std::fs::read(f)
                .map_err(|e| format!("cannot read {}: {e}", f.display()))
                .and_then(|b| String::from_utf8(b).map_err(|_| format!("{} is not UTF-8 text", f.display())));
            match by_key.get(&key) {
                Some((run, set, ty, name, dag)) => Job {
                    combo: Combo {
                        run: run.clone(),
                        task_set: set.clone(),
                        task_type: ty.clone(),
                        model: model.clone(),
                    },
                    order: i,
                    name: Some(name.clone()),
                    dag_id: Some(dag.clone()),
                    response: code,
                    raw_code: true,
                },
                None => Job {
                    combo: Combo {
                        run: "unmatched".into(),
                        task_set: "unmatched".into(),
                        task_type: "unmatched".into(),
                        model: model.clone(),
                    },
                    order: i,
                    name: Some(key.clone()),
                    dag_id: None,
                    response: Err(format!(
                        "{}: no task has dag_id or name '{key}' under {}",
                        f.display(),
                        tasks_root.display()
                    )),
                    raw_code: true,
                },
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
                    Outcome::Pass => (1, 0, 0),
                    Outcome::Fail => (0, 1, 0),
                    Outcome::Error => (0, 0, 1),
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

fn find_task<'a>(index: &'a TaskIndex, job: &Job) -> Result<&'a TaskRec, String> {
    let c = &job.combo;
    let recs = match index.get(&(c.run.clone(), c.task_set.clone(), c.task_type.clone())) {
        Some(Ok(r)) => r,
        Some(Err(e)) => return Err(e.clone()),
        None => return Err(format!("no task file tasks/{}/{}/{}.json (or .json.gz)", c.run, c.task_set, c.task_type)),
    };
    let dag = job.dag_id.as_deref().unwrap_or("");
    recs.iter()
        .find(|r| !dag.is_empty() && r.dag_id == dag)
        .or_else(|| recs.iter().find(|r| Some(r.name.as_str()) == job.name.as_deref()))
        .ok_or_else(|| format!("no task with dag_id '{dag}' in tasks/{}/{}/{}", c.run, c.task_set, c.task_type))
}

fn grade_task(rec: &TaskRec, combo: &Combo) -> Result<GradeTask, String> {
    let kind = match &rec.spec {
        Some(s) => s.kind,
        None => Kind::parse(&combo.task_type)
            .ok_or_else(|| format!("unknown task type '{}' (allowed: {})", combo.task_type, Kind::NAMES.join(", ")))?,
    };
    let domain = match &rec.spec {
        Some(s) => s.domain,
        None => grade::domain_of_task_set(&combo.task_set)?,
    };
    let missing = |f: &str| format!("task '{}' has no '{f}' string", rec.name);
    Ok(GradeTask {
        kind,
        domain,
        starter: rec.starter.clone().ok_or_else(|| missing("starter_code"))?,
        reference: rec.reference.clone().ok_or_else(|| missing("solution_code"))?,
        key: if rec.dag_id.is_empty() { rec.name.clone() } else { rec.dag_id.clone() },
    })
}

fn grade_job(job: &Job, index: &TaskIndex, opts: &GradeOptions) -> Json {
    let graded = (|| {
        let text = job.response.clone()?;
        let rec = find_task(index, job)?;
        let task = grade_task(rec, &job.combo)?;
        let (code, format) = if job.raw_code {
            (text, "file")
        } else {
            let cand = crate::check::response::parse_response(&text, &task.starter)
                .map_err(|e| format!("the response cannot be read: {e}"))?;
            (cand.code, cand.format.as_str())
        };
        Ok((runner::grade(&task, &code, opts, &|_, _| {}), format))
    })();
    result_record(job, opts.trials, graded)
}

// ------------------------------------------------------------------------------------------------
// Summary.

/// One row of the summary: a model on one cell of the grid.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub tasks: usize,
    pub passed: usize,
}

/// Accuracy per model × kind × domain × axis × n.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub rows: BTreeMap<(String, String, String, String, String), Row>,
    pub graded: usize,
    pub reused: usize,
    pub problems: usize,
    pub seconds: f64,
    pub isolation: String,
}

/// Axis and n of a reference run name (`function_traversal_…_en=(25,25)…`).
pub fn axis_and_n(run: &str) -> (String, String) {
    let grab = |key: &str| -> Option<String> {
        let i = run.find(key)? + key.len();
        let rest = &run[i..];
        let end = rest.find(')')?;
        let (a, b) = rest[..end].split_once(',')?;
        let (a, b): (f64, f64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
        let mid = (a + b) / 2.0;
        Some(if mid.fract() == 0.0 { format!("{}", mid as i64) } else { format!("{mid}") })
    };
    if run.starts_with("function_traversal") {
        (Axis::Traversal.as_str().into(), grab("_en=(").unwrap_or_else(|| "?".into()))
    } else if run.starts_with("function_search") {
        (Axis::Search.as_str().into(), grab("_cn=(").unwrap_or_else(|| "?".into()))
    } else {
        (run.split("_n=").next().unwrap_or(run).to_string(), "?".into())
    }
}

impl Summary {
    fn add(&mut self, combo: &Combo, spec: Option<&TaskSpec>, passed: bool) {
        let (axis, n) = match spec {
            Some(s) => (s.axis.as_str().to_string(), s.n.to_string()),
            None => axis_and_n(&combo.run),
        };
        let domain = crate::grade::domain_of_task_set(&combo.task_set)
            .map(|d| d.as_str().to_string())
            .unwrap_or_else(|_| combo.task_set.clone());
        let row = self.rows.entry((combo.model.clone(), combo.task_type.clone(), domain, axis, n)).or_default();
        row.tasks += 1;
        row.passed += usize::from(passed);
    }

    pub fn to_json(&self) -> Json {
        let rows: Vec<Json> = self
            .rows
            .iter()
            .map(|((model, kind, domain, axis, n), r)| {
                let (lo, hi) = wilson(r.passed, r.tasks);
                json!({"model": model, "kind": kind, "domain": domain, "axis": axis, "n": n, "tasks": r.tasks, "passed": r.passed,
                       "accuracy": if r.tasks > 0 { r.passed as f64 / r.tasks as f64 } else { 0.0 }, "wilson95": [lo, hi]})
            })
            .collect();
        json!({"rows": rows, "graded": self.graded, "reused": self.reused, "problems": self.problems,
               "seconds": self.seconds, "isolation": self.isolation})
    }

    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<28} {:<17} {:<7} {:<10} {:>4} {:>6} {:>8}  {}\n",
            "model", "kind", "domain", "axis", "n", "tasks", "accuracy", "Wilson 95%"
        );
        for ((model, kind, domain, axis, n), r) in &self.rows {
            let (lo, hi) = wilson(r.passed, r.tasks);
            let acc = if r.tasks > 0 { r.passed as f64 / r.tasks as f64 } else { 0.0 };
            s.push_str(&format!(
                "{model:<28} {kind:<17} {domain:<7} {axis:<10} {n:>4} {:>6} {acc:>8.3}  [{lo:.3}, {hi:.3}]\n",
                r.tasks
            ));
        }
        s.push_str(&format!(
            "graded {} responses ({} reused from earlier runs, {} could not be graded) in {:.1} s\nisolation: {}\n",
            self.graded, self.reused, self.problems, self.seconds, self.isolation
        ));
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

/// Grade everything `args` names; write results and the summary; return the summary.
pub fn grade_dirs(args: &GradeArgs) -> Result<Summary, Failure> {
    let started = std::time::Instant::now();
    let other = Failure::Other;
    if !args.tasks.is_dir() {
        return Err(Failure::Usage(format!("--tasks {} is not a folder", args.tasks.display())));
    }
    let tasks_root = root(&args.tasks, "tasks");
    let mut index: TaskIndex = HashMap::new();
    let mut jobs: Vec<Job> = Vec::new();
    if let Some(dir) = &args.responses {
        if !dir.is_dir() {
            return Err(Failure::Usage(format!("--responses {} is not a folder", dir.display())));
        }
        for (combo, path) in response_files(dir).map_err(other)? {
            let key = (combo.run.clone(), combo.task_set.clone(), combo.task_type.clone());
            if let std::collections::hash_map::Entry::Vacant(slot) = index.entry(key) {
                let loaded = match task_file(&tasks_root, &combo.run, &combo.task_set, &combo.task_type) {
                    Some(p) => load_tasks(&p),
                    None => Err(format!(
                        "no task file tasks/{}/{}/{}.json (or .json.gz) under {}",
                        combo.run,
                        combo.task_set,
                        combo.task_type,
                        tasks_root.display()
                    )),
                };
                slot.insert(loaded);
            }
            jobs.extend(read_responses(&combo, &path));
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
        let old = earlier(&path, args.opts.trials);
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
                let _ = writeln!(f, "{rec}");
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
    let fresh = match args.jobs {
        Some(n) => {
            rayon::ThreadPoolBuilder::new().num_threads(n).build().map_err(|e| other(e.to_string()))?.install(work)
        }
        None => work(),
    };
    bar.finish_and_clear();
    drop(writers);

    let graded_now = fresh.len();
    let mut all: HashMap<(Combo, usize), Json> = reused_records;
    let reused = all.len();
    all.extend(fresh);
    let mut summary =
        Summary { isolation: runner::isolation().describe(), graded: graded_now, reused, ..Summary::default() };
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
        let tmp = path.with_extension("jsonl.tmp");
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, &path))
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
        std::fs::write(&meta_path, serde_json::to_string_pretty(&meta).expect("json"))
            .map_err(|e| other(format!("cannot write {}: {e}", meta_path.display())))?;
    }
    summary.seconds = started.elapsed().as_secs_f64();
    let name = if args.shard.1 > 1 {
        format!("summary.shard-{}-of-{}.json", args.shard.0, args.shard.1)
    } else {
        "summary.json".into()
    };
    let sp = args.out.join(name);
    std::fs::create_dir_all(&args.out).map_err(|e| other(format!("cannot create {}: {e}", args.out.display())))?;
    std::fs::write(&sp, serde_json::to_string_pretty(&summary.to_json()).expect("json"))
        .map_err(|e| other(format!("cannot write {}: {e}", sp.display())))?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names_give_axis_and_n() {
        assert_eq!(
            axis_and_n("function_traversal_cn=(25,25)_en=(200,200)_prop=(0.45,0.55)"),
            ("traversal".into(), "200".into())
        );
        assert_eq!(axis_and_n("function_search_cn=(200,200)_en=(25,25)"), ("search".into(), "200".into()));
        assert_eq!(axis_and_n("runtime_resolution_n=(10,10)_ifhops=200").1, "?");
    }
}
