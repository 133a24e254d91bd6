//! Unified diffs against the starter (decision D9): finding where a diff starts in a response, reading
//! its hunks (with or without line numbers, with miscounted headers), and applying them to the starter
//! like `patch` would, or saying exactly which hunk line does not fit and why.
//!
//! Numbers in hunk headers are input: a hunk pointing past the end of the file (or at line
//! 18446744073709551615) is an error naming the hunk, never an overflow.

use super::response::{err, is_fence, Line, ResponseError};

fn is_hunk_header(line: &str) -> bool {
    line.starts_with("@@")
}

/// Where a unified diff starts: a `--- ` line directly followed by a `+++ ` line and later a hunk, or a
/// hunk header as the first non-blank, non-fence line.
pub(super) fn find_diff_start(all: &[Line<'_>]) -> Option<usize> {
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

/// `(start, count)` of one side of a hunk header.
type Range = (usize, usize);

/// Parse `@@ -a,b +c,d @@`; `None` when the header has no numbers (`@@ ... @@`, `@@`).
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
                let old_range = ranges.map(|((start, ol), _)| {
                    (if ol == 0 && old_len > 0 { start.saturating_add(1) } else { start }, old_len)
                });
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
    let Some(end) = at.checked_add(old.len()).filter(|&e| e <= starter.len()) else { return false };
    old.iter().zip(&starter[at..end]).all(|(a, b)| if loose { a.trim_end() == b.trim_end() } else { a == b })
}

fn find_all(starter: &[&str], from: usize, old: &[&str], loose: bool) -> Vec<usize> {
    if old.is_empty() || old.len() > starter.len() {
        return Vec::new();
    }
    (from..=starter.len() - old.len()).filter(|&at| matches_at(starter, at, old, loose)).collect()
}

/// Apply the diff in `lines` to the starter.
pub(super) fn apply_diff(lines: &[Line<'_>], starter: &str, notes: &mut Vec<String>) -> Result<String, ResponseError> {
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
        let want = at.checked_add(i).and_then(|k| starter.get(k));
        if want.map(|w| w.trim_end()) != Some(l.1.trim_end()) {
            let msg = match want {
                Some(w) => format!(
                    "the hunk at line {} does not match the starter: starter line {} is `{}`, the hunk has `{}`",
                    h.header_line,
                    at.saturating_add(i + 1),
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
