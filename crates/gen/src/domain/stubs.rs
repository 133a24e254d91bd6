//! The `mylibrary` stub blocks the tasks import but never define (grading.md §2.3), and the
//! `strops` module of the string domain (generation.md §2.7), as Python source.
//!
//! One block per element of the Cartesian product of the value lists below: 625 for math and
//! array, 375 for string. Blocks vary between trials and are identical for reference and candidate
//! within one trial.

use crate::spec::Domain;

/// What `external(x)` pairs with `x`, per domain family.
pub const EXTERNAL_WORDS: &[&str] = &["cabra", "goat", "chevre", "capra", "geit"];
pub const EXTERNAL_DIGITS: &[&str] = &["100", "200", "300", "400", "500"];
/// What `default()` and `slow()` return for float domains.
pub const FLOAT_VALUES: &[&str] = &["0.21", "-0.42", "0.63", "-0.84", "1.02"];
/// What `default()` and `slow()` return for the string domain.
pub const STRING_VALUES: &[&str] = &["0", "1", "2", "3", "4"];
/// `get_multiplier(x)` variants for math.
pub const MATH_MULTIPLIERS: &[&str] = &["1.0 if x > 0 else -1.0", "0.5", "x", "min(x, 0.21)", "x + 0.01"];
/// `get_multiplier(x)` variants for arrays.
pub const ARRAY_MULTIPLIERS: &[&str] = &[
    "1.0 if float(np.sum(x)) > 0 else -1.0",
    "0.5",
    "float(np.std(x))",
    "float(min(np.min(x), 0.21))",
    "float(np.mean(x)) + 0.01",
];
/// `get_key(x)` digit offsets for strings.
pub const KEY_OFFSETS: &[u32] = &[97, 94, 91];

/// Which `mylibrary` a task imports: the function task sets' (`default()`, `slow()`, …) or the indexed
/// one of the constraint task sets (`default(idx)`, `slow(idx)`, `get_multiplier(x, idx)`,
/// `external(num_keys)`: grading.md §2.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Library {
    #[default]
    Plain,
    Indexed,
}

/// What the indexed stubs add per index: `default(idx)` (floats), `get_multiplier(x, idx)`, `slow(idx)`.
pub const INDEX_STEPS: (&str, &str, &str) = ("0.024", "0.031", "0.017");

/// One stub block: an index into each value list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StubChoice {
    pub external: usize,
    pub default: usize,
    pub helper: usize,
    pub slow: usize,
}

fn helper_count(d: Domain) -> usize {
    match d {
        Domain::Math => MATH_MULTIPLIERS.len(),
        Domain::Array => ARRAY_MULTIPLIERS.len(),
        Domain::String => KEY_OFFSETS.len(),
    }
}

/// Number of distinct stub blocks of a domain.
pub fn block_count(d: Domain) -> usize {
    5 * 5 * helper_count(d) * 5
}

/// The `index`-th block of the Cartesian product (external, default, helper, slow).
pub fn block(d: Domain, index: usize) -> StubChoice {
    let h = helper_count(d);
    let i = index % block_count(d);
    StubChoice { slow: i % 5, helper: (i / 5) % h, default: (i / (5 * h)) % 5, external: i / (25 * h) }
}

/// Python source of `mylibrary` for one block. It defines `external`, `default`, `slow` and the
/// domain's helper (`get_multiplier` or `get_key`).
pub fn mylibrary_source(d: Domain, c: StubChoice) -> String {
    match d {
        Domain::Math | Domain::Array => {
            let (imports, mult) = if d == Domain::Math {
                ("import math\nimport operator\n", MATH_MULTIPLIERS[c.helper])
            } else {
                ("import math\nimport operator\nimport numpy as np\n", ARRAY_MULTIPLIERS[c.helper])
            };
            format!(
                "{imports}\n\ndef external(x):\n    return (x, {w:?})\n\n\ndef default():\n    return {dv}\n\n\n\
                 def get_multiplier(x):\n    return {mult}\n\n\ndef slow():\n    return {sv}\n",
                w = EXTERNAL_WORDS[c.external],
                dv = FLOAT_VALUES[c.default],
                sv = FLOAT_VALUES[c.slow],
            )
        }
        Domain::String => format!(
            "def external(x):\n    return (x, {w:?})\n\n\ndef default():\n    return {dv:?}\n\n\n\
             def get_key(x):\n    digits = ''.join(str((ord(ch) - {k}) % 10) for ch in x.lower() if 'a' <= ch <= 'z')\n    \
             return digits or '0'\n\n\ndef slow():\n    return {sv:?}\n",
            w = EXTERNAL_DIGITS[c.external],
            dv = STRING_VALUES[c.default],
            sv = STRING_VALUES[c.slow],
            k = KEY_OFFSETS[c.helper],
        ),
    }
}

