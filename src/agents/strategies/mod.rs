//! Scripted agents: programs, not language models, that solve a task through the interface.
//!
//! A strategy is a function `fn(&mut Tools, &str)`: it gets the [`Tools`] handle (the five tools,
//! answering with text) and the problem statement, and nothing else. It cannot reach the session,
//! the task record, its graph, roles, edit set or reference: those are not in scope, and the
//! modules of this folder import nothing of the task (a test reads their sources to keep it so).
//! Everything a strategy knows it read from tool replies ([`know::Sight`]), understood with the
//! Python parser ([`know::Model`]), and changed as the statement's rules say ([`recipe::Recipe`]).
//!
//! - [`Strategy::Reader`] reads the whole file window by window, then edits;
//! - [`Strategy::Navigator`] lists the `def` lines, starts from what the statement names and
//!   follows calls with `search` and views of single functions;
//! - [`Strategy::Myopic`] reads the top of the file, makes one search and one more view, and
//!   edits as if that were the whole program; it never checks.

pub mod know;
mod myopic;
mod navigator;
mod reader;
pub mod recipe;

use super::aci::Tools;
use recipe::{Change, Plan};

/// The scripted strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    Reader,
    Navigator,
    Myopic,
}

impl Strategy {
    pub const ALL: &'static [Strategy] = &[Strategy::Reader, Strategy::Navigator, Strategy::Myopic];
    pub const NAMES: &'static [&'static str] = &["reader", "navigator", "myopic"];

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Reader => "reader",
            Strategy::Navigator => "navigator",
            Strategy::Myopic => "myopic",
        }
    }
    pub fn parse(s: &str) -> Option<Strategy> {
        Strategy::ALL.iter().copied().find(|x| x.as_str() == s.trim())
    }
    /// A one-line error naming the strategies.
    pub fn parse_or_explain(s: &str) -> Result<Strategy, String> {
        Strategy::parse(s).ok_or_else(|| {
            format!(
                "unknown strategy '{}' (strategies: {})",
                s.chars().filter(|c| !c.is_control()).take(40).collect::<String>(),
                Strategy::NAMES.join(", ")
            )
        })
    }
    /// What it does, in one sentence.
    pub fn describe(self) -> &'static str {
        match self {
            Strategy::Reader => "reads the whole file window by window, then edits every function the statement's rules touch, checks and submits",
            Strategy::Navigator => "lists the def lines, starts from what the statement names, follows calls with search and views of single functions, edits, checks and submits",
            Strategy::Myopic => "reads the top two windows, searches once and views one window at the first hit, edits as if that were the whole file and submits without checking",
        }
    }
    /// The model name its answers carry (`scripted/reader`).
    pub fn model(self) -> String {
        format!("scripted/{}", self.as_str())
    }

    /// Run the strategy on the statement through the tools.
    pub fn run(self, tools: &mut Tools, statement: &str) {
        match self {
            Strategy::Reader => reader::run(tools, statement),
            Strategy::Navigator => navigator::run(tools, statement),
            Strategy::Myopic => myopic::run(tools, statement),
        }
        if !tools.ended() {
            tools.submit();
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Make a plan's changes: deletions from the bottom up (by lines, so earlier lines keep their
/// numbers), then rewrites (by their seen text, which does not depend on line numbers).
fn apply(tools: &mut Tools, plan: &Plan) {
    let mut deletions: Vec<(usize, usize)> = plan
        .changes
        .iter()
        .filter_map(|c| match c {
            Change::Delete { first, last, .. } => Some((*first, *last)),
            Change::Rewrite { .. } => None,
        })
        .collect();
    deletions.sort_by(|a, b| b.cmp(a));
    for (first, last) in deletions {
        tools.replace_lines(first, last, "");
    }
    for c in &plan.changes {
        if let Change::Rewrite { old, new, .. } = c {
            tools.replace(old, new);
        }
    }
}
