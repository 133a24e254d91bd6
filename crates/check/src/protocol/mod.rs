//! The grading worker's WebSocket protocol (playground.md, "The worker"): the messages both ends use,
//! and the one parser of client messages. The native worker and the web app share it.
//!
//! Every message is a JSON object with a `type` and the version `v`; replies repeat their request's
//! `id`.
//!
//! - client → worker: `hello`, `grade`, `run` ([`run`]), `cancel`;
//! - worker → client: `hello`, `accepted`, `progress`, `result`, `ran`, `error`.
//!
//! Every `grade` and `run` gets one final reply. Fields may be added, never renamed. [`report`] turns
//! verdicts into messages; [`checker`] is the page's protocol with its checker worker.

use crate::RubricItem;
use cabrito_gen::spec::{SpecError, TaskSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

pub mod checker;
pub mod inpage;
pub mod report;
pub mod run;

/// The protocol version every message carries.
pub const PROTOCOL_VERSION: u32 = 1;

/// Longest request id accepted, in bytes.
pub const MAX_ID_BYTES: usize = 128;

// ------------------------------------------------------------------------------------------------
// Client → worker.

/// `{"v":1,"type":"hello"}`: asks the worker who it is and what its limits are.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HelloRequest {
    pub v: u32,
}

/// `{"v":1,"id":"…","type":"grade","spec":{…},"solution":"…","trials":50}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GradeRequest {
    pub v: u32,
    pub id: String,
    /// The share link's keys (`v`, `kind`, `domain`, `axis`, `n`, `seed`, optional `n_init`,
    /// `n_edit`); numbers may also be sent as strings.
    pub spec: TaskSpec,
    /// The response to grade: a file block, a bare Python file or a unified diff.
    pub solution: String,
    /// Trials per function (the worker's default when absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trials: Option<usize>,
}

/// `{"v":1,"id":"…","type":"cancel"}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CancelRequest {
    pub v: u32,
    pub id: String,
}

/// `{"v":1,"id":"…","type":"run","solution":"…","library":{…},"target":{"kind":"code","code":"f(3)"}}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRequest {
    pub v: u32,
    pub id: String,
    #[serde(flatten)]
    pub job: run::RunJob,
}

/// A message from a client. Serialise with `serde_json`; parse with [`ClientMessage::parse`]
/// (which gives the error codes and the spec errors of the rest of Cabrito).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    Hello(HelloRequest),
    Grade(GradeRequest),
    Run(RunRequest),
    Cancel(CancelRequest),
}

impl ClientMessage {
    pub fn hello() -> ClientMessage {
        ClientMessage::Hello(HelloRequest { v: PROTOCOL_VERSION })
    }

    pub fn grade(id: impl Into<String>, spec: &TaskSpec, solution: impl Into<String>, trials: Option<usize>) -> Self {
        ClientMessage::Grade(GradeRequest {
            v: PROTOCOL_VERSION,
            id: id.into(),
            spec: spec.clone(),
            solution: solution.into(),
            trials,
        })
    }

    pub fn run(id: impl Into<String>, job: run::RunJob) -> ClientMessage {
        ClientMessage::Run(RunRequest { v: PROTOCOL_VERSION, id: id.into(), job })
    }

    pub fn cancel(id: impl Into<String>) -> ClientMessage {
        ClientMessage::Cancel(CancelRequest { v: PROTOCOL_VERSION, id: id.into() })
    }

