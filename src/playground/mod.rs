//! The playground's pure logic (no DOM; compiled and tested natively too): reading links
//! ([`route`]), the "share with solution" codec ([`share`]) and the grade panel's state and reducer
//! ([`panel`]). `web` is the DOM glue around them.

pub mod panel;
pub mod route;
pub mod share;
