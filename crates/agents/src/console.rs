//! A student's console: short commands read into the same tool calls an agent makes.
//!
//! ```text
//! view 40 80            view problem.md 1 20       view 120
//! search foo(           search from=200 def
//! edit 12 14            (the lines below the command replace lines 12 to 14; none deletes them)
//! edit                  (the lines below: the text to replace, a line `---`, the new text)
//! lint                  run f(3)                   run (Python statements on the lines below)
//! run solution.py 0.5   submit                     help
//! ```

use super::settings::{SOLUTION, STATEMENT};
use serde_json::{json, Value};

/// What the console understood.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// A tool call.
    Call { tool: &'static str, arguments: Value },
    /// Show the help (no call).
    Help,
}

/// The console's help text.
pub const HELP: &str = "view START [END] · view problem.md START [END] · search [from=LINE] TEXT · edit START [END] (new lines below; none deletes) · edit (old text, a line ---, new text below) · lint · run EXPRESSION (or statements below) · run solution.py [ARGS] · submit";

fn number(word: &str, what: &str) -> Result<usize, String> {
    word.parse::<usize>().map_err(|_| {
        format!("{what} must be a line number, got '{}' ({HELP})", word.chars().take(20).collect::<String>())
    })
}

/// Read one command (its first line) and, for `edit`, the lines below it.
pub fn parse(input: &str) -> Result<Command, String> {
    let input = input.trim_start_matches(['\n', '\r']);
    let (first, rest) = match input.split_once('\n') {
        Some((f, r)) => (f.trim_end_matches('\r'), r),
        None => (input, ""),
    };
    let mut words = first.split_whitespace();
    let Some(cmd) = words.next() else { return Err(format!("type a command: {HELP}")) };
    let args: Vec<&str> = words.collect();
    match cmd {
        "help" | "?" => Ok(Command::Help),
        "view" | "cat" | "open" => {
            let (path, nums) = match args.first() {
                Some(p) if p.parse::<usize>().is_err() => (*p, &args[1..]),
                _ => (SOLUTION, &args[..]),
            };
            let start = nums.first().map(|w| number(w, "start")).transpose()?.unwrap_or(1);
            let end = nums.get(1).map(|w| number(w, "end")).transpose()?;
            let mut a = json!({"path": path, "start": start});
            if let Some(e) = end {
                a["end"] = json!(e);
            }
            Ok(Command::Call { tool: "view", arguments: a })
        }
        "search" | "grep" | "find" => {
            let text = first.trim_start()[cmd.len()..].trim_start();
            let (from, pattern) = match text.strip_prefix("from=") {
                Some(r) => {
                    let (n, p) = r.split_once(' ').unwrap_or((r, ""));
                    (Some(number(n, "from")?), p.to_string())
                }
                None => (None, text.to_string()),
            };
            if pattern.is_empty() {
                return Err(format!("search needs the text to look for ({HELP})"));
            }
            let mut a = json!({"pattern": pattern, "path": SOLUTION});
            if let Some(f) = from {
                a["from_line"] = json!(f);
            }
            Ok(Command::Call { tool: "search", arguments: a })
        }
        "edit" => {
            let (path, nums) = match args.first() {
                Some(p) if p.parse::<usize>().is_err() => (*p, &args[1..]),
                _ => (SOLUTION, &args[..]),
            };
            if let Some(s) = nums.first() {
                let start = number(s, "start")?;
                let end = nums.get(1).map(|w| number(w, "end")).transpose()?.unwrap_or(start);
                Ok(Command::Call {
                    tool: "edit",
                    arguments: json!({"path": path, "start": start, "end": end, "new": rest}),
                })
            } else {
                let Some((old, new)) = split_at_marker(rest) else {
                    return Err("edit without line numbers takes the text to replace, a line ---, and the new text, below the command".into());
                };
                Ok(Command::Call { tool: "edit", arguments: json!({"path": path, "old": old, "new": new}) })
            }
        }
        "lint" | "check" => Ok(Command::Call { tool: "lint", arguments: json!({"path": SOLUTION}) }),
        "run" | "python" => {
            let inline = first.trim_start()[cmd.len()..].trim();
            match args.first() {
                Some(p) if p.trim_start_matches("./") == SOLUTION => {
                    Ok(Command::Call { tool: "run", arguments: json!({"path": SOLUTION, "args": &args[1..]}) })
                }
                _ => {
                    let code = match (inline.is_empty(), rest.trim().is_empty()) {
                        (false, true) => inline.to_string(),
                        (true, false) => rest.trim_end().to_string(),
                        (false, false) => format!("{inline}\n{}", rest.trim_end()),
                        (true, true) => {
                            return Err(format!("run needs Python: an expression such as f(3) after it, or statements on the lines below ({HELP})"))
                        }
                    };
                    Ok(Command::Call { tool: "run", arguments: json!({"code": code}) })
                }
            }
        }
        "submit" => Ok(Command::Call { tool: "submit", arguments: json!({}) }),
        other => Err(format!("unknown command '{}': {HELP}", other.chars().take(20).collect::<String>())),
    }
}