/// Python source of one block of a library: the plain one ([`mylibrary_source`]) or the indexed one.
pub fn library_source(d: Domain, lib: Library, c: StubChoice) -> String {
    match lib {
        Library::Plain => mylibrary_source(d, c),
        Library::Indexed => indexed_source(d, c),
    }
}

/// Python source of the indexed `mylibrary` for one block (the constraint task sets'): every function
/// takes an index that shifts its value (a float step, or the index's digits appended to a string), and
/// `external(num_keys)` returns that many keys.
pub fn indexed_source(d: Domain, c: StubChoice) -> String {
    let (ds, ms, ss) = INDEX_STEPS;
    let external = format!(
        "def external(num_keys):\n    return tuple({w:?} + str(i) for i in range(num_keys))\n",
        w = EXTERNAL_DIGITS[c.external]
    );
    match d {
        Domain::Math | Domain::Array => {
            let (imports, mult) = if d == Domain::Math {
                ("import math\nimport operator\n", MATH_MULTIPLIERS[c.helper])
            } else {
                ("import math\nimport operator\nimport numpy as np\n", ARRAY_MULTIPLIERS[c.helper])
            };
            format!(
                "{imports}\n\n{external}\n\ndef default(idx=0):\n    return {dv} + {ds} * idx\n\n\n\
                 def get_multiplier(x, idx=0):\n    return ({mult}) + {ms} * idx\n\n\n\
                 def slow(idx=0):\n    return {sv} + {ss} * idx\n",
                dv = FLOAT_VALUES[c.default],
                sv = FLOAT_VALUES[c.slow],
            )
        }
        Domain::String => format!(
            "{external}\n\ndef default(idx=0):\n    return {dv:?} + str(idx)\n\n\n\
             def get_key(x, idx=0):\n    digits = ''.join(str((ord(ch) - {k}) % 10) for ch in x.lower() if 'a' <= ch <= 'z')\n    \
             return (digits or '0') + str(idx)\n\n\ndef slow(idx=0):\n    return {sv:?} + str(idx)\n",
            dv = STRING_VALUES[c.default],
            sv = STRING_VALUES[c.slow],
            k = KEY_OFFSETS[c.helper],
        ),
    }
}

/// Python source of the `strops` module (string domain). "Clipped" operations use the first
/// min(len(a), len(b)) characters of each side.
pub const STROPS_SOURCE: &str = r#"import codecs


def _shift(s, k):
    out = []
    for ch in s:
        if 'a' <= ch <= 'z':
            out.append(chr((ord(ch) - 97 + k) % 26 + 97))
        elif 'A' <= ch <= 'Z':
            out.append(chr((ord(ch) - 65 + k) % 26 + 65))
        else:
            out.append(ch)
    return ''.join(out)


def rot13(s):
    return codecs.encode(s, 'rot_13')


def reverse(s):
    return s[::-1]


def swap_case(s):
    return s.swapcase()


def char_rotate(s):
    return _shift(s, 1)


def char_rotate_by_3(s):
    return _shift(s, 3)


def mirror(s):
    out = []
    for ch in s:
        if 'a' <= ch <= 'z':
            out.append(chr(219 - ord(ch)))
        elif 'A' <= ch <= 'Z':
            out.append(chr(155 - ord(ch)))
        else:
            out.append(ch)
    return ''.join(out)


def interleave(a, b):
    n = min(len(a), len(b))
    return ''.join(a[i] if i % 2 == 0 else b[i // 2] for i in range(n))


def swap_halves(a, b):
    n = min(len(a), len(b))
    mid = n // 2
    return a[mid:n] + b[:mid]


def zip_chars(a, b):
    n = min(len(a), len(b))
    return ''.join(a[i] if i % 2 == 0 else b[i] for i in range(n))


def alternate_chars(a, b):
    return a[::2] + b[1::2]


def xor_chars(a, b):
    n = min(len(a), len(b))
    return ''.join(chr(97 + ((ord(a[i]) ^ ord(b[i])) % 26)) for i in range(n))
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_the_product() {
        assert_eq!(block_count(Domain::Math), 625);
        assert_eq!(block_count(Domain::String), 375);
        let mut seen = std::collections::HashSet::new();
        for i in 0..625 {
            let b = block(Domain::Array, i);
            assert!(seen.insert((b.external, b.default, b.helper, b.slow)));
        }
    }
}
