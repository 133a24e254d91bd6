//! Records in the reference's layout (D11), read one way for `cabrito check` and `cabrito grade`:
//! finding the files, reading them under one set of size caps, and inferring kind, domain, axis and
//! `n` from the names. Every problem names its file and record. Input that could mean two things is
//! an error listing both, never a guess.
//!
//! ```text
//! tasks:      [DIR/]tasks/<run>/<task_set>/<task_type>.json[.gz]
//! responses:  [DIR/]responses/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl[.gz]
//! solutions:  DIR/<dag_id or task name>.py
//! merge:      [DIR/]tasks/<run>.json[.gz], [DIR/]responses/<run>/<backend>/<model>.jsonl[.gz]
//! ```
//!
//! The folder names give domain, kind, axis and `n`; a Cabrito record's `spec` says them exactly.
//! A merge record has no id: record `i` of `<run>` is `task_0000i`.

use cabrito_check::source::MAX_SOURCE_BYTES;
use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};
use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Largest task file read (after gunzip).
pub const MAX_TASK_FILE_BYTES: u64 = 512 << 20;
/// Largest line of a response file (one response record, JSON-escaped, after gunzip).
pub const MAX_RESPONSE_LINE_BYTES: usize = 3 * MAX_SOURCE_BYTES;
/// Largest solution file or response read (the front end's cap).
pub const MAX_SOLUTION_BYTES: usize = MAX_SOURCE_BYTES;

fn is_gz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

fn open(path: &Path) -> Result<Box<dyn Read>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(format!("{} is a folder; expected a file", path.display()));
    }
    Ok(if is_gz(path) { Box::new(flate2::read::MultiGzDecoder::new(f)) } else { Box::new(f) })
}

/// A file's bytes (gunzipped for `.gz`), at most `cap` of them.
pub fn read_bytes(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    open(path)?
        .take(cap + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("cannot read {}{}: {e}", path.display(), if is_gz(path) { " (gzip)" } else { "" }))?;
    if out.len() as u64 > cap {
        return Err(format!(
            "{} is larger than {cap} bytes{}",
            path.display(),
            if is_gz(path) { " unzipped" } else { "" }
        ));
    }
    Ok(out)
}

/// A file's text (see [`read_bytes`]); invalid UTF-8 is an error naming its line.
pub fn read_text(path: &Path, cap: u64) -> Result<String, String> {
    let bytes = read_bytes(path, cap)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("{} line {line}: not UTF-8 text (byte {at})", path.display())
    })
}

/// One line of a text file: its number, its text (undecodable bytes replaced), and what is wrong with
/// it if anything (not UTF-8, too long).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextLine {
    pub no: usize,
    pub text: String,
    pub problem: Option<String>,
}

/// The lines of a (possibly gzipped) text file, read as a stream. A line that is not UTF-8 or longer
/// than [`MAX_RESPONSE_LINE_BYTES`] carries its problem; the other lines are read on.
pub fn read_lines(path: &Path) -> Result<Vec<TextLine>, String> {
    let mut r = BufReader::new(open(path)?);
    let mut out = Vec::new();
    let mut no = 0;
    loop {
        no += 1;
        let mut buf = Vec::new();
        let n = (&mut r)
            .take(MAX_RESPONSE_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("{} line {no}: cannot read: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        if buf.len() > MAX_RESPONSE_LINE_BYTES && !buf.ends_with(b"\n") {
            // Skip the rest of the over-long line.
            let mut rest = Vec::new();
            r.read_until(b'\n', &mut rest).map_err(|e| format!("{} line {no}: cannot read: {e}", path.display()))?;
            let problem = format!("{} line {no}: longer than {MAX_RESPONSE_LINE_BYTES} bytes", path.display());
            out.push(TextLine { no, text: String::new(), problem: Some(problem) });
            continue;
        }
        let (text, problem) = match String::from_utf8(buf) {
            Ok(s) => (s, None),
            Err(e) => {
                let problem = format!(
                    "{} line {no}: not UTF-8 text (byte {} of the line)",
                    path.display(),
                    e.utf8_error().valid_up_to()
                );
                (String::from_utf8_lossy(e.as_bytes()).into_owned(), Some(problem))
            }
        };
        out.push(TextLine { no, text: text.trim_end_matches(['\n', '\r']).to_string(), problem });
    }
    Ok(out)
}

fn name_of(p: &Path) -> String {
    p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    v.sort();
    v
}

/// Every file under a folder once, whatever links it holds (a link that loops back or reaches a
/// file a second time is skipped, and said).
fn files_once(dir: &Path) -> Vec<PathBuf> {
    let walk = super::walk::files_under(dir, &[]);
    for (rel, why) in &walk.skipped {
        eprintln!("cabrito: skipped {rel}: {why}");
    }
    walk.files().map(|(_, p)| p).collect()
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    sorted_entries(dir).into_iter().filter(|p| p.is_dir()).collect()
}

/// `DIR/<sub>` when it exists, else `DIR` (documented: `--tasks grid/` and `--tasks grid/tasks/` both work).
pub fn root(dir: &Path, sub: &str) -> PathBuf {
    let inner = dir.join(sub);
    if inner.is_dir() {
        inner
    } else {
        dir.to_path_buf()
    }
}

/// `name.json`/`name.json.gz` → `name` (and the same for `.jsonl`).
fn stem<'a>(file: &'a str, ext: &str) -> Option<&'a str> {
    file.strip_suffix(&format!(".{ext}.gz")).or_else(|| file.strip_suffix(&format!(".{ext}")))
}

