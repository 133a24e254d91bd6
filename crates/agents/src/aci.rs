//! The agent–computer interface: a workspace (the task's `solution.py` and `problem.md`) and six
//! tools over it. Every answer comes from the files and from running code in the sandbox (D12).
//!
//! - `view`, `search`: numbered lines, within the window or the cap;
//! - `edit`: replace text or lines; the lint gate refuses edits that do not compile;
//! - `lint`: does the file compile, and if not, where and why;
//! - `run`: Python in the sandbox, through the session's [`Runner`];
//! - `submit`: ends the session.
//!
//! Every call is a [`Step`] of the trace. No tool reads [`Grading`]. Strategies get [`Tools`].

use super::ledger::{self, TurnTokens};
use super::settings::{Settings, SOLUTION, STATEMENT};
use cabrito_analysis::traces::{
    plain,
    plain::{Header, PlainTask, Tokens},
};
use cabrito_check::program::Program;
use cabrito_check::protocol::run::{Installed, Ran, RunJob, RunTarget, MAX_ARGS};
use cabrito_check::response::MAX_RESPONSE_BYTES;
use cabrito_check::rubric::{static_checks, Rubric, TaskRef};
use cabrito_gen::domain::stubs::Library;
use cabrito_gen::kinds::Behaviour;
use cabrito_gen::spec::{Axis, Domain, Kind};
use serde_json::{json, Value};
use std::sync::Arc;

/// Calls one session may make; later calls are refused.
pub const MAX_STEPS: usize = 5_000;
/// Longest search pattern, in characters.
pub const MAX_PATTERN: usize = 200;
/// Lines of the changed region an edit's reply shows.
const EDIT_ECHO: usize = 20;

/// The six tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolName {
    View,
    Search,
    Edit,
    Lint,
    Run,
    Submit,
}

impl ToolName {
    pub const ALL: &'static [ToolName] =
        &[ToolName::View, ToolName::Search, ToolName::Edit, ToolName::Lint, ToolName::Run, ToolName::Submit];
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::View => "view",
            ToolName::Search => "search",
            ToolName::Edit => "edit",
            ToolName::Lint => "lint",
            ToolName::Run => "run",
            ToolName::Submit => "submit",
        }
    }
    /// A tool by name; `check` is another name for `lint` (and says no more than it).
    pub fn parse(s: &str) -> Option<ToolName> {
        let s = s.trim();
        if s == "check" {
            return Some(ToolName::Lint);
        }
        ToolName::ALL.iter().copied().find(|t| t.as_str() == s)
    }
}

/// Runs the `run` tool's jobs: the native runner in the CLI, the grading worker in the browser.
/// `Err` says, in one line, why the code could not run at all.
pub trait Runner: Send + Sync {
    fn run(&self, job: &RunJob) -> Result<Ran, String>;
}

/// A runner that cannot run: every job is answered with the reason.
pub struct Unavailable(pub String);

impl Runner for Unavailable {
    fn run(&self, _: &RunJob) -> Result<Ran, String> {
        Err(self.0.clone())
    }
}

/// A runner holding one answer already obtained (the browser asks the worker first, then makes the
/// call with this).
pub struct Ready(pub Result<Ran, String>);

impl Runner for Ready {
    fn run(&self, _: &RunJob) -> Result<Ran, String> {
        self.0.clone()
    }
}

/// An edit: a unique snippet, or a range of lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Snippet { old: String, new: String },
    Lines { start: usize, end: usize, new: String },
}

/// A tool call, read and checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    View { path: String, start: usize, end: Option<usize> },
    Search { pattern: String, path: Option<String>, from_line: Option<usize> },
    Edit { path: String, change: Change },
    Lint { path: String },
    Run { target: RunTarget },
    Submit,
}

fn clip(s: &str, n: usize) -> String {
    let one: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).take(n).collect();
    if s.chars().count() > n {
        one + "…"
    } else {
        one
    }
}

/// A whole number argument (a JSON number or a string of digits).
fn whole(args: &Value, key: &str) -> Result<Option<usize>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1e15).map(|f| f as u64))
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .map(|x| Some(usize::try_from(x).unwrap_or(usize::MAX)))
            .ok_or_else(|| format!("'{key}' must be a whole number, got {}", clip(&v.to_string(), 30))),
    }
}

fn text_arg(args: &Value, key: &str) -> Result<Option<String>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(format!("'{key}' must be a string, got {}", clip(&v.to_string(), 30))),
    }
}

