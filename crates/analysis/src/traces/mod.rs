//! Agent traces, read and analysed for the app's Trace view and `cabrito traces`.
//!
//! - [`copilot`]: GitHub Copilot CLI `events.jsonl` (grading.md §8.1–§8.2);
//! - [`plain`]: Cabrito's plain trace format, read and written;
//! - [`classify`]: the paper's labels for tool calls (§8.3), by rules ([`shell`] reads commands);
//! - [`Session`]: tokens per call (§8.6) and session usage (§8.7);
//! - [`touch`]: the functions a call looked at or changed;
//! - [`figures`]: the paper's figure 3 and table 2.

pub mod classify;
pub mod copilot;
pub mod figures;
pub mod join;
pub mod plain;
pub mod shell;
pub mod touch;

use crate::results::{input, input::Problem};
use serde::{Deserialize, Serialize};

/// The paper's labels (grading.md §8.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Read,
    Search,
    Understand,
    Edit,
    Test,
    Summary,
    Plan,
    Other,
}

impl Label {
    pub const ALL: &'static [Label] = &[
        Label::Read,
        Label::Search,
        Label::Understand,
        Label::Edit,
        Label::Test,
        Label::Summary,
        Label::Plan,
        Label::Other,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Read => "read",
            Label::Search => "search",
            Label::Understand => "understand",
            Label::Edit => "edit",
            Label::Test => "test",
            Label::Summary => "summary",
            Label::Plan => "plan",
            Label::Other => "other",
        }
    }
    /// A label as written by people or models; `verify` is `test` (as the reference accepts it).
    pub fn parse(s: &str) -> Option<Label> {
        let s = s.trim().to_ascii_lowercase();
        if s == "verify" {
            return Some(Label::Test);
        }
        Label::ALL.iter().copied().find(|l| l.as_str() == s)
    }
    /// The paper's plot group: understand → Analyze; summary, plan and other → Other.
    pub fn group(self) -> Group {
        match self {
            Label::Read => Group::Read,
            Label::Search => Group::Search,
            Label::Understand => Group::Analyze,
            Label::Edit => Group::Edit,
            Label::Test => Group::Test,
            Label::Summary | Label::Plan | Label::Other => Group::Other,
        }
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The groups of the paper's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    Analyze,
    Read,
    Search,
    Edit,
    Test,
    Other,
}

impl Group {
    pub const ALL: &'static [Group] =
        &[Group::Analyze, Group::Read, Group::Search, Group::Edit, Group::Test, Group::Other];
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Analyze => "Analyze",
            Group::Read => "Read",
            Group::Search => "Search",
            Group::Edit => "Edit",
            Group::Test => "Test",
            Group::Other => "Other",
        }
    }
}

/// One tool call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolCall {
    /// Running index over the whole trace, from 0 (the reference's `tool_call_index`).
    pub index: usize,
    /// The turn (model message) that requested it.
    pub turn: usize,
    /// Position among the turn's requests (`tool_request_index`).
    pub request_index: usize,
    pub tool: String,
    /// The arguments (an object, or the raw string the model sent).
    pub arguments: serde_json::Value,
    pub output: Option<String>,
    pub success: Option<bool>,
    /// Output tokens of its turn divided by the turn's calls (§8.6); `None` when the turn has no
    /// count.
    pub output_tokens: Option<f64>,
    pub intention: String,
    /// A label the trace itself gives (a person's correction, a scripted agent's own).
    pub given_label: Option<Label>,
    /// The rule classifier's label and the rule that decided it.
    pub label: Label,
    pub rule: String,
    /// The shell session id (`read_bash` and friends), used to label them like the call that
    /// opened the session.
    #[serde(skip)]
    pub shell_id: Option<String>,
}

impl ToolCall {
    /// The label shown and counted: the trace's own when it has one, else the classifier's.
    pub fn effective_label(&self) -> Label {
        self.given_label.unwrap_or(self.label)
    }
}

/// One model turn: what it said and what it cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Turn {
    pub index: usize,
    pub content: String,
    pub reasoning: String,
    pub input_tokens: Option<f64>,
    pub cached_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
    /// Indices into [`Session::calls`].
    pub calls: Vec<usize>,
}

