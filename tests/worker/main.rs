//! The grading worker in this process over a real WebSocket: the protocol, fair scheduling, its
//! stack, merge, appendix and hostile tasks. The two tests that count every Python process of the
//! process are crates of their own (`tests/worker_hostile.rs`, `tests/worker_load.rs`).
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

#[path = "../hostile/mod.rs"]
mod hostile;
#[cfg(not(target_arch = "wasm32"))]
#[path = "../worker_common/mod.rs"]
mod worker_common;

mod hostile_worker;
mod malformed_then_job;
mod merge_worker;
mod regress_deep_answer;
mod worker_appendix;
mod worker_fair;
mod worker_protocol;
mod worker_wall;
