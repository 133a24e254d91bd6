//! Which functions of a task's code a tool call looked at or changed: line ranges it viewed
//! (`view_range`, `sed -n 'a,bp'`, `head`, offsets), lines its output names (`solution.py:12:`,
//! `12:`), and function names in its arguments (patterns, commands, edited text).

use super::ToolCall;
use serde_json::Value;

/// A top-level function and its lines (1-based, inclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

/// The top-level functions of a program.
pub fn spans(code: &str) -> Vec<Span> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out: Vec<Span> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let top = !line.is_empty() && !line.starts_with(char::is_whitespace);
        if !top {
            continue;
        }
        if let Some(last) = out.last_mut() {
            if last.end == 0 {
                last.end = i;
            }
        }
        let rest = line.strip_prefix("def ").or_else(|| line.strip_prefix("async def "));
        if let Some(rest) = rest {
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            out.push(Span { name, start: i + 1, end: 0 });
        }
    }
    if let Some(last) = out.last_mut() {
        if last.end == 0 {
            last.end = lines.len();
        }
    }
    for s in out.iter_mut() {
        while s.end > s.start && lines.get(s.end - 1).is_some_and(|l| l.trim().is_empty()) {
            s.end -= 1;
        }
    }
    out
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
}

/// Line ranges (1-based, inclusive) a call's arguments name.
fn ranges(call: &ToolCall, total: usize) -> Vec<(usize, usize)> {
    let a = super::classify::arguments(&call.arguments);
    let total_i = total as i64;
    let clamp = |x: i64| -> usize { x.clamp(1, total_i.max(1)) as usize };
    let mut out = Vec::new();
    if let Some(r) = a.get("view_range").and_then(Value::as_array) {
        if let (Some(s), Some(e)) = (r.first().and_then(int), r.get(1).and_then(int)) {
            out.push((clamp(s), if e < 0 { total.max(1) } else { clamp(e) }));
        }
    }
    let pair = |k1: &str, k2: &str| -> Option<(i64, i64)> { Some((int(a.get(k1)?)?, int(a.get(k2)?)?)) };
    for (k1, k2) in [
        ("start", "end"),
        ("start_line", "end_line"),
        ("start_line_one_indexed", "end_line_one_indexed_inclusive"),
        ("line_start", "line_end"),
    ] {
        if let Some((s, e)) = pair(k1, k2) {
            out.push((clamp(s), clamp(e)));
        }
    }
    if let Some(off) = a.get("offset").and_then(int) {
        let lim = a.get("limit").and_then(int).unwrap_or(2000);
        out.push((clamp(off), clamp(off.saturating_add(lim).saturating_sub(1))));
    }
    for k in ["insert_line", "line_number", "line"] {
        if let Some(l) = a.get(k).and_then(int) {
            out.push((clamp(l), clamp(l.saturating_add(1))));
        }
    }
    if let Some(cmd) = a.get("command").and_then(Value::as_str).or_else(|| a.get("cmd").and_then(Value::as_str)) {
        // sed -n 'A,Bp', awk 'NR>=A && NR<=B', head -N, tail -n N
        let mut rest = cmd;
        while let Some(i) = rest.find("-n") {
            rest = &rest[i + 2..];
            let t = rest.trim_start().trim_start_matches(['\'', '"']);
            let a_num: String = t.chars().take_while(char::is_ascii_digit).collect();
            if let Some(after) = t[a_num.len()..].strip_prefix(',') {
                let b_num: String = after.chars().take_while(char::is_ascii_digit).collect();
                if let (Ok(x), Ok(y)) = (a_num.parse::<i64>(), b_num.parse::<i64>()) {
                    out.push((clamp(x), clamp(y)));
                }
            }
        }
        if let Some(i) = cmd.find("NR>=") {
            let x: String = cmd[i + 4..].chars().take_while(char::is_ascii_digit).collect();
            let y = cmd.find("NR<=").map(|j| cmd[j + 4..].chars().take_while(char::is_ascii_digit).collect::<String>());
            if let (Ok(x), Some(Ok(y))) = (x.parse::<i64>(), y.map(|y| y.parse::<i64>())) {
                out.push((clamp(x), clamp(y)));
            }
        }
        for w in cmd.split(['|', ';', '&']) {
            let words: Vec<&str> = w.split_whitespace().collect();
            if let Some(p) = words.first() {
                let n = words.iter().skip(1).find_map(|x| {
                    x.trim_start_matches('-')
                        .trim_start_matches('n')
                        .parse::<i64>()
                        .ok()
                        .filter(|_| x.starts_with('-') || x.parse::<i64>().is_ok())
                });
                match (*p, n) {
                    ("head", Some(n)) => out.push((1, clamp(n))),
                    ("tail", Some(n)) => out.push((clamp(total_i.saturating_sub(n).saturating_add(1)), total.max(1))),
                    _ => {}
                }
            }
        }
    }
    out
}

/// Line numbers the output names: `solution.py:12:` or a leading `12:` / `12.` / `12-`.
fn output_lines(output: &str, total: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for line in output.lines().take(5000) {
        let t = line.trim_start();
        let t = match t.find(".py:") {
            Some(i) => &t[i + 4..],
            None => t,
        };
        let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() || digits.len() > 7 {
            continue;
        }
        let next = t[digits.len()..].chars().next();
        if matches!(next, Some(':') | Some('-')) {
            if let Ok(n) = digits.parse::<usize>() {
                if n >= 1 && n <= total {
                    out.push(n);
                }
            }
        }
    }
    out
}

