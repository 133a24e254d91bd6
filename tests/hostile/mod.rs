//! The hostile corpus: inputs made to break a Python reader, generated here (nothing large is committed)
//! and run through every entry point: `cabrito check` (`hostile_check_cli.rs`), `cabrito grade`
//! (`hostile_grade.rs`), the worker (`hostile_worker.rs`), the browser checker (`wasm_hostile.rs`), and
//! CPython 3.11 itself for the `compilation` item (`hostile_cpython.rs`).
//!
//! Python entries are files (`python: true`); the others are responses (diffs, file blocks). Each entry
//! says whether CPython 3.11.7 compiles it (`compiles`), checked against CPython by `hostile_cpython.rs`.
#![allow(dead_code)]

/// One corpus entry.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub bytes: Vec<u8>,
    /// A Python file (else a response in another format).
    pub python: bool,
    /// Does `compile()` of CPython 3.11.7 accept it (Python files only)?
    pub compiles: bool,
}

/// CPython 3.11's verdict on a file: `(compiles, line, error)`.
pub type CpythonVerdict = (bool, Option<u64>, String);

/// CPython's verdicts on files, in order: one fresh `python3` per file (`tests/support/compile_all.py`),
/// a few at a time. Native only.
#[cfg(not(target_arch = "wasm32"))]
pub fn cpython(paths: &[std::path::PathBuf]) -> Vec<CpythonVerdict> {
    let version = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.version_info[:2])"])
        .output()
        .expect("python3 runs");
    assert_eq!(String::from_utf8_lossy(&version.stdout).trim(), "(3, 11)", "CPython 3.11 is the reference");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/compile_all.py");
    let one = |p: &std::path::PathBuf| -> CpythonVerdict {
        let out = std::process::Command::new("python3").arg(script).arg(p).output().expect("python3 runs");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}: {}", p.display(), String::from_utf8_lossy(&out.stderr)));
        (v["ok"].as_bool().unwrap_or(false), v["line"].as_u64(), v["error"].as_str().unwrap_or("").to_string())
    };
    let chunk = paths.len().div_ceil(4).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> =
            paths.chunks(chunk).map(|c| s.spawn(move || c.iter().map(one).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("a CPython thread")).collect()
    })
}

impl Case {
    /// The text a browser would hand the checker (a page decodes undecodable bytes as U+FFFD).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

fn py(name: &str, src: impl Into<Vec<u8>>, compiles: bool) -> Case {
    Case { name: name.to_string(), bytes: src.into(), python: true, compiles }
}

fn response(name: &str, src: impl Into<Vec<u8>>) -> Case {
    Case { name: name.to_string(), bytes: src.into(), python: false, compiles: false }
}

fn assign(expr: String) -> String {
    format!("x = {expr}\n")
}

/// `head`, nested `n` times around `inner`, closed by `tail`.
fn nest(head: &str, inner: &str, tail: &str, n: usize) -> String {
    format!("{}{inner}{}", head.repeat(n), tail.repeat(n))
}

/// `n` compound statements inside one another, one indentation step each.
fn blocks(head: &str, n: usize, step: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&" ".repeat(i * step));
        s.push_str(head);
        s.push('\n');
    }
    s.push_str(&" ".repeat(n * step));
    s.push_str("pass\n");
    s
}

/// `n` nested `try:` blocks each closed by `finally:`.
fn tries(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!("{}try:\n", " ".repeat(i)));
    }
    s.push_str(&format!("{}pass\n", " ".repeat(n)));
    for i in (0..n).rev() {
        s.push_str(&format!("{0}finally:\n{0} pass\n", " ".repeat(i)));
    }
    s
}

/// An f-string nested `n` times (3.11 allows a new quote kind at each level).
fn fstrings(n: usize, inner: &str) -> String {
    let quotes = ["'", "\"", "'''", "\"\"\""];
    let mut s = inner.to_string();
    for i in 0..n {
        let q = quotes[i % 4];
        s = format!("f{q}{{{s}}}{q}");
    }
    s
}

