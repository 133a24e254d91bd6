//! `cabrito serve`: the built app and the grading worker on one port.
//!
//! The app is the static `dist/` folder that `trunk build --release` writes; it uses hash routing,
//! so serving the files as they are is enough. The worker's WebSocket (`/ws`) sits beside it
//! ([`router`]). The files are compressed once: at start, [`precompress`] writes `file.br` and
//! `file.gz` beside each text or wasm file whose copies are missing or stale.

use super::cli::Failure;
use axum::http::{header, HeaderValue, Request};
use axum::Router;
use clap::{Arg, ArgMatches, Command};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tower_http::compression::CompressionLayer;
use tower_http::services::ServeDir;

/// The default address: loopback only, so a laptop's worker is not reachable from the network.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

pub fn command() -> Command {
    Command::new("serve")
        .about("Serve the playground (the built app in dist/) and print its URL")
        .arg(
            Arg::new("addr")
                .long("addr")
                .value_name("IP:PORT")
                .default_value(DEFAULT_ADDR)
                .help("address to listen on (port 0 picks a free port)"),
        )
        .arg(
            Arg::new("dist")
                .long("dist")
                .value_name("DIR")
                .default_value("dist")
                .help("the built app, as written by `trunk build --release`"),
        )
        .arg(
            Arg::new("precompress-only")
                .long("precompress-only")
                .action(clap::ArgAction::SetTrue)
                .help("write the brotli and gzip copies of dist/ that are missing or stale, then exit"),
        )
        .args(super::worker::args())
}

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let addr_text = m.get_one::<String>("addr").map(String::as_str).unwrap_or(DEFAULT_ADDR);
    let addr: SocketAddr = addr_text.parse().map_err(|_| {
        Failure::Usage(format!(
            "--addr must be IP:PORT such as {DEFAULT_ADDR} (port 0 picks a free port), got '{addr_text}'"
        ))
    })?;
    let dist = PathBuf::from(m.get_one::<String>("dist").map(String::as_str).unwrap_or("dist"));
    check_dist(&dist)?;
    if m.get_flag("precompress-only") {
        return precompress_now(&dist);
    }
    super::worker::configure(m)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the server runtime: {e}")))?;
    runtime.block_on(serve(addr, dist))
}

/// The built app must be there: say how to build it when it is not.
pub fn check_dist(dist: &Path) -> Result<(), Failure> {
    if dist.join("index.html").is_file() {
        return Ok(());
    }
    Err(Failure::Other(format!(
        "no built app in '{}' ({} is missing). Build and serve it with `bash scripts/serve.sh` \
         (installs what is missing first), or build it with `trunk build --release`, or point --dist at a built app",
        dist.display(),
        dist.join("index.html").display()
    )))
}

/// `--precompress-only`: the copies now, in the foreground (scripts/test.sh, once after the app
/// build, so that the servers the tests start find them fresh).
fn precompress_now(dist: &Path) -> Result<(), Failure> {
    let start = Instant::now();
    let done = precompress(dist);
    println!("{}", done.summary(start.elapsed().as_secs_f64()));
    match done.failed.first() {
        None => Ok(()),
        Some(f) => {
            Err(Failure::Other(format!("cannot write {} precompressed copies, the first {f}", done.failed.len())))
        }
    }
}

/// Every route of the server.
pub fn router(dist: &Path) -> Router {
    // The app: every other path is a file of dist/, sent as its precompressed copy when the browser
    // accepts one ([`precompress`]), else gzip-compressed on the fly. Trunk's hashed files never
    // change under their name, so they are cached for a year; the others get `no-cache`, so they
    // never outlive an upgrade.
    let files = ServeDir::new(dist).append_index_html_on_directories(true).precompressed_br().precompressed_gzip();
    let app = Router::new()
        .fallback_service(files)
        .layer(axum::middleware::map_request_with_state(dist.to_path_buf(), skip_stale_copies))
        .layer(axum::middleware::map_response_with_state((), cache_headers))
        .layer(CompressionLayer::new().gzip(true).no_br().no_deflate().no_zstd());
    Router::new()
        // ---- the grading worker: the `/ws` WebSocket route ----
        .merge(super::worker::routes())
        .merge(app)
}

