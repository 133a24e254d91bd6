//! Hostile input through the app → module hand-offs (issue 14 item 3's split): the `gen` module's
//! `generate` entry (a spec query, [`handover::answer`]) and its answer as the app reads it
//! ([`handover::read_answer`], [`handover::decode`]), its `why` entry and answer
//! ([`handover::why_answer`], [`handover::read_why`]), and the grade module's entry
//! ([`GradeTask::from_json`]) and its "why this branch?" panel ([`handover::why_task`],
//! [`handover::why_task_read`]). Same-origin, but read as hostile all the same: a valid encoding with
//! one field removed, renamed, of the wrong type or out of range, truncated text, deep nesting, huge
//! strings and random JSON all give an error (one line, short, naming the field), never a panic or a
//! stack overflow; and a valid encoding reads back as the same task (same task hash) for random
//! specs of every kind and axis.
#![cfg(not(target_arch = "wasm32"))]

use cabrito::playground::handoff::GradeTask;
use cabrito::playground::{handover, handover::Made};
use cabrito_gen::task::{generate_full, task_hash};
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::OnceLock;

// ---- specs ------------------------------------------------------------------------------------

/// Every (kind, domain, axis) the generator makes, with an `n` it takes.
fn combos() -> &'static [TaskSpec] {
    static ALL: OnceLock<Vec<TaskSpec>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut out = Vec::new();
        for &kind in Kind::ALL {
            for &domain in Domain::ALL {
                for &axis in Axis::ALL {
                    let spec = [10, 30]
                        .iter()
                        .map(|&n| TaskSpec::new(kind, domain, axis, n, 0))
                        .find(|s| s.validate().is_ok());
                    out.extend(spec);
                }
            }
        }
        out
    })
}

/// A valid spec: a kind/domain/axis, an `n` and a seed, and the runtime and instruction knobs
/// varied where they apply (any that makes the spec invalid keeps its default).
fn any_spec() -> impl Strategy<Value = TaskSpec> {
    (0..combos().len(), 2u32..40, any::<u64>(), 0usize..3, 0u8..=10, 1u32..=100).prop_map(
        |(i, n, seed, branches, ratio, conditional)| {
            let mut s = TaskSpec { seed, ..combos()[i].clone() };
            for change in 0..4 {
                let before = s.clone();
                match change {
                    0 => s.n = n,
                    1 => s.branches = [2, 4, 8][branches],
                    2 => s.ratio_tenths = ratio,
                    _ => s.conditional = conditional,
                }
                if s.validate().is_err() {
                    s = before;
                }
            }
            s
        },
    )
}

// ---- JSON paths and mutations -------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(Step::Key(k.clone()));
                out.push(here.clone());
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Step::Index(i));
                out.push(here.clone());
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn all_paths(v: &Value) -> Vec<Vec<Step>> {
    let mut out = Vec::new();
    paths(v, &mut Vec::new(), &mut out);
    out
}

fn at_mut<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

/// The last field name on a path (what an error must name).
fn last_key(path: &[Step]) -> Option<&str> {
    path.iter().rev().find_map(|s| match s {
        Step::Key(k) => Some(k.as_str()),
        Step::Index(_) => None,
    })
}

fn starts_with(path: &[Step], prefix: &[&str]) -> bool {
    path.len() >= prefix.len() && path.iter().zip(prefix).all(|(s, p)| matches!(s, Step::Key(k) if k == p))
}

/// JSON nested `depth` lists deep around `inner`.
fn deep(depth: usize, inner: Value) -> Value {
    (0..depth).fold(inner, |v, _| Value::Array(vec![v]))
}

/// One change to a valid encoding.
#[derive(Clone, Debug)]
enum Mutation {
    /// The field (or list item) taken out.
    Remove,
    /// The field under another name.
    Rename,
    /// A value of another JSON type (never null), or a number that is no count.
    WrongType(usize),
    /// A number too large for any field, or a count just past what it indexes.
    OutOfRange(usize),
    /// A text of a million bytes.
    Huge,
    /// Lists nested 200 deep.
    Deep,
}

fn any_mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::Remove),
        Just(Mutation::Rename),
        (0usize..16).prop_map(Mutation::WrongType),
        (0usize..8).prop_map(Mutation::OutOfRange),
        Just(Mutation::Huge),
        Just(Mutation::Deep),
    ]
}