impl Request {
    /// Read a call: the tool's name and its arguments (a JSON object, or a string holding one).
    pub fn parse(tool: &str, args: &Value) -> Result<Request, String> {
        let tool_name = ToolName::parse(tool).ok_or_else(|| {
            format!("unknown tool '{}' (the tools are view, search, edit, lint, run and submit)", clip(tool, 40))
        })?;
        let parsed;
        let args = match args {
            Value::String(s) if s.trim().is_empty() => &Value::Null,
            Value::String(s) => {
                parsed = serde_json::from_str::<Value>(s)
                    .map_err(|e| format!("the arguments of {tool} are not a JSON object ({e})"))?;
                &parsed
            }
            a => a,
        };
        if !matches!(args, Value::Object(_) | Value::Null) {
            return Err(format!("the arguments of {tool} must be a JSON object"));
        }
        let path = || text_arg(args, "path");
        Ok(match tool_name {
            ToolName::View => Request::View {
                path: path()?.unwrap_or_else(|| SOLUTION.to_string()),
                start: whole(args, "start")?.unwrap_or(1),
                end: whole(args, "end")?,
            },
            ToolName::Search => Request::Search {
                pattern: text_arg(args, "pattern")?
                    .ok_or_else(|| "search needs a 'pattern' (the text to look for)".to_string())?,
                path: path()?,
                from_line: whole(args, "from_line")?,
            },
            ToolName::Edit => {
                let path = path()?.unwrap_or_else(|| SOLUTION.to_string());
                let new = text_arg(args, "new")?.unwrap_or_default();
                let change = match (text_arg(args, "old")?, whole(args, "start")?, whole(args, "end")?) {
                    (Some(old), None, None) => Change::Snippet { old, new },
                    (None, Some(start), end) => Change::Lines { start, end: end.unwrap_or(start), new },
                    _ => {
                        return Err(
                            "edit takes either 'old' and 'new' (replace the one place 'old' occurs) or 'start', 'end' and 'new' (replace those lines)"
                                .into(),
                        )
                    }
                };
                Request::Edit { path, change }
            }
            ToolName::Lint => Request::Lint { path: path()?.unwrap_or_else(|| SOLUTION.to_string()) },
            ToolName::Run => Request::Run { target: run_target(args)? },
            ToolName::Submit => Request::Submit,
        })
    }

    pub fn tool(&self) -> ToolName {
        match self {
            Request::View { .. } => ToolName::View,
            Request::Search { .. } => ToolName::Search,
            Request::Edit { .. } => ToolName::Edit,
            Request::Lint { .. } => ToolName::Lint,
            Request::Run { .. } => ToolName::Run,
            Request::Submit => ToolName::Submit,
        }
    }

    /// The arguments as the trace records them.
    pub fn arguments(&self) -> Value {
        match self {
            Request::View { path, start, end } => {
                let mut v = json!({"path": path, "start": start});
                if let Some(e) = end {
                    v["end"] = json!(e);
                }
                v
            }
            Request::Search { pattern, path, from_line } => {
                let mut v = json!({"pattern": pattern});
                if let Some(p) = path {
                    v["path"] = json!(p);
                }
                if let Some(f) = from_line {
                    v["from_line"] = json!(f);
                }
                v
            }
            Request::Edit { path, change: Change::Snippet { old, new } } => {
                json!({"path": path, "old": old, "new": new})
            }
            Request::Edit { path, change: Change::Lines { start, end, new } } => {
                json!({"path": path, "start": start, "end": end, "new": new})
            }
            Request::Lint { path } => json!({"path": path}),
            Request::Run { target: RunTarget::Code { code } } => json!({"code": code}),
            Request::Run { target: RunTarget::File { args } } => json!({"path": SOLUTION, "args": args}),
            Request::Submit => json!({}),
        }
    }
}

