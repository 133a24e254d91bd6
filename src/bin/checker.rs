//! The static checker as a web worker: the playground's second wasm module (Trunk builds it from
//! index.html's `data-type="worker"` link). It holds the Python parser, so the app's first download
//! does not; see `cabrito::web::checker`. Natively it only points at `cabrito check`.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::checker::serve();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "checker: this is the playground's web worker and only runs in the browser; natively, use `cabrito check`"
    );
    std::process::exit(2);
}
