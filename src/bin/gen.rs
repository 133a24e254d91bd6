//! The generator's extra parts (Merge Codebases, variable renaming, the runtime-resolution,
//! instruction-following and comment-copying axes) as the playground's wasm module, fetched only
//! when a page needs a task of them: the app's first download is built without them (the cargo
//! feature `gen-extra`). Trunk builds it from index.html's `data-type="worker"` link, for its
//! no-modules glue. It runs twice: on the page's main thread (loaded by `web::lazy`: the synchronous
//! `generate` of the scale page and `why`), and in a Web Worker that instance starts with the same
//! compiled wasm, which generates the task page's and the gallery cards' tasks off the main thread
//! (`start` sees which it is in). See `cabrito::web::gen`. Natively it only points at `cabrito generate`.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::gen::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "gen: this is the playground's generator module and only runs in the browser; natively, use `cabrito generate`"
    );
    std::process::exit(2);
}
