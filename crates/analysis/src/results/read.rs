//! Reading results into a [`Dataset`]: the reference's result JSONL (grading.md §1.5) and Cabrito's
//! (the same records plus `score`, `message`, `functions`), `summary.json` of `cabrito grade`, the
//! responses the results came from (so a task opens with its answer), and task records (so a task
//! opens with its spec). Files are given as (path, bytes); the path's layout
//! (`results/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl`) says what each record is, and
//! fields in a record (`run_name`, `task_set`, `task_type`, `model`, `spec`) win over the path.
//! Malformed lines are reported with their file and line and skipped; the rest is kept.

use super::input::{self, Problem};
use super::runs::{self, Counts};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// One graded task of one model.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskResult {
    /// Which loaded set (a drop, a folder, `--baseline`) it came from.
    pub set: usize,
    pub model: Arc<str>,
    pub run: Arc<str>,
    pub experiment: Arc<str>,
    pub axis: Arc<str>,
    pub n: Option<f64>,
    /// The task type (Cabrito's kind).
    pub kind: Arc<str>,
    pub domain: Arc<str>,
    pub task_set: Arc<str>,
    pub name: String,
    pub dag_id: String,
    pub passed: bool,
    /// False when the response could not be read or graded (`parsed_ok: false`).
    pub parsed: bool,
    /// Counts per check kind, in the record's order (one copy shared by the records that have the
    /// same).
    pub checks: Arc<[(Arc<str>, Counts)]>,
    /// Why it failed, when the record says (Cabrito's `message`, or `error`).
    pub message: Option<String>,
    /// The share-link query of the task, when the record or a task file gives it.
    pub link: Option<String>,
    /// The answer graded, when the record carries it.
    pub answer: Option<String>,
    pub file: usize,
    pub line: usize,
}

impl TaskResult {
    /// The checks that did not pass (failed or errored), by kind.
    pub fn failing_checks(&self) -> impl Iterator<Item = &str> {
        self.checks.iter().filter(|(_, c)| c.fail > 0 || c.error > 0).map(|(k, _)| &**k)
    }
    /// Identity of the task across models and sets: run, task set, task type, dag_id (or name).
    pub fn task_key(&self) -> (Arc<str>, Arc<str>, Arc<str>, String) {
        let id = if self.dag_id.is_empty() { self.name.clone() } else { self.dag_id.clone() };
        (self.run.clone(), self.task_set.clone(), self.kind.clone(), id)
    }
}

/// A row of a `summary.json` (counts only: no per-task records behind it).
#[derive(Clone, Debug, PartialEq)]
pub struct CountRow {
    pub set: usize,
    pub model: Arc<str>,
    pub axis: Arc<str>,
    pub kind: Arc<str>,
    pub domain: Arc<str>,
    pub n: Option<f64>,
    pub tasks: usize,
    pub passed: usize,
}

/// What a file turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileRole {
    Results,
    Responses,
    Tasks,
    Summary,
    /// `.meta.json` and files that are not results at all.
    Skipped,
}

/// One file read.
#[derive(Clone, Debug, PartialEq)]
pub struct FileInfo {
    pub path: String,
    pub set: usize,
    pub role: FileRole,
    /// Records (or rows, or tasks, or answers) taken from it.
    pub records: usize,
    /// Lines that were reported and skipped.
    pub bad_lines: usize,
}

type AnswerKey = (usize, Arc<str>, Arc<str>, Arc<str>, Arc<str>, String);
/// Set, model, run, task set, task type, name, dag_id: a result's identity (the last one wins).
type RecordKey = (usize, Arc<str>, Arc<str>, Arc<str>, Arc<str>, String, String);

/// A check's name and its counts.
type CheckCount = (Arc<str>, Counts);

