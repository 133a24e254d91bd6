//! The built-in samples the Results and Traces views open with (`www/samples/*.json`, written by
//! `scripts/sample.sh` from real `cabrito grid`/`agent`/`grade` runs): a bundle of files, each a path
//! and its text, that the views read exactly as files dropped on them. Fetched with the view's
//! module, never in the first download.

use serde::Deserialize;

/// Where the Results view's sample is, next to index.html.
pub const RESULTS_URL: &str = "samples/results.json";
/// Where the Traces view's sample is.
pub const TRACES_URL: &str = "samples/traces.json";

/// The largest bundle read (the samples are far smaller; a bigger answer is not ours).
pub const MAX_BUNDLE_BYTES: usize = 16 << 20;
/// The most files a bundle may hold.
pub const MAX_BUNDLE_FILES: usize = 2_000;

/// A sample: what it is (one line for the page) and its files.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bundle {
    pub about: String,
    pub files: Vec<(String, Vec<u8>)>,
}

#[derive(Deserialize)]
struct Raw {
    about: String,
    files: Vec<RawFile>,
}

#[derive(Deserialize)]
struct RawFile {
    path: String,
    text: String,
}

/// Read a bundle, or say plainly why it is not one (too big, not text, not the bundle's JSON, a
/// path that is empty or climbs out of the sample).
pub fn parse(bytes: &[u8]) -> Result<Bundle, String> {
    if bytes.len() > MAX_BUNDLE_BYTES {
        return Err(format!(
            "the sample is {} MB, more than the {} MB a sample may be; not read",
            bytes.len() >> 20,
            MAX_BUNDLE_BYTES >> 20
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!("the sample is not text (invalid UTF-8 at byte {}); the server sent something else", e.valid_up_to())
    })?;
    let raw: Raw = serde_json::from_str(text).map_err(|e| {
        format!("the sample is not a sample bundle ({{\"about\", \"files\": [{{\"path\", \"text\"}}]}}): {e}")
    })?;
    if raw.files.is_empty() {
        return Err("the sample holds no file".into());
    }
    if raw.files.len() > MAX_BUNDLE_FILES {
        return Err(format!("the sample holds {} files, more than {MAX_BUNDLE_FILES}", raw.files.len()));
    }
    let mut files = Vec::with_capacity(raw.files.len());
    for f in raw.files {
        if f.path.is_empty() || f.path.starts_with('/') || f.path.split('/').any(|p| p == "..") {
            return Err(format!("the sample names a file {:?}, which is not a relative path inside it", f.path));
        }
        files.push((f.path, f.text.into_bytes()));
    }
    Ok(Bundle { about: raw.about, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_samples_are_bundles() {
        for (name, text) in [
            ("results", include_str!("../../www/samples/results.json")),
            ("traces", include_str!("../../www/samples/traces.json")),
        ] {
            let b = parse(text.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!b.about.is_empty() && !b.files.is_empty(), "{name}");
            assert!(b.files.iter().all(|(p, _)| p.starts_with("sample/")), "{name}");
        }
    }

    #[test]
    fn hostile_answers_get_a_reason_not_a_panic() {
        let huge = vec![b' '; MAX_BUNDLE_BYTES + 1];
        assert!(parse(&huge).unwrap_err().contains("more than the 16 MB"));
        let binary: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
        assert!(parse(&binary).unwrap_err().contains("not text"));
        assert!(parse(b"<!doctype html><p>404</p>").unwrap_err().contains("not a sample bundle"));
        assert!(parse(br#"{"about":"x","files":[]}"#).unwrap_err().contains("no file"));
        assert!(parse(br#"{"about":"x","files":[{"path":"../etc/passwd","text":""}]}"#)
            .unwrap_err()
            .contains("not a relative path"));
        assert!(parse(b"").is_err());
        let deep = "[".repeat(100_000);
        assert!(parse(deep.as_bytes()).is_err());
        let ok = parse(br#"{"about":"a","files":[{"path":"sample/x.jsonl","text":"{}\n"}]}"#).unwrap();
        assert_eq!(ok.files, vec![("sample/x.jsonl".to_string(), b"{}\n".to_vec())]);
    }
}