/// `Cache-Control` and `Vary` for a file of dist/ (see [`router`]).
async fn cache_headers(
    axum::extract::OriginalUri(uri): axum::extract::OriginalUri,
    mut response: axum::response::Response,
) -> axum::response::Response {
    let value = if response.status().is_success() && is_hashed(uri.path()) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    // The same address answers in brotli, gzip or as it is, by the request's Accept-Encoding.
    let varies = headers.get_all(header::VARY).iter().any(|v| v.as_bytes().eq_ignore_ascii_case(b"accept-encoding"));
    if !varies {
        headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
    }
    response
}

/// A request for a file whose precompressed copy is stale (the file changed after the copy was
/// made, say by hand, or is gone) must not get the copy: hide the request's Accept-Encoding from the file
/// service, which then reads the file itself (the compression layer outside still compresses it
/// for a browser that accepts gzip).
async fn skip_stale_copies(
    axum::extract::State(dist): axum::extract::State<PathBuf>,
    mut request: Request<axum::body::Body>,
) -> Request<axum::body::Body> {
    if let Some(file) = file_of(&dist, request.uri().path()) {
        if COPIES.iter().any(|(ext, _)| copy_state(&file, ext) == CopyState::Stale) {
            request.headers_mut().remove(header::ACCEPT_ENCODING);
        }
    }
    request
}

/// The file of dist/ a request path names, for the paths Trunk's files have (plain segments, no
/// percent escapes, no `.` or `..`); `None` for anything else, which the file service judges itself.
fn file_of(dist: &Path, path: &str) -> Option<PathBuf> {
    let rest = path.strip_prefix('/')?;
    if rest.contains('%') || rest.contains('\\') {
        return None;
    }
    let mut file = dist.to_path_buf();
    let segments: Vec<&str> = rest.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            // `/` and `dir/` end in an empty segment: the folder's index.html.
            "" if i + 1 == segments.len() => {}
            "" | "." | ".." => return None,
            s => file.push(s),
        }
    }
    if rest.is_empty() || rest.ends_with('/') || file.is_dir() {
        file.push("index.html");
    }
    Some(file)
}

/// A file name Trunk gave a content hash: `stem-<12 or more hex digits>` then an optional `_bg`,
/// then the extension (`cabrito-b87b087ccae4ad4e_bg.wasm`, `style-d69004609935550d.css`).
pub fn is_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((stem, _ext)) = name.rsplit_once('.') else { return false };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    let Some((_, hash)) = stem.rsplit_once('-') else { return false };
    hash.len() >= 12 && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The extensions of dist/'s files worth compressing: text and wasm (images other than SVG are
/// compressed already).
const COMPRESSIBLE: &[&str] = &["html", "js", "mjs", "css", "wasm", "svg", "json", "txt", "map"];

/// A compressor: a file's bytes in, its compressed copy out.
type Compress = fn(&[u8]) -> std::io::Result<Vec<u8>>;

/// The precompressed copies: extension and what writes it.
const COPIES: [(&str, Compress); 2] = [("br", brotli_best), ("gz", gzip_best)];

/// Brotli at its best compression (quality 11, a 4 MiB window): the app's wasm in about
/// three quarters of its gzip size.
fn brotli_best(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 3);
    let params = brotli::enc::BrotliEncoderParams { quality: 11, lgwin: 22, ..Default::default() };
    brotli::BrotliCompress(&mut &data[..], &mut out, &params)?;
    Ok(out)
}

/// Gzip as small as a fast encoder makes it: libdeflate at level 12, its best (the app's wasm 4.8 %
/// smaller than zlib's level 9, in under a second; zopfli saves about as much in ten times the time).
/// Any gzip decoder reads it. `tests/first_download.rs` measures the first download with this
/// function, so its figure is what a browser that accepts gzip is sent.
pub fn gzip_best(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut z = libdeflater::Compressor::new(libdeflater::CompressionLvl::best());
    let mut out = vec![0; z.gzip_compress_bound(data.len())];
    let n = z.gzip_compress(data, &mut out).map_err(|e| std::io::Error::other(format!("gzip: {e:?}")))?;
    out.truncate(n);
    Ok(out)
}

#[derive(Debug, PartialEq)]
enum CopyState {
    /// No copy (the file is not worth compressing, or the copy was not made).
    Missing,
    /// The copy has the file's modification time: it was made from this version of the file.
    Fresh,
    /// The copy's time differs from the file's (the file changed after the copy was made), or the
    /// file is gone.
    Stale,
}

