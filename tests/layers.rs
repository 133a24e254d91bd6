//! The crate graph is the architecture: each crate of the workspace may depend only on crates below
//! it in `LAYERS`, so the knot of modules that all import each other cannot come back.

use serde_json::{json, Value};
use std::process::Command;

/// From the bottom up. A crate may name only crates before it in this list.
const LAYERS: &[&str] =
    &["cabrito-gen", "cabrito-check", "cabrito-analysis", "cabrito-agents", "cabrito-native", "cabrito-py", "cabrito"];

/// Every problem with `cargo metadata`'s packages: a crate outside `LAYERS`, or an edge to a crate
/// that is not below it.
fn problems(meta: &Value) -> Vec<String> {
    let layer = |name: &str| LAYERS.iter().position(|l| *l == name);
    let mut out = Vec::new();
    for p in meta["packages"].as_array().into_iter().flatten() {
        let name = p["name"].as_str().unwrap_or("?");
        let Some(own) = layer(name) else {
            out.push(format!("{name} is not in LAYERS"));
            continue;
        };
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let dep = d["name"].as_str().unwrap_or("?");
            match layer(dep) {
                Some(theirs) if theirs >= own && dep != name => {
                    out.push(format!("{name} depends on {dep}, which is not below it"))
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn no_crate_depends_on_a_crate_above_it() {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata is JSON");
    assert_eq!(problems(&meta), Vec::<String>::new(), "layers: {LAYERS:?}");
    assert_eq!(meta["packages"].as_array().map(Vec::len), Some(LAYERS.len()), "every layer is a crate");
}

#[test]
fn an_upward_edge_or_an_unplaced_crate_is_refused() {
    let meta = json!({"packages": [
        {"name": "cabrito-gen", "dependencies": [{"name": "serde"}, {"name": "cabrito-check"}]},
        {"name": "cabrito-check", "dependencies": [{"name": "cabrito-gen"}]},
        {"name": "cabrito-extra", "dependencies": []},
    ]});
    assert_eq!(
        problems(&meta),
        vec!["cabrito-gen depends on cabrito-check, which is not below it", "cabrito-extra is not in LAYERS"]
    );
}

// ---- The prose names only what exists ----

/// The repository's files (relative paths with `/`), without build output and dependencies.
fn tree_files(root: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if [".git", "target", "node_modules", "dist", "test-artifacts"].contains(&name.as_str()) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// The spans of a Markdown text written in backticks, fenced code left out.
fn code_spans(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let Some(span) = parts.next() {
            out.push(span.to_string());
            parts.next();
        }
    }
    out
}

/// Whether `pattern` (a path, maybe with `<placeholder>` segments) names a file or folder of the
/// tree, from the root or as the tail of a longer path (a module named within its crate's section).
fn path_exists(files: &[String], pattern: &str) -> bool {
    let dir = pattern.ends_with('/');
    let segs: Vec<&str> = pattern.trim_end_matches('/').split('/').collect();
    let seg_ok = |pat: &str, got: &str| {
        if let (Some(a), Some(b)) = (pat.find('<'), pat.find('>')) {
            got.starts_with(&pat[..a]) && got.ends_with(&pat[b + 1..]) && got.len() >= a + pat.len() - b - 1
        } else {
            pat == got
        }
    };
    // A path from a top-level folder is read from the root; a shorter one may be a longer path's tail.
    let anchored = files.iter().any(|f| f.split('/').next() == Some(segs[0]) && f.contains('/'));
    files.iter().any(|f| {
        let parts: Vec<&str> = f.split('/').collect();
        // A folder is matched by the leading parts of a file inside it; a file by its whole path.
        let ends: Vec<usize> = if dir { (1..parts.len()).collect() } else { (1..=parts.len()).collect() };
        ends.into_iter().any(|end| {
            end >= segs.len()
                && (!anchored || end == segs.len())
                && segs.iter().zip(&parts[end - segs.len()..end]).all(|(p, g)| seg_ok(p, g))
        })
    })
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident) && !text[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// What a Rust path such as `check::program::Program`, `task::View` or `TaskSpec::from_pairs` names,
/// checked against the sources: its modules exist (a crate's short name, then `name.rs` or `name/`
/// below), and every item after them is a word of the last module's source; a path that starts
/// with a type needs a file defining the type that holds the other names.
fn rust_path_exists(sources: &[(String, String)], path: &str) -> bool {
    let segs: Vec<&str> = path.split("::").collect();
    let crate_dir = |s: &str| match s.trim_start_matches("cabrito_") {
        "gen" | "check" | "analysis" | "agents" | "native" | "py" => {
            Some(format!("crates/{}/src/", s.trim_start_matches("cabrito_")))
        }
        "cabrito" | "crate" => None,
        _ => None,
    };
    let defines = |text: &str, name: &str| {
        ["struct ", "enum ", "trait ", "type ", "impl ", "mod ", "fn ", "const ", "static "]
            .iter()
            .any(|k| text.match_indices(&format!("{k}{name}")).any(|(i, _)| has_word(&text[i + k.len()..], name)))
            || text.contains(&format!("{name}: "))
    };
    if segs[0].starts_with(char::is_uppercase) {
        return sources.iter().any(|(_, text)| defines(text, segs[0]) && segs[1..].iter().all(|s| has_word(text, s)));
    }
    // Module prefixes: every file whose path holds the segments as consecutive modules.
    let (prefix, mods) = match crate_dir(segs[0]) {
        Some(dir) => (dir, &segs[1..]),
        None => (String::new(), &segs[..]),
    };
    (1..=mods.len()).rev().any(|take| {
        let module = mods[..take].join("/");
        let rest = &mods[take..];
        let files: Vec<&(String, String)> = sources
            .iter()
            .filter(|(p, _)| {
                p.starts_with(&prefix) && (p.ends_with(&format!("/{module}.rs")) || p.contains(&format!("/{module}/")))
            })
            .collect();
        !files.is_empty() && rest.iter().all(|s| files.iter().any(|(_, t)| has_word(t, s)))
    })
}

/// Every problem with the names a Markdown text gives in backticks: paths that are not in the tree,
/// Rust paths, types and constants the sources do not define. `repo_paths_only` checks only the paths
/// that start at a top-level folder of code (for user documents, which also name users' files).
fn doc_problems(md: &str, files: &[String], sources: &[(String, String)], repo_paths_only: bool) -> Vec<String> {
    // Files that are not the repository's: the task's workspace, the spec's documents, build output.
    const ELSEWHERE: &[&str] =
        &["solution.py", "problem.md", "generation.md", "grading.md", "dist/", "mylibrary", "file.py"];
    let roots = ["crates/", "src/", "tests/", "scripts/", "benches/", "www/", "deploy/", "docs/"];
    let mut out = Vec::new();
    for span in code_spans(md) {
        let span = span.trim();
        // A leading `/` is a URL's path (`/ws`), not a file.
        if span.is_empty() || span.starts_with('/') || span.contains(char::is_whitespace) || ELSEWHERE.contains(&span) {
            continue;
        }
        let looks_like_path = span.chars().all(|c| c.is_alphanumeric() || "_-./<>".contains(c))
            && (span.contains('/')
                || [".rs", ".py", ".sh", ".md", ".toml", ".tsv", ".txt", ".html", ".mjs", ".json"]
                    .iter()
                    .any(|e| span.ends_with(e)));
        if looks_like_path {
            if repo_paths_only && !roots.iter().any(|r| span.starts_with(r)) {
                continue;
            }
            if !path_exists(files, span) {
                out.push(format!("no file or folder {span}"));
            }
            continue;
        }
        if repo_paths_only {
            continue;
        }
        let name = span.trim_end_matches("()");
        let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
        if name.contains("::") && name.split("::").all(ident) {
            if !rust_path_exists(sources, name) {
                out.push(format!("no Rust item {name}"));
            }
        } else if ident(name) && name.len() > 2 && name.chars().next().is_some_and(char::is_uppercase) {
            // A type (CamelCase) or a constant (UPPER_CASE) must be defined somewhere.
            let upper = name.chars().all(|c| c.is_uppercase() || c.is_ascii_digit() || c == '_');
            let camel = name.chars().any(char::is_lowercase) && !name.contains('_');
            if (upper || camel)
                && !sources.iter().any(|(_, t)| {
                    ["struct ", "enum ", "trait ", "type ", "const ", "static ", "pub use "]
                    .iter()
                    .any(|k| t.contains(&format!("{k}{name}")))
                    || t.contains(&format!("    {name}: ")) // a registry! enum
                    || t.contains(&format!("{name} = \"")) // a registry! value
                })
            {
                out.push(format!("no type or constant {name}"));
            }
        }
    }
    out
}

#[test]
fn architecture_md_names_only_what_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = tree_files(root);
    let sources: Vec<(String, String)> = files
        .iter()
        .filter(|f| f.ends_with(".rs"))
        .filter_map(|f| Some((f.clone(), std::fs::read_to_string(root.join(f)).ok()?)))
        .collect();
    let md = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    assert_eq!(doc_problems(&md, &files, &sources, false), Vec::<String>::new(), "ARCHITECTURE.md");
    for f in files.iter().filter(|f| f.starts_with("docs/") && f.ends_with(".md")) {
        let md = std::fs::read_to_string(root.join(f)).unwrap();
        assert_eq!(doc_problems(&md, &files, &sources, true), Vec::<String>::new(), "{f}");
    }
}

#[test]
fn the_name_check_catches_what_does_not_exist() {
    let files: Vec<String> = [
        "crates/gen/src/kinds/mod.rs",
        "crates/gen/src/kinds/toy.rs",
        "crates/check/src/program.rs",
        "src/lib.rs",
        "tests/gen/main.rs",
    ]
    .map(String::from)
    .to_vec();
    let sources = vec![
        (
            "crates/gen/src/kinds/mod.rs".to_string(),
            "pub trait TaskKind { fn rubric(); }\npub const KNOBS: u8 = 1;".into(),
        ),
        ("crates/check/src/program.rs".to_string(), "pub struct Program;\nimpl Program { fn parse() {} }".into()),
    ];
    let md = "`crates/gen/src/kinds/toy.rs`, `kinds/<kind>.rs`, `tests/gen/`, `TaskKind`, `KNOBS`,\n\
              `check::program::Program`, `Program::parse`, `TaskKind::rubric`\n\
              ```\n`crates/gone.rs` in a fence is not read\n```\n\
              `crates/gen/src/kinds/gone.rs`, `tests/cli/`, `src/kinds/toy.rs`, `check::program::Gone`,\n\
              `check::nothing`,\n\
              `Program::gone`, `GoneKind`, `GONE_LIST`";
    assert_eq!(
        doc_problems(md, &files, &sources, false),
        vec![
            "no file or folder crates/gen/src/kinds/gone.rs",
            "no file or folder tests/cli/",
            "no file or folder src/kinds/toy.rs",
            "no Rust item check::program::Gone",
            "no Rust item check::nothing",
            "no Rust item Program::gone",
            "no type or constant GoneKind",
            "no type or constant GONE_LIST",
        ]
    );
}

// ---- The wheel shares the test build ----

/// Each package's enabled features (`name version` → the feature lists `cargo tree` prints; a crate
/// built for the host and for the target can show two).
fn features_by_package(tree: &str) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let mut out = std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new();
    for line in tree.lines() {
        let Some((package, features)) = line.split_once('|') else { continue };
        let name_version = package.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
        out.entry(name_version).or_default().insert(features.trim_end_matches(" (*)").to_string());
    }
    out
}

/// The packages `part` shares with `whole` whose features differ, with both lists.
fn feature_drift(part: &str, whole: &str) -> Vec<String> {
    let whole = features_by_package(whole);
    features_by_package(part)
        .into_iter()
        .filter_map(|(package, features)| {
            let theirs = whole.get(&package)?;
            (*theirs != features).then(|| format!("{package}: {features:?} in the wheel, {theirs:?} in the tests"))
        })
        .collect()
}

fn cargo_tree(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--offline", "--locked", "--prefix", "none", "-f", "{p}|{f}"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("cargo tree prints UTF-8")
}

/// scripts/python.sh builds the wheel (`-p cabrito-py`) right after the Rust tests' build (every crate
/// but cabrito-py, scripts/test.sh's `RUST_TESTS`); it reuses that build only if every crate they share
/// has the same features (crates/py/Cargo.toml lists the ones the root's test-only dependencies add).
#[test]
fn the_wheel_resolves_the_features_of_the_test_build() {
    let wheel = cargo_tree(&["-e", "normal,build", "-p", "cabrito-py"]);
    let tests = cargo_tree(&["-e", "normal,build,dev", "--workspace", "--exclude", "cabrito-py"]);
    assert_eq!(feature_drift(&wheel, &tests), Vec::<String>::new(), "add these features to crates/py/Cargo.toml");
}

#[test]
fn a_feature_missing_from_the_wheel_is_drift() {
    let tests = "serde v1.0.0|default,rc,std\nsyn v2.0.0 (proc-macro)|full\nsyn v2.0.0 (proc-macro)|full (*)\n";
    assert_eq!(feature_drift("syn v2.0.0 (proc-macro)|full\npyo3 v0.1.0|abi3\n", tests), Vec::<String>::new());
    assert_eq!(
        feature_drift("serde v1.0.0|default,std\n", tests),
        vec![r#"serde v1.0.0: {"default,std"} in the wheel, {"default,rc,std"} in the tests"#]
    );
}
