//! Golden determinism: fixed specs must keep giving byte-identical tasks. A change to generator
//! output fails here and must come with a version bump (spec::GENERATOR_VERSION) and new hashes.
//! Regenerate with `CABRITO_BLESS=1 cargo test --test gen golden::`. The wasm test in headless Chromium
//! checks the same file.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_gen::task::{generate, task_hash};
use cabrito_gen::TaskSpec;

fn spec(line: &str) -> TaskSpec {
    TaskSpec::from_pairs(line.split('&').map(|p| p.split_once('=').expect("key=value"))).expect("valid golden spec")
}

#[test]
fn golden_hashes_hold() {
    let specs = include_str!("../golden/specs.txt");
    let mut actual = String::new();
    for line in specs.lines().filter(|l| !l.trim().is_empty()) {
        let task = generate(&spec(line)).expect("generates");
        actual.push_str(&format!("{line}\t{}\n", task_hash(&task)));
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/hashes.tsv");
    if std::env::var("CABRITO_BLESS").is_ok() {
        std::fs::write(path, &actual).expect("write golden hashes");
    }
    let expected = std::fs::read_to_string(path).expect("golden hashes exist (bless them first)");
    assert_eq!(actual, expected, "generator output changed: bump GENERATOR_VERSION and bless new hashes");
}

#[test]
fn generation_is_repeatable() {
    for line in include_str!("../golden/specs.txt").lines().filter(|l| !l.trim().is_empty()).take(4) {
        let a = generate(&spec(line)).unwrap();
        let b = generate(&spec(line)).unwrap();
        assert_eq!(a, b);
    }
}
