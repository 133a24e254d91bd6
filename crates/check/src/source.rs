//! Python source before it is parsed: bytes to text, lines, and the checks CPython 3.11's tokenizer
//! makes that a parser does not. Every reader of Python starts here ([`super::program::Program`]).
//!
//! - [`decode`]: bytes to text as `python solution.py` reads them (byte-order mark, PEP 263 Latin-1,
//!   invalid UTF-8 allowed only in comments).
//! - [`LineIndex`]: lines as CPython numbers them (`\n`, `\r\n`, a lone `\r`).
//! - [`scan`]: CPython's tokenizer errors (NUL, `TabError`, indentation, brackets, long integers), and
//!   a running bound of the tree's depth and the parser's stack. Input certainly too deep for CPython
//!   is refused before a parser builds a huge tree.

use super::cpython;
use std::borrow::Cow;

/// Largest source (or response) read, in bytes.
pub const MAX_SOURCE_BYTES: usize = 2 * 1024 * 1024;

/// How deep the parser may recurse (prefix operators, lambdas, conditionals, brackets; a bracket counts
/// [`RECURSION_PER_BRACKET`]). Natively the parser grows its stack and CPython's own limits come first.
/// In the browser the engine's call stack is fixed (about 1 MB): measured in headless Chromium, a debug
/// build of the parser fails near 1,500 nested unary operators or 400 nested lambda defaults, so the
/// browser checker refuses, with its own message, what it cannot read.
#[cfg(target_arch = "wasm32")]
pub const MAX_NESTED_READ: Option<usize> = Some(1000);
#[cfg(not(target_arch = "wasm32"))]
pub const MAX_NESTED_READ: Option<usize> = None;
/// The parser's recursion for one bracket, relative to a unary operator's.
const RECURSION_PER_BRACKET: usize = 3;

/// Why a program could not be read, with its 1-based line.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ProgramError {
    pub line: usize,
    pub message: String,
}

impl ProgramError {
    pub fn new(line: usize, message: impl Into<String>) -> ProgramError {
        ProgramError { line, message: message.into() }
    }
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ProgramError {}

// ------------------------------------------------------------------------------------------------
// Lines

/// Line starts of a text, with CPython's line ends (`\n`, `\r\n`, lone `\r`).
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let b = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if b.get(i + 1) == Some(&b'\n') => {
                    starts.push(i + 2);
                    i += 1;
                }
                b'\r' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex { starts }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).max(1)
    }

    /// Number of lines (a final line end does not start another).
    pub fn count(&self) -> usize {
        self.starts.len()
    }
}

/// 1-based line of a byte offset, counting `\n`, `\r\n` and lone `\r` as line ends.
pub fn line_of(text: &str, offset: usize) -> usize {
    let b = &text.as_bytes()[..offset.min(text.len())];
    let mut line = 1;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')) {
            line += 1;
        }
    }
    line
}

// ------------------------------------------------------------------------------------------------
// Bytes to text

/// Source text decoded from bytes, with what was done on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded<'b> {
    pub text: Cow<'b, str>,
    pub notes: Vec<String>,
}

/// Decode a Python file's bytes as `python file.py` would read them (see the module documentation).
pub fn decode(bytes: &[u8]) -> Result<Decoded<'_>, ProgramError> {
    let mut notes = Vec::new();
    if bytes.len() > MAX_SOURCE_BYTES {
        return Err(too_large(bytes.len()));
    }
    let body = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) if rest.starts_with(b"\xef\xbb\xbf") => {
            return Err(ProgramError::new(1, "invalid non-printable character U+FEFF (a second byte-order mark)"));
        }
        Some(rest) => {
            notes.push("removed a UTF-8 byte-order mark".to_string());
            rest
        }
        None => bytes,
    };
    if let Some((enc, cookie_line)) = coding_cookie(body) {
        let norm = enc.to_ascii_lowercase().replace('_', "-");
        let latin1 = ["latin-1", "iso-8859-1", "iso8859-1", "latin1", "l1", "iso-latin-1"];
        if latin1.iter().any(|l| norm == *l || norm.starts_with(&format!("{l}-"))) {
            notes.push(format!("decoded as Latin-1, as its coding line (`{enc}`) asks"));
            return Ok(Decoded { text: Cow::Owned(body.iter().map(|&b| b as char).collect()), notes });
        }
        let utf8 = norm == "utf-8" || norm == "utf8" || norm.starts_with("utf-8-");
        if !utf8 {
            return Err(ProgramError::new(
                cookie_line,
                format!("the coding line names `{enc}`; Cabrito reads UTF-8 (and Latin-1) Python files only"),
            ));
        }
    }
    match std::str::from_utf8(body) {
        Ok(s) => Ok(Decoded { text: Cow::Borrowed(s), notes }),
        Err(_) => {
            // CPython 3.11 lets undecodable bytes pass inside comments, and only there.
            let lossy = String::from_utf8_lossy(body);
            let comments = comment_spans(&lossy);
            let bad = invalid_utf8_offsets(body);
            // Offsets in `lossy` shift as bad sequences become U+FFFD (3 bytes each); map them.
            let mut shift: isize = 0;
            for (at, len) in &bad {
                let pos = (*at as isize + shift) as usize;
                if !comments.iter().any(|(s, e)| (*s..*e).contains(&pos)) {
                    let line = line_of(&lossy, pos);
                    return Err(ProgramError::new(
                        line,
                        format!(
                            "the file is not UTF-8 text: byte 0x{:02x} cannot be decoded here (CPython refuses it outside comments)",
                            body[*at]
                        ),
                    ));
                }
                shift += 3 - *len as isize;
            }
            notes.push(format!("replaced {} undecodable byte sequence(s) inside comments", bad.len()));
            Ok(Decoded { text: Cow::Owned(lossy.into_owned()), notes })
        }
    }
}

