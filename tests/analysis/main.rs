//! Results and traces: the tool-call classifier against its labelled sets, and reading and
//! aggregating results.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

#[path = "../guard/mod.rs"]
mod guard;

mod classifier;
mod results_read;
