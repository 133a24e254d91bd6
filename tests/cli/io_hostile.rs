//! The command line's folder readers and writers held against hostile input, through the real
//! binary: symbolic-link loops and second paths (`report`, `traces`: each file read once, the
//! links skipped named; a property test over random trees of links), a session met twice,
//! output folders written whole or not at all (a write that fails midway, stale tables of an
//! earlier run, a folder of the user's), inputs over the size cap refused unread, a 50 MB shell
//! command read in bounded memory, `agent` keeping its batch when a trace cannot be written and
//! refusing a task record with an invalid spec, and `grade`'s summary sorting `n` as a number.
//!
//! `CABRITO_BIN` runs these tests against another build of the binary (to see them fail on an
//! older one); by default they run the one Cargo built.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::{json, Value};
use std::io::Read;
use std::os::unix::fs::symlink;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> String {
    std::env::var("CABRITO_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_cabrito").to_string())
}

/// What a run of the binary gave.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    out: String,
    err: String,
    /// Its peak resident memory.
    max_rss_mb: f64,
}

impl Ran {
    fn ok(&self, what: &str) -> &str {
        assert_eq!(self.code, Some(0), "{what} failed:\n{}\n{}", self.out, self.err);
        &self.out
    }
}

/// Starts the binary and writes its peak resident memory (KB) to the file `argv[1]`, then exits as
/// it did. A child's `ru_maxrss` counts the memory of the process it was forked from (Linux keeps
/// the old image's peak across exec), and this test process can hold hundreds of MB; forked from
/// this small interpreter instead, the binary's figure is its own.
const MEASURE: &str = r#"
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
"#;

/// Run the binary, killing it (and failing) if it is not done within `within`; `fsize` caps the
/// size of any file it writes (a write past it fails, as on a full disk).
fn run_limited(args: &[&str], within: Duration, fsize: Option<u64>) -> Ran {
    let peak = tempfile::NamedTempFile::new().expect("a file for the peak memory");
    let mut cmd = Command::new("python3");
    cmd.args(["-I", "-S", "-c", MEASURE]).arg(peak.path()).arg(bin()).args(args);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    if let Some(limit) = fsize {
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let r = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &r) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    // Reaped with wait4 below, whose rusage is the peak memory measured.
    #[allow(clippy::zombie_processes)]
    let mut child = cmd.spawn().expect("run cabrito");
    let pid = child.id() as libc::pid_t;
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + within;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut hung = false;
    loop {
        // SAFETY: wait4 on our own child, with valid pointers.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        if Instant::now() > deadline {
            hung = true;
            // SAFETY: our own child; then reaped.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::wait4(pid, &mut status, 0, &mut usage);
            }
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let ran = Ran {
        code: if libc::WIFEXITED(status) { Some(libc::WEXITSTATUS(status)) } else { None },
        out: out.join().unwrap(),
        err: err.join().unwrap(),
        max_rss_mb: std::fs::read_to_string(peak.path())
            .ok()
            .and_then(|t| t.trim().parse::<f64>().ok())
            .unwrap_or(f64::NAN)
            / 1024.0,
    };
    assert!(!hung, "cabrito {args:?} did not finish within {within:?} (killed):\n{}", ran.err);
    ran
}