fn too_large(len: usize) -> ProgramError {
    ProgramError::new(1, format!("the file is {len} bytes; at most {MAX_SOURCE_BYTES} bytes (2 MB) are read"))
}

fn first_line(b: &[u8]) -> &[u8] {
    match b.iter().position(|&c| c == b'\n' || c == b'\r') {
        Some(i) => &b[..=i],
        None => b,
    }
}

/// The encoding a PEP 263 coding line (line 1, or line 2 after a comment or blank line 1) declares, and
/// its line.
fn coding_cookie(b: &[u8]) -> Option<(String, usize)> {
    let l1 = first_line(b);
    let rest = &b[l1.len()..];
    let l2 = first_line(rest);
    let find = |line: &[u8]| -> Option<String> {
        let s = std::str::from_utf8(line).ok()?;
        let t = s.trim_start_matches([' ', '\t', '\x0c']);
        if !t.starts_with('#') {
            return None;
        }
        let at = t.find("coding")?;
        let after = &t[at + 6..];
        let after = after.strip_prefix([':', '='])?;
        let name: String = after
            .trim_start_matches([' ', '\t'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_' || *c == '.')
            .collect();
        (!name.is_empty()).then_some(name)
    };
    if let Some(c) = find(l1) {
        return Some((c, 1));
    }
    let l1_blank_or_comment = {
        let t = String::from_utf8_lossy(l1);
        let t = t.trim();
        t.is_empty() || t.starts_with('#')
    };
    if l1_blank_or_comment && !l2.is_empty() {
        return find(l2).map(|c| (c, 2));
    }
    None
}

/// Offsets and lengths of the invalid sequences in `b`, as `String::from_utf8_lossy` replaces them.
fn invalid_utf8_offsets(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        match std::str::from_utf8(&b[at..]) {
            Ok(_) => break,
            Err(e) => {
                let start = at + e.valid_up_to();
                let len = e.error_len().unwrap_or(b.len() - start);
                out.push((start, len));
                at = start + len;
            }
        }
    }
    out
}

/// Byte ranges of the comments of a text (tokenized as Python).
fn comment_spans(text: &str) -> Vec<(usize, usize)> {
    let mut t = Tokenizer::new(text.as_bytes(), 0);
    let mut out = Vec::new();
    while let Some(tok) = t.next_raw() {
        if let Raw::Comment(s, e) = tok {
            out.push((s, e));
        }
    }
    out
}

// ------------------------------------------------------------------------------------------------
// The tokenizer model

/// A raw token of the scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Raw {
    /// A name or keyword `[start, end)`.
    Name(usize, usize),
    /// A number `[start, end)`.
    Number(usize, usize),
    /// A string; `f` when it is an f-string; the content range `[start, end)` between the quotes.
    Str {
        start: usize,
        f: bool,
        content: (usize, usize),
    },
    /// An operator or delimiter `[start, end)`.
    Op(usize, usize),
    Comment(usize, usize),
    /// A physical line end at this offset (the tokenizer decides whether it ends a logical line).
    LineEnd(usize),
    /// A backslash continuation.
    Continuation,
    /// A NUL byte at this offset.
    Nul(usize),
    /// The start of a physical line that may carry indentation: its columns and where the text starts.
    Indent {
        col: usize,
        altcol: usize,
        at: usize,
    },
}

struct Tokenizer<'a> {
    b: &'a [u8],
    i: usize,
    /// At the start of a physical line.
    line_start: bool,
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

const OPS3: &[&[u8]] = &[b"**=", b"//=", b">>=", b"<<=", b"...", b"!=="];
const OPS2: &[&[u8]] = &[
    b"**", b"//", b"<<", b">>", b"<=", b">=", b"==", b"!=", b"->", b":=", b"+=", b"-=", b"*=", b"/=", b"%=", b"&=",
    b"|=", b"^=", b"@=",
];

