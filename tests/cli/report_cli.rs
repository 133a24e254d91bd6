//! `cabrito report` and `cabrito traces` end to end, through the real binary: a grid generated and
//! graded by `cabrito grid` and `cabrito grade` (CPython runs the answers), then the report's files;
//! and the sample traces of tests/data/traces, then the labels, tokens, usage and figures.
#![cfg(not(target_arch = "wasm32"))]

use crate::run_support::{col, csv_rows, ok};
use cabrito_analysis::traces::Label;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("run cabrito")
}

/// A small grid (2 kinds × 2 axes × n = 5 × 2 seeds), answered by a model that always gives the
/// reference (`code/good`) and one that gives the starter on the first seed (`code/half`),
/// graded by `cabrito grade`.
fn graded_folder(root: &Path) -> PathBuf {
    let grid = root.join("grid");
    ok(
        &cabrito(&[
            "grid",
            "--out",
            grid.to_str().unwrap(),
            "--axes",
            "traversal,search",
            "--sizes",
            "5",
            "--samples",
            "2",
            "--kinds",
            "add_parameter,dead_code",
            "--domains",
            "math",
        ]),
        "cabrito grid",
    );
    for entry in walk(&grid.join("tasks")) {
        let rel = entry.strip_prefix(grid.join("tasks")).unwrap();
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        let (run, set, ty) = (&parts[0], &parts[1], parts[2].trim_end_matches(".json"));
        let tasks: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&entry).unwrap()).unwrap();
        for (model, starter_on_first) in [("good", false), ("half", true)] {
            let d = root.join("runs/responses").join(run).join(set).join(ty).join("code");
            std::fs::create_dir_all(&d).unwrap();
            let lines: Vec<String> = tasks
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let code = if starter_on_first && i == 0 { &t["starter_code"] } else { &t["solution_code"] };
                    json!({"name": t["name"], "dag_id": t["dag_id"], "output": format!("# === solution.py ===\n{}", code.as_str().unwrap()), "metadata": {}}).to_string()
                })
                .collect();
            std::fs::write(d.join(format!("{model}.jsonl")), lines.join("\n") + "\n").unwrap();
        }
    }
    let out = root.join("graded");
    ok(
        &cabrito(&[
            "grade",
            "--tasks",
            grid.to_str().unwrap(),
            "--responses",
            root.join("runs").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--trials",
            "2",
        ]),
        "cabrito grade",
    );
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn report_writes_the_page_figures_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let graded = graded_folder(dir.path());
    // One malformed line: reported with its file and line, the rest is kept.
    let some_results =
        walk(&graded.join("results")).into_iter().find(|p| p.to_string_lossy().ends_with("good.jsonl")).unwrap();
    let mut text = std::fs::read_to_string(&some_results).unwrap();
    text.push_str("{ this is not json\n");
    std::fs::write(&some_results, text).unwrap();

    let site = dir.path().join("site");
    let o = cabrito(&[
        "report",
        "--results",
        graded.to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
        "--compare",
        "code/half,code/good",
    ]);
    let stdout = ok(&o, "cabrito report");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stdout.contains("16 task results"), "{stdout}");
    assert!(stderr.contains("good.jsonl line 3") && stderr.contains("not a result record"), "{stderr}");

    for f in [
        "index.html",
        "figures/accuracy.svg",
        "figures/accuracy_by_kind.svg",
        "figures/accuracy_by_domain.svg",
        "figures/checks.svg",
        "figures/compare.svg",
        "tables/accuracy.csv",
        "tables/accuracy_by_axis.csv",
        "tables/accuracy_by_kind.csv",
        "tables/accuracy_by_domain.csv",
        "tables/checks.csv",
        "tables/tasks.csv",
        "tables/compare.csv",
        "tables/flips.csv",
    ] {
        assert!(site.join(f).is_file(), "{f} was not written");
    }
    // The accuracy tables: the columns, and the numbers of this grid.
    for t in ["accuracy", "accuracy_by_axis", "accuracy_by_kind", "accuracy_by_domain"] {
        let (h, _) = csv_rows(&site.join(format!("tables/{t}.csv")));
        for c in ["model", "axis", "kind", "domain", "n", "tasks", "passed", "accuracy", "ci_low", "ci_high"] {
            col(&h, c);
        }
    }
    let (h, rows) = csv_rows(&site.join("tables/accuracy_by_axis.csv"));
    assert_eq!(rows.len(), 4, "2 models × 2 axes × 1 size: {rows:?}");
    for r in &rows {
        let (model, tasks, passed) = (&r[col(&h, "model")], &r[col(&h, "tasks")], &r[col(&h, "passed")]);
        assert_eq!(tasks, "4");
        match model.as_str() {
            "code/good" => assert_eq!(
                (passed.as_str(), r[col(&h, "ci_low")].as_str(), r[col(&h, "ci_high")].as_str()),
                ("4", "0.5101", "1")
            ),
            "code/half" => assert_eq!(
                (passed.as_str(), r[col(&h, "ci_low")].as_str(), r[col(&h, "ci_high")].as_str()),
                ("2", "0.15", "0.85")
            ),
            m => panic!("unexpected model {m}"),
        }
    }
    // Every task row links to its Cabrito task, found from its dag_id, and the link opens that task.
    let (h, rows) = csv_rows(&site.join("tables/tasks.csv"));
    assert_eq!(rows.len(), 16);
    for r in &rows {
        let link = &r[col(&h, "link")];
        let q = link.strip_prefix("#/task?").unwrap_or_else(|| panic!("no link in {r:?}"));
        let spec = cabrito_gen::TaskSpec::from_pairs(q.split('&').map(|p| p.split_once('=').unwrap())).unwrap();
        let task = cabrito_gen::generate(&spec).unwrap();
        assert_eq!(task.dag_id, r[col(&h, "dag_id")]);
        assert_eq!(task.name, r[col(&h, "name")]);
    }
    // The comparison: B − A = +50 points per cell; the four tasks that flipped now pass.
    let (h, rows) = csv_rows(&site.join("tables/compare.csv"));
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r[col(&h, "difference")] == "0.5"));
    let (_, flips) = csv_rows(&site.join("tables/flips.csv"));
    assert_eq!(flips.len(), 4);
    // The figures: one point per model and axis, with error bars, and no NaN anywhere.
    let svg = std::fs::read_to_string(site.join("figures/accuracy.svg")).unwrap();
    assert!(svg.contains("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("class=\"pt\"").count(), 4);
    assert_eq!(svg.matches("class=\"bar\"").count(), 4);
    let page = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert_eq!(page.matches("<svg").count(), 5, "five figures inline");
    for f in ["accuracy", "checks", "compare"] {
        assert!(!std::fs::read_to_string(site.join(format!("figures/{f}.svg"))).unwrap().contains("NaN"));
    }
    assert!(page.contains("line 3"), "the problem is listed on the page");
}

