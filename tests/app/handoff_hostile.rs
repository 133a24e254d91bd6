//! Hostile input through the `gen` module's channel to the page: its `generate` entry (a spec
//! query, [`gen_answer::answer`]) and its answer as the app reads it ([`gen_answer::read_answer`],
//! MessagePack of derived serde types), and its `why` entry and answer ([`gen_answer::why_answer`],
//! [`gen_answer::read_why`]). Same-origin, but read as hostile all the same: a valid answer with one
//! field removed, renamed, of the wrong type or out of range, cut short, deeply nested, with huge
//! strings, and random values all give an error (one line, short, naming the field), never a panic
//! or a stack overflow; and a valid answer reads back as the same task (same task hash) for random
//! specs of every kind and axis.
#![cfg(not(target_arch = "wasm32"))]

use cabrito::playground::gen_answer::{self, Drawn, GenAnswer, Made, SentTask};
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
/// item taken out (another field may then point past the list's end), a spec (named by its link
/// keys) and a value deeper than the reader reads.
fn named<'a>(path: &'a [Step], m: &Mutation) -> Option<&'a str> {
    let item_removed = matches!((m, path.last()), (Mutation::Remove | Mutation::Rename, Some(Step::Index(_))));
    // An enum's one key taken out (the answer's `ok`, the view's kind) leaves an empty map: neither
    // variant is there to name.
    let emptied =
        matches!(m, Mutation::Remove) && (path.len() == 1 || (path.len() == 3 && starts_with(path, &["ok", "view"])));
    // A spec that reads but is not the one asked for is named by its link keys.
    let spec = starts_with(path, &["ok", "task", "spec"]);
    if item_removed || emptied || spec || matches!(m, Mutation::Deep) {
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

/// A valid answer: what it was made for, the answer as a JSON value (`{"ok": {task, view}}`), and
/// every path in it.
type Base<T> = (T, Value, Vec<Vec<Step>>);

/// A task's answer as a JSON value (what the module sends before the graph, in a form the tests can
/// change).
fn answer_value(made: Made) -> Value {
    serde_json::to_value(GenAnswer::Ok(Box::new(SentTask::from(made)))).expect("an answer is a JSON value")
}

/// A JSON value as MessagePack (structs as maps, as the module writes them).
fn msgpack(v: &Value) -> Vec<u8> {
    rmp_serde::to_vec_named(v).expect("a JSON value is MessagePack")
}

/// An answer as the module sends it: the answer, then a graph.
fn sent(v: &Value) -> Vec<u8> {
    [msgpack(v), msgpack(&json!({"directed": true, "nodes": [{"id": "f1"}]}))].concat()
}

/// Read an answer as the page does: the task, then (once idle) its hash, which reads its graph.
fn read(bytes: &[u8], spec: &TaskSpec) -> Result<Made, String> {
    gen_answer::read_answer(bytes, spec).and_then(|m| m.hash().map(|_| m))
}

/// A task's answer per part of the generator (plain graph, runtime, instructions, merge, renaming,
/// comment).
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
            let v = answer_value(Made::from(generate_full(&s).unwrap()));
            let paths = all_paths(&v);
            (s, v, paths)
        })
        .collect()
    })
}

