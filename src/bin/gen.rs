//! The generator's extra parts (Merge Codebases, variable renaming, the runtime-resolution,
//! instruction-following and comment-copying axes) as the playground's wasm module, fetched only
//! when a page needs a task of them: the app's first download is built without them (the cargo
//! feature `gen-extra`). Trunk builds it from index.html's `data-type="worker"` link, for its
//! no-modules glue, but it runs on the page's main thread. See `cabrito::web::gen`. Natively it
//! only points at `cabrito generate`.

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
