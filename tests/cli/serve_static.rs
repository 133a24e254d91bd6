//! `cabrito serve`'s static files, through a real HTTP/1.1 client on a socket: the brotli and gzip
//! copies it makes of dist/ when it starts (sent by the request's Accept-Encoding, with the right
//! Content-Type and cache headers, and as they are to a client that accepts neither), a stale copy
//! never sent, a file added later compressed per request, a missing file still 404, hostile paths and
//! headers answered cleanly, and the worker's WebSocket route next to it.

#![cfg(not(target_arch = "wasm32"))]

use crate::http;

use http::{request, Response};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `cabrito serve` on a free port and wait for its `precompressed:` line.
fn start(dist: &Path) -> (Server, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_cabrito"))
        .args(["serve", "--addr", "127.0.0.1:0", "--dist"])
        .arg(dist)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut server = Server { child, addr: String::new() };
    let stdout = server.child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let line = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())).expect("the server's lines");
        if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
            server.addr = url.trim_start_matches("http://").trim_end_matches('/').to_string();
        }
        if line.starts_with("precompressed:") {
            assert!(!server.addr.is_empty(), "the URL comes first");
            return (server, line);
        }
    }
}

fn get(addr: &str, path: &str, accept: Option<&str>) -> Response {
    let h = accept.map(|a| format!("Accept-Encoding: {a}\r\n")).unwrap_or_default();
    request(addr, "GET", path, &h)
}

/// The body as the client reads it, by its Content-Encoding.
fn decoded(r: &Response) -> Vec<u8> {
    let mut out = Vec::new();
    match r.header("content-encoding") {
        None => out = r.body.clone(),
        Some("br") => brotli::BrotliDecompress(&mut &r.body[..], &mut out).unwrap(),
        Some("gzip") => {
            flate2::read::GzDecoder::new(&r.body[..]).read_to_end(&mut out).unwrap();
        }
        Some(other) => panic!("unexpected content-encoding {other}"),
    }
    out
}

/// Bytes that compress (a wasm-like mix of repeats and counters).
fn sample(len: usize, salt: u32) -> Vec<u8> {
    (0..len as u32).map(|i| ((i / 7) % 61 + (i % 13) * salt % 97) as u8).collect()
}

const WASM: &str = "cabrito-b87b087ccae4ad4e_bg.wasm";
const CSS: &str = "style-d69004609935550d.css";

