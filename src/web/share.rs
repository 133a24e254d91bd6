//! "Share with solution": see [`crate::playground::share`] (pure, natively tested); re-exported here
//! for the components.

pub use crate::playground::share::*;
