//! Bytes of a dropped or read file to text: gunzip when the bytes are gzip (whatever the name says),
//! cap the size, keep going over bad UTF-8. Shared by the results and traces readers; pure, so the
//! browser and the command line read files the same way. [`Source`] reads a file as a stream (any
//! reader the caller opens), one line at a time, so memory does not grow with the file.

use std::fmt;
use std::io::{BufRead, BufReader, Cursor, Read};

/// Largest text one file may expand to (a gzip bomb stops here with a clear error).
pub const MAX_TEXT_BYTES: u64 = 1 << 30;
/// Longest line read; a longer one is reported and skipped without being held.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// How much of a file's start [`Source::head`] shows (to tell what the file is).
pub const HEAD_BYTES: usize = 4096;

/// Something wrong in an input file: where, and what. One problem never stops a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub file: String,
    /// 1-based line, when the problem is one line's.
    pub line: Option<usize>,
    pub message: String,
}

impl Problem {
    pub fn file(file: &str, message: impl Into<String>) -> Problem {
        Problem { file: file.to_string(), line: None, message: message.into() }
    }
    pub fn line(file: &str, line: usize, message: impl Into<String>) -> Problem {
        Problem { file: file.to_string(), line: Some(line), message: message.into() }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{} line {l}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Whether bytes start with the gzip magic number.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
}

/// The text of a file: gunzipped (every member) when it is gzip, at most [`MAX_TEXT_BYTES`]; invalid
/// UTF-8 is replaced and reported as a problem, so the lines around it are still read.
pub fn text_of(name: &str, bytes: &[u8]) -> Result<(String, Option<Problem>), Problem> {
    text_with_limit(name, bytes, MAX_TEXT_BYTES)
}

/// [`text_of`] with a chosen size limit.
pub fn text_with_limit(name: &str, bytes: &[u8], limit: u64) -> Result<(String, Option<Problem>), Problem> {
    let raw: Vec<u8> = if is_gzip(bytes) {
        let mut out = Vec::new();
        let mut dec = flate2::read::MultiGzDecoder::new(bytes).take(limit.saturating_add(1));
        if let Err(e) = dec.read_to_end(&mut out) {
            // A truncated archive still gives what it held: keep it, say so.
            if out.is_empty() {
                return Err(Problem::file(name, format!("not valid gzip ({e})")));
            }
            let (text, _) = utf8(name, out)?;
            return Ok((text, Some(Problem::file(name, format!("the gzip data ends early ({e}); read what it held")))));
        }
        if out.len() as u64 > limit {
            return Err(Problem::file(
                name,
                format!("expands to more than {} MB; the limit is {} MB", limit >> 20, limit >> 20),
            ));
        }
        out
    } else {
        if bytes.len() as u64 > limit {
            return Err(Problem::file(name, format!("is larger than {} MB", limit >> 20)));
        }
        bytes.to_vec()
    };
    utf8(name, raw)
}

fn utf8(name: &str, raw: Vec<u8>) -> Result<(String, Option<Problem>), Problem> {
    match String::from_utf8(raw) {
        Ok(s) => Ok((s, None)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let line = text[..text.char_indices().nth(at).map_or(text.len(), |(i, _)| i).min(text.len())]
                .bytes()
                .filter(|&b| b == b'\n')
                .count()
                + 1;
            Ok((text, Some(Problem::line(name, line, format!("not valid UTF-8 (byte {at}); bad bytes replaced")))))
        }
    }
}

/// A reader that fails once more than `limit` bytes came through it.
struct Capped<R> {
    inner: R,
    read: u64,
    limit: u64,
    over: bool,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.over {
            return Err(std::io::Error::other("over the size limit"));
        }
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            self.over = true;
            return Err(std::io::Error::other("over the size limit"));
        }
        Ok(n)
    }
}

/// Up to `n` bytes from the start of a reader (fewer only at its end or on an error).
fn read_head<R: Read>(r: &mut R, n: usize) -> (Vec<u8>, Option<std::io::Error>) {
    let mut head = vec![0u8; n];
    let mut got = 0;
    while got < n {
        match r.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                head.truncate(got);
                return (head, Some(e));
            }
        }
    }
    head.truncate(got);
    (head, None)
}

