//! Runtime resolution (generation.md §4.3): every function body is an if/else tree whose guards call
//! `check(…, num_steps=d)`, a Collatz-like map that must be run to know which branch executes; `n` is
//! the hops per guard (10 untouched functions and 10 to edit). Only the branches that run may be
//! edited. Knobs: `branches` (leaves per function, a power of two) and `ratio` (a guard's
//! breadth/depth: 1.0 is one call of `n` steps, the paper's setting).

pub mod guard;

use super::{AxisDef, Bodies, Grows};
use crate::kinds::Level;
use crate::spec::{err, GraphSizes, SpecError, TaskSpec};
use guard::Guard;
use serde::{Deserialize, Serialize};

pub struct Runtime;

/// The most hops a guard may take: the generator is exact far beyond (see [`guard`]), but CPython
/// needs about 7 ms for one `check` of 10,000 steps, and a trial calls every guard.
pub const MAX_HOPS: u32 = 10_000;

/// How the bodies of a runtime task are written: `branches` leaves per function, each guard
/// `breadth` calls of `depth` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Hops per guard (the spec's `n`).
    pub hops: u32,
    /// Leaves of each function's if/else tree (2, 4 or 8).
    pub branches: u32,
    /// Calls per guard, joined by `^`.
    pub breadth: u32,
    /// Steps of each call.
    pub depth: u32,
}

impl Shape {
    /// The shape of a spec on this axis.
    pub fn of(spec: &TaskSpec) -> Shape {
        let (breadth, depth) = guard::shape(spec.n, spec.ratio_tenths);
        Shape { hops: spec.n, branches: spec.branches, breadth, depth }
    }
    /// Levels of each function's if/else tree (log₂ of the leaves).
    pub fn levels(&self) -> u32 {
        self.branches.max(1).trailing_zeros()
    }
}

/// What a runtime task's record says about its branches (Cabrito's own field `runtime`): enough for
/// the app to show which branch of each function runs and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub hops: u32,
    pub branches: u32,
    /// Calls per guard.
    pub breadth: u32,
    /// Steps per call.
    pub depth: u32,
    /// Every function but `main`, in file order.
    pub functions: Vec<FunctionBranches>,
    /// Calls that only branches that never run make (`[caller, callee]`, dead code's distractors).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inactive_calls: Vec<(String, String)>,
}

/// One function's if/else tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionBranches {
    pub name: String,
    /// The leaf that runs, counting from 0 left to right (the `if` side first).
    pub leaf: usize,
    /// The values of the guards on the way to it, from the top (`true`: the `if` side).
    pub path: Vec<bool>,
    /// The guards in pre-order: a guard, then those of its `if` side, then those of its `else` side.
    pub guards: Vec<Guard>,
}

impl FunctionBranches {
    /// The running leaf's place, as the reference's branch paths name blocks (`/if0/else/if0/body`).
    pub fn block_path(&self) -> String {
        self.path.iter().map(|&v| if v { "/if0/body" } else { "/if0/else" }).collect()
    }
    /// The running leaf in words: `the if branch`, `the else → if branch`.
    pub fn describe(&self) -> String {
        let sides: Vec<&str> = self.path.iter().map(|&v| if v { "if" } else { "else" }).collect();
        format!("the {} branch", sides.join(" → "))
    }
}

