//! A toy kind, built only with the cargo feature `toy-kind`, to prove that a kind is its module plus
//! one registry line: `tests/toy_kind.rs` generates, checks and grades its tasks and finds it in the
//! grid, links, results and the app's kind list. It removes dead code as `dead_code` does, through
//! that kind's call-graph pieces, under its own name, label and rubric.

use super::dead_code::DeadCode;
use super::graph_kind::runtime::RuntimeKind;
use super::graph_kind::statement::{Example, Named};
use super::graph_kind::{self, Built, Ctx, GraphKind};
use super::{Kind, Level, TaskKind};
use crate::domain::DomainInfo;
use crate::graph::Join;
use crate::spec::{Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::Generated;

pub struct Toy;

impl TaskKind for Toy {
    fn kind(&self) -> Kind {
        Kind::Toy
    }
    fn label(&self) -> &'static str {
        "Toy: delete what main() never reaches"
    }
    fn domains(&self) -> Support<Domain> {
        Support::Only(&[Domain::Math])
    }
    fn axes(&self) -> Support<Axis> {
        Support::Only(&[Axis::Traversal, Axis::Search])
    }
    fn validate(&self, spec: &TaskSpec) -> Result<(), SpecError> {
        graph_kind::validate(self, spec)
    }
    fn generate(&self, spec: &TaskSpec) -> Result<Generated, SpecError> {
        graph_kind::generate(self, spec)
    }
    fn library(&self, _: Domain) -> Option<&'static str> {
        None
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("function_existence", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["behavioral", "function_existence"]
    }
    fn scorer_rule(&self, _: Domain) -> String {
        "every function main() never reaches is deleted, and nothing else changes".into()
    }
    fn graph(&self) -> Option<&dyn GraphKind> {
        Some(self)
    }
}

impl GraphKind for Toy {
    fn join(&self, j: &mut Join) {
        DeadCode.join(j)
    }
    fn transform(&self, cx: &Ctx) -> Built {
        DeadCode.transform(cx)
    }
    fn example(&self) -> Example {
        DeadCode.example()
    }
    fn example_note(&self, named: &Named, d: &DomainInfo) -> String {
        DeadCode.example_note(named, d)
    }
    fn rules(&self, d: &DomainInfo) -> String {
        DeadCode.rules(d)
    }
    fn runtime(&self) -> &'static dyn RuntimeKind {
        DeadCode.runtime()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::Experiment;
    use crate::task::{generate, run_name};

    #[test]
    fn the_toy_generates_and_names_its_runs() {
        for seed in 0..5 {
            let spec = TaskSpec::new(Kind::Toy, Domain::Math, Axis::Search, 10, seed);
            let task = generate(&spec).unwrap();
            assert!(task.name.starts_with("math_function_toy_kind_"), "{}", task.name);
            assert!(task.prompt.starts_with("Refactor `solution.py`: toy: delete what main() never reaches."));
            assert_ne!(task.starter_code, task.solution_code);
            let run = run_name(&spec);
            assert_eq!(Experiment::of_run(&run), Some(Experiment::Axis(Axis::Search)));
            assert_eq!(TaskSpec::from_pairs(spec.to_query().split('&').filter_map(|p| p.split_once('='))), Ok(spec));
        }
        assert_eq!(Kind::parse("toy_kind"), Some(Kind::Toy));
        assert!(TaskSpec::from_pairs([("kind", "toy_kind"), ("axis", "runtime")]).is_err());
    }
}
