//! Helpers for tests that run the `cabrito` binary and read its tables: a run that must succeed,
//! and the rows of a CSV table it wrote. Shared by tests/cli and tests/toy_kind.rs (`#[path]`).
#![allow(dead_code)]

use std::path::Path;
use std::process::Output;

/// The stdout of a run that must have succeeded (else the test fails showing both streams).
pub fn ok(o: &Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what} failed ({}):\n{}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A CSV table's header and rows (quoted fields, with doubled quotes inside, are read whole).
pub fn csv_table(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text.lines();
    let header = lines.next().map(split_csv).expect("a header");
    (header, lines.map(split_csv).collect())
}

/// [`csv_table`] of a file.
pub fn csv_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    csv_table(&text)
}

/// The position of a column in a header.
pub fn col(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// One column of a CSV table, row by row.
pub fn column_of(csv: &str, name: &str) -> Vec<String> {
    let (header, rows) = csv_table(csv);
    let i = col(&header, name);
    rows.into_iter().map(|mut r| if i < r.len() { r.swap_remove(i) } else { String::new() }).collect()
}

fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut q = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, q) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => q = !q,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}
