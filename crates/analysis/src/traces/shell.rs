//! A forgiving reader of shell command lines, enough to tell what an agent's command does: simple
//! commands with their words, redirections and here-documents, split on `&&`, `||`, `;`, `|`,
//! `&` and newlines; quotes and escapes honoured; `$(…)`, `` `…` `` and `<(…)` kept inside words and
//! also read as commands of their own; `for … do … done` loops noted. It never fails: odd input
//! gives odd words, never a panic.

/// One simple command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Simple {
    pub words: Vec<String>,
    /// (operator, target): `>`, `>>`, `<`, `2>`, `&>`, …
    pub redirects: Vec<(String, String)>,
    /// The body of a here-document fed to this command.
    pub heredoc: Option<String>,
    /// Followed by `|` (its output feeds the next command).
    pub piped: bool,
    /// Inside a `for`/`while` loop.
    pub in_loop: bool,
    /// Inside a loop whose list comes from a command substitution (`for f in $(…)`).
    pub loop_over_output: bool,
    /// Read from a `$(…)`, `` `…` `` or `<(…)` inside another command.
    pub substituted: bool,
}

impl Simple {
    /// The program's base name (`/usr/bin/python3` → `python3`).
    pub fn program(&self) -> &str {
        self.words.first().map(|w| w.rsplit('/').next().unwrap_or(w)).unwrap_or("")
    }
}

/// The most commands read from one line (the rest is ignored).
const MAX_COMMANDS: usize = 500;
/// The most bytes of one command line (or script) read: what a command does shows in its start,
/// and a longer one would cost memory in proportion.
pub const MAX_TEXT: usize = 1 << 20;

