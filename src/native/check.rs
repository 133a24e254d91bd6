//! `cabrito check` (being built).

use super::cli::Failure;
use clap::{ArgMatches, Command};

pub fn command() -> Command {
    Command::new("check").about("(not built yet)")
}

pub fn run(_m: &ArgMatches) -> Result<(), Failure> {
    Err(Failure::Other("check is not built yet".into()))
}
