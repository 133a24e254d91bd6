//! `cabrito check`: read a response and run the static rubric on it, against a task given by its spec
//! flags or by a task file (a Cabrito task or a reference record, D11).
//!
//! Exit status: 0 when every must-have passes, 1 when one fails (or the response cannot be read), 2 on
//! usage errors (bad flags, unreadable files, records without the needed fields).

use super::cli::{spec_args, spec_from, Failure};
use crate::check::response::{parse_response, Candidate, ResponseError, MAX_RESPONSE_BYTES};
use crate::check::rubric::{static_checks, Rubric, TaskRef};
use crate::spec::KNOBS;
use crate::{Domain, Kind};
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::{json, Value};
use std::io::Read;
use std::path::Path;

pub fn command() -> Command {
    Command::new("check")
        .about("Statically check a solution (any response format) against a task: the rubric without running code")
        .long_about(
            "Statically check a solution against a task, without running it.\n\n\
             The task comes from the spec flags (as `cabrito generate` takes them) or from --task-file: a Cabrito \
             task (`cabrito generate --json`) or a record of the reference implementation (its `<task_type>.json`, \
             possibly gzip'd; an array needs --task-name unless it has one record). The kind and domain of a \
             reference record are read from its name (`<domain>_function_<task_type>_<dag_id>`); --kind and \
             --domain override them.\n\n\
             The solution may be a `# === solution.py ===` file block (optionally inside <solution>…</solution>), \
             a bare Python file, or a unified diff against the starter.\n\n\
             Exit status: 0 when every must-have item passes, 1 when one fails or the response cannot be read, \
             2 on usage errors.",
        )
        .args(spec_args())
        .arg(
            Arg::new("task-file")
                .long("task-file")
                .value_name("TASK.json")
                .help("a Cabrito task or a reference task record (JSON, or .json.gz) instead of spec flags"),
        )
        .arg(
            Arg::new("task-name")
                .long("task-name")
                .value_name("NAME|DAG_ID")
                .help("which record of a task file holding several (by name or dag_id)"),
        )
        .arg(
            Arg::new("solution")
                .long("solution")
                .value_name("FILE")
                .required(true)
                .help("the solution or model response to check (`-` for stdin)"),
        )
        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("print the rubric as JSON"))
}

/// The task being checked against.
struct Loaded {
    name: String,
    kind: Kind,
    domain: Domain,
    starter: String,
    reference: String,
    source: &'static str,
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let task = load_task(m)?;
    let path = m.get_one::<String>("solution").map(String::as_str).unwrap_or("-");
    let text = read_response(path)?;
    let task_ref = TaskRef { kind: task.kind, domain: task.domain, starter: &task.starter, reference: &task.reference };
    let parsed = parse_response(&text, &task.starter);
    let rubric = parsed.as_ref().ok().map(|c| static_checks(&task_ref, &c.code));
    let passed = rubric.as_ref().is_some_and(Rubric::passed);
    if m.get_flag("json") {
        println!(
            "{}",
            serde_json::to_string_pretty(&report_json(&task, path, &parsed, rubric.as_ref())).expect("json")
        );
    } else {
        print!("{}", report_text(&task, path, &parsed, rubric.as_ref()));
    }
    if passed {
        return Ok(());
    }
    Err(Failure::Other(match (&parsed, &rubric) {
        (Err(e), _) => format!("the response cannot be read: {e}"),
        (_, Some(r)) if r.item("compilation").is_some_and(|i| !i.passed) => {
            "the solution does not compile; nothing else was checked".into()
        }
        (_, Some(r)) => {
            let n = r.failed_must_haves().count();
            format!("{n} must-have item{} failed", if n == 1 { "" } else { "s" })
        }
        _ => "check failed".into(),
    }))
}

fn report_json(task: &Loaded, path: &str, parsed: &Result<Candidate, ResponseError>, rubric: Option<&Rubric>) -> Value {
    let response = match parsed {
        Ok(c) => json!({ "ok": true, "format": c.format.as_str(), "notes": c.notes }),
        Err(e) => json!({ "ok": false, "error": { "line": e.line, "message": e.message } }),
    };
    let (must, must_passed) = rubric
        .map(|r| {
            let must: Vec<_> = r.items.iter().filter(|i| i.must_have).collect();
            (must.len(), must.iter().filter(|i| i.passed).count())
        })
        .unwrap_or((0, 0));
    json!({
        "task": { "name": task.name, "kind": task.kind, "domain": task.domain, "source": task.source },
        "solution": path,
        "response": response,
        "passed": rubric.is_some_and(Rubric::passed),
        "must_have": { "passed": must_passed, "total": must },
        "items": rubric.map(|r| serde_json::to_value(&r.items).expect("json")).unwrap_or(json!([])),
    })
}