/// Apply `m` at `path`. Returns whether the decoder must refuse the result when the path is one it
/// reads (a typed field removed, renamed or of the wrong type; not a list item taken out, nor a
/// text or number that may still fit).
fn mutate(v: &mut Value, path: &[Step], m: &Mutation) -> bool {
    let (parent, last) = path.split_at(path.len() - 1);
    if let Mutation::Remove | Mutation::Rename = m {
        let parent = at_mut(v, parent);
        return match (&last[0], parent) {
            (Step::Key(k), Value::Object(map)) => {
                let old = map.shift_remove(k).unwrap_or(Value::Null);
                if matches!(m, Mutation::Rename) {
                    map.insert(format!("{k}_renamed"), old);
                }
                true
            }
            (Step::Index(i), Value::Array(a)) => {
                a.remove(*i);
                false
            }
            _ => false,
        };
    }
    let target = at_mut(v, path);
    // A null in an encoding is a field that may be null (a parameter's piece, a folded name).
    let nullable = target.is_null();
    match m {
        Mutation::Remove | Mutation::Rename => unreachable!(),
        Mutation::WrongType(i) => {
            let choices = [
                json!("NaN"),
                json!("-1"),
                json!("Infinity"),
                json!(-1),
                json!(-9_007_199_254_740_993i64),
                json!(0.5),
                json!(1e300),
                json!(true),
                json!([]),
                json!([1, 2, 3]),
                json!({}),
                json!({"x": 1}),
                json!(""),
                json!("[]"),
                json!(18.0),
                json!([["nested"]]),
            ];
            // Another JSON type than the value's (a count stays wrong when it becomes -1 or 0.5).
            let same = |a: &Value, b: &Value| std::mem::discriminant(a) == std::mem::discriminant(b);
            let pick = (0..choices.len())
                .map(|k| &choices[(i + k) % choices.len()])
                .find(|c| !same(c, target) || (target.is_u64() && !c.is_u64()))
                .cloned()
                .unwrap_or(Value::Null);
            let refuse = (!same(&pick, target) || target.is_u64()) && !nullable;
            *target = pick;
            refuse
        }
        Mutation::OutOfRange(i) => {
            let choices = [
                json!(u64::MAX),
                json!(u64::from(u32::MAX) + 1),
                json!(256),
                json!(2),
                json!(1_000_000_000u64),
                json!(-1),
                json!(1e19),
                json!(10_001),
            ];
            *target = choices[i % choices.len()].clone();
            false
        }
        Mutation::Huge => {
            let refuse = !target.is_string() && !nullable;
            *target = Value::String("x".repeat(1 << 20));
            refuse
        }
        Mutation::Deep => {
            *target = deep(200, json!(1));
            !nullable
        }
    }
}

/// The field an error about `m` at `path` must name: the last one on the path, except for a list
/// item taken out (another field may then point past the list's end) and for JSON deeper than the
/// parser reads (refused before any field is read).
fn named<'a>(path: &'a [Step], m: &Mutation) -> Option<&'a str> {
    let item_removed = matches!((m, path.last()), (Mutation::Remove | Mutation::Rename, Some(Step::Index(_))));
    if item_removed || matches!(m, Mutation::Deep) {
        None
    } else {
        last_key(path)
    }
}

/// An error as the hand-offs must give one: one line, short, naming `key` when there is one.
fn well_said(e: &str, key: Option<&str>) -> Result<(), TestCaseError> {
    prop_assert!(!e.contains('\n'), "an error on several lines: {e:?}");
    prop_assert!(e.len() <= 600, "an error of {} bytes: {}…", e.len(), &e[..200]);
    if let Some(k) = key {
        prop_assert!(e.contains(k), "the error does not name the field '{k}': {e}");
    }
    Ok(())
}

// ---- the gen module's task -------------------------------------------------------------------------

/// A task's encoding per part of the generator (plain graph, runtime, instructions, merge, renaming,
/// comment).
/// A valid encoding: what it was made for, the JSON, and every path in it.
type Base<T> = (T, Value, Vec<Vec<Step>>);

fn encodings() -> &'static [Base<TaskSpec>] {
    static ALL: OnceLock<Vec<Base<TaskSpec>>> = OnceLock::new();
    ALL.get_or_init(|| {
        [
            TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 10, 1),
            TaskSpec::new(Kind::DeadCode, Domain::String, Axis::Runtime, 12, 2),
            TaskSpec::new(Kind::CacheFunction, Domain::Array, Axis::Instructions, 4, 3),
            TaskSpec { kind: Kind::MergeCodebases, seed: 4, ..TaskSpec::default() },
            TaskSpec { kind: Kind::VariableRenaming, seed: 5, ..TaskSpec::default() },
            TaskSpec::new(Kind::ExtractHelper, Domain::String, Axis::Comment, 7, 6),
        ]
        .into_iter()
        .map(|s| {
            assert!(s.validate().is_ok(), "{s:?}");
            let v = handover::encode(&Made::from(generate_full(&s).unwrap()));
            let paths = all_paths(&v);
            (s, v, paths)
        })
        .collect()
    })
}