/// The fields whose damage the reader may take: any JSON value in the metadata (of which the app
/// reads only a comment task's `comment`), a spec that still reads as the spec asked for, a role
/// by name.
fn opaque(spec: &TaskSpec, path: &[Step]) -> bool {
    let comment =
        spec.axis == Axis::Comment && path.len() >= 4 && starts_with(path, &["ok", "task", "metadata", "comment"]);
    (starts_with(path, &["ok", "task", "metadata"]) && !comment)
        || starts_with(path, &["ok", "task", "spec"])
        || (starts_with(path, &["ok", "task", "roles"]) && path.len() == 4)
}
fn optional(path: &[Step]) -> bool {
    let keys: Vec<&str> =
        path.iter().filter_map(|s| if let Step::Key(k) = s { Some(k.as_str()) } else { None }).collect();
    path.len() == keys.len()
        && (keys == ["ok", "task", "runtime"] || keys == ["ok", "task", "runtime", "inactive_calls"])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A spec's query through the module's entry and back through the app's reader is the task
    /// generated natively: the same record, byte for byte, and the same hash.
    #[test]
    fn a_valid_answer_reads_back_as_the_same_task(spec in any_spec()) {
        let made = Made::from(generate_full(&spec).unwrap());
        let back = gen_answer::read_answer(&gen_answer::answer(&spec.to_query()), &spec)
            .map_err(|e| TestCaseError::fail(format!("{}: {e}", spec.canonical())))?;
        prop_assert_eq!(back.hash().map_err(TestCaseError::fail)?, task_hash(&made.task), "{}", spec.canonical());
        let record = back.record().map_err(TestCaseError::fail)?;
        prop_assert_eq!(serde_json::to_string(&record).unwrap(), serde_json::to_string(&made.task).unwrap());
        // The answer as a JSON value, sent again with its graph, is read the same (the tests below
        // change that value).
        let bytes = [msgpack(&answer_value(made.clone())), msgpack(&made.task.graph)].concat();
        let again = gen_answer::read_answer(&bytes, &spec).map_err(TestCaseError::fail)?;
        prop_assert_eq!(again.hash().map_err(TestCaseError::fail)?, task_hash(&made.task));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// One field of a valid answer removed, renamed, of the wrong type, out of range, huge or
    /// deeply nested: never a panic; an error names the field; a typed field the app reads is
    /// refused when removed, renamed or of the wrong type.
    #[test]
    fn a_damaged_answer_is_refused_by_name(which in 0usize..6, pick in any::<prop::sample::Index>(), m in any_mutation()) {
        let (spec, base, all) = &encodings()[which];
        let path = &all[pick.index(all.len())];
        let mut v = base.clone();
        let must_refuse = mutate(&mut v, path, &m) && !opaque(spec, path) && !(optional(path) && matches!(m, Mutation::Remove | Mutation::Rename));
        match read(&sent(&v), spec) {
            Err(e) => well_said(&e, named(path, &m))?,
            Ok(_) => prop_assert!(!must_refuse, "{m:?} at {path:?} was taken"),
        }
    }
}

#[test]
fn truncated_nested_and_random_answers_are_refused() {
    for (spec, v, _) in encodings() {
        let bytes = sent(v);
        // Every cut (at most 400 of them, spread over it).
        let step = (bytes.len() / 400).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let e = read(&bytes[..cut], spec).expect_err("a cut answer");
            assert!(e.starts_with("the generator module's answer cannot be read"), "{e}");
            well_said(&e, None).unwrap();
        }
        // A byte after its graph.
        let e = read(&[bytes.as_slice(), &[0xc0]].concat(), spec).expect_err("a byte after it");
        assert!(e.contains("graph: 1 bytes after the value"), "{e}");
    }
    let spec = &encodings()[0].0;
    // MessagePack written by hand: `{"ok": [[[…]]]}` 100,000 lists deep, a map as deep, a string or a
    // list claiming 4 GiB with nothing after, an error that is no text, and random bytes.
    let ok = |rest: &[u8]| [&[0x81, 0xa2, b'o', b'k'][..], rest].concat();
    let deep_lists = ok(&[0x91; 100_000]);
    let deep_maps: Vec<u8> = ok(&[0x81, 0xa1, b'a'].repeat(50_000));
    let huge_text = ok(&[0xdb, 0xff, 0xff, 0xff, 0xff]);
    let huge_list = ok(&[0xdd, 0xff, 0xff, 0xff, 0xff]);
    let huge_map = ok(&[0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, b'a']);
    let error_no_text = vec![0x81, 0xa5, b'e', b'r', b'r', b'o', b'r', 0x07];
    for bad in [
        deep_lists,
        deep_maps,
        huge_text,
        huge_list,
        huge_map,
        error_no_text,
        vec![],
        vec![0xc1],
        vec![0x80],
        vec![0xc0],
    ] {
        let e = read(&bad, spec).expect_err("refused");
        assert!(!e.contains('\n') && e.len() <= 600, "{}", &e[..e.len().min(300)]);
    }
    // A graph missing, nested deeper than the reader allows, cut short, or of a type no graph is.
    let v = &encodings()[0].1;
    for (graph, says) in [
        (vec![], "no graph after the task"),
        ([vec![0x91; 10_000], vec![0xc0]].concat(), "depth limit exceeded"),
        (msgpack(&json!({"nodes": [1, 2, 3]}))[..5].to_vec(), "graph: not a MessagePack value"),
        (vec![0xc1], "graph: not a MessagePack value"),
    ] {
        let e = read(&[msgpack(v), graph].concat(), spec).expect_err("refused");
        assert!(e.contains(says) && !e.contains('\n'), "{e}");
    }
}

