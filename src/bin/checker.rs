//! The static checker's web worker (it holds the Python parser). See `cabrito::web::checker`. Natively
//! it only points at `cabrito check`.

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
