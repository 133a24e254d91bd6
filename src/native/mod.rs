//! The native shell: the command line, the worker, and everything that touches files, processes
//! and sockets.

pub mod cli;
pub mod generate;
pub mod grid;
pub mod serve;
