//! The clustered drawing of big call graphs as a wasm module (no Yew): it answers the app with markup.
//! See `cabrito::web::bigraph`. Natively it only points at `cabrito generate`.

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::bigraph::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("bigraph: this is the playground's clustered call graph module and only runs in the browser; natively, `cabrito generate` writes a task's call graph (dag.dot)");
    std::process::exit(2);
}