impl<'a> Tokenizer<'a> {
    fn new(b: &'a [u8], start: usize) -> Tokenizer<'a> {
        Tokenizer { b, i: start, line_start: true }
    }

    fn peek(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    /// Skip a line end at `i` (`\n`, `\r\n`, `\r`); returns the offset after it.
    fn line_end_len(&self, i: usize) -> usize {
        match self.b.get(i) {
            Some(b'\r') if self.b.get(i + 1) == Some(&b'\n') => 2,
            Some(b'\n') | Some(b'\r') => 1,
            _ => 0,
        }
    }

    fn next_raw(&mut self) -> Option<Raw> {
        if self.line_start {
            self.line_start = false;
            let (mut col, mut altcol) = (0usize, 0usize);
            let mut j = self.i;
            while let Some(&c) = self.b.get(j) {
                match c {
                    b' ' => {
                        col += 1;
                        altcol += 1;
                    }
                    b'\t' => {
                        col = (col / 8 + 1) * 8;
                        altcol += 1;
                    }
                    0x0c => {
                        col = 0;
                        altcol = 0;
                    }
                    _ => break,
                }
                j += 1;
            }
            self.i = j;
            return Some(Raw::Indent { col, altcol, at: j });
        }
        // Skip blanks within a line.
        while let Some(c) = self.peek(0) {
            if c == b' ' || c == b'\t' || c == 0x0c {
                self.i += 1;
            } else {
                break;
            }
        }
        let start = self.i;
        let c = self.peek(0)?;
        match c {
            0 => {
                self.i += 1;
                Some(Raw::Nul(start))
            }
            b'\n' | b'\r' => {
                self.i += self.line_end_len(start);
                self.line_start = true;
                Some(Raw::LineEnd(start))
            }
            b'#' => {
                while let Some(c) = self.peek(0) {
                    if c == b'\n' || c == b'\r' || c == 0 {
                        break;
                    }
                    self.i += 1;
                }
                Some(Raw::Comment(start, self.i))
            }
            b'\\' if matches!(self.peek(1), Some(b'\n') | Some(b'\r')) => {
                self.i += 1 + self.line_end_len(start + 1);
                Some(Raw::Continuation)
            }
            b'0'..=b'9' => Some(self.number(start)),
            b'.' if self.peek(1).is_some_and(|d| d.is_ascii_digit()) => Some(self.number(start)),
            b'\'' | b'"' => Some(self.string(start, false)),
            c if is_name_start(c) => {
                let mut j = start;
                while self.b.get(j).is_some_and(|&c| is_name_char(c)) {
                    j += 1;
                }
                // A string prefix?
                if j - start <= 2 && matches!(self.b.get(j), Some(b'\'') | Some(b'"')) {
                    let p = self.b[start..j].to_ascii_lowercase();
                    let ok = matches!(p.as_slice(), b"r" | b"u" | b"b" | b"f" | b"br" | b"rb" | b"fr" | b"rf");
                    if ok {
                        let f = p.contains(&b'f');
                        self.i = j;
                        return Some(self.string(start, f));
                    }
                }
                self.i = j;
                Some(Raw::Name(start, j))
            }
            _ => {
                let rest = &self.b[start..];
                let len = if OPS3.iter().any(|o| rest.starts_with(o)) {
                    3
                } else if OPS2.iter().any(|o| rest.starts_with(o)) {
                    2
                } else {
                    // One byte, or one whole UTF-8 character (an invalid character: the parser reports it).
                    let mut l = 1;
                    while self.b.get(start + l).is_some_and(|&c| (0x80..0xc0).contains(&c)) {
                        l += 1;
                    }
                    l
                };
                self.i = start + len;
                Some(Raw::Op(start, start + len))
            }
        }
    }

    fn number(&mut self, start: usize) -> Raw {
        let b = self.b;
        let mut j = start;
        let lower = |k: usize| b.get(k).map(|c| c.to_ascii_lowercase());
        if b[j] == b'0' && matches!(lower(j + 1), Some(b'x') | Some(b'o') | Some(b'b')) {
            j += 2;
            while b.get(j).is_some_and(|&c| c.is_ascii_hexdigit() || c == b'_') {
                j += 1;
            }
        } else {
            while b.get(j).is_some_and(|&c| c.is_ascii_digit() || c == b'_') {
                j += 1;
            }
            if b.get(j) == Some(&b'.') {
                j += 1;
                while b.get(j).is_some_and(|&c| c.is_ascii_digit() || c == b'_') {
                    j += 1;
                }
            }
            if matches!(lower(j), Some(b'e')) {
                let mut k = j + 1;
                if matches!(b.get(k), Some(b'+') | Some(b'-')) {
                    k += 1;
                }
                if b.get(k).is_some_and(|c| c.is_ascii_digit()) {
                    j = k;
                    while b.get(j).is_some_and(|&c| c.is_ascii_digit() || c == b'_') {
                        j += 1;
                    }
                }
            }
            if matches!(lower(j), Some(b'j')) {
                j += 1;
            }
        }
        self.i = j;
        Raw::Number(start, j)
    }

    /// A string starting at `start` (its prefix already consumed up to `self.i`, the quote).
    fn string(&mut self, start: usize, f: bool) -> Raw {
        let b = self.b;
        let q = b[self.i];
        let triple = b.get(self.i + 1) == Some(&q) && b.get(self.i + 2) == Some(&q);
        let open = if triple { 3 } else { 1 };
        let cstart = self.i + open;
        let mut j = cstart;
        let cend;
        loop {
            match b.get(j) {
                None => {
                    cend = j;
                    break;
                }
                Some(b'\\') => {
                    // An escaped line end counts as one character however it is spelt.
                    j += 1;
                    let le = self.line_end_len(j);
                    j += if le > 0 { le } else { 1 };
                }
                Some(&c) if c == q => {
                    if !triple {
                        cend = j;
                        j += 1;
                        break;
                    }
                    if b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q) {
                        cend = j;
                        j += 3;
                        break;
                    }
                    j += 1;
                }
                Some(b'\n') | Some(b'\r') if !triple => {
                    // Unterminated: the parser reports it.
                    cend = j;
                    break;
                }
                Some(0) => {
                    cend = j;
                    break;
                }
                Some(_) => j += 1,
            }
        }
        self.i = j.min(b.len());
        Raw::Str { start, f, content: (cstart, cend.min(b.len())) }
    }
}

// ------------------------------------------------------------------------------------------------
// The scan

/// What the scan learnt about a source that it did not refuse.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// A lower bound of the syntax tree's depth (CPython's counting).
    pub depth_lower_bound: usize,
    /// The highest parser-stack estimate (CPython's `MAXSTACK` counting, approximate).
    pub parser_levels: usize,
    /// The first error CPython reports only when its tokenizer or parser reaches this point (a `TabError`,
    /// a bad unindent, an over-long integer literal): `(offset, message)`; whichever of it and the first
    /// syntax error comes first is reported.
    pub deferred: Option<(usize, String)>,
    /// The innermost bracket still open at the end: `(offset, bracket)`. CPython reports a syntax error
    /// in such a file as "'(' was never closed" there.
    pub unclosed: Option<(usize, char)>,
}