    /// The message as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Read a client message. Errors carry the code to reply with and, when the message had a
    /// readable one, its id.
    pub fn parse(text: &str) -> Result<ClientMessage, ProtocolError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ProtocolError {
            code: ErrorCode::BadJson,
            id: None,
            message: format!("the message is not valid JSON: {e}"),
        })?;
        let Value::Object(obj) = &value else {
            return Err(bad(None, format!("a message must be a JSON object, got {}", json_kind(&value))));
        };
        // The id first, so that every later error can name the request it is about.
        let id = match obj.get("id") {
            None => None,
            Some(Value::String(s)) if s.is_empty() => return Err(bad(None, "'id' must not be empty".into())),
            Some(Value::String(s)) if s.len() > MAX_ID_BYTES => {
                return Err(bad(None, format!("'id' is {} bytes; at most {MAX_ID_BYTES} are allowed", s.len())))
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(bad(None, format!("'id' must be a string, got {}", json_kind(other)))),
        };
        let ty = match obj.get("type") {
            Some(Value::String(s)) => s.as_str(),
            Some(other) => return Err(bad(id, format!("'type' must be a string, got {}", json_kind(other)))),
            None => return Err(bad(id, "the message has no 'type' (hello, grade, run or cancel)".into())),
        };
        match obj.get("v") {
            Some(Value::Number(n)) if n.as_u64() == Some(PROTOCOL_VERSION as u64) => {}
            Some(other) => {
                return Err(bad(
                    id,
                    format!("protocol version {other} is not spoken here; this worker speaks v{PROTOCOL_VERSION}"),
                ))
            }
            None => {
                return Err(bad(
                    id,
                    format!("the message has no protocol version 'v' (this worker speaks v{PROTOCOL_VERSION})"),
                ))
            }
        }
        // Unknown fields are ignored (fields may be added to the protocol); unknown types are not.
        if !matches!(ty, "hello" | "grade" | "run" | "cancel") {
            return Err(bad(
                id,
                format!("unknown message type '{}'; the types are hello, grade, run and cancel", clip(ty, 40)),
            ));
        }
        match ty {
            "hello" => Ok(ClientMessage::Hello(HelloRequest { v: PROTOCOL_VERSION })),
            "cancel" => {
                let Some(id) = id else { return Err(bad(None, "a cancel message needs the 'id' of the job".into())) };
                Ok(ClientMessage::Cancel(CancelRequest { v: PROTOCOL_VERSION, id }))
            }
            "run" => {
                let Some(id) = id else { return Err(bad(None, "a run message needs an 'id' (any string)".into())) };
                let job: run::RunJob = serde_json::from_value(value.clone())
                    .map_err(|e| bad(Some(id.clone()), format!("a run message needs 'solution' (text) and 'target' ({{\"kind\":\"code\",\"code\":…}} or {{\"kind\":\"file\",\"args\":[…]}}): {e}")))?;
                job.validate().map_err(|e| bad(Some(id.clone()), e))?;
                Ok(ClientMessage::Run(RunRequest { v: PROTOCOL_VERSION, id, job }))
            }
            _ => {
                let Some(id) = id else { return Err(bad(None, "a grade message needs an 'id' (any string)".into())) };
                // A Cabrito task record may stand in for the spec: only its `spec` is read (the
                // worker regenerates the task and never runs code a client sends but the solution).
                let spec_value = match (obj.get("spec"), obj.get("task")) {
                    (Some(s), _) => s,
                    (None, Some(Value::Object(record))) => match record.get("spec") {
                        Some(s) => s,
                        None => {
                            return Err(bad(
                                Some(id),
                                "the task record has no 'spec': the worker grades Cabrito tasks, which it \
                                 regenerates from their spec (it never trusts reference code sent by a client)"
                                    .into(),
                            ))
                        }
                    },
                    (None, Some(other)) => {
                        return Err(bad(
                            Some(id),
                            format!("'task' must be a task record (an object), got {}", json_kind(other)),
                        ))
                    }
                    (None, None) => {
                        return Err(bad(Some(id), "a grade message needs a 'spec' (the share link's keys)".into()))
                    }
                };
                let spec = spec_from_json(spec_value).map_err(|e| ProtocolError {
                    code: ErrorCode::BadRequest,
                    id: Some(id.clone()),
                    message: format!("spec: {e}"),
                })?;
                let solution = match obj.get("solution") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => {
                        return Err(bad(Some(id), format!("'solution' must be a string, got {}", json_kind(other))))
                    }
                    None => return Err(bad(Some(id), "a grade message needs a 'solution' (text)".into())),
                };
                let trials = match obj.get("trials") {
                    None | Some(Value::Null) => None,
                    Some(Value::Number(n)) => match n.as_u64() {
                        Some(t) if t >= 1 => Some(usize::try_from(t).unwrap_or(usize::MAX)),
                        _ => return Err(bad(Some(id), format!("'trials' must be a positive integer, got {n}"))),
                    },
                    Some(other) => {
                        return Err(bad(
                            Some(id),
                            format!("'trials' must be a positive integer, got {}", json_kind(other)),
                        ))
                    }
                };
                Ok(ClientMessage::Grade(GradeRequest { v: PROTOCOL_VERSION, id, spec, solution, trials }))
            }
        }
    }
}

