//! `cabrito export --format hf --out DIR`: a grid as a Hugging Face dataset (`datasets.load_dataset(DIR)`):
//! JSON Lines under `data/` and a dataset card (`README.md`) naming the fields, the knobs, the generator
//! version and the licence. Each row carries the whole task record, so a row can be graded as it is.
//! The folder is written whole or not at all: it is built beside `DIR` and renamed into place.

use super::cli::Failure;
use super::grid::{grid_specs, GridRequest};
use cabrito_gen::kinds::prompt::llm_prompt;
use cabrito_gen::spec::TaskSpec;
use cabrito_gen::task::{export, generate, link, Task};
use clap::{Arg, ArgMatches, Command};
use rayon::prelude::*;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The split every row goes to (the tasks are for evaluation).
pub const SPLIT: &str = "test";

/// The formats `--format` takes.
const FORMATS: &[&str] = &["hf"];

pub fn command() -> Command {
    Command::new("export")
        .about("Export a grid of tasks as a Hugging Face dataset (JSON Lines and a dataset card)")
        .arg(
            Arg::new("format")
                .long("format")
                .required(true)
                .value_name("FORMAT")
                .help("hf: a folder that datasets.load_dataset(DIR) reads"),
        )
        .arg(
            Arg::new("out")
                .long("out")
                .required(true)
                .value_name("DIR")
                .help("the dataset folder to create (it must not exist, or be empty)"),
        )
        .arg(
            Arg::new("axes")
                .long("axes")
                .value_name("LIST")
                .help("axes, comma-separated, as `cabrito grid` takes them [default: every axis]"),
        )
        .arg(Arg::new("kinds").long("kinds").value_name("LIST").help("kinds, comma-separated [default: every kind]"))
        .arg(
            Arg::new("domains")
                .long("domains")
                .value_name("LIST")
                .help("domains, comma-separated [default: every domain]"),
        )
        .arg(
            Arg::new("sizes")
                .long("sizes")
                .value_name("LIST")
                .help("sizes n, comma-separated [default: each axis's paper sizes]"),
        )
        .arg(
            Arg::new("samples")
                .long("samples")
                .value_name("N")
                .help("samples (seeds) per cell [default: 20, or a kind's own grid's]"),
        )
        .arg(
            Arg::new("seed")
                .long("seed")
                .value_name("SEED")
                .default_value("0")
                .help("seed of the first sample; sample i uses seed + i"),
        )
        .arg(Arg::new("shard").long("shard").value_name("K/N").help("export only shard K of N of the grid's cells"))
}

/// The grid a command line asks for.
pub fn request_from(m: &ArgMatches) -> Result<GridRequest, String> {
    let mut req = GridRequest::default();
    let text = |k: &str| m.get_one::<String>(k).cloned();
    if let Some(a) = text("axes") {
        req.axes = a;
    }
    if let Some(k) = text("kinds") {
        req.kinds = k;
    }
    if let Some(d) = text("domains") {
        req.domains = d;
    }
    req.sizes = text("sizes");
    req.samples = match text("samples") {
        Some(s) => {
            Some(s.trim().parse::<u64>().ok().filter(|s| *s >= 1).ok_or("--samples must be a positive integer")?)
        }
        None => None,
    };
    req.seed = text("seed").and_then(|s| s.trim().parse().ok()).ok_or("--seed must be a non-negative integer")?;
    req.shard = text("shard");
    Ok(req)
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let format = m.get_one::<String>("format").map(String::as_str).unwrap_or("");
    if !FORMATS.contains(&format) {
        return Err(Failure::Usage(format!("--format: unknown value '{format}'; allowed: {}", FORMATS.join(", "))));
    }
    let req = request_from(m).map_err(Failure::Usage)?;
    let out = PathBuf::from(m.get_one::<String>("out").expect("required"));
    let written = export_hf(&req, &out)?;
    eprintln!("wrote {written} tasks to {} (data/{SPLIT}.jsonl and README.md)", out.display());
    Ok(())
}