/// At most `max` bytes of the start of a text, cut at a character boundary.
pub fn head(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Deepest nesting of substitutions read.
const MAX_DEPTH: usize = 8;

/// Split off here-document bodies: returns the command text with each body removed, and the
/// bodies in the order their `<<` appear.
fn take_heredocs(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut bodies: Vec<String> = Vec::new();
    let mut pending: Vec<(String, bool)> = Vec::new(); // (delimiter, strip tabs)
    let mut current: Option<(String, bool, Vec<&str>)> = None;
    for line in text.split('\n') {
        if let Some((delim, strip, body)) = current.as_mut() {
            let probe = if *strip { line.trim_start_matches('\t') } else { line };
            if probe.trim_end() == delim {
                bodies.push(body.join("\n"));
                current = None;
                if let Some((d, s)) = pending.first().cloned() {
                    pending.remove(0);
                    current = Some((d, s, Vec::new()));
                }
            } else {
                body.push(line);
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
        pending.extend(heredoc_delimiters(line));
        if !pending.is_empty() {
            let (d, s) = pending.remove(0);
            current = Some((d, s, Vec::new()));
        }
    }
    if let Some((_, _, body)) = current {
        // An unterminated here-document runs to the end.
        bodies.push(body.join("\n"));
    }
    (out, bodies)
}

/// The delimiters of the here-documents a line opens (`<<EOF`, `<< 'EOF'`, `<<-"X"`), not `<<<`.
fn heredoc_delimiters(line: &str) -> Vec<(String, bool)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                } else if c == b'\\' && q == b'"' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            None if c == b'\'' || c == b'"' => {
                quote = Some(c);
                i += 1;
                continue;
            }
            None if c == b'\\' => {
                i += 2;
                continue;
            }
            None => {}
        }
        if c == b'<' && b.get(i + 1) == Some(&b'<') && b.get(i + 2) != Some(&b'<') && (i == 0 || b[i - 1] != b'<') {
            let mut j = i + 2;
            let strip = b.get(j) == Some(&b'-');
            if strip {
                j += 1;
            }
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            let mut d = String::new();
            let mut q: Option<u8> = None;
            while j < b.len() {
                let ch = b[j];
                match q {
                    Some(qq) if ch == qq => q = None,
                    Some(_) => d.push(ch as char),
                    None if ch == b'\'' || ch == b'"' => q = Some(ch),
                    None if ch.is_ascii_alphanumeric() || ch == b'_' || ch == b'-' || ch == b'.' => d.push(ch as char),
                    None => break,
                }
                j += 1;
            }
            if !d.is_empty() {
                out.push((d, strip));
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    /// `&&`, `||`, `;`, `&`, newline: ends a command.
    Sep,
    Pipe,
    Redirect(String),
    /// Text of a `$(…)`, `` `…` `` or `<(…)`, read as commands too.
    Sub(String),
}

fn tokens(s: &str, subs: &mut Vec<String>) -> Vec<Tok> {
    let c: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut i = 0;
    let flush = |word: &mut String, in_word: &mut bool, out: &mut Vec<Tok>| {
        if *in_word {
            out.push(Tok::Word(std::mem::take(word)));
            *in_word = false;
        }
    };
    // The text of a balanced `(…)` starting after the opening paren at `start`; returns (text, end).
    let balanced = |start: usize| -> (String, usize) {
        let mut depth = 1;
        let mut j = start;
        let mut q: Option<char> = None;
        while j < c.len() {
            let ch = c[j];
            match q {
                Some(qq) if ch == qq => q = None,
                Some('"') if ch == '\\' => j += 1,
                Some(_) => {}
                None if ch == '\'' || ch == '"' => q = Some(ch),
                None if ch == '(' => depth += 1,
                None if ch == ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return (c[start..j].iter().collect(), j + 1);
                    }
                }
                None => {}
            }
            j += 1;
        }
        (c[start.min(c.len())..].iter().collect(), c.len())
    };
    while i < c.len() {
        let ch = c[i];
        match ch {
            '\'' => {
                in_word = true;
                i += 1;
                while i < c.len() && c[i] != '\'' {
                    word.push(c[i]);
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                in_word = true;
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' && i + 1 < c.len() && matches!(c[i + 1], '"' | '\\' | '$' | '`') {
                        i += 1;
                        word.push(c[i]);
                    } else if c[i] == '$' && c.get(i + 1) == Some(&'(') {
                        let (inner, end) = balanced(i + 2);
                        word.push_str("$(");
                        word.push_str(&inner);
                        word.push(')');
                        subs.push(inner);
                        i = end;
                        continue;
                    } else {
                        word.push(c[i]);
                    }
                    i += 1;
                }
                i += 1;
            }
            '\\' => {
                if i + 1 < c.len() && c[i + 1] != '\n' {
                    word.push(c[i + 1]);
                    in_word = true;
                }
                i += 2;
            }
            '$' if c.get(i + 1) == Some(&'(') => {
                let (inner, end) = balanced(i + 2);
                word.push_str("$(");
                word.push_str(&inner);
                word.push(')');
                in_word = true;
                subs.push(inner.clone());
                out.push(Tok::Sub(inner));
                i = end;
            }
            '<' if c.get(i + 1) == Some(&'(') => {
                flush(&mut word, &mut in_word, &mut out);
                let (inner, end) = balanced(i + 2);
                out.push(Tok::Word(format!("<({inner})")));
                subs.push(inner);
                i = end;
            }
            '`' => {
                let start = i + 1;
                let mut j = start;
                while j < c.len() && c[j] != '`' {
                    j += 1;
                }
                let inner: String = c[start..j.min(c.len())].iter().collect();
                word.push_str(&inner);
                in_word = true;
                subs.push(inner);
                i = j + 1;
            }
            ' ' | '\t' | '\r' => {
                flush(&mut word, &mut in_word, &mut out);
                i += 1;
            }
            '\n' | ';' => {
                flush(&mut word, &mut in_word, &mut out);
                out.push(Tok::Sep);
                i += 1;
            }
            '&' => {
                flush(&mut word, &mut in_word, &mut out);
                if c.get(i + 1) == Some(&'&') {
                    out.push(Tok::Sep);
                    i += 2;
                } else if c.get(i + 1) == Some(&'>') {
                    let op = if c.get(i + 2) == Some(&'>') { "&>>" } else { "&>" };
                    out.push(Tok::Redirect(op.into()));
                    i += op.len();
                } else {
                    out.push(Tok::Sep);
                    i += 1;
                }
            }
            '|' => {
                flush(&mut word, &mut in_word, &mut out);
                if c.get(i + 1) == Some(&'|') {
                    out.push(Tok::Sep);
                    i += 2;
                } else {
                    out.push(Tok::Pipe);
                    i += 1 + usize::from(c.get(i + 1) == Some(&'&'));
                }
            }
            '>' | '<' => {
                // A digit word right before (2>, 1>>) is the redirected descriptor.
                let fd = in_word && word.chars().all(|d| d.is_ascii_digit()) && !word.is_empty();
                if fd {
                    word.clear();
                    in_word = false;
                } else {
                    flush(&mut word, &mut in_word, &mut out);
                }
                let mut op = String::from(ch);
                let mut j = i + 1;
                while j < c.len() && (c[j] == '>' || c[j] == '<' || c[j] == '&' || c[j] == '|') && op.len() < 3 {
                    op.push(c[j]);
                    j += 1;
                }
                if op.ends_with('&') && j < c.len() && c[j].is_ascii_digit() {
                    // 2>&1: a descriptor copy, nothing to read.
                    j += 1;
                    i = j;
                    continue;
                }
                out.push(Tok::Redirect(op));
                i = j;
            }
            '(' | ')' | '{' | '}' if !in_word => {
                out.push(Tok::Sep);
                i += 1;
            }
            _ => {
                word.push(ch);
                in_word = true;
                i += 1;
            }
        }
    }
    flush(&mut word, &mut in_word, &mut out);
    out
}

