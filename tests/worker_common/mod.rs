//! Shared by the worker tests: an in-process worker on a free port, a WebSocket client, small
//! tasks and their solutions, and a count of the Python processes this test process started.
#![allow(dead_code)]

use cabrito_check::protocol::{ClientMessage, ErrorCode, ServerMessage};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use cabrito_native::worker::{router, WorkerConfig};
use futures_util::{SinkExt, StreamExt};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{connect_async, MaybeTlsStream, WebSocketStream};

/// A configuration for tests: small, quiet where it would be noisy, short timeouts.
pub fn config() -> WorkerConfig {
    let mut c = WorkerConfig::default();
    c.limits.default_trials = 3;
    c.limits.max_trials = 20;
    c.limits.job_timeout_seconds = 20.0;
    c.grade.harness.call_timeout = 1.0;
    c
}

/// Serve the worker's routes on a free loopback port (in this process).
pub async fn start(cfg: WorkerConfig) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = router(cfg);
    tokio::spawn(async move {
        axum::serve(listener, app).await.expect("serve");
    });
    addr
}

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub struct Client {
    pub ws: Ws,
}

/// Connect to `/ws`, with an `Origin` header when given.
pub async fn try_connect(
    addr: SocketAddr,
    origin: Option<&str>,
) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
    let mut req = format!("ws://{addr}/ws").into_client_request().expect("request");
    if let Some(o) = origin {
        req.headers_mut().insert("origin", HeaderValue::from_str(o).expect("header"));
    }
    let (ws, _) = connect_async(req).await?;
    Ok(Client { ws })
}

/// Connect and say hello (the worker grades nothing before it), as the app does.
pub async fn connect(addr: SocketAddr) -> Client {
    let mut c = try_connect(addr, None).await.expect("connect");
    c.hello().await;
    c
}

impl Client {
    pub async fn send_text(&mut self, text: impl Into<String>) {
        self.ws.send(Message::text(text.into())).await.expect("send");
    }

    pub async fn send(&mut self, msg: &ClientMessage) {
        self.send_text(msg.to_json()).await;
    }

    /// The next worker message (pings and pongs skipped); `None` when the connection closed.
    pub async fn next(&mut self, within: Duration) -> Option<ServerMessage> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let frame = tokio::time::timeout(left, self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("no message from the worker within {within:?}"));
            match frame {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return None,
                Some(Ok(Message::Text(t))) => {
                    return Some(ServerMessage::parse(t.as_str()).unwrap_or_else(|e| panic!("{e}: {t}")))
                }
                Some(Ok(_)) => continue,
            }
        }
    }

    pub async fn recv(&mut self, within: Duration) -> ServerMessage {
        self.next(within).await.expect("the worker closed the connection")
    }

    /// The next message that is not a progress report. Jobs already running keep sending
    /// progress while the test waits for a reply to its next request (an accept, an error),
    /// so a bare `recv` there races with them.
    pub async fn reply(&mut self, within: Duration) -> ServerMessage {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv(left).await {
                ServerMessage::Progress(_) => continue,
                m => return m,
            }
        }
    }

    /// Every message about `id` up to and including its final reply.
    pub async fn until_final(&mut self, id: &str, within: Duration) -> Vec<ServerMessage> {
        let deadline = Instant::now() + within;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = self.recv(left).await;
            if m.id() == Some(id) {
                let fin = m.is_final();
                got.push(m);
                if fin {
                    return got;
                }
            }
        }
    }

    /// Send hello and expect the worker's hello back (the connection is alive and answering).
    pub async fn hello(&mut self) -> cabrito_check::protocol::HelloReply {
        self.send(&ClientMessage::hello()).await;
        match self.recv(Duration::from_secs(10)).await {
            ServerMessage::Hello(h) => h,
            other => panic!("expected hello, got {other:?}"),
        }
    }
}

