//! One binary: the Yew app when built for wasm, the `cabrito` CLI and worker natively.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cabrito::native::cli::run());
}
