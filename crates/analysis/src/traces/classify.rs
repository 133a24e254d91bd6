//! The offline classifier: rules that give a tool call one of the paper's labels (grading.md §8.3)
//! from the tool's name, its arguments and, for shells, what the command does — pipelines,
//! here-documents and generated Python scripts included: a script is labelled by its intended use
//! (writes solution.py → edit; compares or asserts → test; walks the AST or builds a call graph →
//! understand; greps → search; prints → read), as the paper's definitions ask.
//!
//! Every verdict carries the rule that decided it, so a reader can see why. Any JSON is accepted;
//! nothing here panics.

use super::shell::{self, Simple};
use super::Label;
use serde_json::Value;

/// A label and the rule that gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelled {
    pub label: Label,
    pub rule: String,
}

fn v(label: Label, rule: impl Into<String>) -> Labelled {
    Labelled { label, rule: rule.into() }
}

/// How much a shell command's label says about the whole command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    Weak,
    Strong,
}

/// When several commands of one line disagree, the more consequential intent wins.
fn priority(l: Label) -> u8 {
    match l {
        Label::Edit => 7,
        Label::Test => 6,
        Label::Understand => 5,
        Label::Search => 4,
        Label::Read => 3,
        Label::Plan => 2,
        Label::Summary => 1,
        Label::Other => 0,
    }
}

/// The tool's name without namespaces (`functions.bash`, `mcp__srv__grep`, `default_api:view`),
/// lower-cased.
pub fn normalise(tool: &str) -> String {
    let t = tool.trim();
    let t = t.rsplit("__").next().unwrap_or(t);
    let t = t.rsplit(':').next().unwrap_or(t);
    let t = t.rsplit('.').next().unwrap_or(t);
    t.to_ascii_lowercase()
}

/// Tools that read or drive a shell opened by an earlier call.
pub fn follows_shell(tool: &str) -> bool {
    matches!(
        normalise(tool).as_str(),
        "read_bash" | "write_bash" | "stop_bash" | "bashoutput" | "bash_output" | "read_shell" | "write_stdin"
    )
}

/// Arguments as an object: a JSON string holding an object is read; other strings become `raw`.
pub fn arguments(args: &Value) -> Value {
    arguments_ref(args).into_owned()
}

/// [`arguments`], borrowing an object instead of copying it (arguments can be megabytes).
pub fn arguments_ref(args: &Value) -> std::borrow::Cow<'_, Value> {
    use std::borrow::Cow;
    Cow::Owned(match args {
        Value::Object(_) => return Cow::Borrowed(args),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ => serde_json::json!({ "raw": s }),
        },
        Value::Null => serde_json::json!({}),
        other => serde_json::json!({ "raw": other.to_string() }),
    })
}

fn s<'a>(args: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| args.get(*k).and_then(Value::as_str))
}

pub const PATH_KEYS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "filepath",
    "absolute_path",
    "target_file",
    "file",
    "filename",
    "notebook_path",
    "relative_path",
];
const CONTENT_KEYS: &[&str] =
    &["file_text", "content", "new_str", "new_string", "code_edit", "replacement", "new", "text", "contents"];

/// What kind of file a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileClass {
    Solution,
    Test,
    Plan,
    /// Any other Python file: a script the agent wrote.
    Script,
    Other,
}

fn base(path: &str) -> String {
    path.trim().trim_end_matches('/').rsplit(['/', '\\']).next().unwrap_or("").to_ascii_lowercase()
}

fn test_like(b: &str, path: &str) -> bool {
    b.contains("test")
        || b.ends_with("_test.py")
        || b.ends_with("_tests.py")
        || path.contains("/tests/")
        || ["check", "verify", "valid", "repro", "equiv", "compare", "sanity", "smoke"].iter().any(|w| b.contains(w))
}

pub fn file_class(path: &str) -> FileClass {
    let b = base(path);
    if b == "solution.py" || b == "solution" {
        return FileClass::Solution;
    }
    let is_text = b.ends_with(".md") || b.ends_with(".txt") || b.ends_with(".rst") || !b.contains('.');
    if is_text && ["plan", "todo", "notes", "steps", "tasks"].iter().any(|w| b.contains(w)) {
        return FileClass::Plan;
    }
    if test_like(&b, path) && (b.ends_with(".py") || b.ends_with(".sh")) {
        return FileClass::Test;
    }
    if b.ends_with(".py") {
        return FileClass::Script;
    }
    FileClass::Other
}

/// What a script's name suggests.
fn script_name_intent(path: &str) -> Option<(Label, &'static str)> {
    let b = base(path);
    if test_like(&b, path) || b.starts_with("solution") {
        return Some((Label::Test, "runs a test or the program itself"));
    }
    let has = |ws: &[&str]| ws.iter().any(|w| b.contains(w));
    if has(&[
        "refactor",
        "rewrite",
        "patch",
        "fix",
        "apply",
        "transform",
        "modify",
        "update",
        "migrate",
        "edit",
        "codemod",
        "replace",
        "prune",
        "remove",
    ]) {
        return Some((Label::Edit, "runs a script named for changing the code"));
    }
    if has(&["analy", "graph", "dep", "call", "reach", "ast", "inspect", "explore", "trace", "map", "lca", "tree"]) {
        return Some((Label::Understand, "runs a script named for analysing the code"));
    }
    None
}

fn looks_like_plan(text: &str) -> bool {
    let steps = text
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with("- [")
                || t.starts_with("* [")
                || t.split_once(['.', ')'])
                    .is_some_and(|(n, _)| !n.is_empty() && n.len() <= 2 && n.chars().all(|c| c.is_ascii_digit()))
        })
        .count();
    steps >= 2 || text.to_ascii_lowercase().starts_with("plan")
}

// ------------------------------------------------------------------------------------------------
// Python scripts.

