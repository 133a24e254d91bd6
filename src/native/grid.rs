//! `cabrito grid`: the paper's grid on every axis this version builds, in the reference's layout
//! (`tasks/<run>/<task_set>/<task_type>.json`) and as JSONL, sharded and in parallel. The kinds, axes
//! and sizes come from the registries: each kind on the axes and domains it is built for, each axis at
//! its paper sizes.

use super::cli::Failure;
use crate::spec::{Axis, Domain, Kind, Support, TaskSpec};
use crate::task::{generate, run_name, task_set, Task};
use clap::{Arg, ArgMatches, Command};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

pub fn command() -> Command {
    Command::new("grid")
        .about(format!(
            "Generate a grid of tasks (by default the paper's grid on every axis this version builds: {} tasks)",
            thousands(default_grid_tasks(DEFAULT_SAMPLES))
        ))
        .arg(Arg::new("out").long("out").required(true).value_name("DIR").help("output folder"))
        .arg(list_arg("axes", &Axis::NAMES.join(","), "axes to generate"))
        .arg(list_arg(
            "kinds",
            &Kind::NAMES.join(","),
            "kinds to generate (each on the axes and domains it is built for)",
        ))
        .arg(list_arg("domains", &Domain::NAMES.join(","), "domains to generate"))
        .arg(Arg::new("sizes").long("sizes").value_name("LIST").help(format!(
            "sizes n along each axis, comma-separated [default: each axis's paper sizes: {}]",
            paper_sizes_help()
        )))
        .arg(
            Arg::new("samples")
                .long("samples")
                .default_value(DEFAULT_SAMPLES.to_string())
                .help("samples (seeds) per cell"),
        )
        .arg(Arg::new("seed").long("seed").default_value("0").help("seed of the first sample; sample i uses seed + i"))
        .arg(
            Arg::new("shard")
                .long("shard")
                .value_name("K/N")
                .help("generate only shard K of N (K from 1 to N); each shard writes whole files"),
        )
}

/// The paper's samples per cell.
const DEFAULT_SAMPLES: u64 = 20;

