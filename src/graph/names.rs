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

/// The first `size` allowed names, in order.
pub fn symbolic_pool(size: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(size);
    let mut k = 0;
    while out.len() < size {
        let name = column(k);
        if !is_banned(&name) {
            out.push(name);
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
}
