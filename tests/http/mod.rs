//! A raw HTTP/1.1 client for the tests that talk to `cabrito serve` (tests/cli/cli.rs, tests/cli/serve_static.rs):
//! the request goes out exactly as written (so `..`, escapes and odd headers reach the server), and the
//! answer comes back as its head and its body with any chunking undone.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One response: status line and head (lower case), body with any chunking undone.
pub struct Response {
    pub head: String,
    pub body: Vec<u8>,
}

impl Response {
    pub fn status(&self) -> u16 {
        self.head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|l| l.strip_prefix(&format!("{name}: ")))
    }
}

/// Send a raw request (`target` as written, so `..` and escapes reach the server) and read the whole
/// answer.
pub fn request(addr: &str, method: &str, target: &str, headers: &str) -> Response {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    // A refused request may be cut off while it is written: what the server answered is read anyway.
    let _ = write!(s, "{method} {target} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n");
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let split = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(out.len());
    let head = String::from_utf8_lossy(&out[..split]).to_lowercase();
    let mut raw = out.get(split + 4..).unwrap_or_default().to_vec();
    if head.contains("transfer-encoding: chunked") {
        let mut body = Vec::new();
        let mut rest = &raw[..];
        loop {
            let end = rest.windows(2).position(|w| w == b"\r\n").expect("a chunk size");
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..end]).unwrap().trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&rest[end + 2..end + 2 + size]);
            rest = &rest[end + 2 + size + 2..];
        }
        raw = body;
    }
    Response { head, body: raw }
}
