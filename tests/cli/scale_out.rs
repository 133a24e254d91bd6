//! The scale-out recipes in `deploy/` (README, "Scale-out"): the Slurm array scripts and the Kubernetes
//! Indexed Job manifests are parsed, their shard arithmetic checked, and two shards of each are run here
//! the way the scheduler would run them; their outputs, once merged, equal an unsharded run's.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cabrito");
/// A small grid: two kinds, two sizes, two samples (8 tasks).
const GRID_ARGS: &[&str] = &[
    "--axes",
    "traversal",
    "--kinds",
    "add_parameter,dead_code",
    "--domains",
    "math",
    "--sizes",
    "5,10",
    "--samples",
    "2",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bin_dir() -> PathBuf {
    Path::new(BIN).parent().expect("bin dir").to_path_buf()
}

fn path_with_bin() -> String {
    format!("{}:{}", bin_dir().display(), std::env::var("PATH").unwrap_or_default())
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("spawn");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{cmd:?} failed: {text}");
    text
}

/// Every file under `dir`, by relative path, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("under dir").display().to_string();
                out.insert(rel, std::fs::read(&p).expect("read"));
            }
        }
    }
    out
}

/// The value of `#SBATCH --array=1-N` in a script: N.
fn array_size(script: &str) -> usize {
    let line = script.lines().find(|l| l.starts_with("#SBATCH --array=")).expect("an --array line");
    let range = line.trim_start_matches("#SBATCH --array=");
    let (lo, hi) = range.split_once('-').expect("a range");
    assert_eq!(lo, "1", "the shards are numbered from 1, as --shard K/N counts");
    hi.parse().expect("a number")
}

/// Check a generated grid against an unsharded one: the reference-layout files are the same bytes, and
/// the JSONL parts hold the same lines.
fn same_grid(sharded: &Path, whole: &Path, shards: usize) {
    let a = files(sharded);
    let b = files(whole);
    let tasks = |m: &BTreeMap<String, Vec<u8>>| -> BTreeMap<String, Vec<u8>> {
        m.iter().filter(|(k, _)| k.starts_with("tasks/")).map(|(k, v)| (k.clone(), v.clone())).collect()
    };
    assert!(!tasks(&b).is_empty());
    assert_eq!(tasks(&a), tasks(&b), "the shards together write exactly the unsharded grid's files");
    let mut lines_a: Vec<String> = (1..=shards)
        .flat_map(|k| {
            let text = String::from_utf8(a[&format!("tasks-{k}-of-{shards}.jsonl")].clone()).expect("utf-8");
            text.lines().map(str::to_string).collect::<Vec<_>>()
        })
        .collect();
    let mut lines_b: Vec<String> =
        String::from_utf8(b["tasks.jsonl"].clone()).expect("utf-8").lines().map(str::to_string).collect();
    lines_a.sort();
    lines_b.sort();
    assert_eq!(lines_a, lines_b, "the JSONL parts hold the unsharded JSONL's lines");
}

#[test]
fn slurm_grid_array_matches_an_unsharded_grid() {
    let script_path = root().join("deploy/slurm/grid.sbatch");
    let script = std::fs::read_to_string(&script_path).expect("grid.sbatch");
    assert!(array_size(&script) >= 2);
    let dir = tempfile::tempdir().expect("tmp");
    let shared = dir.path().join("shared");
    // Outside an array task the script refuses to run, saying why.
    let out = Command::new("bash").arg(&script_path).env_remove("SLURM_ARRAY_TASK_ID").output().expect("bash");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not in a Slurm array task"));
    for k in 1..=2 {
        run(Command::new("bash")
            .arg(&script_path)
            .args(GRID_ARGS)
            .env("SLURM_ARRAY_TASK_ID", k.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "2")
            .env("CABRITO", BIN)
            .env("CABRITO_OUT", &shared));
    }
    let whole = dir.path().join("whole");
    run(Command::new(BIN).args(["grid", "--out"]).arg(&whole).args(GRID_ARGS));
    same_grid(&shared, &whole, 2);
}

/// The container command of a manifest, its env and its `completions`.
struct Manifest {
    completions: usize,
    parallelism: Option<usize>,
    indexed: bool,
    env: BTreeMap<String, String>,
    shell: String,
}

