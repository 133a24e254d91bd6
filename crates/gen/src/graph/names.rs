//! Symbolic function names: a, b, …, z, aa, ab, …, skipping Python keywords, soft keywords,
//! builtins and the names the generated programs themselves use.

/// Python keywords and soft keywords.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "_", "case", "match", "type",
];

/// Builtins of CPython 3.11 that are all lowercase letters and at most four long (longer names are
/// never reached below 18,000 functions).
const BUILTINS: &[&str] = &[
    "abs", "all", "any", "bin", "bool", "chr", "dict", "dir", "eval", "exec", "exit", "hash", "help", "hex", "id",
    "int", "iter", "len", "list", "map", "max", "min", "next", "oct", "open", "ord", "pow", "quit", "repr", "set",
    "str", "sum", "type", "vars", "zip",
];

/// Names the generated programs and the `mylibrary` stubs use, so functions must not take them.
const RESERVED: &[&str] =
    &["counter", "np", "sys", "val", "key", "mult", "temp", "main", "math", "slow", "copy", "sign"];

/// True when `name` may not be a generated function name.
pub fn is_banned(name: &str) -> bool {
    // The first bytes first: most words differ there, and comparing whole strings is a call each.
    let listed = |list: &[&str]| list.iter().any(|w| w.as_bytes().first() == name.as_bytes().first() && *w == name);
    listed(KEYWORDS) || listed(BUILTINS) || listed(RESERVED)
}

/// The k-th spreadsheet-column name (0 → a, 25 → z, 26 → aa).
fn column(mut k: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'a' + (k % 26) as u8);
        if k < 26 {
            break;
        }
        k = k / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).expect("ascii")
}

/// The column index `k` with `column(k) == word`, for a word of lowercase ASCII letters (the only
/// words a column name can be); `None` too for a word whose index does not fit a `usize` (`nonlocal`
/// on wasm32), which no pool reaches.
fn column_index(word: &str) -> Option<usize> {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    // Bijective base 26: a = 1, …, z = 26, less one.
    let k = word.bytes().try_fold(0usize, |k, b| k.checked_mul(26)?.checked_add(usize::from(b - b'a' + 1)))?;
    Some(k - 1)
}

/// The first `size` allowed names, in order. (The banned words are turned into their column
/// indices once, so each name is checked with one comparison: a merge task asks for thousands.)
pub fn symbolic_pool(size: usize) -> Vec<String> {
    let mut banned: Vec<usize> = Vec::new();
    for list in [KEYWORDS, BUILTINS, RESERVED] {
        banned.extend(list.iter().filter_map(|w| column_index(w)));
    }
    banned.sort();
    let mut out = Vec::with_capacity(size);
    let (mut k, mut next) = (0, 0);
    while out.len() < size {
        // The banned indices below `k` are behind; `type` is listed twice.
        while banned.get(next).is_some_and(|&b| b < k) {
            next += 1;
        }
        if banned.get(next) != Some(&k) {
            out.push(column(k));
        }
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_order_and_skips() {
        let p = symbolic_pool(30);
        assert_eq!(&p[..3], &["a", "b", "c"]);
        assert_eq!(p[26], "aa");
        // Among the 702 one- and two-letter names, exactly as, id, if, in, is, np, or are dropped.
        let two: Vec<String> = symbolic_pool(800).into_iter().filter(|n| n.len() <= 2).collect();
        assert_eq!(two.len(), 695);
        assert!(!symbolic_pool(3000).iter().any(|n| n == "sys" || n == "val" || n == "abs"));
    }

    /// The pool is every column name that `is_banned` lets through, in order (checked past
    /// `async`, so every banned word of up to five letters is met).
    #[test]
    fn pool_is_the_names_is_banned_allows() {
        let naive: Vec<String> = (0..850_000).map(column).filter(|n| !is_banned(n)).collect();
        assert_eq!(symbolic_pool(naive.len()), naive);
        assert_eq!(column_index("a"), Some(0));
        assert_eq!(column_index("aa"), Some(26));
        assert_eq!(column_index("zip").map(column).as_deref(), Some("zip"));
        assert_eq!(column_index("None"), None);
        assert_eq!(column_index("_"), None);
        assert!(column_index("async").is_some_and(|k| k < 850_000));
        // Past 32 bits (on wasm32 these words are left out: no pool is that large).
        let nonlocal = column_index("nonlocal");
        assert!(nonlocal.is_none() || nonlocal.is_some_and(|k| k > u32::MAX as usize / 26));
    }
}
