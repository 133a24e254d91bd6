//! The playground's first download: everything `dist/index.html` makes the browser fetch before the
//! page is interactive (the HTML itself, its stylesheets, icon, module scripts and preloads, the app's
//! JS glue and the wasm the glue instantiates), summed in gzip as `cabrito serve` sends them (its
//! precompressed copies, `cabrito_native::serve::gzip_best`: libdeflate at level 12), printed for
//! BENCHMARKS.md. There is no byte budget (D13): Lighthouse and the stories in view rule. The test
//! checks what the first download holds: the app's glue and wasm, and none of the lazily loaded modules
//! (the checker worker, the Results and Traces module, the agents module, the generator module `gen`,
//! `bigraph`, the solution editor `editor.js`): index.html links them with `data-type="worker"`, which
//! Trunk turns into files and no tag (the editor is bundled by a build hook and not linked at all).
//!
//! Needs the built app (`trunk build --release`, or `CABRITO_DIST`); without it the test is skipped
//! with a message, except under CI. Run after the app build (scripts/test.sh does).

#![cfg(not(target_arch = "wasm32"))]

use crate::guard;

use std::io::Write;
use std::path::{Path, PathBuf};

fn dist() -> PathBuf {
    std::env::var_os("CABRITO_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("dist"))
}

/// The size of the gzip copy `cabrito serve` sends.
fn gzip_len(bytes: &[u8]) -> usize {
    cabrito_native::serve::gzip_best(bytes).unwrap().len()
}

/// The size in zlib's `gzip -9` (the figure this test summed until 2026-12-01, for comparison).
fn zlib9_len(bytes: &[u8]) -> usize {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(bytes).unwrap();
    z.finish().unwrap().len()
}

/// The value of `attr="…"`, `attr='…'` or `attr=…` (unquoted, as Trunk's minified HTML writes it) in
/// one tag.
fn attr<'a>(tag: &'a str, attr: &str) -> Option<&'a str> {
    let key = format!(" {attr}=");
    let rest = &tag[tag.find(&key)? + key.len()..];
    match rest.chars().next()? {
        q @ ('"' | '\'') => rest[1..].find(q).map(|j| &rest[1..1 + j]),
        _ => Some(&rest[..rest.find(|c: char| c.is_ascii_whitespace() || c == '>').unwrap_or(rest.len())]),
    }
}

/// The files index.html fetches at load: `<link>`s that are stylesheets, icons, preloads and module
/// preloads; `<script src>`; and in inline module scripts, what they `import … from '…'` and the
/// `module_or_path: '…'` the glue instantiates. Paths as written (absolute from the site's root).
fn eager_files(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |p: &str| {
        let p = p.trim_start_matches('/').to_string();
        if !p.is_empty() && !p.contains("://") && !out.contains(&p) {
            out.push(p);
        }
    };
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        let Some(end) = rest.find('>') else { break };
        let tag = &rest[..end];
        if tag.starts_with("<link") {
            let rel = attr(tag, "rel").unwrap_or("");
            if ["stylesheet", "icon", "preload", "modulepreload"].iter().any(|r| rel.split(' ').any(|x| x == *r)) {
                if let Some(href) = attr(tag, "href") {
                    push(href);
                }
            }
        } else if tag.starts_with("<script") {
            if let Some(src) = attr(tag, "src") {
                push(src);
            }
            let body_end = rest.find("</script>").unwrap_or(rest.len()).max(end + 1);
            let body = &rest[end + 1..body_end];
            for key in [" from '", " from \"", "module_or_path: '", "module_or_path: \""] {
                let mut b = body;
                while let Some(j) = b.find(key) {
                    b = &b[j + key.len()..];
                    let q = key.chars().last().unwrap();
                    if let Some(k) = b.find(q) {
                        push(&b[..k]);
                    }
                }
            }
        }
        rest = &rest[end + 1..];
    }
    out
}