// ------------------------------------------------------------------------------------------------
// Tasks

/// Where a task file sits: `<run>/<task_set>/<task_type>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Place {
    pub run: String,
    pub task_set: String,
    pub task_type: String,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.run, self.task_set, self.task_type)
    }
}

/// The task file of a place under a tasks root; both `.json` and `.json.gz` there is an error.
pub fn task_file(root: &Path, place: &Place) -> Result<PathBuf, String> {
    let dir = root.join(&place.run).join(&place.task_set);
    let found: Vec<PathBuf> = [format!("{}.json", place.task_type), format!("{}.json.gz", place.task_type)]
        .into_iter()
        .map(|f| dir.join(f))
        .filter(|p| p.is_file())
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(format!("no task file tasks/{place}.json (or .json.gz) under {}", root.display())),
        _ => Err(format!("both {} and {} exist: keep one (they could differ)", found[0].display(), found[1].display())),
    }
}

/// Every task file under a tasks root, by place; problems (the same place twice, files at the wrong
/// depth) are returned separately.
pub fn task_files(root: &Path) -> (Vec<(Place, PathBuf)>, Vec<String>) {
    let mut out: Vec<(Place, PathBuf)> = Vec::new();
    let mut problems = Vec::new();
    for entry in sorted_entries(root) {
        // A merge run's file (`tasks/<run>.json`) is its own layout, read apart.
        if entry.is_file() && stem(&name_of(&entry), "json").is_some_and(|run| !is_merge_run(run)) {
            problems.push(format!(
                "{} is directly under the tasks folder; expected <run>/<task_set>/<task_type>.json",
                entry.display()
            ));
        }
    }
    for run in sorted_dirs(root) {
        for set in sorted_dirs(&run) {
            for f in sorted_entries(&set).into_iter().filter(|p| p.is_file()) {
                let file = name_of(&f);
                let Some(ty) = stem(&file, "json") else { continue };
                let place = Place { run: name_of(&run), task_set: name_of(&set), task_type: ty.to_string() };
                if let Some((_, other)) = out.iter().find(|(p, _)| *p == place) {
                    problems.push(format!(
                        "both {} and {} exist: keep one (they could differ)",
                        other.display(),
                        f.display()
                    ));
                    continue;
                }
                out.push((place, f));
            }
        }
    }
    (out, problems)
}

/// One task record.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRecord {
    pub name: String,
    pub dag_id: String,
    pub starter: Option<String>,
    pub reference: Option<String>,
    /// A Cabrito record's spec (kind, domain, axis, sizes exactly).
    pub spec: Option<TaskSpec>,
    /// The record's `metadata` (`Null` when it has none).
    pub metadata: Json,
    /// Position in its file (0-based).
    pub index: usize,
}

impl TaskRecord {
    fn from_json(r: &Json, index: usize) -> TaskRecord {
        let s = |k: &str| r.get(k).and_then(Json::as_str).map(str::to_string);
        // A merge record holds its starter as `input` and its reference as `solution`.
        TaskRecord {
            name: s("name").unwrap_or_default(),
            dag_id: s("dag_id").unwrap_or_default(),
            starter: s("starter_code").or_else(|| s("input")),
            reference: s("solution_code").or_else(|| s("solution")),
            spec: r.get("spec").and_then(|v| serde_json::from_value(v.clone()).ok()),
            metadata: r.get("metadata").cloned().unwrap_or(Json::Null),
            index,
        }
    }

