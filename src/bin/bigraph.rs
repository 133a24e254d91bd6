//! The clustered drawing of big call graphs (more than 400 functions) as the playground's sixth wasm
//! module, fetched only when a task with one is shown (Trunk builds it from index.html's
//! `data-type="worker"` link, for its no-modules glue, but it runs on the page's main thread). It
//! holds the layered layout's clustering and the clustered drawing, and no Yew: it answers the app's
//! request with markup. See `cabrito::web::bigraph` and `cabrito_gen::graph::bigsvg`. Natively it only
//! points at `cabrito generate` (its `dag.dot`).

#[cfg(target_arch = "wasm32")]
fn main() {
    cabrito::web::bigraph::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("bigraph: this is the playground's clustered call graph module and only runs in the browser; natively, `cabrito generate` writes a task's call graph (dag.dot)");
    std::process::exit(2);
}