#[test]
fn eager_files_are_read_from_trunks_output() {
    let html = r#"<link rel="icon" href="/favicon-1.svg"/><link rel="stylesheet" href="/style-2.css"/>
<script type="module">
import init, * as bindings from '/cabrito-3.js';
const wasm = await init({ module_or_path: '/cabrito-3_bg.wasm' });
</script><script src="/x.js"></script><link rel="alternate" href="/feed.xml">
<link rel="modulepreload" href="/cabrito-3.js" crossorigin="anonymous"><link rel="preload" href="/cabrito-3_bg.wasm" as="fetch">"#;
    assert_eq!(eager_files(html), ["favicon-1.svg", "style-2.css", "cabrito-3.js", "cabrito-3_bg.wasm", "x.js"]);
    // Minified: attributes unquoted where they can be.
    let html = r#"<link href=/favicon-1.svg integrity=sha384-8Z rel=icon><link href=/style-2.css rel=stylesheet>
<script type=module>import init, * as bindings from '/cabrito-3.js';
const wasm = await init({ module_or_path: '/cabrito-3_bg.wasm' });</script><link as=fetch crossorigin href=/cabrito-3_bg.wasm rel=preload type=application/wasm><link href=/a.xml rel=alternate>"#;
    assert_eq!(eager_files(html), ["favicon-1.svg", "style-2.css", "cabrito-3.js", "cabrito-3_bg.wasm"]);
}

#[test]
fn e2e_first_download_is_the_app_alone() {
    let dist = dist();
    let Ok(html) = std::fs::read_to_string(dist.join("index.html")) else {
        guard::cannot_run(&format!(
            "the first-download check needs the built app ({} is missing; run `trunk build --release`)",
            dist.join("index.html").display()
        ));
        return;
    };
    let files = eager_files(&html);
    assert!(files.iter().any(|f| f.ends_with(".wasm")), "index.html loads no wasm eagerly: {files:?}");
    assert!(files.iter().any(|f| f.ends_with(".js")), "index.html loads no JS eagerly: {files:?}");
    let (mut total, mut total9) = (gzip_len(html.as_bytes()), zlib9_len(html.as_bytes()));
    eprintln!("first download, gzip as served (zlib -9 beside it):\n  {total:>9} B  ({total9:>9} B)  index.html");
    for f in &files {
        let bytes = std::fs::read(dist.join(f)).unwrap_or_else(|e| panic!("index.html loads {f}, not in dist/: {e}"));
        let (z, z9) = (gzip_len(&bytes), zlib9_len(&bytes));
        eprintln!("  {z:>9} B  ({z9:>9} B)  {f} ({} B raw)", bytes.len());
        total += z;
        total9 += z9;
    }
    eprintln!("  {total:>9} B  ({total9:>9} B)  in all");
    for lazy in ["checker", "analysis", "agents", "gen", "bigraph", "editor"] {
        assert!(
            !files
                .iter()
                .any(|f| (f.starts_with(&format!("{lazy}-")) || f.starts_with(&format!("{lazy}.")))
                    && !f.ends_with(".css")),
            "the lazily loaded module {lazy} is in the first download: {files:?}"
        );
    }
    // The solution editor (CodeMirror, scripts/build_editor.mjs) is built beside the app, fetched
    // only when a reader opens "Your solution" (web::editor).
    let editor = std::fs::metadata(dist.join("editor.js")).expect("dist/editor.js (the solution editor) is missing");
    eprintln!("  the solution editor, fetched on first use: editor.js {} B raw", editor.len());
}

/// index.html's skeleton (painted before the wasm arrives) links where the app's header links for
/// the default task, and says what the app's header says.
#[test]
fn the_skeleton_links_where_the_app_does() {
    use cabrito::playground::route;
    let html = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("index.html")).unwrap();
    let spec = cabrito_gen::TaskSpec::default();
    for href in [
        "#/".to_string(),
        route::fragment(&spec),
        route::scale_fragment(&spec),
        route::agents_fragment(&spec),
        format!("#{}", route::RESULTS_PATH),
        format!("#{}", route::TRACES_PATH),
    ] {
        assert!(html.contains(&format!("href=\"{href}\"")), "index.html's skeleton has no link to {href}");
    }
    // (The page's <meta name="description"> in the head says the tagline too.)
    let body = &html[html.find("<body").expect("index.html has a body")..];
    for text in ["Cabra coding tasks from random call graphs, generated in your browser", "A+ Large type", "? Keys"] {
        // Once: a merge once left two copies of the header's buttons in the skeleton.
        assert_eq!(body.matches(text).count(), 1, "index.html's skeleton should say {text:?} once");
    }
}
