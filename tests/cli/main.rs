//! The `cabrito` binary as a user runs it: generate, link, grid, check, grade, agent, report,
//! traces, solve, serve (static files), the appendix and runtime tasks, the hostile corpus, and the
//! scale-out recipes in `deploy/`.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

#[path = "../guard/mod.rs"]
mod guard;
#[path = "../hostile/mod.rs"]
mod hostile;
#[cfg(not(target_arch = "wasm32"))]
#[path = "../http/mod.rs"]
mod http;
#[path = "../run_support/mod.rs"]
mod run_support;
#[cfg(not(target_arch = "wasm32"))]
#[path = "../worker_common/mod.rs"]
mod worker_common;

mod agent_cli;
mod appendix_cli;
mod check_cli;
mod cli;
mod grade_cli;
mod hostile_check_cli;
mod hostile_grade;
mod io_hostile;
mod merge_cli;
mod report_cli;
mod runtime_cli;
mod scale_out;
mod serve_static;
mod solve;
mod spec_errors;
mod worst_inputs;
