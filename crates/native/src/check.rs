//! `cabrito check`: read a response and run the static rubric on it, against a task given by its spec
//! flags or by a task file (a Cabrito task or a reference record, D11).
//!
//! Exit status: 0 when every must-have passes, 1 when one fails (or the response cannot be read), 2 on
//! usage errors (bad flags, unreadable files, records without the needed fields).

use super::cli::{spec_args, spec_from, Failure};
use super::records::{self, TaskRecord};
use cabrito_check::response::{parse_response, Candidate, ResponseError, MAX_RESPONSE_BYTES};
use cabrito_check::rubric::{static_checks, Rubric, TaskRef};
use cabrito_gen::spec::KNOBS;
use cabrito_gen::{Axis, Domain, Kind};
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
             reference record are read from its place in the layout (`<task_set>/<task_type>.json`) and its name \
             (`<domain>_function_<task_type>_<dag_id>`), which must agree; --kind and --domain choose.\n\n\
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
    axis: Axis,
    starter: String,
    reference: String,
    metadata: Value,
    source: &'static str,
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let task = load_task(m)?;
    let path = m.get_one::<String>("solution").map(String::as_str).unwrap_or("-");
    let text = read_response(path)?;
    let task_ref = TaskRef {
        kind: task.kind,
        domain: task.domain,
        axis: task.axis,
        starter: &task.starter,
        reference: &task.reference,
        metadata: &task.metadata,
    };
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
    let domain = match task.kind.def().domains() {
        cabrito_gen::spec::Support::Only(_) => format!(", {}", task.domain),
        cabrito_gen::spec::Support::NotApplicable => String::new(),
    };
    let mut out = format!("task      {} ({}{domain}; {})\nsolution  {path}\n", task.name, task.kind, task.source);
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

/// Read the response: at most 2 MB, decoded as `python file.py` would read it (a byte-order mark dropped,
/// a coding line honoured, undecodable bytes refused outside comments).
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
    match cabrito_check::source::decode(&bytes) {
        Ok(d) => Ok(d.text.into_owned()),
        Err(e) => Err(Failure::Other(format!("the solution {path} cannot be read: {e}"))),
    }
}

/// The spec flags other than kind and domain (they cannot be combined with a task file).
fn other_spec_flags(m: &ArgMatches) -> Vec<String> {
    KNOBS
        .iter()
        .filter(|k| !["kind", "domain", "axis"].contains(&k.key) && m.get_one::<String>(k.key).is_some())
        .map(|k| format!("--{}", k.flag()))
        .collect()
}

