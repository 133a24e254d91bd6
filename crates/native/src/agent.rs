//! `cabrito agent --strategy NAME <spec flags | --tasks DIR> --out DIR`: a scripted agent on one task or
//! a folder of tasks, in parallel. It writes:
//!
//! - answers in the reference's layout, `OUT/responses/<run>/<task_set>/<task_type>/scripted/<strategy>.jsonl`,
//!   for `cabrito grade` (a task given by its spec also gets its task file);
//! - one plain trace per task, `OUT/traces/<session_id>.jsonl`;
//! - a summary per run and task type: tasks, static passes, mean calls and tokens, cost.
//!
//! The task reader and the response records are shared with `cabrito solve`.

use super::cli::{spec_from, Failure};
use super::records;
use cabrito_agents::aci::{plain_task, Aci, Grading, Runner, Workspace};
use cabrito_agents::ledger::{Ledger, Prices};
use cabrito_agents::settings::{Input, Settings, SETTINGS};
use cabrito_agents::Strategy;
use cabrito_analysis::traces::plain::{Header, PlainTask};
use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec, KNOBS};
use cabrito_gen::words::count;
use clap::{Arg, ArgMatches, Command};
use rayon::prelude::*;
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub fn command() -> Command {
    Command::new("agent")
        .about("Run a scripted agent (reader, navigator, myopic) through the tool interface on one task or a folder of tasks; write responses and traces")
        .arg(
            Arg::new("strategy")
                .long("strategy")
                .required(true)
                .value_name(Strategy::NAMES.join("|"))
                .help(format!("the scripted agent: {}", strategies_help())),
        )
        .args(super::cli::spec_args())
        .arg(Arg::new("tasks").long("tasks").value_name("DIR").help("instead of spec flags: every task under DIR/tasks/<run>/<task_set>/<task_type>.json[.gz] (or DIR/<run>/…), as `cabrito grid` writes them"))
        .arg(Arg::new("out").long("out").required(true).value_name("DIR").help("responses go to DIR/responses/…/scripted/<strategy>.jsonl, traces to DIR/traces/<session>.jsonl"))
        .args(settings_args())
        .arg(Arg::new("prices").long("prices").value_name("IN,CACHED,OUT").default_value("3,0.3,15").help("dollars per million input, cached input and output tokens, for the summary's cost"))
        .arg(Arg::new("jobs").long("jobs").value_name("N").help("tasks run in parallel (default: one per core)"))
}

fn strategies_help() -> String {
    Strategy::ALL.iter().map(|s| format!("{s} ({})", s.describe())).collect::<Vec<_>>().join("; ")
}

/// The interface's settings as flags (`--window`, `--search-cap`, `--lint-gate`, `--protected`),
/// from [`SETTINGS`].
pub fn settings_args() -> Vec<Arg> {
    SETTINGS
        .iter()
        .map(|s| {
            let value = match s.input {
                Input::Number { .. } => "N",
                Input::Switch => "on|off",
                Input::Paths => "PATHS",
            };
            Arg::new(s.key).long(s.flag()).value_name(value).help(format!(
                "{} ({}) [default: {}]",
                s.help,
                s.allowed(),
                s.default
            ))
        })
        .collect()
}

/// The settings given by flags.
pub fn settings_from(m: &ArgMatches) -> Result<Settings, String> {
    let pairs: Vec<(&str, &str)> =
        SETTINGS.iter().filter_map(|s| m.get_one::<String>(s.key).map(|v| (s.key, v.as_str()))).collect();
    Settings::from_pairs(pairs)
}

/// `--jobs N`.
pub fn jobs_from(m: &ArgMatches) -> Result<Option<usize>, Failure> {
    match m.get_one::<String>("jobs") {
        Some(j) => j
            .parse::<usize>()
            .ok()
            .filter(|j| (1..=1024).contains(j))
            .map(Some)
            .ok_or_else(|| Failure::Usage("--jobs must be a whole number from 1 to 1024".into())),
        None => Ok(None),
    }
}