fn run(args: &[&str]) -> Ran {
    run_limited(args, Duration::from_secs(120), None)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// One result record of a task named `name` (passing or not).
fn result(name: &str, passed: bool) -> String {
    json!({"name": name, "dag_id": format!("dag-{name}"), "parsed_ok": true,
           "summary": {"hidden_tests": {"pass": u8::from(passed), "fail": u8::from(!passed), "error": 0}},
           "score": u8::from(passed), "message": if passed { "" } else { "hidden tests fail" }})
    .to_string()
        + "\n"
}

/// A plain trace of one session with one call.
fn trace(id: &str) -> String {
    json!({"type": "session", "format": "cabrito-trace/1", "session_id": id, "model": "scripted/reader"}).to_string()
        + "\n"
        + &json!({"tool": "view", "arguments": {"path": "solution.py"}, "turn": 0, "tokens": {"output": 10}})
            .to_string()
        + "\n"
}

/// `report: N task results … from M files` → (N, M).
fn report_counts(out: &str) -> (usize, usize) {
    let line = out.lines().find(|l| l.starts_with("report:")).unwrap_or_else(|| panic!("no summary line: {out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let results = words[1].parse().unwrap();
    let files = words[words.iter().position(|w| *w == "from").unwrap() + 1].parse().unwrap();
    (results, files)
}

/// `traces: N sessions …` → N.
fn sessions(out: &str) -> usize {
    let line = out.lines().find(|l| l.starts_with("traces:")).unwrap_or_else(|| panic!("no summary line: {out}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn model_dir(results: &Path) -> PathBuf {
    results.join("run1/math_function/add_parameter/code")
}

#[test]
fn report_reads_each_file_once_through_loops_and_second_paths() {
    let t = tempfile::tempdir().unwrap();
    let results = t.path().join("results");
    let d = model_dir(&results);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("a.jsonl"), result("t1", true) + &result("t2", false)).unwrap();
    std::fs::write(d.join("b.jsonl"), result("t1", true)).unwrap();
    // Two links back up the tree (on the old reader, a walk that never ends), a second path to a
    // file and a link to nothing.
    symlink(".", d.join("again")).unwrap();
    symlink("..", d.join("up")).unwrap();
    symlink("a.jsonl", d.join("c.jsonl")).unwrap();
    symlink("missing", d.join("gone.jsonl")).unwrap();
    let out = t.path().join("page");
    let r = run(&["report", "--results", s(&results), "--out", s(&out)]);
    r.ok("report");
    assert_eq!(report_counts(&r.out), (3, 2), "{}", r.out);
    assert!(r.out.contains(", 2 models"), "{}", r.out);
    for link in ["again", "up", "c.jsonl", "gone.jsonl"] {
        assert!(r.err.contains(&format!("code/{link}")), "the skipped link {link} is named:\n{}", r.err);
    }
    // The same folder given twice (by two names) is read once.
    let alias = t.path().join("alias");
    symlink(&results, &alias).unwrap();
    let r = run(&["report", "--results", s(&results), "--results", s(&alias), "--out", s(&out)]);
    r.ok("report twice");
    assert_eq!(report_counts(&r.out), (3, 2), "{}", r.out);
    assert!(r.err.contains("read once"), "{}", r.err);
}

fn sample_traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces")
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_tree(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

#[test]
fn traces_read_each_file_once_and_count_a_session_once() {
    let t = tempfile::tempdir().unwrap();
    let tr = t.path().join("traces");
    copy_tree(&sample_traces(), &tr);
    let plain = tr.join("plain/reader-cache-n10-seed0.jsonl");
    // Loops, a link to a file, a copy elsewhere and a gzipped copy of the same session.
    symlink(".", tr.join("plain/loop")).unwrap();
    symlink("..", tr.join("copilot_traces/up")).unwrap();
    symlink(&plain, tr.join("linked.jsonl")).unwrap();
    std::fs::create_dir_all(tr.join("copy")).unwrap();
    std::fs::copy(&plain, tr.join("copy/reader-cache-n10-seed0.jsonl")).unwrap();
    std::fs::write(tr.join("copy/again.jsonl.gz"), gzip(&std::fs::read(&plain).unwrap())).unwrap();
    let out = t.path().join("labels");
    let r = run(&["traces", "--traces", s(&tr), "--out", s(&out)]);
    r.ok("traces");
    assert_eq!(sessions(&r.out), 3, "{}", r.out);
    assert!(r.err.contains("counted once"), "the duplicate is said:\n{}", r.err);
    for link in ["plain/loop", "copilot_traces/up", "traces/linked.jsonl"] {
        assert!(r.err.contains(link), "the skipped link {link} is named:\n{}", r.err);
    }
    let usage = std::fs::read_to_string(out.join("usage.csv")).unwrap();
    assert_eq!(usage.lines().count(), 4, "{usage}");
    assert_eq!(usage.lines().filter(|l| l.starts_with("reader-cache-n10-seed0,")).count(), 1, "{usage}");
}

/// A random tree: folders (each under an earlier one), files in them, and links in them to a
/// folder (often an ancestor: a loop) or to a file.
#[derive(Clone, Debug)]
struct Tree {
    parents: Vec<usize>,
    files: Vec<usize>,
    links: Vec<(usize, Result<usize, usize>)>,
}

fn tree() -> impl Strategy<Value = Tree> {
    (1usize..6)
        .prop_flat_map(|dirs| {
            let parents = (1..dirs).map(|i| 0..i).collect::<Vec<_>>();
            let files = proptest::collection::vec(0..dirs, 1..6);
            let target = prop_oneof![(0..dirs).prop_map(Ok), (0usize..6).prop_map(Err)];
            let links = proptest::collection::vec((0..dirs, target), 0..7);
            (parents, files, links)
        })
        .prop_map(|(parents, files, links)| Tree { parents, files, links })
}

impl Tree {
    fn dir(&self, root: &Path, i: usize) -> PathBuf {
        if i == 0 {
            root.to_path_buf()
        } else {
            self.dir(root, self.parents[i - 1]).join(format!("d{i}"))
        }
    }

    /// Lay the tree out under `root`, each file holding `contents(k)`.
    fn build(&self, root: &Path, contents: impl Fn(usize) -> String) {
        std::fs::create_dir_all(root).unwrap();
        for i in 1..=self.parents.len() {
            std::fs::create_dir_all(self.dir(root, i)).unwrap();
        }
        for (k, &d) in self.files.iter().enumerate() {
            std::fs::write(self.dir(root, d).join(format!("f{k}.jsonl")), contents(k)).unwrap();
        }
        for (m, (at, target)) in self.links.iter().enumerate() {
            let here = self.dir(root, *at);
            match target {
                Ok(d) => symlink(self.dir(root, *d), here.join(format!("l{m}"))).unwrap(),
                Err(f) => {
                    let k = f % self.files.len();
                    symlink(self.dir(root, self.files[k]).join(format!("f{k}.jsonl")), here.join(format!("l{m}.jsonl")))
                        .unwrap()
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Whatever links a folder holds, `report` and `traces` count each file once.
    #[test]
    fn report_and_traces_count_each_file_once(t in tree()) {
        let tmp = tempfile::tempdir().unwrap();
        let results = tmp.path().join("results");
        t.build(&results, |k| result(&format!("task{k}"), k % 2 == 0));
        let r = run_limited(&["report", "--results", s(&results), "--out", s(&tmp.path().join("page"))], Duration::from_secs(60), None);
        r.ok("report");
        prop_assert_eq!(report_counts(&r.out), (t.files.len(), t.files.len()), "{}", r.err);
        let tr = tmp.path().join("tr");
        t.build(&tr, |k| trace(&format!("session{k}")));
        let r = run_limited(&["traces", "--traces", s(&tr), "--out", s(&tmp.path().join("labels"))], Duration::from_secs(60), None);
        r.ok("traces");
        prop_assert_eq!(sessions(&r.out), t.files.len(), "{}", r.err);
    }
}

/// Every file under a folder with its bytes, by relative path.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.strip_prefix(dir).unwrap().display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn report_writes_its_folder_whole_or_not_at_all() {
    let t = tempfile::tempdir().unwrap();
    let results = t.path().join("results");
    let d = model_dir(&results);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("a.jsonl"), result("t1", true) + &result("t2", false) + &result("t3", true)).unwrap();
    std::fs::write(d.join("b.jsonl"), result("t1", false) + &result("t2", true) + &result("t3", true)).unwrap();
    let out = t.path().join("page");
    let (r, o) = (s(&results), s(&out));
    run(&["report", "--results", r, "--out", o, "--compare", "code/a,code/b"]).ok("report --compare");
    assert!(out.join("tables/compare.csv").is_file() && out.join("tables/flips.csv").is_file());
    // Without --compare the comparison tables of the earlier report are gone.
    run(&["report", "--results", r, "--out", o]).ok("report");
    assert!(out.join("index.html").is_file());
    assert!(!out.join("tables/compare.csv").exists(), "a stale compare.csv is left");
    assert!(!out.join("tables/flips.csv").exists(), "a stale flips.csv is left");
    // A write that fails midway (the page is larger than the files allowed) leaves the earlier
    // report as it was, and nothing beside it.
    let before = snapshot(&out);
    let failed = run_limited(
        &["report", "--results", r, "--out", o, "--compare", "code/a,code/b"],
        Duration::from_secs(120),
        Some(2000),
    );
    assert_ne!(failed.code, Some(0), "{}", failed.out);
    assert!(failed.err.contains("cannot write"), "{}", failed.err);
    assert_eq!(snapshot(&out), before, "the earlier report changed");
    let beside: Vec<String> =
        std::fs::read_dir(t.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    let mut beside = beside;
    beside.sort();
    assert_eq!(beside, ["page", "results"], "a temporary folder was left");
    // A folder holding files of the user's is not replaced.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let refused = run(&["report", "--results", r, "--out", o]);
    assert_eq!(refused.code, Some(2), "{}", refused.err);
    assert!(refused.err.contains("notes.txt"), "{}", refused.err);
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
}

#[test]
fn traces_write_their_folder_whole_or_not_at_all() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("labels");
    let tr = s(&sample_traces()).to_string();
    run(&["traces", "--traces", &tr, "--out", s(&out)]).ok("traces");
    let before = snapshot(&out);
    let failed = run_limited(&["traces", "--traces", &tr, "--out", s(&out)], Duration::from_secs(120), Some(3000));
    assert_ne!(failed.code, Some(0), "{}", failed.out);
    assert_eq!(snapshot(&out), before, "the earlier output changed");
    assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1, "a temporary folder was left");
}

#[test]
fn grid_writes_its_folder_whole_or_not_at_all() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("grid");
    let o = s(&out);
    let small = ["--samples", "1", "--domains", "math", "--axes", "traversal", "--kinds", "add_parameter"];
    run(&[&["grid", "--out", o, "--sizes", "5,10"][..], &small].concat()).ok("grid");
    let before = snapshot(&out);
    // A larger grid whose files outgrow the size allowed fails midway: the earlier grid stays as it
    // was, with nothing of the new one in it and nothing left beside it.
    let failed = run_limited(
        &[&["grid", "--out", o, "--sizes", "5,200"][..], &small].concat(),
        Duration::from_secs(120),
        Some(20_000),
    );
    assert_ne!(failed.code, Some(0), "{}", failed.out);
    assert!(failed.err.contains("cannot write"), "{}", failed.err);
    assert_eq!(snapshot(&out), before, "the earlier grid changed");
    assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 1, "a temporary folder was left");
    // A new grid replaces the old whole: no task file of the earlier sizes is left.
    run(&[&["grid", "--out", o, "--sizes", "25"][..], &small].concat()).ok("grid again");
    let names: Vec<String> = snapshot(&out).into_iter().map(|(n, _)| n).collect();
    assert!(names.iter().all(|n| !n.contains("en=(5,5)") && !n.contains("en=(10,10)")), "{names:?}");
    // Shards add their files to one folder; together they hold what one whole run writes.
    let sharded = t.path().join("sharded");
    for k in 1..=3 {
        let shard = format!("{k}/3");
        run(&[&["grid", "--out", s(&sharded), "--sizes", "5,10,25", "--shard", &shard][..], &small].concat())
            .ok("a shard");
    }
    let whole = t.path().join("whole");
    run(&[&["grid", "--out", s(&whole), "--sizes", "5,10,25"][..], &small].concat()).ok("whole grid");
    let files = |d: &Path| -> Vec<(String, Vec<u8>)> {
        snapshot(d).into_iter().filter(|(n, _)| n.starts_with("tasks/")).collect()
    };
    assert_eq!(files(&sharded), files(&whole), "the shards' task files differ from one run's");
    // A folder holding files of the user's is not replaced.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let refused = run(&[&["grid", "--out", o, "--sizes", "5"][..], &small].concat());
    assert_eq!(refused.code, Some(2), "{}", refused.err);
    assert!(refused.err.contains("notes.txt"), "{}", refused.err);
}

#[test]
fn report_refuses_more_results_than_one_report_reads() {
    let t = tempfile::tempdir().unwrap();
    let page = t.path().join("page");
    // Three sparse files of 900 MB: more bytes than one report reads, refused by their sizes
    // before any is read.
    let results = t.path().join("results");
    let d = model_dir(&results);
    std::fs::create_dir_all(&d).unwrap();
    for m in ["a", "b", "c"] {
        std::fs::File::create(d.join(format!("{m}.jsonl"))).unwrap().set_len(900 << 20).unwrap();
    }
    let r = run(&["report", "--results", s(&results), "--out", s(&page)]);
    assert_eq!(r.code, Some(2), "{}", r.err);
    assert!(r.err.contains("2700 MB, more than the 2048 MB one report reads"), "{}", r.err);
    assert!(r.max_rss_mb < 64.0, "report held {:.0} MB before refusing", r.max_rss_mb);
    // A small gzip file holding more task results than one report keeps: refused, nothing written.
    let packed = t.path().join("packed");
    let d = model_dir(&packed);
    std::fs::create_dir_all(&d).unwrap();
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(d.join("m.jsonl.gz")).unwrap(),
        flate2::Compression::fast(),
    );
    for i in 0..=140_000 {
        std::io::Write::write_all(&mut gz, result(&format!("t{i}"), i % 2 == 0).as_bytes()).unwrap();
    }
    gz.finish().unwrap();
    let r = run(&["report", "--results", s(&packed), "--out", s(&page)]);
    assert_eq!(r.code, Some(2), "{}", r.err);
    assert!(r.err.contains("more than 140000 task results"), "{}", r.err);
    assert!(r.max_rss_mb < 256.0, "report held {:.0} MB", r.max_rss_mb);
    assert!(!page.exists(), "a refused report wrote its folder");
}

#[test]
fn inputs_over_the_cap_are_refused_unread() {
    let t = tempfile::tempdir().unwrap();
    let results = t.path().join("results");
    let d = model_dir(&results);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("a.jsonl"), result("t1", true)).unwrap();
    // A sparse file a little over the 1 GB cap: refused by its size, before any of it is read.
    let big = std::fs::File::create(d.join("big.jsonl")).unwrap();
    big.set_len((1 << 30) + 1).unwrap();
    let r = run(&["report", "--results", s(&results), "--out", s(&t.path().join("page"))]);
    r.ok("report");
    assert!(r.err.contains("big.jsonl") && r.err.contains("not read"), "{}", r.err);
    assert!(r.max_rss_mb < 256.0, "report held {:.0} MB", r.max_rss_mb);
    let tr = t.path().join("tr");
    std::fs::create_dir_all(&tr).unwrap();
    std::fs::write(tr.join("s.jsonl"), trace("s")).unwrap();
    std::fs::File::create(tr.join("big.jsonl")).unwrap().set_len((1 << 30) + 1).unwrap();
    let r = run(&["traces", "--traces", s(&tr), "--out", s(&t.path().join("labels"))]);
    r.ok("traces");
    assert_eq!(sessions(&r.out), 1);
    assert!(r.err.contains("big.jsonl") && r.err.contains("not read"), "{}", r.err);
    assert!(r.max_rss_mb < 256.0, "traces held {:.0} MB", r.max_rss_mb);
}

#[test]
fn a_50_mb_shell_command_is_read_in_bounded_memory() {
    let t = tempfile::tempdir().unwrap();
    let tr = t.path().join("tr");
    std::fs::create_dir_all(&tr).unwrap();
    let command = "cat a.py | grep -n foo && python -c 'x' ; ".repeat(50_000_000 / 40);
    let text = json!({"type": "session", "format": "cabrito-trace/1", "session_id": "big", "model": "m"}).to_string()
        + "\n"
        + &json!({"tool": "bash", "arguments": {"command": command}, "turn": 0}).to_string()
        + "\n";
    std::fs::write(tr.join("big.jsonl"), text).unwrap();
    drop(command);
    let out = t.path().join("labels");
    let r = run(&["traces", "--traces", s(&tr), "--out", s(&out)]);
    r.ok("traces");
    assert_eq!(sessions(&r.out), 1);
    assert!(r.max_rss_mb < 256.0, "traces held {:.0} MB for a 50 MB line", r.max_rss_mb);
    let labels = std::fs::read_to_string(out.join("labels.jsonl")).unwrap();
    let rec: Value = serde_json::from_str(labels.lines().next().unwrap()).unwrap();
    assert_eq!(rec["label"], "search", "{}", &labels[..300.min(labels.len())]);
}

fn files_under(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = snapshot(dir).into_iter().map(|(r, _)| dir.join(r)).collect();
    out.retain(|p| p.to_string_lossy().ends_with(suffix));
    out
}

/// A small grid of four tasks, for `agent` and `grade`.
fn grid(dir: &Path, sizes: &str) {
    run(&[
        "grid",
        "--out",
        s(dir),
        "--sizes",
        sizes,
        "--samples",
        "2",
        "--domains",
        "math",
        "--axes",
        "traversal",
        "--kinds",
        "add_parameter",
    ])
    .ok("grid");
}

#[test]
fn agent_keeps_its_batch_when_one_trace_cannot_be_written() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("grid");
    grid(&g, "5,10");
    let out = t.path().join("run");
    let args = ["agent", "--strategy", "reader", "--tasks", s(&g), "--out", s(&out), "--jobs", "2"];
    run(&args).ok("agent");
    let traces = files_under(&out.join("traces"), ".jsonl");
    assert_eq!(traces.len(), 4);
    // Again, with one trace's path taken by a folder: that trace cannot be written.
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::create_dir_all(&traces[0]).unwrap();
    let r = run(&args);
    assert_ne!(r.code, Some(0), "a lost trace is an error:\n{}", r.err);
    assert!(r.err.contains(&*traces[0].file_name().unwrap().to_string_lossy()), "{}", r.err);
    let records: Vec<Value> = files_under(&out.join("responses"), ".jsonl")
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect::<Vec<Value>>()
        })
        .collect();
    assert_eq!(records.len(), 4, "every answer is kept");
    let lost: Vec<&Value> = records.iter().filter(|r| r["metadata"]["trace_error"].is_string()).collect();
    assert_eq!(lost.len(), 1);
    assert!(lost[0]["metadata"]["trace_path"].is_null());
    for r in records.iter().filter(|r| r["metadata"]["trace_path"].is_string()) {
        assert!(out.join(r["metadata"]["trace_path"].as_str().unwrap()).is_file(), "{r}");
    }
}

