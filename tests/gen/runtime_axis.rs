//! The runtime-resolution axis (issue 8): properties over many seeds and shapes, and CPython.
//!
//! - exactly one leaf of each function runs, the one the record names (the starter's conditions
//!   evaluated exactly by the checker's evaluator);
//! - starter and reference differ only in the blocks that run, except dead code, whose reference turns
//!   the calls left to deleted functions (only in blocks that never run) into `val`;
//! - dead code's distractors: calls across the live/dead line only, no cycle with the call graph;
//! - one DAG bucket across hops: graph, `dag_id`, guards' start values and the running leaves do not
//!   depend on `n`;
//! - CPython running the emitted `check` agrees with Cabrito's exact parity for H from 1 to 10,000,
//!   and with every guard of generated programs up to 10,000 hops.
#![cfg(not(target_arch = "wasm32"))]

use cabrito_check::branches::{changed_blocks, running_leaves};
use cabrito_check::program::Program;
use cabrito_gen::axes::runtime::guard::{final_parity, Trajectory, CHECK_SOURCE, ODD, X_MAX};
use cabrito_gen::graph::sample::below;
use cabrito_gen::graph::Part;
use cabrito_gen::kinds::Role;
use cabrito_gen::rng::stream;
use cabrito_gen::task::generate_full;
use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};

fn spec(kind: Kind, domain: Domain, n: u32, seed: u64, branches: u32, ratio: &str) -> TaskSpec {
    TaskSpec::from_pairs([
        ("kind", kind.as_str()),
        ("domain", domain.as_str()),
        ("axis", "runtime"),
        ("n", &n.to_string()),
        ("seed", &seed.to_string()),
        ("branches", &branches.to_string()),
        ("ratio", ratio),
    ])
    .expect("a valid runtime spec")
}

/// Kinds × domains × shapes × seeds: cheap shapes, many seeds.
fn specs() -> Vec<TaskSpec> {
    let mut out = Vec::new();
    for &kind in Kind::ALL.iter().filter(|k| k.def().axes().allows(&Axis::Runtime)) {
        for &domain in Domain::ALL {
            for (i, (n, branches, ratio)) in
                [(1, 2, "1.0"), (2, 4, "1.0"), (7, 2, "0.0"), (30, 8, "0.5"), (200, 2, "1.0"), (64, 4, "0.3")]
                    .into_iter()
                    .enumerate()
            {
                for seed in 0..4u64 {
                    out.push(spec(kind, domain, n, seed * 31 + i as u64, branches, ratio));
                }
            }
        }
    }
    out
}

#[test]
fn exactly_one_leaf_runs_and_the_record_names_it() {
    let mut functions = 0;
    for s in specs() {
        let gen = generate_full(&s).unwrap();
        let t = &gen.task;
        let rec = t.runtime.as_ref().expect("a runtime task records its branches");
        assert_eq!(rec.branches, s.branches);
        for (what, code) in [("starter", &t.starter_code), ("reference", &t.solution_code)] {
            let p = Program::parse(code).unwrap_or_else(|e| panic!("{s}: the {what} does not parse: {e:?}"));
            for f in &rec.functions {
                let Some(def) = p.function(&f.name) else {
                    assert!(what == "reference" && s.kind == Kind::DeadCode, "{s}: {} missing", f.name);
                    continue;
                };
                let leaves = running_leaves(&p, def).expect("every condition evaluates");
                assert_eq!(leaves, vec![f.block_path()], "{s} {what}: `{}` runs {leaves:?}", f.name);
                assert_eq!(f.guards.len(), (1 << f.path.len()) - 1);
                assert_eq!(f.path.len() as u32, s.branches.trailing_zeros());
                assert!(f.guards.iter().all(|g| g.evaluate() == g.value && g.calls.len() as u32 == rec.breadth));
                functions += 1;
            }
        }
        // Every function but main has its tree, in file order.
        let names: Vec<&str> = gen.call_graph().unwrap().1.starter.functions.iter().map(|f| f.name.as_str()).collect();
        let recorded: Vec<&str> = rec.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(&names[..names.len() - 1], &recorded[..], "{s}");
    }
    assert!(functions > 10_000, "{functions}");
}

/// `c_val = c(val)` → `c_val = val` for every deleted `c`.
fn calls_to_val(text: &str, deleted: &BTreeSet<String>) -> String {
    let mut out = text.to_string();
    for c in deleted {
        out = out.replace(&format!(" = {c}(val)"), " = val");
    }
    out
}