// ------------------------------------------------------------------------------------------------
// Tasks.

/// One task to work on, from a spec or a task file.
#[derive(Clone, Debug)]
pub struct AgentTask {
    pub run: String,
    pub task_set: String,
    pub task_type: String,
    pub name: String,
    pub dag_id: String,
    /// The problem statement.
    pub prompt: String,
    pub starter: String,
    pub reference: String,
    pub kind: Kind,
    pub domain: Domain,
    pub axis: Axis,
    /// The record's `metadata` (`Null` when it has none).
    pub metadata: Json,
    /// The share link, for Cabrito tasks whose record says it.
    pub link: String,
}

impl AgentTask {
    pub fn of_task(t: &cabrito_gen::Task) -> AgentTask {
        if t.spec.kind == Kind::MergeCodebases {
            // The merge layout: record 0 of its own run file.
            let record = cabrito_gen::kinds::merge_codebases::reference_record(t);
            let run = cabrito_gen::kinds::merge_codebases::run_name(&t.spec);
            return AgentTask { link: t.link.clone(), ..merge_item(&run, 0, &record) };
        }
        let p = plain_task(t);
        AgentTask {
            run: p.run,
            task_set: p.task_set,
            task_type: p.task_type,
            name: t.name.clone(),
            dag_id: t.dag_id.clone(),
            prompt: t.prompt.clone(),
            starter: t.starter_code.clone(),
            reference: t.solution_code.clone(),
            kind: t.spec.kind,
            domain: t.spec.domain,
            axis: t.spec.axis,
            metadata: t.metadata.clone(),
            link: t.link.clone(),
        }
    }
    /// The trace header's task.
    pub fn plain(&self) -> PlainTask {
        PlainTask {
            name: self.name.clone(),
            dag_id: self.dag_id.clone(),
            run: self.run.clone(),
            task_set: self.task_set.clone(),
            task_type: self.type_name(),
            link: self.link.clone(),
        }
    }
    /// The task type as tables show it (a merge run's records have none of their own).
    pub fn type_name(&self) -> String {
        if self.task_type.is_empty() {
            self.kind.to_string()
        } else {
            self.task_type.clone()
        }
    }
    /// A fresh session on it, `run` answered by `runner`.
    pub fn session(&self, settings: Settings, runner: std::sync::Arc<dyn Runner>) -> Aci {
        Aci::new(
            Workspace::new(&self.prompt, &self.starter, self.kind, self.domain, self.axis),
            Grading::new(self.kind, self.domain, self.axis, &self.starter, &self.reference, &self.metadata),
            settings,
            runner,
        )
    }
    /// A session id, stable for (agent, run, task): `<agent>-<12 hex digits>`.
    pub fn session_id(&self, agent: &str) -> String {
        let safe: String = agent.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '-' }).collect();
        format!(
            "{safe}-{}",
            cabrito_gen::rng::hex_id(
                &format!("{agent}/{}/{}/{}", self.run, self.task_set, self.name),
                "agent-session",
                6
            )
        )
    }
    /// The reference layout's response file for a model (`<backend>/<model>`); a merge run's has no
    /// task set or type (`responses/<run>/<backend>/<model>.jsonl`).
    pub fn response_path(&self, out: &Path, model_path: &str) -> PathBuf {
        let mut p = out.join("responses").join(&self.run);
        for part in [&self.task_set, &self.task_type] {
            if !part.is_empty() {
                p = p.join(part);
            }
        }
        let parts: Vec<&str> = model_path.split('/').filter(|x| !x.is_empty()).collect();
        for (i, part) in parts.iter().enumerate() {
            // The model's name may hold dots (`qwen2.5-coder`): the extension is added, never swapped in.
            p = if i + 1 == parts.len() { p.join(format!("{part}.jsonl")) } else { p.join(part) };
        }
        p
    }
}

