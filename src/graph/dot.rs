//! Graphviz DOT export of a call graph, vertices coloured by role.

use super::CallGraph;
use crate::kinds::Role;

/// Fill colour of a role (shared with the playground's legend).
pub fn role_colour(role: Role) -> &'static str {
    match role {
        Role::Untouched => "#d9dee7",
        Role::Edit => "#f6c177",
        Role::EditLeaf => "#ea9a97",
        Role::Root | Role::Sink | Role::Lca | Role::Ncd => "#9ccfd8",
        Role::Dead => "#908caa",
    }
}

pub fn to_dot(g: &CallGraph, roles: &[Role]) -> String {
    let mut out =
        String::from("digraph calls {\n  rankdir=TB;\n  node [shape=box, style=filled, fontname=\"monospace\"];\n");
    out.push_str("  main [shape=ellipse, fillcolor=\"#ffffff\"];\n");
    for (v, &role) in roles.iter().enumerate().take(g.len()) {
        out.push_str(&format!(
            "  \"{}\" [fillcolor=\"{}\", tooltip=\"{}\"];\n",
            g.name(v),
            role_colour(role),
            role.as_str()
        ));
    }
    for v in g.entries() {
        out.push_str(&format!("  main -> \"{}\";\n", g.name(v)));
    }
    for (s, t) in g.edges() {
        out.push_str(&format!("  \"{}\" -> \"{}\";\n", g.name(s), g.name(t)));
    }
    out.push_str("}\n");
    out
}