/// The state of `file.<ext>`, by modification times ([`write_copy`] gives a copy its file's time).
fn copy_state(file: &Path, ext: &str) -> CopyState {
    let copy = with_suffix(file, ext);
    let Ok(copy_meta) = std::fs::metadata(&copy) else { return CopyState::Missing };
    let times = (std::fs::metadata(file).and_then(|m| m.modified()), copy_meta.modified());
    match times {
        (Ok(a), Ok(b)) if a == b => CopyState::Fresh,
        _ => CopyState::Stale,
    }
}

/// `path` with `.ext` appended (`a.wasm` → `a.wasm.br`).
fn with_suffix(path: &Path, ext: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// What [`precompress`] did.
#[derive(Debug, Default)]
pub struct Precompressed {
    /// Copies written (stale or missing ones).
    pub written: usize,
    /// Copies already fresh.
    pub fresh: usize,
    /// Files whose copies could not be written, with why (a read-only dist/, say); they are
    /// compressed per request instead.
    pub failed: Vec<String>,
}

impl Precompressed {
    /// The line `cabrito serve` prints when the copies are done (scripts wait for it).
    pub fn summary(&self, secs: f64) -> String {
        format!("precompressed: {} copies written, {} fresh, in {secs:.1} s", self.written, self.fresh)
    }
}

/// Write the brotli and gzip copies (`file.br`, `file.gz`) of every compressible file of dist/ and
/// its folders whose copies are missing or stale, the first download first (index.html, then
/// Trunk's hashed files). A copy is written to a temporary name, given its file's modification
/// time, then renamed into place, so a request never reads half a copy and two servers starting
/// at once do not harm each other. A copy that would not be smaller than its file is not written.
pub fn precompress(dist: &Path) -> Precompressed {
    // One server at a time makes the copies (tests start several on the same dist/): the others
    // wait on the folder's lock, then find the copies fresh. Where a folder cannot be locked, each
    // makes its own (the renames keep that safe, only slower).
    let lock = std::fs::File::open(dist).ok().filter(|d| d.lock().is_ok());
    // Under the lock, a temporary copy is a dead server's (killed while it wrote): remove it.
    if lock.is_some() {
        remove_leftovers(dist, 0);
    }
    let mut files = Vec::new();
    list_compressible(dist, &mut files, 0);
    let rank = |f: &PathBuf| {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        (name != "index.html", !is_hashed(name), f.clone())
    };
    files.sort_by_key(rank);
    // One copy per job, started in that order on rayon's threads (one per core): brotli at its best
    // is most of the time, and the largest module alone takes a third of it.
    let done = std::sync::Mutex::new(Precompressed::default());
    rayon::scope_fifo(|scope| {
        for file in &files {
            for (ext, compress) in COPIES {
                let done = &done;
                scope.spawn_fifo(move |_| {
                    let fresh = copy_state(file, ext) == CopyState::Fresh;
                    let result = if fresh { Ok(false) } else { write_copy(file, ext, compress) };
                    let mut done = done.lock().unwrap_or_else(|e| e.into_inner());
                    match result {
                        _ if fresh => done.fresh += 1,
                        Ok(true) => done.written += 1,
                        Ok(false) => {}
                        Err(e) => done.failed.push(format!("{}.{ext}: {e}", file.display())),
                    }
                });
            }
        }
    });
    drop(lock);
    done.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The prefix of a copy being written ([`write_copy`]).
const TEMP_PREFIX: &str = ".cabrito-copy-";

/// Remove the temporary copies under `dir` (folders up to 8 deep).
fn remove_leftovers(dir: &Path, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() && depth < 8 {
            remove_leftovers(&entry.path(), depth + 1);
        } else if kind.is_file() && entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The compressible files under `dir` (not the copies themselves; folders up to 8 deep).
fn list_compressible(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() && depth < 8 {
            list_compressible(&path, out, depth + 1);
        } else if kind.is_file() {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if COMPRESSIBLE.iter().any(|c| c.eq_ignore_ascii_case(ext)) {
                out.push(path);
            }
        }
    }
}

/// Write one copy; `Ok(false)` when compressing does not make the file smaller (no copy then, and a
/// stale one is removed).
fn write_copy(file: &Path, ext: &str, compress: Compress) -> std::io::Result<bool> {
    let meta = std::fs::metadata(file)?;
    let data = std::fs::read(file)?;
    let packed = compress(&data)?;
    let copy = with_suffix(file, ext);
    if packed.len() >= data.len() {
        match std::fs::remove_file(&copy) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => return Ok(false),
        }
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(TEMP_PREFIX).tempfile_in(dir)?;
    tmp.write_all(&packed)?;
    tmp.as_file().set_permissions(meta.permissions())?;
    tmp.as_file().set_modified(meta.modified()?)?;
    // A copy made from a version of the file that changed while it was compressed is not kept.
    if std::fs::metadata(file)?.modified()? != meta.modified()? {
        return Ok(false);
    }
    tmp.persist(&copy).map_err(|e| e.error)?;
    Ok(true)
}

async fn serve(addr: SocketAddr, dist: PathBuf) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        Failure::Other(format!(
            "cannot listen on {addr}: {e} (is another server using the port? try --addr 127.0.0.1:0)"
        ))
    })?;
    let local = listener.local_addr()?;
    let shown = std::fs::canonicalize(&dist).unwrap_or_else(|_| dist.clone());
    // The address is news, not a duty: a closed stdout (`cabrito serve | head -1`, a supervisor that
    // reads one line) must not stop the server, so write errors are ignored.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "Cabrito playground: http://{local}/")
        .and_then(|_| writeln!(out, "serving {} (press Ctrl+C to stop)", shown.display()))
        .and_then(|_| out.flush());
    drop(out);
    // The copies are made beside the serving (a first start after a build takes seconds: brotli at
    // its best), on a thread of their own that ends with the process; until a file's copies are
    // there it is compressed per request.
    let to_pack = dist.clone();
    let _ = std::thread::Builder::new().name("precompress".into()).spawn(move || {
        let start = Instant::now();
        let done = precompress(&to_pack);
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", done.summary(start.elapsed().as_secs_f64())).and_then(|_| out.flush());
        drop(out);
        for f in done.failed.iter().take(5) {
            eprintln!("cabrito serve: cannot write the precompressed copy {f}; that file is compressed per request");
        }
    });
    axum::serve(listener, router(&dist))
        .with_graceful_shutdown(shutdown())
        .await
        .map_err(|e| Failure::Other(format!("the server stopped: {e}")))
}

