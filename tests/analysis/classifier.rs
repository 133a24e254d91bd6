//! The offline classifier against the labelled set (tests/data/tool_calls.jsonl: realistic tool
//! calls of Copilot, Claude Code, Codex, OpenHands/SWE-agent, Cursor and Cabrito's own interface,
//! labelled by hand from the paper's definitions): agreement per label must stay above floors set
//! from what was measured (BENCHMARKS.md reports the figures); and the classifier never panics on
//! any JSON.

use cabrito_analysis::traces::classify::{classify, shell_line};
use cabrito_analysis::traces::Label;
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;

struct Case {
    id: u64,
    agent: String,
    tool: String,
    arguments: Value,
    label: Label,
}

const DEVELOPMENT: &str = include_str!("../data/tool_calls.jsonl");
const HELD_OUT: &str = include_str!("../data/tool_calls_heldout.jsonl");

fn cases() -> Vec<Case> {
    cases_of(DEVELOPMENT)
}

fn cases_of(text: &str) -> Vec<Case> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a labelled call is JSON");
            Case {
                id: v["id"].as_u64().expect("id"),
                agent: v["agent"].as_str().unwrap_or("").to_string(),
                tool: v["tool"].as_str().expect("tool").to_string(),
                arguments: v["arguments"].clone(),
                label: Label::parse(v["label"].as_str().expect("label")).expect("a known label"),
            }
        })
        .collect()
}

/// Minimum share of each expected label the rules must give back (recall), set a little under
/// the measured figures in BENCHMARKS.md so that a regression fails while the set stays honest.
const FLOORS: &[(Label, f64)] = &[
    (Label::Read, 0.95),
    (Label::Search, 0.95),
    (Label::Understand, 0.90),
    (Label::Edit, 0.95),
    (Label::Test, 0.93),
    (Label::Summary, 1.0),
    (Label::Plan, 0.90),
    (Label::Other, 0.90),
];
const OVERALL_FLOOR: f64 = 0.95;

/// Floors for the second set, a little under its first measurement (taken while it was held out:
/// 104/113 = 92.0% overall; read 100%, search 86.4%, understand 77.8%, edit 94.4%, test 95.2%,
/// summary 100%, plan 100%, other 83.3%). Its misses then led to general fixes, so it is no
/// longer held out; BENCHMARKS.md reports both figures.
const HELD_OUT_FLOORS: &[(Label, f64)] = &[
    (Label::Read, 0.95),
    (Label::Search, 0.85),
    (Label::Understand, 0.75),
    (Label::Edit, 0.90),
    (Label::Test, 0.90),
    (Label::Summary, 1.0),
    (Label::Plan, 1.0),
    (Label::Other, 0.80),
];
const HELD_OUT_OVERALL_FLOOR: f64 = 0.90;

/// Agreement per expected label: (agreed, total), and the overall share.
fn measure(name: &str, cases: &[Case]) -> (BTreeMap<Label, (usize, usize)>, f64) {
    let mut per: BTreeMap<Label, (usize, usize)> = BTreeMap::new(); // expected → (agreed, total)
    let mut predicted: BTreeMap<Label, (usize, usize)> = BTreeMap::new(); // predicted → (right, total)
    let mut confusion: BTreeMap<(Label, Label), usize> = BTreeMap::new();
    let mut misses = Vec::new();
    for c in cases {
        let got = classify(&c.tool, &c.arguments);
        let e = per.entry(c.label).or_default();
        e.1 += 1;
        let p = predicted.entry(got.label).or_default();
        p.1 += 1;
        *confusion.entry((c.label, got.label)).or_default() += 1;
        if got.label == c.label {
            e.0 += 1;
            p.0 += 1;
        } else {
            misses.push(format!(
                "#{} {} {} → {} (expected {}): {}\n      {}",
                c.id,
                c.agent,
                c.tool,
                got.label,
                c.label,
                got.rule,
                cabrito_analysis::results::input::clip(&c.arguments.to_string(), 160)
            ));
        }
    }
    let agreed: usize = per.values().map(|v| v.0).sum();
    let overall = agreed as f64 / cases.len() as f64;
    println!("agreement with the {name}: {agreed}/{} = {:.1}%", cases.len(), overall * 100.0);
    println!("{:<11} {:>8} {:>8} {:>8} {:>10}", "label", "calls", "recall", "given", "precision");
    for l in Label::ALL {
        let (a, t) = per.get(l).copied().unwrap_or_default();
        let (pa, pt) = predicted.get(l).copied().unwrap_or_default();
        println!(
            "{:<11} {:>8} {:>7.1}% {:>8} {:>9.1}%",
            l.as_str(),
            t,
            if t == 0 { 100.0 } else { 100.0 * a as f64 / t as f64 },
            pt,
            if pt == 0 { 100.0 } else { 100.0 * pa as f64 / pt as f64 }
        );
    }
    println!("confusion (expected → given, off the diagonal):");
    for ((e, g), n) in &confusion {
        if e != g {
            println!("  {e} → {g}: {n}");
        }
    }
    for m in &misses {
        println!("  miss {m}");
    }
    (per, overall)
}

