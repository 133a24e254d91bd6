//! The task kinds, one module each. A kind owns everything particular to it: the domains and axes
//! it is built for, how its task is made, its `mylibrary` names, rubric items and pass rule, its run
//! names, and the sentence the app shows about it. Everything else reaches a kind through
//! [`TaskKind`], via [`Kind::def`]; the `registry!` line below is the only list of kinds.
//!
//! The call-graph kinds share their machinery through [`graph_kind`]: they implement [`GraphKind`]
//! too, and their [`TaskKind::generate`] is [`graph_kind::generate`].

pub mod add_parameter;
pub mod add_return_value;
pub mod cache_function;
pub mod dead_code;
pub mod extract_helper;
pub mod graph_kind;
pub mod merge_codebases;
pub mod prompt;
mod role;
#[cfg(feature = "toy-kind")]
pub mod toy;
pub mod variable_renaming;

pub use graph_kind::{Built, Ctx, GraphKind};
pub use role::Role;

use crate::spec::{registry, Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::Generated;
#[cfg(not(target_arch = "wasm32"))]
use crate::task::Task;

/// A grid a kind makes on its own, for a kind whose axis knob does not apply (the paper's merge
/// grid, variable renaming's): its name in `cabrito grid --axes` and results, its sizes `n`, its
/// samples per cell, whether a size's samples go in one run file of the kind's own record format
/// (`tasks/<run>.json`, merge) rather than the reference layout, and whether it is an appendix
/// experiment of the paper (figures show those last).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnGrid {
    pub name: &'static str,
    pub sizes: &'static [u32],
    pub samples: u64,
    pub run_file: bool,
    pub appendix: bool,
}

registry!(
    /// The task kinds, with the reference's task-type names.
    Kind: TaskKind, generate: generate {
        // First, so that a table of kinds kept in registry order elsewhere shows it misplaced.
        #[cfg(feature = "toy-kind")]
        Toy = "toy_kind" => toy::Toy,
        DeadCode = "dead_code" => dead_code::DeadCode,
        AddParameter = "add_parameter" => add_parameter::AddParameter,
        AddReturnValue = "add_return_value" => add_return_value::AddReturnValue,
        CacheFunction = "cache_function" => cache_function::CacheFunction,
        ExtractHelper = "extract_helper" => extract_helper::ExtractHelper,
        MergeCodebases = "merge_codebases" => merge_codebases::MergeCodebases,
        VariableRenaming = "variable_renaming" => variable_renaming::VariableRenaming,
    }
);

/// How much a rubric item counts for a kind or an axis (`TaskKind::rubric`, `AxisDef::rubric`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The task fails without it.
    Must,
    /// A diagnostic.
    Nice,
    /// Not in this kind's rubric: a kind lists with it an item every kind has that means nothing for
    /// it (the function-level items of a task without top-level functions; `main_unchanged` for a kind
    /// whose one function is `main()`).
    Off,
}

/// What a kind's behavioural check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// Every reference function, on random inputs per trial (grading.md §3).
    Functions,
    /// `CalculateA().compute` and `CalculateB().compute` on argument vectors (grading.md §6.8; merge).
    Calculators,
}

