//! Walking a folder: every file once, whatever symbolic links it holds. Real paths are read
//! first; a link is followed only to what has not been reached yet, so a link back up the tree (a
//! loop) or a second path to a file is skipped, and each skipped link is named.

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A file or folder's identity on its device.
type Id = (u64, u64);

fn id_of(m: &std::fs::Metadata) -> Id {
    (m.dev(), m.ino())
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// Every file once, sorted, with its path relative to the folder's parent (so the folder's own
    /// name, such as `results`, stays in the path).
    pub files: Vec<(String, PathBuf)>,
    /// Links not followed, and folders that could not be read: one sentence each, naming the path.
    pub skipped: Vec<(String, String)>,
}

/// Every file under `dir` once (see the module's note); folders in `leave_out` (an output folder
/// inside the input) are not entered.
pub fn files_under(dir: &Path, leave_out: &[&Path]) -> Walk {
    let parent = dir.parent().unwrap_or(dir);
    let rel = |p: &Path| p.strip_prefix(parent).unwrap_or(p).to_string_lossy().replace('\\', "/");
    let mut walk = Walk::default();
    // Where each folder and file was first reached.
    let mut dirs: HashMap<Id, String> = HashMap::new();
    let mut files: HashMap<Id, String> = HashMap::new();
    let left_out: HashSet<Id> = leave_out.iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| id_of(&m)).collect();
    let Ok(top) = std::fs::metadata(dir) else {
        walk.skipped.push((rel(dir), "cannot be read".into()));
        return walk;
    };
    dirs.insert(id_of(&top), rel(dir));
    let mut links: Vec<PathBuf> = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    loop {
        // Real folders first, depth first.
        while let Some(d) = folders.pop() {
            let entries = match std::fs::read_dir(&d) {
                Ok(rd) => rd,
                Err(e) => {
                    walk.skipped.push((rel(&d), format!("cannot be read ({e})")));
                    continue;
                }
            };
            let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            entries.sort();
            for p in entries.into_iter().rev() {
                let Ok(m) = std::fs::symlink_metadata(&p) else { continue };
                if m.file_type().is_symlink() {
                    links.push(p);
                } else if m.is_dir() {
                    if left_out.contains(&id_of(&m)) {
                        continue;
                    }
                    dirs.insert(id_of(&m), rel(&p));
                    folders.push(p);
                } else if m.is_file() {
                    if let Some(first) = files.get(&id_of(&m)) {
                        walk.skipped.push((rel(&p), format!("the same file as {first} (a hard link); skipped")));
                        continue;
                    }
                    files.insert(id_of(&m), rel(&p));
                    walk.files.push((rel(&p), p));
                }
            }
        }
        // Then the links met, in path order; a folder reached through one is walked the same way.
        if links.is_empty() {
            break;
        }
        links.sort();
        for link in std::mem::take(&mut links) {
            let r = rel(&link);
            let Ok(m) = std::fs::metadata(&link) else {
                walk.skipped.push((r, "a link to nothing (or a loop of links); skipped".into()));
                continue;
            };
            let id = id_of(&m);
            if m.is_dir() {
                if left_out.contains(&id) {
                    continue;
                }
                if let Some(first) = dirs.get(&id) {
                    let what = if Path::new(&r).starts_with(first) { "a loop" } else { "a second path" };
                    walk.skipped.push((r, format!("a link to {first}, read already ({what}); skipped")));
                    continue;
                }
                dirs.insert(id, r);
                folders.push(link);
            } else if m.is_file() {
                if let Some(first) = files.get(&id) {
                    walk.skipped.push((r, format!("a link to {first}, read already; skipped")));
                    continue;
                }
                files.insert(id, r.clone());
                walk.files.push((r, link));
            }
        }
    }
    walk.files.sort();
    walk
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn loops_and_second_paths_are_skipped_and_named() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("results");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/x.jsonl"), "{}").unwrap();
        std::fs::write(root.join("y.jsonl"), "{}").unwrap();
        symlink(".", root.join("a/loop")).unwrap();
        symlink("..", root.join("a/b/up")).unwrap();
        symlink("y.jsonl", root.join("a/z.jsonl")).unwrap();
        symlink("nowhere", root.join("broken")).unwrap();
        let w = files_under(&root, &[]);
        let names: Vec<&str> = w.files.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(names, ["results/a/b/x.jsonl", "results/y.jsonl"]);
        let skipped: Vec<&str> = w.skipped.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(skipped, ["results/a/b/up", "results/a/loop", "results/a/z.jsonl", "results/broken"]);
        assert!(w.skipped[1].1.contains("a loop"), "{:?}", w.skipped);
        // A link to a folder outside is followed, once.
        let other = t.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("o.jsonl"), "{}").unwrap();
        symlink(&other, root.join("o1")).unwrap();
        symlink(&other, root.join("o2")).unwrap();
        let w = files_under(&root, &[]);
        assert!(w.files.iter().any(|(r, _)| r == "results/o1/o.jsonl"));
        assert!(!w.files.iter().any(|(r, _)| r.starts_with("results/o2")));
        assert!(w.skipped.iter().any(|(r, why)| r == "results/o2" && why.contains("second path")));
    }
}
