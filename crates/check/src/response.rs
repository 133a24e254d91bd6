//! Reading a model's response into one candidate `solution.py` (decision D9).
//!
//! Three formats are accepted:
//!
//! * the reference's file-block format: `# === solution.py ===` marker lines (grading.md §4.7), optionally
//!   inside a `<solution>…</solution>` wrapper, with one leading and one trailing code fence per file removed
//!   (grading.md §7.1);
//! * a bare Python file, possibly inside one ```` ``` ```` fence;
//! * a unified diff against the starter (`---`/`+++` headers, `@@ … @@` hunks with or without line numbers).
//!
//! Every error names the line of the response it is about (1-based) and what was expected there.

use super::diff::{apply_diff, find_diff_start};
use std::fmt;

/// Largest response accepted, in bytes.
pub const MAX_RESPONSE_BYTES: usize = super::source::MAX_SOURCE_BYTES;

/// The format a response was read in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `# === solution.py ===` file blocks (the reference's format).
    FileBlock,
    /// A bare Python file (possibly fenced).
    Bare,
    /// A unified diff against the starter (bare or inside a file block).
    Diff,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::FileBlock => "file-block",
            Format::Bare => "bare",
            Format::Diff => "diff",
        }
    }
}

/// The candidate program read from a response.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Candidate {
    /// The full text of the candidate `solution.py`.
    pub code: String,
    pub format: Format,
    /// What the reader did on the way (wrapper removed, fence stripped, hunks applied, …).
    pub notes: Vec<String>,
}

/// Why a response could not be read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ResponseError {
    /// 1-based line of the response the problem is on, when there is one.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ResponseError {}

pub(super) fn err(line: Option<usize>, message: impl Into<String>) -> ResponseError {
    ResponseError { line, message: message.into() }
}

/// One line of the response with its 1-based number in the original text.
#[derive(Clone, Copy, Debug)]
pub(super) struct Line<'a> {
    pub(super) no: usize,
    pub(super) text: &'a str,
}

/// Split into lines (on `\n`, dropping one trailing `\r`), numbering from `first`.
fn lines_of(text: &str, first: usize) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    if text.is_empty() {
        return out;
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    for (i, l) in body.split('\n').enumerate() {
        out.push(Line { no: first + i, text: l.strip_suffix('\r').unwrap_or(l) });
    }
    out
}

fn join(lines: &[Line<'_>]) -> String {
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str(l.text);
    }
    s
}

/// Read a response into a candidate `solution.py`. `starter` is the task's starter code (needed for diffs).
pub fn parse_response(text: &str, starter: &str) -> Result<Candidate, ResponseError> {
    if text.len() > MAX_RESPONSE_BYTES {
        return Err(err(
            None,
            format!("the response is {} bytes; at most {} bytes (2 MB) are accepted", text.len(), MAX_RESPONSE_BYTES),
        ));
    }
    if let Some(pos) = text.find('\0') {
        let line = text[..pos].matches('\n').count() + 1;
        return Err(err(
            Some(line),
            "the response contains a NUL byte: expected text (Python source or a diff), not binary data",
        ));
    }
    if text.trim().is_empty() {
        return Err(err(
            None,
            "the response is empty: expected a `# === solution.py ===` block, a Python file or a unified diff",
        ));
    }
    let mut notes = Vec::new();
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => {
            notes.push("removed a byte-order mark".to_string());
            rest
        }
        None => text,
    };

    // The `<solution>` wrapper (grading.md §7.1): the first span, up to `</solution>` or the end.
    let (body, first_line) = match text.find("<solution>") {
        Some(open) => {
            let start = open + "<solution>".len();
            let end = text[start..].find("</solution>").map(|e| start + e).unwrap_or(text.len());
            let first = text[..start].matches('\n').count() + 1;
            let last = text[..end].matches('\n').count() + 1;
            notes.push(format!("read the <solution> block (lines {first}–{last})"));
            (&text[start..end], first)
        }
        None => (text, 1),
    };
    let all = lines_of(body, first_line);
    if all.iter().all(|l| l.text.trim().is_empty()) {
        return Err(err(Some(first_line), "the <solution> block is empty: expected the solution inside it"));
    }

    // File blocks.
    let markers: Vec<(usize, String)> =
        all.iter().enumerate().filter_map(|(i, l)| marker_name(l.text).map(|n| (i, n))).collect();
    if !markers.is_empty() {
        return read_file_blocks(&all, &markers, starter, notes);
    }

    // A unified diff?
    if let Some(start) = find_diff_start(&all) {
        let code = apply_diff(&all[start..], starter, &mut notes)?;
        return Ok(Candidate { code, format: Format::Diff, notes });
    }

    // A bare Python file, possibly fenced.
    let code = unfence_bare(&all, &mut notes)?;
    Ok(Candidate { code, format: Format::Bare, notes })
}

