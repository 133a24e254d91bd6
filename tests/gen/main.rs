//! The generator: golden hashes, distributions, properties over many seeds, and CPython running
//! the generated programs, for every kind and axis.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

mod comment_axis;
mod distributions;
mod generator_props;
mod golden;
mod instructions;
mod merge_props;
mod python_run;
mod runtime_axis;
mod variable_renaming;
