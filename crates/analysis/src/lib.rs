//! Results and traces, read and analysed: accuracy with intervals, failing checks, comparisons and
//! their figures ([`results`]); agent sessions, the tool-call classifier and its figures ([`traces`]).
//! Pure: the Results and Traces views in the browser and `cabrito report` / `cabrito traces` share it.
#![warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]

pub mod results;
pub mod traces;
