//! Cabrito: Cabra coding tasks from random call graphs.
//!
//! The core (everything but `web` and `native`) is pure: no IO, no clocks, no OS randomness; it
//! builds for `wasm32-unknown-unknown` and natively and gives byte-identical output on both.
//!
//! Purity is checked by clippy: the methods, types and macros listed in `clippy.toml` (files, clocks,
//! processes, sockets, environment, terminal, OS randomness) are denied here and allowed only in
//! `native` and `web`.
#![warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]

pub mod agents;
pub mod axes;
pub mod check;
pub mod decimal;
pub mod domain;
pub mod grade;
pub mod graph;
pub mod kinds;
pub mod playground;
pub mod protocol;
pub mod python;
pub mod results;
pub mod rng;
pub mod sort;
pub mod spec;
pub mod task;
pub mod traces;

#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(not(target_arch = "wasm32"))]
pub mod native;

pub use spec::{Axis, Domain, Kind, SpecError, TaskSpec};
pub use task::{generate, generate_full, Task};