/// Every task under `DIR/tasks/<run>/<task_set>/<task_type>.json[.gz]` (or `DIR/<run>/…`), read
/// through the shared records reader (`native::records`: its size caps, and kind and domain from
/// every source that says them). A file or record that cannot be used is reported in `problems`
/// and skipped.
pub fn load_tasks(dir: &Path, problems: &mut Vec<String>) -> Vec<AgentTask> {
    let base = records::root(dir, "tasks");
    let (files, p) = records::task_files(&base);
    problems.extend(p);
    let mut out = Vec::new();
    for (place, file) in files {
        let list = match records::read_text(&file, records::MAX_TASK_FILE_BYTES).and_then(|t| {
            serde_json::from_str::<Json>(&t).map_err(|e| format!("{} is not valid JSON: {e}", file.display()))
        }) {
            Ok(Json::Array(list)) => list,
            Ok(one @ Json::Object(_)) => vec![one],
            Ok(_) => {
                problems.push(format!("{}: expected a list of task records", file.display()));
                continue;
            }
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        for (index, r) in list.iter().enumerate() {
            let s = |k: &str| r.get(k).and_then(Json::as_str).map(str::to_string);
            // A spec that is there must be valid: it decides kind, domain and axis exactly.
            let spec = match r.get("spec").filter(|v| !v.is_null()).map(spec_of) {
                None => None,
                Some(Ok(spec)) => Some(spec),
                Some(Err(e)) => {
                    problems.push(format!("{} record {}: its spec is not valid: {e}", file.display(), index + 1));
                    continue;
                }
            };
            let rec = records::TaskRecord {
                name: s("name").unwrap_or_default(),
                dag_id: s("dag_id").unwrap_or_default(),
                starter: s("starter_code"),
                reference: s("solution_code"),
                spec,
                metadata: r.get("metadata").cloned().unwrap_or(Json::Null),
                index,
            };
            let label = file.display().to_string();
            let kind_domain_axis = records::kind_and_domain(&rec, Some(&place), (None, None), &label)
                .and_then(|(k, d)| records::axis_of(&rec, Some(&place), &label).map(|a| (k, d, a)));
            let (kind, domain, axis) = match kind_domain_axis {
                Ok(kda) => kda,
                Err(e) => {
                    problems.push(e);
                    continue;
                }
            };
            match (s("prompt"), rec.starter, rec.reference) {
                (Some(prompt), Some(starter), Some(reference)) if !rec.name.is_empty() && !rec.dag_id.is_empty() => out
                    .push(AgentTask {
                        run: place.run.clone(),
                        task_set: place.task_set.clone(),
                        task_type: place.task_type.clone(),
                        name: rec.name,
                        dag_id: rec.dag_id,
                        prompt,
                        starter,
                        reference,
                        kind,
                        domain,
                        axis,
                        metadata: rec.metadata,
                        link: s("link").unwrap_or_default(),
                    }),
                _ => problems.push(format!(
                    "{} record {}: lacks one of name, dag_id, prompt, starter_code, solution_code",
                    file.display(),
                    index + 1
                )),
            }
        }
    }
    out.extend(load_merge_runs(dir, problems));
    out
}

/// The item of record `index` of a merge run file (the reference's merge format: `input`,
/// `solution`, `prompt`; named by position, as `cabrito grade` names them).
fn merge_item(run: &str, index: usize, r: &Json) -> AgentTask {
    let s = |k: &str| r.get(k).and_then(Json::as_str).unwrap_or_default().to_string();
    let spec = TaskSpec::default();
    AgentTask {
        run: run.to_string(),
        task_set: String::new(),
        task_type: String::new(),
        name: format!("{run}/{index:05}"),
        dag_id: cabrito_gen::kinds::merge_codebases::dag_id(index as u64),
        prompt: s("prompt"),
        starter: s("input"),
        reference: s("solution"),
        kind: Kind::MergeCodebases,
        domain: spec.domain,
        axis: spec.axis,
        metadata: r.get("metadata").cloned().unwrap_or(Json::Null),
        link: String::new(),
    }
}

/// Every record of the merge run files `DIR/tasks/<run>.json[.gz]` (`merge_codebases…`), as
/// `cabrito grid --axes merge` writes them. A record without a prompt is a problem, not an item.
fn load_merge_runs(dir: &Path, problems: &mut Vec<String>) -> Vec<AgentTask> {
    let base = records::root(dir, "tasks");
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&base).into_iter().flatten().flatten().map(|e| e.path()).collect();
    files.sort();
    for file in files.into_iter().filter(|p| p.is_file()) {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let Some(run) = name.strip_suffix(".json.gz").or_else(|| name.strip_suffix(".json")) else { continue };
        if !records::is_merge_run(run) {
            continue;
        }
        let list = match records::read_text(&file, records::MAX_TASK_FILE_BYTES).and_then(|t| {
            serde_json::from_str::<Json>(&t).map_err(|e| format!("{} is not valid JSON: {e}", file.display()))
        }) {
            Ok(Json::Array(list)) => list,
            Ok(_) => {
                problems.push(format!("{}: expected a list of merge records", file.display()));
                continue;
            }
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        for (i, r) in list.iter().enumerate() {
            let item = merge_item(run, i, r);
            if item.prompt.is_empty() || item.starter.is_empty() || item.reference.is_empty() {
                problems.push(format!("{} record {}: lacks one of prompt, input, solution", file.display(), i + 1));
            } else {
                out.push(item);
            }
        }
    }
    out
}

/// A task record's spec: its fields, then the knobs' ranges and rules.
fn spec_of(v: &Json) -> Result<cabrito_gen::TaskSpec, String> {
    let spec: cabrito_gen::TaskSpec = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
    spec.validate().map_err(|e| e.to_string())?;
    Ok(spec)
}

/// Write the task file of tasks given by spec (so `cabrito grade` can grade their answers).
fn write_task_files(out: &Path, tasks: &[cabrito_gen::Task]) -> Result<(), Failure> {
    let mut by_file: BTreeMap<PathBuf, Vec<Json>> = BTreeMap::new();
    for t in tasks.iter().filter(|t| t.spec.kind == Kind::MergeCodebases) {
        let path = out.join("tasks").join(format!("{}.json", cabrito_gen::kinds::merge_codebases::run_name(&t.spec)));
        by_file.entry(path).or_default().push(cabrito_gen::kinds::merge_codebases::reference_record(t));
    }
    for t in tasks.iter().filter(|t| t.spec.kind != Kind::MergeCodebases) {
        let i = AgentTask::of_task(t);
        let path = out.join("tasks").join(&i.run).join(&i.task_set).join(format!("{}.json", i.task_type));
        by_file.entry(path).or_default().push(super::grid::reference_record(t));
    }
    for (path, records) in by_file {
        write_file(&path, &serde_json::to_string_pretty(&records).expect("json"))?;
    }
    Ok(())
}

/// Write a file whole or not at all (a temporary file beside it, renamed over it), creating its
/// folder.
pub fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    let fail = |e: std::io::Error| Failure::Other(format!("cannot write {}: {e}", path.display()));
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| Failure::Other(format!("cannot create {}: {e}", dir.display())))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(fail)?;
    tmp.as_file().sync_data().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Running.

