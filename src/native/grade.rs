//! `cabrito grade` (being built).

use super::cli::Failure;
use clap::{ArgMatches, Command};

pub fn command() -> Command {
    Command::new("grade").about("(not built yet)")
}

pub fn run(_m: &ArgMatches) -> Result<(), Failure> {
    Err(Failure::Other("grade is not built yet".into()))
}
