//! What a function is in a task, with the one table of its name, label and colour.

use serde::{Deserialize, Serialize};

/// What a function is in a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Part of C_init: must be left alone.
    Untouched,
    /// An edited function in the middle of the edit graph.
    Edit,
    /// An edited function at the edge of the edit graph: the terminal that applies the parameter,
    /// the leaf that calls `slow()`, the top function that calls the repeated helper.
    EditLeaf,
    /// The parameter root: the function that already has the new parameter.
    Root,
    /// The return sink: the function whose `external()` value must travel up.
    Sink,
    /// The cache task's lowest common ancestor.
    Lca,
    /// The DRY task's nearest common descendant.
    Ncd,
    /// Dead code: to delete.
    Dead,
    /// Runtime dead code: a live function whose branch that never runs calls dead code; the call
    /// becomes `val`.
    DeadCaller,
}

/// A role's machine name (records, CSS classes), human label (legend, tooltips) and fill colour
/// (the app's graph and the Graphviz export).
struct Row {
    name: &'static str,
    label: &'static str,
    colour: &'static str,
}

impl Role {
    /// Every role, in legend order.
    pub const ALL: &'static [Role] = &[
        Role::Untouched,
        Role::Edit,
        Role::EditLeaf,
        Role::Root,
        Role::Sink,
        Role::Lca,
        Role::Ncd,
        Role::Dead,
        Role::DeadCaller,
    ];

    /// The table of roles.
    const fn row(self) -> Row {
        const SPECIAL: &str = "#9ccfd8";
        match self {
            Role::Untouched => Row { name: "untouched", label: "untouched (leave alone)", colour: "#d9dee7" },
            Role::Edit => Row { name: "edit", label: "to edit", colour: "#f6c177" },
            Role::EditLeaf => Row { name: "edit_leaf", label: "to edit: edge of the edit graph", colour: "#ea9a97" },
            Role::Root => Row { name: "root", label: "parameter root", colour: SPECIAL },
            Role::Sink => Row { name: "sink", label: "return sink", colour: SPECIAL },
            Role::Lca => Row { name: "lca", label: "lowest common ancestor", colour: SPECIAL },
            Role::Ncd => Row { name: "ncd", label: "nearest common descendant", colour: SPECIAL },
            Role::Dead => Row { name: "dead", label: "dead: delete", colour: "#908caa" },
            Role::DeadCaller => Row {
                name: "dead_caller",
                label: "live; a branch that never runs calls dead code (the call becomes val)",
                colour: "#c4a7e7",
            },
        }
    }
    /// The machine name (as serialised).
    pub fn as_str(self) -> &'static str {
        self.row().name
    }
    /// A human label, for the legend and tooltips.
    pub fn label(self) -> &'static str {
        self.row().label
    }
    /// The fill colour, shared by the app's drawing and the Graphviz export.
    pub fn colour(self) -> &'static str {
        self.row().colour
    }
    pub fn is_edited(self) -> bool {
        self != Role::Untouched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_each_role_as_serde_does() {
        for &r in Role::ALL {
            assert_eq!(serde_json::to_value(r).unwrap(), serde_json::json!(r.as_str()));
            assert!(r.colour().starts_with('#') && !r.label().is_empty());
        }
        let mut names: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
        names.dedup();
        assert_eq!(names.len(), Role::ALL.len());
    }
}