impl AxisDef for Runtime {
    fn extra(&self) -> Option<crate::task::Extra> {
        Some(crate::task::Extra::Runtime)
    }
    fn label(&self) -> &'static str {
        "runtime resolution"
    }
    fn experiment(&self) -> &'static str {
        "runtime_resolution"
    }
    fn scales(&self) -> &'static str {
        "n hops of the Collatz-like check() each guard must run; 10 untouched functions, 10 to edit"
    }
    fn grows(&self) -> Grows {
        Grows::Neither
    }
    fn fixed_size(&self) -> u32 {
        10
    }
    fn max_n(&self) -> u32 {
        MAX_HOPS
    }
    fn run_sizes(&self, s: &GraphSizes) -> String {
        // The reference's runtime runs size both graphs with one `n`.
        if s.n_init == s.n_edit {
            format!("n=({},{})", s.n_init, s.n_init)
        } else {
            format!("cn=({},{})_en=({},{})", s.n_init, s.n_init, s.n_edit, s.n_edit)
        }
    }
    fn run_suffix(&self, spec: &TaskSpec) -> String {
        format!("_ifhops={}", spec.n)
    }
    fn run_n(&self, run: &str) -> Option<f64> {
        crate::experiment::number_after(run, "_ifhops=")
    }
    fn bodies(&self, spec: &TaskSpec) -> Bodies {
        Bodies::Branched(Shape::of(spec))
    }
    fn validate(&self, spec: &TaskSpec) -> Result<(), SpecError> {
        let (breadth, _) = guard::shape(spec.n, spec.ratio_tenths);
        if breadth > guard::MAX_GUARD_CALLS {
            return Err(err(
                "ratio",
                format!(
                    "ratio {} with n = {} gives guards of {breadth} check() calls; at most {} are allowed: raise the \
                     ratio or lower n",
                    crate::spec::ratio_text(spec.ratio_tenths),
                    spec.n,
                    guard::MAX_GUARD_CALLS
                ),
            ));
        }
        Ok(())
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        &[("branch_placement", Level::Must)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["branch_placement"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Axis, Domain, Kind};

    #[test]
    fn run_names_are_the_references() {
        let s = TaskSpec::from_pairs([("axis", "runtime"), ("n", "200")]).unwrap();
        assert_eq!(
            crate::axes::run_name(&s),
            "runtime_resolution_n=(10,10)_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)_ifhops=200"
        );
        assert_eq!(Shape::of(&s), Shape { hops: 200, branches: 2, breadth: 1, depth: 200 });
        assert_eq!(Shape::of(&s).levels(), 1);
        let s = TaskSpec::new(Kind::DeadCode, Domain::Math, Axis::Runtime, 5, 0);
        assert_eq!(s.sizes(), GraphSizes { n_init: 10, n_edit: 10 });
    }

    #[test]
    fn knobs_name_what_is_allowed() {
        let e = TaskSpec::from_pairs([("axis", "runtime"), ("branches", "3")]).unwrap_err();
        assert_eq!(e.key, "branches");
        assert!(e.message.contains("one of 2, 4, 8"), "{e}");
        let e = TaskSpec::from_pairs([("branches", "4")]).unwrap_err();
        assert!(e.message.contains("does not apply to the traversal axis"), "{e}");
        let e = TaskSpec::from_pairs([("axis", "runtime"), ("n", "10001")]).unwrap_err();
        assert!(e.message.contains("from 1 to 10000"), "{e}");
        let e = TaskSpec::from_pairs([("axis", "traversal"), ("n", "2001")]).unwrap_err();
        assert!(e.message.contains("from 1 to 2000"), "{e}");
        let e = TaskSpec::from_pairs([("axis", "runtime"), ("n", "10000"), ("ratio", "0.1")]).unwrap_err();
        assert!(e.message.contains("at most 200"), "{e}");
        let s = TaskSpec::from_pairs([("axis", "runtime"), ("branches", "8"), ("ratio", "0.5"), ("n", "100")]).unwrap();
        assert_eq!(s.to_query(), "v=1&axis=runtime&n=100&branches=8&ratio=0.5");
        assert_eq!(Shape::of(&s), Shape { hops: 100, branches: 8, breadth: 10, depth: 10 });
        // A spec's JSON is a spec object of link keys (the worker's grade messages send it so).
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["ratio"], "0.5");
        assert_eq!(serde_json::from_value::<TaskSpec>(json).unwrap(), s);
    }
}
