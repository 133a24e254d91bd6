//! GitHub Copilot CLI traces (`events.jsonl`, grading.md §8.1–§8.2, §8.6–§8.7): one event per line,
//! `{type, timestamp, data}`. A tool call is one entry of an `assistant.message`'s `toolRequests`,
//! indexed over the whole trace in file order; its result comes from the matching
//! `tool.execution_complete` (by `toolCallId`).

use super::{Format, Session, TaskRef, ToolCall, Turn, Usage};
use crate::results::{input, input::Problem};
use serde_json::Value;
use std::collections::HashMap;

/// Whether a first line is a Copilot event (`{"type": "session.start", "data": …}`).
pub fn looks_like(first_line: &str) -> bool {
    match serde_json::from_str::<Value>(first_line) {
        Ok(v) => {
            v.get("type").and_then(Value::as_str).is_some_and(|t| t.contains('.'))
                && v.get("data").is_some_and(Value::is_object)
        }
        Err(_) => false,
    }
}

fn num(v: Option<&Value>) -> Option<f64> {
    v.and_then(|x| x.as_f64().or_else(|| x.as_str().and_then(|s| s.parse().ok()))).filter(|x| x.is_finite())
}

fn first_num(data: &Value, keys: &[&str]) -> Option<f64> {
    keys.iter().find_map(|k| num(data.get(*k)))
}

/// The model an event names: data.model / modelName / selectedModel, a string or an object with
/// `id` or `name`.
fn model_of(data: &Value) -> Option<String> {
    ["model", "modelName", "selectedModel", "newModel"].iter().find_map(|k| {
        let v = data.get(*k)?;
        v.as_str()
            .map(str::to_string)
            .or_else(|| v.get("id").or_else(|| v.get("name")).and_then(Value::as_str).map(str::to_string))
    })
}

fn token_count(details: &Value, key: &str) -> Option<f64> {
    let d = details.get(key)?;
    num(d.get("tokenCount")).or_else(|| num(Some(d)))
}

/// Session usage (§8.7): the last `session.shutdown` data, else the last
/// `session.usage_checkpoint`; tokens from its `tokenDetails`, else summed over messages.
fn usage(shutdown: Option<&Value>, checkpoint: Option<&Value>, msg_in: Option<f64>, msg_out: Option<f64>) -> Usage {
    let (data, source) = match (shutdown, checkpoint) {
        (Some(d), _) => (Some(d), "session.shutdown"),
        (None, Some(d)) => (Some(d), "session.usage_checkpoint"),
        (None, None) => (None, "none"),
    };
    let mut u = Usage { usage_source: source.to_string(), ..Usage::default() };
    if let Some(d) = data {
        u.total_nano_aiu = num(d.get("totalNanoAiu"));
        u.total_premium_requests = num(d.get("totalPremiumRequests"));
    }
    match data.and_then(|d| d.get("tokenDetails")).filter(|t| t.is_object()) {
        Some(t) => {
            u.input_tokens = token_count(t, "input");
            u.output_tokens = token_count(t, "output");
            u.cache_read_tokens = token_count(t, "cache_read");
            u.cache_write_tokens = token_count(t, "cache_write");
            u.token_usage_source = "tokenDetails".into();
        }
        None => {
            u.input_tokens = msg_in;
            u.output_tokens = msg_out;
            u.token_usage_source =
                if msg_in.is_some() || msg_out.is_some() { "messages".into() } else { "none".into() };
        }
    }
    let parts: Vec<f64> =
        [u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens].into_iter().flatten().collect();
    u.total_tokens = (!parts.is_empty()).then(|| parts.iter().sum());
    u
}

fn shell_id(args: &Value) -> Option<String> {
    ["sessionId", "shellId", "shell_id", "session_id", "bash_id"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str).map(str::to_string))
}

/// Read an events.jsonl (calls are left unlabelled; [`Session::classify`] labels them).
pub fn read(path: &str, text: &str) -> Session {
    read_lines(path, input::numbered_lines(text))
}

