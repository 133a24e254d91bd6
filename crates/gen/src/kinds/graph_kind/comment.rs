//! What the comment-copying axis adds to a call-graph kind (the axis itself: `axes/comment.rs`): the
//! reference carries the comment as the first line of every function the kind edits, and the
//! statement gains one rule quoting the comment.

use super::Built;
use crate::graph::CallGraph;
use crate::python::Stmt;

/// The stand-in comment of the worked example (the task's own comment is quoted in the rule).
pub const EXAMPLE_COMMENT: &str = "the given comment goes here";

/// Where the rule's comment goes in a cached statement.
pub const SLOT: &str = "\u{1}comment\u{1}";

/// Put the comment on the first line of every function the kind edits, in the reference only.
pub fn annotate(built: &mut Built, g: &CallGraph, comment: &str) {
    let edited: Vec<&str> = built.edit_set().into_iter().map(|v| g.name(v)).collect();
    for f in built.reference.functions.iter_mut().filter(|f| edited.contains(&f.name.as_str())) {
        f.body.insert(0, Stmt::Comment(comment.to_string()));
    }
}

/// The statement's extra rule; the comment itself is at [`SLOT`].
pub fn rule() -> String {
    format!(
        "One more rule: every function you change must also carry the comment below, copied word for word, on a \
         line of its own inside the function (for instance as its first line). Functions you do not change get no \
         comment. The worked example shows where it goes, with a stand-in comment (`# {EXAMPLE_COMMENT}`); your \
         comment is:\n\n```python\n# {SLOT}\n```"
    )
}
