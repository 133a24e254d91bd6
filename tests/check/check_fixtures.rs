//! The static rubric on the reference implementation's own task records (D11): every reference
//! solution passes all must-haves, every starter fails one; the recorded responses read back through
//! the file-block parser.

#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::response::parse_response;
use cabrito_check::rubric::{static_checks, TaskRef};
use cabrito_gen::{Axis, Domain, Kind};
use flate2::read::GzDecoder;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::guard;
use guard::fixtures;

fn gunzip(path: &Path) -> String {
    let mut s = String::new();
    GzDecoder::new(std::fs::File::open(path).unwrap()).read_to_string(&mut s).unwrap();
    s
}

/// A bucket's axis: the axis whose experiment name starts it (the first axis otherwise).
fn axis_of(bucket: &str) -> Axis {
    Axis::ALL.iter().copied().find(|a| bucket.starts_with(a.experiment())).unwrap_or(Axis::ALL[0])
}

/// `<domain>_<anything>` task set → domain.
fn domain_of(task_set: &str) -> Domain {
    Domain::parse(task_set.split('_').next().unwrap()).unwrap()
}

fn task_files(bucket: &str) -> Vec<(PathBuf, Domain, Kind)> {
    let mut out = Vec::new();
    let dir = fixtures().join(bucket).join("tasks");
    let Ok(sets) = std::fs::read_dir(&dir) else { return out };
    for set in sets.flatten() {
        let set_name = set.file_name().to_string_lossy().to_string();
        for f in std::fs::read_dir(set.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            let Some(kind) = name.strip_suffix(".json.gz").and_then(Kind::parse) else { continue };
            out.push((f.path(), domain_of(&set_name), kind));
        }
    }
    out.sort();
    out
}

/// `starter_fails`: the static rubric alone tells the starter apart.
fn check_bucket(bucket: &str, starter_fails: bool) -> usize {
    if !guard::fixture(&fixtures().join(bucket).join("tasks")) {
        return 0;
    }
    let files = task_files(bucket);
    assert!(!files.is_empty(), "{}/{bucket}/tasks holds no task files", fixtures().display());
    // Responses by (name, dag_id) → output.
    let mut responses: HashMap<(String, String), String> = HashMap::new();
    for which in ["solution", "starter"] {
        let p = fixtures().join(bucket).join("responses").join(format!("{which}.jsonl.gz"));
        for line in gunzip(&p).lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let key = (format!("{which}:{}", v["name"].as_str().unwrap()), v["dag_id"].as_str().unwrap().to_string());
            responses.insert(key, v["output"].as_str().unwrap().to_string());
        }
    }
    let mut n = 0;
    for (path, domain, kind) in files {
        let records: Vec<Value> = serde_json::from_str(&gunzip(&path)).unwrap();
        for rec in records {
            let name = rec["name"].as_str().unwrap();
            let dag = rec["dag_id"].as_str().unwrap().to_string();
            let starter = rec["starter_code"].as_str().unwrap();
            let reference = rec["solution_code"].as_str().unwrap();
            let task = TaskRef { kind, domain, axis: axis_of(bucket), starter, reference, metadata: &rec["metadata"] };
            let r = static_checks(&task, reference);
            let failed: Vec<String> = r.failed_must_haves().map(|i| format!("{}: {}", i.id, i.reason)).collect();
            assert!(r.passed(), "{bucket} {name}: reference fails {failed:?}");
            let s = static_checks(&task, starter);
            assert!(!starter_fails || !s.passed(), "{bucket} {name}: the starter passes every must-have");
            // The recorded responses: the reference's own file-block serialisation.
            // The rubric is a function of the code: a response that reads back byte for byte as the
            // reference (or the starter) has its verdict already, and only a differing one is checked again.
            let out = &responses[&(format!("solution:{name}"), dag.clone())];
            let c = parse_response(out, starter).unwrap();
            assert_eq!(c.code.trim_end(), reference.trim_end(), "{name}");
            assert!(c.code == reference || static_checks(&task, &c.code).passed());
            let out = &responses[&(format!("starter:{name}"), dag)];
            let c = parse_response(out, starter).unwrap();
            assert!(c.code == starter || static_checks(&task, &c.code) == s, "{name}: the starter's response");
            n += 1;
        }
    }
    n
}

