//! The worker's origin policy: which browser pages may open its WebSocket.
//!
//! Allowed: no `Origin` header (not a browser: an Origin check protects browsers' users only); the
//! page's own origin when its host is an IP address or a loopback name; any loopback origin unless
//! `--no-localhost-origins`; and every `--allow-origin` (`*` for all). A host name's own origin must
//! be listed, so a DNS-rebinding page (whose `Host` equals its `Origin`) cannot pass as same-origin.

use super::WorkerConfig;
use axum::http::{header, HeaderMap};

/// An `--allow-origin` value in the form compared with `Origin` headers (lower case, no slash).
pub fn normalise_origin(o: &str) -> Result<String, String> {
    let o = o.trim().trim_end_matches('/').to_ascii_lowercase();
    if o == "*" {
        return Ok(o);
    }
    match o.split_once("://") {
        Some((scheme, host)) if !scheme.is_empty() && !host.is_empty() && !host.contains('/') => Ok(o),
        _ => {
            Err(format!("--allow-origin must be scheme://host[:port] (such as https://example.org) or '*', got '{o}'"))
        }
    }
}

/// The host name of `host[:port]` (IPv6 literals keep their brackets).
fn host_name(authority: &str) -> &str {
    if authority.starts_with('[') {
        match authority.find(']') {
            Some(i) => &authority[..=i],
            None => authority,
        }
    } else {
        authority.split(':').next().unwrap_or(authority)
    }
}

fn is_loopback_name(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "[::1]"
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

fn is_ip_literal(host: &str) -> bool {
    host.parse::<std::net::Ipv4Addr>().is_ok()
        || (host.starts_with('[')
            && host.ends_with(']')
            && host[1..host.len() - 1].parse::<std::net::Ipv6Addr>().is_ok())
}

/// Whether a browser page at the request's `Origin` may use the worker; the reason when not.
pub fn origin_allowed(cfg: &WorkerConfig, headers: &HeaderMap) -> Result<(), String> {
    let Some(raw) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = raw.to_str().map_err(|_| "the Origin header is not text".to_string())?.trim().to_ascii_lowercase();
    if cfg.allowed_origins.iter().any(|a| a == "*" || *a == origin) {
        return Ok(());
    }
    if let Some((_, authority)) = origin.split_once("://") {
        let name = host_name(authority);
        let request_host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_ascii_lowercase);
        if request_host.as_deref() == Some(authority) && (is_ip_literal(name) || is_loopback_name(name)) {
            return Ok(());
        }
        if cfg.allow_localhost && is_loopback_name(name) {
            return Ok(());
        }
    }
    Err(format!(
        "forbidden: pages at origin '{}' may not use this worker; start it with --allow-origin {} to allow them",
        origin.chars().take(200).collect::<String>(),
        origin.chars().take(200).collect::<String>()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        h
    }

    #[test]
    fn origins() {
        let mut c = WorkerConfig::default();
        let ok = |c: &WorkerConfig, o: Option<&str>, host: &str| origin_allowed(c, &headers(o, host)).is_ok();
        assert!(ok(&c, None, "127.0.0.1:8080"));
        assert!(ok(&c, Some("http://127.0.0.1:8080"), "127.0.0.1:8080"));
        assert!(ok(&c, Some("http://localhost:3000"), "127.0.0.1:8080"));
        assert!(ok(&c, Some("http://[::1]:3000"), "[::1]:8080"));
        assert!(ok(&c, Some("http://192.168.1.5:8080"), "192.168.1.5:8080"));
        assert!(!ok(&c, Some("https://evil.example"), "127.0.0.1:8080"));
        assert!(!ok(&c, Some("null"), "127.0.0.1:8080"));
        // A host name is same-origin only when listed (a rebinding page has Host == Origin).
        assert!(!ok(&c, Some("http://rebind.example:8080"), "rebind.example:8080"));
        assert!(!ok(&c, Some("http://localhost.evil.example"), "127.0.0.1:8080"));
        c.allowed_origins.push(normalise_origin("https://Cabrito.example/").unwrap());
        assert!(ok(&c, Some("https://cabrito.example"), "worker.example"));
        c.allow_localhost = false;
        assert!(!ok(&c, Some("http://localhost:3000"), "127.0.0.1:8080"));
        assert!(ok(&c, Some("http://127.0.0.1:8080"), "127.0.0.1:8080"));
        c.allowed_origins.push("*".into());
        assert!(ok(&c, Some("https://anything.example"), "127.0.0.1:8080"));
        assert!(normalise_origin("example.org").is_err());
    }

    #[test]
    fn odd_headers_are_refused_with_a_reason() {
        let c = WorkerConfig::default();
        let mut h = headers(None, "127.0.0.1:8080");
        h.insert(header::ORIGIN, HeaderValue::from_bytes(b"http://\xff").unwrap());
        assert_eq!(origin_allowed(&c, &h).unwrap_err(), "the Origin header is not text");
        for o in ["http://[::1", "http://[zz]:1", "://", "http://", &format!("http://{}", "a".repeat(5000))] {
            let e = origin_allowed(&c, &headers(Some(o), "example.org"));
            assert!(e.is_err_and(|m| m.starts_with("forbidden") && m.len() < 600), "{o}");
        }
    }
}