/// `traversal: 5,10,25,50,100,200; search: …`
fn paper_sizes_help() -> String {
    Axis::ALL
        .iter()
        .map(|a| {
            let sizes: Vec<String> = a.def().paper_sizes().iter().map(|n| n.to_string()).collect();
            format!("{a}: {}", sizes.join(","))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn list_arg(key: &'static str, default: &str, help: &'static str) -> Arg {
    Arg::new(key)
        .long(key)
        .value_name("LIST")
        .default_value(default.to_string())
        .help(format!("{help}, comma-separated"))
}

/// One output file: every sample of one (axis, n, domain, kind).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Cell {
    axis: Axis,
    n: u32,
    domain: Domain,
    kind: Kind,
}

/// The cells of a grid, in (axis, n, domain, kind) order, each kind only on the axes and domains
/// it is built for (a knob that does not apply to a kind takes its default, once; a kind built along
/// no axis, variable_renaming, comes with the default axis, or with the first when the kinds are a
/// chosen subset). Also returns
/// the (kind, axis) pairs left out because the kind is not built along the axis.
fn cells(axes: &[Axis], sizes: Option<&[u32]>, domains: &[Domain], kinds: &[Kind]) -> (Vec<Cell>, Vec<(Kind, Axis)>) {
    let defaults = TaskSpec::default();
    let mut out: Vec<Cell> = Vec::new();
    let mut skipped = Vec::new();
    let axisless_home = if axes.contains(&defaults.axis) {
        Some(defaults.axis)
    } else if kinds.len() < Kind::ALL.len() {
        axes.first().copied()
    } else {
        None
    };
    for &axis in axes {
        for &n in sizes.unwrap_or(axis.def().paper_sizes()) {
            for &domain in domains {
                for &kind in kinds {
                    let def = kind.def();
                    let axis = match def.axes() {
                        Support::Only(list) if list.contains(&axis) => axis,
                        Support::Only(_) => {
                            if !skipped.contains(&(kind, axis)) {
                                skipped.push((kind, axis));
                            }
                            continue;
                        }
                        // A kind not built along axes comes once, with the default axis; when the
                        // axes leave it out, only if the kinds were chosen (with the first axis).
                        Support::NotApplicable if Some(axis) == axisless_home => defaults.axis,
                        Support::NotApplicable => continue,
                    };
                    let domain = match def.domains() {
                        Support::Only(list) if list.contains(&domain) => domain,
                        Support::Only(_) => continue,
                        Support::NotApplicable => defaults.domain,
                    };
                    let cell = Cell { axis, n, domain, kind };
                    if !out.contains(&cell) {
                        out.push(cell);
                    }
                }
            }
        }
    }
    (out, skipped)
}

/// `3,600`
fn thousands(x: u64) -> String {
    let digits = x.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The number of tasks of the default grid.
fn default_grid_tasks(samples: u64) -> u64 {
    cells(Axis::ALL, None, Domain::ALL, Kind::ALL).0.len() as u64 * samples
}

/// Parse `K/N` (1-based K).
pub fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard must be K/N with 1 <= K <= N, got '{text}'");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

fn parse_list<T>(
    m: &ArgMatches,
    key: &str,
    parse: impl Fn(&str) -> Option<T>,
    allowed: &str,
) -> Result<Vec<T>, String> {
    parse_items(m.get_one::<String>(key).map(String::as_str).unwrap_or(""), key, parse, allowed)
}

fn parse_items<T>(text: &str, key: &str, parse: impl Fn(&str) -> Option<T>, allowed: &str) -> Result<Vec<T>, String> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| parse(s.trim()).ok_or_else(|| format!("--{key}: unknown value '{}'; allowed: {allowed}", s.trim())))
        .collect()
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let usage = Failure::Usage;
    let axes = parse_list(m, "axes", Axis::parse, &Axis::NAMES.join(", ")).map_err(usage)?;
    let kinds = parse_list(m, "kinds", Kind::parse, &Kind::NAMES.join(", ")).map_err(usage)?;
    let domains = parse_list(m, "domains", Domain::parse, &Domain::NAMES.join(", ")).map_err(usage)?;
    let sizes = match m.get_one::<String>("sizes") {
        Some(text) => Some(parse_items(text, "sizes", |s| s.parse::<u32>().ok(), "integers").map_err(usage)?),
        None => None,
    };
    let samples: u64 = m
        .get_one::<String>("samples")
        .and_then(|s| s.parse().ok())
        .filter(|&s| s >= 1)
        .ok_or_else(|| usage("--samples must be a positive integer".into()))?;
    let seed0: u64 = m
        .get_one::<String>("seed")
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| usage("--seed must be a non-negative integer".into()))?;
    let (shard_k, shard_n) = match m.get_one::<String>("shard") {
        Some(s) => parse_shard(s).map_err(usage)?,
        None => (1, 1),
    };
    let out = PathBuf::from(m.get_one::<String>("out").expect("required"));

    let (cells, skipped) = cells(&axes, sizes.as_deref(), &domains, &kinds);
    if cells.is_empty() {
        let pairs: Vec<String> = skipped.iter().map(|(k, a)| format!("{k} has no {a} axis")).collect();
        return Err(usage(format!("no task to generate: {}", pairs.join("; "))));
    }
    // The default grid leaves out the pairs that do not exist (dead code on instruction following and on
    // comment copying) silently; a grid chosen with --axes or --kinds names them.
    let chosen = |k: &str| m.value_source(k) == Some(clap::parser::ValueSource::CommandLine);
    if chosen("axes") || chosen("kinds") {
        for (kind, axis) in &skipped {
            eprintln!("cabrito: skipping {kind} on the {axis} axis (it is not built along it)");
        }
    }
    // Validate every spec before writing anything.
    for c in &cells {
        let spec = TaskSpec::new(c.kind, c.domain, c.axis, c.n, seed0);
        spec.validate().map_err(|e| usage(format!("{} {} n={}: {e}", c.axis, c.kind, c.n)))?;
    }
    let mine: Vec<Cell> =
        cells.into_iter().enumerate().filter(|(i, _)| i % shard_n == shard_k - 1).map(|(_, c)| c).collect();
    let total = mine.len() as u64 * samples;

    std::fs::create_dir_all(&out).map_err(|e| Failure::Other(format!("cannot create {}: {e}", out.display())))?;
    let jsonl_name =
        if shard_n == 1 { "tasks.jsonl".to_string() } else { format!("tasks-{shard_k}-of-{shard_n}.jsonl") };
    let jsonl_path = out.join(&jsonl_name);
    let mut jsonl = std::io::BufWriter::new(
        std::fs::File::create(&jsonl_path)
            .map_err(|e| Failure::Other(format!("cannot write {}: {e}", jsonl_path.display())))?,
    );
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} tasks ({per_sec}, eta {eta})")
            .expect("valid template"),
    );
    let started = std::time::Instant::now();
    // Cells are generated in parallel in small batches and written in order, so memory stays bounded.
    let batch = rayon::current_num_threads().max(1) * 2;
    for chunk in mine.chunks(batch) {
        let results: Vec<Result<(Cell, Vec<Task>), String>> = chunk
            .par_iter()
            .map(|c| {
                let tasks: Result<Vec<Task>, String> = (0..samples)
                    .map(|i| {
                        let spec = TaskSpec::new(c.kind, c.domain, c.axis, c.n, seed0 + i);
                        let t = generate(&spec).map_err(|e| e.to_string());
                        bar.inc(1);
                        t
                    })
                    .collect();
                tasks.map(|t| (c.clone(), t))
            })
            .collect();
        for r in results {
            let (cell, tasks) = r.map_err(Failure::Other)?;
            write_cell(&out, &cell, &tasks)?;
            for t in &tasks {
                serde_json::to_writer(&mut jsonl, t).map_err(|e| Failure::Other(e.to_string()))?;
                jsonl.write_all(b"\n")?;
            }
        }
    }
    jsonl.flush()?;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "wrote {total} tasks to {} ({jsonl_name} and the reference layout) in {secs:.2} s, {:.0} tasks/s",
        out.display(),
        total as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// The reference's record (its six fields only) of a task.
