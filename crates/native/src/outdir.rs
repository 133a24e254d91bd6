//! An output folder written whole or not at all: the files go to a temporary folder beside it,
//! which replaces it in one rename at the end. A failure leaves the folder as it was; a new
//! output leaves nothing of an older one behind (no stale table from an earlier run).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Write one file whole or not at all: a temporary file beside `path`, renamed over it. A failure
/// leaves `path` as it was and removes the temporary file; two writers never share a temporary name.
/// The file gets the usual mode (0666 less the umask), as `std::fs::write` would give it.
pub fn write_whole(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.", name_of(path)))
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    tmp.write_all(contents)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// An output folder being written.
pub struct Staged {
    tmp: tempfile::TempDir,
    out: PathBuf,
}

fn name_of(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

impl Staged {
    /// Start writing `out`. It must not exist, or be a folder holding only names this command
    /// writes (`ours`: top-level files and folders), so that replacing it loses nothing else.
    pub fn new(out: &Path, ours: &[&str]) -> Result<Staged, String> {
        if let Ok(m) = std::fs::symlink_metadata(out) {
            if m.is_dir() {
                let rd = std::fs::read_dir(out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
                let mut foreign: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .map(|e| name_of(&e.path()))
                    .filter(|n| !ours.contains(&n.as_str()))
                    .collect();
                foreign.sort();
                if !foreign.is_empty() {
                    return Err(format!(
                        "--out {} holds files this command did not write ({}{}); give a new or empty folder, as it is replaced whole",
                        out.display(),
                        foreign.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
                        if foreign.len() > 5 { ", …" } else { "" }
                    ));
                }
            }
        }
        Staged::beside(out)
    }

    /// Start writing files for `out` without looking at what it holds: for [`Staged::commit_files`].
    pub fn beside(out: &Path) -> Result<Staged, String> {
        if std::fs::symlink_metadata(out).is_ok_and(|m| !m.is_dir()) {
            return Err(format!("--out {} is not a folder", out.display()));
        }
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{}.new-", name_of(out)))
            .tempdir_in(&parent)
            .map_err(|e| format!("cannot create a folder in {}: {e}", parent.display()))?;
        Ok(Staged { tmp, out: out.to_path_buf() })
    }

    fn path_of(&self, rel: &str) -> Result<PathBuf, String> {
        let p = self.tmp.path().join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", self.shown(d)))?;
        }
        Ok(p)
    }

    /// A path inside the temporary folder as the user will see it (under `--out`).
    fn shown(&self, p: &Path) -> String {
        self.out.join(p.strip_prefix(self.tmp.path()).unwrap_or(p)).display().to_string()
    }

    /// Write one file (`rel` under the output folder).
    pub fn write(&self, rel: &str, contents: &[u8]) -> Result<(), String> {
        let p = self.path_of(rel)?;
        std::fs::write(&p, contents).map_err(|e| format!("cannot write {}: {e}", self.shown(&p)))
    }

    /// A file to write as a stream.
    pub fn create(&self, rel: &str) -> Result<Stream, String> {
        let p = self.path_of(rel)?;
        let f = std::fs::File::create(&p).map_err(|e| format!("cannot write {}: {e}", self.shown(&p)))?;
        Ok(Stream { w: std::io::BufWriter::new(f), shown: self.shown(&p) })
    }

    /// Put the new folder in place of the old one (which is removed).
    pub fn commit(self) -> Result<(), String> {
        let out = &self.out;
        let old = match std::fs::symlink_metadata(out) {
            Ok(_) => {
                let parent = self.tmp.path().parent().unwrap_or(Path::new("."));
                let old = tempfile::Builder::new()
                    .prefix(&format!(".{}.old-", name_of(out)))
                    .tempdir_in(parent)
                    .map_err(|e| format!("cannot create a folder in {}: {e}", parent.display()))?
                    .keep();
                std::fs::rename(out, &old).map_err(|e| format!("cannot move the old {} aside: {e}", out.display()))?;
                Some(old)
            }
            Err(_) => None,
        };
        let new = self.tmp.keep();
        if let Err(e) = std::fs::rename(&new, out) {
            if let Some(old) = &old {
                let _ = std::fs::rename(old, out);
            }
            let _ = std::fs::remove_dir_all(&new);
            return Err(format!("cannot put {} in place: {e}", out.display()));
        }
        if let Some(old) = old {
            let _ = std::fs::remove_dir_all(old);
        }
        Ok(())
    }

    /// Move each new file into `out`, keeping the files it already holds (the shards of one grid
    /// share a folder). Each file lands whole, by a rename; nothing lands if writing failed before.
    pub fn commit_files(self) -> Result<(), String> {
        std::fs::create_dir_all(&self.out).map_err(|e| format!("cannot create {}: {e}", self.out.display()))?;
        let mut todo = vec![self.tmp.path().to_path_buf()];
        while let Some(dir) = todo.pop() {
            let rd = std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            for entry in rd {
                let from = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?.path();
                if from.is_dir() {
                    todo.push(from);
                    continue;
                }
                let to = self.out.join(from.strip_prefix(self.tmp.path()).unwrap_or(&from));
                if let Some(d) = to.parent() {
                    std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
                }
                std::fs::rename(&from, &to).map_err(|e| format!("cannot put {} in place: {e}", to.display()))?;
            }
        }
        Ok(())
    }
}

/// A file of a [`Staged`] folder written as a stream.
pub struct Stream {
    w: std::io::BufWriter<std::fs::File>,
    shown: String,
}

impl Stream {
    pub fn put(&mut self, text: &str) -> Result<(), String> {
        self.w.write_all(text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", self.shown))
    }
    /// Flush it to the file (an error here is a lost write too).
    pub fn finish(mut self) -> Result<(), String> {
        self.w.flush().map_err(|e| format!("cannot write {}: {e}", self.shown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_folder_replaces_the_old_whole_and_a_foreign_one_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let out = t.path().join("page");
        std::fs::create_dir_all(out.join("tables")).unwrap();
        std::fs::write(out.join("tables/stale.csv"), "x").unwrap();
        let s = Staged::new(&out, &["tables", "index.html"]).unwrap();
        s.write("tables/a.csv", b"a").unwrap();
        s.write("index.html", b"<p>").unwrap();
        s.commit().unwrap();
        assert!(out.join("tables/a.csv").is_file() && !out.join("tables/stale.csv").exists());
        let left: Vec<_> = std::fs::read_dir(t.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["page"], "no temporary folder is left");
        // Dropped without commit: nothing changes.
        let s = Staged::new(&out, &["tables", "index.html"]).unwrap();
        s.write("index.html", b"new").unwrap();
        drop(s);
        assert_eq!(std::fs::read(out.join("index.html")).unwrap(), b"<p>");
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        let e = Staged::new(&out, &["tables", "index.html"]).err().unwrap();
        assert!(e.contains("notes.txt"), "{e}");
    }

    #[test]
    fn a_file_is_replaced_whole_or_left_as_it_was() {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        let f = t.path().join("deep/results.jsonl");
        write_whole(&f, b"one\n").unwrap();
        write_whole(&f, b"two\n").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two\n");
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o600, 0o600);
        let names: Vec<_> = std::fs::read_dir(f.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["results.jsonl"], "no temporary file is left");
        // A folder in the file's place cannot be replaced: an error, the folder and its files kept.
        let d = t.path().join("taken");
        std::fs::create_dir_all(d.join("inner")).unwrap();
        assert!(write_whole(&d, b"x").is_err());
        assert!(d.join("inner").is_dir());
        let names: Vec<_> = std::fs::read_dir(t.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
    }
}
