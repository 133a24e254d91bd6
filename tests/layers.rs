//! The crate graph is the architecture: each crate of the workspace may depend only on crates below
//! it in `LAYERS`, so the knot of modules that all import each other cannot come back.

use serde_json::{json, Value};
use std::process::Command;

/// From the bottom up. A crate may name only crates before it in this list.
const LAYERS: &[&str] =
    &["cabrito-gen", "cabrito-check", "cabrito-analysis", "cabrito-agents", "cabrito-native", "cabrito-py", "cabrito"];

/// Every problem with `cargo metadata`'s packages: a crate outside `LAYERS`, or an edge to a crate
/// that is not below it.
fn problems(meta: &Value) -> Vec<String> {
    let layer = |name: &str| LAYERS.iter().position(|l| *l == name);
    let mut out = Vec::new();
    for p in meta["packages"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or("?");
        let Some(own) = layer(name) else {
            out.push(format!("{name} is not in LAYERS"));
            continue;
        };
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let dep = d["name"].as_str().unwrap_or("?");
            match layer(dep) {
                Some(theirs) if theirs >= own && dep != name => {
                    out.push(format!("{name} depends on {dep}, which is not below it"))
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn no_crate_depends_on_a_crate_above_it() {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata is JSON");
    assert_eq!(problems(&meta), Vec::<String>::new(), "layers: {LAYERS:?}");
    assert_eq!(meta["packages"].as_array().map(Vec::len), Some(LAYERS.len()), "every layer is a crate");
}

#[test]
fn an_upward_edge_or_an_unplaced_crate_is_refused() {
    let meta = json!({"packages": [
        {"name": "cabrito-gen", "dependencies": [{"name": "serde"}, {"name": "cabrito-check"}]},
        {"name": "cabrito-check", "dependencies": [{"name": "cabrito-gen"}]},
        {"name": "cabrito-extra", "dependencies": []},
    ]});
    assert_eq!(
        problems(&meta),
        vec!["cabrito-gen depends on cabrito-check, which is not below it", "cabrito-extra is not in LAYERS"]
    );
}
