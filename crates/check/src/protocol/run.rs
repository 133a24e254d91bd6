//! The `run` tool's job and its answer: Python run in the sandbox against a workspace, as the
//! agent interface, the CLI's runner and the worker's `run` message all describe it.
//!
//! A job holds only what a workspace holds: `solution.py` as it is, the `mylibrary` the workspace
//! has installed (the domain's, a fixed block, the same for every task of that domain and library),
//! and what to run. Nothing of a task's reference, hidden inputs or record is in it, so its answer
//! cannot depend on them.

use cabrito_gen::domain::stubs::Library;
use cabrito_gen::spec::Domain;
use serde::{Deserialize, Serialize};

/// Wall-clock seconds a run may take before it is killed.
pub const WALL_SECONDS: u64 = 10;
/// CPU seconds a run may use.
pub const CPU_SECONDS: u64 = 10;
/// Address space of a run, in bytes.
pub const MEMORY_BYTES: u64 = 1 << 30;
/// Bytes kept of a run's stdout and of its stderr; the rest is read and dropped.
pub const OUTPUT_BYTES: usize = 16 << 10;
/// Longest code a job may carry, in bytes.
pub const MAX_CODE_BYTES: usize = 64 << 10;
/// Most command-line arguments of a file run, and the longest one in characters.
pub const MAX_ARGS: usize = 16;
pub const MAX_ARG_CHARS: usize = 1000;
/// Characters of an expression's value shown.
pub const VALUE_CHARS: usize = 4000;

/// The `mylibrary` a workspace has installed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Installed {
    pub domain: Domain,
    pub library: Library,
}

/// What to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RunTarget {
    /// `python solution.py ARGS…`: the file as a program (its `__main__` block runs).
    File { args: Vec<String> },
    /// Code run with `solution.py`'s names in scope (also importable as `solution`): an expression's
    /// value is shown, statements are executed.
    Code { code: String },
}

/// One run of the `run` tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunJob {
    /// `solution.py` as it is now.
    pub solution: String,
    /// The installed `mylibrary`, when the workspace has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<Installed>,
    pub target: RunTarget,
}

impl RunJob {
    /// Check the job's sizes; the error is one line for the caller.
    pub fn validate(&self) -> Result<(), String> {
        if self.solution.len() > crate::response::MAX_RESPONSE_BYTES {
            return Err(format!(
                "solution.py is {} bytes; a run takes at most {}",
                self.solution.len(),
                crate::response::MAX_RESPONSE_BYTES
            ));
        }
        match &self.target {
            RunTarget::Code { code } if code.trim().is_empty() => {
                Err("'code' is empty: give an expression such as f(3), or statements".into())
            }
            RunTarget::Code { code } if code.len() > MAX_CODE_BYTES => {
                Err(format!("'code' is {} bytes; at most {MAX_CODE_BYTES}", code.len()))
            }
            RunTarget::File { args } if args.len() > MAX_ARGS => {
                Err(format!("{} arguments; at most {MAX_ARGS}", args.len()))
            }
            RunTarget::File { args } if args.iter().any(|a| a.chars().count() > MAX_ARG_CHARS || a.contains('\0')) => {
                Err(format!("an argument is longer than {MAX_ARG_CHARS} characters or holds a NUL byte"))
            }
            _ => Ok(()),
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "end", rename_all = "snake_case")]
pub enum RunEnd {
    /// Ran to the end (exit status 0).
    Finished,
    /// Stopped with an exit status: an uncaught exception (1, its traceback on stderr) or `sys.exit`.
    Exited { code: i32 },
    /// Killed at the wall-clock or CPU limit.
    TimedOut { seconds: u64 },
    /// Killed by a signal (the memory limit, for one, may end a run this way).
    Signalled { signal: i32 },
}

/// What a run showed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ran {
    #[serde(flatten)]
    pub end: RunEnd,
    /// The value of an expression run as code (its `repr`, clipped), when it is not `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub stdout: String,
    pub stderr: String,
    /// The output was longer than [`OUTPUT_BYTES`] and was cut there.
    #[serde(default)]
    pub stdout_cut: bool,
    #[serde(default)]
    pub stderr_cut: bool,
}

/// The signal's name, for the few a run meets.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => "a signal",
    }
}

impl Ran {
    /// The answer as the agent reads it: how the run ended, the value, then stdout and stderr.
    /// Deterministic in the job (no timings), so that it can be compared byte for byte.
    pub fn describe(&self) -> String {
        let mut out = match &self.end {
            RunEnd::Finished => "the run finished (exit status 0)\n".to_string(),
            RunEnd::Exited { code: 1 } if self.stderr.contains("Traceback") => {
                "the run stopped with an uncaught exception (exit status 1); the traceback is on stderr\n".to_string()
            }
            RunEnd::Exited { code } => format!("the run exited with status {code}\n"),
            RunEnd::TimedOut { seconds } => {
                format!("the run was killed at the time limit ({seconds} s); loops that never end stop this way\n")
            }
            RunEnd::Signalled { signal } => format!(
                "the run was killed by {} ({signal}); a run that outgrows its memory ({} MiB) or its processes ends this way\n",
                signal_name(*signal),
                MEMORY_BYTES >> 20
            ),
        };
        if let Some(v) = &self.value {
            out.push_str(&format!("value: {v}\n"));
        }
        for (name, text, cut) in [("stdout", &self.stdout, self.stdout_cut), ("stderr", &self.stderr, self.stderr_cut)]
        {
            if text.is_empty() {
                continue;
            }
            out.push_str(&format!("{name}:\n{text}"));
            if !text.ends_with('\n') {
                out.push('\n');
            }
            if cut {
                out.push_str(&format!("[{name} cut at {} KiB]\n", OUTPUT_BYTES >> 10));
            }
        }
        if self.value.is_none() && self.stdout.is_empty() && self.stderr.is_empty() {
            out.push_str("(no output)\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_round_trip_and_refuse_what_is_too_big() {
        let job = RunJob {
            solution: "def f(x):\n    return x\n".into(),
            library: Some(Installed { domain: Domain::String, library: Library::Indexed }),
            target: RunTarget::Code { code: "f(3)".into() },
        };
        let text = serde_json::to_string(&job).unwrap();
        assert_eq!(serde_json::from_str::<RunJob>(&text).unwrap(), job);
        assert!(job.validate().is_ok());
        let big = RunJob { target: RunTarget::Code { code: "1+".repeat(MAX_CODE_BYTES) }, ..job.clone() };
        assert!(big.validate().unwrap_err().contains("at most"));
        let args = RunJob { target: RunTarget::File { args: vec!["1".into(); MAX_ARGS + 1] }, ..job };
        assert!(args.validate().is_err());
    }

    #[test]
    fn answers_say_how_the_run_ended() {
        let ran = Ran {
            end: RunEnd::TimedOut { seconds: WALL_SECONDS },
            value: None,
            stdout: "x".into(),
            stderr: String::new(),
            stdout_cut: true,
            stderr_cut: false,
        };
        let d = ran.describe();
        assert!(d.starts_with("the run was killed at the time limit"), "{d}");
        assert!(d.contains("stdout:\nx\n[stdout cut at 16 KiB]"), "{d}");
        let text = serde_json::to_string(&ran).unwrap();
        assert!(text.contains(r#""end":"timed_out""#), "{text}");
        assert_eq!(serde_json::from_str::<Ran>(&text).unwrap(), ran);
    }
}