const KEYWORDS: &[&str] = &["do", "done", "then", "fi", "else", "elif", "if", "esac", "!"];

/// Read a command line into simple commands.
pub fn parse(command: &str) -> Vec<Simple> {
    let mut out = Vec::new();
    parse_into(head(command, MAX_TEXT), 0, false, &mut out);
    out
}

fn parse_into(command: &str, depth: usize, substituted: bool, out: &mut Vec<Simple>) {
    if depth > MAX_DEPTH || out.len() >= MAX_COMMANDS {
        return;
    }
    let (text, bodies) = take_heredocs(command);
    let mut bodies = bodies.into_iter();
    let mut subs = Vec::new();
    let toks = tokens(&text, &mut subs);
    let mut cur = Simple { substituted, ..Simple::default() };
    let mut loop_depth = 0usize;
    let mut loop_output = Vec::<bool>::new();
    let mut in_for_header = false;
    let mut header_has_sub = false;
    let push = |cur: &mut Simple, out: &mut Vec<Simple>, piped: bool, loop_depth: usize, loop_output: &[bool]| {
        if !cur.words.is_empty() || cur.heredoc.is_some() {
            let mut s = std::mem::take(cur);
            s.piped = piped;
            s.in_loop = loop_depth > 0;
            s.loop_over_output = loop_output.iter().any(|b| *b);
            s.substituted = substituted;
            if out.len() < MAX_COMMANDS {
                out.push(s);
            }
        } else {
            cur.redirects.clear();
        }
    };
    let mut it = toks.into_iter().peekable();
    while let Some(t) = it.next() {
        match t {
            Tok::Word(w) => {
                if cur.words.is_empty() && (w == "for" || w == "while" || w == "until" || w == "select") {
                    in_for_header = w == "for" || w == "select";
                    header_has_sub = false;
                    if w != "for" && w != "select" {
                        loop_depth += 1;
                        loop_output.push(false);
                    }
                    continue;
                }
                if in_for_header {
                    if w == "do" {
                        in_for_header = false;
                        loop_depth += 1;
                        loop_output.push(header_has_sub);
                    } else if w.contains("$(") || w.contains('`') {
                        header_has_sub = true;
                    }
                    continue;
                }
                if cur.words.is_empty() && KEYWORDS.contains(&w.as_str()) {
                    if w == "done" {
                        loop_depth = loop_depth.saturating_sub(1);
                        loop_output.pop();
                    }
                    continue;
                }
                // Environment assignments before the program are not the program.
                if cur.words.is_empty() && is_assignment(&w) {
                    continue;
                }
                cur.words.push(w);
            }
            Tok::Sub(_) => {
                if in_for_header {
                    header_has_sub = true;
                }
            }
            Tok::Redirect(op) => {
                let target = match it.peek() {
                    Some(Tok::Word(_)) => match it.next() {
                        Some(Tok::Word(w)) => w,
                        _ => String::new(),
                    },
                    _ => String::new(),
                };
                if op == "<<" || op == "<<-" {
                    if let Some(b) = bodies.next() {
                        cur.heredoc = Some(b);
                    }
                } else if op == "<<<" {
                    cur.heredoc = Some(target);
                } else {
                    cur.redirects.push((op, target));
                }
            }
            Tok::Pipe => push(&mut cur, out, true, loop_depth, &loop_output),
            Tok::Sep => {
                if in_for_header {
                    continue;
                }
                push(&mut cur, out, false, loop_depth, &loop_output)
            }
        }
    }
    push(&mut cur, out, false, loop_depth, &loop_output);
    for s in subs {
        parse_into(&s, depth + 1, true, out);
    }
}

