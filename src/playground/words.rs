//! Words on the pages: counts with the right plural ("1 session", "2 sessions") and text whose
//! `backticked` parts are shown as code.

pub use cabrito_gen::words::count;

/// A text cut at its backticks: `(is_code, part)` in order, empty parts left out. An unpaired
/// backtick is kept as text.
pub fn code_spans(text: &str) -> Vec<(bool, &str)> {
    // An odd number of backticks: the last one opens nothing and stays text with what follows it.
    let (body, tail) = match text.rfind('`') {
        Some(i) if text.matches('`').count() % 2 == 1 => (&text[..i], &text[i..]),
        _ => (text, ""),
    };
    let mut out: Vec<(bool, &str)> =
        body.split('`').enumerate().filter(|(_, p)| !p.is_empty()).map(|(i, p)| (i % 2 == 1, p)).collect();
    if !tail.is_empty() {
        out.push((false, tail));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backticks_make_code() {
        assert_eq!(
            code_spans("run `cabrito serve` now"),
            vec![(false, "run "), (true, "cabrito serve"), (false, " now")]
        );
        assert_eq!(code_spans("`a``b`"), vec![(true, "a"), (true, "b")]);
        assert_eq!(code_spans("plain"), vec![(false, "plain")]);
        assert_eq!(code_spans(""), vec![]);
        // An unpaired backtick stays text, whole.
        let spans = code_spans("a `b` c ` d");
        assert_eq!(spans.iter().map(|(_, t)| *t).collect::<String>().replace(' ', ""), "abc`d");
        assert_eq!(spans.last(), Some(&(false, "` d")));
        assert_eq!(code_spans("` x"), vec![(false, "` x")]);
    }
}
