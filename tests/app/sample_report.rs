//! The Results view's built-in sample (www/samples/results.json): the paired comparison and the
//! capability frontier the view shows (`playground::results_view`) are `cabrito report`'s, number
//! for number, on the same files; and the sample's numbers come from real runs (two scripted
//! agents, several sizes, a frontier that crosses and one that does not). Native only: it runs the CLI.

#![cfg(not(target_arch = "wasm32"))]

use cabrito::playground::results_view::{self as rv, ResultsAction, ResultsData, ResultsState};
use cabrito::playground::sample;
use cabrito_analysis::results::csv;
use cabrito_analysis::results::frontier::Crossing;
use cabrito_analysis::results::read::Dataset;
use std::process::Command;
use std::rc::Rc;

/// The sample as the view reads it: one set named after the bundle's top folder, every file added.
fn sample_dataset() -> (sample::Bundle, Dataset) {
    let bundle = sample::parse(include_bytes!("../../www/samples/results.json")).expect("the sample is a bundle");
    let mut ds = Dataset::default();
    let set = ds.add_set("sample");
    for (path, bytes) in &bundle.files {
        ds.add_file(set, path, bytes);
    }
    (bundle, ds)
}

#[test]
fn the_views_comparison_and_frontier_are_the_reports() {
    let (bundle, ds) = sample_dataset();
    assert!(ds.problems.is_empty(), "{:?}", ds.problems);
    // The view chooses the first two models when the sample loads.
    let state =
        ResultsState::new(Rc::new(ResultsData::default())).reduce(ResultsAction::Loaded(Rc::new(ResultsData {
            ds: ds.clone(),
            generation: 1,
            ..ResultsData::default()
        })));
    let cmp = rv::comparison(&state.data.ds, &state.compare).expect("the sample has two models to compare");
    let (a, b) = (cmp.a.name(&ds), cmp.b.name(&ds));
    assert_eq!((a.as_str(), b.as_str()), ("scripted/myopic", "scripted/navigator"));
    let frontiers = rv::frontiers(&ds, &Default::default());

    // `cabrito report` on the same files, unpacked where the bundle says.
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in &bundle.files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let out = dir.path().join("report");
    let o = Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["report", "--results"])
        .arg(dir.path().join("sample"))
        .arg("--out")
        .arg(&out)
        .args(["--compare", &format!("{a},{b}")])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |f: &str| std::fs::read_to_string(out.join("tables").join(f)).unwrap();
    assert_eq!(csv::paired_summary(&a, &b, &cmp.paired), read("paired.csv"));
    assert_eq!(csv::paired_tasks(&ds, &cmp.tasks), read("paired_tasks.csv"));
    assert_eq!(csv::frontier(&ds, &frontiers), read("frontier.csv"));

    // What the sample shows: one agent copes at every n, the other falls below half inside the sizes.
    let p = &cmp.paired;
    assert_eq!(p.tasks, 128, "{p:?}");
    assert!(p.only_b > 0 && p.diff > 0.0 && p.lo <= p.diff && p.diff <= p.hi, "{p:?}");
    let crossing = |model: &str| frontiers.iter().find(|f| &*f.series.model == model).map(|f| f.crossing).unwrap();
    assert!(matches!(crossing("scripted/myopic"), Crossing::At { .. }), "{frontiers:?}");
    assert_eq!(crossing("scripted/navigator"), Crossing::AboveThroughout, "{frontiers:?}");
}
