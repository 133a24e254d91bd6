//! Function traversal (generation.md §4.1): `n` functions to edit, 25 untouched.

use super::{AxisDef, Grows};

pub struct Traversal;

impl AxisDef for Traversal {
    fn label(&self) -> &'static str {
        "function traversal"
    }
    fn experiment(&self) -> &'static str {
        "function_traversal"
    }
    fn scales(&self) -> &'static str {
        "|V_edit| = n functions to edit, 25 untouched"
    }
    fn grows(&self) -> Grows {
        Grows::EditGraph
    }
    fn fixed_size(&self) -> u32 {
        25
    }
}
