//! Results of graded tasks, read and analysed in pure Rust so that the app's Results view and
//! `cabrito report` share every number and every figure.
//!
//! - [`input`]: bytes to text (gzip or not, size caps, bad UTF-8 reported, not fatal);
//! - [`runs`]: what a run name, a task set and a task type say (axis, `n`, domain, pass rule);
//! - [`read`]: result files of the reference (grading.md §1.5) and of `cabrito grade`, its
//!   `summary.json`, responses (the answers) and task records (the specs), into a [`Dataset`];
//! - [`aggregate`]: accuracy per model × axis × kind × domain × `n` with Wilson intervals, failing
//!   checks, comparison of two result sets with the tasks that flipped;
//! - [`paired`]: two models on the same tasks (McNemar, a paired bootstrap); [`frontier`]: the `n`
//!   at which a model's fitted success falls to 50%;
//! - [`csv`], [`plot`] and [`page`]: tables, SVG figures and the static report page;
//! - [`specs`]: the Cabrito spec behind a result, so a task can be opened from a plot.

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
