//! Files in and out of the browser, for the Results and Traces views: dropped files and folders
//! (the entries API, so a dropped `results/` folder keeps its layout), file and folder pickers, and
//! downloads (SVG, PNG through a canvas, CSV, JSONL). Nothing leaves the browser.

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DataTransfer, File, FileList, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry};

/// A file read: its path (with folders, when it came from a folder) and bytes.
pub struct Read {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// Files worth reading: JSON and JSON Lines, gzipped or not.
pub fn wanted(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    [".jsonl", ".jsonl.gz", ".json", ".json.gz", ".gz"].iter().any(|e| l.ends_with(e))
}

/// The most files read from one drop.
pub const MAX_FILES: usize = 20_000;

async fn bytes_of(file: &File) -> Result<Vec<u8>, String> {
    let blob = gloo::file::Blob::from(file.clone());
    gloo::file::futures::read_as_bytes(&blob).await.map_err(|e| format!("{}: cannot be read ({e})", file.name()))
}

fn relative_path(file: &File) -> String {
    let rel = Reflect::get(file, &"webkitRelativePath".into()).ok().and_then(|v| v.as_string()).unwrap_or_default();
    if rel.is_empty() {
        file.name()
    } else {
        rel
    }
}

/// The files of a file input, taken at once (resetting the input empties its list).
pub fn take_list(list: &FileList) -> Vec<File> {
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Read files from a file input (a folder picker gives their relative paths).
pub async fn read_list(files: Vec<File>) -> Vec<Result<Read, String>> {
    let mut out = Vec::new();
    for f in files.into_iter().take(MAX_FILES) {
        let path = relative_path(&f);
        if !wanted(&path) {
            continue;
        }
        out.push(bytes_of(&f).await.map(|bytes| Read { path, bytes }));
    }
    out
}

/// What a drop holds, taken while the event lasts (the browser empties it afterwards).
pub struct DropItems {
    entries: Vec<FileSystemEntry>,
    files: Vec<File>,
}

/// Take the entries (or, without the entries API, the files) of a drop.
pub fn take_drop(dt: &DataTransfer) -> DropItems {
    let mut entries = Vec::new();
    let items = dt.items();
    for i in 0..items.length() {
        if let Some(item) = items.get(i) {
            if let Ok(Some(e)) = item.webkit_get_as_entry() {
                entries.push(e);
            }
        }
    }
    let files = if entries.is_empty() {
        dt.files().map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect()).unwrap_or_default()
    } else {
        Vec::new()
    };
    DropItems { entries, files }
}

fn promise_of(f: impl FnOnce(js_sys::Function, js_sys::Function)) -> Promise {
    let mut f = Some(f);
    Promise::new(&mut |resolve, reject| {
        if let Some(f) = f.take() {
            f(resolve, reject)
        }
    })
}

async fn file_of(entry: &FileSystemFileEntry) -> Result<File, String> {
    let e = entry.clone();
    let p = promise_of(move |resolve, reject| e.file_with_callback_and_callback(&resolve, &reject));
    JsFuture::from(p)
        .await
        .map_err(|_| format!("{}: cannot be read", entry.full_path()))?
        .dyn_into::<File>()
        .map_err(|_| "not a file".to_string())
}

async fn children(dir: &FileSystemDirectoryEntry) -> Vec<FileSystemEntry> {
    let reader = dir.create_reader();
    let mut out = Vec::new();
    // readEntries returns the entries in batches until an empty one.
    for _ in 0..10_000 {
        let r = reader.clone();
        let p = promise_of(move |resolve, reject| {
            let _ = r.read_entries_with_callback_and_callback(&resolve, &reject);
        });
        let Ok(batch) = JsFuture::from(p).await else { break };
        let batch: Array = batch.unchecked_into();
        if batch.length() == 0 {
            break;
        }
        out.extend(batch.iter().filter_map(|e| e.dyn_into::<FileSystemEntry>().ok()));
        if out.len() > MAX_FILES {
            break;
        }
    }
    out
}

/// Read everything a drop held: files, and every wanted file under dropped folders.
pub async fn read_drop(items: DropItems) -> Vec<Result<Read, String>> {
    let mut out = Vec::new();
    for f in items.files.into_iter().take(MAX_FILES) {
        let path = f.name();
        if wanted(&path) {
            out.push(bytes_of(&f).await.map(|bytes| Read { path, bytes }));
        }
    }
    let mut stack: Vec<FileSystemEntry> = items.entries;
    let mut seen = 0usize;
    while let Some(e) = stack.pop() {
        seen += 1;
        if seen > MAX_FILES {
            out.push(Err(format!("more than {MAX_FILES} files dropped; the rest were left out")));
            break;
        }
        if e.is_directory() {
            let dir: FileSystemDirectoryEntry = e.unchecked_into();
            let mut kids = children(&dir).await;
            kids.reverse();
            stack.extend(kids);
        } else {
            let path = e.full_path().trim_start_matches('/').to_string();
            if !wanted(&path) {
                continue;
            }
            let fe: FileSystemFileEntry = e.unchecked_into();
            match file_of(&fe).await {
                Ok(f) => out.push(bytes_of(&f).await.map(|bytes| Read { path, bytes })),
                Err(m) => out.push(Err(m)),
            }
        }
    }
    out
}

/// Fetch a file served beside index.html (a built-in sample), refusing an answer the server says is
/// over `limit` bytes before reading it.
pub async fn fetch_bytes(url: &str, limit: usize) -> Result<Vec<u8>, String> {
    let r = gloo::net::http::Request::get(url).send().await.map_err(|e| format!("{url} could not be fetched ({e})"))?;
    if !r.ok() {
        return Err(format!("{url} could not be fetched (HTTP {} {})", r.status(), r.status_text()));
    }
    if let Some(len) = r.headers().get("content-length").and_then(|l| l.parse::<usize>().ok()) {
        if len > limit {
            return Err(format!("{url} is {} MB, more than the {} MB it may be; not read", len >> 20, limit >> 20));
        }
    }
    r.binary().await.map_err(|e| format!("{url} could not be read ({e})"))
}

/// Files being read, as the views wait for them.
pub type Reading = std::pin::Pin<Box<dyn std::future::Future<Output = Vec<Result<Read, String>>>>>;

/// Let the page paint before a long computation.
pub async fn yield_now() {
    gloo::timers::future::TimeoutFuture::new(0).await;
}

/// Set a performance mark (for the benchmarks and the end-to-end test).
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        p.clear_marks_with_mark_name(name);
        let _ = p.mark(name);
    }
}

