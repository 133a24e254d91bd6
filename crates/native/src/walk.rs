//! Walking a folder: every file once, whatever symbolic links it holds. Real paths are read
//! first; a link is followed only to what has not been reached yet, so a link back up the tree (a
//! loop) or a second path to a file is skipped, and each skipped link is named.

use std::collections::{HashMap, HashSet};
use std::os::unix::ffi::OsStrExt;
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
    /// The folder's parent: the files' paths are relative to it.
    parent: PathBuf,
    /// Every file once, sorted, relative to `parent` (so the folder's own name, such as `results`,
    /// stays in the path). Only these are kept per file: a walk can meet hundreds of thousands.
    found: Vec<PathBuf>,
    /// Links not followed, and folders that could not be read: one sentence each, naming the path.
    pub skipped: Vec<(String, String)>,
}

impl Walk {
    /// Every file once, in order: its path as shown (relative, `/`-separated) and its full path.
    pub fn files(&self) -> impl Iterator<Item = (String, PathBuf)> + '_ {
        self.found.iter().map(|r| (shown(r), self.parent.join(r)))
    }
}

fn shown(rel: &Path) -> String {
    rel.to_string_lossy().replace('\\', "/")
}

/// Every file under `dir` once (see the module's note); folders in `leave_out` (an output folder
/// inside the input) are not entered.
pub fn files_under(dir: &Path, leave_out: &[&Path]) -> Walk {
    let parent = dir.parent().unwrap_or(dir);
    let rel_path = |p: &Path| p.strip_prefix(parent).unwrap_or(p).to_path_buf();
    let rel = |p: &Path| shown(&rel_path(p));
    let mut walk = Walk { parent: parent.to_path_buf(), ..Walk::default() };
    // Where each folder was first reached, and each file (its index in `walk.found`).
    let mut dirs: HashMap<Id, String> = HashMap::new();
    let mut files: HashMap<Id, usize> = HashMap::new();
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
                    if let Some(&first) = files.get(&id_of(&m)) {
                        let first = shown(&walk.found[first]);
                        walk.skipped.push((rel(&p), format!("the same file as {first} (a hard link); skipped")));
                        continue;
                    }
                    files.insert(id_of(&m), walk.found.len());
                    walk.found.push(rel_path(&p));
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
                if let Some(&first) = files.get(&id) {
                    let first = shown(&walk.found[first]);
                    walk.skipped.push((r, format!("a link to {first}, read already; skipped")));
                    continue;
                }
                files.insert(id, walk.found.len());
                walk.found.push(rel_path(&link));
            }
        }
    }
    // In the order of the shown paths (a string's order is its bytes').
    walk.found.sort_by(|a, b| a.as_os_str().as_bytes().cmp(b.as_os_str().as_bytes()));
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
        let names: Vec<String> = w.files().map(|(r, _)| r).collect();
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
        assert!(w.files().any(|(r, _)| r == "results/o1/o.jsonl"));
        assert!(!w.files().any(|(r, _)| r.starts_with("results/o2")));
        assert!(w.skipped.iter().any(|(r, why)| r == "results/o2" && why.contains("second path")));
    }
}
