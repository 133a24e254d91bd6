//! The Cabrito spec behind a result that does not carry one. A Cabrito `dag_id` is a hash of the
//! generator version, the two graph sizes and the seed (`graph::dag_key`), so knowing the kind (task
//! type), the domain (task set) and the sizes (the run name, or the axis and `n`), the seed is found
//! by hashing the candidates. Tasks of the reference's own generator have other ids and are not
//! found, which is the honest answer: Cabrito cannot regenerate them.

use super::runs;
use cabrito_gen::axes::Grows;
use cabrito_gen::rng::uuid_like;
use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};
use std::collections::HashMap;

/// Seeds tried per size pair by default (grids use seeds 0, 1, 2, …).
pub const DEFAULT_MAX_SEED: u64 = 2_000;

/// Finds specs from dag_ids, caching one table of seeds per pair of sizes.
#[derive(Debug, Default)]
pub struct SpecFinder {
    max_seed: u64,
    /// Seeds by dag_id, per (sizes, the template's dag_id suffix: what an axis whose `n` sizes no
    /// graph adds to the key).
    tables: HashMap<((u32, u32), String), HashMap<String, u64>>,
}

/// The first number in `key(a,b)` of a run name.
fn run_number(run: &str, key: &str) -> Option<f64> {
    let i = run.find(key)? + key.len();
    let rest = run[i..].strip_prefix('(')?;
    let (a, _) = rest.split_once(',')?;
    a.trim().parse().ok()
}

/// The sizes `(n_init, n_edit)` a run name gives (`_cn=(a,a)_en=(b,b)` or `_n=(a,a)`).
pub fn sizes_of_run(run: &str) -> Option<(u32, u32)> {
    let grab = |key: &str| -> Option<u32> {
        let i = run.find(key)? + key.len();
        let rest = run[i..].strip_prefix('(')?;
        let (a, _) = rest.split_once(',')?;
        a.trim().parse().ok()
    };
    match (grab("_cn="), grab("_en=")) {
        (Some(c), Some(e)) => Some((c, e)),
        _ => grab("_n=").map(|n| (n, n)),
    }
}

impl SpecFinder {
    pub fn new(max_seed: u64) -> SpecFinder {
        SpecFinder { max_seed, tables: HashMap::new() }
    }

    fn table(&mut self, sizes: (u32, u32), base: &TaskSpec) -> &HashMap<String, u64> {
        let max_seed = self.max_seed;
        let suffix = base.axis.def().id_suffix(base);
        self.tables.entry((sizes, suffix)).or_insert_with(|| {
            let mut spec = base.clone();
            (0..max_seed)
                .map(|seed| {
                    spec.seed = seed;
                    let key = format!("{}{}", cabrito_gen::graph::dag_key(&spec), spec.axis.def().id_suffix(&spec));
                    (uuid_like(&key, "dag_id"), seed)
                })
                .collect()
        })
    }

    /// The spec of a Cabrito task from what a result says about it, if one is found.
    pub fn find(
        &mut self,
        run: &str,
        task_set: &str,
        task_type: &str,
        dag_id: &str,
        axis: &str,
        n: Option<f64>,
    ) -> Option<TaskSpec> {
        let kind = Kind::parse(task_type)?;
        let domain = Domain::parse(&runs::domain_of(task_set))?;
        if dag_id.is_empty() {
            return None;
        }
        let n = n.filter(|x| x.fract() == 0.0 && *x >= 1.0).map(|x| x as u32);
        // The size pairs an axis makes from n: (n_init, n_edit).
        let pair = |a: Axis, n: u32| -> Option<(u32, u32)> {
            let fixed = a.def().fixed_size();
            match a.def().grows() {
                Grows::EditGraph => Some((fixed, n)),
                Grows::InitGraph => Some((n, fixed)),
                Grows::Neither => None,
            }
        };
        let candidates: Vec<(u32, u32)> = if let Some(s) = sizes_of_run(run) {
            vec![s]
        } else {
            match (Axis::parse(axis), n) {
                (Some(a), Some(n)) => pair(a, n).into_iter().collect(),
                _ => Axis::ALL
                    .iter()
                    .flat_map(|&a| a.def().paper_sizes().iter().filter_map(move |&n| pair(a, n)))
                    .collect(),
            }
        };
        // Instruction following: n (requirements) and the conditional share come from the run name (or
        // the axis and n), the graphs have the axis's fixed size.
        let instructions = Axis::ALL.iter().copied().find(|a| {
            a.def().instructions() && (run.starts_with(a.experiment()) || (run.is_empty() && axis == a.as_str()))
        });
        if let Some(a) = instructions {
            let k = run_number(run, "_nc=").map(|x| x as u32).or(n)?;
            let mut spec = TaskSpec::new(kind, domain, a, k, 0);
            spec.conditional = run_number(run, "_cp=").map_or(0, |c| (c * 100.0).round() as u32);
            // A spec that cannot exist (a run name's bad n or share) costs no table of hashes.
            spec.validate().ok()?;
            let sizes = (a.def().fixed_size(), a.def().fixed_size());
            let seed = *self.table(sizes, &spec).get(dag_id)?;
            spec.seed = seed;
            return Some(spec);
        }
        for sizes in candidates {
            let base = template(sizes, kind, domain, 0);
            if let Some(&seed) = self.table(sizes, &base).get(dag_id) {
                let spec = template(sizes, kind, domain, seed);
                if spec.validate().is_ok() {
                    return Some(spec);
                }
            }
        }
        None
    }
}

