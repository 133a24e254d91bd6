//! Static checks of a candidate solution (pure: compiles for wasm): reading responses ([`response`],
//! [`diff`]), the one Python front end ([`source`], [`program`], [`cpython`]), the static rubric
//! ([`rubric`]) and its item modules, the grading plan and verdicts ([`grade`]), and the worker's
//! messages ([`protocol`]).
//!
//! ```text
//! file bytes ──source::decode──▶ text
//! response text ──parse_response(text, starter)──▶ Candidate { code, format, notes }
//! TaskRef { kind, domain, axis, starter, reference, metadata } ──static_checks(task, &code)──▶ Rubric
//! ```
//!
//! The rubric's items are one table, [`rubric::CHECKS`]; each item's function says what it checks.
//! Kinds and axes list the items they use and their levels
//! ([`cabrito_gen::kinds::TaskKind::rubric`], [`cabrito_gen::axes::AxisDef::rubric`]).

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
