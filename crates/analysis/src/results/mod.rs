//! Results of graded tasks, read and analysed in pure Rust, so the app's Results view and
//! `cabrito report` share every number and figure.
//!
//! - [`input`]: bytes to text; [`runs`]: what run names, task sets and task types say;
//! - [`read`]: result files, summaries, responses and task records into a [`Dataset`];
//! - [`aggregate`]: accuracy with Wilson intervals, failing checks, comparisons;
//! - [`paired`]: two models on the same tasks; [`frontier`]: where success falls to 50%;
//! - [`csv`], [`plot`] and [`page`]: tables, SVG figures and the static report;
//! - [`specs`]: the Cabrito spec behind a result, so a task opens from a plot.

pub mod aggregate;
pub mod csv;
pub mod figures;
pub mod frontier;
pub mod input;
pub mod page;
pub mod paired;
pub mod plot;
pub mod read;
pub mod runs;
pub mod specs;

pub use aggregate::{Facet, Point, Series};
pub use input::Problem;
pub use read::{Dataset, TaskResult};
