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

use std::fmt;

/// Largest response accepted, in bytes.
pub const MAX_RESPONSE_BYTES: usize = 2 * 1024 * 1024;

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

fn err(line: Option<usize>, message: impl Into<String>) -> ResponseError {
    ResponseError { line, message: message.into() }
}

/// One line of the response with its 1-based number in the original text.
#[derive(Clone, Copy, Debug)]
struct Line<'a> {
    no: usize,
    text: &'a str,
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

fn is_fence(line: &str) -> bool {
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
                format!("expected a `# === solution.py ===` block; found only {}", names.join(", ")),
            ));
        }
    };
    let marker_line = all[block.0].no;
    if blocks.len() > 1 {
        let others: Vec<&str> = blocks.iter().filter(|b| b.0 != block.0).map(|b| b.1).collect();
        notes.push(format!("ignored other file blocks: {}", others.join(", ")));
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

// ------------------------------------------------------------------------------------------------
// Unified diffs
// ------------------------------------------------------------------------------------------------

fn is_hunk_header(line: &str) -> bool {
    line.starts_with("@@")
}

/// Where a unified diff starts: a `--- ` line directly followed by a `+++ ` line and later a hunk, or a
/// hunk header as the first non-blank, non-fence line.
fn find_diff_start(all: &[Line<'_>]) -> Option<usize> {
    for i in 0..all.len() {
        let t = all[i].text;
        if t.starts_with("--- ")
            && all.get(i + 1).is_some_and(|n| n.text.starts_with("+++ "))
            && all[i + 2..].iter().any(|l| is_hunk_header(l.text))
        {
            // Include a preceding `diff --git` line if present (it is skipped later).
            return Some(i);
        }
    }
    let first = all.iter().position(|l| !l.text.trim().is_empty() && !is_fence(l.text))?;
    if is_hunk_header(all[first].text) {
        return Some(first);
    }
    None
}

/// One hunk of a unified diff.
#[derive(Debug)]
struct Hunk<'a> {
    /// Line of the `@@` header in the response.
    header_line: usize,
    /// `(old_start, old_len)` when the header carries line numbers.
    old_range: Option<(usize, usize)>,
    /// Body lines: (kind, text, response line) with kind ' ', '-' or '+'.
    lines: Vec<(char, &'a str, usize)>,
    /// `\ No newline at end of file` after the new side's last line.
    new_no_eol: bool,
}

/// Record a `\ No newline at end of file` marker: it belongs to the body line before it.
fn no_eol(body: &[(char, &str, usize)], old: &mut bool, new: &mut bool) {
    match body.last().map(|b| b.0) {
        Some('-') => *old = true,
        Some('+') => *new = true,
        Some(_) => {
            *old = true;
            *new = true;
        }
        None => {}
    }
}

impl Hunk<'_> {
    fn old_lines(&self) -> Vec<&str> {
        self.lines.iter().filter(|l| l.0 != '+').map(|l| l.1).collect()
    }
    fn new_lines(&self) -> Vec<&str> {
        self.lines.iter().filter(|l| l.0 != '-').map(|l| l.1).collect()
    }
}

/// Parse `@@ -a,b +c,d @@`; `None` when the header has no numbers (`@@ ... @@`, `@@`).
/// `(start, count)` of one side of a hunk header.
type Range = (usize, usize);

fn parse_ranges(header: &str, line: usize) -> Result<Option<(Range, Range)>, ResponseError> {
    let rest = header.trim_start_matches('@').trim_start();
    if !rest.starts_with('-') {
        return Ok(None);
    }
    let inner = rest.split("@@").next().unwrap_or("").trim();
    let mut parts = inner.split_whitespace();
    let (Some(old), Some(new)) = (parts.next(), parts.next()) else {
        return Err(err(Some(line), format!("hunk header `{header}`: expected `@@ -START,COUNT +START,COUNT @@`")));
    };
    let range = |s: &str, sign: char| -> Option<Range> {
        let s = s.strip_prefix(sign)?;
        let mut it = s.splitn(2, ',');
        let start = it.next()?.parse().ok()?;
        let len = match it.next() {
            Some(n) => n.parse().ok()?,
            None => 1,
        };
        Some((start, len))
    };
    match (range(old, '-'), range(new, '+')) {
        (Some(o), Some(n)) => Ok(Some((o, n))),
        _ => Err(err(Some(line), format!("hunk header `{header}`: expected `@@ -START,COUNT +START,COUNT @@`"))),
    }
}

/// Parse the diff's hunks for `solution.py` (other files' sections are skipped with a note).
fn parse_hunks<'a>(lines: &[Line<'a>], notes: &mut Vec<String>) -> Result<(Vec<Hunk<'a>>, bool), ResponseError> {
    let mut hunks = Vec::new();
    let mut new_file = false;
    let mut i = 0;
    let mut skipping: Option<String> = None;
    let mut seen_header = false;
    while i < lines.len() {
        let t = lines[i].text;
        if t.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.text.starts_with("+++ ")) {
            let old = file_of(&t[4..]);
            let new = file_of(&lines[i + 1].text[4..]);
            let name = if new == "/dev/null" { old.clone() } else { new.clone() };
            let base = name.rsplit('/').next().unwrap_or(&name).to_string();
            if seen_header && skipping.is_none() && base == "solution.py" {
                return Err(err(
                    Some(lines[i].no),
                    "a second `--- solution.py` section: expected one section per file",
                ));
            }
            if base == "solution.py" || name.is_empty() {
                skipping = None;
                seen_header = true;
                new_file = old == "/dev/null";
            } else {
                notes.push(format!("ignored the diff section for `{name}` (line {})", lines[i].no));
                skipping = Some(name);
            }
            i += 2;
            continue;
        }
        if t.starts_with("diff ")
            || t.starts_with("index ")
            || t.starts_with("new file mode")
            || t.starts_with("deleted file mode")
        {
            i += 1;
            continue;
        }
        if is_hunk_header(t) {
            let header_line = lines[i].no;
            let ranges = parse_ranges(t, header_line)?;
            i += 1;
            // Counts in the header, when they fit the body; otherwise (models and even diff libraries
            // miscount) the body as far as it goes.
            let counted = ranges.and_then(|((_, ol), (_, nl))| read_counted(lines, i, ol, nl));
            let (body, next, _old_no_eol, new_no_eol) = match counted {
                Some(c) => c,
                None => {
                    let g = read_greedy(lines, i, notes)?;
                    if let Some(((_, ol), (_, nl))) = ranges {
                        let o = g.0.iter().filter(|b| b.0 != '+').count();
                        let n = g.0.iter().filter(|b| b.0 != '-').count();
                        notes.push(format!(
                            "the hunk header at line {header_line} counts {ol} old and {nl} new lines, its body has {o} and {n}; read the body"
                        ));
                    }
                    g
                }
            };
            i = next;
            if skipping.is_none() {
                let old_len = body.iter().filter(|b| b.0 != '+').count();
                // A header that counts no old lines names the line *after which* the hunk goes; when
                // its body has old lines after all (a miscount), they start on the next line.
                let old_range =
                    ranges.map(|((start, ol), _)| (if ol == 0 && old_len > 0 { start + 1 } else { start }, old_len));
                hunks.push(Hunk { header_line, old_range, lines: body, new_no_eol });
            }
            continue;
        }
        if t.trim().is_empty() || is_fence(t) {
            i += 1;
            continue;
        }
        if hunks.is_empty() {
            return Err(err(
                Some(lines[i].no),
                format!("expected a `--- solution.py` header or an `@@` hunk header, found `{}`", shorten(t)),
            ));
        }
        notes.push(format!("ignored text after the diff from line {}", lines[i].no));
        break;
    }
    Ok((hunks, new_file))
}