/// A file read as a stream: gunzipped when its bytes are gzip, at most a limit of text, its first
/// [`HEAD_BYTES`] visible before anything is consumed. It is a [`BufRead`] (for a JSON document,
/// `serde_json::from_reader`) and gives [`Lines`]; what goes wrong is told by [`Source::problem_of`].
pub struct Source<'a> {
    name: String,
    gzip: bool,
    limit: u64,
    head: Vec<u8>,
    /// An error met while reading the head (given back on the first read).
    early: Option<std::io::Error>,
    inner: BufReader<Capped<Box<dyn Read + 'a>>>,
}

impl<'a> Source<'a> {
    /// Read `reader` (a file the caller opened, or bytes in memory) as the file `name`.
    pub fn new<R: Read + 'a>(name: &str, reader: R, limit: u64) -> Source<'a> {
        let mut reader = reader;
        let (magic, early) = read_head(&mut reader, 2);
        let gzip = is_gzip(&magic);
        let raw: Box<dyn Read + 'a> = Box::new(Cursor::new(magic).chain(reader));
        let decoded: Box<dyn Read + 'a> =
            if gzip { Box::new(flate2::read::MultiGzDecoder::new(BufReader::new(raw))) } else { raw };
        let mut capped = Capped { inner: decoded, read: 0, limit, over: false };
        let (head, e2) = if early.is_some() { (Vec::new(), None) } else { read_head(&mut capped, HEAD_BYTES) };
        let early = early.or(e2);
        let stream: Box<dyn Read + 'a> = Box::new(Cursor::new(head.clone()).chain(capped));
        // The head is read again through the chain; the cap counts it once.
        let capped = Capped { inner: stream, read: 0, limit, over: false };
        Source { name: name.to_string(), gzip, limit, head, early, inner: BufReader::with_capacity(64 << 10, capped) }
    }

    /// The start of the text (up to [`HEAD_BYTES`], invalid UTF-8 replaced).
    pub fn head(&self) -> String {
        String::from_utf8_lossy(&self.head).into_owned()
    }

    /// Whether the bytes were gzip.
    pub fn is_gzip(&self) -> bool {
        self.gzip
    }

    /// The problem an error of this source means: over the limit, not gzip, gzip cut short.
    pub fn problem_of(&self, e: &std::io::Error, got_some: bool) -> Problem {
        let mb = self.limit >> 20;
        if self.inner.get_ref().over || e.to_string().contains("over the size limit") {
            return if self.gzip {
                Problem::file(&self.name, format!("expands to more than {mb} MB; the limit is {mb} MB"))
            } else {
                Problem::file(&self.name, format!("is larger than {mb} MB"))
            };
        }
        if self.gzip {
            if got_some {
                Problem::file(&self.name, format!("the gzip data ends early ({e}); read what it held"))
            } else {
                Problem::file(&self.name, format!("not valid gzip ({e})"))
            }
        } else {
            Problem::file(&self.name, format!("cannot be read ({e})"))
        }
    }

    /// The lines of the text (see [`Lines`]).
    pub fn lines(self) -> Lines<'a> {
        Lines::new(self, MAX_LINE_BYTES)
    }

    /// The lines, each at most `max_line` bytes.
    pub fn lines_with_limit(self, max_line: usize) -> Lines<'a> {
        Lines::new(self, max_line)
    }
}

impl Read for Source<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(e) = self.early.take() {
            return Err(e);
        }
        self.inner.read(buf)
    }
}

impl BufRead for Source<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if let Some(e) = self.early.take() {
            return Err(e);
        }
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.inner.consume(amt)
    }
}

/// One line read into `buf` (its `\n` kept): `Ok(None)` at the end, `Ok(Some(true))` for a line
/// longer than `max` (skipped to its end, `buf` emptied), `Ok(Some(false))` otherwise.
fn read_line<R: BufRead>(r: &mut R, buf: &mut Vec<u8>, max: usize) -> std::io::Result<Option<bool>> {
    let mut too_long = false;
    let mut any = false;
    loop {
        let (done, used) = {
            let avail = match r.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok(any.then_some(too_long));
            }
            any = true;
            let (done, used) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (true, i + 1),
                None => (false, avail.len()),
            };
            if !too_long {
                if buf.len() + used > max + 1 {
                    too_long = true;
                    buf.clear();
                    buf.shrink_to(1 << 16);
                } else {
                    buf.extend_from_slice(&avail[..used]);
                }
            }
            (done, used)
        };
        r.consume(used);
        if done {
            return Ok(Some(too_long));
        }
    }
}