fn is_assignment(w: &str) -> bool {
    match w.split_once('=') {
        Some((k, _)) => {
            !k.is_empty()
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !k.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &Simple) -> Vec<&str> {
        s.words.iter().map(String::as_str).collect()
    }

    #[test]
    fn pipelines_lists_and_quotes() {
        let c = parse("cd /workspace && grep -n 'def main' solution.py | head -5; echo \"a b\"");
        assert_eq!(c.len(), 4);
        assert_eq!(words(&c[0]), ["cd", "/workspace"]);
        assert_eq!(words(&c[1]), ["grep", "-n", "def main", "solution.py"]);
        assert!(c[1].piped);
        assert_eq!(words(&c[2]), ["head", "-5"]);
        assert_eq!(words(&c[3]), ["echo", "a b"]);
        let c = parse("FOO=1 timeout 60 python3 x.py 2>&1 > out.txt");
        assert_eq!(words(&c[0]), ["timeout", "60", "python3", "x.py"]);
        assert_eq!(c[0].redirects, vec![(">".to_string(), "out.txt".to_string())]);
    }

    #[test]
    fn heredocs_go_to_their_command() {
        let c = parse("python3 - <<'EOF'\nimport ast\nprint(1)\nEOF\necho done");
        assert_eq!(words(&c[0]), ["python3", "-"]);
        assert_eq!(c[0].heredoc.as_deref(), Some("import ast\nprint(1)"));
        assert_eq!(words(&c[1]), ["echo", "done"]);
        let c = parse("cat > /tmp/p.py << \"PY\"\nx = 1\nPY\npython3 /tmp/p.py");
        assert_eq!(c[0].redirects, vec![(">".to_string(), "/tmp/p.py".to_string())]);
        assert_eq!(c[0].heredoc.as_deref(), Some("x = 1"));
        assert_eq!(words(&c[1]), ["python3", "/tmp/p.py"]);
        // Unterminated: the body runs to the end.
        assert_eq!(parse("python3 - <<EOF\nprint(2)")[0].heredoc.as_deref(), Some("print(2)"));
        // A here-string.
        assert_eq!(parse("python3 <<< 'print(3)'")[0].heredoc.as_deref(), Some("print(3)"));
    }

    #[test]
    fn loops_and_substitutions() {
        let c =
            parse("for f in $(grep -oP '^def \\K\\w+' solution.py); do echo $f $(grep -c \"$f(\" solution.py); done");
        let echo = c.iter().find(|s| s.program() == "echo").unwrap();
        assert!(echo.in_loop && echo.loop_over_output);
        assert!(c.iter().filter(|s| s.program() == "grep").all(|s| s.substituted));
        let c = parse("for f in ah bq; do grep -n \"$f(\" solution.py; done");
        let g = c.iter().find(|s| s.program() == "grep").unwrap();
        assert!(g.in_loop && !g.loop_over_output);
        let c = parse("diff <(python3 a.py 1) <(python3 b.py 1)");
        assert_eq!(c.iter().filter(|s| s.program() == "python3").count(), 2);
    }

    #[test]
    fn nothing_breaks_it() {
        for s in [
            "",
            "'",
            "\"",
            "$(",
            "$((((",
            "<<",
            "<<'",
            "a | | b",
            "\\",
            "`",
            "for do done",
            "))))",
            "2>&",
            "<(",
            "x<<<",
        ] {
            let _ = parse(s);
        }
        let deep = "$(".repeat(10_000);
        let _ = parse(&deep);
    }
}
