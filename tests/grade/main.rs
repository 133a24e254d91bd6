//! The grader in this process (sandboxed CPython runs): every kind, the reference's fixtures,
//! merge and runtime mutants, hostile candidates. The pool's own tests are in `tests/grade_pool.rs`
//! (they kill and count the process's zygote).
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

#[path = "../guard/mod.rs"]
mod guard;

mod grade_bench;
mod grade_fixtures;
mod grade_hostile;
mod grade_kinds;
mod grade_memo;
mod grade_smoke;
mod merge_fixtures;
mod merge_grade;
mod runtime_mutants;
mod sandbox_hostile;
