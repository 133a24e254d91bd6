//! The Results and Traces pages as a wasm module whose app draws the whole page (`web::pages`). See
//! `cabrito::web::analysis`. Natively it only points at `cabrito report` and `cabrito traces`.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::analysis::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("analysis: this is the playground's Results and Traces module and only runs in the browser; natively, use `cabrito report` and `cabrito traces`");
    std::process::exit(2);
}
