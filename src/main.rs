//! One binary: the Yew app when built for wasm, the `cabrito` CLI and worker natively.

/// The app's allocator: talc, which takes memory from `memory.grow` (the app is one thread). The lazily
/// loaded modules are binaries of their own and keep the standard one.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: talc::TalckWasm = unsafe { talc::TalckWasm::new_global() };

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cabrito_native::cli::run());
}