/// Token and cost totals of a session (§8.7).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Usage {
    pub input_tokens: Option<f64>,
    pub cache_read_tokens: Option<f64>,
    pub cache_write_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
    pub total_tokens: Option<f64>,
    pub total_nano_aiu: Option<f64>,
    pub total_premium_requests: Option<f64>,
    /// Where the totals came from (`session.shutdown`, `session.usage_checkpoint`, `usage`,
    /// `turns`, or `none`).
    pub usage_source: String,
    /// Where the token counts came from (`tokenDetails`, `messages`, `usage`, `turns`, `none`).
    pub token_usage_source: String,
}

impl Usage {
    /// AIU = nano AIU / 1e9.
    pub fn total_aiu(&self) -> Option<f64> {
        self.total_nano_aiu.map(|n| n / 1e9)
    }
}

/// What task a session worked on, as far as the trace (or a join) says.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TaskRef {
    pub run: String,
    pub task_set: String,
    pub task_type: String,
    pub dag_id: String,
    pub name: String,
    /// The share-link query of the Cabrito task, when known.
    pub link: Option<String>,
}

/// The trace formats read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Copilot,
    Plain,
}

/// One agent session.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Session {
    pub id: String,
    pub format: Format,
    pub model: String,
    pub agent: String,
    pub calls: Vec<ToolCall>,
    pub turns: Vec<Turn>,
    pub usage: Usage,
    pub task: TaskRef,
    /// Lines that could not be read, with their numbers.
    #[serde(skip)]
    pub problems: Vec<Problem>,
    /// Where it was read from.
    pub path: String,
}

impl Session {
    /// Label every call by the rules (read_bash and friends take the label of the call that
    /// opened their shell).
    pub fn classify(&mut self) {
        let mut opened: std::collections::HashMap<String, (classify::Labelled, bool)> = Default::default();
        for c in self.calls.iter_mut() {
            let v = classify::classify(&c.tool, &c.arguments);
            let follows = classify::follows_shell(&c.tool);
            match (&c.shell_id, follows) {
                (Some(id), true) => {
                    if let Some((prev, _)) = opened.get(id) {
                        c.label = prev.label;
                        c.rule = format!("reads the shell opened by an earlier call ({})", prev.rule);
                        continue;
                    }
                }
                (Some(id), false) => {
                    opened.insert(id.clone(), (v.clone(), true));
                }
                _ => {}
            }
            c.label = v.label;
            c.rule = v.rule;
        }
    }

    /// Output tokens of the whole session per §8.6 (the sum over calls; `None` if no call has
    /// a count).
    pub fn call_tokens(&self) -> Option<f64> {
        let v: Vec<f64> = self.calls.iter().filter_map(|c| c.output_tokens).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    }
}

/// Split an `events.jsonl` path into the session id (its folder's name, as the reference lays
/// traces out) or the file stem.
pub fn session_id_of(path: &str) -> String {
    let comps: Vec<&str> = path.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
    let file = comps.last().copied().unwrap_or("");
    let stem = crate::results::read::stem(file);
    if (stem == "events" || stem == "trace") && comps.len() >= 2 {
        comps[comps.len() - 2].to_string()
    } else {
        stem.to_string()
    }
}

/// Read one trace file (Copilot events or the plain format, gzipped or not) and label its calls.
pub fn read_trace(path: &str, bytes: &[u8]) -> Result<Session, Problem> {
    read_trace_from(path, bytes)
}

/// [`read_trace`] from a reader (a file the caller opened), read as a stream one line at a time.
pub fn read_trace_from<R: std::io::Read>(path: &str, reader: R) -> Result<Session, Problem> {
    let mut lines = input::Source::new(path, reader, input::MAX_TEXT_BYTES).lines();
    let Some(first) = lines.next() else {
        return Err(lines.problems.pop().unwrap_or_else(|| Problem::file(path, "is empty")));
    };
    let copilot = copilot::looks_like(&first.1);
    let mut all = std::iter::once(first).chain(&mut lines);
    let mut s = if copilot { copilot::read_lines(path, &mut all) } else { plain::read_lines(path, &mut all) };
    drop(all);
    if !lines.problems.is_empty() {
        let mut p = std::mem::take(&mut lines.problems);
        p.append(&mut s.problems);
        s.problems = p;
    }
    s.classify();
    Ok(s)
}