/// What one run gave.
struct Done {
    item: AgentTask,
    record: Json,
    calls: usize,
    static_pass: bool,
    ledger: Ledger,
    /// Why its trace could not be written.
    trace_error: Option<String>,
}

fn run_one(item: &AgentTask, strategy: Strategy, settings: &Settings, prices: Prices, out: &Path) -> Done {
    let started = std::time::Instant::now();
    let mut aci = item.session(settings.clone(), std::sync::Arc::new(super::run_tool::SandboxRunner::default()));
    let statement = aci.statement().to_string();
    strategy.run(&mut aci.tools(), &statement);
    let seconds = started.elapsed().as_secs_f64();
    let session_id = item.session_id(&strategy.model());
    let header = Header::new(&session_id, strategy.as_str(), &strategy.model(), Some(item.plain()));
    let trace_rel = format!("traces/{session_id}.jsonl");
    // A trace that cannot be written is this task's error; its answer is still kept.
    let trace_error = match write_file(&out.join(&trace_rel), &aci.trace(&header, true)) {
        Ok(()) => None,
        Err(Failure::Other(e) | Failure::Usage(e)) => Some(e),
    };
    let turns = aci.turns(true);
    let ledger = Ledger::of(&turns, prices);
    let rubric = aci.rubric();
    let mut record = json!({
        "name": item.name,
        "dag_id": item.dag_id,
        "output": aci.response(),
        "metadata": {
            "agent": strategy.as_str(),
            "model": strategy.model(),
            "session_id": session_id,
            "trace_path": if trace_error.is_none() { json!(trace_rel) } else { Json::Null },
            "tool_calls": aci.steps().len(),
            "turns": turns.len(),
            "n_input_tokens": ledger.total.input,
            "n_cached_tokens": ledger.total.cached,
            "n_output_tokens": ledger.total.output,
            "cost": ledger.cost,
            "static_checks_pass": rubric.passed(),
            "settings": settings,
            "time_seconds": (seconds * 1000.0).round() / 1000.0,
        },
    });
    if let Some(e) = &trace_error {
        record["metadata"]["trace_error"] = json!(e);
    }
    Done { item: item.clone(), record, calls: aci.steps().len(), static_pass: rubric.passed(), ledger, trace_error }
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let usage = Failure::Usage;
    let strategy = Strategy::parse_or_explain(m.get_one::<String>("strategy").expect("required")).map_err(usage)?;
    let settings = settings_from(m).map_err(usage)?;
    let prices = Prices::parse(m.get_one::<String>("prices").expect("default")).map_err(usage)?;
    let jobs = jobs_from(m)?;
    let out = PathBuf::from(m.get_one::<String>("out").expect("required"));
    let spec_given = KNOBS.iter().any(|k| m.get_one::<String>(k.key).is_some());
    let mut problems = Vec::new();
    let items: Vec<AgentTask> = match m.get_one::<String>("tasks") {
        Some(_) if spec_given => {
            return Err(usage("give either spec flags (one task) or --tasks DIR, not both".into()))
        }
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if !dir.is_dir() {
                return Err(usage(format!("--tasks {} is not a folder", dir.display())));
            }
            let items = load_tasks(&dir, &mut problems);
            if items.is_empty() {
                for p in &problems {
                    eprintln!("cabrito: {p}");
                }
                return Err(usage(format!(
                    "no task under {} (tasks/<run>/<task_set>/<task_type>.json, as `cabrito grid` writes them)",
                    dir.display()
                )));
            }
            items
        }
        None => {
            let spec = spec_from(m).map_err(usage)?;
            let task = cabrito_gen::generate(&spec).map_err(|e| usage(e.to_string()))?;
            write_task_files(&out, std::slice::from_ref(&task))?;
            vec![AgentTask::of_task(&task)]
        }
    };
    for p in &problems {
        eprintln!("cabrito: skipped: {p}");
    }
    // Tasks the strategy cannot do get one line each, not an answer.
    let (items, refused): (Vec<AgentTask>, Vec<AgentTask>) =
        items.into_iter().partition(|i| strategy.refuses(&i.prompt).is_none());
    for i in &refused {
        let why = strategy.refuses(&i.prompt).unwrap_or_default();
        eprintln!("cabrito: skipped: {} ({}): {why}", i.name, i.task_type);
    }
    if items.is_empty() {
        return Err(usage(format!("{strategy}: no task it can do among the {} given", refused.len())));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the worker threads: {e}")))?;
    let started = std::time::Instant::now();
    let done: Vec<Done> =
        pool.install(|| items.par_iter().map(|i| run_one(i, strategy, &settings, prices, &out)).collect());
    // Responses, one file per run, task set and type, in task order.
    let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
    for d in &done {
        let path = d.item.response_path(&out, &strategy.model());
        let text = files.entry(path).or_default();
        text.push_str(&serde_json::to_string(&d.record).expect("json"));
        text.push('\n');
    }
    // Every file is tried; the ones that fail are named at the end.
    let mut lost: Vec<String> = done.iter().filter_map(|d| d.trace_error.clone()).collect();
    for (path, text) in &files {
        if let Err(Failure::Other(e) | Failure::Usage(e)) = write_file(path, text) {
            lost.push(e);
        }
    }
    print!("{}", summary(strategy, &done));
    eprintln!(
        "{} in {:.2} s; responses under {}, traces under {}",
        count(done.len(), "task", "tasks"),
        started.elapsed().as_secs_f64(),
        out.join("responses").display(),
        out.join("traces").display()
    );
    for e in &lost {
        eprintln!("cabrito: {e}");
    }
    if !lost.is_empty() {
        return Err(Failure::Other(format!(
            "{} could not be written (listed above); the others are kept",
            count(lost.len(), "file", "files")
        )));
    }
    if !problems.is_empty() {
        return Err(Failure::Other(format!(
            "{} could not be used (listed above as skipped); the others were run",
            count(problems.len(), "task file or record", "task files or records")
        )));
    }
    Ok(())
}

