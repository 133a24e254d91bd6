//! Reading results and aggregating them: a small hand-computed set in the reference's format and
//! in Cabrito's, gzipped and plain, malformed lines reported with their line number and skipped,
//! and the reference's own verdicts (the fixtures) for every axis of the paper.

use crate::guard;

use cabrito_analysis::results::read::{Dataset, FileRole};
use cabrito_analysis::results::runs::format_n;
use cabrito_analysis::results::{
    aggregate,
    aggregate::{Facet, Filter, Series},
};
use serde_json::{json, Value};
use std::io::Write;

const T5: &str = "function_traversal_cn=(25,25)_en=(5,5)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)";
const S5: &str = "function_search_cn=(5,5)_en=(25,25)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)";
const R10: &str = "runtime_resolution_n=(10,10)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)_ifhops=10";

fn counts(p: u32, f: u32, e: u32) -> Value {
    json!({"pass": p, "fail": f, "error": e, "pass_rate": if p + f + e > 0 { p as f64 / (p + f + e) as f64 } else { 0.0 }})
}

/// A reference result record with the given check counts (plus the diagnostic edit_path failing).
fn rec(name: &str, dag: &str, checks: &[(&str, u32, u32, u32)]) -> String {
    let mut summary = serde_json::Map::new();
    let mut results = Vec::new();
    for &(k, p, f, e) in checks {
        summary.insert(k.into(), counts(p, f, e));
        let t = if e > 0 {
            "error"
        } else if f > 0 {
            "fail"
        } else {
            "pass"
        };
        results.push(json!({"kind": k, "type": t, "metadata": {}}));
    }
    summary.insert("edit_path".into(), counts(0, 1, 0));
    results.push(json!({"kind": "edit_path", "type": "fail", "metadata": {}}));
    json!({"name": name, "dag_id": dag, "parsed_ok": true, "summary": summary, "results": results}).to_string()
}

fn skipped(name: &str, dag: &str) -> String {
    json!({"name": name, "dag_id": dag, "parsed_ok": false, "skipped": true, "summary": {}, "results": []}).to_string()
}

fn gz(text: &str) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

fn reference_files(gzip_search: bool) -> Vec<(String, Vec<u8>)> {
    let ap = |d: &str| format!("math_function_add_parameter_{d}");
    let dc = |d: &str| format!("string_function_dead_code_{d}");
    let t5_ap = [
        rec(&ap("d1"), "d1", &[("behavioral", 1, 0, 0)]),
        "this line is not JSON".to_string(),
        rec(&ap("d2"), "d2", &[("behavioral", 1, 0, 0)]),
        "[1, 2]".to_string(),
        json!({"parsed_ok": true}).to_string(),
        String::new(),
        rec(&ap("d3"), "d3", &[("behavioral", 0, 1, 0)]),
    ]
    .join("\n");
    let t5_dc = [
        rec(&dc("d1"), "d1", &[("behavioral", 1, 0, 0), ("function_existence", 1, 0, 0)]),
        rec(&dc("d2"), "d2", &[("behavioral", 1, 0, 0), ("function_existence", 1, 0, 0)]),
        skipped(&dc("d3"), "d3"),
    ]
    .join("\n");
    let ch = |d: &str| format!("array_function_cache_function_{d}");
    let s5 = [
        rec(&ch("e1"), "e1", &[("behavioral", 0, 0, 1)]),
        rec(&ch("e2"), "e2", &[("behavioral", 1, 0, 0)]),
        // The same task again: the last record wins, as in the reference's readers.
        rec(&ch("e1"), "e1", &[("behavioral", 1, 0, 0)]),
    ]
    .join("\n");
    let r10 = [
        rec(&ap("f1"), "f1", &[("behavioral", 1, 0, 0), ("branch_placement", 1, 0, 0)]),
        rec(&ap("f2"), "f2", &[("behavioral", 1, 0, 0), ("branch_placement", 0, 1, 0)]),
    ]
    .join("\n");
    let s5_path = format!("results/{S5}/array_function/cache_function/copilot/model-b.jsonl");
    vec![
        (format!("local_data/results/{T5}/math_function/add_parameter/code/model-a.jsonl"), t5_ap.into_bytes()),
        (format!("local_data/results/{T5}/string_function/dead_code/code/model-a.jsonl"), t5_dc.into_bytes()),
        (format!("local_data/results/{T5}/string_function/dead_code/code/model-a.meta.json"), b"{}".to_vec()),
        if gzip_search { (format!("{s5_path}.gz"), gz(&s5)) } else { (s5_path, s5.into_bytes()) },
        (format!("results/{R10}/math_function/add_parameter/code/model-a.jsonl"), r10.into_bytes()),
    ]
}

