//! What a run name, a task set and a task type say about a result: the experiment and its axis,
//! `n`, the domain, and which checks a task must pass (grading.md §5.3–§5.4, §8.6; generation.md
//! §5.2). Each is read from the registries (`cabrito_gen::experiment`, `Kind`, the axes' task sets
//! and the pass rule of `cabrito_check::grade::verdict`), so a new kind or axis reads with no edit here.

use cabrito_gen::experiment::{modern, number_after, range_after, Experiment};
use cabrito_gen::spec::Kind;
use std::collections::BTreeMap;

/// What a run name says.
#[derive(Clone, Debug, PartialEq)]
pub struct RunInfo {
    /// The experiment (`function_traversal`, …), or the run name's first part when unknown.
    pub experiment: String,
    /// The experiment's short name (`traversal`, `merge`, …: an axis, or a kind's own grid), or the
    /// experiment when unknown.
    pub axis: String,
    /// The size along the axis, when the name carries it.
    pub n: Option<f64>,
}

/// Read a run name (old prefixes of the reference read as their new names).
pub fn parse_run(run: &str) -> RunInfo {
    let run = modern(run);
    let Some(known) = Experiment::of_run(&run) else {
        // Unknown experiment: its name is what comes before the first `key=` part.
        let experiment =
            run.split('_').take_while(|p| !p.contains('=') && !p.contains('(')).collect::<Vec<_>>().join("_");
        let experiment = if experiment.is_empty() { run.clone() } else { experiment };
        let n = range_after(&run, "_n=").or_else(|| number_after(&run, "n="));
        return RunInfo { axis: experiment.clone(), experiment, n };
    };
    RunInfo { experiment: known.experiment().to_string(), axis: known.name().to_string(), n: known.n_of_run(&run) }
}

/// The experiment of an axis or own-grid name (`traversal` → `function_traversal`); the name itself
/// when unknown.
pub fn experiment_of_axis(axis: &str) -> String {
    Experiment::parse(axis).map_or_else(|| axis.to_string(), |e| e.experiment().to_string())
}

/// Where an axis goes among the figure's columns ([`Experiment::all`]'s order), unknown axes last.
pub fn axis_rank(axis: &str) -> usize {
    let all = Experiment::all();
    all.iter().position(|e| e.name() == axis).unwrap_or(all.len())
}

/// The domain of a task set (`math_function`, `math_mult_constraints` → `math`); `-` when the task
/// has none (merge codebases), the task set itself when it names no domain.
pub fn domain_of(task_set: &str) -> String {
    if task_set.is_empty() {
        return "-".to_string();
    }
    cabrito_gen::axes::domain_of_task_set(task_set).map_or_else(|_| task_set.to_string(), |d| d.to_string())
}

/// Whether a folder name is a task set (`math_function`, `string_constraints`, …).
pub fn is_task_set(name: &str) -> bool {
    cabrito_gen::axes::is_task_set(name)
}

/// Whether a name is a task type (a kind).
pub fn is_task_type(name: &str) -> bool {
    Kind::parse(name).is_some()
}

/// The task set and task type of a reference task name `<task_set>_<task_type>_<dag_id>`.
pub fn split_task_name(name: &str, dag_id: &str) -> Option<(String, String)> {
    let stem = if dag_id.is_empty() { name } else { name.strip_suffix(dag_id)?.strip_suffix('_')? };
    // The longest task type that ends the stem.
    let ty = Kind::NAMES
        .iter()
        .filter(|t| stem.strip_suffix(**t).is_some_and(|s| s.ends_with('_')))
        .max_by_key(|t| t.len())?;
    let set = &stem[..stem.len() - ty.len() - 1];
    Some((set.to_string(), ty.to_string()))
}

/// The checks a task of an experiment and task type must pass (grading.md §5.3): the registry's
/// pass rule ([`cabrito_check::grade::verdict::required_checks`]). `None` for an experiment or task
/// type the registries do not hold.
pub fn required_kinds(experiment: &str, task_type: &str) -> Option<Vec<&'static str>> {
    let kind = Kind::parse(task_type)?;
    Some(match Experiment::of_experiment(experiment)? {
        Experiment::Axis(axis) => cabrito_check::grade::verdict::required_checks(kind, axis),
        Experiment::Kind(_) => cabrito_check::grade::verdict::required_kinds(kind).to_vec(),
    })
}

/// Check kinds that are diagnostic only and never decide a task (grading.md §5.3, §4.6).
pub const DIAGNOSTIC_CHECKS: &[&str] = &["compilation", "edit_path", "function_comments"];

