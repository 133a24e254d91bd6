//! Agents in the loop (pure: runs in the browser and natively).
//!
//! - [`aci`]: the agent–computer interface: a workspace, six tools, every call a step of a trace; no
//!   answer comes from the task's reference or hidden tests (D12). `run` goes through a [`Runner`]
//!   the shell provides.
//! - [`settings`]: the interface's settings, defined once for the CLI, links and the app.
//! - [`strategies`]: scripted agents that act only through the tools.
//! - [`ledger`]: turns, tokens and cost under a price table.
//! - [`console`]: a student's commands read into tool calls; [`replay`]: what the agents page shows.

#![warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]

pub mod aci;
pub mod console;
pub mod ledger;
pub mod replay;
pub mod settings;
pub mod strategies;

pub use aci::{Aci, Runner, Step, Tools};
pub use ledger::{Ledger, Prices, TurnTokens};
pub use settings::Settings;
pub use strategies::Strategy;

/// Run a strategy on a task: a fresh session, the strategy's calls, the session returned.
pub fn run(
    task: &cabrito_gen::Task,
    strategy: Strategy,
    settings: Settings,
    runner: std::sync::Arc<dyn Runner>,
) -> Aci {
    let mut aci = Aci::for_task(task, settings, runner);
    let statement = aci.statement().to_string();
    strategy.run(&mut aci.tools(), &statement);
    aci
}
