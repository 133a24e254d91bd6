//! The native shell: the command line, the worker, and everything that touches files, processes
//! and sockets.

pub mod check;
pub mod cli;
pub mod generate;
pub mod grade;
pub mod grid;
pub mod runner;
pub mod sandbox;
pub mod serve;
pub mod worker;