/// Everything loaded: per-task results, summary rows, the problems met.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// Names of the loaded sets, by index.
    pub sets: Vec<String>,
    pub records: Vec<TaskResult>,
    pub counts: Vec<CountRow>,
    pub files: Vec<FileInfo>,
    pub problems: Vec<Problem>,
    answers: HashMap<AnswerKey, String>,
    /// What each answer cost, from its response record.
    spends: HashMap<AnswerKey, Spend>,
    /// Task name → share-link queries (one per axis when a name is shared).
    links: HashMap<String, Vec<(Arc<str>, String)>>,
    /// Records by the hash of their identity ([`RecordKey`]); `collided` holds the rare second
    /// identity of a hash.
    index: HashMap<u64, usize>,
    collided: HashMap<RecordKey, usize>,
    strings: HashMap<String, Arc<str>>,
    /// Each distinct list of check counts, shared by the records that have it.
    check_lists: HashMap<Vec<CheckCount>, Arc<[CheckCount]>>,
    /// Keep no answers (responses are read for their ledgers only, a record's `answer` is dropped):
    /// the static report shows none, and they are most of a results folder's bytes.
    pub lean: bool,
    /// The most task results kept; reading stops at it and sets `over_max` (memory grows with them).
    pub max_records: Option<usize>,
    /// A result past `max_records` was met and not kept.
    pub over_max: bool,
}

/// The most problems kept per file (the rest are counted).
pub const MAX_PROBLEMS_PER_FILE: usize = 50;

/// Where a file sits in the reference layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub run: Option<String>,
    pub task_set: Option<String>,
    pub task_type: Option<String>,
    pub model: Option<String>,
}

fn components(path: &str) -> Vec<&str> {
    path.split(['/', '\\']).filter(|c| !c.is_empty() && *c != ".").collect()
}

/// A file name without `.jsonl[.gz]` / `.json[.gz]` and without a `.shard-K-of-N` suffix.
pub fn stem(file: &str) -> &str {
    let s = file.strip_suffix(".gz").unwrap_or(file);
    let s = s.strip_suffix(".jsonl").or_else(|| s.strip_suffix(".json")).unwrap_or(s);
    match s.rfind(".shard-") {
        Some(i)
            if s[i + 7..]
                .split_once("-of-")
                .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok()) =>
        {
            &s[..i]
        }
        _ => s,
    }
}

/// The layout of a results or responses file from its path (`anchor` is `results` or `responses`).
pub fn layout_of(path: &str, anchor: &str) -> Layout {
    let comps = components(path);
    let Some(last) = comps.last() else { return Layout::default() };
    let file_stem = stem(last).to_string();
    let with_stem = |parts: &[&str]| -> String {
        let mut v: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
        if let Some(l) = v.last_mut() {
            *l = file_stem.clone();
        }
        v.join("/")
    };
    let is_type = runs::is_task_type;
    if let Some(r) = comps.iter().rposition(|c| *c == anchor) {
        let rest = &comps[r + 1..];
        if rest.len() >= 4 && (runs::is_task_set(rest[1]) || is_type(rest[2])) {
            return Layout {
                run: Some(rest[0].to_string()),
                task_set: Some(rest[1].to_string()),
                task_type: Some(rest[2].to_string()),
                model: Some(with_stem(&rest[3..])),
            };
        }
        if rest.len() >= 2 {
            // A run of a kind that writes its tasks in one file (merge): the run names the kind.
            let run = rest[0].to_string();
            let task_type = match cabrito_gen::experiment::Experiment::of_run(&cabrito_gen::experiment::modern(&run)) {
                Some(cabrito_gen::experiment::Experiment::Kind(k))
                    if k.def().own_grid().is_some_and(|g| g.run_file) =>
                {
                    Some(k.as_str().to_string())
                }
                _ => None,
            };
            return Layout {
                task_type,
                task_set: Some(String::new()),
                run: Some(run),
                model: Some(with_stem(&rest[1..])),
            };
        }
    }
    // No anchor: a task type folder preceded by a task set and a run.
    if let Some(t) = comps.iter().rposition(|c| is_type(c)) {
        if t >= 2 && t + 1 < comps.len() && runs::is_task_set(comps[t - 1]) {
            return Layout {
                run: Some(comps[t - 2].to_string()),
                task_set: Some(comps[t - 1].to_string()),
                task_type: Some(comps[t].to_string()),
                model: Some(with_stem(&comps[t + 1..])),
            };
        }
    }
    Layout { model: Some(file_stem), ..Layout::default() }
}

