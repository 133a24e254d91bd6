//! The merge problem statement (decision D10): written for Cabrito, stating the rules of grading.md
//! §6.8, with a worked example that Cabrito's own generator makes from a tiny fixed spec (so the
//! example is a real task of this kind and its solution is the reference the grader would use).

use super::{make, Made};
use crate::spec::{Kind, TaskSpec};

/// The spec of the worked example: five lines, one difference, three parameters.
fn example_spec() -> TaskSpec {
    TaskSpec { kind: Kind::MergeCodebases, n: 5, d: 1, params: 3, min_block: 2, seed: 3, ..TaskSpec::default() }
}

/// The sentence after the worked example: which line differs, and how each class writes it.
fn note(made: &Made) -> String {
    let p = &made.program;
    let Some(d) = p.diffs().next() else { return String::new() };
    let name = |class: usize| made.classes[class].names[d.target].clone();
    let line = |class: usize| {
        let l = if class == 0 { &d.canon } else { &d.pert };
        super::render::expr(&l.terms, &made.classes[class].names)
    };
    format!(
        "The two classes really differ in one line only: `{a} = {la}` in `CalculateA`, `{b} = {lb}` in `CalculateB` \
         ({how}). Every other line computes the same values in both classes, although it is written differently, \
         so it moves once into `Calculate.compute()`; the differing line becomes `custom_compute_1`, whose \
         parameters are the variables the two versions read.",
        a = name(0),
        la = line(0),
        b = name(1),
        lb = line(1),
        how = d.how.describe(),
    )
}

fn build() -> String {
    let made = make(&example_spec()).expect("the worked example's spec is valid");
    format!(
        "Refactor `solution.py`: merge two calculators with the template method pattern.\n\n\
         `solution.py` defines an abstract class `Calculate` and two subclasses, `CalculateA` and `CalculateB`, each with \
         its own `compute()`. The two methods look very different: their variables have other names, lines are split, \
         merged or in another order, and sums are written in other ways. Yet they compute the same values, except at a \
         few lines where the two classes really differ.\n\n\
         - Write one concrete `Calculate.compute()` that does all the work the two classes share.\n\
         - Where the classes really differ, `Calculate.compute()` calls `self.custom_compute_1(...)`, then \
         `self.custom_compute_2(...)` at the next difference, and so on: one method per difference, in the order they \
         run, each called exactly once.\n\
         - `CalculateA` and `CalculateB` keep no `compute()` of their own. Each defines `custom_compute_1`, \
         `custom_compute_2`, …, and each of those methods is a single `return` of what that class computes there: keep \
         only the differing line in the subclasses, and everything else in `Calculate.compute()`.\n\
         - For any integer arguments, `CalculateA().compute(...)` and `CalculateB().compute(...)` must return exactly \
         what they return now.\n\n\
         A worked example. This code:\n<example>\n{before}</example>\n\nbecomes:\n<output>\n{after}</output>\n\n{note}\n\n\
         Rules for every answer:\n\
         - Keep the names `Calculate`, `CalculateA`, `CalculateB` and `compute`, and keep `CalculateA` and `CalculateB` \
         subclasses of `Calculate`.\n\
         - Add no imports, no other classes and no module-level functions or variables; helper methods inside the three \
         classes are fine.\n\
         - Leave the `if __name__ == '__main__':` block unchanged.",
        before = made.starter.text,
        after = made.solution,
        note = note(&made),
    )
}

/// The statement (the same for every merge task: it does not say how many differences there are).
pub fn statement() -> String {
    static CACHE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CACHE.get_or_init(build).clone()
}