/// Save a text as a file the browser downloads. The last export's object URL and name are kept on
/// `#last-export` (`href`, `download`), so a test can read back what was saved.
pub fn download_text(name: &str, mime: &str, text: &str) {
    let parts = Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    if let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) {
        download_blob(name, &blob);
    }
}

fn download_blob(name: &str, blob: &web_sys::Blob) {
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else { return };
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let keep = match doc.get_element_by_id("last-export") {
        Some(a) => a,
        None => {
            let Ok(a) = doc.create_element("a") else { return };
            a.set_id("last-export");
            a.set_attribute("hidden", "").ok();
            if let Some(body) = doc.body() {
                let _ = body.append_child(&a);
            }
            a
        }
    };
    if let Some(old) = keep.get_attribute("href") {
        let _ = web_sys::Url::revoke_object_url(&old);
    }
    let _ = keep.set_attribute("href", &url);
    let _ = keep.set_attribute("download", name);
    if let Ok(a) = doc.create_element("a") {
        let a: web_sys::HtmlAnchorElement = a.unchecked_into();
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
}

/// Rasterise an SVG (its own width and height) on a white canvas at twice its size and download
/// it as PNG.
pub fn download_png(name: &str, svg: &str) {
    let name = name.to_string();
    let svg = svg.to_string();
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = png(&name, &svg).await {
            web_sys::console::warn_1(&format!("PNG export failed: {e:?}").into());
        }
    });
}

fn attr_num(svg: &str, key: &str) -> Option<f64> {
    let i = svg.find(&format!(" {key}=\""))? + key.len() + 3;
    svg[i..].split('"').next()?.parse().ok()
}

async fn png(name: &str, svg: &str) -> Result<(), JsValue> {
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let (w, h) = (attr_num(svg, "width").unwrap_or(800.0), attr_num(svg, "height").unwrap_or(600.0));
    let parts = Array::of1(&JsValue::from_str(svg));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("image/svg+xml");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let img: web_sys::HtmlImageElement = doc.create_element("img")?.unchecked_into();
    let loaded = {
        let img = img.clone();
        promise_of(move |resolve, reject| {
            img.set_onload(Some(&resolve));
            img.set_onerror(Some(&reject));
        })
    };
    img.set_src(&url);
    JsFuture::from(loaded).await?;
    let _ = web_sys::Url::revoke_object_url(&url);
    let scale = 2.0;
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas")?.unchecked_into();
    canvas.set_width((w * scale) as u32);
    canvas.set_height((h * scale) as u32);
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d")?.ok_or("no 2d context")?.unchecked_into();
    ctx.set_fill_style_str("#ffffff");
    ctx.fill_rect(0.0, 0.0, w * scale, h * scale);
    ctx.draw_image_with_html_image_element_and_dw_and_dh(&img, 0.0, 0.0, w * scale, h * scale)?;
    let blob_p = {
        let c = canvas.clone();
        promise_of(move |resolve, _reject| {
            let _ = c.to_blob_with_type(&resolve, "image/png");
        })
    };
    let png = JsFuture::from(blob_p).await?;
    let png: web_sys::Blob = png.dyn_into()?;
    download_blob(name, &png);
    Ok(())
}

/// A file name from a title (letters, digits, dashes).
pub fn file_name(title: &str, ext: &str) -> String {
    let s: String =
        title.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let s = s.split('-').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("-");
    format!("{}.{ext}", if s.is_empty() { "export" } else { &s })
}