/// Decide what a file is from its path and, when the path does not say, its first record.
pub fn role_of(path: &str, text_head: Option<&str>) -> FileRole {
    let comps = components(path);
    let name = comps.last().copied().unwrap_or("");
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".meta.json") {
        return FileRole::Skipped;
    }
    let jsonl = lower.ends_with(".jsonl") || lower.ends_with(".jsonl.gz");
    let json = lower.ends_with(".json") || lower.ends_with(".json.gz");
    if !jsonl && !json {
        return FileRole::Skipped;
    }
    if json && lower.starts_with("summary") {
        return FileRole::Summary;
    }
    if lower.starts_with("tasks") && jsonl {
        return FileRole::Tasks;
    }
    // The nearest layout folder decides.
    for c in comps.iter().rev().skip(1) {
        match *c {
            "results" => return FileRole::Results,
            "responses" => return FileRole::Responses,
            "tasks" => return FileRole::Tasks,
            _ => {}
        }
    }
    let head = text_head.map(str::trim_start).unwrap_or("");
    if json {
        return if head.starts_with('[') {
            FileRole::Tasks
        } else if head.starts_with('{') && head.contains("\"rows\"") {
            FileRole::Summary
        } else {
            FileRole::Skipped
        };
    }
    let first = head.lines().next().unwrap_or("");
    if first.contains("\"parsed_ok\"") || first.contains("\"summary\"") || first.contains("\"results\"") {
        FileRole::Results
    } else if first.contains("\"starter_code\"") {
        FileRole::Tasks
    } else if first.contains("\"output\"") {
        FileRole::Responses
    } else {
        FileRole::Results
    }
}

#[derive(Deserialize)]
struct RawCounts {
    #[serde(default)]
    pass: f64,
    #[serde(default)]
    fail: f64,
    #[serde(default)]
    error: f64,
}

#[derive(Deserialize)]
struct RawResult {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    dag_id: Option<String>,
    #[serde(default)]
    parsed_ok: Option<bool>,
    #[serde(default)]
    skipped: Option<bool>,
    #[serde(default)]
    summary: Option<pairs::Pairs<String, RawCounts>>,
    /// A list of {kind, type} (function tasks) or a map kind → {type} or → "pass" (merge); read
    /// only when the summary is missing.
    #[serde(default)]
    results: Option<Box<serde_json::value::RawValue>>,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default, alias = "run")]
    run_name: Option<String>,
    #[serde(default, alias = "task_set_name")]
    task_set: Option<String>,
    #[serde(default)]
    task_type: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    spec: Option<serde_json::Value>,
    #[serde(default)]
    link: Option<String>,
    #[serde(default, alias = "output")]
    answer: Option<String>,
}

/// A JSON object read as (key, value) pairs in order (serde's map form), so the summary keeps the
/// record's order without a map type.
mod pairs {
    use serde::de::{Deserializer, MapAccess, Visitor};
    use std::fmt;
    use std::marker::PhantomData;

    pub struct Pairs<K, V>(pub Vec<(K, V)>);
    impl<'de, K: serde::Deserialize<'de>, V: serde::Deserialize<'de>> serde::Deserialize<'de> for Pairs<K, V> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V2<K, V>(PhantomData<(K, V)>);
            impl<'de, K: serde::Deserialize<'de>, V: serde::Deserialize<'de>> Visitor<'de> for V2<K, V> {
                type Value = Pairs<K, V>;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                    let mut out = Vec::new();
                    while let Some((k, v)) = m.next_entry()? {
                        out.push((k, v));
                    }
                    Ok(Pairs(out))
                }
            }
            d.deserialize_map(V2(PhantomData))
        }
    }
}

