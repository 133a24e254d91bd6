//! `comment_copy`, the comment-copying axis's rubric item: every function the reference edits carries
//! the task's comment, word for word, on a line of its own inside the function, and no other function
//! carries it. The comment is the record's `metadata.comment`; for a record without one, the comment
//! the reference's functions carry.

use super::program::{Comment, Program};
use super::rubric::{Ctx, RubricOutcome};
use ruff_python_ast::StmtFunctionDef;
use ruff_text_size::Ranged;

/// The words of a comment's text.
fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// The comment the task asks for.
fn expected(c: &Ctx) -> Option<String> {
    if let Some(s) = c.task.metadata.get("comment").and_then(|v| v.as_str()) {
        return Some(s.to_string());
    }
    // Records without the field: the one comment the reference's functions carry.
    let mut found: Option<String> = None;
    for f in c.reference.functions() {
        for k in c.reference.comments_in(f) {
            let w = words(k.text).join(" ");
            match &found {
                None if !w.is_empty() => found = Some(w),
                Some(x) if *x != w => return None,
                _ => {}
            }
        }
    }
    found
}

/// Does a comment carry the expected words exactly?
fn is_copy(k: &Comment, want: &[&str]) -> bool {
    words(k.text) == want
}

/// Of a function's comments, the one most like the expected one (most words in place, then the
/// earliest), with the number of words in place.
fn closest<'a, 's>(comments: &'a [Comment<'s>], want: &[&str]) -> Option<(&'a Comment<'s>, usize)> {
    let mut best: Option<(&Comment, usize)> = None;
    for k in comments {
        let got = words(k.text);
        let same = got.iter().zip(want).filter(|(a, b)| a == b).count();
        if best.is_none_or(|(_, s)| same > s) {
            best = Some((k, same));
        }
    }
    best
}

/// What is wrong with the closest copy: the first word that differs.
fn first_difference(got: &[&str], want: &[&str]) -> String {
    for (i, w) in want.iter().enumerate() {
        match got.get(i) {
            Some(g) if g == w => continue,
            Some(g) => return format!("word {} is `{g}` where the comment has `{w}`", i + 1),
            None => return format!("the copy stops after {} words; word {} should be `{w}`", got.len(), i + 1),
        }
    }
    format!("the copy has an extra word `{}` after the last one, `{}`", got[want.len()], want[want.len() - 1])
}

/// The problem with one function that must carry the comment, if any: (line, message).
fn problem(p: &Program, f: &StmtFunctionDef, want: &[&str]) -> Option<(usize, String)> {
    let name = f.name.as_str();
    let inside = p.comments_in(f);
    if inside.iter().any(|k| k.own_line && is_copy(k, want)) {
        return None;
    }
    if let Some(k) = inside.iter().find(|k| is_copy(k, want)) {
        return Some((
            k.line,
            format!("`{name}` has the comment on the same line as code (line {}); put it on a line of its own", k.line),
        ));
    }
    // A copy between the previous statement and the `def` is outside the function.
    let def_line = p.line_of(f);
    let previous_end =
        p.body().iter().take_while(|s| s.start() < f.start()).map(|s| p.line(s.end())).max().unwrap_or(0);
    let above = p.comments().into_iter().find(|k| k.line > previous_end && k.line < def_line && is_copy(k, want));
    if let Some(k) = above {
        return Some((
            k.line,
            format!("the comment above `{name}` (line {}) is outside the function; put it inside", k.line),
        ));
    }
    match closest(&inside, want) {
        Some((k, same)) if same > 0 || inside.len() == 1 => Some((
            k.line,
            format!(
                "`{name}`'s copy of the comment (line {}) differs: {}",
                k.line,
                first_difference(&words(k.text), want)
            ),
        )),
        _ => Some((p.line_of(f), format!("`{name}` does not carry the comment"))),
    }
}

/// The `comment_copy` item.
pub fn comment_copy(c: &Ctx) -> RubricOutcome {
    let Some(text) = expected(c) else {
        return RubricOutcome {
            passed: false,
            reason: "the task names no comment to copy (no `comment` in its metadata, and the reference carries none)"
                .into(),
            line: None,
        };
    };
    let want = words(&text);
    // The functions that must carry it: those whose reference version does.
    let carriers: Vec<&str> = c
        .reference
        .functions()
        .into_iter()
        .filter(|f| c.reference.comments_in(f).iter().any(|k| k.own_line && is_copy(k, &want)))
        .map(|f| f.name.as_str())
        .collect();
    let mut problems: Vec<(usize, String)> = Vec::new();
    let mut checked = 0;
    for f in c.candidate.functions() {
        let name = f.name.as_str();
        if c.candidate.function(name).is_none_or(|last| !std::ptr::eq(last, f)) {
            continue;
        }
        if carriers.contains(&name) {
            checked += 1;
            problems.extend(problem(c.candidate, f, &want));
        } else if let Some(k) = c.candidate.comments_in(f).iter().find(|k| is_copy(k, &want)) {
            problems.push((
                k.line,
                format!("`{name}` carries the comment (line {}) but is not a function to change", k.line),
            ));
        }
    }
    if problems.is_empty() {
        return RubricOutcome {
            passed: true,
            reason: format!(
                "the {} functions to change carry the {}-word comment on a line of their own, and no other does",
                checked,
                want.len()
            ),
            line: None,
        };
    }
    problems.sort();
    let (line, first) = problems[0].clone();
    let more = match problems.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    RubricOutcome { passed: false, reason: format!("{first}{more}"), line: Some(line) }
}
