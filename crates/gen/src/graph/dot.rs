//! Graphviz DOT export of a call graph, vertices coloured by role (the colours of [`Role`]'s table).

use super::CallGraph;
use crate::kinds::Role;

pub fn to_dot(g: &CallGraph, roles: &[Role]) -> String {
    let mut out =
        String::from("digraph calls {\n  rankdir=TB;\n  node [shape=box, style=filled, fontname=\"monospace\"];\n");
    out.push_str("  main [shape=ellipse, fillcolor=\"#ffffff\"];\n");
    for (v, &role) in roles.iter().enumerate().take(g.len()) {
        out.push_str(&format!(
            "  \"{}\" [fillcolor=\"{}\", tooltip=\"{}\"];\n",
            g.name(v),
            role.colour(),
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
