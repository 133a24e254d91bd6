//! Static checks of a candidate solution (pure: compiles for wasm): reading responses
//! ([`response`]) and the static rubric ([`rubric`]).

pub mod response;

pub use response::{parse_response, Candidate, Format, ResponseError};