fn report_text(
    task: &Loaded,
    path: &str,
    parsed: &Result<Candidate, ResponseError>,
    rubric: Option<&Rubric>,
) -> String {
    let mut out =
        format!("task      {} ({}, {}; {})\nsolution  {path}\n", task.name, task.kind, task.domain, task.source);
    match parsed {
        Err(e) => {
            out.push_str(&format!("response  ✗ cannot be read: {e}\n\nFAIL: the response could not be read\n"));
            return out;
        }
        Ok(c) => {
            out.push_str(&format!("response  read as {}", c.format.as_str()));
            if !c.notes.is_empty() {
                out.push_str(&format!(" ({})", c.notes.join("; ")));
            }
            out.push_str("\n\n");
        }
    }
    let Some(r) = rubric else { return out };
    let width = r.items.iter().map(|i| i.id.len()).max().unwrap_or(0);
    for i in &r.items {
        let mark = if i.passed { "✓" } else { "✗" };
        let level = if i.must_have { "must" } else { "nice" };
        let at = i.line.map(|l| format!("line {l}: ")).unwrap_or_default();
        out.push_str(&format!("{mark} {level}  {:width$}  {}\n", i.id, i.title));
        out.push_str(&format!("  {:>width$}        {at}{}\n", "", i.reason, width = width));
    }
    let failed: Vec<&str> = r.failed_must_haves().map(|i| &*i.id).collect();
    let must = r.items.iter().filter(|i| i.must_have).count();
    if r.item("compilation").is_some_and(|i| !i.passed) {
        out.push_str("\nFAIL: the solution does not compile; the other items were not checked\n");
    } else if failed.is_empty() {
        out.push_str(&format!("\nPASS: all {must} must-have items pass\n"));
    } else {
        out.push_str(&format!("\nFAIL: {} of {must} must-have items fail ({})\n", failed.len(), failed.join(", ")));
    }
    out
}

