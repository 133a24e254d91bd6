//! Cache a function call on the runtime axis (generation.md §4.3): the starter adds `slow() +` to
//! every return of the leaves, in every branch; the reference stores `temp` at the start of the branch
//! that runs in the lowest common ancestor and passes and uses it only in the branches that run.

use super::{LIBRARY, TEMP};
use crate::domain::DomainInfo;
use crate::kinds::graph_kind::runtime::{Inactive, RuntimeKind};

pub struct Runtime;

impl RuntimeKind for Runtime {
    fn inactive(&self) -> Inactive {
        Inactive::Starter
    }
    fn rule(&self, _: &DomainInfo) -> String {
        format!(
            "- Store `{TEMP}` at the start of the branch that runs in the lowest common ancestor. Pass it, and use it \
             in place of `{LIBRARY}()`, only in the branches that run; branches that never run keep calling \
             `{LIBRARY}()`. The `{TEMP}` parameter goes on every function that needs it, whatever its branches."
        )
    }
}