/// What a `run` call asks to run: `code`, or the file `path` (only `solution.py` runs) with `args`.
fn run_target(args: &Value) -> Result<RunTarget, String> {
    let code = text_arg(args, "code")?;
    let path = text_arg(args, "path")?;
    match (code, path) {
        (Some(_), Some(_)) => Err("run takes 'code' or 'path', not both".into()),
        (Some(code), None) => Ok(RunTarget::Code { code }),
        (None, Some(path)) => {
            let name = normalise(&path);
            if name != SOLUTION {
                return Err(format!(
                    "run can run {SOLUTION} as a program, not '{}' (or give 'code' to run)",
                    clip(&name, 60)
                ));
            }
            let list = match args.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s.clone()),
                        Value::Number(n) => Ok(n.to_string()),
                        other => Err(format!("'args' must be strings, got {}", clip(&other.to_string(), 30))),
                    })
                    .collect::<Result<_, _>>()?,
                Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
                Some(other) => {
                    return Err(format!("'args' must be a list of strings, got {}", clip(&other.to_string(), 30)))
                }
            };
            if list.len() > MAX_ARGS {
                return Err(format!("run takes at most {MAX_ARGS} arguments"));
            }
            Ok(RunTarget::File { args: list })
        }
        (None, None) => Err(
            "run needs 'code' (Python: an expression such as f(3), or statements) or 'path' (solution.py, run as a program, with 'args')"
                .into(),
        ),
    }
}

/// The task beyond its workspace: what grades the answer once the session is over (the static
/// rubric compares with the reference). No tool reads it; [`Aci::rubric`] is for the grade after the
/// episode (and a learner's labelled hints in the app), never a tool's answer.
pub struct Grading {
    kind: Kind,
    domain: Domain,
    axis: Axis,
    starter: String,
    reference: String,
    metadata: Value,
}

impl Grading {
    pub fn of(task: &cabrito_gen::Task) -> Grading {
        Grading::new(
            task.spec.kind,
            task.spec.domain,
            task.spec.axis,
            &task.starter_code,
            &task.solution_code,
            &task.metadata,
        )
    }
    /// For a reference record Cabrito did not generate (D11); the axis's rubric items (runtime's
    /// `branch_placement`) join the kind's, as in every other rubric.
    pub fn new(kind: Kind, domain: Domain, axis: Axis, starter: &str, reference: &str, metadata: &Value) -> Grading {
        Grading {
            kind,
            domain,
            axis,
            starter: starter.to_string(),
            reference: reference.to_string(),
            metadata: metadata.clone(),
        }
    }
    fn rubric(&self, candidate: &str) -> Rubric {
        static_checks(
            &TaskRef {
                kind: self.kind,
                domain: self.domain,
                axis: self.axis,
                starter: &self.starter,
                reference: &self.reference,
                metadata: &self.metadata,
            },
            candidate,
        )
    }
}

/// What a session's workspace holds: the statement, the starter as `solution.py`, and the
/// `mylibrary` installed for running it (the domain's; the indexed one on the instructions axis;
/// none for the calculators of Merge Codebases). All of it is what the statement already says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workspace {
    pub statement: String,
    pub solution: String,
    pub library: Option<Installed>,
}

impl Workspace {
    pub fn new(statement: &str, starter: &str, kind: Kind, domain: Domain, axis: Axis) -> Workspace {
        let library = (kind.def().behaviour() == Behaviour::Functions).then(|| Installed {
            domain,
            library: if axis.def().instructions() { Library::Indexed } else { Library::Plain },
        });
        Workspace { statement: statement.to_string(), solution: starter.to_string(), library }
    }
    pub fn of(task: &cabrito_gen::Task) -> Workspace {
        Workspace::new(&task.prompt, &task.starter_code, task.spec.kind, task.spec.domain, task.spec.axis)
    }
}

/// What a call looked at in `solution.py` (1-based lines), for highlighting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Looked {
    /// The lines a view showed.
    pub viewed: Option<(usize, usize)>,
    /// The lines a search listed.
    pub matched: Vec<usize>,
    /// The lines an edit wrote (in the file after it; a deletion marks the line after the gap).
    pub edited: Option<(usize, usize)>,
}

/// One call of a session.
#[derive(Clone, Debug)]
pub struct Step {
    /// The tool as called (possibly not a tool).
    pub tool: String,
    pub arguments: Value,
    pub output: String,
    /// The call did what it asked.
    pub ok: bool,
    /// The model turn that made it (scripted agents and students: one call a turn).
    pub turn: usize,
    pub looked: Looked,
    /// `solution.py` after the call.
    pub solution: Arc<str>,
    /// The turn's token figures when a model's server gave them (on the turn's first call).
    pub tokens: Option<TurnTokens>,
}

/// A session on one task.
pub struct Aci {
    statement: String,
    solution: Arc<str>,
    library: Option<Installed>,
    settings: Settings,
    grading: Grading,
    runner: Arc<dyn Runner>,
    steps: Vec<Step>,
    submitted: bool,
}

/// One file of the workspace.
enum FileId {
    Solution,
    Statement,
}

