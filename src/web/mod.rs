//! The Yew app (wasm only). Placeholder until the walking skeleton lands.

pub fn start() {}
