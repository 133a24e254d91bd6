//! Static checks of a candidate solution (pure: compiles for wasm): reading responses
//! ([`response`]), parsing and normalising Python ([`program`]) and the static rubric ([`rubric`]).

pub mod program;
pub mod response;
pub mod rubric;

pub use response::{parse_response, Candidate, Format, ResponseError};
pub use rubric::{static_checks, Item, Rubric, TaskRef};