#[test]
fn agent_refuses_a_task_record_with_an_invalid_spec() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("grid");
    grid(&g, "5");
    let file = files_under(&g.join("tasks"), ".json").pop().unwrap();
    let mut records: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(records.len(), 2);
    records[0]["spec"] = json!({"kind": "teleport", "domain": "math", "n": 5});
    std::fs::write(&file, serde_json::to_string(&records).unwrap()).unwrap();
    let out = t.path().join("run");
    let r = run(&["agent", "--strategy", "reader", "--tasks", s(&g), "--out", s(&out)]);
    assert_ne!(r.code, Some(0), "{}", r.out);
    assert!(r.err.contains("record 1: its spec is not valid"), "{}", r.err);
    let answered: usize = files_under(&out.join("responses"), ".jsonl")
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap().lines().count())
        .sum();
    assert_eq!(answered, 1, "the valid record is still run");
}

#[test]
fn grade_sorts_n_as_a_number() {
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("grid");
    grid(&g, "5,10,25");
    let resp = t.path().join("resp");
    for file in files_under(&g.join("tasks"), ".json") {
        let rel = file.strip_prefix(g.join("tasks")).unwrap().with_extension("");
        let records: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let d = resp.join("responses").join(rel).join("code");
        std::fs::create_dir_all(&d).unwrap();
        let lines: String = records
            .iter()
            .map(|r| json!({"name": r["name"], "dag_id": r["dag_id"], "output": r["solution_code"]}).to_string() + "\n")
            .collect();
        std::fs::write(d.join("m.jsonl"), lines).unwrap();
    }
    let r =
        run(&["grade", "--tasks", s(&g), "--responses", s(&resp), "--out", s(&t.path().join("g")), "--trials", "1"]);
    r.ok("grade");
    let ns: Vec<&str> = r
        .out
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("graded"))
        .map(|l| l.split_whitespace().nth(4).unwrap())
        .collect();
    assert_eq!(ns, ["5", "10", "25"], "{}", r.out);
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(t.path().join("g/summary.json")).unwrap()).unwrap();
    let ns: Vec<&str> = summary["rows"].as_array().unwrap().iter().map(|r| r["n"].as_str().unwrap()).collect();
    assert_eq!(ns, ["5", "10", "25"]);
}

