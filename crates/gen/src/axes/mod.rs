//! The scaling axes, one module each (generation.md §4). An axis says what `n` means: how it and the
//! explicit sizes become graph sizes and program options, its experiment and run names, its paper
//! sizes. Everything else reaches an axis through [`AxisDef`], via [`Axis::def`].
//!
//! Which kinds are built along an axis is said by the kinds ([`crate::kinds::TaskKind::axes`]), so a
//! kind that lacks an axis gets a one-line error naming the kinds that have it.

pub mod comment;
pub mod instructions;
pub mod runtime;
mod search;
mod traversal;

use crate::experiment::range_after;
use crate::kinds::Level;
use crate::spec::{registry, Domain, GraphSizes, SpecError, TaskSpec, MAX_N, PAPER_SIZES};

registry!(
    /// The scaling axes this generator version serves.
    Axis: AxisDef {
        Traversal = "traversal" => traversal::Traversal,
        Search = "search" => search::Search,
        Runtime = "runtime" => runtime::Runtime,
        Instructions = "instructions" => instructions::Instructions,
        Comment = "comment" => comment::Comment,
    }
);

/// Which graph `n` sets on an axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grows {
    /// `n` is the size of C_edit (function traversal).
    EditGraph,
    /// `n` is the size of C_init (function search).
    InitGraph,
    /// `n` measures something else (hops, requirements, words); both graphs have the fixed size.
    Neither,
}

/// How the programs of a graph task are written. An axis that changes every function body (runtime
/// resolution's guarded branches) adds a variant here, and the compiler then points at every place
/// that writes or edits a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bodies {
    /// Call lines, then one return (generation.md §2.4).
    Plain,
    /// Runtime resolution: an if/else tree of `check()` guards whose leaves are bodies, one of them
    /// running (generation.md §4.3; `kinds/graph_kind/runtime.rs` writes them).
    Branched(runtime::Shape),
}

/// Everything particular to one axis.
pub trait AxisDef: Sync {
    /// A human label (`function traversal`).
    fn label(&self) -> &'static str;
    /// The experiment name the reference gives the axis (`function_traversal`); run names start with it.
    fn experiment(&self) -> &'static str;
    /// What `n` scales, in one line (for the help text, the app and the scale page).
    fn scales(&self) -> &'static str;
    /// Which graph `n` sets.
    fn grows(&self) -> Grows;
    /// The size of the graphs `n` does not set.
    fn fixed_size(&self) -> u32;
    /// The paper's values of `n` on this axis (presets, the grid's default sizes).
    fn paper_sizes(&self) -> &'static [u32] {
        PAPER_SIZES
    }
    /// What the axis adds to a bucket's run name after the sampler's parameters (`_ifhops=200`).
    fn run_suffix(&self, _spec: &TaskSpec) -> String {
        String::new()
    }
    /// The `n` of one of the axis's run names (the inverse of [`AxisDef::run_sizes`] and
    /// [`AxisDef::run_suffix`]); by default the size of the graph `n` sets.
    fn run_n(&self, run: &str) -> Option<f64> {
        let key = match self.grows() {
            Grows::EditGraph => "_en=",
            Grows::InitGraph => "_cn=",
            Grows::Neither => return None,
        };
        range_after(run, key).or_else(|| range_after(run, "_n="))
    }
    /// Whether the axis is one of the paper's appendix experiments (figures show those last).
    fn appendix(&self) -> bool {
        false
    }
    /// The reference's task-set name of a domain on this axis (`math_function`).
    fn task_set(&self, domain: Domain) -> String {
        format!("{}_function", domain.as_str())
    }
    /// How the programs' bodies are written.
    fn bodies(&self, _spec: &TaskSpec) -> Bodies {
        Bodies::Plain
    }
    /// The largest `n` on this axis (the graph sizes' limit when `n` sizes a graph).
    fn max_n(&self) -> u32 {
        MAX_N
    }
    /// The sizes part of a run name (`cn=(25,25)_en=(200,200)`).
    fn run_sizes(&self, s: &GraphSizes) -> String {
        format!("cn=({},{})_en=({},{})", s.n_init, s.n_init, s.n_edit, s.n_edit)
    }
    /// The axis's own rules on a spec whose knobs are each valid.
    fn validate(&self, _spec: &TaskSpec) -> Result<(), SpecError> {
        Ok(())
    }
    /// The axis's own items of the static rubric (ids of `check::rubric::CHECKS`) and their level;
    /// they join the kind's ([`crate::kinds::TaskKind::rubric`]).
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[]
    }
    /// The checks the axis adds to the kind's pass rule (static rubric items, graded like the others).
    fn required_checks(&self) -> &'static [&'static str] {
        &[]
    }
    /// Instruction following: the kinds' refactorings over indexed values, with requirements to obey
    /// (`axes/instructions.rs`, `kinds/graph_kind/instructions.rs`).
    fn instructions(&self) -> bool {
        false
    }
    /// Comment copying: every edited function must carry a comment of `n` words.
    fn copies_comment(&self) -> bool {
        false
    }
    /// The part of the generator the axis's tasks need beyond the core ([`crate::task::Extra`]).
    fn extra(&self) -> Option<crate::task::Extra> {
        None
    }
    /// What the axis adds to the key of a task's `dag_id` when `n` does not change the graphs (so
    /// tasks of one seed at different `n` have different ids); empty for the axes whose `n` sizes a
    /// graph.
    fn id_suffix(&self, _spec: &TaskSpec) -> String {
        String::new()
    }
}