#[test]
fn report_refuses_what_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let o = cabrito(&[
        "report",
        "--results",
        dir.path().join("nope").to_str().unwrap(),
        "--out",
        dir.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a folder"));
    std::fs::create_dir_all(dir.path().join("empty/sub")).unwrap();
    std::fs::write(dir.path().join("empty/sub/notes.txt"), "hello").unwrap();
    let o = cabrito(&[
        "report",
        "--results",
        dir.path().join("empty").to_str().unwrap(),
        "--out",
        dir.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no results found"), "{}", String::from_utf8_lossy(&o.stderr));
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces")
}

#[test]
fn traces_label_the_sample_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let stdout = ok(
        &cabrito(&["traces", "--traces", sample().to_str().unwrap(), "--out", out.to_str().unwrap()]),
        "cabrito traces",
    );
    assert!(stdout.contains("3 sessions") && stdout.contains("3 sessions placed"), "{stdout}");
    for f in [
        "labels.jsonl",
        "tool_call_token_counts.jsonl",
        "usage.csv",
        "calls.csv",
        "table2.csv",
        "figure3.csv",
        "figures/calls.svg",
        "figures/tokens.svg",
        "figures/labels.svg",
        "index.html",
    ] {
        assert!(out.join(f).is_file(), "{f} was not written");
    }
    // §8.5: one record per tool call, keyed by (session_id, tool_call_index), with a valid label.
    let labels: Vec<Value> = std::fs::read_to_string(out.join("labels.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events: usize = walk(&sample().join("copilot_traces"))
        .iter()
        .map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter(|e| e["type"] == "assistant.message")
                .map(|e| e["data"]["toolRequests"].as_array().map_or(0, Vec::len))
                .sum::<usize>()
        })
        .sum();
    let plain = std::fs::read_to_string(sample().join("plain/reader-cache-n10-seed0.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"tool\""))
        .count();
    assert_eq!(labels.len(), events + plain);
    let mut keys = std::collections::HashSet::new();
    for r in &labels {
        assert!(Label::parse(r["label"].as_str().unwrap()).is_some());
        assert!(keys.insert((r["session_id"].as_str().unwrap().to_string(), r["tool_call_index"].as_u64().unwrap())));
        for k in [
            "experiment",
            "task_set_name",
            "task_type",
            "model",
            "run_name",
            "dag_id",
            "tool_call_information",
            "reason",
        ] {
            assert!(r.get(k).is_some(), "{k} missing in {r}");
        }
    }
    // The Copilot session was joined to its task through its response.
    let first = labels.iter().find(|r| r["session_id"] == "5b0f6f2e-1d8a-4c55-9f3e-4a1c2b7d9e01").unwrap();
    assert_eq!(
        (first["model"].as_str(), first["task_type"].as_str(), first["experiment"].as_str()),
        (Some("copilot/claude-sonnet-4.6"), Some("cache_function"), Some("function_traversal"))
    );
    // §8.6: tokens per call sum to each turn's output tokens.
    let tokens: Vec<Value> = std::fs::read_to_string(out.join("tool_call_token_counts.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let sum: f64 = tokens
        .iter()
        .filter(|t| t["session_id"] == "5b0f6f2e-1d8a-4c55-9f3e-4a1c2b7d9e01")
        .map(|t| t["tool_call_tokens"].as_f64().unwrap())
        .sum();
    assert!((sum - 870.0).abs() < 1e-6, "{sum}");
    // §8.7: the usage CSV's columns and the shutdown's figures.
    let (h, rows) = csv_rows(&out.join("usage.csv"));
    assert_eq!(
        h,
        [
            "session_id",
            "model",
            "total_nano_aiu",
            "total_aiu",
            "total_premium_requests",
            "input_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "output_tokens",
            "total_tokens",
            "usage_source",
            "token_usage_source",
            "trace_path"
        ]
    );
    let r = rows.iter().find(|r| r[0] == "5b0f6f2e-1d8a-4c55-9f3e-4a1c2b7d9e01").unwrap();
    assert_eq!((r[3].as_str(), r[8].as_str(), r[10].as_str()), ("3.25", "870", "session.shutdown"));
    // Table 2 and figure 3: one row per model and axis; the figure has points.
    let (_, t2) = csv_rows(&out.join("table2.csv"));
    assert_eq!(t2.len(), 3);
    let svg = std::fs::read_to_string(out.join("figures/calls.svg")).unwrap();
    assert_eq!(svg.matches("class=\"pt\"").count(), 3 * 6, "3 sessions × 6 groups");
}

#[test]
fn traces_join_tasks_by_dag_id_and_refuse_empty_folders() {
    let dir = tempfile::tempdir().unwrap();
    // A plain trace that only names its dag_id, and the grid holding its task.
    let spec = cabrito_gen::TaskSpec::new(
        cabrito_gen::Kind::DeadCode,
        cabrito_gen::Domain::Array,
        cabrito_gen::Axis::Search,
        10,
        4,
    );
    let task = cabrito_gen::generate(&spec).unwrap();
    ok(
        &cabrito(&[
            "grid",
            "--out",
            dir.path().join("grid").to_str().unwrap(),
            "--axes",
            "search",
            "--sizes",
            "10",
            "--samples",
            "1",
            "--seed",
            "4",
            "--kinds",
            "dead_code",
            "--domains",
            "array",
        ]),
        "cabrito grid",
    );
    let traces = dir.path().join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let header = cabrito_analysis::traces::plain::Header::new(
        "s1",
        "myopic",
        "scripted/myopic",
        Some(cabrito_analysis::traces::plain::PlainTask { dag_id: task.dag_id.clone(), ..Default::default() }),
    );
    let calls = vec![cabrito_analysis::traces::plain::PlainCall {
        tool: "bash".into(),
        arguments: json!({"command": "grep -n 'def ' solution.py"}),
        turn: Some(0),
        ..Default::default()
    }];
    std::fs::write(traces.join("s1.jsonl"), cabrito_analysis::traces::plain::write(&header, &calls)).unwrap();
    std::fs::write(traces.join("notes.jsonl"), "{\"hello\": 1}\n").unwrap();
    let out = dir.path().join("out");
    let stdout = ok(
        &cabrito(&[
            "traces",
            "--traces",
            traces.to_str().unwrap(),
            "--tasks",
            dir.path().join("grid").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]),
        "cabrito traces --tasks",
    );
    assert!(stdout.contains("1 session (1 skipped)") && stdout.contains("1 session placed"), "{stdout}");
    let l: Value =
        serde_json::from_str(std::fs::read_to_string(out.join("labels.jsonl")).unwrap().lines().next().unwrap())
            .unwrap();
    assert_eq!(
        (l["experiment"].as_str(), l["task_type"].as_str(), l["label"].as_str()),
        (Some("function_search"), Some("dead_code"), Some("search"))
    );
    assert_eq!(l["run_name"].as_str(), Some(cabrito_gen::task::run_name(&spec).as_str()));

    let o = cabrito(&["traces", "--traces", dir.path().join("grid").to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no traces"));
    let o = cabrito(&["traces", "--traces", "/nonexistent/x", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
}

/// The scripted agents' answers, graded: `cabrito report` over the results and the responses beside
/// them draws accuracy and the ledger's cost against n per strategy (tables/cost.csv, figures/cost.svg);
/// the careful strategy pays more at the larger n, and costs are per task as the responses say.
#[test]
fn report_draws_cost_against_n_per_strategy_from_the_responses() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let grid = root.join("grid");
    ok(
        &cabrito(&[
            "grid",
            "--out",
            grid.to_str().unwrap(),
            "--sizes",
            "5,25",
            "--samples",
            "1",
            "--domains",
            "math",
            "--axes",
            "traversal",
            "--kinds",
            "add_parameter,dead_code",
        ]),
        "grid",
    );
    let set = root.join("sample");
    for s in ["reader", "myopic"] {
        ok(&cabrito(&["agent", "--strategy", s, "--tasks", grid.to_str().unwrap(), "--out", set.to_str().unwrap()]), s);
    }
    ok(
        &cabrito(&[
            "grade",
            "--tasks",
            grid.to_str().unwrap(),
            "--responses",
            set.to_str().unwrap(),
            "--out",
            set.to_str().unwrap(),
            "--trials",
            "3",
        ]),
        "grade",
    );
    let site = root.join("site");
    ok(&cabrito(&["report", "--results", set.to_str().unwrap(), "--out", site.to_str().unwrap()]), "report");
    let (header, rows) = csv_rows(&site.join("tables/cost.csv"));
    let (m, n, tasks, cost) = (col(&header, "model"), col(&header, "n"), col(&header, "tasks"), col(&header, "cost"));
    assert_eq!(rows.len(), 4, "{rows:?}");
    let cost_of = |model: &str, size: &str| -> f64 {
        let r =
            rows.iter().find(|r| r[m] == model && r[n] == size).unwrap_or_else(|| panic!("{model} {size}: {rows:?}"));
        assert_eq!(r[tasks], "2");
        r[cost].parse().unwrap()
    };
    assert!(cost_of("scripted/reader", "25") > cost_of("scripted/reader", "5"), "{rows:?}");
    assert!(cost_of("scripted/myopic", "25") < cost_of("scripted/reader", "25"), "{rows:?}");
    // The mean of the responses' own costs.
    let mut want = 0.0;
    for f in walk(&set.join("responses")).into_iter().filter(|p| p.to_string_lossy().ends_with("reader.jsonl")) {
        for l in std::fs::read_to_string(&f).unwrap().lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            if f.to_string_lossy().contains("en=(25,25)") {
                want += v["metadata"]["cost"].as_f64().unwrap() / 2.0;
            }
        }
    }
    assert!((cost_of("scripted/reader", "25") - want).abs() < 1e-5, "{want}");
    let svg = std::fs::read_to_string(site.join("figures/cost.svg")).unwrap();
    assert!(svg.contains("scripted/reader") && svg.contains("scripted/myopic") && svg.contains("dollars per task"));
    let page = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(page.contains("Cost against n") && page.contains("tables/cost.csv"));
}