fn load_task(m: &ArgMatches) -> Result<Loaded, Failure> {
    let Some(file) = m.get_one::<String>("task-file") else {
        if m.get_one::<String>("task-name").is_some() {
            return Err(Failure::Usage("--task-name needs --task-file".into()));
        }
        let spec = spec_from(m).map_err(Failure::Usage)?;
        let task = cabrito_gen::generate(&spec).map_err(|e| Failure::Usage(e.to_string()))?;
        return Ok(Loaded {
            name: task.name,
            kind: spec.kind,
            domain: spec.domain,
            axis: spec.axis,
            starter: task.starter_code,
            reference: task.solution_code,
            metadata: task.metadata,
            source: "generated from the spec flags",
        });
    };
    let others = other_spec_flags(m);
    if !others.is_empty() {
        return Err(Failure::Usage(format!(
            "{} cannot be combined with --task-file (only --kind, --domain and --axis can, to override the record's)",
            others.join(", ")
        )));
    }
    let path = Path::new(file);
    let records = records::read_task_records(path).map_err(Failure::Usage)?;
    let record = pick_record(file, &records, m.get_one::<String>("task-name").map(String::as_str))?;
    let missing = |key: &str| {
        Failure::Usage(format!(
            "{file}: the task record has no `{key}` string; expected a Cabrito task or a reference record"
        ))
    };
    let starter = record.starter.clone().ok_or_else(|| missing("starter_code"))?;
    let reference = record.reference.clone().ok_or_else(|| missing("solution_code"))?;
    let source = if record.spec.is_some() { "Cabrito task file" } else { "reference task record" };
    let parse_kind = |k: &String| {
        Kind::parse(k).ok_or_else(|| {
            Failure::Usage(format!("unknown kind `{k}`; kind must be one of {}", Kind::NAMES.join(", ")))
        })
    };
    let parse_domain = |d: &String| {
        Domain::parse(d).ok_or_else(|| {
            Failure::Usage(format!("unknown domain `{d}`; domain must be one of {}", Domain::NAMES.join(", ")))
        })
    };
    let parse_axis = |a: &String| {
        Axis::parse(a).ok_or_else(|| {
            Failure::Usage(format!("unknown axis `{a}`; axis must be one of {}", Axis::NAMES.join(", ")))
        })
    };
    let kind = m.get_one::<String>("kind").map(parse_kind).transpose();
    let domain = m.get_one::<String>("domain").map(parse_domain).transpose();
    let chosen_axis = m.get_one::<String>("axis").map(parse_axis).transpose();
    // Every bad flag is named at once.
    let bad: Vec<String> = [kind.as_ref().err(), domain.as_ref().err(), chosen_axis.as_ref().err()]
        .into_iter()
        .flatten()
        .map(|f| match f {
            Failure::Usage(s) | Failure::Other(s) => s.clone(),
        })
        .collect();
    if !bad.is_empty() {
        return Err(Failure::Usage(super::cli::every_problem(&bad)));
    }
    let (chosen, chosen_axis) = ((kind?, domain?), chosen_axis?);
    // The file's place in the reference layout (`…/<task_set>/<task_type>.json`), the record's spec and
    // its name all say what it is; they must agree (or --kind/--domain choose).
    let place = records::place_of_path(path);
    let (kind, domain) = records::kind_and_domain(record, place.as_ref(), chosen, file).map_err(Failure::Usage)?;
    // The axis: --axis, else the record's spec, else the run folder of the layout (a spec and a run that
    // disagree are an error), else the first axis.
    let axis = match chosen_axis {
        Some(a) => a,
        None => records::axis_of(record, place.as_ref(), file).map_err(Failure::Usage)?,
    };
    let metadata = record.metadata.clone();
    Ok(Loaded { name: record.name.clone(), kind, domain, axis, starter, reference, metadata, source })
}

fn pick_record<'a>(file: &str, records: &'a [TaskRecord], wanted: Option<&str>) -> Result<&'a TaskRecord, Failure> {
    if let Some(w) = wanted {
        // The name first, then the dag_id; several records with it is an error listing them.
        // Merge records have no names of their own: say how they are named.
        let merge_hint = match records.first() {
            Some(r) if records::is_merge_run(&r.name) => format!(
                "; merge records are named by position: task_00000 … task_{:05}",
                records.len().saturating_sub(1)
            ),
            _ => String::new(),
        };
        return records::find_record(records, Some(w), None, file)
            .or_else(|_| records::find_record(records, None, Some(w), file))
            .map_err(|e| {
                Failure::Usage(format!(
                    "{}{merge_hint}",
                    e.replace(
                        &format!("no task with dag_id '{w}'"),
                        &format!("no record has the name or dag_id `{w}`"),
                    )
                ))
            });
    }
    match records {
        [] => Err(Failure::Usage(format!("{file} holds no task records"))),
        [one] => Ok(one),
        many => {
            let names: Vec<&str> = many.iter().take(5).map(|r| r.name.as_str()).collect();
            Err(Failure::Usage(format!(
                "{file} holds {} task records; choose one with --task-name (e.g. {})",
                many.len(),
                names.join(", ")
            )))
        }
    }
}

/// What `cabrito check --task-file … --json` prints, for a task record given as JSON (a Cabrito task
/// or a reference record, D11) and a response already read: the bindings' `check`. `chosen` are the
/// `--kind`, `--domain` and `--axis` overrides; `label` names the response in the report. Errors are
/// the CLI's usage messages.
pub fn check_value(
    record: &Value,
    text: &str,
    chosen: (Option<&str>, Option<&str>, Option<&str>),
    label: &str,
) -> Result<Value, String> {
    let task = loaded_of_value(record, chosen)?;
    let task_ref = TaskRef {
        kind: task.kind,
        domain: task.domain,
        axis: task.axis,
        starter: &task.starter,
        reference: &task.reference,
        metadata: &task.metadata,
    };
    let parsed = parse_response(text, &task.starter);
    let rubric = parsed.as_ref().ok().map(|c| static_checks(&task_ref, &c.code));
    Ok(report_json(&task, label, &parsed, rubric.as_ref()))
}