#[test]
fn traversal_fixtures() {
    let n = check_bucket("function_traversal_en25", true);
    assert!(n == 0 || n == 30, "{n}");
}

#[test]
fn search_fixtures() {
    let n = check_bucket("function_search_cn200", true);
    assert!(n == 0 || n == 30, "{n}");
}

#[test]
fn runtime_fixtures() {
    let n = check_bucket("runtime_resolution_ifhops200", true);
    assert!(n == 0 || n == 30, "{n}");
}

#[test]
fn instruction_fixtures() {
    let n = check_bucket("add_instructions_nc200", true);
    assert!(n == 0 || n == 24, "{n}");
}

/// The reference scorer's own verdicts on `compilation`, `function_existence`, `edit_path` and, on the
/// runtime axis, `branch_placement` (recorded in
/// verdicts.json for the reference solution and the starter of every sampled task) agree with ours.
fn verdict_parity(bucket: &str) -> usize {
    let path = fixtures().join(bucket).join("verdicts.json");
    if !guard::fixture(&path) {
        return 0;
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let verdicts: Vec<Value> = serde_json::from_str(&text).unwrap();
    let mut records: HashMap<(String, String), Vec<Value>> = HashMap::new();
    let mut compared = 0;
    for v in verdicts {
        let (set, ty) = (v["task_set"].as_str().unwrap(), v["task_type"].as_str().unwrap());
        let recs = records.entry((set.to_string(), ty.to_string())).or_insert_with(|| {
            let f = fixtures().join(bucket).join("tasks").join(set).join(format!("{ty}.json.gz"));
            serde_json::from_str(&gunzip(&f)).unwrap()
        });
        let rec = recs.iter().find(|r| r["dag_id"] == v["dag_id"]).expect("verdict for a sampled task");
        let (starter, reference) = (rec["starter_code"].as_str().unwrap(), rec["solution_code"].as_str().unwrap());
        let task = TaskRef {
            kind: Kind::parse(ty).unwrap(),
            domain: domain_of(set),
            axis: axis_of(bucket),
            starter,
            reference,
            metadata: &rec["metadata"],
        };
        let code = match v["response"].as_str().unwrap() {
            "solution" => reference,
            _ => starter,
        };
        let ours = static_checks(&task, code);
        for r in v["results"].as_array().unwrap() {
            let kind = r["kind"].as_str().unwrap();
            // branch_placement and constraint_structure are in the rubric on their axis only (off its axis
            // the reference passes constraint_structure as skipped).
            let ours_has = ours.item(kind).is_some();
            if kind == "constraint_structure" && !ours_has {
                assert_eq!(r["type"], "pass", "{bucket}: constraint_structure off its axis");
            }
            let compared_here = matches!(kind, "compilation" | "function_existence" | "edit_path")
                || (matches!(kind, "branch_placement" | "constraint_structure") && ours_has);
            if !compared_here {
                continue;
            }
            let theirs = r["type"].as_str().unwrap();
            let mine = ours.reference_type(kind).unwrap();
            assert_eq!(mine, theirs, "{bucket} {} {set} {ty} {}: {kind}", v["response"], v["dag_id"]);
            compared += 1;
        }
    }
    compared
}

#[test]
fn reference_verdicts_agree() {
    let n: usize =
        ["function_traversal_en25", "function_search_cn200", "runtime_resolution_ifhops200", "add_instructions_nc200"]
            .iter()
            .map(|b| verdict_parity(b))
            .sum();
    // Three kinds of check on every verdict, a fourth on the runtime bucket's 60 (branch_placement) and
    // on the instructions bucket's 48 (constraint_structure).
    assert!(n == 0 || n == 3 * (60 + 60 + 60 + 48) + 60 + 48, "{n} verdicts compared");
}
