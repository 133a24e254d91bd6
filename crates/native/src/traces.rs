//! `cabrito traces --traces DIR [--tasks DIR] [--responses DIR] --out DIR`: label every tool call
//! of a folder of agent traces with the offline rules, and write the labels in the reference's
//! JSONL (grading.md §8.5), the tokens per call (§8.6), session usage (§8.7), the paper's figure 3
//! and table 2. Sessions are joined to their tasks by the trace's own header (plain format), by the
//! responses that name them (`metadata.session_id`, as the reference does for Copilot), and by
//! `dag_id` through the task files.

use super::cli::Failure;
use super::outdir::Staged;
use super::report::{open_input, skipped_links};
use super::walk;
use cabrito_analysis::results::input::{Problem, Source, MAX_TEXT_BYTES};
use cabrito_analysis::traces::figures::{self, Digest};
use cabrito_analysis::traces::join::{sessions_of_response_lines, SessionOf, TaskIndex};
use cabrito_analysis::traces::{read_trace_from, Session};
use cabrito_gen::words::count;
use clap::{Arg, ArgMatches, Command};
use sha2::{Digest as _, Sha256};
use std::collections::HashMap;
use std::path::PathBuf;

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

/// The top-level names an output folder of `traces` holds (it is replaced whole).
const TRACES_NAMES: &[&str] = &[
    "labels.jsonl",
    "tool_call_token_counts.jsonl",
    "usage.csv",
    "calls.csv",
    "table2.csv",
    "figure3.csv",
    "figures",
    "index.html",
];

/// The most problems listed for one file (the rest are counted in a line).
const MAX_PROBLEMS_PER_FILE: usize = 50;

fn jsonl(rel: &str) -> bool {
    let l = rel.to_ascii_lowercase();
    l.ends_with(".jsonl") || l.ends_with(".jsonl.gz")
}

/// Add a file's problems, at most [`MAX_PROBLEMS_PER_FILE`] of them.
fn extend_capped(problems: &mut Vec<Problem>, rel: &str, more: Vec<Problem>) {
    let k = more.len();
    problems.extend(more.into_iter().take(MAX_PROBLEMS_PER_FILE));
    if k > MAX_PROBLEMS_PER_FILE {
        problems.push(Problem::file(
            rel,
            format!("{} more problems in this file are not listed", k - MAX_PROBLEMS_PER_FILE),
        ));
    }
}

/// SHA-256 of what is written to it.
struct Hasher(Sha256);

