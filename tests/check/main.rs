//! The static checks: response reading, the rubric on generated tasks, mutants and the
//! reference's fixtures, and the hostile corpus through the front end and CPython's `compile()`.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

#[path = "../guard/mod.rs"]
mod guard;
#[path = "../hostile/mod.rs"]
mod hostile;

mod check_fixtures;
mod check_mutations;
mod check_response;
mod check_rubric;
mod check_timing;
mod hostile_cpython;
mod hostile_props;
mod merge_check;