    /// How a message names it.
    pub fn label(&self) -> String {
        if self.name.is_empty() {
            format!("record {}", self.index + 1)
        } else {
            format!("'{}'", self.name)
        }
    }
}

/// One task record given as JSON (a Cabrito task, a reference record or a merge record), read as a
/// task file's record is.
pub fn task_record(value: &Json) -> TaskRecord {
    TaskRecord::from_json(value, 0)
}

/// The records of a task file: a JSON list of records, or one record. Merge records are named by
/// their position in the file and the file's run name (`<run>.json`).
pub fn read_task_records(path: &Path) -> Result<Vec<TaskRecord>, String> {
    let text = read_text(path, MAX_TASK_FILE_BYTES)?;
    let j: Json = serde_json::from_str(&text).map_err(|e| format!("{} is not valid JSON: {e}", path.display()))?;
    let list: Vec<&Json> = match &j {
        Json::Array(list) => list.iter().collect(),
        Json::Object(_) => vec![&j],
        _ => return Err(format!("{}: expected a task record (a JSON object) or a list of them", path.display())),
    };
    let run = stem(&name_of(path), "json").unwrap_or_default().to_string();
    Ok(list
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let mut rec = TaskRecord::from_json(r, i);
            if is_merge_record(r) && rec.name.is_empty() && rec.dag_id.is_empty() {
                rec.dag_id = cabrito_gen::kinds::merge_codebases::dag_id(i as u64);
                rec.name = format!("{run}/{i:05}");
            }
            rec
        })
        .collect())
}

// ------------------------------------------------------------------------------------------------
// Merge runs

/// A record in the reference's merge format: `input` and `solution`, no `starter_code`.
pub fn is_merge_record(r: &Json) -> bool {
    r.get("input").is_some_and(Json::is_string)
        && r.get("solution").is_some_and(Json::is_string)
        && r.get("starter_code").is_none()
}

/// The kind of a run whose tasks are in one file (merge: `tasks/<run>.json`), if it is one.
pub fn run_file_kind(run: &str) -> Option<Kind> {
    match cabrito_gen::experiment::Experiment::of_run(run) {
        Some(cabrito_gen::experiment::Experiment::Kind(k)) => k.def().own_grid().filter(|g| g.run_file).map(|_| k),
        _ => None,
    }
}

/// A run whose tasks are in one file (`merge_codebases_n=…`).
pub fn is_merge_run(run: &str) -> bool {
    run_file_kind(run).is_some()
}

/// The run file `tasks/<run>.json` (or `.json.gz`) of a merge run; both is an error.
pub fn merge_run_file(tasks_root: &Path, run: &str) -> Result<PathBuf, String> {
    let found: Vec<PathBuf> = [format!("{run}.json"), format!("{run}.json.gz")]
        .into_iter()
        .map(|f| tasks_root.join(f))
        .filter(|p| p.is_file())
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(format!("no run file tasks/{run}.json (or .json.gz) under {}", tasks_root.display())),
        [a, b, ..] => Err(format!("both {} and {} exist: keep one (they could differ)", a.display(), b.display())),
    }
}

/// The merge response files under a responses root: `<run>/<backend>/<model>.jsonl[.gz]` for every
/// merge run, as (run, model, path); the same model twice is an error naming both.
pub fn merge_response_files(dir: &Path) -> Result<Vec<(String, String, PathBuf)>, String> {
    let base = root(dir, "responses");
    let mut out: Vec<(String, String, PathBuf)> = Vec::new();
    for run in sorted_dirs(&base).into_iter().filter(|r| is_merge_run(&name_of(r))) {
        for p in files_once(&run) {
            let file = name_of(&p);
            let Some(model_stem) = stem(&file, "jsonl") else { continue };
            let rel = p
                .parent()
                .and_then(|pp| pp.strip_prefix(&run).ok())
                .map(|r| r.to_string_lossy().into_owned())
                .unwrap_or_default();
            let model = if rel.is_empty() { model_stem.to_string() } else { format!("{rel}/{model_stem}") };
            if let Some(other) = out.iter().find(|(r, m, _)| *r == name_of(&run) && *m == model) {
                return Err(format!(
                    "both {} and {} exist for the same model: keep one",
                    other.2.display(),
                    p.display()
                ));
            }
            out.push((name_of(&run), model, p));
        }
    }
    out.sort();
    Ok(out)
}

pub use cabrito_gen::kinds::merge_codebases::{run_n as merge_run_n, spec_of_run as merge_spec_of_run};

