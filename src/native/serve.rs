//! `cabrito serve`: the built app and the worker on one port.

use super::cli::Failure;
use clap::{Arg, ArgMatches, Command};

pub fn command() -> Command {
    Command::new("serve")
        .about("Serve the playground (and, later, the grading worker)")
        .arg(Arg::new("addr").long("addr").default_value("127.0.0.1:8080").help("address to listen on"))
}

pub fn run(_m: &ArgMatches) -> Result<(), Failure> {
    Err(Failure::Other("serve is not built yet".into()))
}