/// Read a spec object (`{"v":1,"kind":"…",…,"n":25,"seed":7}`) with the same rules and messages
/// as share links and CLI flags ([`TaskSpec::from_pairs`]). Values may be numbers or strings.
pub fn spec_from_json(value: &Value) -> Result<TaskSpec, SpecError> {
    let Value::Object(obj) = value else {
        return Err(SpecError {
            key: String::new(),
            message: format!("the spec must be an object of the share link's keys, got {}", json_kind(value)),
            needs: None,
        });
    };
    let mut pairs: Vec<(String, String)> = Vec::with_capacity(obj.len());
    for (k, v) in obj {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            other => {
                return Err(SpecError {
                    key: k.clone(),
                    message: format!("'{}' must be a number or a string, got {}", clip(k, 40), json_kind(other)),
                    needs: None,
                })
            }
        };
        pairs.push((k.clone(), text));
    }
    TaskSpec::from_pairs(pairs)
}

// ------------------------------------------------------------------------------------------------
// Worker → client.

/// The limits a worker enforces, announced in its `hello`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// Largest message accepted, in bytes (larger ones get `too_large`).
    pub max_message_bytes: usize,
    /// Jobs one connection may have queued or running at once (beyond: `busy`).
    pub max_jobs_per_connection: usize,
    /// Jobs queued or running across all connections (beyond: `busy`).
    pub max_queued_jobs: usize,
    /// Jobs graded at the same time.
    pub workers: usize,
    pub default_trials: usize,
    pub max_trials: usize,
    /// Seconds a job may run before it is answered with `timeout`.
    pub job_timeout_seconds: f64,
    /// Seconds without a message from the client (and no job in flight) before the worker closes.
    pub idle_timeout_seconds: f64,
    /// Seconds after connecting within which the first message must arrive.
    pub handshake_timeout_seconds: f64,
    /// WebSocket connections open at once (beyond: the upgrade is refused with HTTP 503).
    #[serde(default)]
    pub max_connections: usize,
}

/// `{"v":1,"type":"hello","server":"cabrito <version>","limits":{…}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HelloReply {
    pub v: u32,
    pub server: String,
    pub limits: Limits,
    /// Generator versions whose specs this worker grades.
    #[serde(default)]
    pub generator_versions: Vec<u32>,
    /// How candidate code is isolated on this machine (one line).
    #[serde(default)]
    pub isolation: String,
}

/// `{"v":1,"id":"…","type":"accepted"}`: the job is queued; a final reply will follow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Accepted {
    pub v: u32,
    pub id: String,
    /// The task's canonical spec query (what the worker regenerated).
    #[serde(default)]
    pub spec: String,
    pub trials: usize,
    /// The worker's estimate of the grading time in seconds (from the task's size and trials), so
    /// a client can say up front that a job will take long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_seconds: Option<f64>,
    /// Jobs queued ahead of this one when it was accepted (0: it starts at once or next).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued_ahead: Option<usize>,
    /// A sentence for the user when the job is large.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `{"v":1,"id":"…","type":"progress","done":…,"total":…}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub v: u32,
    pub id: String,
    pub done: usize,
    pub total: usize,
    /// What just finished: `static` (the rubric, whose items come along in `checks`),
    /// `reference` (the reference's run) or `candidate` (the candidate's run).
    #[serde(default)]
    pub stage: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
}

/// Where a check comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckSource {
    /// Reading the response (file block, bare file or diff).
    Response,
    /// The static rubric.
    Static,
    /// The hidden (behavioural) tests.
    Hidden,
}

/// One check of a result: a static rubric item, the response reader, or the hidden tests. On the
/// wire it is the rubric's [`RubricItem`] (`id`, `title`, `must_have`, `passed`, `reason`, `line`: the
/// 1-based line of the candidate, or of the response for `response`) plus `source`; it derefs to the
/// item, so `check.id` and `check.passed` read as on the rubric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    #[serde(flatten)]
    pub item: RubricItem,
    pub source: CheckSource,
}

impl std::ops::Deref for Check {
    type Target = RubricItem;
    fn deref(&self) -> &RubricItem {
        &self.item
    }
}

/// The first failing call of a function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FirstFailure {
    pub trial: usize,
    /// Keyword arguments as `[name, Python value]`.
    pub input: Vec<(String, String)>,
    pub expected: Option<String>,
    pub actual: Option<String>,
    pub message: String,
}