/// A task record given as JSON, read as `cabrito check --task-file` reads one record of its file
/// (without a place in the layout: the record's spec and name say what it is).
fn loaded_of_value(value: &Value, chosen: (Option<&str>, Option<&str>, Option<&str>)) -> Result<Loaded, String> {
    const WHERE: &str = "the task";
    if !value.is_object() {
        return Err(format!("{WHERE}: expected a task record (a JSON object)"));
    }
    let record = records::task_record(value);
    let missing = |key: &str| {
        format!("{WHERE}: the task record has no `{key}` string; expected a Cabrito task or a reference record")
    };
    let starter = record.starter.clone().ok_or_else(|| missing("starter_code"))?;
    let reference = record.reference.clone().ok_or_else(|| missing("solution_code"))?;
    let source = if record.spec.is_some() { "Cabrito task file" } else { "reference task record" };
    let kind = chosen
        .0
        .map(|k| {
            Kind::parse(k).ok_or_else(|| format!("unknown kind `{k}`; kind must be one of {}", Kind::NAMES.join(", ")))
        })
        .transpose()?;
    let domain = chosen
        .1
        .map(|d| {
            Domain::parse(d)
                .ok_or_else(|| format!("unknown domain `{d}`; domain must be one of {}", Domain::NAMES.join(", ")))
        })
        .transpose()?;
    let (kind, domain) = records::kind_and_domain(&record, None, (kind, domain), WHERE)?;
    let axis = match chosen.2 {
        Some(a) => Axis::parse(a)
            .ok_or_else(|| format!("unknown axis `{a}`; axis must be one of {}", Axis::NAMES.join(", ")))?,
        None => records::axis_of(&record, None, WHERE)?,
    };
    let metadata = record.metadata.clone();
    Ok(Loaded { name: record.name.clone(), kind, domain, axis, starter, reference, metadata, source })
}

/// A task record given as JSON, as the grader takes it (the bindings' `grade`).
pub fn grade_task_of_value(
    value: &Value,
    chosen: (Option<&str>, Option<&str>, Option<&str>),
) -> Result<(cabrito_check::grade::GradeTask, String, String), String> {
    let task = loaded_of_value(value, chosen)?;
    let record = records::task_record(value);
    let key = if record.dag_id.is_empty() { record.name.clone() } else { record.dag_id.clone() };
    let grade = cabrito_check::grade::GradeTask {
        kind: task.kind,
        domain: task.domain,
        axis: task.axis,
        starter: task.starter,
        reference: task.reference,
        key,
        metadata: task.metadata,
    };
    Ok((grade, record.name, record.dag_id))
}

/// Decode a response's bytes as `cabrito check` reads its `--solution` file (at most 2 MB; a
/// byte-order mark dropped, a coding line honoured).
pub fn decode_response(bytes: &[u8], label: &str) -> Result<String, String> {
    if bytes.len() > MAX_RESPONSE_BYTES {
        return Err(format!(
            "the solution {label} is larger than {MAX_RESPONSE_BYTES} bytes (2 MB); expected one Python file or response"
        ));
    }
    cabrito_check::source::decode(bytes)
        .map(|d| d.text.into_owned())
        .map_err(|e| format!("the solution {label} cannot be read: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(name: &str, dag: &str, index: usize) -> TaskRecord {
        TaskRecord {
            name: name.into(),
            dag_id: dag.into(),
            starter: None,
            reference: None,
            spec: None,
            metadata: Value::Null,
            index,
        }
    }

    #[test]
    fn picking_a_record() {
        let recs = [rec("a", "d1", 0), rec("b", "d2", 1)];
        assert_eq!(pick_record("f", &recs, Some("b")).unwrap().index, 1);
        assert_eq!(pick_record("f", &recs, Some("d1")).unwrap().index, 0);
        assert!(pick_record("f", &recs, None).is_err());
        assert!(pick_record("f", &recs, Some("zz")).is_err());
        let dup = [rec("a", "d", 0), rec("b", "d", 1)];
        let Err(Failure::Usage(e)) = pick_record("f", &dup, Some("d")) else { panic!("ambiguous") };
        assert!(e.contains("matches 2 records"), "{e}");
    }
}