/// `old\n---\nnew` → (old, new), each without the newline before the marker.
fn split_at_marker(text: &str) -> Option<(String, String)> {
    let mut old = Vec::new();
    let mut lines = text.lines();
    for l in lines.by_ref() {
        if l.trim_end() == "---" {
            let new: Vec<&str> = lines.collect();
            let old = old.join("\n");
            return (!old.is_empty()).then(|| (old, new.join("\n")));
        }
        old.push(l);
    }
    None
}

/// The statement's file name (for the console's hint).
pub fn statement_file() -> &'static str {
    STATEMENT
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(s: &str) -> (&'static str, Value) {
        match parse(s).unwrap() {
            Command::Call { tool, arguments } => (tool, arguments),
            Command::Help => panic!("help"),
        }
    }

    #[test]
    fn commands_read_into_tool_calls() {
        assert_eq!(call("view 40 80"), ("view", json!({"path": "solution.py", "start": 40, "end": 80})));
        assert_eq!(call("view"), ("view", json!({"path": "solution.py", "start": 1})));
        assert_eq!(call("view problem.md 3"), ("view", json!({"path": "problem.md", "start": 3})));
        assert_eq!(call("search  def a("), ("search", json!({"pattern": "def a(", "path": "solution.py"})));
        assert_eq!(
            call("search from=20 x_val"),
            ("search", json!({"pattern": "x_val", "path": "solution.py", "from_line": 20}))
        );
        assert_eq!(
            call("edit 3 4\n    return 1\n"),
            ("edit", json!({"path": "solution.py", "start": 3, "end": 4, "new": "    return 1\n"}))
        );
        assert_eq!(
            call("edit\nreturn a\n---\nreturn b"),
            ("edit", json!({"path": "solution.py", "old": "return a", "new": "return b"}))
        );
        assert_eq!(call("lint"), ("lint", json!({"path": "solution.py"})));
        assert_eq!(call("check"), ("lint", json!({"path": "solution.py"})));
        assert_eq!(call("run f(3)"), ("run", json!({"code": "f(3)"})));
        assert_eq!(call("run\nx = f(3)\nprint(x)\n"), ("run", json!({"code": "x = f(3)\nprint(x)"})));
        assert_eq!(call("run solution.py 0.5"), ("run", json!({"path": "solution.py", "args": ["0.5"]})));
        assert_eq!(parse("help"), Ok(Command::Help));
        for bad in ["", "frobnicate", "view x y", "search", "edit\nno marker", "view 1 z", "run"] {
            let e = parse(bad).unwrap_err();
            assert!(!e.is_empty() && !e.contains('\n'), "{bad:?}: {e}");
        }
    }
}