/// The hidden tests of one function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionReport {
    pub name: String,
    /// `pass`, `fail`, `error` or `missing`.
    pub status: String,
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub first_failure: Option<FirstFailure>,
}

/// `{"v":1,"id":"…","type":"result","passed":…,"checks":[…],"functions":[…]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeResult {
    pub v: u32,
    pub id: String,
    /// Every must-have check passed: the static rubric's and the hidden tests.
    pub passed: bool,
    pub checks: Vec<Check>,
    pub functions: Vec<FunctionReport>,
    /// One line: why it passed, or the first reason it failed.
    #[serde(default)]
    pub message: String,
    /// The static rubric's must-haves all passed.
    #[serde(default)]
    pub static_passed: bool,
    /// The hidden tests passed (`None` when they did not run: the response could not be read).
    #[serde(default)]
    pub hidden_passed: Option<bool>,
    /// How the response was read: `file-block`, `bare` or `diff`.
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub spec: String,
    #[serde(default)]
    pub trials: usize,
    /// Seconds from the start of the job to the result.
    #[serde(default)]
    pub seconds: f64,
    /// What the candidate printed (capped).
    #[serde(default)]
    pub stdout: String,
    #[serde(default)]
    pub stderr: String,
}

/// Error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The message is not JSON.
    BadJson,
    /// JSON, but not a valid message (unknown type, missing or bad field, bad spec, duplicate id).
    BadRequest,
    /// The message is larger than the limit.
    TooLarge,
    /// Too many jobs (on this connection or in the worker's queue).
    Busy,
    /// The job, the connection's first message or the connection's idle time ran out.
    Timeout,
    /// The job was cancelled by the client.
    Cancelled,
    /// The worker failed (a bug): the job could not be graded.
    Internal,
    /// The request is not allowed (for example, an origin not on the allow-list).
    Forbidden,
    /// A code this build does not know (a newer worker).
    #[serde(other)]
    Unknown,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadJson => "bad_json",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::Busy => "busy",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Internal => "internal",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Unknown => "unknown",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `{"v":1,"id":"…","type":"error","code":"…","message":"…"}`; `id` is absent when the message
/// it answers had no readable id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorReply {
    pub v: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub code: ErrorCode,
    pub message: String,
}

/// `{"v":1,"id":"…","type":"ran","end":"finished","value":"…","stdout":"…","stderr":"…"}`: a run's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub v: u32,
    pub id: String,
    #[serde(flatten)]
    pub ran: run::Ran,
}

/// A message from the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    Hello(HelloReply),
    Accepted(Accepted),
    Progress(Progress),
    Result(GradeResult),
    Ran(RunResult),
    Error(ErrorReply),
}

impl ServerMessage {
    pub fn error(id: Option<String>, code: ErrorCode, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error(ErrorReply { v: PROTOCOL_VERSION, id, code, message: message.into() })
    }

    /// The request id this message answers.
    pub fn id(&self) -> Option<&str> {
        match self {
            ServerMessage::Hello(_) => None,
            ServerMessage::Accepted(m) => Some(&m.id),
            ServerMessage::Progress(m) => Some(&m.id),
            ServerMessage::Result(m) => Some(&m.id),
            ServerMessage::Ran(m) => Some(&m.id),
            ServerMessage::Error(m) => m.id.as_deref(),
        }
    }

    /// Whether this is a request's final reply (a result or an error).
    pub fn is_final(&self) -> bool {
        matches!(self, ServerMessage::Result(_) | ServerMessage::Ran(_) | ServerMessage::Error(_))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn parse(text: &str) -> Result<ServerMessage, String> {
        serde_json::from_str(text).map_err(|e| format!("not a worker message: {e}"))
    }
}

// ------------------------------------------------------------------------------------------------

/// Why a client message was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    pub code: ErrorCode,
    pub id: Option<String>,
    pub message: String,
}