const BUILTINS: &[&str] = &[
    "print",
    "len",
    "range",
    "str",
    "float",
    "int",
    "list",
    "dict",
    "set",
    "tuple",
    "sorted",
    "isinstance",
    "getattr",
    "hasattr",
    "type",
    "repr",
    "abs",
    "min",
    "max",
    "sum",
    "round",
    "open",
    "enumerate",
    "zip",
    "map",
    "filter",
    "any",
    "all",
    "exec",
    "eval",
    "compile",
    "next",
    "iter",
    "vars",
    "dir",
    "help",
    "format",
    "bool",
    "reversed",
    "super",
    "id",
    "hash",
    "input",
    "exit",
];

/// The text between an opening parenthesis at `open` and its match (no nesting across quotes).
fn call_args(code: &str, open: usize) -> &str {
    let b = code.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return &code[open + 1..i];
                }
            }
            _ => {}
        }
    }
    &code[(open + 1).min(code.len())..]
}

/// The string a name was assigned (`p = '/workspace/solution.py'`), if any.
fn assigned_string<'a>(code: &'a str, name: &str) -> Option<&'a str> {
    for line in code.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(name) {
            let rest = rest.trim_start();
            if let Some(val) = rest.strip_prefix('=') {
                if let Some(lit) = first_string(val) {
                    return Some(lit);
                }
            }
        }
    }
    None
}

fn first_string(s: &str) -> Option<&str> {
    let i = s.find(['\'', '"'])?;
    let q = s.as_bytes()[i] as char;
    let rest = &s[i + 1..];
    let j = rest.find(q)?;
    Some(&rest[..j])
}

/// The files a script writes: (`Some(path)` when known, `None` when not).
fn written_files(code: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = code[from..].find("open(") {
        let at = from + pos;
        from = at + 5;
        if at > 0 && (code.as_bytes()[at - 1].is_ascii_alphanumeric() || code.as_bytes()[at - 1] == b'_') {
            continue;
        }
        let args = call_args(code, at + 4);
        let writes = [
            "'w'", "\"w\"", "'a'", "\"a\"", "'w+'", "\"w+\"", "'wb'", "\"wb\"", "'a+'", "'r+'", "\"r+\"", "mode='w",
            "mode=\"w",
        ]
        .iter()
        .any(|m| args.contains(m));
        if !writes {
            continue;
        }
        let first = args.split(',').next().unwrap_or("").trim();
        let target = if first.starts_with(['\'', '"']) || first.starts_with("f'") || first.starts_with("f\"") {
            first_string(first).map(str::to_string)
        } else {
            assigned_string(code, first).map(str::to_string)
        };
        out.push(target);
    }
    for m in [
        ".write_text(",
        ".writelines(",
        "inplace=True",
        "shutil.copy",
        "shutil.move",
        "os.replace(",
        "os.rename(",
        ".write_bytes(",
    ] {
        if code.contains(m) {
            out.push(None);
        }
    }
    out
}

fn has_call(code: &str, name: &str) -> bool {
    let pat = format!("{name}(");
    let mut from = 0;
    while let Some(pos) = code[from..].find(&pat) {
        let at = from + pos;
        from = at + pat.len();
        let before = code[..at].chars().next_back();
        if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.')) {
            return true;
        }
    }
    false
}

/// Names imported from the solution (`from solution import a, b`; `*` for all).
fn imported_from_solution(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines().flat_map(|l| l.split(';')) {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("from solution import ") {
            out.extend(
                rest.split(',')
                    .map(|n| n.trim().split(" as ").last().unwrap_or("").trim().to_string())
                    .filter(|n| !n.is_empty()),
            );
        }
    }
    out
}