/// A merge line's piece travels as its code (`b3`, `d0`, `r`): a code that names nothing, a block or
/// difference past the task's, or not text is refused naming the line, never a panic.
#[test]
fn damaged_piece_codes_are_refused_by_line() {
    let (merge, base, _) = &encodings()[3];
    assert!(matches!(read(&sent(base), merge), Ok(Made { view: Drawn::Merge(_), .. })));
    let blocks = base["ok"]["view"]["merge"]["blocks"].as_u64().unwrap();
    for (piece, says) in [
        (json!(format!("b{blocks}")), "is not a piece of the"),
        (json!("d1"), "is not a piece of the"),
        (json!("b99999999999999999999999"), "is not a piece of the"),
        (json!("r0"), "is not a piece of the"),
        (json!("b-1"), "is not a piece of the"),
        (json!("block"), "is not a piece of the"),
        (json!(""), "is not a piece of the"),
        (json!({"kind": "block", "index": 0}), "invalid type"),
        (json!(0), "invalid type"),
    ] {
        let mut v = base.clone();
        v["ok"]["view"]["merge"]["lines"][1][2][1] = piece.clone();
        let e = read(&sent(&v), merge).expect_err("a damaged piece");
        assert!(e.contains("ok.view.merge.lines[1][2][1]") && e.contains(says), "{piece}: {e}");
        well_said(&e, Some("lines")).unwrap();
    }
}