/// The whole corpus: every construct nested far past CPython's limits, the limits themselves, and the
/// byte-level traps. About 10 MB in all, built in a few milliseconds.
pub fn corpus() -> Vec<Case> {
    let mut c = vec![
        // Deep nesting of every construct, far past the limits.
        py("unary_minus_200k", assign(format!("{}1", "-".repeat(200_000))), false),
        py("unary_not_50k", assign(format!("{}1", "not ".repeat(50_000))), false),
        py("unary_invert_100k", assign(format!("{}1", "~".repeat(100_000))), false),
        py("parentheses_100k", assign(nest("(", "1", ")", 100_000)), false),
        py("lists_100k", assign(nest("[", "1", "]", 100_000)), false),
        py("dicts_50k", assign(nest("{1: ", "1", "}", 50_000)), false),
        py("sets_100k", assign(nest("{", "1", "}", 100_000)), false),
        py("tuples_50k", assign(nest("(1, ", "1", ")", 50_000)), false),
        py("calls_100k", assign(nest("f(", "1", ")", 100_000)), false),
        py("subscripts_nested_100k", assign(nest("a[", "0", "]", 100_000)), false),
        py("subscript_chain_100k", assign(format!("a{}", "[0]".repeat(100_000))), false),
        py("call_chain_100k", assign(format!("f{}", "()".repeat(100_000))), false),
        py("attribute_chain_100k", assign(format!("a{}", ".b".repeat(100_000))), false),
        py("lambdas_30k", assign(format!("{}1", "lambda: ".repeat(30_000))), false),
        py("lambda_defaults_20k", assign(format!("{}0{}", "lambda a=".repeat(20_000), ": 0".repeat(20_000))), false),
        py("conditionals_20k", assign(format!("{}1", "1 if c else ".repeat(20_000))), false),
        py("sum_chain_100k", assign(format!("1{}", " + 1".repeat(100_000))), false),
        py("power_chain_50k", assign(format!("2{}", " ** 2".repeat(50_000))), false),
        py("boolean_chain_100k", assign(format!("a{}", " and a".repeat(100_000))), true),
        py("boolean_mix_50k", assign(format!("a{}", " and a or a".repeat(50_000))), true),
        py("comparisons_100k", assign(format!("1{}", " < 1".repeat(100_000))), true),
        py("mixed_precedence_60k", assign(format!("1{}", " * 1 + 1".repeat(30_000))), false),
        py("nested_def_150", blocks("def f():", 150, 1), false),
        py("nested_class_150", blocks("class A:", 150, 1), false),
        py("nested_if_150", blocks("if x:", 150, 1), false),
        py("nested_with_30", blocks("with x:", 30, 1), false),
        py("nested_for_30", blocks("for x in y:", 30, 1), false),
        py("nested_try_30", tries(30), false),
        py("elif_chain_5000", format!("if a:\n    pass\n{}", "elif a:\n    pass\n".repeat(5_000)), false),
        py("fstrings_nested_4", assign(fstrings(4, "x")), true),
        py("fstring_deep_parentheses", assign(format!("f'{{{}}}'", nest("(", "1", ")", 300))), false),
        py("fstring_deep_minus", assign(format!("f'{{{}1}}'", "-".repeat(5_000))), false),
        // CPython's limits, exactly: the last accepted and the first refused.
        py("minus_2992", assign(format!("{}1", "-".repeat(2_992))), true),
        py("minus_2993", assign(format!("{}1", "-".repeat(2_993))), false),
        py("parentheses_200", assign(nest("(", "1", ")", 200)), true),
        py("parentheses_201", assign(nest("(", "1", ")", 201)), false),
        py("tuples_199", assign(nest("(1, ", "1", ")", 199)), true),
        py("tuples_200", assign(nest("(1, ", "1", ")", 200)), false),
        py("lambdas_2983", assign(format!("{}1", "lambda: ".repeat(2_983))), true),
        py("lambdas_2984", assign(format!("{}1", "lambda: ".repeat(2_984))), false),
        py("indentation_99", blocks("if x:", 99, 1), true),
        py("indentation_100", blocks("if x:", 100, 1), false),
        py("with_20", blocks("with x:", 20, 1), true),
        py("with_21", blocks("with x:", 21, 1), false),
        py("elif_chain_2990", format!("if a:\n    pass\n{}", "elif a:\n    pass\n".repeat(2_990)), true),
        py("elif_chain_2993", format!("if a:\n    pass\n{}", "elif a:\n    pass\n".repeat(2_993)), false),
        // Size.
        py("long_line_1mb", assign(format!("[{}]", "1, ".repeat(330_000))), true),
        py("huge_int_2m_digits", assign("1".repeat(2_000_000)), false),
        py("int_4300_digits", assign("7".repeat(4_300)), true),
        py("int_4301_digits", format!("a = 1\n{}", assign("7".repeat(4_301))), false),
        py("hex_1m_digits", assign(format!("0x{}", "f".repeat(1_000_000))), true),
        py("huge_string_1_5mb", assign(format!("'{}'", "a".repeat(1_500_000))), true),
        py(
            "functions_30k",
            (0..30_000).map(|i| format!("def f{i}(val: float) -> float:\n    return val\n\n")).collect::<String>(),
            true,
        ),
        // Bytes.
        py("nul_byte", "x = 1\ny = 2\0\n", false),
        py("invalid_utf8_in_code", b"x = 1\ny = '\xff'\n".to_vec(), false),
        py("invalid_utf8_in_comment", b"x = 1  # caf\xe9\n".to_vec(), true),
        py("bom", b"\xef\xbb\xbfdef f(val: float) -> float:\n    return val\n".to_vec(), true),
        py("bom_twice", b"\xef\xbb\xbf\xef\xbb\xbfx = 1\n".to_vec(), false),
        py("crlf", "def f(val: float) -> float:\r\n    return val\r\n", true),
        py("lone_cr", "def f(val: float) -> float:\r    return val\r", true),
        py("lone_cr_error_line_3", "x = 1\ry = 2\rz = (\n", false),
        py("tabs_mixed_with_spaces", "if x:\n    \ty = 1\n\tz = 2\n", false),
        py("unindent_mismatch", "if x:\n        y = 1\n    z = 2\n", false),
    ];
    // Responses.
    let hunk =
        |header: &str| format!("--- a/solution.py\n+++ b/solution.py\n{header}\n-    return val\n+    return 0\n");
    c.push(response("diff_hunk_past_the_end", hunk("@@ -100000,1 +100000,1 @@")));
    c.push(response("diff_hunk_at_u64_max", hunk("@@ -18446744073709551615,0 +1,1 @@")));
    c.push(response("diff_hunk_number_overflows", hunk("@@ -99999999999999999999999,1 +1,1 @@")));
    c.push(response(
        "diff_10k_hunks",
        format!(
            "--- a/solution.py\n+++ b/solution.py\n{}",
            "@@ -1,1 +1,1 @@\n-from mylibrary import default\n+import os\n".repeat(10_000)
        ),
    ));
    c.push(response("file_block_10k_markers", "# === solution.py ===\nx = 1\n".repeat(10_000)));
    c.push(response("file_block_10k_other_markers", "# === other.py ===\nx = 1\n".repeat(10_000)));
    c.push(response("fenced_10k_fences", "```python\nx = 1\n```\n".repeat(10_000)));
    c
}