/// Scan a source (see the module documentation). The errors are CPython 3.11's, with their lines.
pub fn scan(text: &str) -> Result<Scan, ProgramError> {
    if text.len() > MAX_SOURCE_BYTES {
        return Err(too_large(text.len()));
    }
    let lines = LineIndex::new(text);
    if let Some(at) = text.find('\0') {
        return Err(ProgramError::new(
            lines.line(at),
            "source code cannot contain null bytes (CPython refuses a NUL byte anywhere in a file)",
        ));
    }
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if body.starts_with('\u{feff}') {
        return Err(ProgramError::new(1, "invalid non-printable character U+FEFF (a second byte-order mark)"));
    }
    let mut s = Scanner::new(text.as_bytes(), &lines);
    s.run(text.len() - body.len(), text.len(), Context::Module)?;
    if let Some(e) = s.too_deep_to_read {
        return Err(e);
    }
    Ok(Scan { depth_lower_bound: s.max_lb, parser_levels: s.max_levels, deferred: s.deferred, unclosed: s.unclosed })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Context {
    /// A whole module: indentation and logical lines.
    Module,
    /// The expression inside an f-string's braces (3.11: parsed on its own, brackets counted afresh).
    FStringExpr { lb: usize, levels: usize },
}

/// A construct that is open at the current token: everything until it closes is inside its node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    /// `-x`, `+x`, `~x`, `await x`: closes when the operand (a power expression) ends.
    Unary,
    /// `a ** b`: the right operand; closes like a unary operator.
    Pow,
    /// `not x`: closes at `and`, `or`, a conditional, a separator.
    Not,
    /// `lambda params:` before its colon.
    LambdaHead,
    /// A lambda parameter's default value (`lambda a=…`): closes at a separator.
    Default,
    /// A lambda's body: closes at a separator.
    LambdaBody,
    /// `x if c else y` from the `if`: closes at a separator.
    Ternary,
    /// `name := value`, `*value`, `yield value`: close at a separator.
    Wrap,
}

impl Open {
    /// Parser levels it costs (CPython's PEG parser), calibrated against CPython 3.11.7. Each is one
    /// node of the tree (`UnaryOp`, `BinOp`, `Lambda`, `IfExp`, `NamedExpr`, `Starred`, `Yield`).
    fn levels(self) -> usize {
        match self {
            Open::Unary | Open::Not | Open::Ternary | Open::Wrap => cpython::LEVELS_PER_PREFIX,
            Open::Pow | Open::LambdaHead | Open::LambdaBody => cpython::LEVELS_PER_LAMBDA_OR_POW,
            Open::Default => cpython::LEVELS_PER_LAMBDA_DEFAULT,
        }
    }
    /// Calls the parser makes to read it (ruff's recursion), relative to a unary operator's.
    fn recursion(self) -> usize {
        match self {
            Open::Default => 4,
            _ => 1,
        }
    }
}

/// One bracket level.
#[derive(Clone, Debug)]
struct Frame {
    /// The opening byte (`(`, `[`, `{`), or 0 for a logical line.
    opener: u8,
    /// Where the bracket opens.
    at: usize,
    /// Lower bound and parser levels at the bracket (everything inside is deeper).
    base_lb: usize,
    base_levels: usize,
    opens: Vec<Open>,
    /// Parser levels of `opens` (each open construct but a default value is one tree node).
    open_levels: usize,
    /// How many of `opens` are lambda defaults (no node of their own).
    defaults: usize,
    /// Parser levels of where in the bracket we are (after a comma, in a keyword argument).
    extra_levels: usize,
    /// The parser's recursion (ruff's) at the bracket, and of `opens`.
    base_recursion: usize,
    open_recursion: usize,
    /// The bracket is a call or subscript (opened after an operand).
    call: bool,
    /// After a `for` of a comprehension at this level: `if` filters, not conditionals.
    in_comprehension: bool,
    /// The previous significant token ended an operand (a name, number, string, closing bracket).
    after_operand: bool,
    /// At the start of a statement (for `if`/`else`/`case` being statement keywords).
    statement_start: bool,
    /// In a `case` pattern line (its `if` is a guard).
    in_case: bool,
    /// After `is` (so `not` is part of `is not`).
    after_is: bool,
    /// After `def NAME` or `class NAME` (the next `(` holds parameters or bases, not a call).
    header: bool,
}

impl Frame {
    fn new(opener: u8, base_lb: usize, base_levels: usize) -> Frame {
        Frame {
            opener,
            at: 0,
            base_lb,
            base_levels,
            opens: Vec::new(),
            open_levels: 0,
            defaults: 0,
            extra_levels: 0,
            base_recursion: 0,
            open_recursion: 0,
            call: false,
            in_comprehension: false,
            after_operand: false,
            statement_start: opener == 0,
            in_case: false,
            after_is: false,
            header: false,
        }
    }
    fn lb(&self) -> usize {
        self.base_lb + self.opens.len() - self.defaults
    }
    fn levels(&self) -> usize {
        self.base_levels + self.open_levels + self.extra_levels
    }
    fn recursion(&self) -> usize {
        self.base_recursion + self.open_recursion
    }
    fn push(&mut self, o: Open) {
        self.opens.push(o);
        self.open_levels += o.levels();
        self.open_recursion += o.recursion();
        self.defaults += usize::from(o == Open::Default);
    }
    fn pop(&mut self) -> Option<Open> {
        let o = self.opens.pop()?;
        self.open_levels -= o.levels();
        self.open_recursion -= o.recursion();
        self.defaults -= usize::from(o == Open::Default);
        Some(o)
    }
    fn clear(&mut self) {
        self.opens.clear();
        self.open_levels = 0;
        self.open_recursion = 0;
        self.defaults = 0;
        self.extra_levels = 0;
    }
    /// Close the constructs a token ends: from the innermost, while `closes` says so; a lambda head
    /// stops the closing (its parameters' separators do not end it).
    fn close_while(&mut self, closes: impl Fn(Open) -> bool) {
        while let Some(&o) = self.opens.last() {
            if o == Open::LambdaHead || !closes(o) {
                break;
            }
            self.pop();
        }
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    lines: &'a LineIndex,
    max_lb: usize,
    max_levels: usize,
    deferred: Option<(usize, String)>,
    unclosed: Option<(usize, char)>,
    too_deep_to_read: Option<ProgramError>,
}

fn keyword(s: &[u8]) -> bool {
    matches!(
        s,
        b"False"
            | b"None"
            | b"True"
            | b"and"
            | b"as"
            | b"assert"
            | b"async"
            | b"await"
            | b"break"
            | b"class"
            | b"continue"
            | b"def"
            | b"del"
            | b"elif"
            | b"else"
            | b"except"
            | b"finally"
            | b"for"
            | b"from"
            | b"global"
            | b"if"
            | b"import"
            | b"in"
            | b"is"
            | b"lambda"
            | b"nonlocal"
            | b"not"
            | b"or"
            | b"pass"
            | b"raise"
            | b"return"
            | b"try"
            | b"while"
            | b"with"
            | b"yield"
    )
}

impl<'a> Scanner<'a> {
    fn new(b: &'a [u8], lines: &'a LineIndex) -> Scanner<'a> {
        Scanner { b, lines, max_lb: 0, max_levels: 0, deferred: None, unclosed: None, too_deep_to_read: None }
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> ProgramError {
        ProgramError::new(self.lines.line(at), msg)
    }

