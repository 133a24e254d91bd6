//! Add a return value on the runtime axis (generation.md §4.3): the starter wraps only the running
//! return of the sink in `external()`; the reference unpacks and returns the key only in the branches
//! that run, with the tuple annotation although the branches that never run still return one value.

use crate::domain::DomainInfo;
use crate::kinds::graph_kind::runtime::{Inactive, RuntimeKind};

pub struct Runtime;

impl RuntimeKind for Runtime {
    fn inactive(&self) -> Inactive {
        Inactive::Plain
    }
    fn rule(&self, d: &DomainInfo) -> String {
        format!(
            "- Only the branch that runs calls `external()`, and only it depends on it. Unpack pairs and return \
             `(X, key)` only in the branches that run; the annotation becomes `tuple[{}, str]` even though branches \
             that never run still return a single value.",
            d.ty
        )
    }
}