/// The record a response or a `--task-name` means, by name and/or dag_id. Several matches, or a name and
/// a dag_id naming different records, is an error listing them.
pub fn find_record<'a>(
    records: &'a [TaskRecord],
    name: Option<&str>,
    dag_id: Option<&str>,
    file: &str,
) -> Result<&'a TaskRecord, String> {
    let name = name.filter(|n| !n.is_empty());
    let dag_id = dag_id.filter(|d| !d.is_empty());
    let fits = |r: &TaskRecord| name.is_none_or(|n| r.name == n) && dag_id.is_none_or(|d| r.dag_id == d);
    let found: Vec<&'a TaskRecord> = records.iter().filter(|r| fits(r)).collect();
    let what = match (name, dag_id) {
        (Some(n), Some(d)) => format!("the name '{n}' with the dag_id '{d}'"),
        (Some(n), None) => format!("the name '{n}'"),
        (None, Some(d)) => format!("the dag_id '{d}'"),
        (None, None) => return Err(format!("{file}: the response names no task (no 'name' or 'dag_id')")),
    };
    match found.as_slice() {
        [one] => Ok(one),
        [] => {
            let n = name.and_then(|n| records.iter().find(|r| r.name == n));
            let d = dag_id.and_then(|d| records.iter().find(|r| r.dag_id == d));
            Err(match (n, d) {
                (Some(x), Some(y)) => format!(
                    "{file}: the name '{}' and the dag_id '{}' are different records ({} and {})",
                    name.unwrap_or(""),
                    dag_id.unwrap_or(""),
                    x.label(),
                    y.label()
                ),
                (_, None) if dag_id.is_some() => format!("{file}: no task with dag_id '{}'", dag_id.unwrap_or("")),
                _ => format!("{file}: no task named '{}'", name.unwrap_or("")),
            })
        }
        many => Err(format!(
            "{file}: {what} matches {} records ({}); expected one",
            many.len(),
            many.iter().take(5).map(|r| r.label()).collect::<Vec<_>>().join(", ")
        )),
    }
}

// ------------------------------------------------------------------------------------------------
// Kind, domain, axis

/// The kind a task type (folder or file name) names.
pub fn kind_of_task_type(task_type: &str) -> Result<Kind, String> {
    Kind::parse(task_type)
        .ok_or_else(|| format!("unknown task type '{task_type}' (allowed: {})", Kind::NAMES.join(", ")))
}

pub use cabrito_gen::axes::domain_of_task_set;

