//! `cabrito traces --traces DIR [--tasks DIR] [--responses DIR] --out DIR`: label every tool call
//! of a folder of agent traces with the offline rules, and write the labels in the reference's
//! JSONL (grading.md §8.5), the tokens per call (§8.6), session usage (§8.7), the paper's figure 3
//! and table 2. Sessions are joined to their tasks by the trace's own header (plain format), by the
//! responses that name them (`metadata.session_id`, as the reference does for Copilot), and by
//! `dag_id` through the task files.

use super::cli::Failure;
use super::report::files_under;
use cabrito_analysis::results::{input, input::Problem};
use cabrito_analysis::traces::figures;
use cabrito_analysis::traces::join::{sessions_of_responses, SessionOf, TaskIndex};
use cabrito_analysis::traces::{read_trace, Session};
use clap::{Arg, ArgMatches, Command};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub fn command() -> Command {
    Command::new("traces")
        .about("Label the tool calls of agent traces (Copilot events.jsonl or Cabrito's plain format) and write the paper's figure 3 and table 2")
        .arg(Arg::new("traces").long("traces").required(true).value_name("DIR").help("traces: <session_id>/events.jsonl[.gz] (Copilot) or *.jsonl plain traces, anywhere under DIR"))
        .arg(Arg::new("tasks").long("tasks").value_name("DIR").help("task files (tasks/<run>/<task_set>/<task_type>.json or tasks.jsonl), to find each session's run and spec from its dag_id"))
        .arg(Arg::new("responses").long("responses").value_name("DIR").help("responses naming their sessions (metadata.session_id); default: a responses/ folder inside or beside --traces"))
        .arg(Arg::new("out").long("out").required(true).value_name("DIR").help("where labels.jsonl, tool_call_token_counts.jsonl, usage.csv, calls.csv, table2.csv, figure3.csv, figures/ and index.html go"))
}

/// Folders of the reference layout that hold no traces.
const NOT_TRACES: &[&str] = &["responses", "results", "tasks", "test_cases", "tool_call_results", "dag"];

fn read_text(path: &Path, rel: &str, problems: &mut Vec<Problem>) -> Option<String> {
    match std::fs::read(path) {
        Ok(b) => match input::text_of(rel, &b) {
            Ok((t, warn)) => {
                problems.extend(warn);
                Some(t)
            }
            Err(p) => {
                problems.push(p);
                None
            }
        },
        Err(e) => {
            problems.push(Problem::file(rel, format!("cannot be read ({e})")));
            None
        }
    }
}

fn jsonl(rel: &str) -> bool {
    let l = rel.to_ascii_lowercase();
    l.ends_with(".jsonl") || l.ends_with(".jsonl.gz")
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let dir = PathBuf::from(m.get_one::<String>("traces").expect("required"));
    let out = PathBuf::from(m.get_one::<String>("out").expect("required"));
    if !dir.is_dir() {
        return Err(Failure::Usage(format!("--traces {} is not a folder", dir.display())));
    }
    let mut problems: Vec<Problem> = Vec::new();

    // Responses: the sessions they name.
    let responses_dir = match m.get_one::<String>("responses") {
        Some(r) => {
            let p = PathBuf::from(r);
            if !p.is_dir() {
                return Err(Failure::Usage(format!("--responses {} is not a folder", p.display())));
            }
            Some(p)
        }
        None => [dir.join("responses"), dir.parent().map(|p| p.join("responses")).unwrap_or_default()]
            .into_iter()
            .find(|p| p.is_dir()),
    };
    let mut by_session: HashMap<String, SessionOf> = HashMap::new();
    if let Some(rd) = &responses_dir {
        for (rel, path) in files_under(rd) {
            if !jsonl(&rel) {
                continue;
            }
            let rel = if rel.starts_with("responses/") { rel } else { format!("responses/{rel}") };
            if let Some(text) = read_text(&path, &rel, &mut problems) {
                for s in sessions_of_responses(&rel, &text, &mut problems) {
                    by_session.insert(s.session_id.clone(), s);
                }
            }
        }
    }

    // Tasks: run and spec by dag_id.
    let mut tasks = TaskIndex::default();
    if let Some(t) = m.get_one::<String>("tasks") {
        let tdir = PathBuf::from(t);
        if !tdir.is_dir() {
            return Err(Failure::Usage(format!("--tasks {} is not a folder", tdir.display())));
        }
        for (rel, path) in files_under(&tdir) {
            let l = rel.to_ascii_lowercase();
            let is_task_file = (l.ends_with(".json")
                || l.ends_with(".json.gz")
                || l.ends_with("tasks.jsonl")
                || l.contains("/tasks-"))
                && !l.ends_with(".meta.json");
            if !is_task_file {
                continue;
            }
            if let Some(text) = read_text(&path, &rel, &mut problems) {
                tasks.add_file(&rel, &text, &mut problems);
            }
        }
    }

    // Traces.
    let mut sessions: Vec<Session> = Vec::new();
    let mut skipped = 0usize;
    for (rel, path) in files_under(&dir) {
        if !jsonl(&rel) {
            continue;
        }
        let under_other = rel.split('/').skip(1).any(|c| NOT_TRACES.contains(&c));
        if under_other {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            problems.push(Problem::file(&rel, "cannot be read"));
            continue;
        };
        match read_trace(&rel, &bytes) {
            Ok(s) if s.calls.is_empty() && s.turns.is_empty() => {
                skipped += 1;
                problems.push(Problem::file(&rel, "holds no tool call; not a trace?"));
            }
            Ok(mut s) => {
                if let Some(j) = by_session.get(&s.id) {
                    if s.task.run.is_empty() {
                        s.task = j.task.clone();
                    }
                    if !j.model.is_empty() {
                        s.model = j.model.clone();
                    }
                }
                if !s.task.dag_id.is_empty() {
                    if let Some(note) = tasks.complete(&mut s.task) {
                        problems.push(Problem::file(&rel, note));
                    }
                }
                problems.extend(s.problems.iter().cloned());
                sessions.push(s);
            }
            Err(p) => {
                skipped += 1;
                problems.push(p);
            }
        }
    }
    if sessions.is_empty() {
        for p in problems.iter().take(10) {
            eprintln!("cabrito: {p}");
        }
        return Err(Failure::Other(format!(
            "no traces under {}: expected <session_id>/events.jsonl (Copilot) or plain-format *.jsonl files",
            dir.display()
        )));
    }
    let refs: Vec<&Session> = sessions.iter().collect();
    let files = figures::outputs(&refs, &problems);
    for (rel, contents) in &files {
        let p = out.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| Failure::Other(format!("cannot create {}: {e}", d.display())))?;
        }
        std::fs::write(&p, contents).map_err(|e| Failure::Other(format!("cannot write {}: {e}", p.display())))?;
    }
    for p in problems.iter().take(20) {
        eprintln!("cabrito: {p}");
    }
    let calls: usize = sessions.iter().map(|s| s.calls.len()).sum();
    let placed = sessions.iter().filter(|s| figures::place(s).n.is_some()).count();
    println!(
        "traces: {} sessions ({} skipped), {calls} tool calls labelled; {placed} sessions placed on an axis and n ({} responses, {} tasks joined); wrote {} files to {}",
        sessions.len(),
        skipped,
        by_session.len(),
        tasks.len(),
        files.len(),
        out.display()
    );
    println!("open {}", out.join("index.html").display());
    Ok(())
}
