//! The wasm tests, run in headless Chromium by wasm-bindgen-test-runner
//! (`cargo test --target wasm32-unknown-unknown --test wasm`): golden hashes equal the native ones,
//! the hand-over, the static checks, the hostile corpus, the results core and the app's logic.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

#[cfg(target_arch = "wasm32")]
#[path = "../hostile/mod.rs"]
mod hostile;

mod wasm_agents;
mod wasm_app;
mod wasm_check;
mod wasm_golden;
mod wasm_handover;
mod wasm_hostile;
mod wasm_results;
