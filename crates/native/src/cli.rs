//! The `cabrito` command line. Spec flags are derived from [`cabrito_gen::spec::KNOBS`]; their values go
//! through [`TaskSpec::from_pairs`], the same parser the share links use.

use cabrito_gen::spec::{Knob, TaskSpec, Values, KNOBS};
use clap::{Arg, ArgAction, ArgMatches, Command};

/// Exit status of a usage error.
pub const USAGE: i32 = 2;

/// The spec flags of every knob, with their help and allowed values.
pub fn spec_args() -> Vec<Arg> {
    KNOBS
        .iter()
        .map(|k: &Knob| {
            let mut help = format!("{} ({})", k.help, k.allowed());
            if let Some(d) = k.default {
                help.push_str(&format!(" [default: {d}]"));
            }
            let mut a =
                Arg::new(k.key).long(k.flag()).value_name(k.key.to_uppercase()).help(help).allow_negative_numbers(true);
            if let Values::Choice(c) = k.values {
                a = a.hide_possible_values(true).value_name(c.join("|"));
            }
            a
        })
        .collect()
}

/// Read the spec flags of a parsed command. A bad spec is an error naming every problem it has (the
/// same problems, in the same words, as a bad share link), one line each.
pub fn spec_from(m: &ArgMatches) -> Result<TaskSpec, String> {
    let pairs: Vec<(String, String)> =
        KNOBS.iter().filter_map(|k| m.get_one::<String>(k.key).map(|v| (k.key.to_string(), v.clone()))).collect();
    spec_of_pairs(&pairs)
}

/// The spec of `(knob, value)` pairs, or an error naming every problem, as [`spec_from`] says it (the
/// Python package's `SpecError` says the same).
pub fn spec_of_pairs(pairs: &[(String, String)]) -> Result<TaskSpec, String> {
    TaskSpec::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).map_err(|first| {
        let (_, problems) = cabrito_gen::mend::nearest_valid(pairs);
        spec_problems(if problems.is_empty() { std::slice::from_ref(&first) } else { &problems })
    })
}

/// The problems of a bad spec as the command line says them (see [`every_problem`]), each after the
/// flag it is about.
pub fn spec_problems(problems: &[cabrito_gen::SpecError]) -> String {
    match problems {
        [one] => one.message.clone(),
        many => every_problem(
            &many
                .iter()
                .map(|p| {
                    let flag = cabrito_gen::spec::knob(&p.key).map(Knob::flag).unwrap_or_else(|| p.key.clone());
                    format!("--{flag}: {}", p.message)
                })
                .collect::<Vec<_>>(),
        ),
    }
}

/// Every problem of a command's flags in one message: one as it is; several counted, one a line.
pub fn every_problem(problems: &[String]) -> String {
    match problems {
        [one] => one.clone(),
        many => {
            let mut out = format!("{} problems with the flags:", many.len());
            for p in many {
                out.push_str("\n  ");
                out.push_str(p);
            }
            out
        }
    }
}

fn command() -> Command {
    Command::new("cabrito")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Cabra coding tasks from random call graphs: generate, share, check, grade, serve")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("generate")
                .about("Generate one task, as JSON on stdout or as a folder")
                .args(spec_args())
                .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("print the task record as JSON (the default without --out)"))
                .arg(Arg::new("out").long("out").value_name("DIR").help("write solution.py, reference.py, prompt.md, llm_prompt.md, task.json, dag.json and dag.dot into DIR")),
        )
        .subcommand(super::grid::command())
        .subcommand(super::export::command())
        .subcommand(
            Command::new("link")
                .about("Print the share link of a spec")
                .args(spec_args())
                .arg(Arg::new("base").long("base").default_value("http://127.0.0.1:8080/").help("the playground's address")),
        )
        .subcommand(super::check::command())
        .subcommand(super::grade::command())
        .subcommand(super::serve::command())
        .subcommand(super::report::command())
        .subcommand(super::traces::command())
        .subcommand(super::agent::command())
        .subcommand(super::solve::command())
}

/// Run the CLI; returns the exit status.
pub fn run() -> i32 {
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let code = if e.use_stderr() { USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    // Commands that only print behave like other Unix tools when their reader goes away
    // (`cabrito generate --json | head`): they end quietly instead of failing on a broken pipe. The
    // worker and the grader keep SIGPIPE ignored, since they write to sockets and to candidate
    // processes that may die at any time.
    if matches!(matches.subcommand_name(), Some("generate" | "link" | "grid" | "check" | "report" | "traces" | "agent"))
    {
        // SAFETY: restoring the default disposition of one signal before any thread is started.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    let result = match matches.subcommand() {
        Some(("generate", m)) => super::generate::run(m),
        Some(("grid", m)) => super::grid::run(m),
        Some(("export", m)) => super::export::run(m),
        Some(("link", m)) => spec_from(m).map_err(Failure::Usage).map(|spec| {
            let base = m.get_one::<String>("base").map(String::as_str).unwrap_or("");
            println!("{base}{}", cabrito_gen::task::link(&spec));
        }),
        Some(("check", m)) => super::check::run(m),
        Some(("grade", m)) => super::grade::run(m),
        Some(("serve", m)) => super::serve::run(m),
        Some(("report", m)) => super::report::run(m),
        Some(("traces", m)) => super::traces::run(m),
        Some(("agent", m)) => super::agent::run(m),
        Some(("solve", m)) => super::solve::run(m),
        _ => Err(Failure::Usage("unknown command".into())),
    };
    match result {
        Ok(()) => 0,
        Err(Failure::Usage(msg)) => {
            eprintln!("cabrito: {msg}");
            USAGE
        }
        Err(Failure::Other(msg)) => {
            eprintln!("cabrito: {msg}");
            1
        }
    }
}

/// Why a command failed: a usage error (exit 2) or anything else (exit 1).
#[derive(Debug)]
pub enum Failure {
    Usage(String),
    Other(String),
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Other(e.to_string())
    }
}