impl Axis {
    /// A human label for the playground.
    pub fn label(self) -> &'static str {
        self.def().label()
    }
    /// The experiment name the reference gives this axis.
    pub fn experiment(self) -> &'static str {
        self.def().experiment()
    }
    /// What `n` scales on this axis.
    pub fn scales(self) -> &'static str {
        self.def().scales()
    }
}

/// Every task set some axis names, in registry order (`math_function`, …, `math_mult_constraints`, …).
pub fn task_sets() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &axis in Axis::ALL {
        for &d in Domain::ALL {
            let name = axis.def().task_set(d);
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Whether a folder name is a task set some axis names.
pub fn is_task_set(name: &str) -> bool {
    Axis::ALL.iter().any(|a| Domain::ALL.iter().any(|&d| a.def().task_set(d) == name))
}

/// The domain of a task set (`math_function`, `math_mult_constraints`: its first word).
pub fn domain_of_task_set(task_set: &str) -> Result<Domain, String> {
    task_set
        .split('_')
        .next()
        .and_then(Domain::parse)
        .ok_or_else(|| format!("unknown task set '{task_set}' (expected one of {})", task_sets().join(", ")))
}

/// The graph sizes `n` gives on an axis (before explicit sizes override them).
pub fn sizes(axis: Axis, n: u32) -> GraphSizes {
    let def = axis.def();
    let fixed = def.fixed_size();
    let (n_init, n_edit) = match def.grows() {
        Grows::EditGraph => (fixed, n),
        Grows::InitGraph => (n, fixed),
        Grows::Neither => (fixed, fixed),
    };
    GraphSizes { n_init, n_edit }
}

/// The knob that sets C_edit's size in a spec: `n_edit` when given or when the axis does not grow
/// C_edit, else `n` (for errors about the edit graph's size).
pub fn edit_size_key(spec: &TaskSpec) -> &'static str {
    match (spec.n_edit, spec.axis.def().grows()) {
        (None, Grows::EditGraph) => "n",
        (Some(_), _) | (None, Grows::InitGraph | Grows::Neither) => "n_edit",
    }
}

/// The reference's run name of a spec's bucket (generation.md §5.2): the experiment, the sampler's
/// parameters ([`AxisDef::run_sizes`]), then what the axis adds.
pub fn run_name(spec: &TaskSpec) -> String {
    let def = spec.axis.def();
    format!(
        "{}_{}_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1){}",
        spec.axis.experiment(),
        def.run_sizes(&spec.sizes()),
        def.run_suffix(spec)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kind;

    #[test]
    fn names_and_sizes() {
        assert_eq!(Axis::NAMES, &["traversal", "search", "runtime", "instructions", "comment"]);
        assert_eq!(sizes(Axis::Instructions, 200), GraphSizes { n_init: 10, n_edit: 10 });
        assert_eq!(sizes(Axis::Traversal, 7), GraphSizes { n_init: 25, n_edit: 7 });
        assert_eq!(sizes(Axis::Search, 7), GraphSizes { n_init: 7, n_edit: 25 });
        for &a in Axis::ALL {
            assert_eq!(Axis::parse(a.as_str()), Some(a));
            assert!(!a.label().is_empty() && !a.scales().is_empty());
            assert!(a.def().paper_sizes().iter().all(|&n| n >= 1));
        }
    }

    #[test]
    fn run_names_are_the_references() {
        let s = TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Search, 50, 0);
        assert_eq!(
            run_name(&s),
            "function_search_cn=(50,50)_en=(25,25)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)"
        );
        assert_eq!(edit_size_key(&s), "n_edit");
        // The reference's add_instructions bucket (fixtures/cabra-reference/manifest.json).
        let s = TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Instructions, 200, 0);
        assert_eq!(
            run_name(&s),
            "add_instructions_n=(10,10)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)_nc=(200,200)_cp=(0.0,0.0)"
        );
        assert_eq!(edit_size_key(&TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Traversal, 5, 0)), "n");
    }
}
