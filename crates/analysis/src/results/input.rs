//! Bytes of a dropped or read file to text: gunzip when the bytes are gzip (whatever the name says),
//! cap the size, keep going over bad UTF-8. Shared by the results and traces readers; pure, so the
//! browser and the command line read files the same way.

use std::fmt;
use std::io::Read;

/// Largest text one file may expand to (a gzip bomb stops here with a clear error).
pub const MAX_TEXT_BYTES: u64 = 1 << 30;

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
