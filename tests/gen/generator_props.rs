//! Property tests of the generator over many seeds × kinds × domains × sizes: the graph is acyclic
//! and layered as the sampler says, the edit set is exact and closed in the right direction, the
//! LCA / NCD are unique, and starter and reference differ in exactly the edit set.

use cabrito_gen::graph::{CallGraph, Part};
use cabrito_gen::kinds::Role;
use cabrito_gen::python;
use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};
use cabrito_gen::task::generate_full;
use std::collections::{BTreeMap, BTreeSet};

const SIZES: &[u32] = &[1, 2, 3, 5, 10, 25, 60];

fn specs(seeds: u64) -> impl Iterator<Item = TaskSpec> {
    let mut out = Vec::new();
    // Every call-graph kind, on every axis and domain it is built for.
    for &kind in Kind::ALL.iter().filter(|k| k.def().graph().is_some()) {
        for &domain in Domain::ALL.iter().filter(|d| kind.def().domains().allows(d)) {
            for &axis in Axis::ALL.iter().filter(|a| kind.def().axes().allows(a)) {
                for &n in SIZES {
                    if axis == Axis::Traversal && n < kind.min_edit() {
                        continue;
                    }
                    for seed in 0..seeds {
                        out.push(TaskSpec::new(kind, domain, axis, n, seed * 7919 + n as u64));
                    }
                }
            }
        }
    }
    out.into_iter()
}

fn reachable_from_main(g: &CallGraph) -> Vec<bool> {
    let mut seen = vec![false; g.len()];
    for e in g.entries() {
        for (v, r) in g.descendants(e).into_iter().enumerate() {
            seen[v] |= r;
        }
    }
    seen
}

/// Common ancestors of `targets`: vertices that equal or reach each of them.
fn common_ancestors(g: &CallGraph, targets: &[usize]) -> Vec<usize> {
    let sets: Vec<Vec<bool>> = targets.iter().map(|&t| g.ancestors(t)).collect();
    (0..g.len()).filter(|&v| sets.iter().all(|s| s[v])).collect()
}

fn common_descendants(g: &CallGraph, sources: &[usize]) -> Vec<usize> {
    let sets: Vec<Vec<bool>> = sources.iter().map(|&s| g.descendants(s)).collect();
    (0..g.len()).filter(|&v| sets.iter().all(|s| s[v])).collect()
}

fn check_layers(g: &CallGraph, levels: &[Vec<usize>], what: &str) {
    let mut level_of = BTreeMap::new();
    for (i, l) in levels.iter().enumerate() {
        assert!(!l.is_empty(), "{what}: empty level {i}");
        for &v in l {
            level_of.insert(v, i);
        }
    }
    for (i, l) in levels.iter().enumerate().skip(1) {
        for &v in l {
            let has_earlier_parent = g.parents(v).iter().any(|p| level_of.get(p).is_some_and(|&j| j < i));
            assert!(has_earlier_parent, "{what}: vertex {} at level {i} has no parent in an earlier level", g.name(v));
        }
    }
    // Every edge inside the layered graph goes from an earlier level to a later one.
    for (u, v) in g.edges() {
        if let (Some(&a), Some(&b)) = (level_of.get(&u), level_of.get(&v)) {
            assert!(a < b, "{what}: edge {} -> {} does not go down", g.name(u), g.name(v));
        }
    }
}