/// The lines of a [`Source`] with their 1-based numbers, blank lines skipped (as
/// [`numbered_lines`] reads a text): a line longer than the limit is reported and skipped, bad
/// UTF-8 is replaced and reported once, and a read error (a cut gzip stream, the size limit) ends
/// the lines with its problem. The problems are in [`Lines::problems`].
pub struct Lines<'a> {
    src: Source<'a>,
    max_line: usize,
    no: usize,
    offset: u64,
    buf: Vec<u8>,
    done: bool,
    bad_utf8: bool,
    pub problems: Vec<Problem>,
}

impl<'a> Lines<'a> {
    fn new(src: Source<'a>, max_line: usize) -> Lines<'a> {
        Lines { src, max_line, no: 0, offset: 0, buf: Vec::new(), done: false, bad_utf8: false, problems: Vec::new() }
    }

    /// Lines read so far (blank ones included).
    pub fn count(&self) -> usize {
        self.no
    }

    fn text(&mut self) -> Option<String> {
        let mut raw = std::mem::take(&mut self.buf);
        if raw.last() == Some(&b'\n') {
            raw.pop();
            if raw.last() == Some(&b'\r') {
                raw.pop();
            }
        }
        let start = self.offset;
        self.offset += raw.len() as u64 + 1;
        let text = match String::from_utf8(raw) {
            Ok(s) => s,
            Err(e) => {
                if !self.bad_utf8 {
                    self.bad_utf8 = true;
                    let at = start + e.utf8_error().valid_up_to() as u64;
                    self.problems.push(Problem::line(
                        &self.src.name,
                        self.no,
                        format!("not valid UTF-8 (byte {at}); bad bytes replaced"),
                    ));
                }
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        (!text.trim().is_empty()).then_some(text)
    }
}

impl Iterator for Lines<'_> {
    type Item = (usize, String);

    fn next(&mut self) -> Option<(usize, String)> {
        while !self.done {
            self.buf.clear();
            match read_line(&mut self.src, &mut self.buf, self.max_line) {
                Ok(None) => self.done = true,
                Ok(Some(true)) => {
                    self.no += 1;
                    let mb = (self.max_line >> 20).max(1);
                    self.problems.push(Problem::line(
                        &self.src.name,
                        self.no,
                        format!("longer than {mb} MB; skipped (not read)"),
                    ));
                }
                Ok(Some(false)) => {
                    self.no += 1;
                    if let Some(t) = self.text() {
                        return Some((self.no, t));
                    }
                }
                Err(e) => {
                    self.done = true;
                    let got_some = self.no > 0 || !self.buf.is_empty();
                    let p = self.src.problem_of(&e, got_some);
                    let partial = !self.buf.is_empty() && !p.message.contains("limit") && !p.message.contains("larger");
                    self.problems.push(p);
                    if partial {
                        self.no += 1;
                        if let Some(t) = self.text() {
                            return Some((self.no, t));
                        }
                    }
                }
            }
        }
        None
    }
}

/// The lines of a text with their 1-based numbers, blank lines skipped.
pub fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty())
}

/// At most `max` characters of `s`, with an ellipsis when cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gz(text: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_and_gzip_read_the_same() {
        let t = "a\nb\n";
        assert_eq!(text_of("x", t.as_bytes()).unwrap().0, t);
        assert_eq!(text_of("x.gz", &gz(t.as_bytes())).unwrap().0, t);
        // Two members, as `cat a.gz b.gz` makes.
        let mut two = gz(b"a\n");
        two.extend(gz(b"b\n"));
        assert_eq!(text_of("x.gz", &two).unwrap().0, t);
    }

    #[test]
    fn bombs_truncation_and_bad_utf8_are_reported() {
        let big = gz(&vec![b'x'; 5000]);
        let e = text_with_limit("big.gz", &big, 1000).unwrap_err();
        assert!(e.to_string().contains("more than"), "{e}");
        let whole = gz(&vec![b'y'; 100_000]);
        let cut = &whole[..whole.len() / 2];
        match text_of("cut.gz", cut) {
            Ok((_, Some(p))) => assert!(p.message.contains("ends early")),
            Err(p) => assert!(p.message.contains("gzip")),
            Ok((_, None)) => panic!("a truncated archive read cleanly"),
        }
        let (text, p) = text_of("bad", b"ok\n\xff\xfe\nok\n").unwrap();
        assert_eq!(text.lines().count(), 3);
        assert_eq!(p.unwrap().line, Some(2));
        assert!(text_of("notgz", &[0x1f, 0x8b, 1, 2, 3]).is_err());
    }
}