fn normalise(path: &str) -> String {
    let p = path.trim();
    let p = p.strip_prefix("/workspace/").unwrap_or(p);
    let p = p.strip_prefix("./").unwrap_or(p);
    p.to_string()
}

/// `text`'s lines (without their ends).
fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).map_or(0, |s| s.matches('\n').count()) + 1
}

impl Aci {
    /// A session on a workspace; `grading` is kept for the grade after the episode, and `runner`
    /// answers the `run` tool.
    pub fn new(workspace: Workspace, grading: Grading, settings: Settings, runner: Arc<dyn Runner>) -> Aci {
        Aci {
            statement: workspace.statement,
            solution: Arc::from(workspace.solution.as_str()),
            library: workspace.library,
            settings,
            grading,
            runner,
            steps: Vec::new(),
            submitted: false,
        }
    }

    /// A session on a Cabrito task.
    pub fn for_task(task: &cabrito_gen::Task, settings: Settings, runner: Arc<dyn Runner>) -> Aci {
        Aci::new(Workspace::of(task), Grading::of(task), settings, runner)
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }
    pub fn statement(&self) -> &str {
        &self.statement
    }
    /// `solution.py` now.
    pub fn solution(&self) -> &str {
        &self.solution
    }
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }
    pub fn submitted(&self) -> bool {
        self.submitted
    }
    /// The handle a scripted strategy gets.
    pub fn tools(&mut self) -> Tools<'_> {
        Tools { aci: self }
    }

    fn file(&self, path: &str) -> Result<(FileId, String), String> {
        match normalise(path).as_str() {
            SOLUTION => Ok((FileId::Solution, SOLUTION.into())),
            STATEMENT => Ok((FileId::Statement, STATEMENT.into())),
            other => {
                Err(format!("no such file: '{}' (the workspace holds {SOLUTION} and {STATEMENT})", clip(other, 60)))
            }
        }
    }

    fn text(&self, id: &FileId) -> &str {
        match id {
            FileId::Solution => &self.solution,
            FileId::Statement => &self.statement,
        }
    }

    /// Make a call as one turn of its own (scripted agents, students).
    pub fn call(&mut self, tool: &str, args: &Value) -> String {
        let turn = self.steps.last().map_or(0, |s| s.turn + 1);
        self.call_in_turn(tool, args, turn, None)
    }

    /// Make a call as one turn of its own, `run` answered by `runner` instead of the session's (the
    /// browser's console asks the worker first and passes its answer as [`Ready`]).
    pub fn call_with(&mut self, tool: &str, args: &Value, runner: &dyn Runner) -> String {
        let turn = self.steps.last().map_or(0, |s| s.turn + 1);
        self.call_full(tool, args, turn, None, Some(runner))
    }

    /// The job a `run` call with these arguments would send, or why the call is refused (then make
    /// the call anyway: it records the refusal).
    pub fn run_job(&self, args: &Value) -> Result<RunJob, String> {
        if self.submitted {
            return Err(format!("the session has ended: {SOLUTION} was submitted"));
        }
        match Request::parse("run", args)? {
            Request::Run { target } => Ok(self.job(target)),
            _ => Err("not a run".into()),
        }
    }

    fn job(&self, target: RunTarget) -> RunJob {
        RunJob { solution: self.solution.to_string(), library: self.library, target }
    }

    /// Make a call as part of model turn `turn`, with the turn's token figures when known.
    pub fn call_in_turn(&mut self, tool: &str, args: &Value, turn: usize, tokens: Option<TurnTokens>) -> String {
        self.call_full(tool, args, turn, tokens, None)
    }

    fn call_full(
        &mut self,
        tool: &str,
        args: &Value,
        turn: usize,
        tokens: Option<TurnTokens>,
        runner: Option<&dyn Runner>,
    ) -> String {
        let mut looked = Looked::default();
        let (ok, output) = if self.steps.len() >= MAX_STEPS {
            (false, format!("refused: a session makes at most {MAX_STEPS} calls"))
        } else if self.submitted {
            (false, format!("the session has ended: {SOLUTION} was submitted"))
        } else {
            match Request::parse(tool, args) {
                Err(e) => (false, e),
                Ok(req) => match self.act(&req, &mut looked, runner) {
                    Ok(out) => (true, out),
                    Err(e) => (false, e),
                },
            }
        };
        let arguments = match args {
            Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| args.clone()),
            a => a.clone(),
        };
        self.steps.push(Step {
            tool: clip(tool, 80),
            arguments,
            output: output.clone(),
            ok,
            turn,
            looked,
            solution: self.solution.clone(),
            tokens,
        });
        output
    }

    fn act(&mut self, req: &Request, looked: &mut Looked, runner: Option<&dyn Runner>) -> Result<String, String> {
        match req {
            Request::View { path, start, end } => self.view(path, *start, *end, looked),
            Request::Search { pattern, path, from_line } => self.search(pattern, path.as_deref(), *from_line, looked),
            Request::Edit { path, change } => self.edit(path, change, looked),
            Request::Lint { path } => self.lint(path),
            Request::Run { target } => {
                let job = self.job(target.clone());
                job.validate()?;
                let ran = match runner {
                    Some(r) => r.run(&job),
                    None => self.runner.run(&job),
                };
                ran.map(|r| r.describe()).map_err(|e| format!("run is not available: {e}"))
            }
            Request::Submit => {
                self.submitted = true;
                Ok(format!(
                    "submitted {SOLUTION} ({} lines); it is graded after the session (the rubric and the hidden tests)",
                    self.solution.lines().count()
                ))
            }
        }
    }

    /// Does the file compile? The line and the reason when it does not; nothing else.
    fn lint(&self, path: &str) -> Result<String, String> {
        let (id, name) = self.file(path)?;
        if !name.ends_with(".py") {
            return Err(format!("{name} is not Python: lint reads {SOLUTION}"));
        }
        Ok(match Program::parse(self.text(&id)) {
            Ok(_) => format!("{name} compiles"),
            Err(e) => format!("{name} does not compile: line {}: {}", e.line, e.message),
        })
    }

    fn view(&self, path: &str, start: usize, end: Option<usize>, looked: &mut Looked) -> Result<String, String> {
        let (id, name) = self.file(path)?;
        let text = self.text(&id);
        let all = lines(text);
        let total = all.len();
        if total == 0 {
            return Ok(format!("{name} is empty"));
        }
        if start == 0 || start > total {
            return Err(format!("{name} has {total} lines; start must be from 1 to {total}"));
        }
        let asked_end = end.unwrap_or(usize::MAX).min(total);
        if asked_end < start {
            return Err(format!("end ({}) is before start ({start})", end.unwrap_or(0)));
        }
        let window = self.settings.window.max(1);
        let last = asked_end.min(start.saturating_add(window - 1));
        let mut out = format!("{name}, lines {start}-{last} of {total}:\n");
        for (i, l) in all.iter().enumerate().take(last).skip(start - 1) {
            out.push_str(&format!("{}: {l}\n", i + 1));
        }
        if last < asked_end {
            out.push_str(&format!("… (the window shows {window} lines; view from {} for more)\n", last + 1));
        }
        if matches!(id, FileId::Solution) {
            looked.viewed = Some((start, last));
        }
        Ok(out)
    }

    fn search(
        &self,
        pattern: &str,
        path: Option<&str>,
        from_line: Option<usize>,
        looked: &mut Looked,
    ) -> Result<String, String> {
        if pattern.is_empty() {
            return Err("search needs a non-empty 'pattern'".into());
        }
        if pattern.chars().count() > MAX_PATTERN {
            return Err(format!("the pattern is longer than {MAX_PATTERN} characters"));
        }
        let files: Vec<(FileId, String)> = match path {
            Some(p) => vec![self.file(p)?],
            None => vec![(FileId::Solution, SOLUTION.into()), (FileId::Statement, STATEMENT.into())],
        };
        let from = from_line.unwrap_or(1).max(1);
        let mut hits: Vec<(String, usize, String, bool)> = Vec::new();
        for (id, name) in &files {
            for (i, l) in self.text(id).lines().enumerate() {
                if i + 1 >= from && l.contains(pattern) {
                    hits.push((name.clone(), i + 1, clip(l, 300), matches!(id, FileId::Solution)));
                }
            }
        }
        let shown_pattern = clip(pattern, 80);
        let place = path.map(|p| format!(" in {}", normalise(p))).unwrap_or_default();
        let after = if from > 1 { format!(" from line {from}") } else { String::new() };
        if hits.is_empty() {
            return Ok(format!("no match for \"{shown_pattern}\"{place}{after}"));
        }
        let cap = self.settings.search_cap.max(1);
        let total = hits.len();
        let mut out = if total > cap {
            let last = hits[cap - 1].1;
            format!(
                "{total} matches for \"{shown_pattern}\"{place}{after}; the first {cap} are shown (to line {last}); search again with from_line={} for more:\n",
                last + 1
            )
        } else {
            format!("{total} match{} for \"{shown_pattern}\"{place}{after}:\n", if total == 1 { "" } else { "es" })
        };
        for (name, line, text, in_solution) in hits.into_iter().take(cap) {
            out.push_str(&format!("{name}:{line}: {text}\n"));
            if in_solution {
                looked.matched.push(line);
            }
        }
        Ok(out)
    }

    fn edit(&mut self, path: &str, change: &Change, looked: &mut Looked) -> Result<String, String> {
        let (id, name) = self.file(path)?;
        if self.settings.protected.iter().any(|p| normalise(p) == name) {
            return Err(format!("edit refused: {name} is protected"));
        }
        let text = self.text(&id).to_string();
        let (new_text, first, count, what) = match change {
            Change::Snippet { old, new } => {
                if old.is_empty() {
                    return Err("edit failed: 'old' is empty; give the exact text to replace".into());
                }
                let found: Vec<usize> = text.match_indices(old.as_str()).map(|(i, _)| i).take(3).collect();
                match found.as_slice() {
                    [] => {
                        return Err(format!(
                            "edit failed: 'old' was not found in {name} (it must match exactly, spaces included)"
                        ))
                    }
                    [at] => {
                        let mut t = String::with_capacity(text.len() + new.len());
                        t.push_str(&text[..*at]);
                        t.push_str(new);
                        t.push_str(&text[at + old.len()..]);
                        let first = line_of(&text, *at);
                        let was = old.lines().count().max(1);
                        let count = if new.is_empty() { 0 } else { new.lines().count().max(1) };
                        (t, first, count, format!("lines {first}-{} replaced", first + was - 1))
                    }
                    _ => {
                        let n = text.matches(old.as_str()).count();
                        return Err(format!("edit failed: 'old' occurs {n} times in {name}; include more of the text around it so that it occurs once"));
                    }
                }
            }
            Change::Lines { start, end, new } => {
                let all: Vec<&str> = text.split_inclusive('\n').collect();
                let total = all.len();
                if *start == 0 || *start > total || *end < *start || *end > total {
                    return Err(format!(
                        "edit failed: {name} has {total} lines; start and end must satisfy 1 <= start <= end <= {total}"
                    ));
                }
                let mut t = String::with_capacity(text.len() + new.len());
                for l in &all[..start - 1] {
                    t.push_str(l);
                }
                if !new.is_empty() {
                    t.push_str(new);
                    if !new.ends_with('\n') && (*end < total || text.ends_with('\n')) {
                        t.push('\n');
                    }
                }
                for l in &all[*end..] {
                    t.push_str(l);
                }
                let count = if new.is_empty() { 0 } else { new.lines().count().max(1) };
                (t, *start, count, format!("lines {start}-{end} replaced"))
            }
        };
        if new_text.len() > MAX_RESPONSE_BYTES {
            return Err(format!(
                "edit refused: {name} would be {} bytes; at most {MAX_RESPONSE_BYTES} (2 MB)",
                new_text.len()
            ));
        }
        if self.settings.lint_gate && name.ends_with(".py") {
            if let Err(e) = Program::parse(&new_text) {
                return Err(format!(
                    "edit refused by the lint gate: the result would not compile: line {}: {}",
                    e.line, e.message
                ));
            }
        }
        let mut out = if count == 0 {
            format!("edited {name}: {} by nothing (deleted)\n", what)
        } else {
            format!("edited {name}: {what} by {count} line{}:\n", if count == 1 { "" } else { "s" })
        };
        for (i, l) in new_text.lines().enumerate().skip(first - 1).take(count.min(EDIT_ECHO)) {
            out.push_str(&format!("{}: {l}\n", i + 1));
        }
        if count > EDIT_ECHO {
            out.push_str(&format!("… ({} more lines)\n", count - EDIT_ECHO));
        }
        match id {
            FileId::Solution => {
                self.solution = Arc::from(new_text.as_str());
                looked.edited = Some((first, first + count.max(1) - 1));
            }
            FileId::Statement => self.statement = new_text,
        }
        Ok(out)
    }

    /// The static rubric of `solution.py` now: the grade after the episode (the CLI's summary, the
    /// app's grade once submitted, a learner's labelled hints). Never a tool's answer.
    pub fn rubric(&self) -> Rubric {
        self.grading.rubric(&self.solution)
    }

    /// The response in the reference's file-block format.
    pub fn response(&self) -> String {
        let mut out = format!("# === {SOLUTION} ===\n{}", self.solution);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }

    /// The system text a model is given before the statement: the tools and the settings.
    pub fn manual(settings: &Settings) -> String {
        manual(settings)
    }

    /// Token figures per turn: the server's when every turn has them, else estimated from the text
    /// (each call its own turn; see [`ledger::simulate`]).
    pub fn turns(&self, caching: bool) -> Vec<TurnTokens> {
        let given: Vec<(usize, TurnTokens)> = self.steps.iter().filter_map(|s| s.tokens.map(|t| (s.turn, t))).collect();
        if !self.steps.is_empty() && given.len() == self.turn_count() {
            return given.into_iter().map(|(_, t)| t).collect();
        }
        let system = ledger::estimate(&manual(&self.settings)) + ledger::estimate(&self.statement);
        let per: Vec<(u64, u64)> = self
            .steps
            .iter()
            .map(|s| (ledger::estimate(&call_text(&s.tool, &s.arguments)), ledger::estimate(&s.output)))
            .collect();
        ledger::simulate(system, &per, caching)
    }

    fn turn_count(&self) -> usize {
        let mut turns: Vec<usize> = self.steps.iter().map(|s| s.turn).collect();
        turns.dedup();
        turns.len()
    }

    /// The session as a plain trace (one line per call, tokens on each turn's first call).
    pub fn trace(&self, header: &Header, caching: bool) -> String {
        let turns = self.turns(caching);
        let estimated = self.steps.iter().filter(|s| s.tokens.is_some()).count() == 0;
        let mut calls = Vec::with_capacity(self.steps.len());
        let mut last_turn = None;
        for (i, s) in self.steps.iter().enumerate() {
            let first_of_turn = last_turn != Some(s.turn);
            last_turn = Some(s.turn);
            let t = if estimated { turns.get(i).copied() } else { s.tokens };
            calls.push(plain::PlainCall {
                tool: s.tool.clone(),
                arguments: s.arguments.clone(),
                output: Some(s.output.clone()),
                turn: Some(s.turn as u64),
                tokens: t.filter(|_| first_of_turn).map(|t| Tokens {
                    input: Some(t.input),
                    cached: Some(t.cached),
                    output: Some(t.output),
                }),
                success: Some(s.ok),
                ..plain::PlainCall::default()
            });
        }
        plain::write(header, &calls)
    }
}

