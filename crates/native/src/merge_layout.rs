//! Grading Merge Codebases runs in the reference's merge layout (grading.md §1.1, §6.8, D11): every
//! `responses/<run>/<backend>/<model>.jsonl` of a `merge_codebases…` run against `tasks/<run>.json`
//! (read through [`records`], the one reader of reference layouts: records are `task_0000i` by
//! position), results in `results/<run>/<backend>/<model>.jsonl` (the reference's merge result records:
//! `summary` and `results` by check kind) with a `.meta.json` beside, resumable and sharded like the
//! other runs. `cabrito grade` hands the merge runs under `--responses` to [`grade_runs`].

use super::cli::Failure;
use super::grade::{GradeArgs, Row, Summary};
use super::records::{self, TaskRecord};
use super::runner::{self, GradeOptions};
use cabrito_check::grade::{CheckOutcome, GradeTask, Verdict};
use cabrito_check::response::parse_response;
use cabrito_gen::spec::{Kind, TaskSpec};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// What the grader needs of a merge record.
fn grade_task(rec: &TaskRecord) -> Result<GradeTask, String> {
    let missing = |f: &str| format!("{} has no '{f}' string", rec.label());
    Ok(GradeTask {
        kind: Kind::MergeCodebases,
        domain: TaskSpec::default().domain,
        axis: TaskSpec::default().axis,
        starter: rec.starter.clone().ok_or_else(|| missing("input"))?,
        reference: rec.reference.clone().ok_or_else(|| missing("solution"))?,
        key: rec.name.clone(),
        metadata: rec.metadata.clone(),
    })
}

/// One response file: its run and model (`<backend>/<model>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Combo {
    run: String,
    model: String,
}

/// One response to grade.
#[derive(Clone, Debug)]
struct Job {
    combo: Combo,
    order: usize,
    name: Option<String>,
    dag_id: Option<String>,
    response: Result<String, String>,
}