#[test]
fn precompressed_copies_are_sent_by_accept_encoding() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(dist.join("snippets/x")).unwrap();
    std::fs::write(root.path().join("secret.txt"), "outside dist").unwrap();
    let index = "<!doctype html><title>t</title>".repeat(40);
    std::fs::write(dist.join("index.html"), &index).unwrap();
    let wasm = sample(300_000, 3);
    std::fs::write(dist.join(WASM), &wasm).unwrap();
    std::fs::write(dist.join(CSS), "body { margin: 0 }\n".repeat(200)).unwrap();
    std::fs::write(dist.join("grade.js"), "export function f() { return 1; }\n".repeat(100)).unwrap();
    std::fs::write(dist.join("snippets/x/inline0.js"), "export const a = 1;\n".repeat(100)).unwrap();
    std::fs::write(dist.join("tiny.js"), "1").unwrap();
    // A dead server's half-written copy.
    std::fs::write(dist.join(".cabrito-copy-dead"), "half").unwrap();

    let (server, line) = start(&dist);
    let addr = server.addr.clone();
    assert!(line.contains("10 copies written, 0 fresh"), "{line}");
    assert!(!dist.join(".cabrito-copy-dead").exists(), "leftovers are removed");
    assert!(!dist.join("tiny.js.br").exists() && !dist.join("tiny.js.gz").exists(), "no copy larger than its file");
    for f in [WASM, "index.html", CSS, "grade.js", "snippets/x/inline0.js"] {
        let m = std::fs::metadata(dist.join(f)).unwrap().modified().unwrap();
        for ext in ["br", "gz"] {
            let c = std::fs::metadata(dist.join(format!("{f}.{ext}"))).unwrap().modified().unwrap();
            assert_eq!(m, c, "{f}.{ext} has its file's time");
        }
    }

    // Brotli to a browser (Chromium sends this), gzip to a client without brotli, the file as it is
    // to a client that accepts neither; q-values decide.
    let br = get(&addr, &format!("/{WASM}"), Some("gzip, deflate, br, zstd"));
    assert_eq!(br.status(), 200, "{}", br.head);
    assert_eq!(br.header("content-encoding"), Some("br"), "{}", br.head);
    assert_eq!(br.header("content-type"), Some("application/wasm"), "{}", br.head);
    assert_eq!(br.header("cache-control"), Some("public, max-age=31536000, immutable"), "{}", br.head);
    assert!(br.head.contains("vary: accept-encoding"), "{}", br.head);
    assert_eq!(br.body, std::fs::read(dist.join(format!("{WASM}.br"))).unwrap(), "the copy, sent as it is");
    assert_eq!(decoded(&br), wasm);
    let gz = get(&addr, &format!("/{WASM}"), Some("gzip"));
    assert_eq!(gz.header("content-encoding"), Some("gzip"), "{}", gz.head);
    assert_eq!(gz.header("content-type"), Some("application/wasm"), "{}", gz.head);
    assert_eq!(decoded(&gz), wasm);
    assert!(br.body.len() < gz.body.len() && gz.body.len() < wasm.len() / 2, "{} {}", br.body.len(), gz.body.len());
    let pick_gzip = get(&addr, &format!("/{WASM}"), Some("br;q=0.5, gzip;q=1"));
    assert_eq!(pick_gzip.header("content-encoding"), Some("gzip"), "{}", pick_gzip.head);
    for accept in [None, Some("identity"), Some("br;q=0, gzip;q=0"), Some("compress, x-unknown")] {
        let plain = get(&addr, &format!("/{WASM}"), accept);
        assert_eq!(plain.status(), 200, "{accept:?}: {}", plain.head);
        assert_eq!(plain.header("content-encoding"), None, "{accept:?}: {}", plain.head);
        assert_eq!(plain.header("content-type"), Some("application/wasm"), "{accept:?}");
        assert_eq!(plain.body, wasm, "{accept:?}");
    }
    let head = request(&addr, "HEAD", &format!("/{WASM}"), "Accept-Encoding: br\r\n");
    assert_eq!(head.status(), 200, "{}", head.head);
    assert_eq!(head.header("content-encoding"), Some("br"), "{}", head.head);

    // index.html (at / and by name) and an unhashed module: revalidated, compressed all the same.
    for path in ["/", "/index.html"] {
        let r = get(&addr, path, Some("gzip, deflate, br, zstd"));
        assert_eq!(r.status(), 200, "{path}: {}", r.head);
        assert_eq!(r.header("content-encoding"), Some("br"), "{path}: {}", r.head);
        assert!(r.header("content-type").is_some_and(|t| t.starts_with("text/html")), "{path}: {}", r.head);
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{path}");
        assert!(r.header("last-modified").is_some(), "{path}");
        assert_eq!(decoded(&r), index.as_bytes());
    }
    let module = get(&addr, "/grade.js", Some("br"));
    assert_eq!(module.header("content-encoding"), Some("br"), "{}", module.head);
    assert!(module.header("content-type").is_some_and(|t| t.contains("javascript")), "{}", module.head);
    assert_eq!(module.header("cache-control"), Some("no-cache"));
    let nested = get(&addr, "/snippets/x/inline0.js", Some("br"));
    assert_eq!(nested.header("content-encoding"), Some("br"), "{}", nested.head);
    let css = get(&addr, &format!("/{CSS}"), Some("gzip, br"));
    assert!(css.header("content-type").is_some_and(|t| t.starts_with("text/css")), "{}", css.head);
    assert_eq!(decoded(&css), std::fs::read(dist.join(CSS)).unwrap());

    // A missing file is still a 404 (whatever the client accepts), not cached.
    for accept in [None, Some("br"), Some("gzip")] {
        let missing = get(&addr, "/nope-b87b087ccae4ad4e.wasm", accept);
        assert_eq!(missing.status(), 404, "{accept:?}: {}", missing.head);
        assert_eq!(missing.header("cache-control"), Some("no-cache"), "{accept:?}");
    }

    // A file changed after its copies were made (by hand): the copies are stale and never sent.
    std::thread::sleep(Duration::from_millis(20));
    let css2 = "p { color: red }\n".repeat(300);
    std::fs::write(dist.join(CSS), &css2).unwrap();
    for accept in ["br", "gzip, deflate, br, zstd", "gzip"] {
        let r = get(&addr, &format!("/{CSS}"), Some(accept));
        assert_eq!(r.status(), 200, "{accept}: {}", r.head);
        assert_ne!(r.header("content-encoding"), Some("br"), "{accept}: {}", r.head);
        assert_eq!(decoded(&r), css2.as_bytes(), "{accept}: the file as it is now");
    }
    // The same for index.html, asked for as `/`.
    std::thread::sleep(Duration::from_millis(20));
    let index2 = "<!doctype html><title>u</title>".repeat(50);
    std::fs::write(dist.join("index.html"), &index2).unwrap();
    for accept in ["br", "gzip, deflate, br, zstd"] {
        let r = get(&addr, "/", Some(accept));
        assert_ne!(r.header("content-encoding"), Some("br"), "{accept}: {}", r.head);
        assert_eq!(decoded(&r), index2.as_bytes(), "{accept}: the index as it is now");
    }
    // A file removed (its copies left behind): a 404, never its copies.
    std::fs::remove_file(dist.join("grade.js")).unwrap();
    for accept in [None, Some("br"), Some("gzip"), Some("gzip, deflate, br, zstd")] {
        let r = get(&addr, "/grade.js", accept);
        assert_eq!(r.status(), 404, "{accept:?}: {}", r.head);
    }
    // A file added after the server started (no copies): gzip-compressed per request.
    let late = sample(50_000, 5);
    std::fs::write(dist.join("late.wasm"), &late).unwrap();
    let r = get(&addr, "/late.wasm", Some("gzip, deflate, br, zstd"));
    assert_eq!(r.header("content-encoding"), Some("gzip"), "{}", r.head);
    assert_eq!(decoded(&r), late);

    // Hostile requests get clean answers and never a file outside dist/ (nor a copy's neighbours).
    for target in [
        "/../secret.txt",
        "/..%2fsecret.txt",
        "/%2e%2e/secret.txt",
        "/snippets/../../secret.txt",
        "/snippets/x/..%2f..%2f..%2fsecret.txt",
        "//etc/passwd",
        "/%00",
        "/index.html%00.br",
        "/\\..\\secret.txt",
    ] {
        for accept in [None, Some("br"), Some("gzip")] {
            let r = get(&addr, target, accept);
            assert!([400, 404].contains(&r.status()), "{target} {accept:?}: {}", r.head);
            assert!(!decoded(&r).windows(12).any(|w| w == b"outside dist"), "{target}");
        }
    }
    let huge = format!("{}br", "x-unknown;q=0.5, ".repeat(4_000));
    let long_q = "br;q=0.99999999999999999999999999999999999999999, gzip;q=-1, br;q=abc, ;;;;, =, q=1".to_string();
    for accept in [huge.as_str(), long_q.as_str(), "*", "br;q=1;q=0", ",,,,", "\u{7f}gzip"] {
        let r = get(&addr, &format!("/{WASM}"), Some(accept));
        let clean = match r.status() {
            200 => decoded(&r) == wasm,
            400 | 431 => true,
            _ => false,
        };
        assert!(clean, "Accept-Encoding of {} bytes: {}", accept.len(), r.head);
    }
    let huge_header = format!("Accept-Encoding: {}\r\n", "gzip, ".repeat(200_000));
    let r = request(&addr, "GET", &format!("/{WASM}"), &huge_header);
    assert!(r.status() == 0 || r.status() >= 400, "a 1.2 MB header is refused: {}", r.head);

    // The server still answers, and the worker's WebSocket route is still there.
    assert_eq!(get(&addr, &format!("/{WASM}"), Some("br")).status(), 200);
    let ws = request(
        &addr,
        "GET",
        "/ws",
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n",
    );
    assert_eq!(ws.status(), 101, "{}", ws.head);
    drop(server);

    // A second start finds the copies fresh, except the changed file's and the new file's.
    let (server, line) = start(&dist);
    assert!(line.contains("6 copies written, 4 fresh"), "{line}");
    let r = get(&server.addr, &format!("/{CSS}"), Some("br"));
    assert_eq!(r.header("content-encoding"), Some("br"), "{}", r.head);
    assert_eq!(decoded(&r), css2.as_bytes());
}

