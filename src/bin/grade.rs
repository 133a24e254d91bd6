//! The task page's grade panel as the playground's fifth wasm module, fetched once a task page is
//! idle after its first paint, or at once when its Grade tab is shown (Trunk builds it from
//! index.html's `data-type="worker"` link, for its no-modules glue, but it runs on the page's main
//! thread). It holds the panel, the worker and checker protocols and their serde, so the app's
//! first download does not. See `cabrito::web::grade`. Natively it only points at `cabrito check`
//! and `cabrito grade`.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::grade::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("grade: this is the playground's grade panel module and only runs in the browser; natively, use `cabrito check` and `cabrito grade`");
    std::process::exit(2);
}
