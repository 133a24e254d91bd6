//! Cabrito: Cabra coding tasks from random call graphs.
//!
//! The core (everything but `web` and `native`) is pure: no IO, no clocks, no OS randomness; it
//! builds for `wasm32-unknown-unknown` and natively and gives byte-identical output on both.

pub mod check;
pub mod domain;
pub mod grade;
pub mod graph;
pub mod kinds;
pub mod playground;
pub mod protocol;
pub mod python;
pub mod rng;
pub mod spec;
pub mod task;

#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(not(target_arch = "wasm32"))]
pub mod native;

pub use spec::{Axis, Domain, Kind, SpecError, TaskSpec};
pub use task::{generate, generate_full, Task};
