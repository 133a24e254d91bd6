//! The agents: the agent–computer interface and the scripted strategies judged by the rubric.
//!
//! One test crate (one link) for these files; each file is a module, as it was a crate of its own.

mod aci;
mod agents;
