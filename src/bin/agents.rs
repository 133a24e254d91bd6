//! The agents page as the playground's fourth wasm module, fetched only when a reader opens
//! `#/agents` (Trunk builds it from index.html's `data-type="worker"` link, for its no-modules glue,
//! but it runs on the page's main thread). See `cabrito::web::agents`. Natively it only points at
//! `cabrito agent` and `cabrito solve`.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::agents::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("agents: this is the playground's agents module and only runs in the browser; natively, use `cabrito agent` and `cabrito solve`");
    std::process::exit(2);
}
