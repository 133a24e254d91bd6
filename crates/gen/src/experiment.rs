//! The experiments: one per axis, and one per kind with a grid of its own (merge, variable renaming).
//! Their names (`cabrito grid --axes`, results), their order in figures, and what a run name says
//! (the experiment and `n`), read by the same definitions that write it (`AxisDef::run_n` beside
//! `AxisDef::run_suffix`, `TaskKind::run_n` beside `TaskKind::run_name`).

use crate::spec::{Axis, Kind, TaskSpec};

/// An experiment: the tasks of one axis, or of one kind whose axis knob does not apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Experiment {
    Axis(Axis),
    Kind(Kind),
}

/// Old run-name prefixes of the reference and what they are now (grading.md §8.6).
const LEGACY: &[(&str, &str)] = &[
    ("add_instructions_fixed_", "add_instructions_"),
    ("distractor_code_", "function_search_"),
    ("main_sweep_fair_", "function_traversal_"),
    ("testing_runtime_", "runtime_resolution_"),
    ("testing_", "merge_codebases_"),
];

impl Experiment {
    /// Every experiment in figure order: the paper's, then the appendix's; in each, the axes in
    /// registry order, then the kinds with their own grid.
    pub fn all() -> Vec<Experiment> {
        let axes = Axis::ALL.iter().map(|&a| Experiment::Axis(a));
        let kinds = Kind::ALL.iter().filter(|k| k.def().own_grid().is_some()).map(|&k| Experiment::Kind(k));
        let every: Vec<Experiment> = axes.chain(kinds).collect();
        let (paper, appendix): (Vec<Experiment>, Vec<Experiment>) = every.into_iter().partition(|e| !e.appendix());
        paper.into_iter().chain(appendix).collect()
    }

    /// The experiment a spec belongs to.
    pub fn of_spec(spec: &TaskSpec) -> Experiment {
        match spec.kind.def().own_grid() {
            Some(_) => Experiment::Kind(spec.kind),
            None => Experiment::Axis(spec.axis),
        }
    }

    /// The short name: the axis's (`traversal`), or the kind's own grid's (`merge`).
    pub fn name(self) -> &'static str {
        match self {
            Experiment::Axis(a) => a.as_str(),
            Experiment::Kind(k) => k.def().own_grid().map_or(k.as_str(), |g| g.name),
        }
    }

    /// The reference's experiment name, which starts the run names (`function_traversal`,
    /// `merge_codebases`): the axis's, or the kind's own name.
    pub fn experiment(self) -> &'static str {
        match self {
            Experiment::Axis(a) => a.experiment(),
            Experiment::Kind(k) => k.as_str(),
        }
    }

    /// Whether the experiment is in the paper's appendix rather than its main grid.
    pub fn appendix(self) -> bool {
        match self {
            Experiment::Axis(a) => a.def().appendix(),
            Experiment::Kind(k) => k.def().own_grid().is_some_and(|g| g.appendix),
        }
    }

    /// The experiment with this short name.
    pub fn parse(name: &str) -> Option<Experiment> {
        Experiment::all().into_iter().find(|e| e.name() == name)
    }

    /// The experiment with this reference name (`function_search`).
    pub fn of_experiment(experiment: &str) -> Option<Experiment> {
        Experiment::all().into_iter().find(|e| e.experiment() == experiment)
    }

    /// The experiment whose name starts a run name (old prefixes read as their new names).
    pub fn of_run(run: &str) -> Option<Experiment> {
        let run = modern(run);
        Experiment::all()
            .into_iter()
            .find(|e| run == e.experiment() || run.starts_with(&format!("{}_", e.experiment())))
    }

    /// The `n` a run name of this experiment holds.
    pub fn n_of_run(self, run: &str) -> Option<f64> {
        let run = modern(run);
        match self {
            Experiment::Axis(a) => a.def().run_n(&run),
            Experiment::Kind(k) => k.def().run_n(&run),
        }
    }
}

/// The run name with the reference's old prefixes rewritten.
pub fn modern(run: &str) -> String {
    for (old, new) in LEGACY {
        if let Some(rest) = run.strip_prefix(old) {
            return format!("{new}{rest}");
        }
    }
    run.to_string()
}

