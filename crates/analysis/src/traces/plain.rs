//! Cabrito's plain trace format: JSON Lines, one object per tool call, for any agent. The scripted
//! agents, `cabrito agent` and `cabrito solve` write it; docs/cli.md specifies it.
//!
//! ```text
//! {"type":"session","format":"cabrito-trace/1","session_id":"…","agent":"navigator","task":{…}}
//! {"tool":"view","arguments":{"path":"solution.py","start":1,"end":40},"output":"…","turn":0,
//!  "tokens":{"input":1520,"cached":0,"output":31}}
//! {"type":"message","turn":7,"content":"Done.","tokens":{"input":5400,"cached":5100,"output":12}}
//! {"type":"usage","input":21000,"cached":15000,"output":300}
//! ```
//!
//! Unknown keys are ignored; an unreadable line is reported with its number and skipped. A turn's
//! output tokens are split evenly over its calls (grading.md §8.6); a `usage` line wins over the sum
//! of the turns.

use super::{Format, Label, Session, TaskRef, ToolCall, Turn, Usage};
use crate::results::{input, input::Problem};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The format's name and version, in the `session` line.
pub const FORMAT: &str = "cabrito-trace/1";

/// The first line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    #[serde(rename = "type")]
    pub kind: String,
    pub format: String,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub agent: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<PlainTask>,
}

/// The task a session worked on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlainTask {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub dag_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub task_set: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub task_type: String,
    /// The share link (`#/task?v=1&…`) of a Cabrito task.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub link: String,
}

/// Token figures of a turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<f64>,
}

/// One call line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlainCall {
    pub tool: String,
    #[serde(default)]
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Label>,
}

impl Header {
    pub fn new(session_id: &str, agent: &str, model: &str, task: Option<PlainTask>) -> Header {
        Header {
            kind: "session".into(),
            format: FORMAT.into(),
            session_id: session_id.into(),
            agent: agent.into(),
            model: model.into(),
            task,
        }
    }
}

/// Write a session as plain-format lines (for producers: a header, then one line per call).
pub fn write(header: &Header, calls: &[PlainCall]) -> String {
    let mut out = serde_json::to_string(header).expect("a header serialises");
    out.push('\n');
    for c in calls {
        out.push_str(&serde_json::to_string(c).expect("a call serialises"));
        out.push('\n');
    }
    out
}

fn num(v: Option<&Value>) -> Option<f64> {
    v.and_then(|x| x.as_f64().or_else(|| x.as_str().and_then(|s| s.parse().ok())))
        .filter(|x| x.is_finite() && *x >= 0.0)
}

fn tokens_of(obj: &Value) -> (Option<f64>, Option<f64>, Option<f64>) {
    match obj.get("tokens") {
        Some(t) if t.is_object() => (
            num(t.get("input")).or_else(|| num(t.get("input_tokens"))).or_else(|| num(t.get("prompt_tokens"))),
            num(t.get("cached")).or_else(|| num(t.get("cached_input"))).or_else(|| num(t.get("cache_read"))),
            num(t.get("output")).or_else(|| num(t.get("output_tokens"))).or_else(|| num(t.get("completion_tokens"))),
        ),
        Some(t) => (None, None, num(Some(t))),
        None => (num(obj.get("input_tokens")), num(obj.get("cached_tokens")), num(obj.get("output_tokens"))),
    }
}

fn text(obj: &Value, keys: &[&str]) -> String {
    keys.iter()
        .find_map(|k| obj.get(*k))
        .map(|v| {
            v.as_str().map(str::to_string).unwrap_or_else(|| if v.is_null() { String::new() } else { v.to_string() })
        })
        .unwrap_or_default()
}

/// Read a plain trace (calls are left unlabelled; [`Session::classify`] labels them).
pub fn read(path: &str, text_all: &str) -> Session {
    read_lines(path, input::numbered_lines(text_all))
}