#[test]
fn servers_started_together_share_the_work() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html><title>t</title>".repeat(40)).unwrap();
    let wasm = sample(400_000, 7);
    std::fs::write(dist.join(WASM), &wasm).unwrap();
    let servers: Vec<_> = (0..3)
        .map(|_| {
            std::thread::spawn({
                let dist = dist.clone();
                move || start(&dist)
            })
        })
        .collect();
    let started: Vec<_> = servers.into_iter().map(|t| t.join().unwrap()).collect();
    // One made the four copies; the others waited for it and found them fresh.
    let written: Vec<_> = started.iter().map(|(_, l)| l.split_whitespace().nth(1).unwrap().to_string()).collect();
    assert_eq!(written.iter().filter(|w| *w == "4").count(), 1, "{written:?}");
    assert_eq!(written.iter().filter(|w| *w == "0").count(), 2, "{written:?}");
    for (server, _) in &started {
        let r = get(&server.addr, &format!("/{WASM}"), Some("br"));
        assert_eq!(r.header("content-encoding"), Some("br"));
        assert_eq!(decoded(&r), wasm);
    }
    let names: Vec<_> =
        std::fs::read_dir(&dist).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names.len(), 6, "the files and their copies, no temporary ones: {names:?}");
}

/// `--precompress-only` writes the copies the server would, says so in the server's words and
/// exits; a second run finds them fresh; a folder without the app is refused by name.
#[test]
fn precompress_only_writes_the_copies_and_exits() {
    let root = tempfile::tempdir().unwrap();
    let dist = root.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("index.html"), "<!doctype html><title>t</title>".repeat(40)).unwrap();
    std::fs::write(dist.join(WASM), sample(100_000, 5)).unwrap();
    let run = |dir: &Path| {
        Command::new(env!("CARGO_BIN_EXE_cabrito"))
            .args(["serve", "--precompress-only", "--dist"])
            .arg(dir)
            .output()
            .unwrap()
    };
    let first = run(&dist);
    let out = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{out}{}", String::from_utf8_lossy(&first.stderr));
    assert!(out.starts_with("precompressed: 4 copies written, 0 fresh"), "{out}");
    for ext in ["br", "gz"] {
        assert!(dist.join(format!("{WASM}.{ext}")).is_file() && dist.join(format!("index.html.{ext}")).is_file());
    }
    let again = run(&dist);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).starts_with("precompressed: 0 copies written, 4 fresh"));
    let none = run(&root.path().join("nowhere"));
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("no built app"), "{none:?}");
}
