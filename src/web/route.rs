//! The URL fragment: see [`crate::playground::route`] (pure, natively tested); re-exported here for
//! the components.

pub use crate::playground::route::*;
