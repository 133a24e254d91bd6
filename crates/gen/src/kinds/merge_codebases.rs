//! Merge Codebases (grading.md §6, D8): two calculator classes compute the same function through
//! differently written blocks and differ in exactly `d` lines; the solver moves the shared logic into
//! `Calculate.compute()` (template method) and keeps only the differences in the children.
//!
//! Not made from a call graph: a canonical program ([`build`]) is rewritten per class ([`rewrite`]),
//! printed ([`render`]) and validated ([`validate`]), drawn again when validation fails. It has its own
//! knobs, record format, grid (`cabrito grid --axes merge`) and checks (`check::merge`).

pub mod build;
pub mod ir;
pub mod render;
pub mod rewrite;
mod statement;
pub mod validate;
pub mod view;

use super::{Kind, TaskKind};
use crate::kinds::Level;
use crate::rng::{hex_id, stream};
use crate::spec::{err, name_set, Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::{link, Generated, Sizes, Task, View};
use serde_json::json;

pub use render::CLASSES;

name_set!(
    /// The meaning-preserving rewrites allowed (grading.md §6.4), in the reference's order.
    Transformations = &["rename_variables", "shuffle_lines", "multi_lines", "reorder", "logical_equiv"]
);
name_set!(
    /// The ways a difference may differ (grading.md §6.3), in the reference's order.
    Perturbations = &["swap_factor", "flip_sign", "change_coeff", "add_factor"]
);

/// Largest `d`.
pub const MAX_D: u32 = 10;
/// Most parameters of `compute()`.
pub const MAX_PARAMS: u32 = 50;
/// Largest `min_block`.
pub const MAX_MIN_BLOCK: u32 = 100;
/// Draws tried before a spec is given up (each draw fails validation with a small chance; the
/// worst knob settings, one perturbation kind and ten differences, need a few dozen at most).
pub const MAX_ATTEMPTS: u32 = 1000;

pub fn default_d() -> u32 {
    1
}
pub fn is_default_d(x: &u32) -> bool {
    *x == default_d()
}
pub fn default_params() -> u32 {
    10
}
pub fn is_default_params(x: &u32) -> bool {
    *x == default_params()
}
pub fn default_min_block() -> u32 {
    2
}
pub fn is_default_min_block(x: &u32) -> bool {
    *x == default_min_block()
}

/// Examples per cell of the paper's merge grid (its sizes are the paper's, `d = 1`; grading.md §6.9).
pub const GRID_SAMPLES: u64 = 50;

pub struct MergeCodebases;

/// Everything one draw made.
#[derive(Clone, Debug)]
pub struct Made {
    pub program: ir::Program,
    pub classes: [rewrite::ClassCode; 2],
    pub starter: render::Starter,
    pub spaced: String,
    pub solution: String,
    /// Which attempt succeeded (0: the first).
    pub attempt: u32,
}

/// The key of one attempt's streams: everything that shapes the canonical program, and the seed.
/// The transformations are not in it, so an ablation keeps the program and changes only how the
/// classes are written.
pub fn draw_key(spec: &TaskSpec, attempt: u32) -> String {
    format!(
        "cabrito-merge|v{}|n={}|d={}|params={}|min_block={}|perturbations={}|seed={}|attempt={attempt}",
        spec.v, spec.n, spec.d, spec.params, spec.min_block, spec.perturbations, spec.seed
    )
}

/// Draw, render and validate the task of a spec, drawing again while validation fails.
pub fn make(spec: &TaskSpec) -> Result<Made, SpecError> {
    let shape = build::Shape {
        lines: spec.n as usize,
        diffs: spec.d as usize,
        params: spec.params as usize,
        min_block: spec.min_block as usize,
        perturbations: spec.perturbations,
    };
    let mut last = String::new();
    for attempt in 0..MAX_ATTEMPTS {
        let key = draw_key(spec, attempt);
        let program = match build::build(&mut stream(&key, "merge/program"), &shape) {
            Ok(p) => p,
            Err(build::Reject(why)) => {
                last = why;
                continue;
            }
        };
        let classes = [0, 1].map(|i| {
            rewrite::class_code(&program, &mut stream(&key, &format!("merge/class/{i}")), spec.transformations)
        });
        if let Err(build::Reject(why)) = validate::validate(&program, &classes, &key) {
            last = why;
            continue;
        }
        let starter = render::starter(&program, &classes, false);
        let spaced = render::starter(&program, &classes, true).text;
        let solution = render::solution(&program);
        return Ok(Made { program, classes, starter, spaced, solution, attempt });
    }
    Err(err(
        "seed",
        format!(
            "no valid merge task after {MAX_ATTEMPTS} draws from this spec (the last failed: {last}); try another seed"
        ),
    ))
}

/// The reference's run name of a merge spec (grading.md §6.9): `merge_codebases_n=…_d=…_p=…_b=…_seed=…_tf=…`,
/// with `_pt=…` when not every perturbation is allowed. `tf=0` is every transformation (the index of
/// the paper's one set); a subset is written as its names joined by `+` (`none` for no rewrite).
pub fn run_name(spec: &TaskSpec) -> String {
    let plus = |s: String| s.replace(',', "+");
    let tf = if spec.transformations.is_all() { "0".to_string() } else { plus(spec.transformations.to_string()) };
    let pt = if spec.perturbations.is_all() {
        String::new()
    } else {
        format!("_pt={}", plus(spec.perturbations.to_string()))
    };
    format!(
        "merge_codebases_n={}_d={}_p={}_b={}_seed={}_tf={tf}{pt}",
        spec.n, spec.d, spec.params, spec.min_block, spec.seed
    )
}

/// A knob's value in a merge run name (`_d=1_` → `1`).
fn run_field<'a>(run: &'a str, key: &str) -> Option<&'a str> {
    let start = run.find(&format!("_{key}="))? + key.len() + 2;
    let rest = &run[start..];
    Some(&rest[..rest.find('_').unwrap_or(rest.len())])
}

