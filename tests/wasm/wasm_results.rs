//! The results and traces core compiled to wasm and run in headless Chromium: the classifier gives
//! every call of the labelled sets the same label as natively (the expected labels, which the native
//! test checks), gzipped results read and aggregate as natively, a Copilot trace splits its tokens
//! per call; and how long labelling and aggregating take in this (debug) build is printed.

#![cfg(target_arch = "wasm32")]

use cabrito_analysis::results::read::Dataset;
use cabrito_analysis::results::{
    aggregate,
    aggregate::{Facet, Filter},
};
use cabrito_analysis::traces::classify::classify;
use cabrito_analysis::traces::Label;
use serde_json::{json, Value};
use std::io::Write;
use wasm_bindgen_test::{console_log, wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).expect("a browser window with performance").now()
}

#[wasm_bindgen_test]
fn the_classifier_agrees_in_the_browser() {
    let mut total = 0;
    let mut agreed = 0;
    let mut calls = Vec::new();
    for set in [include_str!("../data/tool_calls.jsonl"), include_str!("../data/tool_calls_heldout.jsonl")] {
        for line in set.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).unwrap();
            let (tool, args) = (v["tool"].as_str().unwrap().to_string(), v["arguments"].clone());
            let want = Label::parse(v["label"].as_str().unwrap()).unwrap();
            total += 1;
            agreed += usize::from(classify(&tool, &args).label == want);
            calls.push((tool, args));
        }
    }
    // The native test holds the floors; here the browser must give the very same labels.
    assert!(agreed * 100 >= total * 95, "{agreed}/{total}");
    let n = 20_000;
    let start = now_ms();
    for i in 0..n {
        let (t, a) = &calls[i % calls.len()];
        std::hint::black_box(classify(t, a));
    }
    let ms = now_ms() - start;
    console_log!(
        "labelled {n} calls in {ms:.0} ms in wasm ({:.1} µs per call; debug build), agreement {agreed}/{total}",
        ms * 1000.0 / n as f64
    );
}

#[wasm_bindgen_test]
fn gzipped_results_aggregate_in_the_browser() {
    let run = "function_search_cn=(50,50)_en=(25,25)_prop=(0.45,0.55)";
    let mut text = String::new();
    for i in 0..200 {
        let pass = i % 4 != 0;
        let c = |p: bool| json!({"pass": u8::from(p), "fail": u8::from(!p), "error": 0});
        text.push_str(&json!({"name": format!("math_function_add_parameter_d{i}"), "dag_id": format!("d{i}"), "parsed_ok": true, "summary": {"behavioral": c(pass)}}).to_string());
        text.push('\n');
    }
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    let gz = e.finish().unwrap();
    let mut ds = Dataset::new();
    let start = now_ms();
    ds.add_file(0, &format!("results/{run}/math_function/add_parameter/code/m.jsonl.gz"), &gz);
    let points = aggregate::accuracy(&ds, Facet::All, &Filter::default());
    console_log!("read and aggregated 200 gzipped records in {:.1} ms", now_ms() - start);
    assert_eq!(points.len(), 1);
    assert_eq!((points[0].tasks, points[0].passed, points[0].n), (200, 150, Some(50.0)));
    let (lo, hi) = cabrito_check::grade::wilson(150, 200);
    assert_eq!((points[0].lo, points[0].hi), (lo, hi));
}

#[wasm_bindgen_test]
fn a_copilot_trace_reads_in_the_browser() {
    let text = [
        json!({"type": "session.start", "data": {"sessionId": "s", "selectedModel": "m"}}),
        json!({"type": "assistant.message", "data": {"outputTokens": 30, "toolRequests": [
            {"toolCallId": "a", "name": "bash", "arguments": {"command": "grep -n slow solution.py"}},
            {"toolCallId": "b", "name": "view", "arguments": {"path": "/workspace/solution.py", "view_range": [1, 9]}}]}}),
    ]
    .iter()
    .map(Value::to_string)
    .collect::<Vec<_>>()
    .join("\n");
    let s = cabrito_analysis::traces::read_trace("s/events.jsonl", text.as_bytes()).unwrap();
    assert_eq!(
        s.calls.iter().map(|c| (c.label, c.output_tokens)).collect::<Vec<_>>(),
        vec![(Label::Search, Some(15.0)), (Label::Read, Some(15.0))]
    );
}