impl ProtocolError {
    pub fn reply(&self) -> ServerMessage {
        ServerMessage::error(self.id.clone(), self.code, self.message.clone())
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ProtocolError {}

fn bad(id: Option<String>, message: String) -> ProtocolError {
    ProtocolError { code: ErrorCode::BadRequest, id, message }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// At most `max` characters of client text, for error messages.
fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

#[cfg(test)]
mod tests {
    /// A runtime spec's JSON (its link keys as an object) reads back as the same spec.
    #[test]
    fn a_runtime_spec_reads_back_from_its_json() {
        let s = TaskSpec::from_pairs([("axis", "runtime"), ("branches", "8"), ("ratio", "0.5"), ("n", "100")]).unwrap();
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(spec_from_json(&json).unwrap(), s);
    }

    use super::*;
    use cabrito_gen::{Axis, Domain, Kind};

    #[test]
    fn grade_round_trips_through_the_parser() {
        let spec = TaskSpec::new(Kind::DeadCode, Domain::String, Axis::Search, 10, 42);
        let msg = ClientMessage::grade("job-1", &spec, "def f():\n    pass\n", Some(7));
        let json = msg.to_json();
        assert!(json.starts_with(r#"{"type":"grade","v":1,"id":"job-1","spec":{"v":1,"kind":"dead_code""#), "{json}");
        assert_eq!(ClientMessage::parse(&json).unwrap(), msg);
        assert_eq!(ClientMessage::parse(&ClientMessage::hello().to_json()).unwrap(), ClientMessage::hello());
        assert_eq!(ClientMessage::parse(&ClientMessage::cancel("x").to_json()).unwrap(), ClientMessage::cancel("x"));
    }

    #[test]
    fn spec_values_may_be_strings_and_errors_read_like_links() {
        let m = ClientMessage::parse(
            r#"{"v":1,"type":"grade","id":"a","spec":{"v":"1","kind":"cache_function","n":"25","seed":"18446744073709551615"},"solution":""}"#,
        )
        .unwrap();
        let ClientMessage::Grade(g) = m else { panic!("grade") };
        assert_eq!(g.spec.seed, u64::MAX);
        assert_eq!(g.spec.kind, Kind::CacheFunction);
        let link_error = TaskSpec::from_pairs([("n", "0")]).unwrap_err().message;
        let e = ClientMessage::parse(r#"{"v":1,"type":"grade","id":"a","spec":{"n":0},"solution":""}"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert_eq!(e.id.as_deref(), Some("a"));
        assert_eq!(e.message, format!("spec: {link_error}"));
        let e = ClientMessage::parse(r#"{"v":1,"type":"grade","id":"a","spec":{"colour":"red"},"solution":""}"#)
            .unwrap_err();
        assert!(e.message.contains("unknown key 'colour'"), "{}", e.message);
        let e = ClientMessage::parse(r#"{"v":1,"type":"grade","id":"a","spec":{"n":[1]},"solution":""}"#).unwrap_err();
        assert!(e.message.contains("'n' must be a number or a string"), "{}", e.message);
    }

    #[test]
    fn run_messages_round_trip_and_bad_ones_are_named() {
        use run::{Installed, Ran, RunEnd, RunJob, RunTarget};
        let job = RunJob {
            solution: "def f(x):\n    return x\n".into(),
            library: Some(Installed { domain: Domain::Math, library: cabrito_gen::domain::stubs::Library::Plain }),
            target: RunTarget::Code { code: "f(3)".into() },
        };
        let msg = ClientMessage::run("r1", job.clone());
        let json = msg.to_json();
        assert!(json.starts_with(r#"{"type":"run","v":1,"id":"r1","solution":"#), "{json}");
        assert_eq!(ClientMessage::parse(&json).unwrap(), msg);
        let file = ClientMessage::parse(
            r#"{"v":1,"type":"run","id":"r2","solution":"","target":{"kind":"file","args":["1"]}}"#,
        );
        assert!(
            matches!(file, Ok(ClientMessage::Run(r)) if r.job.target == RunTarget::File { args: vec!["1".into()] })
        );
        for bad in [
            r#"{"v":1,"type":"run","id":"a","target":{"kind":"code","code":"1"}}"#,
            r#"{"v":1,"type":"run","id":"a","solution":"","target":{"kind":"shell","cmd":"ls"}}"#,
            r#"{"v":1,"type":"run","id":"a","solution":"","target":{"kind":"code","code":"  "}}"#,
            r#"{"v":1,"type":"run","solution":"","target":{"kind":"code","code":"1"}}"#,
        ] {
            let e = ClientMessage::parse(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::BadRequest, "{bad}");
            assert!(!e.message.contains('\n'), "{}", e.message);
        }
        let ran = ServerMessage::Ran(RunResult {
            v: 1,
            id: "r1".into(),
            ran: Ran {
                end: RunEnd::Exited { code: 2 },
                value: None,
                stdout: "hi\n".into(),
                stderr: String::new(),
                stdout_cut: false,
                stderr_cut: false,
            },
        });
        let text = ran.to_json();
        assert!(text.starts_with(r#"{"type":"ran","v":1,"id":"r1","end":"exited","code":2"#), "{text}");
        assert_eq!(ServerMessage::parse(&text).unwrap(), ran);
        assert!(ran.is_final());
    }

    #[test]
    fn a_task_record_stands_in_for_the_spec() {
        let spec = TaskSpec::new(Kind::AddReturnValue, Domain::Array, Axis::Traversal, 6, 9);
        let record = serde_json::to_value(cabrito_gen::generate(&spec).unwrap()).unwrap();
        let text = serde_json::json!({"v":1,"type":"grade","id":"r","task":record,"solution":"x"}).to_string();
        let ClientMessage::Grade(g) = ClientMessage::parse(&text).unwrap() else { panic!("grade") };
        assert_eq!(g.spec, spec);
        let text = r#"{"v":1,"type":"grade","id":"r","task":{"solution_code":"import os"},"solution":"x"}"#;
        assert!(ClientMessage::parse(text).unwrap_err().message.contains("no 'spec'"));
    }

    #[test]
    fn malformed_messages_get_codes() {
        let code = |t: &str| ClientMessage::parse(t).unwrap_err().code;
        assert_eq!(code("{"), ErrorCode::BadJson);
        assert_eq!(code(""), ErrorCode::BadJson);
        assert_eq!(code("[1]"), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"v":1,"type":"dance"}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"v":2,"type":"hello"}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"type":"hello"}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"v":1,"type":7}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"v":1,"type":"cancel"}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"v":1,"type":"grade","spec":{},"solution":""}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"v":1,"type":"grade","id":3,"spec":{},"solution":""}"#), ErrorCode::BadRequest);
        assert_eq!(
            code(r#"{"v":1,"type":"grade","id":"a","spec":{},"solution":""}"#.replace("\"a\"", "\"\"").as_str()),
            ErrorCode::BadRequest
        );
        assert_eq!(code(r#"{"v":1,"type":"grade","id":"a","spec":{},"solution":1}"#), ErrorCode::BadRequest);
        assert_eq!(
            code(r#"{"v":1,"type":"grade","id":"a","spec":{},"solution":"","trials":0}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(
            code(r#"{"v":1,"type":"grade","id":"a","spec":{},"solution":"","trials":-3}"#),
            ErrorCode::BadRequest
        );
        // Fields this version does not know are ignored.
        assert!(ClientMessage::parse(r#"{"v":1,"type":"hello","client":"app 2"}"#).is_ok());
        let long = format!(r#"{{"v":1,"type":"cancel","id":"{}"}}"#, "x".repeat(MAX_ID_BYTES + 1));
        assert_eq!(code(&long), ErrorCode::BadRequest);
        // The id is kept when it can be read, so the error can be matched to the request.
        let e = ClientMessage::parse(r#"{"v":1,"type":"dance","id":"q"}"#).unwrap_err();
        assert_eq!(e.id.as_deref(), Some("q"));
    }

    #[test]
    fn server_messages_have_the_contract_shape() {
        let e = ServerMessage::error(Some("a".into()), ErrorCode::TooLarge, "big");
        assert_eq!(e.to_json(), r#"{"type":"error","v":1,"id":"a","code":"too_large","message":"big"}"#);
        assert_eq!(ServerMessage::parse(&e.to_json()).unwrap(), e);
        let future = r#"{"type":"error","v":1,"code":"overheated","message":"m"}"#;
        let ServerMessage::Error(r) = ServerMessage::parse(future).unwrap() else { panic!("error") };
        assert_eq!(r.code, ErrorCode::Unknown);
        assert!(e.is_final());
        let p = ServerMessage::Progress(Progress {
            v: 1,
            id: "a".into(),
            done: 1,
            total: 3,
            stage: "static".into(),
            checks: vec![],
        });
        assert_eq!(p.to_json(), r#"{"type":"progress","v":1,"id":"a","done":1,"total":3,"stage":"static"}"#);
        assert!(!p.is_final());
    }
}
