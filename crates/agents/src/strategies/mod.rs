//! Scripted agents: programs, not language models, that solve a task through the interface.
//!
//! A strategy is `fn(&mut Tools, &str)`: the [`Tools`] handle and the statement, nothing else. A
//! test reads this folder's sources to keep the task out of reach. A strategy knows what tool replies
//! showed it ([`know::Sight`], [`know::Model`]) and does what the statement asks ([`recipe::Recipe`]).
//!
//! - [`Strategy::Reader`] reads the whole file, then edits.
//! - [`Strategy::Navigator`] follows calls from what the statement names.
//! - [`Strategy::Myopic`] reads the top, searches once, and edits as if that were all.
//!
//! Numbered requirements: [`requirements`]; Merge Codebases: [`merge`].

pub mod guards;
pub mod know;
pub mod merge;
mod myopic;
mod navigator;
mod reader;
pub mod recipe;
pub mod requirements;

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
            Strategy::Reader => "reads the whole file window by window, then edits every function the statement's rules touch (finding Merge Codebases' differing lines by running code), lints and submits",
            Strategy::Navigator => "lists the def lines, starts from what the statement names, follows calls with search and views of single functions, edits, lints and submits",
            Strategy::Myopic => "reads the top two windows, searches once and views one window at the first hit, edits as if that were the whole file (keeping only the first ten numbered requirements in mind) and submits without linting",
        }
    }
    /// The model name its answers carry (`scripted/reader`).
    pub fn model(self) -> String {
        format!("scripted/{}", self.as_str())
    }

    /// Why the strategy cannot do the task this statement asks for, in one line (`None`: it can).
    /// Read from the statement alone, as everything a strategy knows; the CLI, the agents page and
    /// the tests all ask this before running one, and a refused task gets this line, not an answer.
    pub fn refuses(self, statement: &str) -> Option<String> {
        if merge::is_merge(statement) || recipe::Recipe::read(statement).is_some() {
            return None;
        }
        Some(format!(
            "{self} cannot do this task: the statement asks for a procedure the scripted strategies do not know (they follow the call-graph refactorings, their instruction-following versions, renaming and Merge Codebases)"
        ))
    }

    /// Run the strategy on the statement through the tools.
    /// A strategy that [refuses](Strategy::refuses) the task makes no call at all.
    pub fn run(self, tools: &mut Tools, statement: &str) {
        if self.refuses(statement).is_some() {
            return;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_generated_statement_is_taken_and_others_are_refused() {
        let merge = "Refactor `solution.py`: merge two calculators with the template method pattern.\n\n…";
        assert_eq!(Strategy::Reader.refuses(merge), None);
        let plain = "Refactor `solution.py`: remove dead code.\n\n…";
        assert_eq!(Strategy::Myopic.refuses(plain), None);
        assert!(Strategy::Myopic.refuses("Write a poem.").is_some_and(|w| w.starts_with("myopic cannot")));
    }
}