fn load(files: &[(String, Vec<u8>)]) -> Dataset {
    let mut ds = Dataset::new();
    let set = ds.add_set("runs");
    for (p, b) in files {
        ds.add_file(set, p, b);
    }
    ds
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-4
}

fn find<'a>(
    points: &'a [aggregate::Point],
    model: &str,
    axis: &str,
    kind: &str,
    domain: &str,
    n: &str,
) -> &'a aggregate::Point {
    points
        .iter()
        .find(|p| {
            &*p.series.model == model
                && &*p.axis == axis
                && &*p.kind == kind
                && &*p.domain == domain
                && format_n(p.n) == n
        })
        .unwrap_or_else(|| panic!("no point {model} {axis} {kind} {domain} {n} in {points:#?}"))
}

#[test]
fn a_hand_computed_reference_set() {
    let ds = load(&reference_files(false));
    // Malformed lines: reported with file and line, and only they are skipped.
    let lines: Vec<(usize, &str)> = ds.problems.iter().map(|p| (p.line.unwrap_or(0), p.message.as_str())).collect();
    assert_eq!(lines.len(), 3, "{:#?}", ds.problems);
    assert_eq!(lines[0].0, 2);
    assert!(lines[0].1.contains("not a JSON object"));
    assert_eq!(lines[1].0, 4);
    assert_eq!(lines[2].0, 5);
    assert!(lines[2].1.contains("neither 'name' nor 'dag_id'"));
    assert!(ds.problems[0].file.ends_with("add_parameter/code/model-a.jsonl"));
    assert_eq!(ds.records.len(), 3 + 3 + 2 + 2);
    assert_eq!(ds.files.iter().filter(|f| f.role == FileRole::Skipped).count(), 1, "the .meta.json file");

    let all = aggregate::accuracy(&ds, Facet::All, &Filter::default());
    // model-a, traversal n=5: add_parameter 2/3, dead_code 2/3 (the unparsed one fails) → 4/6.
    let p = find(&all, "code/model-a", "traversal", "all", "all", "5");
    assert_eq!((p.tasks, p.passed), (6, 4));
    assert!(close(p.lo, 0.299993) && close(p.hi, 0.903229), "{p:?}");
    // The runtime rule needs branch_placement: 1/2.
    let p = find(&all, "code/model-a", "runtime", "all", "all", "10");
    assert_eq!((p.tasks, p.passed), (2, 1));
    assert!(close(p.lo, 0.094531) && close(p.hi, 0.905469));
    // model-b, search n=5: the duplicate counts once, with its last outcome: 2/2.
    let p = find(&all, "copilot/model-b", "search", "all", "all", "5");
    assert_eq!((p.tasks, p.passed), (2, 2));

    let by_kind = aggregate::accuracy(&ds, Facet::Kind, &Filter::default());
    let p = find(&by_kind, "code/model-a", "traversal", "dead_code", "all", "5");
    assert_eq!((p.tasks, p.passed), (3, 2));
    assert!(close(p.lo, 0.207660) && close(p.hi, 0.938508));
    let by_domain = aggregate::accuracy(&ds, Facet::Domain, &Filter::default());
    assert_eq!(find(&by_domain, "code/model-a", "traversal", "all", "math", "5").passed, 2);
    assert_eq!(find(&by_domain, "copilot/model-b", "search", "all", "array", "5").tasks, 2);

    // The checks that fail: behavioral once at traversal n=5, the unreadable response once,
    // edit_path always (diagnostic, but it does fail).
    let rates = aggregate::check_failures(&ds, &Filter::default());
    let rate = |check: &str| {
        rates
            .iter()
            .find(|r| &*r.series.model == "code/model-a" && &*r.axis == "traversal" && &*r.check == check)
            .map(|r| (r.tasks, r.failed))
    };
    assert_eq!(rate("behavioral"), Some((5, 1)));
    assert_eq!(rate("response_unreadable"), Some((6, 1)));
    assert_eq!(rate("edit_path"), Some((5, 5)));
    assert_eq!(aggregate::worst_checks(&rates)[0].0.as_ref(), "edit_path");
}

