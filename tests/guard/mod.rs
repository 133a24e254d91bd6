//! Shared by the tests that need something the test does not make itself (the reference's
//! fixtures in ../shared/fixtures, the built app, a browser): locally a missing piece skips the
//! test with a message; under CI (`CI` set, not "0" or "false") it fails, so a CI run never passes
//! without running them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The reference implementation's task records, responses and verdicts: ../shared/fixtures/
/// cabra-reference, or `CABRITO_FIXTURES` when set (to try the guard: `CI=1 CABRITO_FIXTURES=/none`).
pub fn fixtures() -> PathBuf {
    match std::env::var_os("CABRITO_FIXTURES") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/cabra-reference"),
    }
}

/// Whether this run is CI's.
pub fn under_ci() -> bool {
    std::env::var("CI").map(|v| !v.is_empty() && v != "0" && v != "false").unwrap_or(false)
}

/// A test cannot run because `why`: fails under CI, else says SKIPPED on stderr.
pub fn cannot_run(why: &str) {
    if under_ci() {
        panic!("{why} (CI is set, so this fails instead of skipping)");
    }
    eprintln!("SKIPPED: {why}");
}

/// Whether `path` (a fixture file or folder) exists; when it does not, [`cannot_run`] says so.
pub fn fixture(path: &Path) -> bool {
    if path.exists() {
        return true;
    }
    cannot_run(&format!(
        "this test needs the reference fixtures, and {} is missing (../shared/fixtures/cabra-reference, or CABRITO_FIXTURES)",
        path.display()
    ));
    false
}