/// `(lo,hi)` after `key` in a run name (`_en=(25,25)` → 25; a range gives its midpoint).
pub fn range_after(run: &str, key: &str) -> Option<f64> {
    let i = run.find(key)? + key.len();
    let rest = run[i..].strip_prefix('(')?;
    let end = rest.find(')')?;
    let (a, b) = rest[..end].split_once(',')?;
    let (a, b): (f64, f64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    Some((a + b) / 2.0).filter(|x| x.is_finite())
}

/// The number after `key` in a run name (`_ifhops=200` → 200), up to the next `_`, `)` or `/`.
pub fn number_after(run: &str, key: &str) -> Option<f64> {
    let mut from = 0;
    while let Some(pos) = run[from..].find(key) {
        let start = from + pos;
        // The key must start a part: at the start or after '_'.
        if start == 0 || run.as_bytes()[start - 1] == b'_' || key.starts_with('_') {
            let rest = &run[start + key.len()..];
            let end = rest.find(['_', ')', '/']).unwrap_or(rest.len());
            if let Ok(v) = rest[..end].parse::<f64>() {
                if v.is_finite() {
                    return Some(v);
                }
            }
        }
        from = start + key.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Domain, Support};
    use crate::task::run_name;

    #[test]
    fn the_figure_order_is_the_papers_then_the_appendixs() {
        let names: Vec<&str> = Experiment::all().iter().map(|e| e.name()).collect();
        #[cfg(not(feature = "toy-kind"))]
        assert_eq!(names, ["traversal", "search", "runtime", "instructions", "merge", "comment", "renaming"]);
        for e in Experiment::all() {
            assert_eq!(Experiment::parse(e.name()), Some(e));
            assert_eq!(Experiment::of_experiment(e.experiment()), Some(e));
        }
        assert_eq!(names.len(), names.iter().collect::<std::collections::BTreeSet<_>>().len());
    }

    /// Every run name the generator writes reads back as its experiment and `n`, for every kind on
    /// every axis and domain it is built for.
    #[test]
    fn every_run_name_reads_back() {
        for &kind in Kind::ALL {
            let def = kind.def();
            let axes: Vec<Axis> = match def.axes() {
                Support::Only(a) => a.to_vec(),
                Support::NotApplicable => vec![TaskSpec::default().axis],
            };
            let domain = match def.domains() {
                Support::Only(d) => d[0],
                Support::NotApplicable => Domain::Math,
            };
            for axis in axes {
                for &n in crate::spec::PAPER_SIZES {
                    let spec = TaskSpec::new(kind, domain, axis, n, 3);
                    if spec.validate().is_err() {
                        continue;
                    }
                    let run = run_name(&spec);
                    let e = Experiment::of_spec(&spec);
                    assert_eq!(Experiment::of_run(&run), Some(e), "{run}");
                    assert_eq!(e.n_of_run(&run), Some(f64::from(n)), "{run}");
                }
            }
        }
    }

    #[test]
    fn old_run_names_and_numbers() {
        assert_eq!(Experiment::of_run("distractor_code_cn=(50,50)_en=(25,25)"), Some(Experiment::Axis(Axis::Search)));
        assert_eq!(Experiment::of_run("testing_n=50_d=1"), Some(Experiment::Kind(Kind::MergeCodebases)));
        assert_eq!(Experiment::of_run("add_instruction"), None);
        let e = Experiment::Axis(Axis::Traversal);
        assert_eq!(e.n_of_run("main_sweep_fair_cn=(25,25)_en=(10,10)"), Some(10.0));
        assert_eq!(e.n_of_run("function_traversal_n=(7,7)"), Some(7.0));
        assert_eq!(Experiment::Axis(Axis::Instructions).n_of_run("add_instructions_n=(10,10)_nc=(5,15)"), Some(10.0));
        assert_eq!(Experiment::Axis(Axis::Runtime).n_of_run("runtime_resolution_n=(10,10)"), None);
        assert_eq!(number_after("a_x=1_n=5/b", "n="), Some(5.0));
        assert_eq!(range_after("a_n=(1,x)", "_n="), None);
    }
}
