//! The playground's pure logic (no DOM; compiled and tested natively too): reading links
//! ([`route`]), the "share with solution" codec ([`share`]), the task page's shortcuts ([`keys`]), the grade panel's state and reducer
//! ([`panel`]) and what the task page hands it when it loads lazily ([`handoff`]), the `gen` module's answer as bytes ([`tape`]), what the runtime axis's views show ([`branches`]) and instruction following's
//! ([`requirements`]), and which lines of a long code block are rendered ([`window`]). `web` is the
//! DOM glue around them.

pub mod branches;
pub mod handoff;
pub mod handover;
pub mod keys;
pub mod panel;
pub mod requirements;
pub mod route;
pub mod share;
pub mod tape;
pub mod window;