/// The two appendix parts the module makes (variable renaming's view, a comment task's comment)
/// damaged in the ways the app could be misled: each refused naming the field, never a panic.
#[test]
fn the_appendix_parts_damaged_are_refused_by_name() {
    let (renaming, base, _) = &encodings()[4];
    let (comment, comment_base, _) = &encodings()[5];
    assert!(matches!(read(&sent(base), renaming), Ok(Made { view: Drawn::Renaming { .. }, .. })));
    assert!(read(&sent(comment_base), comment).is_ok());
    for renames in [
        json!("aa bb"),
        json!([["aa"]]),
        json!([["aa", "bb", "cc"]]),
        json!([["aa", 7]]),
        json!([[null, "bb"]]),
        json!([{"aa": "bb"}]),
        deep(100, json!("aa")),
    ] {
        let mut v = base.clone();
        v["ok"]["view"]["renaming"]["renames"] = renames.clone();
        let e = read(&sent(&v), renaming).expect_err("a damaged rename");
        assert!(e.contains("ok.view.renaming.renames"), "{renames:.80}: {e}");
        well_said(&e, Some("renames")).unwrap();
    }
    // A huge list of renames is read (each is two short texts).
    let mut v = base.clone();
    v["ok"]["view"]["renaming"]["renames"] = json!(vec![["aa", "bb"]; 100_000]);
    assert!(read(&sent(&v), renaming).is_ok());
    // A renaming answer without its view.
    let mut v = base.clone();
    v["ok"]["view"] = json!({});
    let e = read(&sent(&v), renaming).expect_err("no view");
    assert!(e.contains("ok.view"), "{e}");
    // A comment task whose comment is missing, of another type or not in a map.
    for metadata in
        [json!({}), json!({"comment": 7}), json!({"comment": null}), json!({"comment": ["a"]}), json!("a b")]
    {
        let mut v = comment_base.clone();
        v["ok"]["task"]["metadata"] = metadata.clone();
        let e = read(&sent(&v), comment).expect_err("a damaged comment");
        assert!(e.contains("ok.task.metadata"), "{metadata}: {e}");
        well_said(&e, Some("metadata")).unwrap();
    }
    // The same metadata on a task of another axis is the record's own business.
    let (plain, plain_base, _) = &encodings()[0];
    let mut v = plain_base.clone();
    v["ok"]["task"]["metadata"] = json!({"comment": 7});
    assert!(read(&sent(&v), plain).is_ok());
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

    /// Random values where the reader looks: an error, never a panic.
    #[test]
    fn random_values_are_refused(v in any_json()) {
        let spec = &encodings()[0].0;
        for answer in [json!({ "ok": v }), v.clone()] {
            if let Err(e) = read(&sent(&answer), spec) {
                well_said(&e, None)?;
            }
            if let Err(e) = gen_answer::read_why(&answer.to_string()) {
                well_said(&e, None)?;
            }
        }
        let mut with_task = encodings()[0].1.clone();
        with_task["ok"]["task"] = v.clone();
        prop_assert!(read(&sent(&with_task), spec).is_err());
    }

    /// Random bytes: a task or an error, never a panic.
    #[test]
    fn random_bytes_are_refused(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let spec = &encodings()[0].0;
        if let Err(e) = read(&bytes, spec) {
            well_said(&e, None)?;
        }
    }

    /// Any text to the module's `generate` entry: a task or an error, never a panic.
    #[test]
    fn any_query_gets_a_task_or_an_error(q in prop_oneof![".{0,80}", "([a-z_]{1,8}=[-a-z0-9_.,%]{0,12}&){0,6}"]) {
        match rmp_serde::from_slice::<GenAnswer>(&gen_answer::answer(&q)) {
            Ok(GenAnswer::Ok(_)) => {}
            Ok(GenAnswer::Error(e)) => well_said(&e, None)?,
            Err(e) => prop_assert!(false, "neither a task nor an error: {e}"),
        }
    }

    /// Any text to the module's `why` entry: an answer or an error, never a panic or a long walk.
    #[test]
    fn any_why_request_gets_an_answer_or_an_error(q in prop_oneof![".{0,40}", "([0-9]{1,11},){0,8}[0-9]{0,11}", r#"\{"call":\{"x":[0-9]{1,4},"a":[0-9]{1,3},"b":[0-9]{1,3},"target":[0-2],"steps":[0-9]{1,6}\},"from":[0-9]{1,6},"count":[0-9]{1,4}\}"#]) {
        let out = gen_answer::why_answer(&q);
        if let Err(e) = gen_answer::read_why(&out) {
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
        match rmp_serde::from_slice::<GenAnswer>(&gen_answer::answer(&q)) {
            Ok(GenAnswer::Ok(_)) => prop_assert!(named.is_none(), "{q:.200} was taken"),
            Ok(GenAnswer::Error(e)) => well_said(&e, named.as_deref())?,
            Err(e) => prop_assert!(false, "neither a task nor an error: {e}"),
        }
    }
}

/// How deep an answer nests.
fn depth(v: &Value) -> usize {
    let mut deepest = 0;
    let mut todo = vec![(v, 1)];
    while let Some((v, depth)) = todo.pop() {
        deepest = deepest.max(depth);
        match v {
            Value::Array(a) => todo.extend(a.iter().map(|x| (x, depth + 1))),
            Value::Object(m) => todo.extend(m.values().map(|x| (x, depth + 1))),
            _ => {}
        }
    }
    deepest
}

/// The largest answers of every part stay far inside the reader's depth bound
/// (`gen_answer::MAX_DEPTH`) and read back as the same task: Merge Codebases and the call-graph kinds
/// at the largest `n`, the runtime axis at the most hops, instruction following at the most
/// requirements.
#[test]
fn the_largest_answers_are_far_inside_the_bounds() {
    let mut deepest = 0;
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
        let mut v = serde_json::to_value(&made.task).unwrap();
        v["view"] = answer_value(made.clone())["ok"]["view"].take();
        let d = depth(&v);
        let bytes = gen_answer::answer_bytes(Ok(made));
        let back = read(&bytes, spec).unwrap_or_else(|e| panic!("{}: {e}", spec.canonical()));
        assert_eq!(back.hash().unwrap(), hash, "{}", spec.canonical());
        println!("{}: {d} levels, an answer of {} B", spec.canonical(), bytes.len());
        deepest = deepest.max(d);
    }
    assert!(deepest * 8 < gen_answer::MAX_DEPTH, "{deepest}");
}