    /// Scan `[from, to)` of the source in a context.
    fn run(&mut self, from: usize, to: usize, ctx: Context) -> Result<(), ProgramError> {
        let mut t = Tokenizer::new(&self.b[..to], from);
        if let Context::FStringExpr { .. } = ctx {
            t.line_start = false;
        }
        let module = ctx == Context::Module;
        // Indentation stacks (columns with tabs to 8, and with tabs as 1).
        let mut ind: Vec<usize> = vec![0];
        let mut alt: Vec<usize> = vec![0];
        let (base_lb, base_levels) = match ctx {
            Context::Module => (0, 0),
            Context::FStringExpr { lb, levels } => (lb, levels),
        };
        let mut frames: Vec<Frame> = vec![Frame::new(0, base_lb, base_levels)];
        let mut continuation = false;
        // The indentation of the current physical line, checked when its first token shows it is code.
        let mut pending_indent: Option<(usize, usize, usize)> = None;
        while let Some(tok) = t.next_raw() {
            match tok {
                Raw::Indent { col, altcol, at } => {
                    if module && frames.len() == 1 && !continuation {
                        pending_indent = Some((col, altcol, at));
                    }
                    continuation = false;
                    continue;
                }
                Raw::Comment(..) => continue,
                Raw::Continuation => {
                    continuation = true;
                    continue;
                }
                Raw::Nul(at) => return Err(self.err(at, "source code cannot contain null bytes")),
                Raw::LineEnd(_) => {
                    pending_indent = None;
                    if frames.len() == 1 && module {
                        // A logical line ends: the statement's constructs all close.
                        let f = &mut frames[0];
                        f.clear();
                        f.in_comprehension = false;
                        f.after_operand = false;
                        f.statement_start = true;
                        f.in_case = false;
                    }
                    continue;
                }
                _ => {}
            }
            // A significant token: settle the indentation of its line first.
            if let Some((col, altcol, at)) = pending_indent.take() {
                self.indent(&mut ind, &mut alt, col, altcol, at)?;
                frames[0].base_lb = ind.len();
                frames[0].base_levels = cpython::LEVELS_BASE + cpython::LEVELS_PER_BLOCK * (ind.len() - 1);
            }
            self.token(tok, &mut frames, ctx)?;
            let f = frames.last().expect("a frame");
            self.max_lb = self.max_lb.max(f.lb());
            self.max_levels = self.max_levels.max(f.levels());
            if f.lb() > cpython::MAX_TREE_DEPTH {
                return Err(self.err(
                    tok_start(tok),
                    format!(
                        "the code nests more than {} levels deep here; CPython 3.11 refuses it (RecursionError during compilation)",
                        cpython::MAX_TREE_DEPTH
                    ),
                ));
            }
            if let Some(limit) = MAX_NESTED_READ.filter(|&m| f.recursion() > m && self.too_deep_to_read.is_none()) {
                // Scan on: if CPython refuses the file further on, say that instead.
                self.too_deep_to_read = Some(self.err(
                    tok_start(tok),
                    format!(
                        "the code nests more than {limit} operators, brackets and lambdas deep here; the \
                         checker in the browser reads no deeper (CPython 3.11 may accept it: check it with \
                         `cabrito check` or the grading worker)"
                    ),
                ));
            }
            if f.levels() >= cpython::MAX_PARSER_LEVELS {
                return Err(self.err(
                    tok_start(tok),
                    format!(
                        "the expression nests too deeply for CPython 3.11's parser here (about {} levels; its stack holds {}: MemoryError)",
                        f.levels(),
                        cpython::MAX_PARSER_LEVELS
                    ),
                ));
            }
        }
        if module && frames.len() > 1 {
            let f = frames.last().expect("a frame");
            self.unclosed = Some((f.at, f.opener as char));
        }
        Ok(())
    }