/// The fields the app does not read (the record's own copies; of the metadata, the app reads only a
/// comment task's `comment`) and the ones it may lack.
fn opaque(spec: &TaskSpec, path: &[Step]) -> bool {
    let comment = spec.axis == Axis::Comment && path.len() >= 3 && starts_with(path, &["task", "metadata", "comment"]);
    (starts_with(path, &["task", "metadata"]) && !comment)
        || starts_with(path, &["task", "graph"])
        || starts_with(path, &["task", "spec"])
        || (starts_with(path, &["task", "roles"]) && path.len() == 3)
}
fn optional(path: &[Step]) -> bool {
    matches!(path, [Step::Key(a), Step::Key(b)] if a == "task" && b == "runtime")
        || matches!(path, [Step::Key(a), Step::Key(b), Step::Key(c)] if a == "task" && b == "runtime" && c == "inactive_calls")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A spec's query through the module's entry and back through the app's reader (as JSON text and
    /// on its tape) is the task generated natively: the same record, byte for byte, and the same hash.
    #[test]
    fn a_valid_answer_reads_back_as_the_same_task(spec in any_spec()) {
        let made = Made::from(generate_full(&spec).unwrap());
        let text = handover::answer(&spec.to_query());
        let back = handover::read_answer(&text, &spec).map_err(|e| TestCaseError::fail(format!("{}: {e}", spec.canonical())))?;
        prop_assert_eq!(task_hash(&back.task), task_hash(&made.task), "{}", spec.canonical());
        prop_assert_eq!(serde_json::to_string(&back.task).unwrap(), serde_json::to_string(&made.task).unwrap());
        // Through the tape, as the page hands it over: the same value as the text, and the same task.
        // (The answer with its task's graph `null`, then the graph.)
        let tape = handover::answer_tape(handover::made_for(&spec.to_query()));
        let (mut value, end) = cabrito::playground::tape::decode_first(&tape).map_err(TestCaseError::fail)?;
        let graph = cabrito::playground::tape::decode(&tape[end..]).map_err(TestCaseError::fail)?;
        prop_assert!(value["ok"]["task"]["graph"].is_null());
        value["ok"]["task"]["graph"] = graph;
        prop_assert_eq!(value.to_string(), text);
        let back = handover::read_answer_tape(tape, &spec).map_err(|e| TestCaseError::fail(format!("{}: {e}", spec.canonical())))?;
        let record = back.record().map_err(TestCaseError::fail)?;
        prop_assert_eq!(task_hash(&record), task_hash(&made.task), "{}", spec.canonical());
        // And the grade module's hand-off of the same task.
        let shared = (spec.seed % 3 == 0).then(|| Ok(made.task.solution_code.clone()));
        let h = GradeTask::of(&spec, &made.task, shared);
        let h2 = GradeTask::from_json(&h.to_json()).map_err(TestCaseError::fail)?;
        prop_assert_eq!(h2.starter(), made.task.starter_code.as_str());
        prop_assert_eq!(h2.reference(), made.task.solution_code.as_str());
        prop_assert_eq!(h2, h);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// One field of a valid encoding removed, renamed, of the wrong type, out of range, huge or
    /// deeply nested: never a panic; an error names the field; a typed field the app reads is
    /// refused when removed, renamed or of the wrong type.
    #[test]
    fn a_damaged_answer_is_refused_by_name(which in 0usize..6, pick in any::<prop::sample::Index>(), m in any_mutation()) {
        let (spec, base, all) = &encodings()[which];
        let path = &all[pick.index(all.len())];
        let mut v = base.clone();
        let must_refuse = mutate(&mut v, path, &m) && !opaque(spec, path) && !(optional(path) && matches!(m, Mutation::Remove | Mutation::Rename));
        // Through the app's reader, as text (the JSON parser's depth limit included).
        let text = json!({ "ok": v }).to_string();
        let read = handover::read_answer(&text, spec);
        let direct = handover::decode(&v, spec);
        match (&read, &direct) {
            (Err(e), _) => well_said(e, named(path, &m))?,
            (Ok(_), Err(e)) => prop_assert!(false, "decode refused ({e}) what read_answer took"),
            (Ok(_), Ok(_)) => prop_assert!(!must_refuse, "{m:?} at {path:?} was taken"),
        }
        if let Err(e) = direct {
            well_said(&e, if matches!(m, Mutation::Deep) { last_key(path) } else { named(path, &m) })?;
        }
    }
}

#[test]
fn truncated_nested_and_random_answers_are_refused() {
    for (spec, v, _) in encodings() {
        let text = json!({ "ok": v }).to_string();
        // Every cut of the text (at most 400 of them, spread over it).
        let step = (text.len() / 400).max(1);
        for cut in (0..text.len()).step_by(step).filter(|&c| text.is_char_boundary(c)) {
            let e = handover::read_answer(&text[..cut], spec).expect_err("a truncated answer");
            assert!(e.starts_with("the generator module's answer cannot be read"), "{e}");
        }
    }
    let spec = &encodings()[0].0;
    for bad in [
        "[".repeat(100_000),
        format!("{{\"ok\": {}}}", "[".repeat(100_000)),
        format!("{{\"ok\": {{\"task\": {}{}}}}}", "{\"a\":".repeat(50_000), "}".repeat(50_000)),
        "{\"error\": 7}".to_string(),
        "{}".to_string(),
        "null".to_string(),
        format!("\"{}\"", "x".repeat(1 << 20)),
    ] {
        let e = handover::read_answer(&bad, spec).expect_err("refused");
        assert!(!e.contains('\n') && e.len() <= 600, "{}", &e[..e.len().min(300)]);
    }
    // Deeper than the parser allows, built in memory: the reader does not recurse into it.
    let mut v = encodings()[0].1.clone();
    v["view"]["graph"]["nodes"] = deep(10_000, json!(1));
    let e = handover::decode(&v, spec).expect_err("refused");
    assert!(e.starts_with("view.graph.nodes[0]"), "{e}");
    // Dropping such a value recurses in serde_json: take it apart by hand.
    let mut inner = v["view"]["graph"]["nodes"].take();
    while let Value::Array(mut a) = inner {
        inner = a.pop().unwrap_or(Value::Null);
    }
}

/// A merge line's piece travels as its code (`b3`, `d0`, `r`): a code that names nothing, a block or
/// difference past the task's, or not text is refused naming the line, never a panic.
#[test]
fn damaged_piece_codes_are_refused_by_line() {
    let (merge, base, _) = &encodings()[3];
    assert!(matches!(handover::decode(base, merge), Ok(Made { view: handover::Drawn::Merge(_), .. })));
    let blocks = base["view"]["merge"]["blocks"].as_u64().unwrap();
    for (piece, says) in [
        (json!(format!("b{blocks}")), "beyond the"),
        (json!("d1"), "beyond the"),
        (json!("b99999999999999999999999"), "is not a piece"),
        (json!("r0"), "is not a piece"),
        (json!("b-1"), "is not a piece"),
        (json!("block"), "is not a piece"),
        (json!(""), "is not a piece"),
        (json!({"kind": "block", "index": 0}), "is not a piece"),
        (json!(0), "is not a piece"),
    ] {
        let mut v = base.clone();
        v["view"]["merge"]["lines"][1][2][1] = piece.clone();
        let e = handover::decode(&v, merge).expect_err("a damaged piece");
        assert!(e.starts_with("view.merge.lines[1][2][1]") && e.contains(says), "{piece}: {e}");
        well_said(&e, Some("lines")).unwrap();
    }
}

/// The two appendix parts the module makes (variable renaming's view, a comment task's comment)
/// damaged in the ways the app could be misled: each refused naming the field, never a panic.
#[test]
fn the_appendix_parts_damaged_are_refused_by_name() {
    let (renaming, base, _) = &encodings()[4];
    let (comment, comment_base, _) = &encodings()[5];
    assert!(matches!(handover::decode(base, renaming), Ok(Made { view: handover::Drawn::Renaming { .. }, .. })));
    assert!(handover::decode(comment_base, comment).is_ok());
    let renames_at = |e: &str| e.starts_with("view.renames");
    for (renames, says) in [
        (json!("aa bb"), "is not a list"),
        (json!([["aa"]]), "is not a list of 2"),
        (json!([["aa", "bb", "cc"]]), "is not a list of 2"),
        (json!([["aa", 7]]), "is not text"),
        (json!([[null, "bb"]]), "is not text"),
        (json!([{"aa": "bb"}]), "is not a list of 2"),
        (deep(300, json!("aa")), "is not"),
    ] {
        let mut v = base.clone();
        v["view"]["renames"] = renames.clone();
        let e = handover::decode(&v, renaming).expect_err("a damaged rename");
        assert!(renames_at(&e) && e.contains(says), "{renames:.80}: {e}");
        well_said(&e, Some("renames")).unwrap();
    }
    // A huge list of renames is read (the panel windows nothing, but each is two short texts).
    let mut v = base.clone();
    v["view"]["renames"] = json!(vec![["aa", "bb"]; 100_000]);
    assert!(handover::decode(&v, renaming).is_ok());
    // A renaming answer without its view.
    let mut v = base.clone();
    v["view"] = json!({});
    let e = handover::decode(&v, renaming).expect_err("no view");
    assert!(e.contains("none of graph, merge or renames"), "{e}");
    // A comment task whose comment is missing, of another type or not in a map.
    for metadata in
        [json!({}), json!({"comment": 7}), json!({"comment": null}), json!({"comment": ["a"]}), json!("a b")]
    {
        let mut v = comment_base.clone();
        v["task"]["metadata"] = metadata.clone();
        let e = handover::decode(&v, comment).expect_err("a damaged comment");
        assert!(e.starts_with("task.metadata"), "{metadata}: {e}");
        well_said(&e, Some("metadata")).unwrap();
    }
    // The same metadata on a task of another axis is the record's own business.
    let (plain, plain_base, _) = &encodings()[0];
    let mut v = plain_base.clone();
    v["task"]["metadata"] = json!({"comment": 7});
    assert!(handover::decode(&v, plain).is_ok());
}

/// Random JSON, with keys the readers look for, keeps them deep in their checks.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        prop_oneof!["[a-z_]{0,8}", "init|edit|special|block|diff|return|dead_code|math|traversal", ".{0,12}"]
            .prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        let key = prop_oneof![
            "task|view|spec|graph|nodes|edges|roles|merge|renames|ok|error|outcome|rows|name|kind|index|lines|flow",
            "sizes|functions|runtime|path|leaf|guards|calls|steps|target|blocks|diffs|block_lines|piece|names",
            ".{0,6}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Random JSON anywhere the readers look: an error, never a panic.
    #[test]
    fn random_json_is_refused(v in any_json()) {
        let spec = &encodings()[0].0;
        let e = handover::decode(&v, spec).expect_err("random JSON is no task");
        well_said(&e, None)?;
        for text in [json!({ "ok": v }).to_string(), v.to_string()] {
            if let Err(e) = handover::read_answer(&text, spec) {
                well_said(&e, None)?;
            }
            if let Err(e) = GradeTask::from_json(&text) {
                well_said(&e, None)?;
            }
            if let Err(e) = handover::read_why(&text) {
                well_said(&e, None)?;
            }
        }
        let mut with_task = encodings()[0].1.clone();
        with_task["task"] = v.clone();
        prop_assert!(handover::decode(&with_task, spec).is_err());
    }

    /// Any text to the module's `generate` entry: JSON with a task or an error, never a panic.
    #[test]
    fn any_query_gets_a_task_or_an_error(q in prop_oneof![".{0,80}", "([a-z_]{1,8}=[-a-z0-9_.,%]{0,12}&){0,6}"]) {
        let out: Value = serde_json::from_str(&handover::answer(&q)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        match (out.get("ok"), out.get("error").and_then(Value::as_str)) {
            (Some(_), None) => {}
            (None, Some(e)) => well_said(e, None)?,
            _ => prop_assert!(false, "neither a task nor an error: {out}"),
        }
    }

    /// Any text to the module's `why` entry: an answer or an error, never a panic or a long walk.
    #[test]
    fn any_why_request_gets_an_answer_or_an_error(q in prop_oneof![".{0,40}", "([0-9]{1,11},){0,8}[0-9]{0,11}"]) {
        let out = handover::why_answer(&q);
        if let Err(e) = handover::read_why(&out) {
            well_said(&e, None)?;
        }
    }
}

// ---- the gen module's entry: spec queries ---------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// A valid spec's query with one key renamed or given a value of the wrong type or out of
    /// range: the entry answers with an error naming the key (a removed key takes its default).
    #[test]
    fn a_damaged_query_is_refused_by_name(spec in any_spec(), pick in any::<prop::sample::Index>(), how in 0usize..12) {
        let pairs: Vec<(String, String)> = spec
            .canonical()
            .split('&')
            .map(|p| { let (k, v) = p.split_once('=').unwrap(); (k.to_string(), v.to_string()) })
            .collect();
        let i = pick.index(pairs.len());
        let mut changed = pairs.clone();
        let key = changed[i].0.clone();
        let named = match how {
            0 => { changed.remove(i); None }
            1 => { changed[i].0 = format!("{key}x"); Some(format!("{key}x")) }
            2 => { changed[i].1 = "NaN".into(); Some(key.clone()) }
            3 => { changed[i].1 = "-1".into(); Some(key.clone()) }
            4 => { changed[i].1 = "99999999999999999999999".into(); Some(key.clone()) }
            5 => { changed[i].1 = "1.5e9".into(); Some(key.clone()) }
            6 => { changed[i].1 = String::new(); Some(key.clone()) }
            7 => { changed[i].1 = "x".repeat(100_000); Some(key.clone()) }
            8 => { changed[i].1 = "Infinity".into(); Some(key.clone()) }
            9 => { changed[i].1 = "%ff%00".into(); Some(key.clone()) }
            10 => { changed.push(changed[i].clone()); None }
            _ => { changed[i].1 = "4294967296".into(); None }
        };
        let q = changed.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&");
        let out: Value = serde_json::from_str(&handover::answer(&q)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        match (out.get("ok"), out.get("error").and_then(Value::as_str)) {
            (Some(_), None) => prop_assert!(named.is_none(), "{q:.200} was taken"),
            (None, Some(e)) => {
                let e = e.to_string();
                well_said(&e, named.as_deref())?;
            }
            _ => prop_assert!(false, "neither a task nor an error: {out}"),
        }
    }
}

// ---- the grade module's entry ---------------------------------------------------------------------

fn grade_bases() -> &'static [Base<GradeTask>] {
    static ALL: OnceLock<Vec<Base<GradeTask>>> = OnceLock::new();
    ALL.get_or_init(|| {
        encodings()
            .iter()
            .enumerate()
            .map(|(i, (s, _, _))| {
                let task = cabrito_gen::generate(s).unwrap();
                let shared = match i % 3 {
                    0 => None,
                    1 => Some(Ok(task.solution_code.clone())),
                    _ => Some(Err("the shared solution cannot be read".to_string())),
                };
                let h = GradeTask::of(s, &task, shared);
                let v: Value = serde_json::from_str(&h.to_json()).unwrap();
                let paths = all_paths(&v);
                (h, v, paths)
            })
            .collect()
    })
}

/// Fields serde may fill in when absent: the spec's defaulted knobs, the task's axis and
/// metadata, the shared solution.
fn grade_may_lack(path: &[Step]) -> bool {
    match path {
        [Step::Key(a), Step::Key(b)] if a == "spec" => {
            !["v", "kind", "domain", "axis", "n", "seed"].contains(&b.as_str())
        }
        [Step::Key(a), Step::Key(b)] if a == "task" => b == "axis" || b == "metadata",
        [Step::Key(a)] => a == "shared",
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// The grade module's hand-off with one field removed, renamed, of the wrong type, out of
    /// range, huge or deep: a one-line error naming the field, never a panic.
    #[test]
    fn a_damaged_grade_task_is_refused_by_name(which in 0usize..5, pick in any::<prop::sample::Index>(), m in any_mutation()) {
        let (_, base, all) = &grade_bases()[which];
        let path = &all[pick.index(all.len())];
        let mut v = base.clone();
        let must_refuse = mutate(&mut v, path, &m)
            && !starts_with(path, &["task", "metadata"])
            && !(grade_may_lack(path) && matches!(m, Mutation::Remove | Mutation::Rename));
        match GradeTask::from_json(&v.to_string()) {
            Err(e) => {
                prop_assert!(e.starts_with("the grade panel was handed something that is not a task: "), "{e}");
                // A removed field is named by serde ("missing field `n`"); a deep value by depth.
                // A variant of the shared solution (`Ok`, `Err`) is named by its field.
                let key = if starts_with(path, &["shared"]) && !matches!(m, Mutation::Deep) { Some("shared") } else { named(path, &m) };
                well_said(&e, key)?;
            }
            Ok(_) => prop_assert!(!must_refuse, "{m:?} at {path:?} was taken"),
        }
    }
}

#[test]
fn truncated_nested_and_huge_grade_tasks_are_refused() {
    for (h, v, _) in grade_bases() {
        assert_eq!(&GradeTask::from_json(&v.to_string()).unwrap(), h);
    }
    let text = grade_bases()[1].1.to_string();
    let step = (text.len() / 400).max(1);
    for cut in (0..text.len()).step_by(step).filter(|&c| text.is_char_boundary(c)) {
        let e = GradeTask::from_json(&text[..cut]).expect_err("a truncated hand-off");
        assert!(!e.contains('\n') && e.len() <= 600, "{e}");
    }
    for bad in [
        "[".repeat(100_000),
        format!("{{\"spec\": {}}}", "{\"a\":".repeat(100_000)),
        format!("{{\"spec\": {{\"kind\": \"{}\"}}}}", "k\n".repeat(1 << 19)),
        format!("{text} trailing"),
    ] {
        let e = GradeTask::from_json(&bad).expect_err("refused");
        assert!(!e.contains('\n') && e.len() <= 600, "{}", &e[..e.len().min(300)]);
    }
    // A spec out of range, or a task made for another spec.
    let (h, _, _) = &grade_bases()[0];
    let mut v: Value = serde_json::from_str(&h.to_json()).unwrap();
    v["spec"]["n"] = json!(1_000_000);
    let e = GradeTask::from_json(&v.to_string()).unwrap_err();
    assert!(e.contains("spec.n"), "{e}");
    let mut v: Value = serde_json::from_str(&h.to_json()).unwrap();
    v["task"]["kind"] = json!("dead_code");
    let e = GradeTask::from_json(&v.to_string()).unwrap_err();
    assert!(e.contains("task.kind"), "{e}");
}

/// How many values an answer holds and how deep it nests (the bounds the app's tape reader sets,
/// `playground::tape`).
fn size_and_depth(v: &Value) -> (usize, usize) {
    let (mut count, mut deepest) = (0, 0);
    let mut todo = vec![(v, 1)];
    while let Some((v, depth)) = todo.pop() {
        count += 1;
        deepest = deepest.max(depth);
        match v {
            Value::Array(a) => todo.extend(a.iter().map(|x| (x, depth + 1))),
            Value::Object(m) => todo.extend(m.values().map(|x| (x, depth + 1))),
            _ => {}
        }
    }
    (count, deepest)
}

/// The largest answers of every part stay far inside the reader's bounds (`handover::MAX_VALUES`,
/// `handover::MAX_DEPTH`): Merge Codebases and the call-graph kinds at the largest `n`, the runtime
/// axis at the most hops, instruction following at the most requirements; each reads back through
/// its tape as the same task.
#[test]
fn the_largest_answers_are_far_inside_the_bounds() {
    let mut largest = (0, 0);
    let mut specs = vec![
        TaskSpec::new(Kind::MergeCodebases, Domain::Math, Axis::Traversal, 2000, 1),
        TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Traversal, 2000, 1),
        TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Runtime, 10_000, 1),
    ];
    let mut s = TaskSpec::new(Kind::CacheFunction, Domain::String, Axis::Instructions, 10, 1);
    s.n = Axis::Instructions.def().max_n();
    specs.push(s);
    for spec in &specs {
        spec.validate().unwrap_or_else(|e| panic!("{}: {e}", spec.canonical()));
        let made = Made::from(generate_full(spec).unwrap());
        let hash = task_hash(&made.task);
        let made = Ok(made);
        let v = handover::answer_of(&made);
        let (count, depth) = size_and_depth(&v);
        let tape = handover::answer_tape(made.clone());
        let back =
            handover::read_answer_tape(tape.clone(), spec).unwrap_or_else(|e| panic!("{}: {e}", spec.canonical()));
        assert_eq!(task_hash(&back.record().unwrap()), hash, "{}", spec.canonical());
        println!("{}: {count} values, {depth} levels, a tape of {} B", spec.canonical(), tape.len());
        largest = (largest.0.max(count), largest.1.max(depth));
    }
    assert!(largest.0 * 16 < handover::MAX_VALUES, "{largest:?}");
    assert!(largest.1 * 8 < handover::MAX_DEPTH, "{largest:?}");
}