fn check_floors(per: &BTreeMap<Label, (usize, usize)>, overall: f64, floors: &[(Label, f64)], overall_floor: f64) {
    for (l, floor) in floors {
        let (a, t) = per.get(l).copied().unwrap_or_default();
        assert!(t > 0, "no {l} call in the labelled set");
        let r = a as f64 / t as f64;
        assert!(r >= *floor, "{l}: {a}/{t} = {:.3} under the floor {floor}", r);
    }
    assert!(overall >= overall_floor, "overall agreement {overall:.3} under {overall_floor}");
}

#[test]
fn agreement_with_the_labelled_set() {
    let cases = cases();
    assert!(cases.len() >= 300, "the labelled set has {} calls; the issue asks for at least 300", cases.len());
    let (per, overall) = measure("development set", &cases);
    check_floors(&per, overall, FLOORS, OVERALL_FLOOR);
}

/// The second set was written after the rules were frozen (see HELD_OUT_FLOORS).
#[test]
fn agreement_with_the_held_out_set() {
    let cases = cases_of(HELD_OUT);
    assert!(cases.len() >= 100);
    let (per, overall) = measure("held-out set", &cases);
    check_floors(&per, overall, HELD_OUT_FLOORS, HELD_OUT_OVERALL_FLOOR);
}

/// Every tool name the set holds is covered by a known rule or the argument fallback, and every
/// verdict says why.
#[test]
fn every_verdict_has_a_rule() {
    for c in cases() {
        let v = classify(&c.tool, &c.arguments);
        assert!(!v.rule.is_empty(), "#{} has no rule", c.id);
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,40}".prop_map(Value::String),
        prop_oneof![
            Just("python3 - <<'EOF'\nimport ast\nEOF"),
            Just("grep -n x | sort | uniq -c"),
            Just("$((((('"),
            Just("for f in $(ls); do cat $f; done"),
            Just("cat > solution.py <<X"),
            Just("*** Begin Patch\n*** Add File: t.py\n+x"),
            Just("open('solution.py', 'w"),
            Just("bash -c \"bash -c 'sed -i s/a/b/ solution.py'\""),
        ]
        .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("command".to_string()),
                        Just("path".to_string()),
                        Just("cmd".to_string()),
                        Just("file_text".to_string()),
                        Just("old_str".to_string()),
                        Just("view_range".to_string()),
                        Just("input".to_string()),
                        ".{0,8}".prop_map(|s| s)
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_any_json(
        tool in prop_oneof![
            Just("bash".to_string()), Just("view".to_string()), Just("edit".to_string()), Just("create".to_string()),
            Just("apply_patch".to_string()), Just("str_replace_editor".to_string()), Just("shell".to_string()),
            Just("Task".to_string()), Just("read_bash".to_string()), ".{0,12}".prop_map(|s| s)
        ],
        args in json_value(),
    ) {
        let v = classify(&tool, &args);
        prop_assert!(Label::ALL.contains(&v.label));
        // The same arguments as a JSON string read the same.
        let again = classify(&tool, &Value::String(args.to_string()));
        if args.is_object() {
            prop_assert_eq!(again.label, v.label);
        }
    }

    #[test]
    fn shell_lines_never_panic(line in "[ -~\\n]{0,200}") {
        let _ = shell_line(&line);
        // Nor does finding what such a command touched in a task's code.
        let call = cabrito_analysis::traces::ToolCall {
            index: 0, turn: 0, request_index: 0, tool: "bash".into(), arguments: serde_json::json!({"command": line, "view_range": [i64::MIN, i64::MAX], "offset": i64::MAX, "limit": i64::MAX, "line": i64::MAX}),
            output: Some(line.clone()), success: None, output_tokens: None, intention: String::new(), given_label: None,
            label: Label::Other, rule: String::new(), shell_id: None,
        };
        let code = "def a(val):\n    return val\n\ndef main(val):\n    return a(val)\n";
        let _ = cabrito_analysis::traces::touch::touched(&call, code, &cabrito_analysis::traces::touch::spans(code));
    }

    #[test]
    fn traces_never_panic(lines in prop::collection::vec(json_value(), 0..20)) {
        let text: String = lines.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("\n");
        let _ = cabrito_analysis::traces::read_trace("p/events.jsonl", text.as_bytes());
        let wrapped: String = lines.iter().map(|v| serde_json::json!({"type": "assistant.message", "data": {"toolRequests": [{"name": "bash", "arguments": v}]}}).to_string()).collect::<Vec<_>>().join("\n");
        if let Ok(s) = cabrito_analysis::traces::read_trace("p/events.jsonl", wrapped.as_bytes()) {
            prop_assert_eq!(s.calls.len(), lines.len());
        }
    }
}
