//! The Results and Traces views as the playground's third wasm module, fetched only when a reader
//! opens `#/results` or `#/traces` (Trunk builds it from index.html's `data-type="worker"` link, for
//! its no-modules glue, but it runs on the page's main thread): the app's first download carries
//! neither the views nor the results and traces readers. See `cabrito::web::analysis`. Natively it
//! only points at `cabrito report` and `cabrito traces`.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::analysis::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("analysis: this is the playground's Results and Traces module and only runs in the browser; natively, use `cabrito report` and `cabrito traces`");
    std::process::exit(2);
}
