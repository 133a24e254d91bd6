//! Counts in words, with the right plural: "1 function", "3 functions".

/// `n` and the noun, singular for exactly one.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singular_for_exactly_one() {
        assert_eq!(count(1, "session", "sessions"), "1 session");
        assert_eq!(count(0, "session", "sessions"), "0 sessions");
        assert_eq!(count(2, "file", "files"), "2 files");
    }
}
