//! The generator's extra parts (`gen-extra`) as a wasm module the app loads when a page needs one; it
//! runs on the page (synchronous calls) and in a Web Worker (the task page's tasks). See
//! `cabrito::web::gen`. Natively it only points at `cabrito generate`.

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