#[test]
fn gzipped_and_plain_files_read_the_same() {
    let plain = load(&reference_files(false));
    let zipped = load(&reference_files(true));
    let strip = |ds: &Dataset| {
        ds.records.iter().map(|r| (r.model.to_string(), r.name.clone(), r.passed, r.n)).collect::<Vec<_>>()
    };
    assert_eq!(strip(&plain), strip(&zipped));
    let a = aggregate::accuracy(&plain, Facet::Kind, &Filter::default());
    let b = aggregate::accuracy(&zipped, Facet::Kind, &Filter::default());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((x.tasks, x.passed, x.n), (y.tasks, y.passed, y.n));
    }
    // A gzip stream named .jsonl is still read (the bytes decide), and a broken one is a problem.
    let mut files = reference_files(false);
    files[0].1 = gz(std::str::from_utf8(&files[0].1).unwrap());
    assert_eq!(load(&files).records.len(), plain.records.len());
    let mut ds = Dataset::new();
    ds.add_file(0, "results/x/math_function/add_parameter/code/m.jsonl.gz", &[0x1f, 0x8b, 8, 0, 1, 2, 3]);
    assert_eq!(ds.problems.len(), 1);
    assert!(ds.problems[0].message.contains("gzip"), "{:?}", ds.problems);
}

/// Cabrito's result records (`cabrito grade`): the same summary plus `score`, `message`,
/// `functions`; and its `summary.json`, used only for models without records.
#[test]
fn a_hand_computed_cabrito_set() {
    let run = "function_traversal_cn=(25,25)_en=(10,10)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)";
    let cab = |name: &str, dag: &str, score: u8, behavioural: &str| {
        json!({
            "name": name, "dag_id": dag, "parsed_ok": true,
            "summary": {"compilation": counts(1, 0, 0), "behavioral": if behavioural == "pass" { counts(1, 0, 0) } else { counts(0, 1, 0) }},
            "results": [{"kind": "compilation", "type": "pass", "metadata": {}, "message": ""},
                        {"kind": "behavioral", "type": behavioural, "metadata": {"total": 50}, "message": "x"}],
            "score": score, "message": if score == 1 { "" } else { "1 of 50 calls differ" }, "trials": 50, "format": "file",
            "functions": [{"name": "a", "status": "pass", "passed": 50, "failed": 0, "errored": 0, "first_failure": null}],
            "seconds": 0.1, "graded_by": "cabrito",
        })
        .to_string()
    };
    let lines = [
        cab("math_function_extract_helper_x1", "x1", 1, "pass"),
        cab("math_function_extract_helper_x2", "x2", 0, "fail"),
        cab("math_function_extract_helper_x3", "x3", 1, "pass"),
        json!({"name": "math_function_extract_helper_x4", "dag_id": "x4", "parsed_ok": false, "skipped": true, "summary": {}, "results": [], "score": 0, "error": "the response cannot be read: empty", "trials": 50, "graded_by": "cabrito"}).to_string(),
    ]
    .join("\n");
    let summary = json!({"rows": [
        // Rows of the model that also has records are not counted twice.
        {"model": "files/answers", "kind": "extract_helper", "domain": "math", "axis": "traversal", "n": "10", "tasks": 4, "passed": 2, "accuracy": 0.5, "wilson95": [0.15, 0.85]},
        // Rows of a model with no records are used as they are.
        {"model": "code/other", "kind": "extract_helper", "domain": "math", "axis": "traversal", "n": "10", "tasks": 9, "passed": 6, "accuracy": 0.667, "wilson95": [0.35, 0.88]},
        {"model": "code/other", "kind": "dead_code", "domain": "string", "axis": "search", "n": "?", "tasks": 3, "passed": 0},
        {"model": "broken", "tasks": 1, "passed": 5},
    ], "graded": 4, "reused": 0, "problems": 1, "seconds": 1.0, "isolation": "x"})
    .to_string();
    let ds = load(&[
        (format!("out/results/{run}/math_function/extract_helper/files/answers.jsonl"), lines.into_bytes()),
        ("out/summary.json".into(), summary.into_bytes()),
    ]);
    assert_eq!(ds.records.len(), 4);
    assert_eq!(ds.problems.len(), 1, "the impossible summary row: {:?}", ds.problems);
    let r = &ds.records[1];
    assert_eq!((&*r.kind, &*r.domain, &*r.axis, r.n), ("extract_helper", "math", "traversal", Some(10.0)));
    assert_eq!(r.message.as_deref(), Some("1 of 50 calls differ"));
    assert_eq!(ds.records[3].message.as_deref(), Some("the response cannot be read: empty"));
    let all = aggregate::accuracy(&ds, Facet::All, &Filter::default());
    let p = find(&all, "files/answers", "traversal", "all", "all", "10");
    assert_eq!((p.tasks, p.passed, p.records.len()), (4, 2, 4));
    assert!(close(p.lo, 0.150039) && close(p.hi, 0.849961));
    let p = find(&all, "code/other", "traversal", "all", "all", "10");
    assert_eq!((p.tasks, p.passed, p.records.len()), (9, 6, 0));
    assert!(close(p.lo, 0.354202) && close(p.hi, 0.879416));
    let p = find(&all, "code/other", "search", "all", "all", "?");
    assert_eq!((p.tasks, p.passed), (3, 0));
}

