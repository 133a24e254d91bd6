//! The agents: the agent–computer interface and the scripted strategies judged by the rubric.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../hostile/mod.rs"]
mod hostile;

mod aci;
mod agents;
mod noninterference;
mod run_hostile;