/// [`read`] from numbered lines (a file read as a stream).
pub fn read_lines<S: AsRef<str>>(path: &str, lines: impl Iterator<Item = (usize, S)>) -> Session {
    let mut s = Session {
        id: super::session_id_of(path),
        format: Format::Copilot,
        model: String::new(),
        agent: "copilot".into(),
        calls: Vec::new(),
        turns: Vec::new(),
        usage: Usage::default(),
        task: TaskRef::default(),
        problems: Vec::new(),
        path: path.to_string(),
    };
    let mut by_id: HashMap<String, usize> = HashMap::new();
    let mut shutdown: Option<Value> = None;
    let mut checkpoint: Option<Value> = None;
    let (mut msg_in, mut msg_out): (Option<f64>, Option<f64>) = (None, None);
    let mut session_data_id: Option<String> = None;
    for (lineno, line) in lines {
        let ev: Value = match serde_json::from_str(line.as_ref()) {
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
        let kind = ev.get("type").and_then(Value::as_str).unwrap_or("");
        let empty = Value::Object(Default::default());
        let data = ev.get("data").filter(|d| d.is_object()).unwrap_or(&empty);
        if s.model.is_empty() {
            if let Some(m) = model_of(data) {
                s.model = m;
            }
        }
        match kind {
            "session.start" => {
                session_data_id = data.get("sessionId").and_then(Value::as_str).map(str::to_string);
            }
            "assistant.message" => {
                let usage = data.get("usage").unwrap_or(&empty);
                let out = first_num(data, &["outputTokens"])
                    .or_else(|| first_num(usage, &["outputTokens", "output_tokens", "completion_tokens"]));
                let inp = first_num(data, &["inputTokens"])
                    .or_else(|| first_num(usage, &["inputTokens", "input_tokens", "prompt_tokens"]));
                let cached = first_num(data, &["cacheReadTokens", "cachedTokens"])
                    .or_else(|| first_num(usage, &["cache_read_input_tokens", "cached_tokens"]));
                if let Some(x) = out {
                    msg_out = Some(msg_out.unwrap_or(0.0) + x);
                }
                if let Some(x) = inp {
                    msg_in = Some(msg_in.unwrap_or(0.0) + x);
                }
                let turn = s.turns.len();
                let requests: Vec<&Value> = data
                    .get("toolRequests")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter(|r| r.is_object()).collect())
                    .unwrap_or_default();
                let k = requests.len();
                let mut ids = Vec::new();
                for (ri, r) in requests.into_iter().enumerate() {
                    let index = s.calls.len();
                    let arguments = r.get("arguments").cloned().unwrap_or(Value::Null);
                    let args_obj = super::classify::arguments_ref(&arguments);
                    if let Some(id) = r.get("toolCallId").and_then(Value::as_str) {
                        by_id.insert(id.to_string(), index);
                    }
                    s.calls.push(ToolCall {
                        index,
                        turn,
                        request_index: ri,
                        tool: r.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
                        shell_id: shell_id(&args_obj),
                        arguments,
                        output: None,
                        success: None,
                        output_tokens: out.map(|o| o / k as f64),
                        intention: r.get("intentionSummary").and_then(Value::as_str).unwrap_or("").to_string(),
                        given_label: None,
                        label: super::Label::Other,
                        rule: String::new(),
                    });
                    ids.push(index);
                }
                s.turns.push(Turn {
                    index: turn,
                    content: data.get("content").and_then(Value::as_str).unwrap_or("").to_string(),
                    reasoning: data.get("reasoningText").and_then(Value::as_str).unwrap_or("").to_string(),
                    input_tokens: inp,
                    cached_tokens: cached,
                    output_tokens: out,
                    calls: ids,
                });
            }
            "tool.execution_start" => {
                // Arguments the request left out (older traces) come from the start event.
                if let Some(&i) = data.get("toolCallId").and_then(Value::as_str).and_then(|id| by_id.get(id)) {
                    let c = &mut s.calls[i];
                    if c.arguments.is_null() {
                        if let Some(a) = data.get("arguments") {
                            c.arguments = a.clone();
                            c.shell_id = shell_id(&super::classify::arguments_ref(a));
                        }
                    }
                    if c.tool.is_empty() {
                        c.tool = data.get("toolName").and_then(Value::as_str).unwrap_or("").to_string();
                    }
                }
            }
            "tool.execution_complete" => {
                if let Some(&i) = data.get("toolCallId").and_then(Value::as_str).and_then(|id| by_id.get(id)) {
                    let c = &mut s.calls[i];
                    c.success = data.get("success").and_then(Value::as_bool);
                    let result = data.get("result");
                    let text = result
                        .and_then(|r| {
                            r.get("content")
                                .and_then(Value::as_str)
                                .map(str::to_string)
                                .or_else(|| r.as_str().map(str::to_string))
                        })
                        .or_else(|| {
                            data.get("error")
                                .and_then(|e| e.get("message").and_then(Value::as_str).or_else(|| e.as_str()))
                                .map(|m| format!("error: {m}"))
                        });
                    c.output = text.map(|t| input::clip(&t, 200_000));
                }
            }
            "session.shutdown" => shutdown = Some(data.clone()),
            "session.usage_checkpoint" => checkpoint = Some(data.clone()),
            _ => {}
        }
    }
    if s.id == "events" || s.id.is_empty() {
        if let Some(id) = session_data_id {
            s.id = id;
        }
    }
    if !s.model.is_empty() && !s.model.starts_with("copilot/") {
        s.model = format!("copilot/{}", s.model);
    }
    s.usage = usage(shutdown.as_ref(), checkpoint.as_ref(), msg_in, msg_out);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn events() -> String {
        [
            json!({"type": "session.start", "timestamp": "2026-01-01T00:00:00Z", "data": {"sessionId": "s-1", "selectedModel": "claude-sonnet-4.6", "copilotVersion": "1.0.81"}}),
            json!({"type": "user.message", "data": {"content": "task"}}),
            json!({"type": "assistant.message", "data": {"turnId": "0", "content": "", "reasoningText": "look", "outputTokens": 90, "inputTokens": 1000,
                "toolRequests": [
                    {"toolCallId": "a", "name": "view", "arguments": {"path": "/workspace/solution.py"}, "intentionSummary": "view the file"},
                    {"toolCallId": "b", "name": "bash", "arguments": {"command": "grep -n slow solution.py", "sessionId": "main"}},
                    {"toolCallId": "c", "name": "report_intent", "arguments": {"intent": "Exploring"}}]}}),
            json!({"type": "tool.execution_start", "data": {"toolCallId": "a", "toolName": "view", "arguments": {"path": "/workspace/solution.py"}}}),
            json!({"type": "tool.execution_complete", "data": {"toolCallId": "a", "success": true, "result": {"content": "1. import math"}}}),
            json!({"type": "tool.execution_complete", "data": {"toolCallId": "b", "success": false, "error": {"message": "boom"}}}),
            json!({"type": "assistant.message", "data": {"turnId": "1", "content": "done", "toolRequests": [{"toolCallId": "d", "name": "read_bash", "arguments": {"sessionId": "main"}}]}}),
            json!({"type": "assistant.message", "data": {"content": "final", "usage": {"output_tokens": 7, "input_tokens": 50}, "toolRequests": []}}),
            json!({"type": "session.usage_checkpoint", "data": {"totalNanoAiu": 5e9, "totalPremiumRequests": 1}}),
            json!({"type": "session.shutdown", "data": {"totalNanoAiu": 7.5e9, "totalPremiumRequests": 2, "tokenDetails": {"input": {"tokenCount": 1200}, "output": {"tokenCount": 97}, "cache_read": {"tokenCount": 800}}}}),
        ]
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("\n")
    }

    #[test]
    fn calls_tokens_results_and_usage() {
        let text = events();
        assert!(looks_like(text.lines().next().unwrap()));
        let mut s = read("copilot_traces/s-1/events.jsonl", &(text + "\nnot json\n"));
        s.classify();
        assert_eq!(s.id, "s-1");
        assert_eq!(s.model, "copilot/claude-sonnet-4.6");
        assert_eq!(s.calls.len(), 4);
        assert_eq!(s.turns.len(), 3);
        assert_eq!(s.problems.len(), 1);
        assert_eq!(s.problems[0].line, Some(11));
        // §8.6: 90 output tokens over the first turn's 3 calls; the second turn has no count.
        assert_eq!(s.calls[0].output_tokens, Some(30.0));
        assert_eq!(s.calls[3].output_tokens, None);
        assert_eq!(s.calls[0].output.as_deref(), Some("1. import math"));
        assert_eq!(s.calls[1].output.as_deref(), Some("error: boom"));
        assert_eq!(s.calls[1].success, Some(false));
        assert_eq!(s.calls[0].intention, "view the file");
        // read_bash takes the label of the grep that opened its shell.
        assert_eq!(s.calls[1].label, super::super::Label::Search);
        assert_eq!(s.calls[3].label, super::super::Label::Search);
        // §8.7: the shutdown wins; tokens from tokenDetails.
        assert_eq!(s.usage.usage_source, "session.shutdown");
        assert_eq!(s.usage.token_usage_source, "tokenDetails");
        assert_eq!(
            (s.usage.input_tokens, s.usage.output_tokens, s.usage.cache_read_tokens),
            (Some(1200.0), Some(97.0), Some(800.0))
        );
        assert_eq!(s.usage.total_tokens, Some(2097.0));
        assert_eq!(s.usage.total_aiu(), Some(7.5));
        assert_eq!(s.usage.total_premium_requests, Some(2.0));
    }

    #[test]
    fn usage_falls_back_to_checkpoints_and_messages() {
        let text: String = events().lines().filter(|l| !l.contains("session.shutdown")).collect::<Vec<_>>().join("\n");
        let s = read("x/events.jsonl", &text);
        assert_eq!(s.usage.usage_source, "session.usage_checkpoint");
        assert_eq!(s.usage.token_usage_source, "messages");
        assert_eq!((s.usage.input_tokens, s.usage.output_tokens), (Some(1050.0), Some(97.0)));
        assert_eq!(s.usage.total_aiu(), Some(5.0));
    }
}