/// A hunk body: its lines, the index after it, and the two no-newline-at-end flags.
type Body<'a> = (Vec<(char, &'a str, usize)>, usize, bool, bool);

fn ends_body(lines: &[Line<'_>], i: usize) -> bool {
    let t = lines[i].text;
    is_hunk_header(t)
        || (t.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.text.starts_with("+++ ")))
        || t.starts_with("diff ")
        || split_hunk_line(t).0.is_none()
}

/// Read exactly `old_len`/`new_len` lines; `None` when the body does not fit those counts (a line of the
/// wrong kind, an early end, or more hunk lines right after the counted ones).
fn read_counted<'a>(lines: &[Line<'a>], mut i: usize, old_len: usize, new_len: usize) -> Option<Body<'a>> {
    let (mut o, mut n) = (0, 0);
    let mut body = Vec::new();
    let (mut old_no_eol, mut new_no_eol) = (false, false);
    while o < old_len || n < new_len {
        let l = lines.get(i)?;
        if ends_body(lines, i) && !l.text.is_empty() {
            return None;
        }
        let (kind, text) = split_hunk_line(l.text);
        match kind {
            Some(' ') if o < old_len && n < new_len => {
                o += 1;
                n += 1;
            }
            Some('-') if o < old_len => o += 1,
            Some('+') if n < new_len => n += 1,
            Some('\\') => {
                no_eol(&body, &mut old_no_eol, &mut new_no_eol);
                i += 1;
                continue;
            }
            _ => return None,
        }
        body.push((kind.unwrap_or(' '), text, l.no));
        i += 1;
    }
    // The marker for the hunk's last line comes after the counted lines.
    if lines.get(i).is_some_and(|l| l.text.starts_with('\\')) {
        no_eol(&body, &mut old_no_eol, &mut new_no_eol);
        i += 1;
    }
    // More non-blank hunk lines before the next header: the counts are wrong.
    let mut j = i;
    while j < lines.len() && !ends_body(lines, j) {
        if !lines[j].text.trim().is_empty() && !lines[j].text.starts_with('\\') {
            return None;
        }
        j += 1;
    }
    Some((body, i, old_no_eol, new_no_eol))
}