// ---- the why panel's hand-off to the grade module --------------------------------------------------

/// Runtime tasks of every shape (two, four and eight branches): the task as the app writes it, and
/// the functions that have guards.
fn why_bases() -> &'static [Base<cabrito_gen::task::Task>] {
    static ALL: OnceLock<Vec<Base<cabrito_gen::task::Task>>> = OnceLock::new();
    ALL.get_or_init(|| {
        [(Kind::DeadCode, 2), (Kind::AddParameter, 4), (Kind::CacheFunction, 8)]
            .into_iter()
            .enumerate()
            .map(|(i, (kind, branches))| {
                let s = TaskSpec { branches, ..TaskSpec::new(kind, Domain::Math, Axis::Runtime, 12, i as u64) };
                assert!(s.validate().is_ok(), "{s:?}");
                let task = cabrito_gen::generate(&s).unwrap();
                let v = serde_json::to_value(&task).unwrap();
                // Only the record's `runtime` is read.
                let paths = all_paths(&v).into_iter().filter(|p| starts_with(p, &["runtime"])).collect();
                (task, v, paths)
            })
            .collect()
    })
}

/// The hand-off's text with the task's JSON `v` (as `why_task` lays it out).
fn why_text(guard: &str, function: &str, v: &Value) -> String {
    format!("{guard}\n{function}\n{v}")
}

