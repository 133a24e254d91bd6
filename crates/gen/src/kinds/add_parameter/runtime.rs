//! Add a parameter on the runtime axis (generation.md §4.3): the signatures change as on the other
//! axes; the parameter is passed and applied only in the branches that run, and the branches that never
//! run stay copies of the plain body.

use super::param;
use crate::domain::DomainInfo;
use crate::kinds::graph_kind::runtime::{Inactive, RuntimeKind};

pub struct Runtime;

impl RuntimeKind for Runtime {
    fn inactive(&self) -> Inactive {
        Inactive::Plain
    }
    fn rule(&self, d: &DomainInfo) -> String {
        let p = param(d.domain);
        format!(
            "- Every function below the first one gains `{p}` in its signature. Pass `{p}` only in the calls of the \
             branch that runs, and apply it only in the return of the branch that runs; calls and returns in branches \
             that never run stay as they are."
        )
    }
}