#[test]
fn starter_and_reference_differ_only_where_the_axis_says() {
    for s in specs() {
        let gen = generate_full(&s).unwrap();
        let t = &gen.task;
        let (g, built) = gen.call_graph().unwrap();
        let rec = t.runtime.as_ref().unwrap();
        let running: BTreeMap<&str, String> = rec.functions.iter().map(|f| (f.name.as_str(), f.block_path())).collect();
        let (sp, rp) = (Program::parse(&t.starter_code).unwrap(), Program::parse(&t.solution_code).unwrap());
        let changed = changed_blocks(&sp, &rp);
        let edited: BTreeSet<&str> = t.edit_set.iter().map(String::as_str).collect();
        for (name, paths) in &changed {
            assert!(edited.contains(name.as_str()), "{s}: `{name}` changed but is not in the edit set");
            let run = &running[name.as_str()];
            if s.kind == Kind::DeadCode {
                assert!(!paths.contains(run), "{s}: `{name}` changed where it runs");
            } else {
                assert_eq!(paths, &BTreeSet::from([run.clone()]), "{s}: `{name}` changed elsewhere than where it runs");
            }
        }
        if s.kind == Kind::DeadCode {
            // The only change to a live function: calls left to deleted functions become `val`.
            let deleted: BTreeSet<String> =
                (0..g.len()).filter(|&v| g.part(v) != Part::Init).map(|v| g.name(v).to_string()).collect();
            for f in built.reference.functions.iter() {
                let before = built.starter.functions.iter().find(|x| x.name == f.name).unwrap();
                let (a, b) = (cabrito_gen::python::function(before), cabrito_gen::python::function(f));
                assert_eq!(calls_to_val(&a, &deleted), b, "{s}: `{}`", f.name);
                match g.index_of(&f.name) {
                    Some(v) => assert_eq!(a != b, built.roles[v] == Role::DeadCaller, "{s}: `{}`", f.name),
                    None => assert_eq!(a, b, "{s}: main"),
                }
            }
        } else {
            // Every function the kind edits changes where it runs, or only its signature.
            for name in &edited {
                let sig = |m: &cabrito_gen::python::Module| {
                    m.functions.iter().find(|f| f.name == *name).map(|f| (f.params.clone(), f.returns.clone()))
                };
                assert!(
                    changed.contains_key(*name) || sig(&built.starter) != sig(&built.reference),
                    "{s}: `{name}` is in the edit set but unchanged"
                );
            }
        }
    }
}

#[test]
fn dead_code_is_called_only_where_nothing_runs() {
    let mut across = 0;
    for s in specs().into_iter().filter(|s| s.kind == Kind::DeadCode) {
        let gen = generate_full(&s).unwrap();
        let (g, _) = gen.call_graph().unwrap();
        let rec = gen.task.runtime.as_ref().unwrap();
        let mut all = petgraph::graph::DiGraph::<(), ()>::new();
        let nodes: Vec<_> = (0..g.len()).map(|_| all.add_node(())).collect();
        for (u, v) in g.edges() {
            all.add_edge(nodes[u], nodes[v], ());
        }
        for (u, v) in &rec.inactive_calls {
            let (u, v) = (g.index_of(u).unwrap(), g.index_of(v).unwrap());
            // Distractors cross the line: live functions call dead ones and the other way round.
            assert_ne!(g.part(u) == Part::Init, g.part(v) == Part::Init, "{s}: {} → {}", g.name(u), g.name(v));
            assert_ne!(u, v);
            all.add_edge(nodes[u], nodes[v], ());
            across += 1;
        }
        assert!(!petgraph::algo::is_cyclic_directed(&all), "{s}: the distractors close a cycle");
    }
    assert!(across > 100, "{across}");
}

#[test]
fn one_dag_bucket_across_hops() {
    for &kind in Kind::ALL.iter().filter(|k| k.def().axes().allows(&Axis::Runtime)) {
        for seed in 0..5 {
            let tasks: Vec<_> = [1, 5, 200, 3000]
                .iter()
                .map(|&n| generate_full(&spec(kind, Domain::Math, n, seed, 2, "1.0")).unwrap().task)
                .collect();
            for t in &tasks[1..] {
                assert_eq!(t.dag_id, tasks[0].dag_id);
                assert_eq!(t.graph, tasks[0].graph);
                let (a, b) = (t.runtime.as_ref().unwrap(), tasks[0].runtime.as_ref().unwrap());
                for (f, g) in a.functions.iter().zip(&b.functions) {
                    assert_eq!((&f.name, f.leaf), (&g.name, g.leaf), "{kind} {seed}");
                    let start = |x: &cabrito_gen::axes::runtime::FunctionBranches| -> Vec<(u32, u32, u32)> {
                        x.guards.iter().flat_map(|g| g.calls.iter().map(|c| (c.x, c.a, c.b))).collect()
                    };
                    assert_eq!(start(f), start(g));
                }
            }
        }
    }
}

/// Run a Python script with a JSON payload on stdin; its JSON answer.
fn python(script: &str, payload: &Value) -> Value {
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("python3 runs");
    let bytes = serde_json::to_vec(payload).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "python3 failed");
    serde_json::from_slice(&out.stdout).expect("python3 answers JSON")
}

