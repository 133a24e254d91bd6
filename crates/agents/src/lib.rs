//! Agents in the loop (pure core: runs in the browser and natively).
//!
//! - [`aci`]: the agent–computer interface — a workspace with the task's `solution.py` and its
//!   statement, the tools `view`, `search`, `edit`, `lint`, `run` (Python in the sandbox, through a
//!   [`Runner`] the shell provides) and `submit`, and every call recorded as a step of a trace in the
//!   plain trace format; no answer comes from the task's reference or hidden tests (D12);
//! - [`settings`]: the interface's settings (window, search cap, lint gate, protected paths),
//!   defined once for the CLI, the links and the app;
//! - [`strategies`]: scripted agents (`reader`, `navigator`, `myopic`) that act only through the tools;
//! - [`ledger`]: turns, tokens and cost under a price table, with the closed form `P·T + g·T(T−1)/2`;
//! - [`console`]: a student's commands (`view 40 80`, `search foo`, …) read into tool calls.

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