#[test]
fn graphs_and_programs_hold_their_invariants() {
    let mut checked = 0;
    for spec in specs(6) {
        let gen = generate_full(&spec).expect("generates");
        let (g, built) = gen.call_graph().expect("a call-graph kind");
        let sizes = spec.sizes();
        let ctx = format!("{spec}");
        assert!(g.is_acyclic(), "{ctx}: cycle");
        assert_eq!(g.len(), sizes.n_init as usize + 1 + sizes.n_edit as usize + 1, "{ctx}: vertex count");

        // The sampler's layering, for C_init (with its wrapper root on top) and for C_edit.
        assert_eq!(g.main_levels[0], vec![g.main_root], "{ctx}");
        assert_eq!(g.main_levels.iter().map(Vec::len).sum::<usize>(), sizes.n_init as usize + 1);
        check_layers(g, &g.main_levels, &format!("{ctx} main"));
        assert_eq!(g.edit_levels.iter().map(Vec::len).sum::<usize>(), sizes.n_edit as usize);
        if matches!(spec.kind, Kind::CacheFunction | Kind::ExtractHelper) {
            assert!(g.edit_levels[0].len() >= 2, "{ctx}: the tree needs two roots");
        }
        if spec.kind != Kind::ExtractHelper {
            check_layers(g, &g.edit_levels, &format!("{ctx} edit"));
        }
        let depth_lo = cabrito_gen::graph::sample::depth_for(sizes.n_init as usize, 0.45);
        let depth_hi = cabrito_gen::graph::sample::depth_for(sizes.n_init as usize, 0.55);
        assert!((depth_lo..=depth_hi).contains(&(g.main_levels.len() - 1)), "{ctx}: main depth");

        // Names are unique, valid identifiers and never Python keywords or builtins.
        let names: BTreeSet<&str> = (0..g.len()).map(|v| g.name(v)).collect();
        assert_eq!(names.len(), g.len(), "{ctx}: duplicate names");
        assert!(names.iter().all(|n| !cabrito_gen::graph::names::is_banned(n)));

        // The edit set is exactly C_edit plus its wrapper, and on the runtime axis the live functions
        // whose never-running branches call dead code (the reference turns those calls into `val`).
        let part = |v: usize| g.part(v);
        let edit_side: Vec<usize> = g.edit_side();
        let edited: Vec<usize> = built.edit_set().into_iter().filter(|&v| built.roles[v] != Role::DeadCaller).collect();
        assert_eq!(edited, edit_side, "{ctx}: edit set");
        for v in (0..g.len()).filter(|&v| built.roles[v] == Role::DeadCaller) {
            assert!(spec.axis == Axis::Runtime && spec.kind == Kind::DeadCode && part(v) == Part::Init, "{ctx}");
        }
        let s = g.special;
        match spec.kind {
            Kind::DeadCode => {
                let live = reachable_from_main(g);
                for (v, &r) in live.iter().enumerate() {
                    assert_eq!(r, part(v) == Part::Init, "{ctx}: {} reachability", g.name(v));
                }
            }
            Kind::AddParameter => {
                // Everything reachable from the root is exactly C_edit and the root.
                let below = g.descendants(s);
                for (v, &r) in below.iter().enumerate() {
                    assert_eq!(r, part(v) != Part::Init, "{ctx}: {} below the root", g.name(v));
                }
            }
            Kind::AddReturnValue => {
                // Only the edit side uses the sink; every edit function does.
                let users = g.ancestors(s);
                for (v, &r) in users.iter().enumerate() {
                    assert_eq!(r, part(v) != Part::Init, "{ctx}: {} uses external()", g.name(v));
                }
            }
            Kind::CacheFunction => {
                let leaves: Vec<usize> = (0..g.len()).filter(|&v| built.roles[v] == Role::EditLeaf).collect();
                assert!(leaves.len() >= 2, "{ctx}: a tree with two roots has two leaves");
                let ca = common_ancestors(g, &leaves);
                assert!(ca.contains(&s), "{ctx}: the root is a common ancestor");
                let from_s = g.descendants(s);
                let lower: Vec<&str> = ca.iter().filter(|&&v| v != s && from_s[v]).map(|&v| g.name(v)).collect();
                assert!(lower.is_empty(), "{ctx}: a lower common ancestor exists: {lower:?}");
                // Main reaches the tree only through the root.
                for (u, v) in g.edges() {
                    if part(u) == Part::Init {
                        assert!(part(v) == Part::Init || v == s, "{ctx}: main calls into the tree");
                    }
                }
            }
            Kind::ExtractHelper => {
                let tops: Vec<usize> = (0..g.len()).filter(|&v| built.roles[v] == Role::EditLeaf).collect();
                assert!(tops.len() >= 2, "{ctx}: two helper callers at least");
                let cd = common_descendants(g, &tops);
                assert!(cd.contains(&s), "{ctx}: the sink is a common descendant");
                let to_s = g.ancestors(s);
                let nearer: Vec<&str> = cd.iter().filter(|&&v| v != s && to_s[v]).map(|&v| g.name(v)).collect();
                assert!(nearer.is_empty(), "{ctx}: a nearer common descendant exists: {nearer:?}");
                // Main enters only at the top functions; the sink calls only main functions.
                for (u, v) in g.edges() {
                    if part(u) == Part::Init && part(v) != Part::Init {
                        assert!(tops.contains(&v), "{ctx}: main calls an inner DRY function");
                    }
                    if u == s {
                        assert_eq!(part(v), Part::Init, "{ctx}");
                    }
                }
            }
            Kind::VariableRenaming => unreachable!("{ctx}: not a call-graph kind"),
            Kind::MergeCodebases => unreachable!("not a call-graph kind: tests/gen/merge_props.rs"),
        }

        // Starter and reference differ in exactly the edit set.
        let text = |m: &python::Module| -> BTreeMap<String, String> {
            m.functions.iter().map(|f| (f.name.clone(), python::function(f))).collect()
        };
        let (st, re) = (text(&built.starter), text(&built.reference));
        let mut differing: BTreeSet<String> = BTreeSet::new();
        for (name, body) in &st {
            if re.get(name) != Some(body) {
                differing.insert(name.clone());
            }
        }
        for name in re.keys() {
            if !st.contains_key(name) {
                differing.insert(name.clone());
            }
        }
        let expected: BTreeSet<String> = gen.task.edit_set.iter().cloned().collect();
        assert_eq!(differing, expected, "{ctx}: functions that differ");
        assert_eq!(st.get("main"), re.get("main"), "{ctx}: main() differs");
        checked += 1;
    }
    assert!(checked > 1000, "only {checked} specs checked");
}

#[test]
fn same_seed_shares_untouched_code_across_kinds() {
    // The main graph depends on sizes and seed only, like the reference's one DAG per sample.
    let a = generate_full(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 10, 4)).unwrap();
    let b = generate_full(&TaskSpec::new(Kind::CacheFunction, Domain::String, Axis::Traversal, 10, 4)).unwrap();
    let main_names = |g: &CallGraph| -> Vec<String> {
        (0..g.len()).filter(|&v| g.part(v) == Part::Init).map(|v| g.name(v).to_string()).collect()
    };
    assert_eq!(main_names(a.call_graph().unwrap().0), main_names(b.call_graph().unwrap().0));
    assert_eq!(a.task.dag_id, b.task.dag_id);
}