/// A file with a line longer than the readers' cap, then a good line.
fn over_long(first: &str, last: &str) -> Vec<u8> {
    let cap = cabrito_analysis::results::input::MAX_LINE_BYTES;
    let mut text = first.as_bytes().to_vec();
    text.extend_from_slice(b"{\"name\": \"");
    text.resize(text.len() + cap + 10, b'x');
    text.extend_from_slice(b"\"}\n");
    text.extend_from_slice(last.as_bytes());
    text
}

#[test]
fn a_line_over_the_cap_is_named_and_the_rest_is_read() {
    let t = tempfile::tempdir().unwrap();
    let results = t.path().join("results");
    let d = model_dir(&results);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("a.jsonl"), result("t1", true) + &result("t2", false)).unwrap();
    std::fs::write(d.join("b.jsonl"), over_long(&result("t3", true), &result("t4", true))).unwrap();
    let r = run(&["report", "--results", s(&results), "--out", s(&t.path().join("page"))]);
    r.ok("report");
    // Every record but the long line's: t1, t2 of a.jsonl, t3 and t4 around the long line.
    assert_eq!(report_counts(&r.out).0, 4, "{}\n{}", r.out, r.err);
    assert!(r.err.contains("b.jsonl line 2") && r.err.contains("longer than"), "{}", r.err);
    assert!(r.max_rss_mb < 256.0, "report held {:.0} MB", r.max_rss_mb);

    let tr = t.path().join("tr");
    std::fs::create_dir_all(&tr).unwrap();
    std::fs::write(tr.join("a.jsonl"), trace("a")).unwrap();
    let call = json!({"tool": "view", "arguments": {"path": "x.py"}, "turn": 1}).to_string() + "\n";
    std::fs::write(tr.join("b.jsonl"), over_long(&trace("b"), &call)).unwrap();
    let out = t.path().join("labels");
    let r = run(&["traces", "--traces", s(&tr), "--out", s(&out)]);
    r.ok("traces");
    assert_eq!(sessions(&r.out), 2, "{}\n{}", r.out, r.err);
    assert!(r.err.contains("b.jsonl line 3") && r.err.contains("longer than"), "{}", r.err);
    let labels = std::fs::read_to_string(out.join("labels.jsonl")).unwrap();
    assert_eq!(labels.lines().count(), 3, "{labels}");
    assert!(r.max_rss_mb < 256.0, "traces held {:.0} MB", r.max_rss_mb);
}