fn summary(strategy: Strategy, done: &[Done]) -> String {
    #[derive(Default)]
    struct Row {
        tasks: usize,
        passed: usize,
        calls: usize,
        input: f64,
        output: f64,
        cost: f64,
    }
    // Sorted by axis, then n as a number, then task type.
    let mut rows: BTreeMap<(String, u64, String, String), Row> = BTreeMap::new();
    for d in done {
        let (axis, n) = records::axis_and_n(&d.item.run);
        let key = (axis, n.parse::<u64>().unwrap_or(u64::MAX), n, d.item.type_name());
        let r = rows.entry(key).or_default();
        r.tasks += 1;
        r.passed += d.static_pass as usize;
        r.calls += d.calls;
        r.input += d.ledger.total.input;
        r.output += d.ledger.total.output;
        r.cost += d.ledger.cost;
    }
    let mut out = format!(
        "{:<22} {:>5} {:<17} {:>5} {:>7} {:>8} {:>12} {:>10} {:>9}\n",
        format!("{strategy}: axis"),
        "n",
        "task type",
        "tasks",
        "static",
        "calls",
        "input tok.",
        "output t.",
        "cost $"
    );
    for ((axis, _, n, ty), r) in rows {
        let k = r.tasks as f64;
        out.push_str(&format!(
            "{:<22} {:>5} {:<17} {:>5} {:>7} {:>8.1} {:>12.0} {:>10.0} {:>9.4}\n",
            axis,
            n,
            ty,
            r.tasks,
            format!("{}/{}", r.passed, r.tasks),
            r.calls as f64 / k,
            r.input / k,
            r.output / k,
            r.cost / k
        ));
    }
    out.push_str("(static: the public checks pass; calls, tokens and cost are means per task; grade the responses with `cabrito grade`)\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_paths_keep_dotted_model_names() {
        let t = cabrito_gen::generate(&cabrito_gen::TaskSpec::default()).unwrap();
        let i = AgentTask::of_task(&t);
        let p = i.response_path(Path::new("/o"), "code/org/qwen2.5-coder");
        assert!(p.ends_with(format!("{}/code/org/qwen2.5-coder.jsonl", i.task_type)), "{}", p.display());
        assert!(i.session_id("code/org/qwen2.5").starts_with("code-org-qwen2-5-"));
        assert_eq!(i.session_id("scripted/reader"), i.session_id("scripted/reader"));
        assert_ne!(i.session_id("scripted/reader"), i.session_id("scripted/navigator"));
    }
}