    /// CPython's indentation rules for a line whose first token is code. Too many levels stops the
    /// scan (the parser would recurse once per level); a `TabError` or a bad unindent is an error at its
    /// place, reported if no syntax error comes before it, and the scan goes on.
    fn indent(
        &mut self,
        ind: &mut Vec<usize>,
        alt: &mut Vec<usize>,
        col: usize,
        altcol: usize,
        at: usize,
    ) -> Result<(), ProgramError> {
        const TAB_ERROR: &str = "inconsistent use of tabs and spaces in indentation (TabError)";
        let top = *ind.last().expect("base level");
        let alttop = *alt.last().expect("base level");
        if col == top {
            if altcol != alttop {
                self.defer(at, TAB_ERROR);
            }
        } else if col > top {
            if ind.len() > cpython::MAX_INDENT_LEVELS {
                return Err(self.err(
                    at,
                    format!("too many levels of indentation (CPython 3.11 allows {})", cpython::MAX_INDENT_LEVELS),
                ));
            }
            if altcol <= alttop {
                self.defer(at, TAB_ERROR);
            }
            ind.push(col);
            alt.push(altcol);
        } else {
            while ind.len() > 1 && col < *ind.last().expect("level") {
                ind.pop();
                alt.pop();
            }
            if col != *ind.last().expect("level") {
                self.defer(at, "unindent does not match any outer indentation level");
            } else if altcol != *alt.last().expect("level") {
                self.defer(at, TAB_ERROR);
            }
        }
        Ok(())
    }

    /// An error CPython reports when it gets here, unless an earlier one stops it first.
    fn defer(&mut self, at: usize, message: impl Into<String>) {
        if self.deferred.as_ref().is_none_or(|d| at < d.0) {
            self.deferred = Some((at, message.into()));
        }
    }

