//! The grading worker over a real WebSocket on the appendix tasks: it regenerates a comment-copying
//! task and a variable-renaming task from their specs, passes their references and fails a wrong
//! comment and an unrenamed use, on the static rubric and on the hidden tests alike.

#![cfg(not(target_arch = "wasm32"))]

use crate::worker_common;

use cabrito_check::protocol::{ClientMessage, ServerMessage};
use cabrito_gen::TaskSpec;
use std::time::Duration;
use worker_common::*;

const T: Duration = Duration::from_secs(30);

fn spec(query: &str) -> TaskSpec {
    TaskSpec::from_pairs(query.split('&').map(|p| p.split_once('=').expect("key=value"))).expect("valid spec")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_grades_the_appendix_tasks() {
    let addr = start(config()).await;
    let mut c = connect(addr).await;
    c.hello().await;
    let comment = spec("kind=extract_helper&axis=comment&n=9&seed=4");
    let renaming = spec("kind=variable_renaming&n=6&chain=40&seed=2");
    for s in [&comment, &renaming] {
        let t = task(s);
        c.send(&ClientMessage::grade("ref", s, t.solution_code.clone(), Some(3))).await;
        let Some(ServerMessage::Result(r)) = c.until_final("ref", T).await.pop() else { panic!("a result") };
        assert!(r.passed && r.static_passed && r.hidden_passed == Some(true), "{s}: {}", r.message);
        let (wrong, id) = if s.kind == cabrito_gen::Kind::VariableRenaming {
            let pair = &t.metadata["renames"][0];
            let (old, new) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
            let i = t.solution_code.rfind(&format!(" {new}")).unwrap() + 1;
            (format!("{}{old}{}", &t.solution_code[..i], &t.solution_code[i + new.len()..]), "renames")
        } else {
            let words = t.metadata["comment"].as_str().unwrap();
            (t.solution_code.replacen(&format!("# {words}"), &format!("# {words} more"), 1), "comment_copy")
        };
        c.send(&ClientMessage::grade("wrong", s, wrong, Some(3))).await;
        let Some(ServerMessage::Result(r)) = c.until_final("wrong", T).await.pop() else { panic!("a result") };
        assert!(!r.passed && !r.static_passed && r.hidden_passed == Some(false), "{s}: {}", r.message);
        let item = r.checks.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("{s}: no {id} in {:?}", r.checks));
        assert!(!item.passed && item.line.is_some(), "{s}: {item:?}");
        let hidden = r.checks.iter().find(|c| c.id == "hidden_tests").expect("the hidden check");
        // The first failing required check is named: a wrong comment leaves the behaviour alone, an
        // unrenamed use raises a NameError before `renames` is reached.
        let why = if id == "renames" { "NameError" } else { id };
        assert!(!hidden.passed && hidden.reason.contains(why), "{s}: {}", hidden.reason);
    }
}
