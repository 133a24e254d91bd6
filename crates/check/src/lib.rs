//! Static checks of a candidate solution (pure: compiles for wasm): reading responses ([`response`],
//! unified diffs in [`diff`]), the one Python front end every reader uses ([`source`] for bytes, lines and
//! CPython's tokenizer rules, [`program`] for the tree, [`cpython`] for CPython 3.11's compile-time rules
//! and limits), `function_existence` shared with the grader ([`existence`]) and the static rubric
//! ([`rubric`]).
//!
//! ```text
//! file bytes ──source::decode──▶ text
//! response text ──parse_response(text, starter)──▶ Candidate { code, format, notes }
//!                                                   │
//! TaskRef { kind, domain, axis, starter, reference, metadata } ─┴─static_checks(task, &code)──▶ Rubric { items }
//!                                    (each program through Program::parse: source::scan, ruff, cpython)
//! ```
//!
//! The rubric's items, in report order (must = the task fails without it; nice = diagnostic):
//!
//! | id | kinds | level | what |
//! |---|---|---|---|
//! | `compilation` | all | must | what CPython 3.11's `compile()` says: syntax, the tokenizer's and compiler's rules and limits (see [`cpython`]) |
//! | `function_existence` | all | must for dead code, else nice | grading.md §4.2 exactly: reference functions kept, removed ones gone, nothing else, no module-level assignment |
//! | `no_missing_functions` | all | must | D6: every reference function except `main` exists |
//! | `no_new_functions` | all | must | no top-level function the task does not have; none defined twice |
//! | `function_names` | all | must | no function renamed |
//! | `no_new_imports` | all | must | every import (at any depth) is one the task has |
//! | `no_module_names` | all | must | no module-level variables, classes or code (or `global`) beyond the reference's |
//! | `main_unchanged` | all | must | `main()` equals the reference's (normalised tree) |
//! | `main_guard_unchanged` | all | must | the `if __name__ …:` block equals the reference's |
//! | `required_parameter` | add_parameter, cache_function | must | `mult`/`prefix` (`default()`) or `temp` (reference's default) exactly where the reference has it |
//! | `parameter_passed` | add_parameter, cache_function | must | the parameter handed on in exactly the reference's calls |
//! | `library_calls` | all but dead code | must | `slow()`, the helper, `external()` called in exactly the reference's functions |
//! | `return_annotations` | add_return_value, extract_helper | must | `tuple[T, str]` / `tuple[T, H]` exactly where the reference has them |
//! | `edit_path` | all | nice | grading.md §4.3: the same functions changed as in the reference |
//! | `branch_placement` | runtime axis | must | grading.md §4.4: the same if/else blocks changed as in the reference ([`branches`]) |
//! | `constraint_structure` | the instructions axis | must | grading.md §4.5 ([`constraints`]): the reference's requirement lines in every function, as multisets, and (Cabrito) in the prescribed order, directly in the body, after the value is available and before its first use |
//! | `renames` | variable_renaming | must | `main()` is the starter's with the listed renames at every definition and use; no other name changed, none captured |
//! | `comment_copy` | the comment axis | must | the task's comment, word for word, on a line of its own inside every function the reference changes, and in no other |
//!
//! The kinds column is what the kinds and axes say: each lists its own items and their levels
//! ([`cabrito_gen::kinds::TaskKind::rubric`], [`cabrito_gen::axes::AxisDef::rubric`]); a kind may turn an item for
//! every kind off ([`rubric::Level::Off`]). Items for later kinds and axes (branch placement, constraint
//! structure, merge difference blocks) are further entries of [`rubric::CHECKS`].

#![warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]

pub mod branches;
pub mod comment;
pub mod constraints;
pub mod cpython;
pub mod diff;
pub mod existence;
pub mod grade;
pub mod merge;
pub mod program;
pub mod protocol;
pub mod renames;
pub mod response;
pub mod rubric;
pub mod source;

pub use response::{parse_response, Candidate, Format, ResponseError};
pub use rubric::{static_checks, Rubric, RubricItem, TaskRef};