    fn token(&mut self, tok: Raw, frames: &mut Vec<Frame>, ctx: Context) -> Result<(), ProgramError> {
        let b = self.b;
        match tok {
            Raw::Number(s, e) => {
                self.number(s, e);
                operand(frames);
            }
            Raw::Str { f, content, .. } => {
                if f {
                    let f0 = frames.last().expect("frame");
                    // 3.11 parses each field with a parser of its own: its stack starts afresh.
                    let (lb, levels) = (f0.lb() + 2, cpython::LEVELS_FSTRING_BASE);
                    self.fstring(content, lb, levels)?;
                }
                operand(frames);
            }
            Raw::Name(s, e) => {
                let w = &b[s..e];
                if keyword(w) && !matches!(w, b"None" | b"True" | b"False") {
                    self.keyword(w, frames);
                } else {
                    let f = frames.last_mut().expect("frame");
                    if f.statement_start && f.opener == 0 && w == b"case" {
                        f.in_case = true;
                    }
                    operand(frames);
                }
            }
            Raw::Op(s, e) => {
                let op = &b[s..e];
                match op {
                    b"(" | b"[" | b"{" => {
                        let f = frames.last_mut().expect("frame");
                        // A call, subscript or display is a node; a bare `(` may be a group, and the
                        // parentheses of `def f(…)` and `class C(…)` hold no expression node.
                        let call = f.after_operand && !f.header;
                        let node = usize::from(op != b"(" || call);
                        let cost = cpython::bracket_levels(op[0], call);
                        f.header = false;
                        f.statement_start = false;
                        let discount = if frames.len() == 1 { cpython::LEVELS_FIRST_BRACKET_DISCOUNT } else { 0 };
                        let f = frames.last().expect("frame");
                        let (lb, levels) = (f.lb() + node, (f.levels() + cost).saturating_sub(discount));
                        if frames.len() > cpython::MAX_BRACKETS {
                            let msg = match ctx {
                                Context::Module => format!(
                                    "too many nested parentheses (CPython 3.11 allows {})",
                                    cpython::MAX_BRACKETS
                                ),
                                Context::FStringExpr { .. } => format!(
                                    "f-string: too many nested parentheses (CPython 3.11 allows {})",
                                    cpython::MAX_BRACKETS
                                ),
                            };
                            return Err(self.err(s, msg));
                        }
                        let recursion = f.recursion() + RECURSION_PER_BRACKET;
                        let mut child = Frame::new(op[0], lb, levels);
                        child.base_recursion = recursion;
                        child.call = call;
                        child.at = s;
                        frames.push(child);
                    }
                    b")" | b"]" | b"}" => {
                        if frames.len() > 1 {
                            frames.pop();
                        }
                        operand(frames);
                    }
                    _ => self.operator(op, frames),
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn number(&mut self, s: usize, e: usize) {
        let t = &self.b[s..e];
        let decimal_int = t.iter().all(|c| c.is_ascii_digit() || *c == b'_');
        if !decimal_int || self.deferred.as_ref().is_some_and(|d| d.0 < s) {
            return;
        }
        let digits = t.iter().filter(|c| c.is_ascii_digit()).count();
        let zero = t.iter().all(|c| *c == b'0' || *c == b'_');
        if digits > cpython::MAX_INT_DIGITS && !zero {
            self.defer(
                s,
                format!(
                    "this integer literal has {digits} digits; CPython 3.11 refuses decimal literals over {} digits at compile time (write it in hexadecimal)",
                    cpython::MAX_INT_DIGITS
                ),
            );
        }
    }

    /// Scan the expressions inside an f-string (3.11: each `{…}` is parsed on its own). Nested f-strings
    /// recurse here, at most four deep: in 3.11 each must use a quote its enclosing strings do not.
    fn fstring(&mut self, (cs, ce): (usize, usize), lb: usize, levels: usize) -> Result<(), ProgramError> {
        let b = self.b;
        let mut i = cs;
        // Depth of nested format specs: `{x:{y}}` (CPython allows two levels).
        while i < ce {
            match b[i] {
                b'{' if b.get(i + 1) == Some(&b'{') && i + 1 < ce => i += 2,
                b'{' => {
                    let end = expr_end(b, i + 1, ce);
                    self.run(i + 1, end, Context::FStringExpr { lb, levels })?;
                    i = end;
                    // Conversion and format spec: a spec may hold one more level of fields.
                    while i < ce && b[i] != b'}' {
                        if b[i] == b'{' {
                            let e2 = expr_end(b, i + 1, ce);
                            self.run(i + 1, e2, Context::FStringExpr { lb: lb + 2, levels })?;
                            i = e2;
                        }
                        i += 1;
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        Ok(())
    }

    fn keyword(&mut self, w: &[u8], frames: &mut [Frame]) {
        let f = frames.last_mut().expect("frame");
        let at_start = f.statement_start;
        let after_is = f.after_is;
        f.statement_start = false;
        f.after_is = false;
        match w {
            b"not" => {
                // `is not`, `not in` are comparisons (they close nothing a comparison would not).
                if f.after_operand || after_is {
                    f.close_while(|o| matches!(o, Open::Unary | Open::Pow));
                } else {
                    f.push(Open::Not);
                }
                f.after_operand = false;
            }
            b"await" => {
                f.push(Open::Unary);
                f.after_operand = false;
            }
            b"lambda" => {
                f.push(Open::LambdaHead);
                f.after_operand = false;
            }
            b"def" | b"class" => {
                f.close_while(|_| true);
                f.header = true;
                f.after_operand = false;
            }
            b"if" if !at_start && !f.in_comprehension && !f.in_case => {
                f.close_while(|o| matches!(o, Open::Unary | Open::Pow | Open::Not));
                f.push(Open::Ternary);
                f.after_operand = false;
            }
            b"else" if !at_start => {
                f.close_while(|o| matches!(o, Open::Unary | Open::Pow | Open::Not));
                f.after_operand = false;
            }
            b"and" | b"or" | b"in" | b"is" => {
                f.close_while(|o| matches!(o, Open::Unary | Open::Pow) || (w != b"in" && w != b"is" && o == Open::Not));
                f.after_operand = false;
                f.after_is = w == b"is";
            }
            b"for" | b"async" => {
                if !at_start && f.opener != 0 {
                    f.in_comprehension = true;
                }
                f.close_while(|_| true);
                f.after_operand = false;
            }
            b"yield" => {
                f.push(Open::Wrap);
                f.after_operand = false;
            }
            _ => {
                // Statement keywords and `as`, `from`, `if` (a filter or guard): separators.
                f.close_while(|_| true);
                if at_start && f.opener == 0 && matches!(w, b"if" | b"elif" | b"while" | b"else") {
                    f.statement_start = false;
                }
                f.after_operand = false;
            }
        }
    }

    fn operator(&mut self, op: &[u8], frames: &mut [Frame]) {
        let f = frames.last_mut().expect("frame");
        let unary_position = !f.after_operand;
        f.statement_start = false;
        f.after_is = false;
        match op {
            b"-" | b"+" | b"~" if unary_position => f.push(Open::Unary),
            b"*" if unary_position => f.push(Open::Wrap),
            b"**" if unary_position => {} // `**mapping`: no node of its own
            b"**" => {
                // Unary operators and powers stay open: the exponent is inside them.
                f.push(Open::Pow);
            }
            b"." => {}
            b":=" => {
                f.close_while(|_| true);
                f.push(Open::Wrap);
            }
            b":" => {
                // Ends what a separator ends; if a lambda head is innermost, its body starts.
                f.close_while(|_| true);
                if f.opens.last() == Some(&Open::LambdaHead) {
                    f.pop();
                    f.push(Open::LambdaBody);
                } else {
                    f.in_case = false;
                    if f.opener == 0 && f.opens.is_empty() {
                        // After a compound statement's colon, a simple statement may follow on the line.
                        f.statement_start = true;
                    }
                }
            }
            b"," | b"=" | b";" | b"->" => {
                f.close_while(|_| true);
                if op == b";" {
                    f.statement_start = true;
                    f.clear();
                    f.in_comprehension = false;
                }
                if op == b"=" && f.opens.last() == Some(&Open::LambdaHead) {
                    f.push(Open::Default);
                } else if f.opener != 0 && op == b"," {
                    f.extra_levels = cpython::after_comma_levels(f.opener, f.call);
                } else if f.opener == b'(' && f.call && op == b"=" {
                    f.extra_levels =
                        cpython::after_comma_levels(f.opener, f.call).max(cpython::LEVELS_PER_KEYWORD_ARGUMENT);
                }
            }
            _ if op.len() >= 2 && op.ends_with(b"=") && !matches!(op, b"==" | b"<=" | b">=" | b"!=") => {
                // Augmented assignment.
                f.close_while(|_| true);
            }
            b"<" | b">" | b"==" | b"<=" | b">=" | b"!=" => {
                f.close_while(|o| matches!(o, Open::Unary | Open::Pow));
            }
            _ => {
                // A binary operator: it ends unary operands and powers.
                f.close_while(|o| matches!(o, Open::Unary | Open::Pow));
            }
        }
        f.after_operand = false;
    }
}

/// The token that ends an operand.
fn operand(frames: &mut [Frame]) {
    let f = frames.last_mut().expect("frame");
    f.after_operand = true;
    f.statement_start = false;
}

fn tok_start(t: Raw) -> usize {
    match t {
        Raw::Name(s, _) | Raw::Number(s, _) | Raw::Op(s, _) | Raw::Comment(s, _) => s,
        Raw::Str { start, .. } => start,
        Raw::LineEnd(s) | Raw::Nul(s) => s,
        Raw::Indent { at, .. } => at,
        Raw::Continuation => 0,
    }
}

/// Where an f-string replacement field's expression ends: the first `}`, `!` (not `!=`) or `:` outside
/// brackets and strings, or the end of the content.
fn expr_end(b: &[u8], from: usize, end: usize) -> usize {
    let mut depth = 0usize;
    let mut i = from;
    while i < end {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'}' if depth == 0 => return i,
            b'}' => depth -= 1,
            b'!' if depth == 0 && b.get(i + 1) != Some(&b'=') => return i,
            b':' if depth == 0 => return i,
            q @ (b'\'' | b'"') => {
                // A nested string (3.11: another quote than the f-string's).
                let mut j = i + 1;
                while j < end && b[j] != q {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                i = j;
            }
            _ => {}
        }
        i += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error a scan finds: at once, or deferred (with its line).
    fn scan_err(src: &str) -> ProgramError {
        match scan(src) {
            Err(e) => e,
            Ok(s) => {
                let (at, message) = s.deferred.expect(src);
                ProgramError::new(LineIndex::new(src).line(at), message)
            }
        }
    }

    #[test]
    fn lines_count_cr_lf_and_crlf() {
        let l = LineIndex::new("a\nb\r\nc\rd");
        assert_eq!((l.line(0), l.line(2), l.line(5), l.line(7)), (1, 2, 3, 4));
        assert_eq!(line_of("a\nb\r\nc\rd", 7), 4);
    }

    #[test]
    fn unclosed_brackets() {
        assert_eq!(scan("x = 1\ry = 2\rz = (\n").unwrap().unclosed, Some((16, '(')));
        assert_eq!(scan("x = (\n[1],\n[2,\n").unwrap().unclosed, Some((11, '[')));
        assert_eq!(scan("x = (1)\n").unwrap().unclosed, None);
    }

    #[test]
    fn decoding() {
        assert_eq!(decode(b"\xef\xbb\xbfx = 1\n").unwrap().text, "x = 1\n");
        let e = decode(b"x = 1\ny = '\xff'\n").unwrap_err();
        assert_eq!(e.line, 2);
        let ok = decode(b"x = 1  # caf\xe9\n").unwrap();
        assert!(ok.text.contains('\u{fffd}') && ok.notes[0].contains("comments"), "{ok:?}");
        let latin = decode(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n").unwrap();
        assert!(latin.text.contains('é'));
        assert!(decode(b"# coding: bogus\nx = 1\n").is_err());
    }

    #[test]
    fn tokenizer_rules() {
        assert_eq!(scan_err("if x:\n    \ty = 1\n\tz = 2\n").line, 3);
        assert!(scan_err("if x:\n\ty = 1\n        z = 2\n").message.contains("TabError"));
        assert!(scan("if x:\n\ty = 1\n\tz = 2\n").unwrap().deferred.is_none());
        assert!(scan("if x:\n    y = 1\n\t# c\n    z = 2\n").unwrap().deferred.is_none());
        assert!(scan("x = (1,\n\t2,\n        3)\n").unwrap().deferred.is_none());
        let deep: String = (0..100).map(|i| format!("{}if x:\n", " ".repeat(i))).collect();
        assert!(scan_err(&format!("{deep}{}pass\n", " ".repeat(100))).message.contains("indentation"));
        let ok: String = (0..99).map(|i| format!("{}if x:\n", " ".repeat(i))).collect();
        assert!(scan(&format!("{ok}{}pass\n", " ".repeat(99))).is_ok());
        assert!(scan(&format!("x = {}1{}\n", "(".repeat(200), ")".repeat(200))).is_ok());
        assert!(scan_err(&format!("x = {}1{}\n", "(".repeat(201), ")".repeat(201))).message.contains("parenthes"));
        assert!(scan(&format!("x = '{}'\n", "(".repeat(500))).is_ok());
        assert_eq!(scan_err("x = 1\n\0").line, 2);
    }

    #[test]
    fn long_integers_are_deferred() {
        let s = scan(&format!("a = 1\nx = {}\n", "1".repeat(4301))).unwrap();
        assert!(s.deferred.is_some_and(|(at, _)| at == 10));
        assert!(scan(&format!("x = {}\n", "1".repeat(4300))).unwrap().deferred.is_none());
        assert!(scan(&format!("x = {}\n", "0".repeat(5000))).unwrap().deferred.is_none());
        assert!(scan(&format!("x = 0x{}\n", "f".repeat(9000))).unwrap().deferred.is_none());
        assert!(scan(&format!("x = {}.5\n", "1".repeat(9000))).unwrap().deferred.is_none());
        assert!(scan(&format!("x = {}1\n", "1_".repeat(4400))).unwrap().deferred.is_some());
    }

    #[test]
    fn depth_lower_bound() {
        let lb = |s: &str| scan(s).unwrap().depth_lower_bound;
        assert!(lb(&format!("x = {}1\n", "-".repeat(100))) >= 100);
        // Unary operators close at a binary operator: a long sum of negations is not deep by this bound.
        assert!(lb(&format!("x = 1{}\n", " + -1".repeat(1000))) < 10);
        assert!(lb(&format!("x = {}1\n", "not ".repeat(50))) >= 50);
        assert!(lb(&format!("x = {}1\n", "lambda: ".repeat(50))) >= 50);
        assert!(lb(&format!("x = {}1\n", "1 if c else ".repeat(50))) >= 50);
        assert!(lb(&format!("x = 1{}\n", " ** 1".repeat(50))) >= 50);
        assert!(lb("x = [1, 2, 3]\ny = -1\n") <= 3);
        assert!(lb(&format!("x = [{}]\n", "-1, ".repeat(5000))) < 5);
        assert!(lb(&format!("x = {}\n", "lambda a=".repeat(50) + "1: 0".repeat(50).as_str())) >= 50);
        assert!(scan_err(&format!("x = {}1\n", "-".repeat(200_000))).message.contains("levels deep"));
    }
}
