//! The zygote's compiled code, kept between commands: `pool.py` and each harness as the
//! interpreter compiled them (a `marshal` blob), so a command's zygote loads them instead of
//! compiling them again (BENCHMARKS.md, "The whole `cabrito grade` command").
//!
//! One file per source under `~/.cache/cabrito/code/`, named by the SHA-256 of the interpreter's
//! path and the source text; it holds the SHA-256 of its blob, then the blob. The blob begins
//! with the `sys.version` of the interpreter that made it, which the zygote checks before loading
//! it. A missing, corrupt, stale or unwritable file only means the zygote compiles, as without
//! the cache.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// What a cache file starts with (then 32 bytes of SHA-256, then the blob).
const MAGIC: &[u8] = b"cabrito-code 1\n";

/// Where the blobs live: `$CABRITO_CODE_CACHE` (empty: no cache), else under `$XDG_CACHE_HOME`
/// or `~/.cache`.
pub fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CABRITO_CODE_CACHE") {
        return (!d.is_empty()).then(|| PathBuf::from(d));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("cabrito").join("code"))
}

/// The file of `source` (named `name`) as compiled by the interpreter at `python`.
pub fn file(dir: &Path, python: &Path, name: &str, source: &str) -> PathBuf {
    let mut h = Sha256::new();
    h.update(python.as_os_str().as_encoded_bytes());
    h.update([0u8]);
    h.update(source.as_bytes());
    let key: String = h.finalize()[..12].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{name}-{key}.bin"))
}

/// Largest cache file read: the compiled harnesses are tens of kilobytes.
const MAX_BYTES: u64 = 16 << 20;

/// The blob kept in `path`, if it is a whole regular file (its checksum matches). Anything else in its
/// place (a FIFO, a device, a folder, a huge file) reads as no blob, at once.
pub fn read(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    // Non-blocking: opening a FIFO for reading would wait for a writer.
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return None;
    }
    let mut data = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut data).ok()?;
    let rest = data.strip_prefix(MAGIC)?;
    if rest.len() < 32 {
        return None;
    }
    let (sum, blob) = rest.split_at(32);
    (Sha256::digest(blob).as_slice() == sum).then(|| blob.to_vec())
}

/// Keep `blob` in `path`, whole or not at all (a temporary file renamed); errors are ignored.
pub fn write(path: &Path, blob: &[u8]) {
    let mut data = Vec::with_capacity(MAGIC.len() + 32 + blob.len());
    data.extend_from_slice(MAGIC);
    data.extend_from_slice(&Sha256::digest(blob));
    data.extend_from_slice(blob);
    let _ = crate::outdir::write_whole(path, &data);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_a_folder_or_a_device_in_the_cache_reads_as_none_at_once() {
        let d = tempfile::tempdir().unwrap();
        let fifo = d.path().join("fifo.bin");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(read(&fifo), None);
        assert_eq!(read(d.path()), None);
        assert_eq!(read(Path::new("/dev/zero")), None);
        let link = d.path().join("zero.bin");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        assert_eq!(read(&link), None);
    }

    #[test]
    fn a_blob_round_trips_and_a_damaged_file_reads_as_none() {
        let d = tempfile::tempdir().unwrap();
        let p = file(d.path(), Path::new("/usr/bin/python3"), "grade", "print(1)\n");
        assert_eq!(read(&p), None);
        write(&p, b"3.11.7\0blob");
        assert_eq!(read(&p).as_deref(), Some(&b"3.11.7\0blob"[..]));
        let mut data = std::fs::read(&p).unwrap();
        let last = data.len() - 1;
        data[last] ^= 1;
        std::fs::write(&p, &data).unwrap();
        assert_eq!(read(&p), None);
        std::fs::write(&p, &data[..10]).unwrap();
        assert_eq!(read(&p), None);
        // Another source or interpreter is another file.
        assert_ne!(p, file(d.path(), Path::new("/usr/bin/python3"), "grade", "print(2)\n"));
        assert_ne!(p, file(d.path(), Path::new("/usr/bin/python3.12"), "grade", "print(1)\n"));
    }

    #[test]
    fn an_unwritable_folder_is_not_an_error() {
        let d = tempfile::tempdir().unwrap();
        let blocker = d.path().join("file");
        std::fs::write(&blocker, b"x").unwrap();
        let p = file(&blocker, Path::new("python3"), "pool", "pass");
        write(&p, b"blob");
        assert_eq!(read(&p), None);
    }
}