/// Read hunk lines until a header, a `diff` line or a line that is not a hunk line; text after the diff
/// is ignored with a note, unless another hunk follows it.
fn read_greedy<'a>(lines: &[Line<'a>], mut i: usize, notes: &mut Vec<String>) -> Result<Body<'a>, ResponseError> {
    let mut body = Vec::new();
    let (mut old_no_eol, mut new_no_eol) = (false, false);
    while let Some(l) = lines.get(i) {
        if is_hunk_header(l.text)
            || (l.text.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.text.starts_with("+++ ")))
            || l.text.starts_with("diff ")
        {
            break;
        }
        let (kind, text) = split_hunk_line(l.text);
        match kind {
            Some('\\') => no_eol(&body, &mut old_no_eol, &mut new_no_eol),
            Some(k) => body.push((k, text, l.no)),
            None => break,
        }
        i += 1;
    }
    // A closing fence or prose ends the diff; anything after it must be blank or a fence.
    if let Some(l) = lines.get(i) {
        if split_hunk_line(l.text).0.is_none() && !is_hunk_header(l.text) && !l.text.starts_with("diff ") {
            let rest = &lines[i..];
            if let Some(bad) = rest.iter().find(|r| !r.text.trim().is_empty() && !is_fence(r.text)) {
                if rest.iter().any(|r| is_hunk_header(r.text)) {
                    return Err(err(
                        Some(bad.no),
                        format!(
                            "inside the diff: expected a hunk line starting with ' ', '-' or '+', or an `@@` header, found `{}`",
                            shorten(bad.text)
                        ),
                    ));
                }
                notes.push(format!("ignored text after the diff from line {}", bad.no));
            }
            i = lines.len();
        }
    }
    // Trailing blank context lines are usually padding.
    while body.last().is_some_and(|b: &(char, &str, usize)| b.0 == ' ' && b.1.is_empty()) {
        body.pop();
    }
    Ok((body, i, old_no_eol, new_no_eol))
}

/// A hunk body line: its kind and text. An empty line counts as empty context (editors strip the space).
fn split_hunk_line(line: &str) -> (Option<char>, &str) {
    if line.is_empty() {
        return (Some(' '), "");
    }
    let c = line.as_bytes()[0];
    match c {
        b' ' | b'-' | b'+' | b'\\' => (Some(c as char), &line[1..]),
        _ => (None, line),
    }
}