pub fn error_code(m: &ServerMessage) -> Option<ErrorCode> {
    match m {
        ServerMessage::Error(e) => Some(e.code),
        _ => None,
    }
}

/// A small task: 5 functions to edit (30 in all).
pub fn small_spec(seed: u64) -> TaskSpec {
    TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, seed)
}

pub fn task(spec: &TaskSpec) -> cabrito_gen::Task {
    cabrito_gen::generate(spec).expect("task")
}

/// The reference with one tested function replaced (the last definition wins) by `body`.
pub fn hostile(spec: &TaskSpec, body: &str) -> String {
    let t = task(spec);
    let victim = cabrito_check::grade::reference_functions(&t.solution_code).expect("functions")[0].name.clone();
    let indented: String = body.lines().map(|l| format!("    {l}\n")).collect();
    format!("{}\n\ndef {victim}(*args, **kwargs):\n{indented}", t.solution_code)
}

/// Python processes among this process's descendants (the pool's zygote aside), and every process of the private uids the
/// runner gives this process's runs (which catches orphans a candidate forked away).
pub fn python_descendants() -> Vec<i32> {
    let me = std::process::id() as i32;
    // The runner's private uids (`runner::next_uid`): 1_000_000 + (pid & 0x7FFF) << 10 + 0..1024.
    let uid_base = 1_000_000u32 + ((std::process::id() & 0x7FFF) << 10);
    let private_uid = |pid: i32| -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("Uid:"))
                    .and_then(|l| l.split_whitespace().nth(1).and_then(|u| u.parse::<u32>().ok()))
            })
            .is_some_and(|u| (uid_base..uid_base + 1024).contains(&u))
    };
    let mut parent = std::collections::HashMap::new();
    let mut comm = std::collections::HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
            // pid (comm) state ppid ...
            let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
            let name = stat[open + 1..close].to_string();
            let ppid = stat[close + 1..].split_whitespace().nth(1).and_then(|p| p.parse::<i32>().ok()).unwrap_or(0);
            parent.insert(pid, ppid);
            comm.insert(pid, name);
        }
    }
    let descends = |mut p: i32| {
        for _ in 0..64 {
            match parent.get(&p) {
                Some(&pp) if pp == me => return true,
                Some(&pp) if pp > 1 => p = pp,
                _ => return false,
            }
        }
        false
    };
    let python = |p: i32| comm.get(&p).is_some_and(|c| c.starts_with("python"));
    // The pool's zygote (native/pool.py) lives as long as the worker and never runs a candidate;
    // its forked children carry the same command line but have the zygote, a Python, as parent.
    let zygote = |p: i32| {
        !parent.get(&p).is_some_and(|&pp| python(pp))
            && std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c.windows(14).any(|w| w == b"grading zygote"))
    };
    let mut out: Vec<i32> =
        parent.keys().copied().filter(|&p| (python(p) && descends(p) && !zygote(p)) || private_uid(p)).collect();
    out.sort();
    out
}

/// Wait until no Python process of ours is left (or fail after `within`).
pub async fn no_python_left(within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let left = python_descendants();
        if left.is_empty() {
            return;
        }
        if Instant::now() > deadline {
            panic!("python processes left behind: {left:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The real binary: `cabrito serve` on a free port with a one-page dist/ and the `extra` flags, in a
/// process group of its own, its output drained; the child, its dist/ (removed when dropped) and
/// the address it printed.
pub fn serve_binary(extra: &[&str]) -> (std::process::Child, tempfile::TempDir, SocketAddr) {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let dist = tempfile::tempdir().unwrap();
    std::fs::write(dist.path().join("index.html"), "<!doctype html><title>t</title>").unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["serve", "--addr", "127.0.0.1:0", "--dist"])
        .arg(dist.path())
        .args(extra)
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Keep reading what it prints (a closed pipe would stop the server).
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("url").to_string();
    let addr = url.trim_start_matches("http://").trim_end_matches('/').parse().unwrap();
    (child, dist, addr)
}