/// Give every result without a link the link of its Cabrito task, when the finder finds one; a
/// result whose run is unknown (a lone file, no folder layout) also gets the task's axis and `n`.
/// Returns how many links were added.
pub fn fill_links(ds: &mut super::read::Dataset, finder: &mut SpecFinder) -> usize {
    fill(ds, finder, false)
}

/// Only place the results whose axis is unknown (a lone file dropped without its folder), from
/// their Cabrito dag_ids; cheaper than [`fill_links`] on large sets whose runs are known.
pub fn place_unknown(ds: &mut super::read::Dataset, finder: &mut SpecFinder) -> usize {
    fill(ds, finder, true)
}

fn fill(ds: &mut super::read::Dataset, finder: &mut SpecFinder, only_unknown: bool) -> usize {
    use std::sync::Arc;
    let mut added = 0;
    for i in 0..ds.records.len() {
        let r = &ds.records[i];
        let unknown = r.run.is_empty() && (&*r.axis == "?" || r.n.is_none());
        if only_unknown && !unknown {
            continue;
        }
        if !unknown && ds.link_of(r).is_some() {
            continue;
        }
        // Each lookup is a hash in a table of seeds per size pair: cheaper than a cache per record.
        let Some(spec) = finder.find(&r.run, &r.task_set, &r.kind, &r.dag_id, &r.axis, r.n) else { continue };
        let rec = &mut ds.records[i];
        if unknown {
            rec.axis = Arc::from(spec.axis.as_str());
            rec.n = Some(spec.n as f64);
            rec.experiment = Arc::from(super::runs::experiment_of_axis(spec.axis.as_str()).as_str());
        }
        if rec.link.is_none() {
            rec.link = Some(spec.to_query());
            added += 1;
        }
    }
    added
}

/// The spec of a size pair: the first axis whose `n` makes that pair (traversal when the untouched
/// graph has its fixed size, search when the edit graph has it), explicit sizes otherwise.
fn template((n_init, n_edit): (u32, u32), kind: Kind, domain: Domain, seed: u64) -> TaskSpec {
    for &a in Axis::ALL {
        let fixed = a.def().fixed_size();
        match a.def().grows() {
            Grows::EditGraph if n_init == fixed => return TaskSpec::new(kind, domain, a, n_edit, seed),
            Grows::InitGraph if n_edit == fixed => return TaskSpec::new(kind, domain, a, n_init, seed),
            _ => {}
        }
    }
    let mut s = TaskSpec::new(kind, domain, Axis::Traversal, n_edit, seed);
    s.n_init = Some(n_init);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_gen::task::{generate, run_name};

    #[test]
    fn cabrito_tasks_are_found_and_reference_ones_are_not() {
        let mut f = SpecFinder::new(50);
        for (kind, domain, axis, n, seed) in [
            (Kind::AddParameter, Domain::Math, Axis::Traversal, 200, 7),
            (Kind::DeadCode, Domain::String, Axis::Search, 50, 0),
            (Kind::CacheFunction, Domain::Array, Axis::Traversal, 5, 49),
        ] {
            let spec = TaskSpec::new(kind, domain, axis, n, seed);
            let t = generate(&spec).unwrap();
            let set = cabrito_gen::task::task_set(&spec);
            let run = run_name(&spec);
            assert_eq!(f.find(&run, &set, kind.as_str(), &t.dag_id, "", None), Some(spec.clone()), "{run}");
            // Without the run, the axis and n are enough.
            assert_eq!(f.find("", &set, kind.as_str(), &t.dag_id, axis.as_str(), Some(n as f64)), Some(spec.clone()));
            // Without either, the paper's sizes are tried.
            assert_eq!(f.find("", &set, kind.as_str(), &t.dag_id, "?", None).map(|s| s.seed), Some(seed));
        }
        assert_eq!(
            f.find("", "math_function", "add_parameter", "14c62aba-89c2-fba5-648d-f4c0c330ec14", "?", None),
            None
        );
        assert_eq!(f.find("", "math_constraints", "nope", "x", "?", None), None);
        assert_eq!(sizes_of_run("function_search_cn=(200,200)_en=(25,25)_prop"), Some((200, 25)));
        assert_eq!(sizes_of_run("runtime_resolution_n=(10,10)_ifhops=5"), Some((10, 10)));
        // Instruction following: the run name's n and conditional share give the id's key.
        for conditional in [0, 30] {
            let mut spec = TaskSpec::new(Kind::ExtractHelper, Domain::String, Axis::Instructions, 25, 33);
            spec.conditional = conditional;
            let t = generate(&spec).unwrap();
            let run = run_name(&spec);
            let set = cabrito_gen::task::task_set(&spec);
            assert_eq!(f.find(&run, &set, "extract_helper", &t.dag_id, "", None), Some(spec.clone()), "{run}");
        }
        let spec = TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Instructions, 5, 3);
        let t = generate(&spec).unwrap();
        assert_eq!(
            f.find("", "math_mult_constraints", "add_parameter", &t.dag_id, "instructions", Some(5.0)),
            Some(spec)
        );
    }
}