/// One row of the dataset: what a model is asked, what scoring needs (the whole record), and the
/// spec's fields as columns to filter on.
pub fn row(task: &Task) -> Value {
    let s = &task.spec;
    json!({
        "id": task.name,
        "dag_id": task.dag_id,
        "kind": s.kind.as_str(),
        "domain": s.domain.as_str(),
        "axis": s.axis.as_str(),
        "n": s.n,
        "seed": s.seed,
        "generator_version": s.v,
        "question": llm_prompt(&task.prompt, &task.starter_code),
        "prompt": task.prompt,
        "starter_code": task.starter_code,
        "solution_code": task.solution_code,
        "metadata": serde_json::to_string(&task.metadata).unwrap_or_default(),
        "link": link(s),
        "record": serde_json::to_string(&export(task)).unwrap_or_default(),
    })
}

/// The fields of a row, with what each holds (the card's table).
const FIELDS: &[(&str, &str, &str)] = &[
    ("id", "string", "the task's name (`<task_set>_<task_type>_<dag_id>`)"),
    ("dag_id", "string", "the task's identifier"),
    ("kind", "string", "the task kind (the reference's task type)"),
    ("domain", "string", "the value domain: math, string or array"),
    ("axis", "string", "the scaling axis"),
    ("n", "int64", "the size along the axis"),
    ("seed", "int64", "the spec's seed"),
    ("generator_version", "int64", "the generator version (`v` of the spec)"),
    ("question", "string", "the whole prompt a model is given: the rules, the code, the answer format"),
    ("prompt", "string", "the problem statement alone"),
    ("starter_code", "string", "solution.py as given"),
    ("solution_code", "string", "the reference solution"),
    ("metadata", "string", "the record's metadata, as JSON text"),
    ("link", "string", "the task's fragment in the playground (`#/task?…`)"),
    ("record", "string", "the whole Cabrito task record as JSON text: what `cabrito.grade(row, response)` needs"),
];

fn card(req: &GridRequest, rows: usize, kinds: &[String], axes: &[String]) -> String {
    let mut s = String::new();
    s.push_str("---\nlicense: mit\npretty_name: Cabrito coding tasks\ntask_categories:\n- text-generation\ntags:\n- code\n- refactoring\n- cabra\n");
    s.push_str(&format!(
        "configs:\n- config_name: default\n  data_files:\n  - split: {SPLIT}\n    path: data/{SPLIT}.jsonl\n"
    ));
    s.push_str("dataset_info:\n  features:\n");
    for (name, ty, _) in FIELDS {
        s.push_str(&format!("  - name: {name}\n    dtype: {ty}\n"));
    }
    s.push_str(&format!("  splits:\n  - name: {SPLIT}\n    num_examples: {rows}\n---\n\n"));
    s.push_str("# Cabrito coding tasks\n\n");
    s.push_str(
        "Refactoring tasks made from random call graphs by Cabrito, a Rust implementation of Cabra, the synthetic \
         tasks of *Code Understanding is a Bottleneck for Coding Agents* (2026). Every task is fully determined by \
         its spec: the same spec gives the same bytes from the CLI, the browser and the Python package.\n\n",
    );
    s.push_str(&format!(
        "- generator: cabrito {} (generator version {})\n- tasks: {rows}\n- kinds: {}\n- axes: {}\n\n",
        env!("CARGO_PKG_VERSION"),
        cabrito_gen::spec::GENERATOR_VERSION,
        kinds.join(", "),
        axes.join(", ")
    ));
    s.push_str("## The grid\n\nMade with `cabrito export --format hf` and these knobs (`cabrito grid`'s):\n\n");
    s.push_str(&format!(
        "| knob | value |\n|---|---|\n| axes | {} |\n| kinds | {} |\n| domains | {} |\n| sizes | {} |\n| samples | {} |\n| seed | {} |\n| shard | {} |\n\n",
        req.axes,
        req.kinds,
        req.domains,
        req.sizes.as_deref().unwrap_or("each axis's paper sizes"),
        req.samples.map_or("20 per cell (a kind's own grid: its own)".to_string(), |s| s.to_string()),
        req.seed,
        req.shard.as_deref().unwrap_or("the whole grid")
    ));
    s.push_str("## Fields\n\n| field | type | what it holds |\n|---|---|---|\n");
    for (name, ty, what) in FIELDS {
        s.push_str(&format!("| `{name}` | {ty} | {what} |\n"));
    }
    s.push_str(
        "\n## Scoring\n\nA response scores 1 when the grader's every required check passes. With the `cabrito` \
         Python package:\n\n```python\nimport cabrito, datasets\nds = datasets.load_dataset(\"path/to/this/folder\", split=\"test\")\n\
         verdict = cabrito.grade(ds[0], response)   # the same sandbox as `cabrito grade`\n\
         rubric = cabrito.check(ds[0], response)    # the static rubric, without running code\n```\n\n\
         Or `cabrito check --task-file` with the row's `record` saved as a file.\n\n## Licence\n\nMIT, as Cabrito.\n",
    );
    s
}