/// One file dropped on its own (no folder layout): the task set and type come from the task name,
/// the model from the file name; fields in the record win over both.
#[test]
fn a_lone_file_and_self_describing_records() {
    let lines = [rec("string_function_add_return_value_q1", "q1", &[("behavioral", 1, 0, 0)]), {
        let mut v: Value = serde_json::from_str(&rec("whatever", "q2", &[("behavioral", 1, 0, 0)])).unwrap();
        v["run_name"] = json!(S5);
        v["task_set"] = json!("array_function");
        v["task_type"] = json!("dead_code");
        v["model"] = json!("code/self");
        v.to_string()
    }]
    .join("\n");
    let ds = load(&[("gpt-x.jsonl".into(), lines.into_bytes())]);
    assert!(ds.problems.is_empty(), "{:?}", ds.problems);
    let a = &ds.records[0];
    assert_eq!(
        (&*a.model, &*a.task_set, &*a.kind, &*a.domain, &*a.axis, a.n),
        ("gpt-x", "string_function", "add_return_value", "string", "?", None)
    );
    let b = &ds.records[1];
    assert_eq!(
        (&*b.model, &*b.kind, &*b.domain, &*b.axis, b.n),
        ("code/self", "dead_code", "array", "search", Some(5.0))
    );
    assert!(!b.passed, "dead code needs function_existence");
}

/// Responses give each result its answer; task records give its link.
#[test]
fn answers_and_links_join() {
    let files = vec![
        (format!("d/results/{T5}/math_function/add_parameter/code/model-a.jsonl"), rec("math_function_add_parameter_d1", "d1", &[("behavioral", 1, 0, 0)]).into_bytes()),
        (
            format!("d/responses/{T5}/math_function/add_parameter/code/model-a.jsonl"),
            json!({"name": "math_function_add_parameter_d1", "dag_id": "d1", "output": "# === solution.py ===\nx = 1\n", "metadata": {}}).to_string().into_bytes(),
        ),
        (
            format!("d/tasks/{T5}/math_function/add_parameter.json"),
            json!([{"name": "math_function_add_parameter_d1", "dag_id": "d1", "spec": {"v": 1, "kind": "add_parameter", "domain": "math", "axis": "traversal", "n": 5, "seed": 3}}]).to_string().into_bytes(),
        ),
    ];
    let ds = load(&files);
    assert!(ds.problems.is_empty(), "{:?}", ds.problems);
    let r = &ds.records[0];
    assert_eq!(ds.answer_of(r), Some("# === solution.py ===\nx = 1\n"));
    assert_eq!(ds.link_of(r).as_deref(), Some("v=1&kind=add_parameter&domain=math&axis=traversal&n=5&seed=3"));
}