#[derive(Deserialize)]
struct RawResponse {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    dag_id: Option<String>,
    #[serde(default)]
    output: Option<String>,
    #[serde(default, alias = "run")]
    run_name: Option<String>,
    #[serde(default)]
    task_set: Option<String>,
    #[serde(default)]
    task_type: Option<String>,
    #[serde(default)]
    metadata: Option<serde_json::Value>,
}

/// What answering one task cost, as its response record says (`cabrito agent` and `cabrito solve`
/// write these: the ledger's totals for the session).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spend {
    /// Dollars under the run's price table.
    pub cost: Option<f64>,
    pub tool_calls: Option<f64>,
    pub input_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
}

impl Spend {
    fn of(metadata: &serde_json::Value) -> Option<Spend> {
        let f = |k: &str| metadata.get(k).and_then(serde_json::Value::as_f64);
        let s = Spend {
            cost: f("cost"),
            tool_calls: f("tool_calls"),
            input_tokens: f("n_input_tokens"),
            output_tokens: f("n_output_tokens"),
        };
        (s != Spend::default()).then_some(s)
    }
}

#[derive(Deserialize)]
struct RawTask {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    link: Option<String>,
    #[serde(default)]
    spec: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct RawRow {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    domain: Option<String>,
    #[serde(default)]
    axis: Option<String>,
    #[serde(default)]
    n: Option<serde_json::Value>,
    #[serde(default)]
    tasks: Option<f64>,
    #[serde(default)]
    passed: Option<f64>,
}

#[derive(Deserialize)]
struct RawSummary {
    #[serde(default)]
    rows: Vec<RawRow>,
}

/// The share-link query of a spec object (`{"v":1,"kind":…}` → `v=1&kind=…`), if every value is a
/// string or a number.
pub fn spec_query(spec: &serde_json::Value) -> Option<String> {
    let obj = spec.as_object()?;
    let mut parts = Vec::new();
    for (k, v) in obj {
        let v = match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Null => continue,
            _ => return None,
        };
        parts.push(format!("{k}={v}"));
    }
    (!parts.is_empty()).then(|| parts.join("&"))
}

/// The query of a link (`#/task?v=1&n=5` → `v=1&n=5`).
pub fn link_query(link: &str) -> String {
    link.split_once('?').map_or(link, |(_, q)| q).to_string()
}

impl Dataset {
    pub fn new() -> Dataset {
        Dataset::default()
    }

    /// Start a new set of files (a drop, a folder); returns its index.
    pub fn add_set(&mut self, name: &str) -> usize {
        self.sets.push(name.to_string());
        self.sets.len() - 1
    }

    fn intern(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.strings.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.strings.insert(s.to_string(), a.clone());
        a
    }