/// Kind and domain of a record name `<domain>_<set rest>_<task_type>_<dag_id>`, each when the name says
/// it; a name that holds two task types is an error.
pub fn infer_from_name(name: &str) -> Result<(Option<Domain>, Option<Kind>), String> {
    if let Some(kind) = run_file_kind(name) {
        // A run file's record is named `<run>/<index>`.
        return Ok((None, Some(kind)));
    }
    let domain = name.split('_').next().and_then(Domain::parse);
    let kinds: Vec<Kind> = Kind::ALL.iter().copied().filter(|k| name.contains(&format!("_{}_", k.as_str()))).collect();
    match kinds.as_slice() {
        [] => Ok((domain, None)),
        [k] => Ok((domain, Some(*k))),
        many => Err(format!(
            "the name '{name}' holds {} task types ({}); give the kind",
            many.len(),
            many.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// The axis a run name belongs to: the axis whose experiment name starts it (`runtime_resolution_…`).
pub fn axis_of_run(run: &str) -> Option<Axis> {
    match cabrito_gen::experiment::Experiment::of_run(run) {
        Some(cabrito_gen::experiment::Experiment::Axis(a)) => Some(a),
        _ => None,
    }
}

/// The axis of a record from every source that says it: its spec, its run (the folder its file sits
/// in: the axis whose experiment starts it), its task set when only one axis has that set (instruction
/// following's `*_constraints`; for a file outside the layout, the set its name starts with). With no
/// source, the first axis (whose rubric and pass rule add nothing to the kind's). Sources that disagree
/// are an error naming both.
pub fn axis_of(rec: &TaskRecord, place: Option<&Place>, file: &str) -> Result<Axis, String> {
    let owner = |named: &dyn Fn(&str) -> bool| -> Option<Axis> {
        let found: Vec<Axis> =
            Axis::ALL.iter().copied().filter(|&a| Domain::ALL.iter().any(|&d| named(&a.def().task_set(d)))).collect();
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    };
    let mut said: Vec<(Axis, String)> = Vec::new();
    if let Some(s) = &rec.spec {
        said.push((s.axis, "its spec".into()));
    }
    if let Some(p) = place {
        if let Some(a) = axis_of_run(&p.run) {
            said.push((a, format!("its run '{}'", p.run)));
        }
        if let Some(a) = owner(&|set| set == p.task_set) {
            said.push((a, format!("its task set {}", p.task_set)));
        }
    } else if let Some(a) = owner(&|set| rec.name.starts_with(&format!("{set}_"))) {
        said.push((a, format!("its name '{}'", rec.name)));
    }
    let Some((first, by)) = said.first() else { return Ok(Axis::ALL[0]) };
    match said.iter().find(|(a, _)| a != first) {
        Some((other, by_other)) => {
            Err(format!("{file}: {} is on the {first} axis by {by} but on the {other} axis by {by_other}", rec.label()))
        }
        None => Ok(*first),
    }
}

/// Axis (or own grid) and n of a run name, as results name them (`traversal`, `200`); `?` when the
/// name does not say n.
pub fn axis_and_n(run: &str) -> (String, String) {
    let info = cabrito_analysis::results::runs::parse_run(run);
    (info.axis, cabrito_analysis::results::runs::format_n(info.n))
}

/// What a record is, from every source that says it: an explicit choice (flags), the record's spec, its
/// place in the layout, its name. Sources that disagree are an error naming both.
pub fn kind_and_domain(
    rec: &TaskRecord,
    place: Option<&Place>,
    chosen: (Option<Kind>, Option<Domain>),
    file: &str,
) -> Result<(Kind, Domain), String> {
    let mut kinds: Vec<(Kind, String)> = Vec::new();
    let mut domains: Vec<(Domain, String)> = Vec::new();
    if let Some(s) = &rec.spec {
        kinds.push((s.kind, "its spec".into()));
        domains.push((s.domain, "its spec".into()));
    }
    if let Some(p) = place {
        kinds.push((
            kind_of_task_type(&p.task_type).map_err(|e| format!("{file}: {e}"))?,
            format!("{}.json", p.task_type),
        ));
        domains.push((
            domain_of_task_set(&p.task_set).map_err(|e| format!("{file}: {e}"))?,
            format!("the task set {}", p.task_set),
        ));
    }
    let (nd, nk) = infer_from_name(&rec.name).map_err(|e| format!("{file}: {e}"))?;
    if let Some(k) = nk {
        kinds.push((k, format!("its name '{}'", rec.name)));
    }
    if let Some(d) = nd {
        domains.push((d, format!("its name '{}'", rec.name)));
    }
    fn agree<T: Copy + PartialEq + std::fmt::Debug>(
        what: &str,
        chosen: Option<T>,
        said: &[(T, String)],
        show: fn(T) -> &'static str,
        label: &str,
        file: &str,
        allowed: &[&str],
    ) -> Result<T, String> {
        if let Some(c) = chosen {
            return Ok(c);
        }
        let Some((first, by)) = said.first() else {
            return Err(format!("{file}: cannot tell the {what} of {label}; give --{what} ({})", allowed.join("|")));
        };
        if let Some((other, by2)) = said.iter().find(|(x, _)| x != first) {
            return Err(format!(
                "{file}: {label} is {} by {by} but {} by {by2}; give --{what} to choose",
                show(*first),
                show(*other)
            ));
        }
        Ok(*first)
    }
    let label = rec.label();
    let kind = agree("kind", chosen.0, &kinds, Kind::as_str, &label, file, Kind::NAMES)?;
    if kind.def().domains() == cabrito_gen::spec::Support::NotApplicable {
        // The domain knob does not apply (merge): it keeps its default.
        return Ok((kind, TaskSpec::default().domain));
    }
    let domain = agree("domain", chosen.1, &domains, Domain::as_str, &label, file, Domain::NAMES)?;
    Ok((kind, domain))
}

/// The place a task file's path names, when it sits in the layout (`…/<run>/<task_set>/<task_type>.json`
/// with a known task type and task set).
pub fn place_of_path(path: &Path) -> Option<Place> {
    let file = name_of(path);
    let ty = stem(&file, "json")?.to_string();
    let set_dir = path.parent()?;
    let task_set = name_of(set_dir);
    kind_of_task_type(&ty).ok()?;
    domain_of_task_set(&task_set).ok()?;
    let run = set_dir.parent().map(name_of).unwrap_or_default();
    Some(Place { run, task_set, task_type: ty })
}

// ------------------------------------------------------------------------------------------------
// Responses and solutions

/// One response file's place: the task file's place and the model path (`<backend>/<model>`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResponseFile {
    pub place: Place,
    pub model: String,
    pub path: PathBuf,
}

/// Every response file under a responses root. The same model file twice (`.jsonl` and `.jsonl.gz`) is
/// an error naming both.
pub fn response_files(dir: &Path) -> Result<Vec<ResponseFile>, String> {
    let base = root(dir, "responses");
    let mut out: Vec<ResponseFile> = Vec::new();
    // Merge runs have their own layout (`merge_response_files`).
    for run in sorted_dirs(&base).into_iter().filter(|r| !is_merge_run(&name_of(r))) {
        for set in sorted_dirs(&run) {
            for ty in sorted_dirs(&set) {
                for p in files_once(&ty) {
                    let file = name_of(&p);
                    let Some(model_stem) = stem(&file, "jsonl") else { continue };
                    let rel = p
                        .parent()
                        .and_then(|pp| pp.strip_prefix(&ty).ok())
                        .map(|r| r.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let model = if rel.is_empty() { model_stem.to_string() } else { format!("{rel}/{model_stem}") };
                    let place = Place { run: name_of(&run), task_set: name_of(&set), task_type: name_of(&ty) };
                    if let Some(other) = out.iter().find(|r| r.place == place && r.model == model) {
                        return Err(format!(
                            "both {} and {} exist for the same model: keep one",
                            other.path.display(),
                            p.display()
                        ));
                    }
                    out.push(ResponseFile { place, model, path: p });
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

/// A solution file (`--solutions DIR`), read as bytes under the front end's cap.
pub fn read_solution(path: &Path) -> Result<Vec<u8>, String> {
    read_bytes(path, MAX_SOLUTION_BYTES as u64).map_err(|e| {
        if e.contains("larger than") {
            format!("{e} (the checker reads at most 2 MB)")
        } else {
            e
        }
    })
}

/// Which task a solution file `<key>.py` means: the tasks whose dag_id or name is `key`. One seed's graph
/// is shared by every kind and domain, so a dag_id usually names fifteen tasks: that is an error listing
/// them (name the file after the task instead), never a guess.
pub fn match_solution<'a, T>(key: &str, tasks: &'a [(T, String, String)]) -> Result<&'a T, String> {
    let by_name: Vec<&(T, String, String)> = tasks.iter().filter(|t| t.1 == key).collect();
    let found: Vec<&(T, String, String)> =
        if by_name.is_empty() { tasks.iter().filter(|t| t.2 == key).collect() } else { by_name };
    match found.as_slice() {
        [] => Err(format!("no task has dag_id or name '{key}'")),
        [one] => Ok(&one.0),
        many => {
            let names: Vec<&str> = many.iter().take(20).map(|t| t.1.as_str()).collect();
            Err(format!(
                "'{key}' matches {} tasks ({}{}); name the file after one task: <task name>.py",
                many.len(),
                names.join(", "),
                if many.len() > 20 { ", …" } else { "" }
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(name: &str, dag: &str, i: usize) -> TaskRecord {
        TaskRecord {
            name: name.into(),
            dag_id: dag.into(),
            starter: None,
            reference: None,
            spec: None,
            metadata: Json::Null,
            index: i,
        }
    }

    #[test]
    fn names() {
        assert_eq!(
            infer_from_name("math_function_add_parameter_14c62aba-89c2").unwrap(),
            (Some(Domain::Math), Some(Kind::AddParameter))
        );
        assert_eq!(
            infer_from_name("string_constraints_extract_helper_x").unwrap(),
            (Some(Domain::String), Some(Kind::ExtractHelper))
        );
        assert_eq!(infer_from_name("whatever").unwrap(), (None, None));
        assert!(infer_from_name("math_function_dead_code_add_parameter_x").is_err());
        assert_eq!(domain_of_task_set("array_constraints").unwrap(), Domain::Array);
        assert!(domain_of_task_set("bogus_function").is_err());
    }

    #[test]
    fn merge_run_names_give_the_spec() {
        let s = merge_spec_of_run("merge_codebases_n=200_d=1_p=10_b=2_seed=42_tf=0_ne20", 3).unwrap();
        assert_eq!((s.n, s.d, s.params, s.min_block, s.seed), (200, 1, 10, 2, 45));
        assert!(s.transformations.is_all() && s.perturbations.is_all());
        let s = merge_spec_of_run("merge_codebases_n=25_d=2_p=10_b=2_seed=0_tf=multi_lines+reorder_pt=flip_sign", 0)
            .unwrap();
        assert_eq!(s.transformations.names(), ["multi_lines", "reorder"]);
        assert_eq!(s.perturbations.names(), ["flip_sign"]);
        // The run name of a spec reads back as the spec.
        let mut t = s.clone();
        t.seed = 7;
        assert_eq!(merge_spec_of_run(&cabrito_gen::task::run_name(&t), 0), Some(t));
        assert_eq!(merge_spec_of_run("function_traversal_cn=(25,25)", 0), None);
        assert_eq!(merge_spec_of_run("merge_codebases_n=5_d=4_p=10_b=3_seed=0_tf=0", 0), None, "(d+1)·b > n");
        assert_eq!(merge_run_n("merge_codebases_n=50_d=1"), Some(50));
        // A merge record is named by position, and is a merge task whatever the domain.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("merge_codebases_n=5_d=1_p=10_b=2_seed=0_tf=0.json");
        std::fs::write(&p, r#"[{"input":"a","solution":"b"},{"input":"c","solution":"d"}]"#).unwrap();
        let recs = read_task_records(&p).unwrap();
        assert_eq!((recs[1].dag_id.as_str(), recs[1].starter.as_deref()), ("task_00001", Some("c")));
        assert_eq!(recs[1].name, "merge_codebases_n=5_d=1_p=10_b=2_seed=0_tf=0/00001");
        assert_eq!(kind_and_domain(&recs[1], None, (None, None), "f").unwrap().0, Kind::MergeCodebases);
    }

    #[test]
    fn run_names_give_axis_and_n() {
        assert_eq!(
            axis_and_n("function_traversal_cn=(25,25)_en=(200,200)_prop=(0.45,0.55)"),
            ("traversal".into(), "200".into())
        );
        assert_eq!(axis_and_n("function_search_cn=(200,200)_en=(25,25)"), ("search".into(), "200".into()));
        assert_eq!(axis_and_n("runtime_resolution_n=(10,10)_ifhops=200"), ("runtime".into(), "200".into()));
        assert_eq!(axis_and_n("runtime_resolution_n=(10,10)").1, "?");
        assert_eq!(axis_of_run("runtime_resolution_n=(10,10)_ifhops=5"), Some(Axis::Runtime));
        assert_eq!(axis_of_run("function_search_cn=(5,5)"), Some(Axis::Search));
        assert_eq!(axis_of_run("add_instructions_n=(10,10)"), Some(Axis::Instructions));
        assert_eq!(axis_of_run("add_instruction"), None);
        let place = Place {
            run: "runtime_resolution_x".into(),
            task_set: "math_function".into(),
            task_type: "dead_code".into(),
        };
        let r = rec("math_function_dead_code_x", "x", 0);
        assert_eq!(axis_of(&r, Some(&place), "f").unwrap(), Axis::Runtime);
        assert_eq!(axis_of(&r, None, "f").unwrap(), Axis::Traversal);
        let mut spec = rec("x", "x", 0);
        spec.spec = Some(TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Search, 5, 0));
        assert!(axis_of(&spec, Some(&place), "f").unwrap_err().contains("search axis by its spec but on the runtime"));
        assert_eq!(
            axis_and_n("add_instructions_n=(10,10)_prop=(0.45,0.55)_nc=(200,200)_cp=(0.0,0.0)"),
            ("instructions".into(), "200".into())
        );
        // The constraint task sets belong to instruction following alone.
        let set =
            Place { run: "r".into(), task_set: "math_mult_constraints".into(), task_type: "add_parameter".into() };
        assert_eq!(axis_of(&rec("x", "x", 0), Some(&set), "f").unwrap(), Axis::Instructions);
        assert_eq!(axis_of(&rec("string_constraints_add_parameter_x", "x", 0), None, "f").unwrap(), Axis::Instructions);
        let both = Place { run: "function_search_x".into(), ..set };
        let e = axis_of(&rec("x", "x", 0), Some(&both), "f").unwrap_err();
        assert!(
            e.contains("search axis by its run 'function_search_x' but on the instructions axis by its task set"),
            "{e}"
        );
        assert_eq!(
            axis_and_n("comment_copying_cn=(10,10)_en=(10,10)_prop=(0.45,0.55)_words=25"),
            ("comment".into(), "25".into())
        );
        assert_eq!(axis_and_n("variable_renaming_chain=200_n=5"), ("renaming".into(), "5".into()));
        for spec in [
            TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Comment, 7, 0),
            TaskSpec::new(Kind::CacheFunction, Domain::Math, Axis::Search, 50, 0),
            TaskSpec::new(Kind::VariableRenaming, Domain::Math, Axis::Traversal, 9, 0),
            TaskSpec::new(Kind::AddParameter, Domain::String, Axis::Runtime, 200, 0),
            TaskSpec::new(Kind::AddParameter, Domain::Array, Axis::Instructions, 25, 0),
        ] {
            let run = cabrito_gen::task::run_name(&spec);
            assert_eq!(axis_and_n(&run).1, spec.n.to_string(), "{spec}");
            if spec.kind.def().graph().is_some() {
                assert_eq!(axis_of_run(&run), Some(spec.axis));
            }
        }
    }

    #[test]
    fn records_are_found_exactly_or_not_at_all() {
        let recs = vec![rec("a_dead_code_1", "d1", 0), rec("b", "d2", 1), rec("c", "d2", 2)];
        assert_eq!(find_record(&recs, Some("b"), None, "f").unwrap().index, 1);
        assert_eq!(find_record(&recs, None, Some("d1"), "f").unwrap().index, 0);
        assert!(find_record(&recs, None, Some("d2"), "f").unwrap_err().contains("matches 2 records"));
        assert!(find_record(&recs, Some("b"), Some("d1"), "f").unwrap_err().contains("different records"));
        assert_eq!(find_record(&recs, Some("c"), Some("d2"), "f").unwrap().index, 2);
        assert!(find_record(&recs, None, Some("zz"), "f").unwrap_err().contains("no task with dag_id 'zz'"));
    }

    #[test]
    fn kind_and_domain_sources_must_agree() {
        let place = Place { run: "r".into(), task_set: "math_function".into(), task_type: "dead_code".into() };
        let r = rec("math_function_dead_code_x", "x", 0);
        assert_eq!(kind_and_domain(&r, Some(&place), (None, None), "f").unwrap(), (Kind::DeadCode, Domain::Math));
        let wrong = rec("string_function_add_parameter_x", "x", 0);
        let e = kind_and_domain(&wrong, Some(&place), (None, None), "f").unwrap_err();
        assert!(e.contains("dead_code by dead_code.json but add_parameter by its name"), "{e}");
        assert_eq!(
            kind_and_domain(&wrong, Some(&place), (Some(Kind::DeadCode), Some(Domain::Math)), "f").unwrap(),
            (Kind::DeadCode, Domain::Math)
        );
        assert!(kind_and_domain(&rec("", "x", 3), None, (None, None), "f").unwrap_err().contains("record 4"));
    }

    #[test]
    fn a_shared_dag_id_is_ambiguous() {
        let tasks = vec![
            (1, "math_function_dead_code_d".to_string(), "d".to_string()),
            (2, "string_function_dead_code_d".to_string(), "d".to_string()),
        ];
        let e = match_solution("d", &tasks).unwrap_err();
        assert!(e.contains("matches 2 tasks") && e.contains("string_function_dead_code_d"), "{e}");
        assert_eq!(*match_solution("string_function_dead_code_d", &tasks).unwrap(), 2);
        assert!(match_solution("nope", &tasks).is_err());
    }

    #[test]
    fn files_and_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.jsonl");
        std::fs::write(&p, b"{\"a\":1}\n\xff\xfe\n\n{\"b\":2}").unwrap();
        let lines = read_lines(&p).unwrap();
        assert_eq!(lines.len(), 4);
        assert!(lines[1].problem.as_ref().unwrap().contains("line 2: not UTF-8"));
        assert_eq!((lines[3].text.as_str(), lines[3].problem.is_none()), ("{\"b\":2}", true));
        let t = dir.path().join("tasks/run/math_function");
        std::fs::create_dir_all(&t).unwrap();
        std::fs::write(t.join("dead_code.json"), "[]").unwrap();
        std::fs::write(t.join("dead_code.json.gz"), "[]").unwrap();
        let place = Place { run: "run".into(), task_set: "math_function".into(), task_type: "dead_code".into() };
        assert!(task_file(&dir.path().join("tasks"), &place).unwrap_err().contains("keep one"));
        let (files, problems) = task_files(&dir.path().join("tasks"));
        assert_eq!((files.len(), problems.len()), (1, 1));
        assert_eq!(place_of_path(&t.join("dead_code.json")), Some(place));
        assert!(read_text(&p, 4).unwrap_err().contains("larger than 4 bytes"));
    }
}