/// The text of a call as a model would write it (for token estimates).
pub fn call_text(tool: &str, arguments: &Value) -> String {
    json!({"tool": tool, "arguments": arguments}).to_string()
}

/// The plain-trace header's task for a Cabrito task.
pub fn plain_task(task: &cabrito_gen::Task) -> PlainTask {
    PlainTask {
        name: task.name.clone(),
        dag_id: task.dag_id.clone(),
        run: cabrito_gen::task::run_name(&task.spec),
        task_set: cabrito_gen::task::task_set(&task.spec),
        task_type: task.spec.kind.to_string(),
        link: task.link.clone(),
    }
}

fn manual(s: &Settings) -> String {
    let protected = if s.protected.is_empty() {
        "No path is protected.".to_string()
    } else {
        format!("Protected (no edit may change them): {}.", s.protected.join(", "))
    };
    let gate = if s.lint_gate {
        " An edit of a Python file whose result would not compile is refused, with the compiler's reason."
    } else {
        ""
    };
    format!(
        "You work on a small Python repository through six tools. The workspace holds {SOLUTION} (the code to change) and {STATEMENT} (the task); a library it imports (`mylibrary`) is installed.\n\
         - view(path, start, end): numbered lines start to end of a file, at most {w} lines a call.\n\
         - search(pattern, path, from_line): the lines that contain the plain text pattern, at most {c} a call; from_line continues a long list.\n\
         - edit(path, old, new): replaces the one place where old occurs; edit(path, start, end, new) replaces lines start to end (an empty new deletes them).{gate} {protected}\n\
         - lint(path): whether {SOLUTION} compiles, and if not the line and the reason.\n\
         - run(code): runs Python with the names of {SOLUTION} as it is now in scope (also importable as `solution`) and shows an expression's value, the output and any traceback; run(path, args) runs {SOLUTION} as a program. A run gets {t} s, {m} MiB of memory, no network, and {o} KiB of each output.\n\
         - submit(): ends the session; {SOLUTION} as it is then is graded by tests you do not see.\n",
        w = s.window,
        c = s.search_cap,
        t = cabrito_check::protocol::run::WALL_SECONDS,
        m = cabrito_check::protocol::run::MEMORY_BYTES >> 20,
        o = cabrito_check::protocol::run::OUTPUT_BYTES >> 10,
    )
}