    /// A result's identity, hashed (the index holds hashes, not copies of the keys).
    fn key_hash(r: &TaskResult) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (r.set, &r.model, &r.run, &r.task_set, &r.kind, &r.name, &r.dag_id).hash(&mut h);
        h.finish()
    }

    fn key_of(r: &TaskResult) -> RecordKey {
        (r.set, r.model.clone(), r.run.clone(), r.task_set.clone(), r.kind.clone(), r.name.clone(), r.dag_id.clone())
    }

    /// The record already kept with the same identity as `r`, if any.
    fn find(&self, r: &TaskResult) -> Option<usize> {
        let i = *self.index.get(&Self::key_hash(r))?;
        if Self::key_of(&self.records[i]) == Self::key_of(r) {
            Some(i)
        } else {
            self.collided.get(&Self::key_of(r)).copied()
        }
    }

    fn keep(&mut self, r: TaskResult) {
        let h = Self::key_hash(&r);
        if self.index.contains_key(&h) {
            // Two identities with one hash: the second is indexed by its whole key.
            self.collided.insert(Self::key_of(&r), self.records.len());
        } else {
            self.index.insert(h, self.records.len());
        }
        self.records.push(r);
    }

    /// One shared copy of each distinct list of check counts (most records repeat a few).
    fn intern_checks(&mut self, checks: Vec<(Arc<str>, Counts)>) -> Arc<[(Arc<str>, Counts)]> {
        if let Some(a) = self.check_lists.get(&checks) {
            return a.clone();
        }
        let a: Arc<[(Arc<str>, Counts)]> = Arc::from(checks.clone());
        self.check_lists.insert(checks, a.clone());
        a
    }

    fn problem(&mut self, file: usize, p: Problem) {
        let f = &mut self.files[file];
        f.bad_lines += usize::from(p.line.is_some());
        let kept = self.problems.iter().filter(|q| q.file == p.file).count();
        if kept < MAX_PROBLEMS_PER_FILE {
            self.problems.push(p);
        } else if kept == MAX_PROBLEMS_PER_FILE {
            self.problems.push(Problem::file(&p.file, "more problems in this file are not listed"));
        }
    }

    /// Read one file into set `set`. Never fails: problems are recorded in [`Dataset::problems`].
    pub fn add_file(&mut self, set: usize, path: &str, bytes: &[u8]) {
        self.add_reader(set, path, bytes)
    }

    /// [`Dataset::add_file`] from a reader (a file the caller opened): read as a stream, one line
    /// at a time, so memory holds what is kept of the records, not the file.
    pub fn add_reader<R: std::io::Read>(&mut self, set: usize, path: &str, reader: R) {
        if self.over_max {
            return;
        }
        while self.sets.len() <= set {
            self.sets.push(format!("set {}", self.sets.len() + 1));
        }
        let file = self.files.len();
        self.files.push(FileInfo { path: path.to_string(), set, role: FileRole::Skipped, records: 0, bad_lines: 0 });
        let lower = path.to_ascii_lowercase();
        let interesting = [".jsonl", ".jsonl.gz", ".json", ".json.gz"].iter().any(|e| lower.ends_with(e));
        if !interesting || lower.ends_with(".meta.json") {
            return;
        }
        let src = input::Source::new(path, reader, input::MAX_TEXT_BYTES);
        let head = src.head();
        let role = role_of(path, Some(&head));
        self.files[file].role = role;
        let list = head.trim_start().starts_with('[');
        match role {
            FileRole::Summary => self.read_summary(set, file, path, src),
            FileRole::Tasks if list => self.read_task_list(file, path, src),
            FileRole::Skipped => {}
            _ => {
                let mut lines = src.lines();
                match role {
                    FileRole::Results => self.read_results(set, file, path, &mut lines),
                    FileRole::Responses => self.read_responses(set, file, path, &mut lines),
                    _ => self.read_task_lines(file, path, &mut lines),
                }
                for p in std::mem::take(&mut lines.problems) {
                    self.problem(file, p);
                }
            }
        }
    }

    fn read_results<S: AsRef<str>>(
        &mut self,
        set: usize,
        file: usize,
        path: &str,
        lines: impl Iterator<Item = (usize, S)>,
    ) {
        let layout = layout_of(path, "results");
        for (lineno, line) in lines {
            let line = line.as_ref();
            let raw: RawResult = match serde_json::from_str(line) {
                Ok(r) => r,
                Err(e) => {
                    let msg = if line.trim_start().starts_with('{') {
                        format!("not a result record ({e})")
                    } else {
                        "not a JSON object".to_string()
                    };
                    self.problem(file, Problem::line(path, lineno, msg));
                    continue;
                }
            };
            match self.result_of(set, file, lineno, &layout, raw) {
                Ok(rec) => {
                    // The reference's readers keep the last record of a key.
                    match self.find(&rec) {
                        Some(i) => self.records[i] = rec,
                        None if self.max_records.is_some_and(|m| self.records.len() >= m) => {
                            self.over_max = true;
                            return;
                        }
                        None => self.keep(rec),
                    }
                    self.files[file].records += 1;
                }
                Err(msg) => self.problem(file, Problem::line(path, lineno, msg)),
            }
        }
    }

    fn result_of(
        &mut self,
        set: usize,
        file: usize,
        line: usize,
        layout: &Layout,
        raw: RawResult,
    ) -> Result<TaskResult, String> {
        let name = raw.name.as_deref().unwrap_or("").to_string();
        let dag_id = raw.dag_id.as_deref().unwrap_or("").to_string();
        if name.is_empty() && dag_id.is_empty() {
            return Err("the record has neither 'name' nor 'dag_id'".into());
        }
        let spec = raw.spec.as_ref().and_then(|s| s.as_object());
        let spec_str = |k: &str| spec.and_then(|o| o.get(k)).and_then(|v| v.as_str()).map(str::to_string);
        let from_name = runs::split_task_name(&name, &dag_id);
        let run = raw.run_name.as_deref().map(str::to_string).or_else(|| layout.run.clone()).unwrap_or_default();
        let task_type = raw
            .task_type
            .as_deref()
            .map(str::to_string)
            .or_else(|| spec_str("kind"))
            .or_else(|| layout.task_type.clone())
            .or_else(|| from_name.as_ref().map(|(_, t)| t.clone()))
            .unwrap_or_else(|| "?".to_string());
        let task_set = raw
            .task_set
            .as_deref()
            .map(str::to_string)
            .or_else(|| layout.task_set.clone())
            .or_else(|| from_name.as_ref().map(|(s, _)| s.clone()))
            .unwrap_or_default();
        let model =
            raw.model.as_deref().map(str::to_string).or_else(|| layout.model.clone()).unwrap_or_else(|| "?".into());
        let info = runs::parse_run(&run);
        let (axis, n) = match spec {
            Some(o) => (
                o.get("axis").and_then(|v| v.as_str()).map_or(info.axis.clone(), str::to_string),
                o.get("n").and_then(|v| v.as_f64()).or(info.n),
            ),
            None => (if run.is_empty() { "?".to_string() } else { info.axis.clone() }, info.n),
        };
        let experiment = if run.is_empty() { runs::experiment_of_axis(&axis) } else { info.experiment };
        let domain = spec_str("domain").unwrap_or_else(|| runs::domain_of(&task_set));
        let mut checks: Vec<(Arc<str>, Counts)> = Vec::new();
        if let Some(summary) = &raw.summary {
            for (k, c) in &summary.0 {
                let counts = Counts {
                    pass: c.pass.max(0.0) as u32,
                    fail: c.fail.max(0.0) as u32,
                    error: c.error.max(0.0) as u32,
                };
                checks.push((self.intern(k), counts));
            }
        } else if let Some(results) =
            raw.results.as_ref().and_then(|r| serde_json::from_str::<serde_json::Value>(r.get()).ok())
        {
            let entries: Vec<(String, Option<String>)> = match &results {
                serde_json::Value::Array(list) => list
                    .iter()
                    .filter_map(|c| {
                        let k = c.get("kind")?.as_str()?.to_string();
                        Some((k, c.get("type").and_then(|t| t.as_str()).map(str::to_string)))
                    })
                    .collect(),
                serde_json::Value::Object(map) => map
                    .iter()
                    .map(|(k, v)| {
                        let t = v.as_str().or_else(|| v.get("type").and_then(|t| t.as_str()));
                        (k.clone(), t.map(str::to_string))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for (k, outcome) in entries {
                let k = self.intern(&k);
                let slot = match checks.iter().position(|(x, _)| *x == k) {
                    Some(i) => i,
                    None => {
                        checks.push((k, Counts::default()));
                        checks.len() - 1
                    }
                };
                match outcome.as_deref() {
                    Some("pass") => checks[slot].1.pass += 1,
                    Some("fail") => checks[slot].1.fail += 1,
                    _ => checks[slot].1.error += 1,
                }
            }
        }
        let parsed = raw.parsed_ok.unwrap_or(true) && !raw.skipped.unwrap_or(false);
        let passed = parsed
            && match raw.score {
                Some(s) => s >= 1.0,
                None => {
                    let map: BTreeMap<String, Counts> = checks.iter().map(|(k, c)| (k.to_string(), *c)).collect();
                    runs::passes(&experiment, &task_type, &map)
                }
            };
        let message =
            raw.message.as_deref().filter(|m| !m.is_empty()).or(raw.error.as_deref()).map(|m| input::clip(m, 2000));
        let link = raw.spec.as_ref().and_then(spec_query).or_else(|| raw.link.as_deref().map(link_query));
        Ok(TaskResult {
            set,
            model: self.intern(&model),
            run: self.intern(&run),
            experiment: self.intern(&experiment),
            axis: self.intern(&axis),
            n,
            kind: self.intern(&task_type),
            domain: self.intern(&domain),
            task_set: self.intern(&task_set),
            name,
            dag_id,
            passed,
            parsed,
            checks: self.intern_checks(checks),
            message,
            link,
            answer: if self.lean { None } else { raw.answer },
            file,
            line,
        })
    }

    fn read_responses<S: AsRef<str>>(
        &mut self,
        set: usize,
        file: usize,
        path: &str,
        lines: impl Iterator<Item = (usize, S)>,
    ) {
        let layout = layout_of(path, "responses");
        for (lineno, line) in lines {
            let raw: RawResponse = match serde_json::from_str(line.as_ref()) {
                Ok(r) => r,
                Err(e) => {
                    self.problem(file, Problem::line(path, lineno, format!("not a response record ({e})")));
                    continue;
                }
            };
            let Some(output) = raw.output else { continue };
            let name = raw.name.as_deref().unwrap_or("");
            let dag_id = raw.dag_id.as_deref().unwrap_or("");
            let from_name = runs::split_task_name(name, dag_id);
            let run = raw.run_name.as_deref().map(str::to_string).or_else(|| layout.run.clone()).unwrap_or_default();
            let task_set = raw
                .task_set
                .as_deref()
                .map(str::to_string)
                .or_else(|| layout.task_set.clone())
                .or_else(|| from_name.as_ref().map(|(s, _)| s.clone()))
                .unwrap_or_default();
            let task_type = raw
                .task_type
                .as_deref()
                .map(str::to_string)
                .or_else(|| layout.task_type.clone())
                .or_else(|| from_name.as_ref().map(|(_, t)| t.clone()))
                .unwrap_or_default();
            let id = if dag_id.is_empty() { name.to_string() } else { dag_id.to_string() };
            let key = (
                set,
                self.intern(layout.model.as_deref().unwrap_or("?")),
                self.intern(&run),
                self.intern(&task_set),
                self.intern(&task_type),
                id,
            );
            if let Some(spend) = raw.metadata.as_ref().and_then(Spend::of) {
                self.spends.insert(key.clone(), spend);
            }
            if !self.lean {
                self.answers.insert(key, output);
            }
            self.files[file].records += 1;
        }
    }

    fn add_task(&mut self, file: usize, t: RawTask) {
        let Some(name) = t.name else { return };
        let query = t.spec.as_ref().and_then(spec_query).or_else(|| t.link.as_deref().map(link_query));
        if let Some(q) = query {
            let axis = t
                .spec
                .as_ref()
                .and_then(|s| s.get("axis"))
                .and_then(|a| a.as_str())
                .map(|a| self.intern(a))
                .unwrap_or_else(|| self.intern("?"));
            let e = self.links.entry(name).or_default();
            if !e.iter().any(|(a, _)| *a == axis) {
                e.push((axis, q));
            }
            self.files[file].records += 1;
        }
    }

    /// A JSON list of task records, read as a stream (only the fields kept are held).
    fn read_task_list(&mut self, file: usize, path: &str, mut src: input::Source) {
        match serde_json::from_reader::<_, Vec<RawTask>>(&mut src) {
            Ok(list) => list.into_iter().for_each(|t| self.add_task(file, t)),
            Err(e) if e.is_io() => {
                let p = src.problem_of(&std::io::Error::other(e.to_string()), true);
                self.problem(file, p)
            }
            Err(e) => self.problem(file, Problem::file(path, format!("not a JSON list of tasks ({e})"))),
        }
    }

    fn read_task_lines<S: AsRef<str>>(&mut self, file: usize, path: &str, lines: impl Iterator<Item = (usize, S)>) {
        for (lineno, line) in lines {
            match serde_json::from_str::<RawTask>(line.as_ref()) {
                Ok(t) => self.add_task(file, t),
                Err(e) => self.problem(file, Problem::line(path, lineno, format!("not a task record ({e})"))),
            }
        }
    }

    fn read_summary(&mut self, set: usize, file: usize, path: &str, mut src: input::Source) {
        let summary: RawSummary = match serde_json::from_reader(&mut src) {
            Ok(s) => s,
            Err(e) if e.is_io() => {
                let p = src.problem_of(&std::io::Error::other(e.to_string()), true);
                self.problem(file, p);
                return;
            }
            Err(e) => {
                self.problem(file, Problem::file(path, format!("not a summary of `cabrito grade` ({e})")));
                return;
            }
        };
        for (i, r) in summary.rows.into_iter().enumerate() {
            let n = match &r.n {
                Some(serde_json::Value::Number(x)) => x.as_f64(),
                Some(serde_json::Value::String(s)) => s.parse().ok(),
                _ => None,
            };
            let (Some(tasks), Some(passed)) = (r.tasks, r.passed) else {
                self.problem(file, Problem::file(path, format!("row {} has no 'tasks' or 'passed'", i + 1)));
                continue;
            };
            if !(tasks >= passed && passed >= 0.0) {
                self.problem(
                    file,
                    Problem::file(path, format!("row {}: passed ({passed}) is not within 0..=tasks ({tasks})", i + 1)),
                );
                continue;
            }
            let row = CountRow {
                set,
                model: self.intern(r.model.as_deref().unwrap_or("?")),
                axis: self.intern(r.axis.as_deref().unwrap_or("?")),
                kind: self.intern(r.kind.as_deref().unwrap_or("?")),
                domain: self.intern(r.domain.as_deref().unwrap_or("?")),
                n,
                tasks: tasks as usize,
                passed: passed as usize,
            };
            self.counts.push(row);
            self.files[file].records += 1;
        }
    }

    /// The answer behind a result: the record's own, or the response file's.
    pub fn answer_of<'a>(&'a self, r: &'a TaskResult) -> Option<&'a str> {
        if let Some(a) = &r.answer {
            return Some(a);
        }
        let id = if r.dag_id.is_empty() { r.name.clone() } else { r.dag_id.clone() };
        let key = (r.set, r.model.clone(), r.run.clone(), r.task_set.clone(), r.kind.clone(), id);
        self.answers.get(&key).map(String::as_str)
    }

    /// What the answer behind a result cost, when its response record says.
    pub fn spend_of(&self, r: &TaskResult) -> Option<&Spend> {
        let id = if r.dag_id.is_empty() { r.name.clone() } else { r.dag_id.clone() };
        let key = (r.set, r.model.clone(), r.run.clone(), r.task_set.clone(), r.kind.clone(), id);
        self.spends.get(&key)
    }

    /// The share-link query of a result's task, from the record or a loaded task file.
    pub fn link_of(&self, r: &TaskResult) -> Option<String> {
        if let Some(l) = &r.link {
            return Some(l.clone());
        }
        let options = self.links.get(&r.name)?;
        options.iter().find(|(a, _)| *a == r.axis).or(options.first()).map(|(_, q)| q.clone())
    }

    /// How many answers and task links were loaded (for the view's file list).
    pub fn answers_and_links(&self) -> (usize, usize) {
        (self.answers.len(), self.links.len())
    }

    /// Summary rows of models that have no per-task records in their set (a model graded by
    /// `cabrito grade` and loaded with its results folder is counted once, from its records).
    pub fn counts_without_records(&self) -> Vec<&CountRow> {
        let with: std::collections::HashSet<(usize, &str)> = self.records.iter().map(|r| (r.set, &*r.model)).collect();
        self.counts.iter().filter(|c| !with.contains(&(c.set, &*c.model))).collect()
    }
}