/// What a generated Python script (a `-c` string, a here-document, a created file) is for; `None`
/// when nothing in it says.
pub fn python_intent(code: &str) -> Option<Labelled> {
    let c = shell::head(code, shell::MAX_TEXT);
    // 1. It writes the solution (or a test file).
    let writes = written_files(c);
    if !writes.is_empty() {
        let classes: Vec<Option<FileClass>> = writes.iter().map(|w| w.as_deref().map(file_class)).collect();
        if classes.contains(&Some(FileClass::Solution)) {
            return Some(v(Label::Edit, "a script that writes solution.py"));
        }
        let unresolved = classes.iter().any(Option::is_none);
        if unresolved && c.contains("solution") {
            return Some(v(Label::Edit, "a script that writes files and names solution.py"));
        }
        if classes.contains(&Some(FileClass::Test)) {
            return Some(v(Label::Test, "a script that writes a test file"));
        }
    }
    // 2. It checks behaviour or syntax.
    let lower = c.to_ascii_lowercase();
    let test_marks = [
        "assert ",
        "assert(",
        "isclose",
        "allclose",
        "array_equal",
        "assertequal",
        "py_compile",
        "unittest",
        "pytest",
        "doctest",
        "syntax ok",
        "syntax is ok",
        "'ok'",
        "\"ok\"",
        "pass'",
        "pass\"",
        "fail'",
        "fail\"",
        "mismatch",
        "all good",
        "equivalent",
    ];
    if let Some(m) = test_marks.iter().find(|m| lower.contains(*m)) {
        return Some(v(Label::Test, format!("a script that checks behaviour or syntax ({})", m.trim())));
    }
    if has_call(c, "compile") {
        return Some(v(Label::Test, "a script that compiles the code"));
    }
    // 3. It runs the solution.
    let imports_solution = c.lines().flat_map(|l| l.split(';')).any(|l| {
        l.trim()
            .strip_prefix("import ")
            .is_some_and(|names| names.split(',').any(|n| n.split_whitespace().next() == Some("solution")))
    });
    let runs_solution = imports_solution
        || c.contains("from solution import")
        || (c.contains("exec(") && c.contains("solution"))
        || (c.contains("spec_from_file_location") && c.contains("solution"))
        || c.contains("subprocess") && c.contains("solution.py");
    let understand_marks = [
        "ast.walk",
        "ast.dump",
        "nodevisitor",
        "nodetransformer",
        "ast.call",
        "functiondef",
        "iter_child_nodes",
        "networkx",
        "settrace",
        "setprofile",
        "dis.",
        "callgraph",
        "call_graph",
        "call graph",
        "callers",
        "callees",
        "ancestor",
        "descendant",
        "reachable",
        "topolog",
        ".setdefault(",
        "defaultdict",
        "deps",
        "graph[",
        "fan_in",
        "fan-in",
        "parents[",
    ];
    // Tracing a run is an analysis of its runtime values, whatever it calls.
    if let Some(m) =
        ["settrace", "setprofile", "sys.monitoring", "cprofile", "tracemalloc"].iter().find(|m| lower.contains(*m))
    {
        return Some(v(Label::Understand, format!("traces a run ({m})")));
    }
    if runs_solution {
        if has_call(c, "main") || c.contains(".main(") {
            return Some(v(Label::Test, "runs the program's main()"));
        }
        let imported = imported_from_solution(c);
        let calls_other = c.contains("getattr(solution")
            || find_member_call(c, "solution.")
            || imported.iter().any(|n| n != "*" && n != "main" && has_call(c, n))
            || (imported.iter().any(|n| n == "*") && any_user_call(c));
        if calls_other {
            return Some(v(Label::Understand, "runs the solution's functions to see their values"));
        }
    }
    // 4. It analyses the code's structure.
    if let Some(m) = understand_marks.iter().find(|m| lower.contains(*m)) {
        return Some(v(Label::Understand, format!("a script that analyses the code ({m})")));
    }
    // 5. It looks things up, or prints text.
    if ["getsource", "help("].iter().any(|m| c.contains(m)) {
        return Some(v(Label::Read, "prints source text"));
    }
    if [
        "re.finditer",
        "re.findall",
        "re.search",
        "re.match",
        " in line",
        "getmembers",
        ".find(",
        ".index(",
        "dir(",
        "startswith('def",
        "startswith(\"def",
    ]
    .iter()
    .any(|m| c.contains(m))
    {
        return Some(v(Label::Search, "a script that looks for names or lines"));
    }
    if [".read()", "readlines", "splitlines", "read_text("].iter().any(|m| c.contains(m)) {
        return Some(v(Label::Read, "a script that prints the file"));
    }
    if runs_solution {
        return Some(v(Label::Test, "imports the solution"));
    }
    None
}

fn find_member_call(c: &str, prefix: &str) -> bool {
    let mut from = 0;
    while let Some(pos) = c[from..].find(prefix) {
        let at = from + pos + prefix.len();
        from = at;
        let name: String = c[at..].chars().take_while(|ch| ch.is_alphanumeric() || *ch == '_').collect();
        if !name.is_empty() && name != "main" && c[at + name.len()..].starts_with('(') {
            return true;
        }
    }
    false
}

