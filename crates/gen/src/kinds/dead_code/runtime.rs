//! Remove dead code on the runtime axis (generation.md §4.3): the branches that never run call
//! distractors (a live function's call dead ones, a dead function's call live ones), so dead
//! functions are called only where nothing runs; the reference deletes them and turns every call to
//! them that is left into `val`.

use crate::domain::DomainInfo;
use crate::kinds::graph_kind::runtime::{Inactive, RuntimeKind};

pub struct Runtime;

impl RuntimeKind for Runtime {
    fn inactive(&self) -> Inactive {
        Inactive::Distractor
    }
    fn rule(&self, _: &DomainInfo) -> String {
        "- A function is reachable only through calls in branches that run: a call in a branch that never runs does \
         not make its callee reachable, so that callee may be dead.\n\
         - The one change outside running branches: after deleting the unreachable functions, every call to a \
         deleted function that is left (in branches that never run) is replaced by `val`, so `c_val = c(val)` \
         becomes `c_val = val`."
            .into()
    }
}