/// The file name of a marker line `# === NAME ===` (grading.md §4.7), if the line is one.
fn marker_name(line: &str) -> Option<String> {
    let s = line.trim_start();
    let s = s.strip_prefix('#')?.trim_start();
    let s = s.strip_prefix("===")?;
    if !s.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let s = s.trim_end();
    let s = s.strip_suffix("===")?;
    if !s.ends_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let name = s.trim();
    if name.is_empty() {
        return None;
    }
    Some(name.to_string())
}

pub(super) fn is_fence(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("```") && !t[3..].contains('`')
}

fn read_file_blocks(
    all: &[Line<'_>],
    markers: &[(usize, String)],
    starter: &str,
    mut notes: Vec<String>,
) -> Result<Candidate, ResponseError> {
    // Each block: (marker index in `all`, name, content lines).
    let mut blocks: Vec<(usize, &str, &[Line<'_>])> = Vec::new();
    for (k, (i, name)) in markers.iter().enumerate() {
        let end = markers.get(k + 1).map(|m| m.0).unwrap_or(all.len());
        blocks.push((*i, name.as_str(), &all[i + 1..end]));
    }
    let chosen: Vec<&(usize, &str, &[Line<'_>])> = blocks.iter().filter(|b| b.1 == "solution.py").collect();
    let block = if let Some(b) = chosen.last() {
        if chosen.len() > 1 {
            notes.push(format!(
                "{} `solution.py` blocks; used the last one (line {}), as the reference does",
                chosen.len(),
                all[b.0].no
            ));
        }
        *b
    } else {
        // H15: a model may copy the format example's "solution.py (any file name)" literally.
        let near: Vec<&(usize, &str, &[Line<'_>])> = blocks.iter().filter(|b| b.1.starts_with("solution.py")).collect();
        if near.len() == 1 {
            notes.push(format!(
                "the block on line {} is named `{}`; read it as solution.py",
                all[near[0].0].no, near[0].1
            ));
            near[0]
        } else {
            let names: Vec<String> = blocks.iter().map(|b| format!("`{}` (line {})", b.1, all[b.0].no)).collect();
            return Err(err(
                Some(all[blocks[0].0].no),
                format!("expected a `# === solution.py ===` block; found only {}", some(&names)),
            ));
        }
    };
    let marker_line = all[block.0].no;
    if blocks.len() > 1 {
        let others: Vec<&str> = blocks.iter().filter(|b| b.0 != block.0).map(|b| b.1).collect();
        notes.push(format!("ignored other file blocks: {}", some(&others)));
    }
    notes.push(format!("read the `# === {} ===` block at line {marker_line}", block.1));
    // Strip leading/trailing blank lines (the reference strips newlines), then one fence at each end.
    let mut content = block.2;
    while content.first().is_some_and(|l| l.text.is_empty()) {
        content = &content[1..];
    }
    while content.last().is_some_and(|l| l.text.is_empty()) {
        content = &content[..content.len() - 1];
    }
    if content.first().is_some_and(|l| is_fence(l.text)) {
        notes.push(format!("removed the opening code fence on line {}", content[0].no));
        content = &content[1..];
    }
    if content.last().is_some_and(|l| l.text.trim() == "```") {
        notes.push(format!("removed the closing code fence on line {}", content[content.len() - 1].no));
        content = &content[..content.len() - 1];
    }
    if content.iter().all(|l| l.text.trim().is_empty()) {
        return Err(err(
            Some(marker_line),
            format!(
                "the `# === {} ===` marker is followed by no code: expected the whole modified file after it",
                block.1
            ),
        ));
    }
    if let Some(start) = find_diff_start(content) {
        if content[..start].iter().all(|l| l.text.trim().is_empty()) {
            notes.push("the block holds a unified diff; applied it to the starter".into());
            let code = apply_diff(&content[start..], starter, &mut notes)?;
            return Ok(Candidate { code, format: Format::Diff, notes });
        }
    }
    Ok(Candidate { code: join(content), format: Format::FileBlock, notes })
}

/// The first few items of a list, and how many more (a response may hold thousands of blocks).
fn some<S: AsRef<str>>(items: &[S]) -> String {
    const SHOWN: usize = 5;
    let mut s: Vec<&str> = items.iter().take(SHOWN).map(|i| i.as_ref()).collect();
    let more = if items.len() > SHOWN { format!(" and {} more", items.len() - SHOWN) } else { String::new() };
    if s.is_empty() {
        s.push("nothing");
    }
    format!("{}{more}", s.join(", "))
}

/// A bare response: the whole text, or the contents of its code fence.
fn unfence_bare(all: &[Line<'_>], notes: &mut Vec<String>) -> Result<String, ResponseError> {
    // Collect fenced blocks: (opening index, closing index or None, tag).
    let mut fences: Vec<(usize, Option<usize>, String)> = Vec::new();
    let mut i = 0;
    while i < all.len() {
        if is_fence(all[i].text) {
            let tag = all[i].text.trim()[3..].trim().to_ascii_lowercase();
            let close = (i + 1..all.len()).find(|&j| all[j].text.trim() == "```");
            fences.push((i, close, tag));
            i = close.map(|c| c + 1).unwrap_or(all.len());
        } else {
            i += 1;
        }
    }
    if fences.is_empty() {
        let mut s = join(all);
        if !s.ends_with('\n') {
            s.push('\n');
        }
        return Ok(s);
    }
    let size = |f: &(usize, Option<usize>, String)| f.1.unwrap_or(all.len()) - f.0;
    let python: Vec<&(usize, Option<usize>, String)> =
        fences.iter().filter(|f| f.2 == "python" || f.2 == "py" || f.2 == "python3").collect();
    let pool: Vec<&(usize, Option<usize>, String)> = if python.is_empty() { fences.iter().collect() } else { python };
    let Some(pick) = pool.iter().copied().max_by_key(|f| (size(f), std::cmp::Reverse(f.0))) else {
        return Err(err(None, "no code block found"));
    };
    let (open, close, _) = pick;
    let end = close.unwrap_or(all.len());
    match close {
        Some(c) => notes.push(format!("read the code fence on lines {}–{}", all[*open].no, all[*c].no)),
        None => notes.push(format!("read the code fence opened on line {} (never closed)", all[*open].no)),
    }
    if fences.len() > 1 {
        notes.push(format!("the response has {} code fences; used the largest Python one", fences.len()));
    }
    let content = &all[open + 1..end];
    if content.iter().all(|l| l.text.trim().is_empty()) {
        return Err(err(Some(all[*open].no), "the code fence is empty: expected the solution's Python code inside it"));
    }
    let mut s = join(content);
    s.push('\n');
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STARTER: &str = "import math\n\ndef f(val: float) -> float:\n    return abs(val)\n\ndef g(val: float) -> float:\n    return abs(val)\n\ndef main(val: float):\n    return (f(val), g(val))\n";

    #[test]
    fn file_block_plain() {
        let c = parse_response("# === solution.py ===\nx = 1\n", "").unwrap();
        assert_eq!(c.code, "x = 1");
        assert_eq!(c.format, Format::FileBlock);
    }

    #[test]
    fn file_block_wrapped_fenced() {
        let r = "<thought>hi</thought>\n<solution>\n# === solution.py ===\n```python\nx = 1\ny = 2\n```\n</solution>\ntrailing";
        let c = parse_response(r, "").unwrap();
        assert_eq!(c.code, "x = 1\ny = 2");
    }

    #[test]
    fn solution_without_closing_tag() {
        let r = "<solution>\n# === solution.py ===\nx = 1\n";
        assert_eq!(parse_response(r, "").unwrap().code, "x = 1");
    }

    #[test]
    fn empty_marker_is_error_with_line() {
        let e = parse_response("intro\n# === solution.py ===\n\n", "").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("no code"), "{e}");
        let e = parse_response("# === solution.py ===\n```python\n```\n# === other.py ===\nx=1", "").unwrap_err();
        assert_eq!(e.line, Some(1));
    }

    #[test]
    fn other_file_only_is_error() {
        let e = parse_response("# === main.py ===\nx = 1\n", "").unwrap_err();
        assert!(e.message.contains("solution.py") && e.message.contains("main.py"), "{e}");
        assert_eq!(e.line, Some(1));
    }

    #[test]
    fn any_file_name_quirk_accepted() {
        let c = parse_response("# === solution.py (any file name) ===\nx = 1\n", "").unwrap();
        assert_eq!(c.code, "x = 1");
    }

    #[test]
    fn marker_syntax() {
        assert_eq!(marker_name("  #  ===  solution.py  ===  ").as_deref(), Some("solution.py"));
        assert_eq!(marker_name("#===solution.py==="), None);
        assert_eq!(marker_name("# === ==="), None);
        assert_eq!(marker_name("x = 1 # === a ==="), None);
    }

    #[test]
    fn bare_and_fenced() {
        let c = parse_response("x = 1\n", "").unwrap();
        assert_eq!((c.code.as_str(), c.format), ("x = 1\n", Format::Bare));
        let c = parse_response("Here:\n```python\nx = 1\n```\nDone.", "").unwrap();
        assert_eq!(c.code, "x = 1\n");
        let c = parse_response("```\nx = 1\n", "").unwrap();
        assert_eq!(c.code, "x = 1\n");
        let e = parse_response("Here:\n```python\n\n```\n", "").unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn rejects_empty_nul_huge() {
        assert!(parse_response("  \n\n", "").unwrap_err().message.contains("empty"));
        let e = parse_response("a\nb\x00c", "").unwrap_err();
        assert_eq!(e.line, Some(2));
        let big = "x".repeat(MAX_RESPONSE_BYTES + 1);
        assert!(parse_response(&big, "").unwrap_err().message.contains("2 MB"));
        assert!(parse_response("<solution></solution>", "").is_err());
    }

    #[test]
    fn diff_without_numbers() {
        let d = "--- solution.py\n+++ solution.py\n@@ ... @@\n def g(val: float) -> float:\n-    return abs(val)\n+    return -abs(val)\n";
        let c = parse_response(d, STARTER).unwrap();
        assert_eq!(c.format, Format::Diff);
        assert_eq!(
            c.code,
            STARTER.replace(
                "def g(val: float) -> float:\n    return abs(val)",
                "def g(val: float) -> float:\n    return -abs(val)"
            )
        );
    }

    #[test]
    fn diff_ambiguous_without_numbers() {
        let d = "--- solution.py\n+++ solution.py\n@@ ... @@\n-    return abs(val)\n+    return 1\n";
        let e = parse_response(d, STARTER).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("2 places"), "{e}");
    }

    #[test]
    fn diff_with_numbers() {
        let d = "--- a/solution.py\n+++ b/solution.py\n@@ -6,2 +6,2 @@\n def g(val: float) -> float:\n-    return abs(val)\n+    return 2.0\n";
        let c = parse_response(d, STARTER).unwrap();
        assert!(c.code.contains("def g(val: float) -> float:\n    return 2.0\n"));
        assert!(c.code.contains("def f(val: float) -> float:\n    return abs(val)\n"));
        // Wrong context at the stated position: named line.
        let d = "--- a/solution.py\n+++ b/solution.py\n@@ -6,2 +6,2 @@\n def h(val: float) -> float:\n-    return abs(val)\n+    return 2.0\n";
        let e = parse_response(d, STARTER).unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        // Miscounted header: the body is read as far as it goes, and the miscount noted.
        let d = "--- a/solution.py\n+++ b/solution.py\n@@ -6,3 +6,2 @@\n def g(val: float) -> float:\n-    return abs(val)\n+    return 2.0\n";
        let c = parse_response(d, STARTER).unwrap();
        assert!(c.code.contains("def g(val: float) -> float:\n    return 2.0\n"));
        assert!(
            c.notes.iter().any(|n| n.contains("counts 3 old and 2 new lines, its body has 2 and 2")),
            "{:?}",
            c.notes
        );
    }

    #[test]
    fn no_newline_at_end_of_file() {
        let d = "--- a/solution.py\n+++ b/solution.py\n@@ -10 +10 @@\n-    return (f(val), g(val))\n+    return (g(val), f(val))\n\\ No newline at end of file\n";
        let c = parse_response(d, STARTER).unwrap();
        assert!(c.code.ends_with("    return (g(val), f(val))"), "{:?}", c.code);
        let d = "--- a/solution.py\n+++ b/solution.py\n@@ -1 +1 @@\n-import math\n+import math as m\n";
        assert!(parse_response(d, STARTER).unwrap().code.ends_with('\n'));
    }

    #[test]
    fn diff_insertion_and_eof() {
        let d = "--- a/solution.py\n+++ b/solution.py\n@@ -10,0 +11,1 @@\n+# end\n";
        let c = parse_response(d, STARTER).unwrap();
        assert_eq!(c.code, format!("{STARTER}# end\n"));
        let d = "@@ -0,0 +1,1 @@\n+# top\n";
        assert_eq!(parse_response(d, STARTER).unwrap().code, format!("# top\n{STARTER}"));
    }

    #[test]
    fn diff_in_file_block_and_fence() {
        let d = "<solution>\n# === solution.py ===\n```diff\n--- solution.py\n+++ solution.py\n@@ @@\n def f(val: float) -> float:\n-    return abs(val)\n+    return 3.0\n```\n</solution>";
        let c = parse_response(d, STARTER).unwrap();
        assert_eq!(c.format, Format::Diff);
        assert!(c.code.contains("def f(val: float) -> float:\n    return 3.0\n"));
    }

    #[test]
    fn diff_pure_insert_without_context_is_error() {
        let d = "--- solution.py\n+++ solution.py\n@@ @@\n+x = 1\n";
        let e = parse_response(d, STARTER).unwrap_err();
        assert_eq!(e.line, Some(3));
    }

    #[test]
    fn format_names() {
        for f in [Format::FileBlock, Format::Bare, Format::Diff] {
            assert_eq!(serde_json::to_value(f).unwrap(), f.as_str());
        }
    }

    #[test]
    fn bom() {
        let c = parse_response("\u{feff}# === solution.py ===\nx = 1\n", "").unwrap();
        assert_eq!(c.code, "x = 1");
    }

    #[test]
    fn hunks_pointing_outside_the_file() {
        for header in
            ["@@ -1000,3 +1000,3 @@", "@@ -18446744073709551615,1 +1,1 @@", "@@ -18446744073709551615,0 +1,1 @@"]
        {
            let d = format!("--- a/solution.py\n+++ b/solution.py\n{header}\n-    return abs(val)\n+    return 1.0\n");
            let e = parse_response(&d, STARTER).unwrap_err();
            assert!(e.line.is_some(), "{header}: {e}");
        }
        let d = "--- a/solution.py\n+++ b/solution.py\n@@ -99999999999999999999999,1 +1 @@\n-x\n+y\n";
        assert!(parse_response(d, STARTER).unwrap_err().message.contains("expected `@@ -START,COUNT"));
    }

    #[test]
    fn thousands_of_blocks_give_short_messages() {
        let e = parse_response(&"# === other.py ===\nx = 1\n".repeat(10_000), "").unwrap_err();
        assert!(e.message.len() < 200 && e.message.contains("and 9995 more"), "{}", e.message);
        let c = parse_response(&"# === a.py ===\nx = 1\n# === solution.py ===\ny = 2\n".repeat(5_000), "").unwrap();
        assert!(c.notes.iter().all(|n| n.len() < 200), "{:?}", c.notes);
    }

    #[test]
    fn crlf() {
        let c = parse_response("# === solution.py ===\r\nx = 1\r\n", "").unwrap();
        assert_eq!(c.code, "x = 1");
    }
}
