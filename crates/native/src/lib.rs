//! The native shell: the command line, the worker, and everything that touches files, processes
//! and sockets.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)] // the shell: files, processes, sockets, clocks

pub mod agent;
pub mod check;
pub mod cli;
pub mod code_cache;
pub mod export;
pub mod generate;
pub mod grade;
pub mod grid;
pub mod merge_layout;
pub mod merge_runner;
pub mod outdir;
pub mod pool;
pub mod records;
pub mod report;
pub mod run_tool;
pub mod runner;
pub mod sandbox;
pub mod serve;
pub mod solve;
pub mod traces;
pub mod walk;
pub mod worker;