/// A set's value in a merge run name: item names (which hold `_`) joined by `+`, or `0`, `all`,
/// `none`; read item by item, so what follows (`_pt=…`, `_ne20`) is not taken for part of it.
fn run_set_field<'a>(run: &'a str, key: &str, items: &[&str]) -> Option<&'a str> {
    let start = run.find(&format!("_{key}="))? + key.len() + 2;
    let rest = &run[start..];
    let mut end = 0;
    loop {
        let word = ["0", "all", "none"]
            .iter()
            .chain(items)
            .filter(|w| rest[end..].starts_with(**w))
            .max_by_key(|w| w.len())?;
        end += word.len();
        if !rest[end..].starts_with('+') {
            return Some(&rest[..end]);
        }
        end += 1;
    }
}

/// The `n` of a merge run name.
pub fn run_n(run: &str) -> Option<u32> {
    run_field(run, "n")?.parse().ok()
}

/// The spec of record `index` of a merge run named by the reference's scheme
/// (`merge_codebases_n=200_d=1_p=10_b=2_seed=42_tf=0…`; its seed is the run's first seed plus the
/// index). `None` when the name does not say every knob, or they do not make a valid spec.
pub fn spec_of_run(run: &str, index: usize) -> Option<TaskSpec> {
    if !run.starts_with("merge_codebases_") {
        return None;
    }
    let num = |k: &str| run_field(run, k)?.parse::<u32>().ok();
    let set = |k: &str, items: &[&str]| -> Option<u32> {
        match run_set_field(run, k, items) {
            None | Some("0" | "all") => Some((1 << items.len()) - 1),
            Some(v) => crate::spec::parse_set(items, &v.replace('+', ",")).ok(),
        }
    };
    let spec = TaskSpec {
        kind: crate::spec::Kind::MergeCodebases,
        n: num("n")?,
        d: num("d")?,
        params: num("p")?,
        min_block: num("b")?,
        seed: run_field(run, "seed")?.parse::<u64>().ok()?.checked_add(index as u64)?,
        transformations: Transformations(set("tf", Transformations::ITEMS)?),
        perturbations: Perturbations(set("pt", Perturbations::ITEMS)?),
        ..TaskSpec::default()
    };
    spec.validate().ok().map(|_| spec)
}

/// The id the reference gives the record at this position of a run file.
pub fn dag_id(index: u64) -> String {
    format!("task_{index:05}")
}

/// A merge record in the reference's format, its six fields only (`input`, `input_with_space`,
/// `prompt`, `solution`, `allowed_transformations`, `allowed_perturbations`): what a run file holds.
pub fn reference_record(task: &Task) -> serde_json::Value {
    let meta = |k: &str| task.metadata.get(k).cloned().unwrap_or(serde_json::Value::Null);
    json!({
        "input": task.starter_code,
        "input_with_space": meta("input_with_space"),
        "prompt": task.prompt,
        "solution": task.solution_code,
        "allowed_transformations": meta("allowed_transformations"),
        "allowed_perturbations": meta("allowed_perturbations"),
    })
}

/// A merge record in the reference's format, plus Cabrito's `spec`, `link` and `sizes`.
pub fn export(task: &Task) -> serde_json::Value {
    let mut r = reference_record(task);
    if let serde_json::Value::Object(m) = &mut r {
        m.insert("spec".into(), json!(task.spec));
        m.insert("link".into(), json!(task.link));
        m.insert("sizes".into(), json!(task.sizes));
    }
    r
}