fn manifest(name: &str) -> Manifest {
    let text = std::fs::read_to_string(root().join("deploy/k8s").join(name)).expect("manifest");
    let y: Json = serde_yaml_ng::from_str(&text).expect("valid YAML");
    assert_eq!(y["apiVersion"], "batch/v1");
    assert_eq!(y["kind"], "Job");
    let spec = &y["spec"];
    let container = &spec["template"]["spec"]["containers"][0];
    assert_eq!(spec["template"]["spec"]["restartPolicy"], "Never");
    let command: Vec<&str> =
        container["command"].as_array().expect("command").iter().filter_map(Json::as_str).collect();
    assert_eq!(command, ["sh", "-c"], "{name}: the shell computes the shard from the completion index");
    let env = container["env"]
        .as_array()
        .expect("env")
        .iter()
        .map(|e| (e["name"].as_str().expect("name").to_string(), e["value"].as_str().expect("value").to_string()))
        .collect();
    Manifest {
        completions: spec["completions"].as_u64().unwrap_or(1) as usize,
        parallelism: spec["parallelism"].as_u64().map(|p| p as usize),
        indexed: spec["completionMode"] == "Indexed",
        env,
        shell: container["args"][0].as_str().expect("args[0]").to_string(),
    }
}

/// Run a manifest's container command here, as pod `index` would, with `data` as its volume and
/// `shards` in place of its shard count.
fn run_pod(m: &Manifest, index: Option<usize>, shards: usize, data: &Path, extra: &str) -> String {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("{} {extra}", m.shell)).env("PATH", path_with_bin());
    for (k, v) in &m.env {
        cmd.env(k, v);
    }
    cmd.env("CABRITO_DATA", data).env("CABRITO_SHARDS", shards.to_string());
    if let Some(i) = index {
        cmd.env("JOB_COMPLETION_INDEX", i.to_string());
    }
    run(&mut cmd)
}

#[test]
fn kubernetes_indexed_grid_job_matches_an_unsharded_grid() {
    let m = manifest("grid-job.yaml");
    assert!(m.indexed, "an Indexed Job gives each pod its JOB_COMPLETION_INDEX");
    assert_eq!(m.parallelism, Some(m.completions));
    assert_eq!(m.env["CABRITO_SHARDS"], m.completions.to_string(), "completions and CABRITO_SHARDS agree");
    assert!(m.shell.contains("$((JOB_COMPLETION_INDEX + 1))/$CABRITO_SHARDS"));
    let dir = tempfile::tempdir().expect("tmp");
    for i in 0..2 {
        run_pod(&m, Some(i), 2, dir.path(), &GRID_ARGS.join(" "));
    }
    let whole = dir.path().join("whole");
    run(Command::new(BIN).args(["grid", "--out"]).arg(&whole).args(GRID_ARGS));
    same_grid(&dir.path().join("grid"), &whole, 2);
}

/// Responses in the reference layout for every task of a grid: the reference solution as model `ref`
/// and the starter as model `starter`.
fn write_responses(grid: &Path, responses: &Path) {
    for (rel, bytes) in files(&grid.join("tasks")) {
        let records: Vec<Json> = serde_json::from_slice(&bytes).expect("task records");
        let place = rel.trim_end_matches(".json");
        for (model, field) in [("ref", "solution_code"), ("starter", "starter_code")] {
            let dir = responses.join(place).join("code");
            std::fs::create_dir_all(&dir).expect("mkdir");
            let lines: Vec<String> = records
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "name": r["name"], "dag_id": r["dag_id"],
                        "output": format!("# === solution.py ===\n{}", r[field].as_str().expect("code")),
                        "metadata": {},
                    })
                    .to_string()
                })
                .collect();
            std::fs::write(dir.join(format!("{model}.jsonl")), lines.join("\n") + "\n").expect("write");
        }
    }
}

/// Result records per results file, keyed by (name, dag_id), with what the verdict says.
fn verdicts(results: &Path) -> BTreeMap<String, Vec<(String, Json, Json)>> {
    files(&results.join("results"))
        .into_iter()
        .filter(|(k, _)| k.ends_with(".jsonl"))
        .map(|(k, v)| {
            let recs = String::from_utf8(v)
                .expect("utf-8")
                .lines()
                .map(|l| {
                    let j: Json = serde_json::from_str(l).expect("record");
                    (j["name"].as_str().unwrap_or("").to_string(), j["score"].clone(), j["summary"].clone())
                })
                .collect();
            (k, recs)
        })
        .collect()
}

