//! The generator: a task spec in, a task out. Seeded streams ([`rng`]), call graphs ([`graph`]),
//! the Python model and printer ([`python`]), domains, kinds and axes (one module each, listed once
//! in their registries), and the task record ([`task`]).
//!
//! Pure: no IO, no clocks, no OS randomness. It builds for `wasm32-unknown-unknown` and natively and
//! gives byte-identical output on both. Clippy denies the purity lists of `clippy.toml` here.
#![warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]

pub mod axes;
pub mod decimal;
pub mod domain;
pub mod experiment;
pub mod graph;
pub mod kinds;
pub mod mend;
pub mod python;
pub mod rng;
pub mod spec;
pub mod task;
pub mod words;

pub use spec::{Axis, Domain, Kind, SpecError, TaskSpec};
pub use task::{generate, generate_full, Task};