/// The reference's own verdicts on its solutions and starters, for all five experiments: every
/// solution scores 1 and no starter does (fixtures README), read through the paper's pass rules.
#[test]
fn the_reference_verdicts_aggregate_as_the_reference_says() {
    let root = guard::fixtures();
    if !guard::fixture(&root.join("manifest.json")) {
        return;
    }
    let manifest = std::fs::read_to_string(root.join("manifest.json")).unwrap();
    let manifest: Value = serde_json::from_str(&manifest).unwrap();
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut expect: Vec<(String, String, usize)> = Vec::new(); // (axis, n, tasks)
    for (bucket, m) in manifest.as_object().unwrap() {
        let run = m["run_name"].as_str().unwrap();
        let verdicts: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(root.join(bucket).join("verdicts.json")).unwrap()).unwrap();
        let mut by_file: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for v in &verdicts {
            let who = v["response"].as_str().unwrap();
            let path = match (v.get("task_set"), v.get("task_type")) {
                (Some(s), Some(t)) => {
                    format!("results/{run}/{}/{}/code/{who}.jsonl", s.as_str().unwrap(), t.as_str().unwrap())
                }
                _ => format!("results/{run}/code/{who}.jsonl"),
            };
            let record =
                json!({"dag_id": v["dag_id"], "parsed_ok": true, "summary": v["summary"], "results": v["results"]});
            by_file.entry(path).or_default().push(record.to_string());
        }
        for (p, lines) in by_file {
            files.push((p, lines.join("\n").into_bytes()));
        }
        let info = cabrito_analysis::results::runs::parse_run(run);
        expect.push((info.axis, format_n(info.n), verdicts.len() / 2));
    }
    let ds = load(&files);
    assert!(ds.problems.is_empty(), "{:?}", ds.problems);
    let all = aggregate::accuracy(&ds, Facet::All, &Filter::default());
    assert_eq!(all.len(), 2 * expect.len(), "{all:#?}");
    for (axis, n, tasks) in &expect {
        let sol = find(&all, "code/solution", axis, "all", "all", n);
        assert_eq!((sol.tasks, sol.passed), (*tasks, *tasks), "solutions on {axis}");
        let st = find(&all, "code/starter", axis, "all", "all", n);
        assert_eq!((st.tasks, st.passed), (*tasks, 0), "starters on {axis}");
    }
    let axes: Vec<&str> = expect.iter().map(|(a, _, _)| a.as_str()).collect();
    for a in ["traversal", "search", "runtime", "instructions", "merge"] {
        assert!(axes.contains(&a), "{a} missing from {axes:?}");
    }
    // Comparing the two: every task flipped, by 100 points, on every axis.
    let (a, b) = (Series { set: 0, model: "code/starter".into() }, Series { set: 0, model: "code/solution".into() });
    let diffs = aggregate::compare(&ds, &a, &b, Facet::All);
    assert_eq!(diffs.len(), expect.len());
    assert!(diffs.iter().all(|d| close(d.diff, 1.0) && d.lo > 0.0 && close(d.hi, 1.0)), "{diffs:#?}");
    let flips = aggregate::flips(&ds, &a, &b);
    assert_eq!(flips.len(), ds.records.len() / 2);
    assert!(flips.iter().all(|f| f.now_passes));
}

/// A lone file of Cabrito results (no folder, so no run name): the dag_ids give axis and n.
#[test]
fn a_lone_cabrito_file_is_placed_by_its_dag_ids() {
    use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
    let specs = [
        TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 10, 3),
        TaskSpec::new(Kind::DeadCode, Domain::String, Axis::Search, 50, 11),
    ];
    let lines: Vec<String> = specs
        .iter()
        .map(|s| {
            let t = cabrito_gen::generate(s).unwrap();
            rec(&t.name, &t.dag_id, &[("behavioral", 1, 0, 0), ("function_existence", 1, 0, 0)])
        })
        .collect();
    let mut ds = load(&[("answers.jsonl".into(), lines.join("\n").into_bytes())]);
    assert!(ds.records.iter().all(|r| &*r.axis == "?" && r.n.is_none()));
    let placed = cabrito_analysis::results::specs::place_unknown(
        &mut ds,
        &mut cabrito_analysis::results::specs::SpecFinder::new(100),
    );
    assert_eq!(placed, 2);
    assert_eq!((&*ds.records[0].axis, ds.records[0].n), ("traversal", Some(10.0)));
    assert_eq!((&*ds.records[1].axis, ds.records[1].n), ("search", Some(50.0)));
    assert_eq!(ds.link_of(&ds.records[1]).as_deref(), Some(specs[1].to_query().as_str()));
    let all = aggregate::accuracy(&ds, Facet::All, &Filter::default());
    assert_eq!(all.len(), 2);
}