/// Read a response file line by line: deduplicated by (name, dag_id), the last line winning,
/// first-seen order kept; a bad line costs that line only (the reference scorer needs the `dag_id`).
fn read_responses(combo: &Combo, path: &Path) -> Vec<Job> {
    let lines = match records::read_lines(path) {
        Ok(l) => l,
        Err(e) => return vec![Job { combo: combo.clone(), order: 0, name: None, dag_id: None, response: Err(e) }],
    };
    type Key = (Option<String>, Option<String>, usize);
    let mut order: Vec<Key> = Vec::new();
    let mut latest: HashMap<Key, Result<String, String>> = HashMap::new();
    for line in lines {
        if line.text.trim().is_empty() && line.problem.is_none() {
            continue;
        }
        let at = format!("{} line {}", path.display(), line.no);
        let (key, resp) = match serde_json::from_str::<Json>(&line.text) {
            Err(e) => ((None, None, line.no), Err(line.problem.unwrap_or(format!("{at}: not a JSON record ({e})")))),
            Ok(j) => {
                let name = j.get("name").and_then(Json::as_str).map(str::to_string);
                let dag = j.get("dag_id").and_then(Json::as_str).map(str::to_string);
                let resp = match j.get("output") {
                    _ if line.problem.is_some() => Err(line.problem.clone().unwrap_or_default()),
                    _ if dag.is_none() => Err(format!("{at}: the record has no string 'dag_id'")),
                    Some(Json::String(s)) => Ok(s.clone()),
                    Some(Json::Null) | None => Err(match j.get("error").and_then(Json::as_str) {
                        Some(e) => format!("the response has no output (its error: {e})"),
                        None => format!("{at}: the record has no 'output'"),
                    }),
                    Some(_) => Err(format!("{at}: 'output' is not a string")),
                };
                let key = if dag.is_some() { (name, dag, 0) } else { (name, dag, line.no) };
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
            Job { combo: combo.clone(), order: i, name: key.0, dag_id: key.1, response }
        })
        .collect()
}

/// The reference scorer's merge result record (`summary` and `results` by check kind), with
/// Cabrito's fields (score, message, trials, format, per-class results, seconds).
fn result_record(
    job: &Job,
    task: Option<&TaskRecord>,
    trials: usize,
    graded: Result<(Verdict, &'static str), String>,
) -> Json {
    let name = task.map(|t| t.name.clone()).or_else(|| job.name.clone());
    match graded {
        Ok((v, format)) => {
            let mut summary = serde_json::Map::new();
            let mut results = serde_json::Map::new();
            for c in &v.checks {
                let (p, f, e) = match c.outcome {
                    CheckOutcome::Pass => (1, 0, 0),
                    CheckOutcome::Fail => (0, 1, 0),
                    CheckOutcome::Error => (0, 0, 1),
                };
                summary.insert(c.kind.clone(), json!({"pass": p, "fail": f, "error": e, "pass_rate": p as f64}));
                results
                    .insert(c.kind.clone(), json!({"type": c.outcome, "metadata": c.metadata, "message": c.message}));
            }
            json!({
                "name": name, "dag_id": job.dag_id, "parsed_ok": true, "summary": summary, "results": results,
                "score": v.score(), "message": v.message, "trials": trials, "format": format,
                "functions": v.functions, "seconds": (v.seconds * 1000.0).round() / 1000.0, "graded_by": "cabrito",
            })
        }
        Err(problem) => json!({
            "name": name, "dag_id": job.dag_id, "parsed_ok": false, "skipped": true,
            "summary": {}, "results": {}, "score": 0, "error": problem, "trials": trials, "graded_by": "cabrito",
        }),
    }
}

fn grade_job(job: &Job, tasks: &HashMap<String, Result<Vec<TaskRecord>, String>>, opts: &GradeOptions) -> Json {
    let run = tasks.get(&job.combo.run);
    let task = match run {
        Some(Ok(ts)) => ts.iter().find(|t| Some(&t.dag_id) == job.dag_id.as_ref()),
        _ => None,
    };
    let graded = (|| {
        let text = job.response.clone()?;
        let rec = match (run, task) {
            (Some(Err(e)), _) => return Err(e.clone()),
            (_, Some(t)) => t,
            _ => {
                return Err(format!(
                    "no task with dag_id '{}' in tasks/{}.json",
                    job.dag_id.as_deref().unwrap_or(""),
                    job.combo.run
                ))
            }
        };
        let task = grade_task(rec)?;
        let cand = parse_response(&text, &task.starter).map_err(|e| format!("the response cannot be read: {e}"))?;
        if cand.code.trim().is_empty() {
            return Err("the response's solution.py is empty".into());
        }
        Ok((runner::grade(&task, &cand.code, opts, &|_, _| {}), cand.format.as_str()))
    })();
    result_record(job, task, opts.trials, graded)
}

fn out_path(out: &Path, combo: &Combo, shard: (usize, usize)) -> PathBuf {
    let suffix = if shard.1 > 1 { format!(".shard-{}-of-{}", shard.0, shard.1) } else { String::new() };
    out.join("results").join(&combo.run).join(format!("{}{suffix}.jsonl", combo.model))
}

/// Earlier results of a file graded the same way (same trials), by (name, dag_id).
fn earlier(path: &Path, trials: usize) -> HashMap<Option<String>, Json> {
    let Ok(text) = std::fs::read_to_string(path) else { return HashMap::new() };
    text.lines()
        .filter_map(|l| serde_json::from_str::<Json>(l).ok())
        .filter(|j| {
            j.get("graded_by").and_then(Json::as_str) == Some("cabrito")
                && j.get("trials").and_then(Json::as_u64) == Some(trials as u64)
                && j.get("parsed_ok").and_then(Json::as_bool) == Some(true)
        })
        .map(|j| (j.get("dag_id").and_then(Json::as_str).map(str::to_string), j))
        .collect()
}

/// Grade every merge run under `--responses` (none: `Ok(None)`), writing results in the reference's
/// merge layout; the summary has one row per model and run.
pub fn grade_runs(args: &GradeArgs, responses: &Path, tasks_root: &Path) -> Result<Option<Summary>, Failure> {
    let started = std::time::Instant::now();
    let other = Failure::Other;
    let files = records::merge_response_files(responses).map_err(other)?;
    if files.is_empty() {
        return Ok(None);
    }
    let mut tasks: HashMap<String, Result<Vec<TaskRecord>, String>> = HashMap::new();
    let mut jobs: Vec<Job> = Vec::new();
    for (run, model, path) in &files {
        tasks
            .entry(run.clone())
            .or_insert_with(|| records::merge_run_file(tasks_root, run).and_then(|p| records::read_task_records(&p)));
        jobs.extend(read_responses(&Combo { run: run.clone(), model: model.clone() }, path));
    }
    let jobs: Vec<Job> =
        jobs.into_iter().enumerate().filter(|(i, _)| i % args.shard.1 == args.shard.0 - 1).map(|(_, j)| j).collect();
    let mut combos: BTreeMap<Combo, Vec<Job>> = BTreeMap::new();
    for j in jobs {
        combos.entry(j.combo.clone()).or_default().push(j);
    }
    // Resume: keep earlier records graded with the same number of trials.
    let mut records: HashMap<(Combo, usize), Json> = HashMap::new();
    let mut todo: Vec<Job> = Vec::new();
    for (combo, js) in &combos {
        let old = earlier(&out_path(&args.out, combo, args.shard), args.opts.trials);
        for j in js {
            match old.get(&j.dag_id) {
                Some(r) if j.response.is_ok() => {
                    records.insert((combo.clone(), j.order), r.clone());
                }
                _ => todo.push(j.clone()),
            }
        }
    }
    let reused = records.len();
    let bar = if args.progress { ProgressBar::new(todo.len() as u64) } else { ProgressBar::hidden() };
    if args.progress {
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} merge responses ({per_sec})",
            )
            .expect("template"),
        );
    }
    let work = || -> Vec<((Combo, usize), Json)> {
        todo.par_iter()
            .map(|j| {
                let r = grade_job(j, &tasks, &args.opts);
                bar.inc(1);
                ((j.combo.clone(), j.order), r)
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
    let graded = fresh.len();
    records.extend(fresh);
    let mut summary = Summary {
        isolation: super::pool::describe(runner::isolation(), args.opts.pool),
        graded,
        reused,
        ..Summary::default()
    };
    for (combo, js) in &combos {
        let path = out_path(&args.out, combo, args.shard);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| other(format!("cannot create {}: {e}", dir.display())))?;
        }
        let mut text = String::new();
        let (mut scored, mut skipped) = (0usize, 0usize);
        let mut by_kind: BTreeMap<String, [usize; 3]> = BTreeMap::new();
        let n = records::merge_run_n(&combo.run).map_or_else(|| "?".to_string(), |n| n.to_string());
        for j in js {
            let Some(rec) = records.get(&(combo.clone(), j.order)) else { continue };
            text.push_str(&rec.to_string());
            text.push('\n');
            if rec.get("parsed_ok").and_then(Json::as_bool) == Some(true) {
                scored += 1;
            } else {
                skipped += 1;
                summary.problems += 1;
            }
            for (k, r) in rec.get("results").and_then(Json::as_object).into_iter().flatten() {
                let slot = match r.get("type").and_then(Json::as_str) {
                    Some("pass") => 0,
                    Some("fail") => 1,
                    _ => 2,
                };
                by_kind.entry(k.clone()).or_default()[slot] += 1;
            }
            let row: &mut Row = summary
                .rows
                .entry((
                    combo.model.clone(),
                    Kind::MergeCodebases.as_str().into(),
                    "-".into(),
                    "merge".into(),
                    n.clone(),
                ))
                .or_default();
            row.tasks += 1;
            row.passed += usize::from(rec.get("score").and_then(Json::as_u64) == Some(1));
        }
        crate::outdir::write_whole(&path, text.as_bytes())
            .map_err(|e| other(format!("cannot write {}: {e}", path.display())))?;
        let by_kind: serde_json::Map<String, Json> = by_kind
            .into_iter()
            .map(|(k, [p, f, e])| {
                let total = p + f + e;
                (k, json!({"pass": p, "fail": f, "error": e, "pass_rate": if total > 0 { p as f64 / total as f64 } else { 0.0 }}))
            })
            .collect();
        let meta = json!({
            "run_name": combo.run, "model": combo.model, "responses_path": responses.display().to_string(),
            "n_records": js.len(), "n_scored": scored, "n_skipped": skipped, "by_kind": by_kind,
            "trials": args.opts.trials, "graded_by": "cabrito",
        });
        let meta_path = path.with_extension("meta.json");
        crate::outdir::write_whole(&meta_path, serde_json::to_string_pretty(&meta).expect("json").as_bytes())
            .map_err(|e| other(format!("cannot write {}: {e}", meta_path.display())))?;
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(Some(summary))
}
