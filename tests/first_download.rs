//! The playground's first download: everything `dist/index.html` makes the browser fetch before the
//! page is interactive (the HTML itself, its stylesheets, icon, module scripts and preloads, the app's
//! JS glue and the wasm the glue instantiates), summed in gzip as `cabrito serve` sends them (its
//! precompressed copies, `cabrito_native::serve::gzip_best`: libdeflate at level 12), must stay under
//! [`BUDGET`]. The same files in zlib's `gzip -9` (what `gzip -9` on each file gives) are printed beside it and
//! must stay under the 300 KB [`GOAL`] too. The lazily loaded modules (the checker worker, the Results and
//! Traces module, the agents module, the generator module `gen`, the grade module, `bigraph`) are not in it:
//! index.html links them with `data-type="worker"`, which Trunk turns into files and no tag.
//!
//! Needs the built app (`trunk build --release`, or `CABRITO_DIST`); without it the test is skipped
//! with a message, except under CI. Run after the app build (scripts/test.sh does).

#![cfg(not(target_arch = "wasm32"))]

mod guard;

use std::io::Write;
use std::path::{Path, PathBuf};

/// Issue 14 asks for the first download under 300 KB gzip: it is, since 2026-12-01 (BENCHMARKS.md,
/// "First download and phones"), and the budget keeps it there. The budget only goes down: 560 KB on 2026-11-30 (every generator and
/// view in the app's wasm); 500 KB on 2026-12-01 once Merge Codebases and the runtime and instructions
/// axes moved to the `gen` module (496,838 B measured); 437 KB once the grade panel moved to the `grade`
/// module as well (432,520 B measured); 424 KB once the kinds' instruction-following refactorings and
/// `TaskKind::export` left the app's wasm (420,423 B measured); 418 KB once the views' stateless components
/// became plain functions and their repeated trees, callbacks and effects were shared (415,604 B measured);
/// 411 KB once the diff's rows moved to the grade module (408,172 B measured); 363 KB with wave 7's
/// generic cuts too (one stable sort, the word list as one text, smaller hand-off readers, no decimal
/// number parser, no Unicode case tables: 360,589 B measured); 341.5 KB once the gzip copies came from
/// libdeflate at level 12 (what this test measures since), the app allocated with talc and Trunk
/// minified the HTML and CSS (338,830 B measured; 355,039 B in zlib's -9); 339.5 KB with the app's glue
/// minified by esbuild (336,974 B measured); 326 KB once the comment axis and variable renaming moved to
/// the `gen` module, with the renaming panel made there as HTML (323,703 B measured); 320.2 KB once the
/// "why this branch?" panel moved to the grade module (317,703 B measured; 331,804 B in zlib's -9);
/// 305 KB once the views wrote their numbers without `core`'s float formatting (`crate::decimal`) and
/// the `gen` module's answer came as a JS value, with no JSON parser left in the app (302,578 B measured;
/// 315,749 B in zlib's -9); 298.5 KB, under the goal, once the link's shared solution went to the grade
/// module unread, so the app carries no inflater (296,031 B measured; 308,976 B in zlib's -9); 298.1 KB
/// once the `gen` module's answer came as one byte buffer (`playground::tape`) instead of a JS value
/// (295,626 B measured; 308,518 B in zlib's -9); 286.5 KB once the clustered call graph of big tasks
/// moved to the `bigraph` module and the lazy modules' glue was fetched without gloo's request builder
/// (284,000 B measured; 296,538 B in zlib's -9, under the goal that way too); 286 KB once the code
/// blocks' unused line-link registry went, which paid for Merge Codebases' windowed columns and its
/// generation in a worker (285,343 B measured; 298,323 B in zlib's -9); 284 KB once Merge Codebases'
/// data-flow graph came as markup from the `gen` module, which paid for starting that module's worker
/// from index.html (282,982 B measured; 295,725 B in zlib's -9); still 284 KB once the call graph's
/// edge lookup sorted with `crate::sort` instead of a copy of the standard unstable sort (1.6 KB less),
/// which paid for keeping a `gen` task's graph on its tape and hashing the record by reference
/// (see the figure printed). Lower it as more moves out of the first download.
const BUDGET: usize = 284_000;
/// The goal the budget moves towards (printed with the figures).
const GOAL: usize = 300_000;
// The issue's goal is met: a budget over it would let the first download grow past it again.
const _: () = assert!(BUDGET <= GOAL);

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
fn e2e_first_download_stays_under_budget() {
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
    eprintln!("  {total:>9} B  ({total9:>9} B)  in all (budget {BUDGET} B, goal {GOAL} B)");
    assert!(total <= BUDGET, "the first download is {total} B gzip, over its budget of {BUDGET} B");
    // The goal holds whichever gzip encoder measures it: zlib's -9 (what `gzip -9` on each file gives) too.
    assert!(total9 <= GOAL, "the first download is {total9} B in zlib's gzip -9, over the {GOAL} B goal");
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