impl std::io::Write for Hasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a session says, wherever its file is: two files with the same fingerprint are one session.
fn fingerprint(s: &mut Session) -> [u8; 32] {
    let path = std::mem::take(&mut s.path);
    let mut h = Hasher(Sha256::new());
    let _ = serde_json::to_writer(&mut h, &*s);
    s.path = path;
    h.0.finalize().into()
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let dir = PathBuf::from(m.get_one::<String>("traces").expect("required"));
    let out = PathBuf::from(m.get_one::<String>("out").expect("required"));
    if !dir.is_dir() {
        return Err(Failure::Usage(format!("--traces {} is not a folder", dir.display())));
    }
    // Refused now, before any reading, if replacing it would lose files of the user's.
    let staged = Staged::new(&out, TRACES_NAMES).map_err(Failure::Usage)?;
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
        let found = walk::files_under(rd, &[&out]);
        problems.extend(skipped_links(&found));
        for (rel, path) in found.files() {
            if !jsonl(&rel) {
                continue;
            }
            let rel = if rel.starts_with("responses/") { rel } else { format!("responses/{rel}") };
            let f = match open_input(&path, &rel) {
                Ok(f) => f,
                Err(p) => {
                    problems.push(p);
                    continue;
                }
            };
            let mut lines = Source::new(&rel, f, MAX_TEXT_BYTES).lines();
            let mut found = Vec::new();
            for s in sessions_of_response_lines(&rel, &mut lines, &mut found) {
                by_session.insert(s.session_id.clone(), s);
            }
            found.append(&mut lines.problems);
            extend_capped(&mut problems, &rel, found);
        }
    }

    // Tasks: run and spec by dag_id.
    let mut tasks = TaskIndex::default();
    if let Some(t) = m.get_one::<String>("tasks") {
        let tdir = PathBuf::from(t);
        if !tdir.is_dir() {
            return Err(Failure::Usage(format!("--tasks {} is not a folder", tdir.display())));
        }
        let found = walk::files_under(&tdir, &[&out]);
        problems.extend(skipped_links(&found));
        for (rel, path) in found.files() {
            let l = rel.to_ascii_lowercase();
            let is_task_file = (l.ends_with(".json")
                || l.ends_with(".json.gz")
                || l.ends_with("tasks.jsonl")
                || l.contains("/tasks-"))
                && !l.ends_with(".meta.json");
            if !is_task_file {
                continue;
            }
            match open_input(&path, &rel) {
                Ok(f) => {
                    let mut found = Vec::new();
                    tasks.add_reader(&rel, f, &mut found);
                    extend_capped(&mut problems, &rel, found);
                }
                Err(p) => problems.push(p),
            }
        }
    }

    // Traces, one session at a time: its lines go to the streamed files, its digest is kept.
    let found = walk::files_under(&dir, &[&out]);
    problems.extend(skipped_links(&found));
    let mut streams = Vec::new();
    for (name, start) in figures::STREAMED.iter().zip(figures::streamed_start()) {
        let mut w = staged.create(name).map_err(Failure::Other)?;
        w.put(&start).map_err(Failure::Other)?;
        streams.push(w);
    }
    let mut digests: Vec<Digest> = Vec::new();
    let mut seen: HashMap<[u8; 32], String> = HashMap::new();
    let mut ids: HashMap<String, String> = HashMap::new();
    let (mut skipped, mut duplicates) = (0usize, 0usize);
    for (rel, path) in found.files() {
        if !jsonl(&rel) {
            continue;
        }
        let under_other = rel.split('/').skip(1).any(|c| NOT_TRACES.contains(&c));
        if under_other {
            continue;
        }
        let f = match open_input(&path, &rel) {
            Ok(f) => f,
            Err(p) => {
                skipped += 1;
                problems.push(p);
                continue;
            }
        };
        match read_trace_from(&rel, f) {
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
                // The same session twice (a copy, or plain and gzipped) is counted once.
                let fp = fingerprint(&mut s);
                if let Some(first) = seen.get(&fp) {
                    duplicates += 1;
                    problems.push(Problem::file(&rel, format!("the same session as {first}; counted once")));
                    continue;
                }
                seen.insert(fp, rel.clone());
                if let Some(first) = ids.get(&s.id) {
                    problems.push(Problem::file(
                        &rel,
                        format!("names session {} as {first} does, with other calls; both are counted", s.id),
                    ));
                } else {
                    ids.insert(s.id.clone(), rel.clone());
                }
                extend_capped(&mut problems, &rel, std::mem::take(&mut s.problems));
                for (w, part) in streams.iter_mut().zip(figures::session_lines(&s)) {
                    w.put(&part).map_err(Failure::Other)?;
                }
                digests.push(figures::digest(&s));
            }
            Err(p) => {
                skipped += 1;
                problems.push(p);
            }
        }
    }
    if digests.is_empty() {
        for p in problems.iter().take(10) {
            eprintln!("cabrito: {p}");
        }
        return Err(Failure::Other(format!(
            "no traces under {}: expected <session_id>/events.jsonl (Copilot) or plain-format *.jsonl files",
            dir.display()
        )));
    }
    for w in streams {
        w.finish().map_err(Failure::Other)?;
    }
    let files = figures::summary_files(&digests, &problems);
    for (rel, contents) in &files {
        staged.write(rel, contents.as_bytes()).map_err(Failure::Other)?;
    }
    staged.commit().map_err(Failure::Other)?;
    for p in problems.iter().take(20) {
        eprintln!("cabrito: {p}");
    }
    if problems.len() > 20 {
        eprintln!(
            "cabrito: … and {} more problems (listed in {})",
            problems.len() - 20,
            out.join("index.html").display()
        );
    }
    let calls: usize = digests.iter().map(|d| d.calls).sum();
    let placed = digests.iter().filter(|d| d.place.n.is_some()).count();
    println!(
        "traces: {} ({} skipped{}), {} labelled; {} placed on an axis and n ({}, {} joined); wrote {} to {}",
        count(digests.len(), "session", "sessions"),
        skipped,
        if duplicates > 0 { format!(", {duplicates} duplicates counted once") } else { String::new() },
        count(calls, "tool call", "tool calls"),
        count(placed, "session", "sessions"),
        count(by_session.len(), "response", "responses"),
        count(tasks.len(), "task", "tasks"),
        count(files.len() + figures::STREAMED.len(), "file", "files"),
        out.display()
    );
    println!("open {}", out.join("index.html").display());
    Ok(())
}