/// Everything particular to one task kind.
pub trait TaskKind: Sync {
    /// Which kind this is.
    fn kind(&self) -> Kind;
    /// A human label (`Remove dead code`); the statement's title is made from it.
    fn label(&self) -> &'static str;
    /// The domains the kind is built for (`NotApplicable`: the domain knob does not apply to it).
    fn domains(&self) -> Support<Domain>;
    /// The axes the kind is built along (`NotApplicable`: the axis knob does not apply to it).
    fn axes(&self) -> Support<Axis>;
    /// The kind's own rules on a spec whose knobs are each valid and whose domain and axis the kind
    /// supports (such as the smallest edit graph it can be built from).
    fn validate(&self, spec: &TaskSpec) -> Result<(), SpecError>;
    /// Make the task of a valid spec: programs, statement, record, and what the app draws. Not in
    /// the trait object (`where Self: Sized`): [`generate`] calls each kind's directly, so a module
    /// that reads the registry but never generates carries no generator.
    fn generate(&self, spec: &TaskSpec) -> Result<Generated, SpecError>
    where
        Self: Sized;
    /// The `mylibrary` function the programs import in a domain, if any.
    fn library(&self, domain: Domain) -> Option<&'static str>;
    /// The parameter the reference adds, with its default as written (for the rubric's titles).
    fn added_parameter(&self, _domain: Domain) -> Option<(&'static str, &'static str)> {
        None
    }
    /// The return annotation the reference gives the functions it changes, in the rubric's words
    /// (`tuple[T, str]`).
    fn tuple_return(&self) -> Option<&'static str> {
        None
    }
    /// The kind's own items of the static rubric (ids of `check::rubric::CHECKS`) and their level;
    /// an item listed here overrides the level it has for every kind.
    fn rubric(&self) -> &'static [(&'static str, Level)];
    /// The grading checks a task of this kind must pass to score 1 (grading.md §5.3).
    fn required_checks(&self) -> &'static [&'static str];
    /// What the scorer checks beyond matching outputs, as the app says it (made from the kind's own
    /// names in the domain, so it cannot drift from the programs).
    fn scorer_rule(&self, domain: Domain) -> String;
    /// The call-graph machinery, for the kinds made from call graphs.
    fn graph(&self) -> Option<&dyn GraphKind> {
        None
    }
    /// The reference's run name of a spec, when the kind names its runs its own way (merge,
    /// variable_renaming); `None`: the axis's run name.
    fn run_name(&self, _spec: &TaskSpec) -> Option<String> {
        None
    }
    /// The `n` of one of the kind's own run names (the inverse of [`TaskKind::run_name`]).
    fn run_n(&self, run: &str) -> Option<f64> {
        use crate::experiment::{number_after, range_after};
        range_after(run, "_n=").or_else(|| number_after(run, "_n="))
    }
    /// The task as written out (`cabrito generate --json`, the grid): the record itself, unless the
    /// kind's reference format differs (merge). Native only: the app never writes one.
    #[cfg(not(target_arch = "wasm32"))]
    fn export(&self, task: &Task) -> serde_json::Value {
        serde_json::to_value(task).unwrap_or_default()
    }
    /// The kind's own grid, when its axis knob does not apply.
    fn own_grid(&self) -> Option<OwnGrid> {
        None
    }
    /// What the behavioural check runs.
    fn behaviour(&self) -> crate::kinds::Behaviour {
        crate::kinds::Behaviour::Functions
    }
    /// The part of the generator the kind's tasks need beyond the core (a build without it answers
    /// [`crate::task::require`]'s error; `web::gen` loads it).
    fn extra(&self) -> Option<crate::task::Extra> {
        None
    }
    /// Whether the behavioural check calls `main()` too (a kind whose one function is `main()`);
    /// otherwise every function but `main()` is tested (grading.md §3.2).
    fn grades_main(&self) -> bool {
        false
    }
}

impl Kind {
    /// A human label for the playground.
    pub fn label(self) -> &'static str {
        self.def().label()
    }
    /// Smallest edit-graph size the kind can be built from (1 for kinds not made from call graphs).
    pub fn min_edit(self) -> u32 {
        self.def().graph().map_or(1, |g| g.min_edit().0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::generate;

    /// Every `mylibrary` function some kind imports in some domain.
    fn all_library_functions() -> Vec<&'static str> {
        let mut out: Vec<&str> =
            Kind::ALL.iter().flat_map(|k| Domain::ALL.iter().filter_map(move |&d| k.def().library(d))).collect();
        out.sort();
        out.dedup();
        out
    }

    /// The app's sentence about a kind names only the library function its programs import.
    #[test]
    fn the_scorer_rule_names_the_tasks_own_library_function() {
        let libs = all_library_functions();
        assert!(libs.len() >= 5, "{libs:?}");
        for &kind in Kind::ALL {
            let def = kind.def();
            let Support::Only(domains) = def.domains() else { continue };
            for &domain in domains {
                let Support::Only(axes) = def.axes() else { continue };
                let spec = TaskSpec::new(kind, domain, axes[0], 5, 1);
                let task = generate(&spec).unwrap();
                let rule = def.scorer_rule(domain);
                for lib in &libs {
                    let named = rule.contains(&format!("{lib}()"));
                    let imported = task.starter_code.contains(&format!("from mylibrary import {lib}\n"));
                    assert!(!named || imported, "{kind} {domain}: the rule names {lib}() but the task imports it not");
                }
                if let Some(lib) = def.library(domain) {
                    assert!(
                        task.starter_code.starts_with(&format!("from mylibrary import {lib}\n")),
                        "{kind} {domain}"
                    );
                    assert!(rule.contains(&format!("`{lib}()`")), "{kind} {domain}: {rule}");
                }
                if let Some((p, _)) = def.added_parameter(domain) {
                    assert!(task.solution_code.contains(&format!("{p}: ")), "{kind} {domain}: no parameter {p}");
                }
            }
        }
    }

    #[test]
    fn labels_and_names_are_the_registrys() {
        for &kind in Kind::ALL {
            assert_eq!(kind.def().kind(), kind);
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::json!(kind.as_str()));
            assert!(!kind.label().is_empty());
            // The statement's title lower-cases it as ASCII.
            assert!(kind.label().is_ascii(), "{}", kind.label());
            assert!(!kind.def().required_checks().is_empty());
        }
        assert_eq!(Kind::parse("nope"), None);
        // The axes' labels are capitalised as ASCII too (the gallery's headings).
        for &axis in crate::Axis::ALL {
            assert!(axis.label().is_ascii(), "{}", axis.label());
        }
    }
}