fn file_of(header: &str) -> String {
    // `a/solution.py\t2024-01-01 …` → `solution.py`
    let name = header.split('\t').next().unwrap_or("").trim();
    let name = name.strip_prefix("a/").or_else(|| name.strip_prefix("b/")).unwrap_or(name);
    name.to_string()
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    out
}

/// Does `old` match `starter[at..]`? Exact, or ignoring trailing whitespace when `loose`.
fn matches_at(starter: &[&str], at: usize, old: &[&str], loose: bool) -> bool {
    if at + old.len() > starter.len() {
        return false;
    }
    old.iter().zip(&starter[at..at + old.len()]).all(|(a, b)| if loose { a.trim_end() == b.trim_end() } else { a == b })
}

fn find_all(starter: &[&str], from: usize, old: &[&str], loose: bool) -> Vec<usize> {
    if old.is_empty() || old.len() > starter.len() {
        return Vec::new();
    }
    (from..=starter.len() - old.len()).filter(|&at| matches_at(starter, at, old, loose)).collect()
}

/// Apply the diff in `lines` to the starter.
fn apply_diff(lines: &[Line<'_>], starter: &str, notes: &mut Vec<String>) -> Result<String, ResponseError> {
    let (hunks, new_file) = parse_hunks(lines, notes)?;
    let first = lines.first().map(|l| l.no);
    if hunks.is_empty() {
        return Err(err(first, "the diff has no `@@` hunk for solution.py: expected at least one hunk"));
    }
    if new_file {
        // `--- /dev/null`: the diff carries the whole file.
        let mut out: Vec<&str> = Vec::new();
        for h in &hunks {
            if let Some(l) = h.lines.iter().find(|l| l.0 != '+') {
                return Err(err(Some(l.2), "a diff from /dev/null may only add lines: expected `+`"));
            }
            out.extend(h.new_lines());
        }
        notes.push("the diff creates the file from /dev/null".into());
        let no_eol = hunks.last().is_some_and(|h| h.new_no_eol);
        return Ok(with_lines(&out, !no_eol));
    }
    let trailing_newline = starter.ends_with('\n');
    let starter_lines: Vec<&str> = if starter.is_empty() {
        Vec::new()
    } else {
        starter.strip_suffix('\n').unwrap_or(starter).split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect()
    };
    let mut out: Vec<&str> = Vec::with_capacity(starter_lines.len() + 16);
    let mut pos = 0; // next starter line not yet copied
    let mut loose_used = false;
    for (k, h) in hunks.iter().enumerate() {
        let old = h.old_lines();
        let at = match h.old_range {
            Some((start, len)) => {
                if len != old.len() {
                    return Err(err(
                        Some(h.header_line),
                        format!("hunk header promises {len} old lines, the body has {}", old.len()),
                    ));
                }
                // A pure insertion `-N,0` inserts after line N.
                let stated = if len == 0 { start } else { start.saturating_sub(1) };
                if stated >= pos && matches_at(&starter_lines, stated, &old, false) {
                    stated
                } else if stated >= pos && matches_at(&starter_lines, stated, &old, true) {
                    loose_used = true;
                    stated
                } else if old.is_empty() {
                    return Err(err(
                        Some(h.header_line),
                        format!(
                            "the hunk inserts after line {start}, but the starter has {} lines",
                            starter_lines.len()
                        ),
                    ));
                } else {
                    // Like `patch`: accept the same lines elsewhere if they occur exactly once.
                    let mut found = find_all(&starter_lines, pos, &old, false);
                    if found.is_empty() {
                        found = find_all(&starter_lines, pos, &old, true);
                        loose_used |= !found.is_empty();
                    }
                    match found.as_slice() {
                        [one] => {
                            notes.push(format!(
                                "the hunk at line {} says starter line {start} but its lines are at line {}; applied there",
                                h.header_line,
                                one + 1
                            ));
                            *one
                        }
                        _ => return Err(mismatch(h, &starter_lines, stated, &old)),
                    }
                }
            }
            None => {
                if old.is_empty() {
                    return Err(err(
                        Some(h.header_line),
                        "the hunk has no context or removed lines, so its place in the starter is unknown: expected at least one ' ' or '-' line",
                    ));
                }
                let mut found = find_all(&starter_lines, pos, &old, false);
                if found.is_empty() {
                    found = find_all(&starter_lines, pos, &old, true);
                    loose_used |= !found.is_empty();
                }
                match found.as_slice() {
                    [one] => *one,
                    [] => {
                        let anywhere = find_all(&starter_lines, 0, &old, true);
                        let why = if anywhere.is_empty() {
                            format!("its {} context/removed lines do not occur in the starter", old.len())
                        } else {
                            format!(
                                "its lines occur only before the previous hunk (at starter line {})",
                                anywhere[0] + 1
                            )
                        };
                        return Err(err(Some(h.header_line), format!("cannot place hunk {} : {why}", k + 1)));
                    }
                    many => {
                        let at: Vec<String> = many.iter().take(5).map(|a| (a + 1).to_string()).collect();
                        return Err(err(
                            Some(h.header_line),
                            format!(
                                "hunk {} matches the starter at {} places (lines {}{}): expected context that occurs once; add more context lines",
                                k + 1,
                                many.len(),
                                at.join(", "),
                                if many.len() > 5 { ", …" } else { "" }
                            ),
                        ));
                    }
                }
            }
        };
        if at < pos {
            return Err(err(Some(h.header_line), "this hunk overlaps the previous one: expected hunks in file order"));
        }
        out.extend_from_slice(&starter_lines[pos..at]);
        out.extend(h.new_lines());
        pos = at + old.len();
    }
    // The final newline: the diff decides when its last hunk reaches the end of the starter
    // (`\ No newline at end of file`), otherwise the starter's stays.
    let reaches_end = pos == starter_lines.len();
    let final_newline = match hunks.last() {
        Some(h) if reaches_end => !h.new_no_eol,
        _ => trailing_newline || starter.is_empty(),
    };
    out.extend_from_slice(&starter_lines[pos..]);
    let numbered = hunks.iter().filter(|h| h.old_range.is_some()).count();
    notes.push(format!(
        "applied {} hunk{} ({} with line numbers, {} located by context)",
        hunks.len(),
        if hunks.len() == 1 { "" } else { "s" },
        numbered,
        hunks.len() - numbered
    ));
    if loose_used {
        notes.push("some context matched only after ignoring trailing whitespace".into());
    }
    Ok(with_lines(&out, final_newline))
}

/// Lines joined with `\n`, with a final newline when asked (and there is a line).
fn with_lines(lines: &[&str], final_newline: bool) -> String {
    let mut s = lines.join("\n");
    if final_newline && !lines.is_empty() {
        s.push('\n');
    }
    s
}

fn mismatch(h: &Hunk<'_>, starter: &[&str], at: usize, old: &[&str]) -> ResponseError {
    // Name the first body line that differs from the starter at the stated place.
    let olds: Vec<&(char, &str, usize)> = h.lines.iter().filter(|l| l.0 != '+').collect();
    for (i, l) in olds.iter().enumerate() {
        let want = starter.get(at + i);
        if want.map(|w| w.trim_end()) != Some(l.1.trim_end()) {
            let msg = match want {
                Some(w) => format!(
                    "the hunk at line {} does not match the starter: starter line {} is `{}`, the hunk has `{}`",
                    h.header_line,
                    at + i + 1,
                    shorten(w),
                    shorten(l.1)
                ),
                None => format!(
                    "the hunk at line {} runs past the end of the starter ({} lines)",
                    h.header_line,
                    starter.len()
                ),
            };
            return err(Some(l.2), msg);
        }
    }
    err(Some(h.header_line), format!("the hunk's {} lines do not match the starter", old.len()))
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
    fn crlf() {
        let c = parse_response("# === solution.py ===\r\nx = 1\r\n", "").unwrap();
        assert_eq!(c.code, "x = 1");
    }
}
