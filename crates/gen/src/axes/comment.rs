//! Comment copying (the paper's appendix A.9): every function the solver edits must carry a given
//! comment of `n` words, verbatim, on a line of its own. Both graphs have 10 functions.
//!
//! The words come from the BIP-39 English word list (CC0-1.0, copied from the `bip39` crate into
//! `comment_words.txt`), drawn from the stream `comment/words`. The app's first download leaves this
//! part out ([`crate::task::Extra::Comment`]).

use super::{AxisDef, Grows};
use crate::kinds::Level;
use crate::rng::stream;
use crate::spec::TaskSpec;

pub struct Comment;

/// The graph sizes of the paper's appendix tasks.
const SIZE: u32 = 10;

impl AxisDef for Comment {
    fn label(&self) -> &'static str {
        "comment copying"
    }
    fn experiment(&self) -> &'static str {
        "comment_copying"
    }
    fn scales(&self) -> &'static str {
        "n words in the comment every edited function must carry verbatim; 10 functions to edit, 10 untouched"
    }
    fn grows(&self) -> Grows {
        Grows::Neither
    }
    fn fixed_size(&self) -> u32 {
        SIZE
    }
    fn run_suffix(&self, spec: &TaskSpec) -> String {
        format!("_words={}", spec.n)
    }
    fn run_n(&self, run: &str) -> Option<f64> {
        crate::experiment::number_after(run, "_words=")
    }
    fn appendix(&self) -> bool {
        true
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("comment_copy", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["comment_copy"]
    }
    fn copies_comment(&self) -> bool {
        true
    }
    fn id_suffix(&self, spec: &TaskSpec) -> String {
        format!("|words={}", spec.n)
    }
    fn extra(&self) -> Option<crate::task::Extra> {
        Some(crate::task::Extra::Comment)
    }
}

/// The BIP-39 English word list, one word a line (a test checks it against the `bip39` crate).
const WORDS: &str = include_str!("comment_words.txt");

/// The English word list the comments are drawn from.
pub fn word_list() -> &'static [&'static str] {
    static LIST: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    LIST.get_or_init(|| WORDS.lines().collect())
}

/// The comment of a task: `words` words drawn from the word list with the task's own stream.
pub fn draw(key: &str, words: u32) -> String {
    let list = word_list();
    let mut rng = stream(key, "comment/words");
    let drawn: Vec<&str> = (0..words).map(|_| list[crate::graph::sample::below(&mut rng, list.len())]).collect();
    drawn.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_are_plain_lowercase_english() {
        let list = word_list();
        assert_eq!(list.len(), 2048);
        assert_eq!(list, &bip39::Language::English.word_list()[..], "the copy is the bip39 crate's list");
        assert!(list.iter().all(|w| (3..=8).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_lowercase())));
        let c = draw("k", 7);
        assert_eq!(c.split(' ').count(), 7);
        assert_eq!(c, draw("k", 7));
        assert_ne!(c, draw("other", 7));
        // Longer comments extend shorter ones of the same task.
        assert!(draw("k", 9).starts_with(&c));
    }
}
