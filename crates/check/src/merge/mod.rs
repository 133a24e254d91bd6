//! Merge Codebases' checks: the class structure the rubric and the grader judge ([`structure`]) and
//! the behavioural check's vectors, request and verdict ([`behaviour`]).

pub mod behaviour;
pub mod structure;
