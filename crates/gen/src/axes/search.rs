//! Function search (generation.md §4.2): `n` untouched functions to search past, 25 to edit.

use super::{AxisDef, Grows};

pub struct Search;

impl AxisDef for Search {
    fn label(&self) -> &'static str {
        "function search"
    }
    fn experiment(&self) -> &'static str {
        "function_search"
    }
    fn scales(&self) -> &'static str {
        "|V_init| = n untouched functions to search past, 25 to edit"
    }
    fn grows(&self) -> Grows {
        Grows::InitGraph
    }
    fn fixed_size(&self) -> u32 {
        25
    }
}