/// [`read`] from numbered lines (a file read as a stream).
pub fn read_lines<S: AsRef<str>>(path: &str, lines: impl Iterator<Item = (usize, S)>) -> Session {
    let mut s = Session {
        id: super::session_id_of(path),
        format: Format::Plain,
        model: String::new(),
        agent: String::new(),
        calls: Vec::new(),
        turns: Vec::new(),
        usage: Usage::default(),
        task: TaskRef::default(),
        problems: Vec::new(),
        path: path.to_string(),
    };
    // turn number → (content, reasoning, tokens, calls)
    let mut turns: BTreeMap<u64, Turn> = BTreeMap::new();
    let mut call_turns: Vec<u64> = Vec::new();
    let mut last_turn: Option<u64> = None;
    let mut usage_line: Option<Value> = None;
    let set_tokens = |t: &mut Turn, (i, c, o): (Option<f64>, Option<f64>, Option<f64>)| {
        t.input_tokens = t.input_tokens.or(i);
        t.cached_tokens = t.cached_tokens.or(c);
        t.output_tokens = t.output_tokens.or(o);
    };
    for (lineno, line) in lines {
        let obj: Value = match serde_json::from_str(line.as_ref()) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                s.problems.push(Problem::line(path, lineno, "not a JSON object"));
                continue;
            }
            Err(e) => {
                s.problems.push(Problem::line(path, lineno, format!("not JSON ({e})")));
                continue;
            }
        };
        let kind =
            obj.get("type").and_then(Value::as_str).unwrap_or(if obj.get("tool").is_some() { "call" } else { "" });
        match kind {
            "session" => {
                if let Some(id) = obj.get("session_id").and_then(Value::as_str).filter(|x| !x.is_empty()) {
                    s.id = id.to_string();
                }
                s.agent = text(&obj, &["agent"]);
                s.model = text(&obj, &["model"]);
                if let Some(t) = obj.get("task").filter(|t| t.is_object()) {
                    let link = text(t, &["link"]);
                    let link = if link.is_empty() {
                        t.get("spec").and_then(crate::results::read::spec_query)
                    } else {
                        Some(crate::results::read::link_query(&link))
                    };
                    s.task = TaskRef {
                        run: text(t, &["run", "run_name"]),
                        task_set: text(t, &["task_set", "task_set_name"]),
                        task_type: text(t, &["task_type", "kind"]),
                        dag_id: text(t, &["dag_id"]),
                        name: text(t, &["name", "task_name"]),
                        link,
                    };
                }
            }
            "call" => {
                let Some(tool) = obj.get("tool").and_then(Value::as_str) else {
                    s.problems.push(Problem::line(path, lineno, "a call without a 'tool' string"));
                    continue;
                };
                let turn = obj.get("turn").and_then(Value::as_u64).unwrap_or_else(|| last_turn.map_or(0, |t| t + 1));
                last_turn = Some(turn);
                let t = turns.entry(turn).or_default();
                set_tokens(t, tokens_of(&obj));
                if t.reasoning.is_empty() {
                    t.reasoning = text(&obj, &["thought", "reasoning"]);
                }
                if t.content.is_empty() {
                    t.content = text(&obj, &["content"]);
                }
                let arguments = obj
                    .get("arguments")
                    .or_else(|| obj.get("args"))
                    .or_else(|| obj.get("input"))
                    .cloned()
                    .unwrap_or(Value::Null);
                let output = obj
                    .get("output")
                    .or_else(|| obj.get("result"))
                    .map(|o| o.as_str().map(str::to_string).unwrap_or_else(|| o.to_string()));
                let index = s.calls.len();
                s.calls.push(ToolCall {
                    index,
                    turn: 0,
                    request_index: 0,
                    tool: tool.to_string(),
                    shell_id: None,
                    arguments,
                    output: output.map(|o| input::clip(&o, 200_000)),
                    success: obj.get("success").and_then(Value::as_bool),
                    output_tokens: None,
                    intention: text(&obj, &["intention", "intentionSummary"]),
                    given_label: obj.get("label").and_then(Value::as_str).and_then(Label::parse),
                    label: Label::Other,
                    rule: String::new(),
                });
                call_turns.push(turn);
            }
            "message" => {
                let turn = obj.get("turn").and_then(Value::as_u64).unwrap_or_else(|| last_turn.map_or(0, |t| t + 1));
                last_turn = Some(turn);
                let t = turns.entry(turn).or_default();
                set_tokens(t, tokens_of(&obj));
                if t.content.is_empty() {
                    t.content = text(&obj, &["content", "text"]);
                }
            }
            "usage" => usage_line = Some(obj),
            other => {
                s.problems.push(Problem::line(path, lineno, format!("unknown line type '{}'", input::clip(other, 40))))
            }
        }
    }
    // Number the turns in order, attach their calls, split output tokens (§8.6).
    let order: BTreeMap<u64, usize> = turns.keys().enumerate().map(|(i, k)| (*k, i)).collect();
    s.turns = turns
        .into_values()
        .enumerate()
        .map(|(i, mut t)| {
            t.index = i;
            t
        })
        .collect();
    for (ci, tk) in call_turns.iter().enumerate() {
        let ti = order[tk];
        s.calls[ci].turn = ti;
        s.calls[ci].request_index = s.turns[ti].calls.len();
        s.turns[ti].calls.push(ci);
    }
    for t in &s.turns {
        let k = t.calls.len();
        for &ci in &t.calls {
            s.calls[ci].output_tokens = t.output_tokens.map(|o| o / k as f64);
        }
    }
    let sum = |f: fn(&Turn) -> Option<f64>| -> Option<f64> {
        let v: Vec<f64> = s.turns.iter().filter_map(f).collect();
        (!v.is_empty()).then(|| v.iter().sum())
    };
    s.usage = match usage_line {
        Some(u) => Usage {
            input_tokens: num(u.get("input")).or_else(|| num(u.get("input_tokens"))),
            cache_read_tokens: num(u.get("cached")).or_else(|| num(u.get("cache_read"))),
            cache_write_tokens: num(u.get("cache_write")),
            output_tokens: num(u.get("output")).or_else(|| num(u.get("output_tokens"))),
            total_tokens: None,
            total_nano_aiu: num(u.get("nano_aiu")),
            total_premium_requests: num(u.get("premium_requests")),
            usage_source: "usage".into(),
            token_usage_source: "usage".into(),
        },
        None => {
            let any = s.turns.iter().any(|t| t.input_tokens.is_some() || t.output_tokens.is_some());
            Usage {
                input_tokens: sum(|t| t.input_tokens),
                cache_read_tokens: sum(|t| t.cached_tokens),
                output_tokens: sum(|t| t.output_tokens),
                usage_source: if any { "turns".into() } else { "none".into() },
                token_usage_source: if any { "turns".into() } else { "none".into() },
                ..Usage::default()
            }
        }
    };
    // Cached input is part of the input: the total counts input and output once each.
    let parts: Vec<f64> =
        [s.usage.input_tokens, s.usage.output_tokens, s.usage.cache_write_tokens].into_iter().flatten().collect();
    s.usage.total_tokens = (!parts.is_empty()).then(|| parts.iter().sum());
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_written_trace_reads_back() {
        let header = Header::new(
            "run-7",
            "navigator",
            "scripted/navigator",
            Some(PlainTask {
                name: "math_function_add_parameter_x".into(),
                dag_id: "x".into(),
                link: "#/task?v=1&n=5".into(),
                ..PlainTask::default()
            }),
        );
        let calls = vec![
            PlainCall {
                tool: "view".into(),
                arguments: json!({"path": "solution.py", "start": 1, "end": 40}),
                output: Some("1: import math".into()),
                turn: Some(0),
                tokens: Some(Tokens { input: Some(1000.0), cached: Some(0.0), output: Some(20.0) }),
                ..PlainCall::default()
            },
            PlainCall {
                tool: "search".into(),
                arguments: json!({"pattern": "slow("}),
                turn: Some(1),
                tokens: Some(Tokens { input: Some(1100.0), cached: Some(1000.0), output: Some(30.0) }),
                ..PlainCall::default()
            },
            PlainCall {
                tool: "edit".into(),
                arguments: json!({"path": "solution.py", "old": "a", "new": "b"}),
                turn: Some(1),
                label: Some(Label::Edit),
                ..PlainCall::default()
            },
        ];
        let text = write(&header, &calls)
            + "{\"type\":\"message\",\"content\":\"done\",\"tokens\":{\"input\":1200,\"output\":5}}\n";
        let mut s = read("t.jsonl", &text);
        s.classify();
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        assert_eq!((s.id.as_str(), s.agent.as_str(), s.model.as_str()), ("run-7", "navigator", "scripted/navigator"));
        assert_eq!(s.task.link.as_deref(), Some("v=1&n=5"));
        assert_eq!(s.calls.len(), 3);
        assert_eq!(s.turns.len(), 3);
        assert_eq!(s.calls[1].output_tokens, Some(15.0));
        assert_eq!(s.calls[2].output_tokens, Some(15.0));
        assert_eq!(s.calls[0].label, Label::Read);
        assert_eq!(s.calls[1].label, Label::Search);
        assert_eq!(s.calls[2].given_label, Some(Label::Edit));
        assert_eq!(s.usage.input_tokens, Some(3300.0));
        assert_eq!(s.usage.cache_read_tokens, Some(1000.0));
        assert_eq!(s.usage.output_tokens, Some(55.0));
        assert_eq!(s.usage.total_tokens, Some(3355.0));
    }

    #[test]
    fn bare_calls_default_to_one_turn_each() {
        let s = read("x.jsonl", "{\"tool\":\"bash\",\"arguments\":{\"command\":\"ls\"},\"tokens\":{\"output\":4}}\n[1]\n{\"tool\":\"view\",\"arguments\":\"{}\",\"output_tokens\":6}\n{\"type\":\"usage\",\"input\":10,\"output\":10}\n{\"arguments\":{}}");
        assert_eq!(s.calls.len(), 2);
        assert_eq!((s.calls[0].turn, s.calls[1].turn), (0, 1));
        assert_eq!((s.calls[0].output_tokens, s.calls[1].output_tokens), (Some(4.0), Some(6.0)));
        assert_eq!(s.usage.usage_source, "usage");
        assert_eq!(s.usage.total_tokens, Some(20.0));
        assert_eq!(s.problems.iter().map(|p| p.line.unwrap()).collect::<Vec<_>>(), vec![2, 5]);
    }
}
