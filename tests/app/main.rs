//! The playground's pure logic natively: hostile input through the app → module hand-offs, and
//! the syntax colours' contrast in the stylesheets index.html links.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

mod contrast;
mod handoff_hostile;
mod sample_report;
