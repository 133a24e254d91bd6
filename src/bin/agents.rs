//! The agents page as a wasm module whose app draws the whole page (`web::pages`). See
//! `cabrito::web::agents`. Natively it only points at `cabrito agent` and `cabrito solve`.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::agents::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("agents: this is the playground's agents module and only runs in the browser; natively, use `cabrito agent` and `cabrito solve`");
    std::process::exit(2);
}