pub fn reference_record(t: &Task) -> serde_json::Value {
    serde_json::json!({
        "name": t.name,
        "dag_id": t.dag_id,
        "prompt": t.prompt,
        "starter_code": t.starter_code,
        "solution_code": t.solution_code,
        "metadata": t.metadata,
    })
}

fn write_cell(out: &Path, c: &Cell, tasks: &[Task]) -> Result<(), Failure> {
    let spec = TaskSpec::new(c.kind, c.domain, c.axis, c.n, 0);
    let dir = out.join("tasks").join(run_name(&spec)).join(task_set(&spec));
    std::fs::create_dir_all(&dir).map_err(|e| Failure::Other(format!("cannot create {}: {e}", dir.display())))?;
    let records: Vec<serde_json::Value> = tasks.iter().map(reference_record).collect();
    let path = dir.join(format!("{}.json", c.kind.as_str()));
    let text = serde_json::to_string_pretty(&records).expect("json");
    std::fs::write(&path, text).map_err(|e| Failure::Other(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_grid_is_the_papers() {
        // Traversal, search and runtime: 3 axes × 6 sizes × 3 domains × 5 kinds × 20 samples; instruction
        // following and comment copying: 6 sizes × 3 domains × 4 kinds × 20 samples each; variable renaming
        // (math, no axis) at the 6 sizes. The paper's whole grid.
        assert_eq!(default_grid_tasks(20), 5400 + 1440 + 1440 + 6 * 20);
        assert_eq!(default_grid_tasks(20), 8400);
        let (c, _) = cells(&[Axis::Runtime], None, Domain::ALL, Kind::ALL);
        assert_eq!(c.len() * 20, 1800);
        let (c, skipped) = cells(&[Axis::Instructions], None, Domain::ALL, Kind::ALL);
        assert_eq!((c.len() * 20, skipped.len()), (1440, 1));
        let (c, skipped) = cells(&[Axis::Comment], None, Domain::ALL, Kind::ALL);
        assert_eq!((c.len() * 20, skipped.len()), (1440, 1));
        assert_eq!(
            (thousands(3600), thousands(6840), thousands(999), thousands(1_000_000)),
            ("3,600".into(), "6,840".into(), "999".into(), "1,000,000".into())
        );
        let (c, skipped) =
            cells(&[Axis::Search], Some(&[5, 7]), &[Domain::String], &[Kind::DeadCode, Kind::AddParameter]);
        assert!(skipped.is_empty());
        assert_eq!(c.len(), 4);
        assert_eq!(c[1], Cell { axis: Axis::Search, n: 5, domain: Domain::String, kind: Kind::AddParameter });
        let (c, _) = cells(&[Axis::Traversal], None, &[Domain::Math], &[Kind::CacheFunction]);
        assert_eq!(c.iter().map(|c| c.n).collect::<Vec<_>>(), Axis::Traversal.def().paper_sizes());
    }
}