/// Every guard of every function of every shape reads back as the record's function and guard.
#[test]
fn a_valid_why_task_reads_back() {
    for (task, _, _) in why_bases() {
        let record = task.runtime.as_ref().unwrap();
        for f in record.functions.iter().filter(|f| !f.guards.is_empty()) {
            for g in 0..f.guards.len() {
                let (back, guard) = handover::why_task_read(&handover::why_task(task, &f.name, g))
                    .unwrap_or_else(|e| panic!("{}, guard {g}: {e}", f.name));
                assert_eq!((&back, guard), (f, g));
            }
        }
    }
}

#[test]
fn a_bad_why_task_is_refused() {
    let (task, v, _) = &why_bases()[1];
    let f = &task.runtime.as_ref().unwrap().functions[0];
    let plain = cabrito_gen::generate(&encodings()[0].0).unwrap();
    let cases = [
        (String::new(), None),
        ("0".to_string(), None),
        (format!("0\n{}", f.name), None),
        (why_text("x", &f.name, v), Some("guard")),
        (why_text("-1", &f.name, v), Some("guard")),
        (why_text(&"9".repeat(100_000), &f.name, v), Some("guard")),
        (why_text(&f.guards.len().to_string(), &f.name, v), Some("guard")),
        (why_text("0", "no_such_function", v), Some("functions")),
        (why_text("0", &"f".repeat(1 << 20), v), Some("functions")),
        (why_text("0", &f.name, &json!({})), Some("runtime")),
        (why_text("0", &f.name, &json!(null)), None),
        (why_text("0", &f.name, &serde_json::to_value(&plain).unwrap()), Some("runtime")),
        (format!("0\n{}\n{}", f.name, &v.to_string()[..100]), None),
        (format!("0\n{}\n{v} trailing", f.name), None),
        (format!("0\n{}\n{}", f.name, "[".repeat(100_000)), None),
        (format!("0\n{}\n{{\"runtime\": {}{}}}", f.name, "{\"a\":".repeat(50_000), "}".repeat(50_000)), None),
    ];
    for (text, key) in cases {
        let e = handover::why_task_read(&text).expect_err("refused");
        assert!(e.starts_with("the why panel was handed something it cannot read: "), "{e}");
        assert!(!e.contains('\n') && e.len() <= 600, "{}", &e[..e.len().min(300)]);
        if let Some(k) = key {
            assert!(e.contains(k), "the error does not name '{k}': {e}");
        }
    }
    // A guard tree that is not full, and a guard without calls.
    let mut cut = v.clone();
    cut["runtime"]["functions"][0]["guards"].as_array_mut().unwrap().pop();
    let e = handover::why_task_read(&why_text("0", &f.name, &cut)).unwrap_err();
    assert!(e.contains("runtime.functions[0].guards"), "{e}");
    let mut empty = v.clone();
    empty["runtime"]["functions"][0]["guards"][1]["calls"] = json!([]);
    let e = handover::why_task_read(&why_text("0", &f.name, &empty)).unwrap_err();
    assert!(e.contains("runtime.functions[0].guards[1].calls"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// The task in the hand-off with one field of its runtime record removed, renamed, of the wrong
    /// type, out of range, huge or deep: a one-line error naming the field, never a panic.
    #[test]
    fn a_damaged_why_task_is_refused_by_name(
        which in 0usize..3,
        pick in any::<prop::sample::Index>(),
        function in any::<prop::sample::Index>(),
        guard in any::<prop::sample::Index>(),
        m in any_mutation(),
    ) {
        let (task, base, all) = &why_bases()[which];
        let functions: Vec<_> = task.runtime.as_ref().unwrap().functions.iter().filter(|f| !f.guards.is_empty()).collect();
        let f = functions[function.index(functions.len())];
        let g = guard.index(f.guards.len());
        let path = &all[pick.index(all.len())];
        let mut v = base.clone();
        let optional = matches!(path.as_slice(), [Step::Key(a), Step::Key(b)] if a == "runtime" && b == "inactive_calls");
        let must_refuse = mutate(&mut v, path, &m) && !(optional && matches!(m, Mutation::Remove | Mutation::Rename));
        match handover::why_task_read(&why_text(&g.to_string(), &f.name, &v)) {
            Err(e) => {
                prop_assert!(e.starts_with("the why panel was handed something it cannot read: "), "{e}");
                well_said(&e, named(path, &m))?;
            }
            Ok((back, g2)) => {
                prop_assert!(!must_refuse, "{m:?} at {path:?} was taken");
                prop_assert_eq!(g2, g);
                prop_assert_eq!(back.guards.len(), (1 << back.path.len()) - 1);
            }
        }
    }

    /// Any text: an answer or an error, never a panic.
    #[test]
    fn any_why_task_text_gets_an_answer_or_an_error(
        q in prop_oneof![".{0,80}", "[0-9]{1,3}\n[a-z_]{1,8}\n.{0,60}", "[0-9]{1,3}\n[a-z_]{1,8}\n\\{\"runtime\": \\{.{0,60}\\}\\}"],
        v in any_json(),
    ) {
        for text in [q.clone(), format!("0\nf\n{v}"), format!("0\nf\n{}", json!({ "runtime": v }))] {
            if let Err(e) = handover::why_task_read(&text) {
                well_said(&e, None)?;
            }
        }
    }
}
