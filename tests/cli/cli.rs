//! The `cabrito` command line as a user runs it: generate (JSON and folder), link, grid (layout,
//! JSONL, shards), and one-line errors with exit status 2 for bad input.
#![cfg(not(target_arch = "wasm32"))]

use crate::http;

use serde_json::Value;
use std::process::{Command, Output};

fn cabrito(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cabrito")).args(args).output().expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn generate_prints_the_record() {
    let o =
        cabrito(&["generate", "--kind", "cache_function", "--domain", "array", "--n", "10", "--seed", "3", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t: Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in [
        "name",
        "dag_id",
        "prompt",
        "starter_code",
        "solution_code",
        "metadata",
        "spec",
        "link",
        "graph",
        "roles",
        "edit_set",
        "sizes",
    ] {
        assert!(t.get(key).is_some(), "missing {key}");
    }
    assert!(t["name"].as_str().unwrap().starts_with("array_function_cache_function_"));
    assert_eq!(t["link"], "#/task?v=1&kind=cache_function&domain=array&n=10&seed=3");
    assert_eq!(t["edit_set"].as_array().unwrap().len(), 11);
    assert_eq!(t["sizes"]["functions"], 37);
    // The same spec through the library gives the same bytes.
    let spec = cabrito_gen::TaskSpec::from_pairs([
        ("kind", "cache_function"),
        ("domain", "array"),
        ("n", "10"),
        ("seed", "3"),
    ])
    .unwrap();
    assert_eq!(serde_json::to_value(cabrito_gen::generate(&spec).unwrap()).unwrap(), t);
}

#[test]
fn generate_writes_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("task");
    let o = cabrito(&["generate", "--kind", "dead_code", "--n", "5", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["solution.py", "reference.py", "prompt.md", "llm_prompt.md", "task.json", "dag.json", "dag.dot"] {
        let text = std::fs::read_to_string(out.join(f)).unwrap_or_else(|_| panic!("{f} written"));
        assert!(!text.is_empty(), "{f} empty");
    }
    let dot = std::fs::read_to_string(out.join("dag.dot")).unwrap();
    assert!(dot.starts_with("digraph calls {") && dot.contains("main ->"));
    let llm = std::fs::read_to_string(out.join("llm_prompt.md")).unwrap();
    assert!(llm.contains("# === solution.py ==="));
}

#[test]
fn link_prints_a_readable_link() {
    let o = cabrito(&["link", "--kind", "dead_code", "--n", "50", "--seed", "12"]);
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "http://127.0.0.1:8080/#/task?v=1&kind=dead_code&n=50&seed=12"
    );
}

#[test]
fn grid_writes_the_reference_layout_and_shards() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let args = ["grid", "--out", root, "--sizes", "5,10", "--samples", "3", "--domains", "math,string"];
    let o = cabrito(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let jsonl = std::fs::read_to_string(dir.path().join("tasks.jsonl")).unwrap();
    // 3 axes (traversal, search, runtime) × 2 sizes × 2 domains × 5 kinds × 3 samples; instruction
    // following and comment copying: 2 sizes × 2 domains × 4 kinds (those that edit) × 3 samples each.
    // Merge codebases and variable renaming have grids of their own (--axes merge, renaming).
    assert_eq!(jsonl.lines().count(), 3 * 2 * 2 * 5 * 3 + 2 * (2 * 2 * 4 * 3));
    // The default grid leaves dead code out of instruction following and comment copying without a word,
    // and the kinds with grids of their own.
    assert!(!stderr(&o).contains("skipping"), "{}", stderr(&o));
    let run = "function_traversal_cn=(25,25)_en=(5,5)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)";
    let file = dir.path().join("tasks").join(run).join("string_function").join("extract_helper.json");
    let records: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(records.len(), 3);
    let keys: Vec<&str> = records[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 6, "the reference's six fields: {keys:?}");

    // Two shards together give exactly the unsharded grid.
    let mut sharded: Vec<String> = Vec::new();
    for k in ["1/2", "2/2"] {
        let d = tempfile::tempdir().unwrap();
        let mut a = args.to_vec();
        a[2] = d.path().to_str().unwrap();
        a.extend(["--shard", k]);
        let o = cabrito(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        let name = format!("tasks-{}-of-2.jsonl", &k[..1]);
        sharded.extend(std::fs::read_to_string(d.path().join(name)).unwrap().lines().map(str::to_string));
    }
    let mut whole: Vec<String> = jsonl.lines().map(str::to_string).collect();
    whole.sort();
    sharded.sort();
    assert_eq!(whole, sharded);
}

#[test]
fn bad_input_gets_a_one_line_error_and_status_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["generate", "--kind", "bogus"], "kind must be one of dead_code"),
        (&["generate", "--domain", "text"], "domain must be one of math, string, array"),
        (&["generate", "--axis", "sideways"], "axis must be one of traversal, search"),
        (&["generate", "--kind", "dead_code", "--axis", "instructions"], "dead_code has no instructions axis"),
        (&["generate", "--values", "3"], "'values' does not apply to the traversal axis"),
        (&["generate", "--axis", "instructions", "--conditional", "101"], "from 0 to 100"),
        (&["grid", "--out", "/tmp/never", "--axes", "instructions", "--kinds", "dead_code"], "no task to generate"),
        (&["generate", "--axis", "runtime", "--branches", "3"], "branches must be one of 2, 4, 8"),
        (&["generate", "--branches", "4"], "'branches' does not apply to the traversal axis"),
        (&["generate", "--axis", "runtime", "--n", "10001"], "from 1 to 10000"),
        (&["generate", "--axis", "runtime", "--ratio", "0.05"], "ratio must be one of 0.0, 0.1"),
        (&["generate", "--axis", "runtime", "--n", "10000", "--ratio", "0.0"], "at most 200"),
        (&["link", "--axis", "search", "--ratio", "0.5"], "'ratio' does not apply to the search axis"),
        (&["generate", "--n", "0"], "from 1 to 2000"),
        (&["generate", "--n", "2001"], "from 1 to 2000"),
        (&["generate", "--seed", "12x"], "seed must be an integer"),
        (&["generate", "--kind", "cache_function", "--n", "1"], "at least 2"),
        (&["link", "--n", "-3"], "n must be"),
        (&["grid", "--out", "/tmp/never", "--shard", "0/3"], "--shard must be K/N"),
        (&["grid", "--out", "/tmp/never", "--kinds", "dead_code,nope"], "unknown value 'nope'"),
        (&["grid", "--out", "/tmp/never", "--sizes", "5,0"], "out of range"),
    ];
    for (args, needle) in cases {
        let o = cabrito(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line, got {err}");
        assert!(!err.contains("panicked"), "{args:?}");
    }
}

#[test]
fn serve_answers_with_revalidated_files() {
    use std::io::Read;
    let dist = tempfile::tempdir().unwrap();
    std::fs::write(dist.path().join("index.html"), "<!doctype html><title>t</title>").unwrap();
    std::fs::write(dist.path().join("checker_loader.js"), "// worker").unwrap();
    // Trunk's hashed files: kept for a year, and gzip-compressed when the browser accepts it.
    let wasm: Vec<u8> = (0..20_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
    std::fs::write(dist.path().join("cabrito-b87b087ccae4ad4e_bg.wasm"), &wasm).unwrap();
    std::fs::write(dist.path().join("style-d69004609935550d.css"), "body { margin: 0 }\n".repeat(100)).unwrap();
    // A free port, then a server whose stdout is closed before it prints: it must serve anyway.
    let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["serve", "--addr", &addr, "--dist", dist.path().to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let start = std::time::Instant::now();
    while std::net::TcpStream::connect(&addr).is_err() {
        assert!(start.elapsed().as_secs() < 20, "the server never listened");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // The response's head (lower case) and body (any chunking undone).
    let get = |path: &str, extra: &str| -> (String, Vec<u8>) {
        let r = http::request(&addr, "GET", path, extra);
        (r.head, r.body)
    };
    let (index, _) = get("/", "");
    let (loader, _) = get("/checker_loader.js", "");
    let (missing, _) = get("/nope.js", "");
    let (plain, plain_body) = get("/cabrito-b87b087ccae4ad4e_bg.wasm", "");
    // (brotli: tests/cli/serve_static.rs)
    let (zipped, zipped_body) = get("/cabrito-b87b087ccae4ad4e_bg.wasm", "Accept-Encoding: gzip, deflate\r\n");
    let (css, _) = get("/style-d69004609935550d.css", "Accept-Encoding: gzip\r\n");
    let _ = child.kill();
    let _ = child.wait();
    assert!(index.starts_with("http/1.1 200") && index.contains("cache-control: no-cache"), "{index}");
    assert!(loader.contains("cache-control: no-cache") && loader.contains("last-modified"), "{loader}");
    assert!(missing.starts_with("http/1.1 404") && missing.contains("cache-control: no-cache"), "{missing}");
    assert!(plain.contains("cache-control: public, max-age=31536000, immutable"), "{plain}");
    assert!(!plain.contains("content-encoding"), "{plain}");
    assert_eq!(plain_body, wasm);
    assert!(zipped.contains("content-encoding: gzip") && zipped.contains("immutable"), "{zipped}");
    assert!(css.contains("content-encoding: gzip") && css.contains("immutable"), "{css}");
    // Undo the gzip and get the file back.
    let body = zipped_body;
    assert!(body.len() < wasm.len() / 2, "gzip made {} bytes of {}", body.len(), wasm.len());
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&body[..]).read_to_end(&mut unzipped).unwrap();
    assert_eq!(unzipped, wasm);
}

#[test]
fn a_reader_that_goes_away_is_not_a_crash() {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["generate", "--n", "1000", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut head).unwrap(); // then the pipe closes
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}