/// CPython runs the `check` Cabrito emits. For each start triple: the parity of the map after every
/// step from 1 to 10,000 (one walk), and the emitted `check`'s answer for a sample of step counts, which
/// must agree with that walk.
const PROOF: &str = r#"
import json, sys
req = json.load(sys.stdin)
ns = {}
exec(req["check"], ns)
check = ns["check"]
out = []
for x, a, b in req["triples"]:
    v, parities = x, []
    for _ in range(req["max"]):
        v = v // 2 if v % 2 == 0 else a * v + b
        parities.append(v % 2)
    emitted = {}
    for h in req["sample"]:
        r0 = check(x, a, b, 0, num_steps=h)
        r1 = check(x, a, b, 1, num_steps=h)
        assert r0 != r1 and r1 == (parities[h - 1] == 1), (x, a, b, h)
        emitted[str(h)] = 1 if r1 else 0
    out.append({"parities": parities, "emitted": emitted, "digits": len(str(v))})
json.dump(out, sys.stdout)
"#;

#[test]
fn cpython_agrees_with_the_exact_parity_for_every_hop_count_to_10000() {
    const MAX: u32 = 10_000;
    let mut rng = stream("runtime-axis-proof", "triples");
    // Fast-growing triples (a = 9), the slowest (a = 1), and random ones.
    let mut triples = vec![(27u32, 9u32, 9u32), (97, 9, 7), (1, 1, 1), (64, 3, 5), (100, 7, 9)];
    while triples.len() < 10 {
        triples.push((1 + below(&mut rng, X_MAX as usize) as u32, ODD[below(&mut rng, 5)], ODD[below(&mut rng, 5)]));
    }
    // Every count to 300, then every 61st, and the last ten: the window's truncation begins about half-way.
    let mut sample: Vec<u32> = (1..=300).chain((301..MAX).step_by(61)).chain(MAX - 9..=MAX).collect();
    sample.dedup();
    let answer = python(PROOF, &json!({"check": CHECK_SOURCE, "triples": triples, "max": MAX, "sample": sample}));
    for (i, &(x, a, b)) in triples.iter().enumerate() {
        let theirs = &answer[i];
        let parities: Vec<u8> =
            theirs["parities"].as_array().unwrap().iter().map(|p| p.as_u64().unwrap() as u8).collect();
        assert_eq!(parities.len(), MAX as usize);
        // Every H from 1 to 10,000: Cabrito's full values against CPython's.
        let mut t = Trajectory::new(x, a, b);
        for (h, &p) in parities.iter().enumerate() {
            t.step();
            assert_eq!(u8::from(t.odd()), p, "({x}, {a}, {b}) after {} steps", h + 1);
        }
        assert_eq!(t.value().to_string().len() as u64, theirs["digits"].as_u64().unwrap());
        // The window method the generator uses, against the emitted check.
        for &h in &sample {
            let emitted = theirs["emitted"][h.to_string()].as_u64().unwrap() as u8;
            assert_eq!(final_parity(x, a, b, h), emitted, "({x}, {a}, {b}) with num_steps={h}");
        }
    }
}

/// CPython evaluates the conditions of generated programs: for each function, the `if`/`else` path its
/// guards take, which must be the record's.
const GUARDS: &str = r#"
import ast, json, sys
out = []
for src in json.load(sys.stdin):
    tree = ast.parse(src)
    ns = {}
    exec(compile(ast.Module(body=[n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check"], type_ignores=[]), "check", "exec"), ns)
    paths = {}
    for n in tree.body:
        if not isinstance(n, ast.FunctionDef) or n.name in ("check", "main"):
            continue
        body, path = n.body, []
        while len(body) == 1 and isinstance(body[0], ast.If):
            value = bool(eval(compile(ast.Expression(body[0].test), n.name, "eval"), ns))
            path.append(value)
            body = body[0].body if value else body[0].orelse
        paths[n.name] = path
    out.append(paths)
json.dump(out, sys.stdout)
"#;

#[test]
fn cpython_evaluates_every_generated_guard_as_the_record_says() {
    let mut tasks = Vec::new();
    for (i, &(n, branches, ratio)) in [
        (1, 2, "1.0"),
        (2, 8, "1.0"),
        (5, 4, "0.5"),
        (200, 2, "1.0"),
        (1000, 4, "0.7"),
        (10_000, 2, "1.0"),
        (10_000, 8, "1.0"),
    ]
    .iter()
    .enumerate()
    {
        for &kind in &[Kind::DeadCode, Kind::CacheFunction] {
            tasks.push(generate_full(&spec(kind, Domain::ALL[i % 3], n, i as u64, branches, ratio)).unwrap().task);
        }
    }
    let sources: Vec<&str> = tasks.iter().map(|t| t.starter_code.as_str()).collect();
    let answer = python(GUARDS, &json!(sources));
    let mut guards = 0;
    for (t, theirs) in tasks.iter().zip(answer.as_array().unwrap()) {
        let rec = t.runtime.as_ref().unwrap();
        for f in &rec.functions {
            let path: Vec<bool> = theirs[&f.name].as_array().unwrap().iter().map(|v| v.as_bool().unwrap()).collect();
            assert_eq!(path, f.path, "{}: `{}`", t.spec, f.name);
            guards += path.len();
        }
    }
    assert!(guards > 300, "{guards}");
}
