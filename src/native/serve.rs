//! `cabrito serve`: the built app and the worker on one port.
//!
//! The app is the static `dist/` folder that `trunk build --release` writes; it uses hash routing,
//! so serving the files as they are is all it needs. The grading worker's WebSocket (`/ws`) will sit
//! next to it on the same port (see [`router`]).

use super::cli::Failure;
use axum::http::{header, HeaderValue};
use axum::Router;
use clap::{Arg, ArgMatches, Command};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
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

/// Every route of the server.
pub fn router(dist: &Path) -> Router {
    // The app: every other path is a file of dist/, gzip-compressed when the browser accepts it
    // (the app's wasm is a third of its size in gzip). Trunk's hashed files (`name-<hash>.ext`)
    // never change under their name, so browsers keep them for a year without asking; the others
    // (index.html, the unhashed worker and lazy-module files) get `no-cache`: browsers revalidate
    // them (a cheap 304 from Last-Modified), so they never outlive an upgrade.
    let app = Router::new()
        .fallback_service(ServeDir::new(dist).append_index_html_on_directories(true))
        .layer(axum::middleware::map_response_with_state((), cache_headers))
        .layer(CompressionLayer::new().gzip(true).no_br().no_deflate().no_zstd());
    Router::new()
        // ---- the grading worker: the `/ws` WebSocket route ----
        .merge(super::worker::routes())
        .merge(app)
}

/// `Cache-Control` for a file of dist/ (see [`router`]).
async fn cache_headers(
    axum::extract::OriginalUri(uri): axum::extract::OriginalUri,
    mut response: axum::response::Response,
) -> axum::response::Response {
    let value = if response.status().is_success() && is_hashed(uri.path()) {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    response
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
    use super::is_hashed;

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