fn words_in(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty())
}

fn texts(v: &Value, out: &mut Vec<String>, depth: usize) {
    if depth > 6 {
        return;
    }
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| texts(x, out, depth + 1)),
        Value::Object(o) => o.values().for_each(|x| texts(x, out, depth + 1)),
        _ => {}
    }
}

/// The functions of `code` a call touched, in file order. A view of the whole file touches every
/// function; a search names the ones it looked for and the ones its output shows.
pub fn touched(call: &ToolCall, code: &str, spans: &[Span]) -> Vec<String> {
    let total = code.lines().count();
    let mut hit = vec![false; spans.len()];
    let mark_line = |hit: &mut Vec<bool>, a: usize, b: usize| {
        for (i, s) in spans.iter().enumerate() {
            if s.start <= b && a <= s.end {
                hit[i] = true;
            }
        }
    };
    let rs = ranges(call, total);
    for (a, b) in &rs {
        mark_line(&mut hit, *a, *b);
    }
    // Names in the arguments.
    let mut strings = Vec::new();
    texts(&super::classify::arguments(&call.arguments), &mut strings, 0);
    let names: std::collections::HashMap<&str, usize> =
        spans.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect();
    for t in &strings {
        for w in words_in(t) {
            if let Some(&i) = names.get(w) {
                hit[i] = true;
            }
        }
    }
    // Lines the output points at (grep -n, view output).
    if let Some(o) = &call.output {
        for n in output_lines(o, total) {
            mark_line(&mut hit, n, n);
        }
    }
    // A plain view or cat of the solution with no range reads it all.
    let tool = super::classify::normalise(&call.tool);
    let a = super::classify::arguments(&call.arguments);
    let path = super::classify::PATH_KEYS.iter().find_map(|k| a.get(*k).and_then(Value::as_str)).unwrap_or("");
    let whole_view = rs.is_empty()
        && matches!(tool.as_str(), "view" | "read" | "read_file" | "open")
        && path.ends_with("solution.py");
    let whole_cat = a.get("command").and_then(Value::as_str).is_some_and(|c| {
        c.split(['|', ';', '&']).any(|part| {
            let w: Vec<&str> = part.split_whitespace().collect();
            w.first() == Some(&"cat") && w.iter().any(|x| x.ends_with("solution.py")) && !part.contains('>')
        }) && !c.contains("head")
            && !c.contains("sed")
            && !c.contains("grep")
    });
    if whole_view || whole_cat {
        hit.iter_mut().for_each(|h| *h = true);
    }
    spans.iter().zip(hit).filter(|(_, h)| *h).map(|(s, _)| s.name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CODE: &str = "import math\n\ndef a(val):\n    return b(val)\n\ndef b(val):\n    return math.cos(val)\n\ndef c(val):\n    return val\n\ndef main(val):\n    return a(val)\n";

    fn call(tool: &str, args: Value, output: Option<&str>) -> ToolCall {
        ToolCall {
            index: 0,
            turn: 0,
            request_index: 0,
            tool: tool.into(),
            arguments: args,
            output: output.map(str::to_string),
            success: None,
            output_tokens: None,
            intention: String::new(),
            given_label: None,
            label: super::super::Label::Other,
            rule: String::new(),
            shell_id: None,
        }
    }

    #[test]
    fn spans_ranges_names_and_output() {
        let sp = spans(CODE);
        assert_eq!(
            sp.iter().map(|s| (s.name.as_str(), s.start, s.end)).collect::<Vec<_>>(),
            vec![("a", 3, 4), ("b", 6, 7), ("c", 9, 10), ("main", 12, 13)]
        );
        let t = |c: ToolCall| touched(&c, CODE, &sp);
        assert_eq!(t(call("view", json!({"path": "/workspace/solution.py", "view_range": [5, 8]}), None)), vec!["b"]);
        assert_eq!(t(call("view", json!({"path": "/workspace/solution.py"}), None)).len(), 4);
        assert_eq!(t(call("bash", json!({"command": "sed -n '9,13p' solution.py"}), None)), vec!["c", "main"]);
        assert_eq!(
            t(call("bash", json!({"command": "grep -n 'cos' solution.py"}), Some("7:    return math.cos(val)"))),
            vec!["b"]
        );
        assert_eq!(t(call("grep", json!({"pattern": "c\\("}), Some("solution.py:10:    return val"))), vec!["c"]);
        assert_eq!(
            t(call(
                "edit",
                json!({"path": "solution.py", "old_str": "def a(val):", "new_str": "def a(val, m):"}),
                None
            )),
            vec!["a"]
        );
        assert_eq!(t(call("bash", json!({"command": "cat solution.py"}), None)).len(), 4);
        assert_eq!(t(call("bash", json!({"command": "head -5 solution.py"}), None)), vec!["a"]);
        assert!(t(call("bash", json!({"command": "ls"}), None)).is_empty());
        assert_eq!(t(call("view", json!({"path": "solution.py", "view_range": [-5, 99999]}), None)).len(), 4);
        // Absurd numbers are clamped, never overflow.
        assert_eq!(
            t(call(
                "bash",
                json!({"command": "tail -n 9223372036854775807 solution.py | head -n -9223372036854775808"}),
                None
            ))
            .len(),
            4
        );
        assert_eq!(
            t(call(
                "read",
                json!({"file_path": "solution.py", "offset": i64::MAX, "limit": i64::MAX, "line": i64::MAX}),
                None
            )),
            vec!["main"]
        );
    }
}
