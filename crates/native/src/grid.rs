//! `cabrito grid`: the paper's grid on every axis this version builds, in the reference's layout
//! (`tasks/<run>/<task_set>/<task_type>.json`) and as JSONL, sharded and in parallel. The kinds, axes
//! and sizes come from the registries: each kind on the axes and domains it is built for, each axis at
//! its paper sizes.

use super::cli::Failure;
use super::outdir::Staged;
use cabrito_gen::experiment::Experiment;
use cabrito_gen::spec::{Axis, Domain, Kind, Support, TaskSpec};
use cabrito_gen::task::{generate, run_name, task_set, Task};
use clap::{Arg, ArgMatches, Command};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::path::PathBuf;

pub fn command() -> Command {
    Command::new("grid")
        .about(format!(
            "Generate a grid of tasks (by default the paper's grid on every axis this version builds: {} tasks)",
            thousands(default_grid_tasks(DEFAULT_SAMPLES))
        ))
        .arg(Arg::new("out").long("out").required(true).value_name("DIR").help("output folder"))
        .arg(
            list_arg("axes", &Axis::NAMES.join(","), "axes to generate")
                .help(format!("axes to generate, comma-separated; also {}", own_grids_help())),
        )
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

/// Why a kind with a grid of its own is not on an axis's grid (also how the quiet skips are found).
const OWN_GRID: &str = "it has a grid of its own";

/// `merge (the merge_codebases grid: n 5,…,200, 50 samples each)`
fn own_grids_help() -> String {
    Kind::ALL
        .iter()
        .filter_map(|k| k.def().own_grid().map(|g| (k, g)))
        .map(|(k, g)| {
            let sizes: Vec<String> = g.sizes.iter().map(|n| n.to_string()).collect();
            format!("{} (the {k} grid: n {}, {} samples each)", g.name, sizes.join(","), g.samples)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// What `--axes` names: a scaling axis, or the own grid of a kind whose axis knob does not apply.
fn parse_grid_axis(s: &str) -> Option<Experiment> {
    Experiment::parse(s)
}

fn grid_axis_names() -> String {
    let own = Kind::ALL.iter().filter_map(|k| k.def().own_grid().map(|g| g.name));
    Axis::NAMES.iter().copied().chain(own).collect::<Vec<_>>().join(", ")
}

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
    /// Samples of the cell (a kind's own grid has its own count).
    samples: u64,
}

/// The cells of a grid, in (axis, n, domain, kind) order, each kind only on the axes and domains
/// it is built for (a knob that does not apply to a kind takes its default, once); a kind with its
/// own grid (merge) only when `--axes` names that grid. Also returns the kinds left out, with why.
fn cells(
    axes: &[Experiment],
    sizes: Option<&[u32]>,
    domains: &[Domain],
    kinds: &[Kind],
    samples: Option<u64>,
) -> (Vec<Cell>, Vec<String>) {
    let defaults = TaskSpec::default();
    let mut out: Vec<Cell> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    let mut skip = |why: String| {
        if !skipped.contains(&why) {
            skipped.push(why);
        }
    };
    for &grid_axis in axes {
        let axis = match grid_axis {
            Experiment::Axis(a) => a,
            Experiment::Kind(kind) => {
                let Some(own) = kind.def().own_grid() else { continue };
                if !kinds.contains(&kind) {
                    skip(format!("the {} grid (its kind {kind} is not in --kinds)", own.name));
                    continue;
                }
                for &n in sizes.unwrap_or(own.sizes) {
                    let cell = Cell {
                        axis: defaults.axis,
                        n,
                        domain: defaults.domain,
                        kind,
                        samples: samples.unwrap_or(own.samples),
                    };
                    if !out.contains(&cell) {
                        out.push(cell);
                    }
                }
                continue;
            }
        };
        for &n in sizes.unwrap_or(axis.def().paper_sizes()) {
            for &domain in domains {
                for &kind in kinds {
                    let def = kind.def();
                    if let Some(own) = def.own_grid() {
                        skip(format!("{kind} on the {axis} axis ({OWN_GRID}: --axes {})", own.name));
                        continue;
                    }
                    let axis = match def.axes() {
                        Support::Only(list) if list.contains(&axis) => axis,
                        Support::Only(_) => {
                            skip(format!("{kind} on the {axis} axis (it is not built along it)"));
                            continue;
                        }
                        Support::NotApplicable => defaults.axis,
                    };
                    let domain = match def.domains() {
                        Support::Only(list) if list.contains(&domain) => domain,
                        Support::Only(_) => continue,
                        Support::NotApplicable => defaults.domain,
                    };
                    let cell = Cell { axis, n, domain, kind, samples: samples.unwrap_or(DEFAULT_SAMPLES) };
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
    let axes: Vec<Experiment> = Axis::ALL.iter().map(|&a| Experiment::Axis(a)).collect();
    cells(&axes, None, Domain::ALL, Kind::ALL, Some(samples)).0.iter().map(|c| c.samples).sum()
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

/// The list parsed, or an empty one with its problem kept.
fn keep<T>(bad: &mut Vec<String>, r: Result<Vec<T>, String>) -> Vec<T> {
    r.unwrap_or_else(|e| {
        bad.push(e);
        Vec::new()
    })
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let usage = Failure::Usage;
    // Every bad flag is named at once, not only the first.
    let mut bad: Vec<String> = Vec::new();
    let axes = keep(&mut bad, parse_list(m, "axes", parse_grid_axis, &grid_axis_names()));
    let kinds = keep(&mut bad, parse_list(m, "kinds", Kind::parse, &Kind::NAMES.join(", ")));
    let domains = keep(&mut bad, parse_list(m, "domains", Domain::parse, &Domain::NAMES.join(", ")));
    let sizes = m
        .get_one::<String>("sizes")
        .map(|text| keep(&mut bad, parse_items(text, "sizes", |s| s.parse::<u32>().ok(), "integers")));
    let samples: u64 =
        m.get_one::<String>("samples").and_then(|s| s.parse().ok()).filter(|&s| s >= 1).unwrap_or_else(|| {
            bad.push("--samples must be a positive integer".into());
            1
        });
    // A kind's own grid keeps its own sample count unless --samples is given.
    let given_samples = (m.value_source("samples") == Some(clap::parser::ValueSource::CommandLine)).then_some(samples);
    let seed0: u64 = m.get_one::<String>("seed").and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        bad.push("--seed must be a non-negative integer".into());
        0
    });
    let (shard_k, shard_n) = match m.get_one::<String>("shard") {
        Some(s) => parse_shard(s).unwrap_or_else(|e| {
            bad.push(e);
            (1, 1)
        }),
        None => (1, 1),
    };
    if !bad.is_empty() {
        return Err(usage(super::cli::every_problem(&bad)));
    }
    let out = PathBuf::from(m.get_one::<String>("out").expect("required"));

    let (cells, skipped) = cells(&axes, sizes.as_deref(), &domains, &kinds, given_samples);
    if cells.is_empty() {
        return Err(usage(format!("no task to generate: {}", skipped.join("; "))));
    }
    // The default grid leaves out quietly what does not exist (dead code on instruction following and comment
    // copying, the kinds with a grid of their own); a grid chosen with --axes names the pairs it skips, and --kinds
    // names every kind left out.
    let given = |k: &str| m.value_source(k) == Some(clap::parser::ValueSource::CommandLine);
    let (kinds_given, axes_given) = (given("kinds"), given("axes"));
    for why in skipped.iter().filter(|w| kinds_given || (axes_given && !w.contains(OWN_GRID))) {
        eprintln!("cabrito: skipping {why}");
    }
    // Validate every spec before writing anything.
    for c in &cells {
        let spec = TaskSpec::new(c.kind, c.domain, c.axis, c.n, seed0);
        spec.validate().map_err(|e| usage(format!("{} {} n={}: {e}", c.axis, c.kind, c.n)))?;
    }
    let mine: Vec<Cell> =
        cells.into_iter().enumerate().filter(|(i, _)| i % shard_n == shard_k - 1).map(|(_, c)| c).collect();
    let total: u64 = mine.iter().map(|c| c.samples).sum();

    if out.exists() && !out.is_dir() {
        return Err(usage(format!("--out {} is a file, not a folder", out.display())));
    }
    let jsonl_name =
        if shard_n == 1 { "tasks.jsonl".to_string() } else { format!("tasks-{shard_k}-of-{shard_n}.jsonl") };
    // Written beside `--out` and moved in at the end, so a failure leaves `--out` as it was. A whole
    // grid replaces the folder; a shard adds its files to it, as the other shards do.
    let staged = if shard_n == 1 { Staged::new(&out, &["tasks.jsonl", "tasks"]) } else { Staged::beside(&out) }
        .map_err(usage)?;
    let mut jsonl = staged.create(&jsonl_name).map_err(Failure::Other)?;
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
                let tasks: Result<Vec<Task>, String> = (0..c.samples)
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
            write_cell(&staged, &cell, seed0, &tasks)?;
            for t in &tasks {
                let line = serde_json::to_string(&cabrito_gen::task::export(t)).expect("json");
                jsonl.put(&line).and_then(|()| jsonl.put("\n")).map_err(Failure::Other)?;
            }
        }
    }
    jsonl.finish().map_err(Failure::Other)?;
    if shard_n == 1 { staged.commit() } else { staged.commit_files() }.map_err(Failure::Other)?;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "wrote {total} tasks to {} ({jsonl_name} and the reference layout) in {secs:.2} s, {:.0} tasks/s",
        out.display(),
        total as f64 / secs.max(1e-9)
    );
    Ok(())
}

/// A grid as the bindings ask for it: the `cabrito grid` flags as text (comma-separated lists), so
/// that their values are read, and refused, with the CLI's messages.
#[derive(Clone, Debug)]
pub struct GridRequest {
    pub axes: String,
    pub kinds: String,
    pub domains: String,
    /// `None`: each axis's paper sizes.
    pub sizes: Option<String>,
    /// `None`: 20 per cell, or a kind's own grid's count.
    pub samples: Option<u64>,
    pub seed: u64,
    /// `K/N`, or `None` for the whole grid.
    pub shard: Option<String>,
}

impl Default for GridRequest {
    fn default() -> Self {
        GridRequest {
            axes: Axis::NAMES.join(","),
            kinds: Kind::NAMES.join(","),
            domains: Domain::NAMES.join(","),
            sizes: None,
            samples: None,
            seed: 0,
            shard: None,
        }
    }
}

/// The specs of a grid in the order `cabrito grid` writes them to its JSON Lines (cell by cell,
/// then sample by sample), with what was left out and why. Errors are the CLI's usage messages.
pub fn grid_specs(req: &GridRequest) -> Result<(Vec<TaskSpec>, Vec<String>), String> {
    let axes = parse_items(&req.axes, "axes", parse_grid_axis, &grid_axis_names())?;
    let kinds = parse_items(&req.kinds, "kinds", Kind::parse, &Kind::NAMES.join(", "))?;
    let domains = parse_items(&req.domains, "domains", Domain::parse, &Domain::NAMES.join(", "))?;
    let sizes = match &req.sizes {
        Some(text) => Some(parse_items(text, "sizes", |s| s.parse::<u32>().ok(), "integers")?),
        None => None,
    };
    if req.samples == Some(0) {
        return Err("--samples must be a positive integer".into());
    }
    let (shard_k, shard_n) = match &req.shard {
        Some(s) => parse_shard(s)?,
        None => (1, 1),
    };
    let (cells, skipped) = cells(&axes, sizes.as_deref(), &domains, &kinds, req.samples);
    if cells.is_empty() {
        return Err(format!("no task to generate: {}", skipped.join("; ")));
    }
    for c in &cells {
        let spec = TaskSpec::new(c.kind, c.domain, c.axis, c.n, req.seed);
        spec.validate().map_err(|e| format!("{} {} n={}: {e}", c.axis, c.kind, c.n))?;
    }
    let mut specs = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        if i % shard_n != shard_k - 1 {
            continue;
        }
        for s in 0..c.samples {
            let seed = req.seed.checked_add(s).ok_or_else(|| format!("--seed {} + {s} overflows", req.seed))?;
            specs.push(TaskSpec::new(c.kind, c.domain, c.axis, c.n, seed));
        }
    }
    Ok((specs, skipped))
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

fn write_cell(out: &Staged, c: &Cell, seed0: u64, tasks: &[Task]) -> Result<(), Failure> {
    let (rel, text) = if c.kind.def().own_grid().is_some_and(|g| g.run_file) {
        // The kind's own layout (merge): `tasks/<run>.json`, one unindented JSON list in the
        // reference's record format; record i is sample i (`task_0000i`), the run name holds the
        // first seed.
        let spec = TaskSpec::new(c.kind, c.domain, c.axis, c.n, seed0);
        let records: Vec<serde_json::Value> =
            tasks.iter().map(cabrito_gen::kinds::merge_codebases::reference_record).collect();
        (format!("tasks/{}.json", run_name(&spec)), serde_json::to_string(&records).expect("json"))
    } else {
        let spec = TaskSpec::new(c.kind, c.domain, c.axis, c.n, 0);
        let records: Vec<serde_json::Value> = tasks.iter().map(reference_record).collect();
        let rel = format!("tasks/{}/{}/{}.json", run_name(&spec), task_set(&spec), c.kind.as_str());
        (rel, serde_json::to_string_pretty(&records).expect("json"))
    };
    out.write(&rel, text.as_bytes()).map_err(Failure::Other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_grid_is_the_papers() {
        // 3 axes (traversal, search, runtime) × 6 sizes × 3 domains × 5 kinds × 20 samples; instruction
        // following and comment copying: 6 sizes × 3 domains × 4 kinds × 20 samples each.
        assert_eq!(default_grid_tasks(20), 5400 + 1440 + 1440);
        let (c, _) = cells(&[Experiment::Axis(Axis::Runtime)], None, Domain::ALL, Kind::ALL, Some(20));
        assert_eq!(c.iter().map(|c| c.samples).sum::<u64>(), 1800);
        for axis in [Axis::Instructions, Axis::Comment] {
            let (c, skipped) = cells(&[Experiment::Axis(axis)], None, Domain::ALL, Kind::ALL, Some(20));
            assert_eq!(c.iter().map(|c| c.samples).sum::<u64>(), 1440);
            assert!(skipped.iter().any(|w| w.starts_with(&format!("dead_code on the {axis} axis"))), "{skipped:?}");
        }
        // Variable renaming's own grid: math, n 5..200, 20 samples each, only through --axes renaming.
        assert_eq!(parse_grid_axis("renaming"), Some(Experiment::Kind(Kind::VariableRenaming)));
        let (c, _) = cells(&[Experiment::Kind(Kind::VariableRenaming)], None, Domain::ALL, Kind::ALL, None);
        assert_eq!(c.iter().map(|c| (c.n, c.samples)).collect::<Vec<_>>(), [5, 10, 25, 50, 100, 200].map(|n| (n, 20)));
        assert!(c.iter().all(|c| c.domain == Domain::Math));
        assert_eq!(
            (thousands(3600), thousands(6840), thousands(999), thousands(1_000_000)),
            ("3,600".into(), "6,840".into(), "999".into(), "1,000,000".into())
        );
        let search = [Experiment::Axis(Axis::Search)];
        let (c, skipped) =
            cells(&search, Some(&[5, 7]), &[Domain::String], &[Kind::DeadCode, Kind::AddParameter], Some(20));
        assert!(skipped.is_empty());
        assert_eq!(c.len(), 4);
        assert_eq!(
            c[1],
            Cell { axis: Axis::Search, n: 5, domain: Domain::String, kind: Kind::AddParameter, samples: 20 }
        );
        let (c, _) = cells(&[Experiment::Axis(Axis::Traversal)], None, &[Domain::Math], &[Kind::CacheFunction], None);
        assert_eq!(c.iter().map(|c| c.n).collect::<Vec<_>>(), Axis::Traversal.def().paper_sizes());
        // The paper's merge grid: n 5..200, 50 samples each, only through --axes merge.
        assert_eq!(parse_grid_axis("merge"), Some(Experiment::Kind(Kind::MergeCodebases)));
        let (c, _) = cells(&[Experiment::Kind(Kind::MergeCodebases)], None, Domain::ALL, Kind::ALL, None);
        assert_eq!(c.iter().map(|c| (c.n, c.samples)).collect::<Vec<_>>(), [5, 10, 25, 50, 100, 200].map(|n| (n, 50)));
        let (c, skipped) = cells(&search, None, Domain::ALL, &[Kind::MergeCodebases], None);
        assert!(c.is_empty() && skipped[0].contains("--axes merge"), "{skipped:?}");
    }
}