/// pass / fail / error counts of one check kind in a record's summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    pub pass: u32,
    pub fail: u32,
    pub error: u32,
}

impl Counts {
    pub fn passes(&self) -> bool {
        self.pass > 0 && self.fail == 0 && self.error == 0
    }
}

/// The task pass rule (grading.md §5.4): every required check present with pass > 0, fail = 0 and
/// error = 0. For an experiment or task type the registries do not hold, every non-diagnostic check
/// must pass (and there must be one).
pub fn passes(experiment: &str, task_type: &str, summary: &BTreeMap<String, Counts>) -> bool {
    match required_kinds(experiment, task_type) {
        Some(kinds) => kinds.iter().all(|k| summary.get(*k).is_some_and(Counts::passes)),
        None => {
            let decisive: Vec<&Counts> =
                summary.iter().filter(|(k, _)| !DIAGNOSTIC_CHECKS.contains(&k.as_str())).map(|(_, c)| c).collect();
            !decisive.is_empty() && decisive.iter().all(|c| c.passes())
        }
    }
}

/// `n` as it is written in tables: an integer without decimals, else the shortest float.
pub fn format_n(n: Option<f64>) -> String {
    match n {
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
        Some(x) => format!("{x}"),
        None => "?".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_experiment_of_the_paper_reads() {
        let t = parse_run("function_traversal_cn=(25,25)_en=(200,200)_prop=(0.45,0.55)_psame=(0.9,0.9)");
        assert_eq!((t.experiment.as_str(), t.axis.as_str(), t.n), ("function_traversal", "traversal", Some(200.0)));
        let s = parse_run("function_search_cn=(200,200)_en=(25,25)_prop=(0.45,0.55)");
        assert_eq!((s.axis.as_str(), s.n), ("search", Some(200.0)));
        let r = parse_run("runtime_resolution_n=(10,10)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)_ifhops=200");
        assert_eq!((r.axis.as_str(), r.n), ("runtime", Some(200.0)));
        let i = parse_run("add_instructions_n=(10,10)_prop=(0.45,0.55)_nc=(50,50)_cp=(0.0,0.0)");
        assert_eq!((i.axis.as_str(), i.n), ("instructions", Some(50.0)));
        let m = parse_run("merge_codebases_n=200_d=1_p=10_b=2_seed=42_tf=0_ne20");
        assert_eq!((m.axis.as_str(), m.n), ("merge", Some(200.0)));
        // Cabrito's appendix runs (cabrito_gen::task::run_name).
        let c = parse_run("comment_copying_cn=(10,10)_en=(10,10)_prop=(0.45,0.55)_eentry=(1,1)_words=25");
        assert_eq!((c.axis.as_str(), c.n), ("comment", Some(25.0)));
        let v = parse_run("variable_renaming_chain=200_n=50");
        assert_eq!((v.axis.as_str(), v.n), ("renaming", Some(50.0)));
        // The instruction bucket takes the midpoint of its range.
        assert_eq!(parse_run("add_instructions_n=(10,10)_nc=(5,15)").n, Some(10.0));
        // Legacy names.
        assert_eq!(parse_run("distractor_code_cn=(50,50)_en=(25,25)").axis, "search");
        assert_eq!(parse_run("main_sweep_fair_cn=(25,25)_en=(10,10)").n, Some(10.0));
        assert_eq!(parse_run("testing_runtime_n=(10,10)_ifhops=5").axis, "runtime");
        assert_eq!(parse_run("testing_n=50_d=1").axis, "merge");
        // Unknown experiments keep their name and any n.
        let u = parse_run("my_sweep_n=(7,7)_x=1");
        assert_eq!((u.experiment.as_str(), u.n), ("my_sweep", Some(7.0)));
        assert_eq!(parse_run("whatever").n, None);
        assert_eq!(parse_run("").axis, "");
    }

    #[test]
    fn task_sets_names_and_domains() {
        assert_eq!(domain_of("math_mult_constraints"), "math");
        assert_eq!(domain_of("array_function"), "array");
        assert_eq!(domain_of(""), "-");
        assert!(is_task_set("string_constraints") && !is_task_set("copilot"));
        assert_eq!(
            split_task_name("math_function_add_parameter_14c62aba-89c2", "14c62aba-89c2"),
            Some(("math_function".into(), "add_parameter".into()))
        );
        assert_eq!(
            split_task_name("array_constraints_add_return_value_x", "x"),
            Some(("array_constraints".into(), "add_return_value".into()))
        );
        assert_eq!(split_task_name("nothing", "x"), None);
    }

    #[test]
    fn the_pass_rule_follows_the_experiment() {
        let c = |p, f, e| Counts { pass: p, fail: f, error: e };
        let mut s = BTreeMap::new();
        s.insert("behavioral".to_string(), c(1, 0, 0));
        s.insert("function_existence".to_string(), c(0, 1, 0));
        s.insert("branch_placement".to_string(), c(0, 1, 0));
        assert!(passes("function_traversal", "add_parameter", &s));
        assert!(!passes("function_traversal", "dead_code", &s));
        assert!(!passes("runtime_resolution", "add_parameter", &s));
        assert!(!passes("add_instructions", "cache_function", &s), "constraint_structure is missing");
        s.insert("branch_placement".to_string(), c(1, 0, 0));
        assert!(passes("runtime_resolution", "add_parameter", &s));
        // An error is a failure too, and a zero-pass kind does not pass.
        s.insert("behavioral".to_string(), c(3, 0, 1));
        assert!(!passes("function_search", "extract_helper", &s));
        s.insert("behavioral".to_string(), c(0, 0, 0));
        assert!(!passes("function_search", "extract_helper", &s));
        // The appendix tasks: the kind's or the axis's own check as well.
        s.insert("comment_copy".to_string(), c(0, 1, 0));
        s.insert("behavioral".to_string(), c(2, 0, 0));
        assert!(!passes("comment_copying", "add_parameter", &s));
        s.insert("comment_copy".to_string(), c(1, 0, 0));
        assert!(passes("comment_copying", "add_parameter", &s));
        assert!(!passes("variable_renaming", "variable_renaming", &s), "renames is missing");
        // Unknown experiments: every decisive kind.
        let mut u = BTreeMap::new();
        u.insert("edit_path".to_string(), c(0, 1, 0));
        assert!(!passes("new_axis", "x", &u), "no decisive kind");
        u.insert("behavioral".to_string(), c(2, 0, 0));
        assert!(passes("new_axis", "x", &u));
    }

    /// The paper's table (grading.md §5.3) for the kinds and axes it names, read through the
    /// registries' pass rule; and for every kind × axis the registries build, results and the
    /// grader require the same checks of a task.
    #[test]
    fn the_pass_rule_is_the_graders() {
        use cabrito_check::grade::verdict;
        use cabrito_gen::spec::Support;
        let table: &[(&str, &str, &[&str])] = &[
            ("function_traversal", "add_parameter", &["behavioral"]),
            ("function_traversal", "dead_code", &["behavioral", "function_existence"]),
            ("function_search", "cache_function", &["behavioral"]),
            ("function_search", "dead_code", &["behavioral", "function_existence"]),
            ("add_instructions", "extract_helper", &["behavioral", "constraint_structure"]),
            ("runtime_resolution", "add_return_value", &["behavioral", "branch_placement"]),
            ("runtime_resolution", "dead_code", &["behavioral", "function_existence", "branch_placement"]),
            ("merge_codebases", "merge_codebases", &["behavioral", "difference_blocks"]),
            ("comment_copying", "add_parameter", &["behavioral", "comment_copy"]),
            ("variable_renaming", "variable_renaming", &["behavioral", "renames"]),
        ];
        for (experiment, ty, want) in table {
            assert_eq!(required_kinds(experiment, ty).as_deref(), Some(*want), "{experiment} {ty}");
        }
        for &kind in Kind::ALL {
            let def = kind.def();
            match def.axes() {
                Support::Only(axes) => {
                    for &axis in axes {
                        assert_eq!(
                            required_kinds(axis.experiment(), kind.as_str()),
                            Some(verdict::required_checks(kind, axis)),
                            "{kind} on {axis}"
                        );
                    }
                }
                Support::NotApplicable => {
                    let e = Experiment::of_spec(&cabrito_gen::TaskSpec { kind, ..Default::default() });
                    assert_eq!(
                        required_kinds(e.experiment(), kind.as_str()),
                        Some(verdict::required_checks(kind, cabrito_gen::TaskSpec::default().axis)),
                        "{kind}"
                    );
                }
            }
        }
        assert_eq!(required_kinds("function_traversal", "no_such_kind"), None);
        assert_eq!(required_kinds("no_such_experiment", "dead_code"), None);
    }

    #[test]
    fn n_prints_like_the_tables() {
        assert_eq!(format_n(Some(200.0)), "200");
        assert_eq!(format_n(Some(7.5)), "7.5");
        assert_eq!(format_n(None), "?");
    }
}