impl TaskKind for MergeCodebases {
    fn kind(&self) -> Kind {
        Kind::MergeCodebases
    }
    fn label(&self) -> &'static str {
        "Merge codebases"
    }
    fn domains(&self) -> Support<Domain> {
        Support::NotApplicable
    }
    fn axes(&self) -> Support<Axis> {
        Support::NotApplicable
    }
    fn validate(&self, spec: &TaskSpec) -> Result<(), SpecError> {
        let need = (spec.d + 1) * spec.min_block;
        if spec.n < need {
            return Err(err(
                "n",
                format!(
                    "merge_codebases with d = {} and min_block = {} needs n of at least (d+1)·min_block = {need} lines, got {}; \
                     raise n or lower d or min_block",
                    spec.d, spec.min_block, spec.n
                ),
            ));
        }
        Ok(())
    }
    fn generate(&self, spec: &TaskSpec) -> Result<Generated, SpecError> {
        crate::task::require(crate::task::Extra::MergeCodebases)?;
        let made = make(spec)?;
        let prompt = statement::statement();
        let starter_code = made.starter.text.clone();
        let solution_code = made.solution.clone();
        let sizes = Sizes {
            functions: 3,
            functions_to_edit: 3,
            starter_lines: starter_code.lines().count(),
            starter_chars: starter_code.chars().count(),
            solution_lines: solution_code.lines().count(),
            prompt_tokens_estimate: (prompt.chars().count() + starter_code.chars().count()).div_ceil(4),
        };
        let flow = view::Flow::new(&made);
        let view = view::MergeView::new(&made, &flow);
        let task = Task {
            name: format!("{}/{:05}", run_name(spec), spec.seed),
            dag_id: dag_id(spec.seed),
            prompt,
            starter_code,
            solution_code,
            metadata: json!({
                "input_with_space": made.spaced,
                "allowed_transformations": spec.transformations.names(),
                "allowed_perturbations": spec.perturbations.names(),
                "differences": made.program.diffs().map(|d| json!({
                    "target": made.program.names[d.target],
                    "perturbation": Perturbations::ITEMS[d.how as usize],
                })).collect::<Vec<_>>(),
                "draw": hex_id(&draw_key(spec, made.attempt), "merge/draw", 8),
            }),
            spec: spec.clone(),
            link: link(spec),
            graph: flow.node_link(),
            roles: Default::default(),
            edit_set: CLASSES.iter().map(|c| format!("{c}.compute")).collect(),
            sizes,
            runtime: None,
        };
        Ok(Generated { task, view: View::Merge(view) })
    }
    fn library(&self, _: Domain) -> Option<&'static str> {
        None
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[
            ("difference_blocks", Level::Must),
            ("merge_module_code", Level::Must),
            // The function-level items mean nothing for a task of three classes.
            ("function_existence", Level::Off),
            ("no_missing_functions", Level::Off),
            ("no_new_functions", Level::Off),
            ("function_names", Level::Off),
            ("no_module_names", Level::Off),
            ("main_unchanged", Level::Off),
            ("edit_path", Level::Off),
        ]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["behavioral", "difference_blocks"]
    }
    fn scorer_rule(&self, _: Domain) -> String {
        "`Calculate.compute()` calls `self.custom_compute_1(…)` … once each, the two subclasses define only \
         those methods, each a single `return` (grading.md's difference_blocks rule)"
            .into()
    }
    fn run_name(&self, spec: &TaskSpec) -> Option<String> {
        Some(run_name(spec))
    }
    fn run_n(&self, run: &str) -> Option<f64> {
        run_n(run).map(f64::from)
    }
    #[cfg(not(target_arch = "wasm32"))]
    fn export(&self, task: &Task) -> serde_json::Value {
        export(task)
    }
    fn own_grid(&self) -> Option<super::OwnGrid> {
        Some(super::OwnGrid {
            name: "merge",
            sizes: crate::spec::PAPER_SIZES,
            samples: GRID_SAMPLES,
            run_file: true,
            appendix: false,
        })
    }
    fn behaviour(&self) -> crate::kinds::Behaviour {
        crate::kinds::Behaviour::Calculators
    }
    fn extra(&self) -> Option<crate::task::Extra> {
        Some(crate::task::Extra::MergeCodebases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn spec(n: u32, seed: u64) -> TaskSpec {
        TaskSpec { kind: Kind::MergeCodebases, n, seed, ..TaskSpec::default() }
    }

    #[test]
    fn run_names_are_the_references() {
        let mut s = spec(200, 42);
        assert_eq!(run_name(&s), "merge_codebases_n=200_d=1_p=10_b=2_seed=42_tf=0");
        s.transformations = Transformations(0b00101);
        s.perturbations = Perturbations(0b0010);
        assert_eq!(
            run_name(&s),
            "merge_codebases_n=200_d=1_p=10_b=2_seed=42_tf=rename_variables+multi_lines_pt=flip_sign"
        );
        s.transformations = Transformations(0);
        assert!(run_name(&s).contains("_tf=none_"));
        assert_eq!(dag_id(7), "task_00007");
    }

    #[test]
    fn the_smallest_tasks_generate() {
        for seed in 0..20 {
            let s = spec(5, seed);
            let t = crate::generate(&s).unwrap();
            assert!(t.starter_code.contains("class CalculateA(Calculate):"));
            assert!(t.solution_code.contains("def custom_compute_1(self"));
        }
    }
}