/// Resolve on Ctrl+C or SIGTERM.
async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

#[cfg(test)]
mod tests {
    use super::{file_of, gzip_best, is_hashed};
    use proptest::prelude::*;
    use std::io::Read;
    use std::path::Path;

    proptest! {
        /// Every gzip copy is a gzip stream any decoder (here zlib's, through flate2) reads back to
        /// the file's bytes: empty, random, and repetitive like code.
        #[test]
        fn gzip_copies_decode_to_the_file(bytes in proptest::collection::vec(any::<u8>(), 0..4096), reps in 0usize..200) {
            let mut data = bytes.clone();
            for _ in 0..reps {
                data.extend_from_slice(&bytes[..bytes.len().min(37)]);
            }
            let packed = gzip_best(&data).unwrap();
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&packed[..]).read_to_end(&mut back).unwrap();
            prop_assert_eq!(back, data);
        }
    }

    #[test]
    fn request_paths_name_files_of_dist_or_none() {
        let dist = Path::new("/no/such/dist");
        assert_eq!(file_of(dist, "/"), Some(dist.join("index.html")));
        assert_eq!(file_of(dist, "/a.wasm"), Some(dist.join("a.wasm")));
        assert_eq!(file_of(dist, "/snippets/x/"), Some(dist.join("snippets/x/index.html")));
        assert_eq!(file_of(dist, "/snippets/x/a.js"), Some(dist.join("snippets/x/a.js")));
        for odd in ["", "a.js", "//a.js", "/a//b.js", "/../a.js", "/a/../b.js", "/./a.js", "/%2e%2e/a.js", "/a\\b.js"] {
            assert_eq!(file_of(dist, odd), None, "{odd}");
        }
    }

    #[test]
    fn trunk_hashed_names_are_told_apart() {
        for name in [
            "/cabrito-b87b087ccae4ad4e_bg.wasm",
            "/cabrito-b87b087ccae4ad4e.js",
            "/style-d69004609935550d.css",
            "/favicon-8c5731ffd391d5d.svg",
            "/a/b/agents-164aef7dee9cb576.css",
        ] {
            assert!(is_hashed(name), "{name}");
        }
        for name in [
            "/",
            "/index.html",
            "/checker.js",
            "/checker_bg.wasm",
            "/checker_loader.js",
            "/x-abc.js",
            "/x-b87b087ccae4ad4g.js",
            "-b87b087ccae4ad4e",
        ] {
            assert!(!is_hashed(name), "{name}");
        }
    }
}