fn any_user_call(c: &str) -> bool {
    let b: Vec<char> = c.chars().collect();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_alphabetic() || b[i] == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            let word: String = b[start..i].iter().collect();
            let prev = if start > 0 { Some(b[start - 1]) } else { None };
            if i < b.len()
                && b[i] == '('
                && prev != Some('.')
                && !BUILTINS.contains(&word.as_str())
                && word != "main"
                && word != "import"
            {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

// ------------------------------------------------------------------------------------------------
// Shell commands.

type Lab = (Label, Strength, String);

fn lab(l: Label, s: Strength, rule: impl Into<String>) -> Option<Lab> {
    Some((l, s, rule.into()))
}

/// Strip wrappers: `timeout 60`, `time`, `nice -n 5`, `env A=1`, `sudo`, `command`, `exec`, `xargs -0`.
fn unwrap_words(words: &[String]) -> &[String] {
    let mut w = words;
    loop {
        let Some(first) = w.first() else { return w };
        let p = first.rsplit('/').next().unwrap_or(first);
        let skip = match p {
            "time" | "sudo" | "command" | "exec" | "nohup" | "stdbuf" | "builtin" => 1,
            "timeout" => {
                1 + w
                    .iter()
                    .skip(1)
                    .take_while(|a| a.starts_with('-') || a.chars().next().is_some_and(|c| c.is_ascii_digit()))
                    .count()
            }
            "nice" => 1 + w.iter().skip(1).take_while(|a| a.starts_with('-') || a.parse::<i32>().is_ok()).count(),
            "env" => 1 + w.iter().skip(1).take_while(|a| a.contains('=') || a.starts_with('-')).count(),
            "xargs" => 1 + w.iter().skip(1).take_while(|a| a.starts_with('-')).count(),
            "uv" if w.get(1).map(String::as_str) == Some("run") => 2,
            "poetry" | "pipenv" if w.get(1).map(String::as_str) == Some("run") => 2,
            _ => 0,
        };
        if skip == 0 || skip > w.len() {
            return w;
        }
        w = &w[skip..];
    }
}

fn is_python(p: &str) -> bool {
    p == "python"
        || p == "py"
        || p == "pypy3"
        || (p.starts_with("python") && p[6..].chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The label of a file written by the shell (a redirect or `tee`), from its path and content.
fn written(path: &str, content: Option<&str>) -> Option<Lab> {
    match file_class(path) {
        FileClass::Solution => lab(Label::Edit, Strength::Strong, "writes solution.py"),
        FileClass::Test => lab(Label::Test, Strength::Strong, "writes a test file"),
        FileClass::Plan => lab(Label::Plan, Strength::Strong, "writes a plan or notes"),
        FileClass::Script => match content.and_then(python_intent) {
            Some(vd) => lab(vd.label, Strength::Strong, format!("writes a script: {}", vd.rule)),
            None => script_name_intent(path).and_then(|(l, r)| lab(l, Strength::Strong, r)),
        },
        FileClass::Other => {
            if content.is_some_and(looks_like_plan) {
                lab(Label::Plan, Strength::Strong, "writes a list of steps")
            } else {
                None
            }
        }
    }
}

fn classify_simple(s: &Simple, scripts: &[(String, String)]) -> Option<Lab> {
    let words = unwrap_words(&s.words);
    let p0 = words.first().map(|w| w.rsplit('/').next().unwrap_or(w).to_string()).unwrap_or_default();
    let p = p0.as_str();
    let args: Vec<&str> = words.iter().skip(1).map(String::as_str).collect();
    let has = |flag: &str| args.contains(&flag);
    // Output written to a file by a command that produces text from its input.
    let write_target =
        s.redirects.iter().find(|(op, _)| op.starts_with('>') || op.starts_with("&>")).map(|(_, t)| t.as_str());
    match p {
        "" => {
            return s.heredoc.as_deref().and_then(python_intent).map(|vd| (vd.label, Strength::Weak, vd.rule));
        }
        "cd" | "export" | "set" | "source" | "." | "true" | ":" | "unset" | "alias" | "clear" | "sleep" | "wait" => {
            return None
        }
        _ => {}
    }
    if is_python(p) {
        return python_command(&args, s, scripts);
    }
    match p {
        "bash" | "sh" | "zsh" => {
            if let Some(i) = args.iter().position(|a| a.starts_with('-') && a.contains('c')) {
                if let Some(inner) = args.get(i + 1) {
                    return shell_line(inner).map(|vd| (vd.label, Strength::Strong, vd.rule));
                }
            }
            if let Some(body) = &s.heredoc {
                return shell_line(body).map(|vd| (vd.label, Strength::Strong, vd.rule));
            }
            return match args.iter().find(|a| !a.starts_with('-')) {
                Some(script) => script_name_intent(script)
                    .and_then(|(l, r)| lab(l, Strength::Strong, r))
                    .or_else(|| lab(Label::Test, Strength::Weak, "runs a shell script")),
                None => None,
            };
        }
        "cat" | "echo" | "printf" | "tee" => {
            let target = if p == "tee" { args.iter().find(|a| !a.starts_with('-')).copied() } else { write_target };
            if let Some(t) = target {
                let content = s.heredoc.clone().or_else(|| {
                    (p != "cat")
                        .then(|| args.iter().filter(|a| !a.starts_with('-')).copied().collect::<Vec<_>>().join(" "))
                });
                if let Some(l) = written(t, content.as_deref()) {
                    return Some(l);
                }
                return lab(Label::Other, Strength::Weak, "writes a file");
            }
            if p == "cat" {
                return if args.iter().any(|a| !a.starts_with('-')) {
                    lab(Label::Read, Strength::Strong, "prints a file (cat)")
                } else {
                    None
                };
            }
            return lab(Label::Other, Strength::Weak, "prints a message");
        }
        "apply_patch" | "applypatch" => {
            return s
                .heredoc
                .as_deref()
                .or(args.first().copied())
                .map(patch_intent)
                .map(|vd| (vd.label, Strength::Strong, vd.rule));
        }
        _ => {}
    }
    let read = |r: &str| lab(Label::Read, Strength::Strong, r);
    let search = |r: &str| lab(Label::Search, Strength::Strong, r);
    match p {
        "grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack" | "ripgrep" | "git-grep" => {
            if s.loop_over_output {
                return lab(
                    Label::Understand,
                    Strength::Strong,
                    "greps inside a loop over every function: a dependency count",
                );
            }
            search("searches with grep")
        }
        "sort" | "uniq" if args.iter().any(|a| a.starts_with("-c") || *a == "-c") || p == "uniq" => None,
        "find" | "fd" | "locate" | "which" | "whereis" | "type" => {
            if has("-delete") || (has("-exec") && args.contains(&"rm")) {
                return lab(Label::Other, Strength::Strong, "deletes files");
            }
            search("looks for files")
        }
        "sed" => {
            if args.iter().any(|a| a.starts_with("-i") || *a == "--in-place") {
                let target = args.iter().rev().find(|a| !a.starts_with('-')).copied().unwrap_or("");
                return if file_class(target) == FileClass::Test {
                    lab(Label::Test, Strength::Strong, "edits a test file in place (sed -i)")
                } else {
                    lab(Label::Edit, Strength::Strong, "edits the file in place (sed -i)")
                };
            }
            if args.iter().any(|a| {
                a.contains('/')
                    && (a.starts_with("'/") || a.starts_with('/'))
                    && !a.contains("/workspace")
                    && !a.starts_with("/tmp")
            }) {
                return search("prints lines found by a pattern (sed)");
            }
            read("prints lines (sed)")
        }
        "awk" | "gawk" | "mawk" => {
            if args.windows(2).any(|w| w[0] == "-i" && w[1] == "inplace") {
                return lab(Label::Edit, Strength::Strong, "edits the file in place (awk)");
            }
            match args.iter().find(|a| !a.starts_with('-')) {
                Some(prog) if prog.trim_start().starts_with('/') => search("prints what a pattern matches (awk)"),
                _ => read("prints lines (awk)"),
            }
        }
        // Filters reading a pipe (`… | head -5`) say nothing of their own.
        "head" | "tail" | "less" | "more" | "nl" | "wc" | "column" | "od" | "xxd" | "hexdump" | "bat"
            if s.redirects.is_empty() && !args.iter().any(|a| !a.starts_with('-') && a.parse::<i64>().is_err()) =>
        {
            None
        }
        "head" | "tail" | "less" | "more" | "nl" | "bat" | "view" | "ls" | "tree" | "wc" | "file" | "stat" | "du"
        | "pwd" | "realpath" | "readlink" | "od" | "xxd" | "hexdump" | "column" => read("lists or prints files"),
        "diff" | "cmp" | "colordiff" => read("shows the differences between files"),
        "git" => match args.first().copied().unwrap_or("") {
            "status" | "diff" | "log" | "show" | "blame" | "ls-files" => read("reads the repository's state (git)"),
            "grep" => search("searches with git grep"),
            "checkout" | "restore" | "stash" | "apply" | "reset" | "am" | "cherry-pick" | "revert" => {
                lab(Label::Edit, Strength::Strong, "changes the code through git")
            }
            _ => lab(Label::Other, Strength::Weak, "a git command"),
        },
        "cp" | "mv" | "install" | "rsync" => {
            let dest = args.iter().rev().find(|a| !a.starts_with('-')).copied().unwrap_or("");
            match file_class(dest) {
                FileClass::Solution => lab(Label::Edit, Strength::Strong, "replaces solution.py"),
                FileClass::Test => lab(Label::Test, Strength::Strong, "puts a test file in place"),
                _ => lab(Label::Other, Strength::Strong, "copies or moves files (a backup)"),
            }
        }
        "patch" => lab(Label::Edit, Strength::Strong, "applies a patch"),
        "ed" | "ex" => match args.iter().rev().find(|a| !a.starts_with('-')).map(|t| file_class(t)) {
            Some(FileClass::Test) => lab(Label::Test, Strength::Strong, "edits a test file (ed)"),
            _ => lab(Label::Edit, Strength::Strong, "edits a file with ed"),
        },
        "rm" | "rmdir" | "unlink" | "shred" => lab(Label::Other, Strength::Strong, "removes files"),
        "mkdir" | "chmod" | "chown" | "touch" | "ln" | "kill" | "pkill" => {
            lab(Label::Other, Strength::Weak, "changes the file system")
        }
        "pip" | "pip3" | "conda" | "mamba" | "apt" | "apt-get" | "npm" | "yarn" | "brew" | "poetry" | "pipx" | "uv" => {
            lab(Label::Other, Strength::Strong, "installs or inspects packages")
        }
        "curl" | "wget" | "http" | "lynx" => lab(Label::Other, Strength::Strong, "fetches from the web"),
        "pytest" | "py.test" | "tox" | "nox" | "ruff" | "flake8" | "pylint" | "mypy" | "pyflakes" | "pyright"
        | "pycodestyle" | "bandit" => {
            if p == "ruff" && args.first() == Some(&"format") {
                return lab(Label::Edit, Strength::Strong, "formats the code");
            }
            if p == "ruff" && has("--fix") {
                return lab(Label::Edit, Strength::Strong, "fixes the code with ruff");
            }
            lab(Label::Test, Strength::Strong, "runs tests or a checker")
        }
        "black" | "autopep8" | "isort" | "yapf" => {
            if has("--check") || has("--diff") {
                lab(Label::Test, Strength::Strong, "checks the formatting")
            } else {
                lab(Label::Edit, Strength::Strong, "formats the code")
            }
        }
        "node" | "ruby" | "perl" => {
            if p == "perl" && args.iter().any(|a| a.starts_with("-") && a.contains('i') && a.contains('p')) {
                return lab(Label::Edit, Strength::Strong, "edits the file in place (perl -pi)");
            }
            lab(Label::Test, Strength::Weak, "runs a program")
        }
        "make" => lab(Label::Test, Strength::Weak, "runs make"),
        "echo" | "printf" => lab(Label::Other, Strength::Weak, "prints a message"),
        _ => lab(Label::Other, Strength::Weak, format!("runs {}", crate::results::input::clip(p, 40))),
    }
}

fn python_command(args: &[&str], s: &Simple, scripts: &[(String, String)]) -> Option<Lab> {
    let strong = |vd: Labelled| Some((vd.label, Strength::Strong, vd.rule));
    // python -c CODE
    if let Some(i) = args.iter().position(|a| *a == "-c") {
        let code = args.get(i + 1).copied().unwrap_or("");
        return match python_intent(code) {
            Some(vd) => strong(vd),
            None => lab(Label::Test, Strength::Weak, "runs a line of Python"),
        };
    }
    // python -m MODULE
    if let Some(i) = args.iter().position(|a| *a == "-m") {
        let m = args.get(i + 1).copied().unwrap_or("");
        return match m {
            "pip" | "ensurepip" | "venv" | "virtualenv" => lab(Label::Other, Strength::Strong, "installs packages"),
            "pytest" | "unittest" | "py_compile" | "compileall" | "pyflakes" | "flake8" | "mypy" | "pylint"
            | "doctest" | "ruff" | "tabnanny" => lab(Label::Test, Strength::Strong, format!("runs python -m {m}")),
            "black" | "autopep8" | "isort" => lab(Label::Edit, Strength::Strong, "formats the code"),
            "json.tool" | "pydoc" | "tokenize" => lab(Label::Read, Strength::Strong, "prints a file through a module"),
            "ast" => lab(Label::Understand, Strength::Strong, "dumps the syntax tree"),
            "trace" | "cProfile" | "pdb" => lab(Label::Understand, Strength::Strong, "traces or profiles the program"),
            _ => lab(Label::Test, Strength::Weak, format!("runs python -m {}", crate::results::input::clip(m, 30))),
        };
    }
    let script = args.iter().find(|a| !a.starts_with('-')).copied();
    // python - <<EOF … / python <<EOF …
    if script.is_none() || script == Some("-") {
        if let Some(body) = &s.heredoc {
            return match python_intent(body) {
                Some(vd) => strong(vd),
                None => lab(Label::Test, Strength::Weak, "runs a Python script"),
            };
        }
        if args.iter().any(|a| *a == "--version" || *a == "-V") {
            return lab(Label::Other, Strength::Weak, "asks for the version");
        }
        return None;
    }
    let script = script.unwrap_or("");
    // A script this very command line wrote: what it holds decides.
    if let Some((_, content)) = scripts.iter().rev().find(|(p, _)| p == script || base(p) == base(script)) {
        if let Some(vd) = python_intent(content) {
            return Some((vd.label, Strength::Strong, format!("runs a script written here: {}", vd.rule)));
        }
    }
    match script_name_intent(script) {
        Some((l, r)) => lab(l, Strength::Strong, r),
        None => lab(Label::Test, Strength::Strong, "runs a Python script"),
    }
}

/// What an `apply_patch` body changes: the files it adds, updates or deletes.
pub fn patch_intent(patch: &str) -> Labelled {
    let mut best: Option<Labelled> = None;
    let mut consider = |vd: Labelled| {
        if best.as_ref().is_none_or(|b| priority(vd.label) > priority(b.label)) {
            best = Some(vd);
        }
    };
    let mut added: Option<(String, String)> = None;
    for line in patch.lines() {
        if let Some(p) = line.strip_prefix("*** Update File: ") {
            consider(by_file_edit(p.trim(), None));
        } else if let Some(p) = line.strip_prefix("*** Add File: ") {
            if let Some((path, body)) = added.take() {
                consider(by_file_create(&path, &body));
            }
            added = Some((p.trim().to_string(), String::new()));
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            let _ = p;
            consider(v(Label::Other, "the patch deletes a file"));
        } else if let Some((_, body)) = added.as_mut() {
            if let Some(l) = line.strip_prefix('+') {
                body.push_str(l);
                body.push('\n');
            }
        }
    }
    if let Some((path, body)) = added {
        consider(by_file_create(&path, &body));
    }
    best.unwrap_or_else(|| v(Label::Edit, "applies a patch"))
}

fn is_grep(c: &Simple) -> bool {
    let w = unwrap_words(&c.words);
    matches!(
        w.first().map(|p| p.rsplit('/').next().unwrap_or(p)),
        Some("grep" | "egrep" | "fgrep" | "rg" | "ag" | "ack")
    )
}

/// Non-option words after the program (pattern and files).
fn grep_operands(c: &Simple) -> usize {
    unwrap_words(&c.words).iter().skip(1).filter(|a| !a.starts_with('-')).count()
}

/// Label a whole shell command line.
pub fn shell_line(command: &str) -> Option<Labelled> {
    let cmds = shell::parse(command);
    // Scripts written by this line (`cat > x.py <<EOF`), so running them reads their content.
    let scripts: Vec<(String, String)> = cmds
        .iter()
        .filter_map(|c| {
            let target = c.redirects.iter().find(|(op, _)| op.starts_with('>')).map(|(_, t)| t.clone())?;
            Some((target, c.heredoc.clone()?))
        })
        .collect();
    let mut best: Option<Lab> = None;
    let n = cmds.len();
    // A loop over a command's output (`for f in $(grep …)`) that greps for each item counts
    // dependencies: an analysis, not a search.
    let loops_over_output = cmds.iter().any(|c| c.loop_over_output);
    for (i, c) in cmds.iter().enumerate() {
        let mut l = classify_simple(c, &scripts);
        // `grep … | sort | uniq -c`: counting occurrences per name is a dependency analysis.
        if let Some((Label::Search, _, _)) = &l {
            let rest = &cmds[i + 1..n.min(i + 5)];
            let counts = c.piped
                && rest.iter().any(|r| r.program() == "uniq" && r.words.iter().any(|w| w == "-c"))
                && rest.iter().any(|r| r.program() == "sort");
            if counts {
                l = lab(Label::Understand, Strength::Strong, "counts matches per name (grep | sort | uniq -c)");
            }
        }
        // `… | grep x` filters another command's output: a search of the code only when that
        // command printed the code.
        if matches!(l, Some((Label::Search, _, _))) && is_grep(c) && grep_operands(c) <= 1 && i > 0 && cmds[i - 1].piped
        {
            let source = cmds[i - 1].program();
            if !matches!(
                source,
                "cat"
                    | "sed"
                    | "nl"
                    | "head"
                    | "tail"
                    | "awk"
                    | "grep"
                    | "rg"
                    | "git"
                    | "find"
                    | "ls"
                    | "python"
                    | "python3"
            ) {
                l = None;
            }
        }
        if loops_over_output && matches!(l, Some((Label::Search, _, _))) {
            l = lab(
                Label::Understand,
                Strength::Strong,
                "greps for every item of a loop over a command's output: a dependency count",
            );
        }
        let Some(l) = l else { continue };
        let better = match &best {
            None => true,
            Some(b) => (l.1, priority(l.0)) > (b.1, priority(b.0)),
        };
        if better {
            best = Some(l);
        }
    }
    best.map(|(l, _, r)| v(l, r))
}

// ------------------------------------------------------------------------------------------------
// File tools.

fn by_file_create(path: &str, content: &str) -> Labelled {
    match file_class(path) {
        FileClass::Solution => v(Label::Edit, "writes solution.py"),
        FileClass::Test => v(Label::Test, "creates a test file"),
        FileClass::Plan => v(Label::Plan, "writes a plan or notes"),
        FileClass::Script => match python_intent(content) {
            Some(vd) => v(vd.label, format!("creates a script: {}", vd.rule)),
            None => match script_name_intent(path) {
                Some((l, r)) => v(l, r),
                None => v(Label::Other, "creates a helper file"),
            },
        },
        FileClass::Other => {
            if looks_like_plan(content) {
                v(Label::Plan, "writes a list of steps")
            } else {
                v(Label::Other, "creates a file other than the solution")
            }
        }
    }
}

fn by_file_edit(path: &str, content: Option<&str>) -> Labelled {
    match file_class(path) {
        FileClass::Solution => v(Label::Edit, "edits solution.py"),
        FileClass::Test => v(Label::Test, "edits a test file"),
        FileClass::Plan => v(Label::Plan, "edits a plan or notes"),
        FileClass::Script => match script_name_intent(path) {
            Some((l, r)) => v(l, format!("edits a script: {r}")),
            None => match content.and_then(python_intent) {
                Some(vd) => v(vd.label, format!("edits a script: {}", vd.rule)),
                None => v(Label::Edit, "edits Python code"),
            },
        },
        // A path-less edit (swe-agent's `edit`) changes the open file: the solution.
        FileClass::Other if path.is_empty() => v(Label::Edit, "edits the open file"),
        FileClass::Other => v(Label::Other, "edits a file other than the code"),
    }
}

fn content_of(args: &Value) -> String {
    if let Some(c) = s(args, CONTENT_KEYS) {
        return shell::head(c, shell::MAX_TEXT).to_string();
    }
    if let Some(edits) = args.get("edits").and_then(Value::as_array) {
        return edits.iter().filter_map(|e| s(e, CONTENT_KEYS)).collect::<Vec<_>>().join("\n");
    }
    String::new()
}

fn subagent(args: &Value) -> Labelled {
    let text = [s(args, &["prompt", "description", "task", "instructions", "query"]).unwrap_or("")]
        .concat()
        .to_ascii_lowercase();
    let has = |ws: &[&str]| ws.iter().any(|w| text.contains(w));
    if has(&["call graph", "callers", "depend", "reach", "analy", "trace", "understand"]) {
        v(Label::Understand, "asks a sub-agent to analyse the code")
    } else if has(&["test", "verify", "check", "validate"]) {
        v(Label::Test, "asks a sub-agent to test")
    } else if has(&["find", "where", "locate", "search", "look for", "list"]) {
        v(Label::Search, "asks a sub-agent to find something")
    } else if has(&["edit", "change", "refactor", "implement", "fix"]) {
        v(Label::Edit, "asks a sub-agent to change the code")
    } else {
        v(Label::Other, "delegates to a sub-agent")
    }
}

fn command_text(args: &Value) -> Option<String> {
    let c = args
        .get("command")
        .or_else(|| args.get("cmd"))
        .or_else(|| args.get("commands"))
        .or_else(|| args.get("script"))
        .or_else(|| args.get("input"))
        .or_else(|| args.get("raw"))?;
    match c {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let words: Vec<String> =
                parts.iter().map(|p| p.as_str().map(str::to_string).unwrap_or_else(|| p.to_string())).collect();
            // ["bash", "-lc", "…"]: the string is the command line.
            if words.len() >= 3
                && matches!(words[0].rsplit('/').next(), Some("bash" | "sh" | "zsh"))
                && words[1].starts_with('-')
                && words[1].contains('c')
            {
                Some(words[2].clone())
            } else {
                Some(
                    words
                        .iter()
                        .map(|w| {
                            if w.contains([' ', '\'', '"', '|', ';', '&']) {
                                format!("'{}'", w.replace('\'', "'\\''"))
                            } else {
                                w.clone()
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                )
            }
        }
        _ => None,
    }
}

fn shell_tool(args: &Value) -> Labelled {
    match command_text(args) {
        Some(cmd) => {
            shell_line(&cmd).unwrap_or_else(|| v(Label::Other, "a shell command that does nothing to the code"))
        }
        None => v(Label::Other, "a shell call without a command"),
    }
}

const SUMMARY_TOOLS: &[&str] = &[
    "task_complete",
    "complete_task",
    "complete",
    "finish",
    "submit",
    "attempt_completion",
    "done",
    "final_answer",
    "end_task",
    "submit_answer",
    "task_done",
];
const PLAN_TOOLS: &[&str] = &[
    "update_todo",
    "todowrite",
    "todo_write",
    "todoread",
    "todo_read",
    "update_plan",
    "plan",
    "think",
    "exitplanmode",
    "exit_plan_mode",
    "create_plan",
    "write_todos",
    "todo",
    "sequentialthinking",
    "sequential_thinking",
    "manage_todo_list",
];
const OTHER_TOOLS: &[&str] = &[
    "report_intent",
    "web_fetch",
    "webfetch",
    "fetch",
    "web_search",
    "websearch",
    "browser",
    "ask_user",
    "ask_followup_question",
    "fetch_copilot_cli_documentation",
    "delete_file",
    "skill",
    "list_bash",
    "write_bash",
    "stop_bash",
    "kill_shell",
    "killshell",
    "read_bash",
    "bashoutput",
    "bash_output",
    "image_gen",
    "memory",
];
const READ_TOOLS: &[&str] = &[
    "view",
    "read",
    "read_file",
    "readfile",
    "open",
    "open_file",
    "goto",
    "scroll_up",
    "scroll_down",
    "ls",
    "list_dir",
    "list_directory",
    "list_files",
    "cat",
    "view_file",
    "notebookread",
    "read_many_files",
    "get_file_contents",
    "show_file",
];
const SEARCH_TOOLS: &[&str] = &[
    "grep",
    "glob",
    "search",
    "search_file",
    "search_dir",
    "find_file",
    "grep_search",
    "file_search",
    "codebase_search",
    "find",
    "rg",
    "search_files",
    "semantic_search",
    "go_to_definition",
    "find_definition",
    "search_code",
    "find_files",
    "search_for_pattern",
];
const UNDERSTAND_TOOLS: &[&str] =
    &["find_references", "call_hierarchy", "get_references", "list_code_usages", "code_graph", "analyze_code"];
const EDIT_TOOLS: &[&str] = &[
    "edit",
    "str_replace",
    "write",
    "write_file",
    "create",
    "create_file",
    "multiedit",
    "multi_edit",
    "edit_file",
    "apply_patch",
    "insert",
    "replace",
    "replace_in_file",
    "notebookedit",
    "undo_edit",
    "search_replace",
    "write_to_file",
    "apply_diff",
    "patch",
];
const TEST_TOOLS: &[&str] = &["check", "run_tests", "test", "lint", "compile", "verify", "run_test", "validate"];
const SHELL_TOOLS: &[&str] = &[
    "bash",
    "shell",
    "execute_bash",
    "run_terminal_cmd",
    "exec_command",
    "run_command",
    "execute_command",
    "terminal",
    "run_shell_command",
    "local_shell",
    "bash_tool",
    "run",
    "cmd",
    "powershell",
    "exec",
    "container.exec",
    "run_in_terminal",
];
const EDITOR_TOOLS: &[&str] =
    &["str_replace_editor", "str_replace_based_edit_tool", "text_editor", "editor", "file_editor"];
const SUBAGENT_TOOLS: &[&str] = &["task", "agent", "dispatch_agent", "subagent", "delegate"];

/// Label one tool call.
pub fn classify(tool: &str, raw_args: &Value) -> Labelled {
    let owned = arguments_ref(raw_args);
    let args: &Value = &owned;
    let t = normalise(tool);
    let t = t.as_str();
    if t == "sql" {
        return v(Label::Plan, "the sql tool keeps the agent's todo list (grading.md §8.4)");
    }
    if SUMMARY_TOOLS.contains(&t) {
        return v(Label::Summary, "the tool ends the task");
    }
    if PLAN_TOOLS.contains(&t) {
        return v(Label::Plan, "a planning or todo tool");
    }
    if SUBAGENT_TOOLS.contains(&t) {
        return subagent(args);
    }
    if OTHER_TOOLS.contains(&t) || ["web", "browser", "url", "memory"].iter().any(|w| t.contains(w)) {
        return v(Label::Other, "web, intent reporting, a shell's output, or another tool outside the code");
    }
    if EDITOR_TOOLS.contains(&t) {
        let path = s(args, PATH_KEYS).unwrap_or("");
        return match s(args, &["command"]).unwrap_or("") {
            "view" => v(Label::Read, "views a file or folder"),
            "create" => by_file_create(path, &content_of(args)),
            _ => by_file_edit(path, Some(&content_of(args))),
        };
    }
    if SHELL_TOOLS.contains(&t) {
        return shell_tool(args);
    }
    if t == "apply_patch" || t == "apply_diff" {
        let body = s(args, &["input", "patch", "diff", "raw"]).unwrap_or("");
        return patch_intent(body);
    }
    if EDIT_TOOLS.contains(&t) {
        let path = s(args, PATH_KEYS).unwrap_or("");
        let content = content_of(args);
        let is_create = matches!(t, "create" | "create_file" | "write" | "write_file" | "write_to_file")
            || args.get("file_text").is_some()
            || (args.get("content").is_some() && args.get("old_str").is_none() && args.get("old_string").is_none());
        return if is_create { by_file_create(path, &content) } else { by_file_edit(path, Some(&content)) };
    }
    if UNDERSTAND_TOOLS.contains(&t) {
        return v(Label::Understand, "asks for references or the call hierarchy");
    }
    if SEARCH_TOOLS.contains(&t) {
        return v(Label::Search, "a search tool");
    }
    if READ_TOOLS.contains(&t) {
        return v(Label::Read, "views a file or folder");
    }
    if TEST_TOOLS.contains(&t) {
        return v(Label::Test, "runs the checks");
    }
    // Unknown tools: what the arguments look like.
    if command_text(args).is_some() && args.get("raw").is_none() {
        return shell_tool(args);
    }
    if args.get("old_str").is_some() || args.get("old_string").is_some() {
        return by_file_edit(s(args, PATH_KEYS).unwrap_or(""), Some(&content_of(args)));
    }
    if args.get("pattern").is_some() || args.get("query").is_some() || args.get("regex").is_some() {
        return v(Label::Search, "an unknown tool given a pattern");
    }
    if s(args, PATH_KEYS).is_some() {
        return v(Label::Read, "an unknown tool given a path");
    }
    v(Label::Other, format!("an unknown tool ({})", crate::results::input::clip(t, 40)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_strings() {
        assert_eq!(normalise("functions.bash"), "bash");
        assert_eq!(normalise("mcp__fs__Read"), "read");
        assert_eq!(normalise("default_api:view"), "view");
        assert_eq!(classify("view", &json!("{\"path\": \"solution.py\"}")).label, Label::Read);
        assert_eq!(classify("bash", &json!("not json")).label, Label::Other);
    }

    #[test]
    fn scripts_are_labelled_by_what_they_do() {
        let l = |c: &str| python_intent(c).map(|v| v.label);
        assert_eq!(l("open('solution.py', 'w').write(s)"), Some(Label::Edit));
        assert_eq!(l("p = '/workspace/solution.py'\nopen(p, 'w').write(s)"), Some(Label::Edit));
        assert_eq!(l("open('/tmp/out.json', 'w').write(x)\nimport ast\nast.walk(t)"), Some(Label::Understand));
        assert_eq!(l("import solution\nassert solution.main(1)"), Some(Label::Test));
        assert_eq!(l("from solution import ah\nprint(ah(1.0))"), Some(Label::Understand));
        assert_eq!(l("import re\nre.compile('x')"), None);
        assert_eq!(l("print(open('solution.py').read())"), Some(Label::Read));
    }

    #[test]
    fn shell_lines_pick_the_consequential_intent() {
        let l = |c: &str| shell_line(c).map(|v| v.label);
        assert_eq!(
            l("cp solution.py /tmp/o.py && python3 /tmp/refactor.py && python3 /tmp/check.py"),
            Some(Label::Edit)
        );
        assert_eq!(l("pip install numpy && python3 -c 'import numpy'"), Some(Label::Other));
        assert_eq!(l("grep -o 'x(' f | sort | uniq -c"), Some(Label::Understand));
        assert_eq!(l("cd /workspace"), None);
        assert_eq!(
            l("cat > /tmp/p.py <<'E'\nopen('solution.py','w').write('')\nE\npython3 /tmp/p.py"),
            Some(Label::Edit)
        );
    }
}