/// Write the grid `req` as a Hugging Face dataset folder at `out`: whole, or nothing. Returns the rows.
pub fn export_hf(req: &GridRequest, out: &Path) -> Result<usize, Failure> {
    let (specs, _skipped) = grid_specs(req).map_err(Failure::Usage)?;
    if req.seed > i64::MAX as u64 || specs.iter().any(|s| s.seed > i64::MAX as u64) {
        return Err(Failure::Usage(format!(
            "--seed: the seeds of a Hugging Face export must fit Arrow's int64 (at most {})",
            i64::MAX
        )));
    }
    if out.exists() {
        let empty = out.is_dir() && std::fs::read_dir(out).map(|mut d| d.next().is_none()).unwrap_or(false);
        if !empty {
            return Err(Failure::Usage(format!(
                "{} exists; the export makes a new folder (remove it or choose another)",
                out.display()
            )));
        }
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| Failure::Other(format!("cannot create {}: {e}", parent.display())))?;
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "dataset".into());
    let tmp = parent.join(format!(".{name}.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let result = write_folder(&tmp, req, &specs);
    match result {
        Ok(rows) => {
            if out.exists() {
                let _ = std::fs::remove_dir(out);
            }
            std::fs::rename(&tmp, out).map_err(|e| {
                let _ = std::fs::remove_dir_all(&tmp);
                Failure::Other(format!("cannot move the dataset into {}: {e}", out.display()))
            })?;
            Ok(rows)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

fn write_folder(dir: &Path, req: &GridRequest, specs: &[TaskSpec]) -> Result<usize, Failure> {
    let data = dir.join("data");
    std::fs::create_dir_all(&data).map_err(|e| Failure::Other(format!("cannot create {}: {e}", data.display())))?;
    let path = data.join(format!("{SPLIT}.jsonl"));
    let file =
        std::fs::File::create(&path).map_err(|e| Failure::Other(format!("cannot write {}: {e}", path.display())))?;
    let mut w = std::io::BufWriter::new(file);
    let (mut kinds, mut axes): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    // Generated in parallel in batches, written in the grid's order.
    let batch = rayon::current_num_threads().max(1) * 8;
    for chunk in specs.chunks(batch) {
        let rows: Vec<Result<Value, String>> =
            chunk.par_iter().map(|s| generate(s).map(|t| row(&t)).map_err(|e| e.to_string())).collect();
        for r in rows {
            let r = r.map_err(Failure::Other)?;
            for (list, key) in [(&mut kinds, "kind"), (&mut axes, "axis")] {
                let v = r[key].as_str().unwrap_or("").to_string();
                if !list.contains(&v) {
                    list.push(v);
                }
            }
            serde_json::to_writer(&mut w, &r).map_err(|e| Failure::Other(e.to_string()))?;
            w.write_all(b"\n")?;
        }
    }
    w.flush()?;
    w.into_inner().map_err(|e| Failure::Other(e.to_string()))?.sync_all()?;
    std::fs::write(dir.join("README.md"), card(req, specs.len(), &kinds, &axes))
        .map_err(|e| Failure::Other(format!("cannot write the dataset card: {e}")))?;
    Ok(specs.len())
}
