//! Everything that needs the built app (`dist/`): the browser end-to-end tests in headless Chromium
//! against the real `cabrito serve`, and the first download. The tests that need it are named `e2e_…`:
//! scripts/test.sh's native step skips them and runs them after the app build.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../browser/mod.rs"]
mod browser;
#[path = "../guard/mod.rs"]
mod guard;
#[path = "../hostile/mod.rs"]
mod hostile;

mod agents_e2e;
mod bigtask_e2e;
mod browser_e2e;
mod classroom_e2e;
mod first_download;
mod gallery_lazy_e2e;
mod gensplit_e2e;
mod grade_e2e;
mod inpage_e2e;
mod layout_e2e;
mod pages_e2e;
mod results_e2e;
mod viewport;