/// Read the response: at most 2 MB, UTF-8.
fn read_response(path: &str) -> Result<String, Failure> {
    let mut bytes = Vec::new();
    let limit = MAX_RESPONSE_BYTES as u64 + 1;
    let res = if path == "-" {
        std::io::stdin().take(limit).read_to_end(&mut bytes)
    } else {
        let f =
            std::fs::File::open(path).map_err(|e| Failure::Usage(format!("cannot read the solution {path}: {e}")))?;
        if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
            return Err(Failure::Usage(format!("the solution {path} is a directory; expected a file")));
        }
        f.take(limit).read_to_end(&mut bytes)
    };
    res.map_err(|e| Failure::Usage(format!("cannot read the solution {path}: {e}")))?;
    if bytes.len() as u64 >= limit {
        return Err(Failure::Other(format!(
            "the solution {path} is larger than {MAX_RESPONSE_BYTES} bytes (2 MB); expected one Python file or response"
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Failure::Other(format!(
            "the solution {path} is not UTF-8 text (invalid byte at offset {at}); expected Python source"
        ))
    })
}

/// The spec flags other than kind and domain (they cannot be combined with a task file).
fn other_spec_flags(m: &ArgMatches) -> Vec<String> {
    KNOBS
        .iter()
        .filter(|k| k.key != "kind" && k.key != "domain" && m.get_one::<String>(k.key).is_some())
        .map(|k| format!("--{}", k.flag()))
        .collect()
}

fn load_task(m: &ArgMatches) -> Result<Loaded, Failure> {
    let Some(file) = m.get_one::<String>("task-file") else {
        if m.get_one::<String>("task-name").is_some() {
            return Err(Failure::Usage("--task-name needs --task-file".into()));
        }
        let spec = spec_from(m).map_err(Failure::Usage)?;
        let task = crate::generate(&spec).map_err(|e| Failure::Usage(e.to_string()))?;
        return Ok(Loaded {
            name: task.name,
            kind: spec.kind,
            domain: spec.domain,
            starter: task.starter_code,
            reference: task.solution_code,
            source: "generated from the spec flags",
        });
    };
    let others = other_spec_flags(m);
    if !others.is_empty() {
        return Err(Failure::Usage(format!(
            "{} cannot be combined with --task-file (only --kind and --domain can, to override the record's)",
            others.join(", ")
        )));
    }
    let value = read_task_file(file)?;
    let record = pick_record(file, value, m.get_one::<String>("task-name").map(String::as_str))?;
    let field = |key: &str| -> Result<String, Failure> {
        record.get(key).and_then(Value::as_str).map(str::to_string).ok_or_else(|| {
            Failure::Usage(format!(
                "{file}: the task record has no `{key}` string; expected a Cabrito task or a reference record"
            ))
        })
    };
    let starter = field("starter_code")?;
    let reference = field("solution_code")?;
    let name = record.get("name").and_then(Value::as_str).unwrap_or("").to_string();
    let spec = record.get("spec");
    let from_spec = |key: &str| spec.and_then(|s| s.get(key)).and_then(Value::as_str).map(str::to_string);
    let source = if spec.is_some() { "Cabrito task file" } else { "reference task record" };
    let (name_domain, name_kind) = infer_from_name(&name);
    let kind = match m.get_one::<String>("kind").cloned().or_else(|| from_spec("kind")) {
        Some(k) => Kind::parse(&k).ok_or_else(|| {
            Failure::Usage(format!("unknown kind `{k}`; kind must be one of {}", Kind::NAMES.join(", ")))
        })?,
        None => name_kind.ok_or_else(|| {
            Failure::Usage(format!(
                "{file}: cannot tell the task kind from the name `{name}`; give --kind ({})",
                Kind::NAMES.join("|")
            ))
        })?,
    };
    let domain = match m.get_one::<String>("domain").cloned().or_else(|| from_spec("domain")) {
        Some(d) => Domain::parse(&d).ok_or_else(|| {
            Failure::Usage(format!("unknown domain `{d}`; domain must be one of {}", Domain::NAMES.join(", ")))
        })?,
        None => name_domain.ok_or_else(|| {
            Failure::Usage(format!(
                "{file}: cannot tell the domain from the name `{name}`; give --domain ({})",
                Domain::NAMES.join("|")
            ))
        })?,
    };
    Ok(Loaded { name, kind, domain, starter, reference, source })
}

/// `<domain>_<task set rest>_<task_type>_<dag_id>` → (domain, kind), each when recognisable.
fn infer_from_name(name: &str) -> (Option<Domain>, Option<Kind>) {
    let domain = name.split('_').next().and_then(Domain::parse);
    let kind = Kind::ALL.iter().copied().find(|k| name.contains(&format!("_{}_", k.as_str())));
    (domain, kind)
}

fn read_task_file(file: &str) -> Result<Value, Failure> {
    const MAX_TASK_BYTES: u64 = 512 * 1024 * 1024;
    let f = std::fs::File::open(file).map_err(|e| Failure::Usage(format!("cannot read the task file {file}: {e}")))?;
    let mut text = String::new();
    let read = if Path::new(file).extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(f).take(MAX_TASK_BYTES).read_to_string(&mut text)
    } else {
        f.take(MAX_TASK_BYTES).read_to_string(&mut text)
    };
    read.map_err(|e| Failure::Usage(format!("cannot read the task file {file}: {e}")))?;
    serde_json::from_str(&text).map_err(|e| Failure::Usage(format!("{file} is not valid JSON: {e}")))
}

fn pick_record(file: &str, value: Value, wanted: Option<&str>) -> Result<Value, Failure> {
    let matches = |r: &Value, w: &str| {
        r.get("name").and_then(Value::as_str) == Some(w) || r.get("dag_id").and_then(Value::as_str) == Some(w)
    };
    match value {
        Value::Array(records) => {
            if let Some(w) = wanted {
                return records
                    .into_iter()
                    .find(|r| matches(r, w))
                    .ok_or_else(|| Failure::Usage(format!("{file}: no record has the name or dag_id `{w}`")));
            }
            match records.len() {
                0 => Err(Failure::Usage(format!("{file} holds no task records"))),
                1 => Ok(records.into_iter().next().expect("one record")),
                n => {
                    let names: Vec<&str> =
                        records.iter().take(5).filter_map(|r| r.get("name").and_then(Value::as_str)).collect();
                    Err(Failure::Usage(format!(
                        "{file} holds {n} task records; choose one with --task-name (e.g. {})",
                        names.join(", ")
                    )))
                }
            }
        }
        Value::Object(_) => match wanted {
            Some(w) if !matches(&value, w) => Err(Failure::Usage(format!("{file}: the record is not `{w}`"))),
            _ => Ok(value),
        },
        _ => Err(Failure::Usage(format!("{file}: expected a task record (a JSON object) or an array of them"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            infer_from_name("math_function_add_parameter_14c62aba-89c2"),
            (Some(Domain::Math), Some(Kind::AddParameter))
        );
        assert_eq!(
            infer_from_name("string_constraints_extract_helper_x"),
            (Some(Domain::String), Some(Kind::ExtractHelper))
        );
        assert_eq!(infer_from_name("whatever"), (None, None));
    }
}
