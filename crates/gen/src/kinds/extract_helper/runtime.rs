//! Don't repeat yourself on the runtime axis (generation.md §4.3): the starter puts the helper call
//! in every branch of each top function; the reference moves it only along the branches that run, so
//! the branches that never run keep their own helper call and their single return value.

use super::{helper, value};
use crate::domain::DomainInfo;
use crate::kinds::graph_kind::runtime::{Inactive, RuntimeKind};

pub struct Runtime;

impl RuntimeKind for Runtime {
    fn inactive(&self) -> Inactive {
        Inactive::Starter
    }
    fn rule(&self, d: &DomainInfo) -> String {
        let (h, p) = (helper(d.domain), value(d.domain));
        format!(
            "- Move the call only along the branches that run: the nearest common descendant computes `{p}` at the \
             start of the branch that runs and returns `(X, {p})` there; the functions in between unpack and return \
             the pair in the branch that runs; the original callers drop their own `{h}` call only in the branch \
             that runs. Branches that never run keep their own `{h}` call and return a single value."
        )
    }
}
