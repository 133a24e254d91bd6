//! The playground: its pure logic ([`playground`], tested natively) and, in wasm, the Yew app
//! ([`web`]). The layers it stands on are the crates under `crates/`: `cabrito-gen`,
//! `cabrito-check`, `cabrito-analysis` and `cabrito-agents` (and natively `cabrito-native`).
#![warn(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]

pub mod playground;

#[cfg(target_arch = "wasm32")]
pub mod web;
