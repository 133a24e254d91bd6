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
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

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
    // The app: every other path is a file of dist/. `no-cache` makes browsers revalidate (a cheap
    // 304 from Last-Modified), so the unhashed checker worker files never outlive an upgrade.
    let app = Router::new()
        .fallback_service(ServeDir::new(dist).append_index_html_on_directories(true))
        .layer(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, HeaderValue::from_static("no-cache")));
    Router::new()
        // ---- the grading worker: the `/ws` WebSocket route ----
        .merge(super::worker::routes())
        .merge(app)
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