/// The tools as OpenAI-style function definitions (for models that call tools).
pub fn tool_schemas(s: &Settings) -> Value {
    let f = |name: &str, description: String, properties: Value, required: Value| {
        json!({"type": "function", "function": {"name": name, "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required}}})
    };
    let int = |d: &str| json!({"type": "integer", "description": d});
    let string = |d: &str| json!({"type": "string", "description": d});
    json!([
        f("view", format!("Show numbered lines of a file, at most {} lines a call.", s.window),
            json!({"path": string("solution.py or problem.md"), "start": int("first line (1-based)"), "end": int("last line")}), json!(["path", "start"])),
        f("search", format!("List the lines that contain a plain-text pattern, at most {} a call.", s.search_cap),
            json!({"pattern": string("the text to look for"), "path": string("limit the search to this file"), "from_line": int("list matches from this line on")}), json!(["pattern"])),
        f("edit", "Replace the one place where `old` occurs by `new`, or replace lines `start` to `end` by `new` (empty `new` deletes them).".into(),
            json!({"path": string("the file to change"), "old": string("exact text to replace (must occur once)"), "new": string("replacement text"), "start": int("first line to replace"), "end": int("last line to replace")}), json!(["path", "new"])),
        f("lint", "Say whether a Python file of the workspace compiles; if not, the line and the reason.".into(),
            json!({"path": string("the file (solution.py)")}), json!([])),
        f("run", "Run Python in a sandbox against the workspace as it is now: `code` (an expression such as f(3), whose value is shown, or statements, with the names of solution.py in scope), or `path` solution.py as a program with `args`. Shows how it ended, the value, stdout and stderr.".into(),
            json!({"code": string("Python to run: an expression or statements"), "path": string("solution.py, to run it as a program"),
                   "args": {"type": "array", "items": {"type": "string"}, "description": "command-line arguments when running a path"}}), json!([])),
        f("submit", "End the session; solution.py as it is now is graded.".into(), json!({}), json!([])),
    ])
}

/// The handle a scripted strategy acts through: the tools, each answering with its text output,
/// and nothing else (the session and the task stay out of reach).
pub struct Tools<'a> {
    aci: &'a mut Aci,
}

impl Tools<'_> {
    /// The view window (the tools' documentation says it).
    pub fn window(&self) -> usize {
        self.aci.settings.window
    }
    /// The search cap.
    pub fn search_cap(&self) -> usize {
        self.aci.settings.search_cap
    }
    /// Calls made so far.
    pub fn calls(&self) -> usize {
        self.aci.steps.len()
    }
    /// Whether the session has ended.
    pub fn ended(&self) -> bool {
        self.aci.submitted || self.aci.steps.len() >= MAX_STEPS
    }
    /// `view solution.py start end`.
    pub fn view(&mut self, start: usize, end: usize) -> String {
        self.aci.call("view", &json!({"path": SOLUTION, "start": start, "end": end}))
    }
    /// `search pattern` in `solution.py`, from a line on.
    pub fn search(&mut self, pattern: &str, from_line: Option<usize>) -> String {
        let mut args = json!({"pattern": pattern, "path": SOLUTION});
        if let Some(f) = from_line {
            args["from_line"] = json!(f);
        }
        self.aci.call("search", &args)
    }
    /// Replace the one place `old` occurs in `solution.py`.
    pub fn replace(&mut self, old: &str, new: &str) -> String {
        self.aci.call("edit", &json!({"path": SOLUTION, "old": old, "new": new}))
    }
    /// Replace lines `start..=end` of `solution.py` (an empty `new` deletes them).
    pub fn replace_lines(&mut self, start: usize, end: usize, new: &str) -> String {
        self.aci.call("edit", &json!({"path": SOLUTION, "start": start, "end": end, "new": new}))
    }
    /// `lint solution.py`.
    pub fn lint(&mut self) -> String {
        self.aci.call("lint", &json!({"path": SOLUTION}))
    }
    /// `run` Python code against the workspace.
    pub fn run(&mut self, code: &str) -> String {
        self.aci.call("run", &json!({"code": code}))
    }
    pub fn submit(&mut self) -> String {
        self.aci.call("submit", &json!({}))
    }
}