fn summary_rows(results: &Path) -> Json {
    let s: Json = serde_json::from_slice(&std::fs::read(results.join("summary.json")).expect("summary")).expect("json");
    s["rows"].clone()
}

/// Shards graded by `grade_shard`, merged by `merge_shards` (an unsharded run), equal a direct
/// unsharded run.
fn graded_shards_merge(
    grade_shard: impl Fn(usize, &Path, &Path, &Path),
    merge_shards: impl Fn(&Path, &Path, &Path) -> String,
) {
    let dir = tempfile::tempdir().expect("tmp");
    let (grid, responses) = (dir.path().join("grid"), dir.path().join("responses"));
    run(Command::new(BIN).args(["grid", "--out"]).arg(&grid).args(GRID_ARGS));
    write_responses(&grid, &responses);
    let sharded = dir.path().join("results");
    for k in 1..=2 {
        grade_shard(k, &grid, &responses, &sharded);
    }
    let shard_files = files(&sharded.join("results")).keys().filter(|k| k.contains(".shard-")).count();
    assert!(shard_files >= 4, "each shard wrote its own result files ({shard_files})");
    let merge = |out: &Path| {
        run(Command::new(BIN)
            .args(["grade", "--trials", "2", "--tasks"])
            .arg(&grid)
            .arg("--responses")
            .arg(&responses)
            .arg("--out")
            .arg(out))
    };
    let said = merge_shards(&grid, &responses, &sharded);
    assert!(said.contains("merged") && said.contains("shard result files"), "{said}");
    assert!(said.contains("graded 0 responses"), "the merge reuses every shard's records: {said}");
    let left: Vec<String> = files(&sharded).into_keys().filter(|k| k.contains(".shard-")).collect();
    assert!(left.is_empty(), "shard files are folded away: {left:?}");
    let direct = dir.path().join("direct");
    merge(&direct);
    assert_eq!(verdicts(&sharded), verdicts(&direct), "merged shards give the unsharded run's records, in order");
    assert_eq!(summary_rows(&sharded), summary_rows(&direct));
    let scores: Vec<Json> = verdicts(&direct).into_values().flatten().map(|(_, s, _)| s).collect();
    assert!(scores.contains(&Json::from(1)) && scores.contains(&Json::from(0)), "references pass, starters fail");
}

#[test]
fn slurm_grade_array_then_merge_equals_one_run() {
    let script_path = root().join("deploy/slurm/grade.sbatch");
    let script = std::fs::read_to_string(&script_path).expect("grade.sbatch");
    assert!(array_size(&script) >= 2);
    assert!(script.contains("--dependency=afterany"), "the script shows how the merge waits for the array");
    graded_shards_merge(
        |k, grid, responses, results| {
            run(Command::new("bash")
                .arg(&script_path)
                .args(["--trials", "2"])
                .env("SLURM_ARRAY_TASK_ID", k.to_string())
                .env("SLURM_ARRAY_TASK_COUNT", "2")
                .env("CABRITO", BIN)
                .env("CABRITO_TASKS", grid)
                .env("CABRITO_RESPONSES", responses)
                .env("CABRITO_RESULTS", results));
        },
        |grid, responses, results| {
            // What the script's comment submits with --dependency (plus this test's trials).
            run(Command::new(BIN)
                .args(["grade", "--trials", "2", "--tasks"])
                .arg(grid)
                .arg("--responses")
                .arg(responses)
                .arg("--out")
                .arg(results))
        },
    );
}

#[test]
fn kubernetes_indexed_grade_job_then_merge_job_equals_one_run() {
    let m = manifest("grade-job.yaml");
    assert!(m.indexed);
    assert_eq!(m.parallelism, Some(m.completions));
    assert_eq!(m.env["CABRITO_SHARDS"], m.completions.to_string(), "completions and CABRITO_SHARDS agree");
    let merge_job = manifest("grade-merge-job.yaml");
    assert!(!merge_job.indexed && merge_job.completions == 1);
    assert!(!merge_job.shell.contains("--shard"), "the merge job is the unsharded run");
    graded_shards_merge(
        |k, grid, _responses, results| {
            // The manifest's paths are under CABRITO_DATA: lay the folders out as the volume would.
            let data = results.parent().expect("data");
            assert_eq!(grid, data.join("grid"));
            let _ = run_pod(&m, Some(k - 1), 2, data, "--trials 2");
        },
        |_grid, _responses, results| run_pod(&merge_job, None, 2, results.parent().expect("data"), "--trials 2"),
    );
}
