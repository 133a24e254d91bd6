//! Validation of a generated merge task (grading.md §6.7), on the program as rendered: the structure
//! of both classes, every rewritten block against its canonical block, and both classes of the
//! starter against the solution. A failed check rejects the draw; the generator then draws again.

use super::build::Reject;
use super::ir::{Envs, Line, Program, Segment, Val, Var};
use super::render::CLASSES;
use super::rewrite::{item_lines, ClassCode};
use crate::graph::sample::between;
use crate::rng::stream;

/// Random inputs per block, and random argument vectors for the whole classes.
pub const TRIALS: usize = 50;

fn class_lines<'a>(p: &'a Program, c: &'a ClassCode, class: usize) -> Vec<&'a Line> {
    (0..p.items.len()).flat_map(|i| item_lines(p, c, i, class)).collect()
}

/// Every line of a class's `compute()` after the first reads a non-parameter, and every variable it
/// assigns is read later or returned.
pub fn structure(p: &Program, c: &ClassCode, class: usize) -> Result<(), Reject> {
    let lines = class_lines(p, c, class);
    for (i, l) in lines.iter().enumerate().skip(1) {
        if l.reads().all(|v| p.is_param(v)) {
            return Err(Reject(format!("{}: line {} reads only parameters", CLASSES[class], i + 1)));
        }
    }
    let mut used = vec![false; c.names.len()];
    for &v in &p.leaves {
        used[v] = true;
    }
    for l in lines.iter().rev() {
        if !used[l.target] {
            return Err(Reject(format!("{}: `{}` is never read", CLASSES[class], c.names[l.target])));
        }
        for v in l.reads() {
            used[v] = true;
        }
    }
    Ok(())
}

/// Every block of both classes gives the canonical block's live-outs on random inputs. The trials
/// run side by side ([`Envs`]); their inputs are drawn in the order one-by-one trials draw them, and
/// the first failure is the one they would meet first (trial, then class, then live-out).
pub fn synonyms(p: &Program, classes: &[ClassCode; 2], key: &str) -> Result<(), Reject> {
    let mut rng = stream(key, "merge/synonyms");
    let mut canonical = Envs::zeros(p.names.len(), TRIALS);
    let mut runs = classes.each_ref().map(|c| Envs::zeros(c.names.len(), TRIALS));
    for (index, item) in p.items.iter().enumerate() {
        let Segment::Block(b) = item else { continue };
        // Fresh environments for each block: zero but for the inputs.
        canonical.clear();
        for e in &mut runs {
            e.clear();
        }
        for k in 0..TRIALS {
            for &v in &b.inputs {
                let x = Val::from_i64(between(&mut rng, -5, 5));
                canonical.set(v, k, x);
                for e in &mut runs {
                    e.set(v, k, x);
                }
            }
        }
        canonical.run(&b.lines);
        for (e, c) in runs.iter_mut().zip(classes) {
            e.run(&c.items[index]);
        }
        for k in 0..TRIALS {
            for (ci, e) in runs.iter().enumerate() {
                if let Some(&v) = b.live_out.iter().find(|&&v| e.get(v, k) != canonical.get(v, k)) {
                    return Err(another_value(p, ci, index, v));
                }
            }
        }
    }
    Ok(())
}

/// The rejection of a class whose block (the item at `index`) gives another value for `v`.
fn another_value(p: &Program, class: usize, index: usize, v: Var) -> Reject {
    Reject(format!("{}: block {} gives another value for `{}`", CLASSES[class], index / 2 + 1, p.names[v]))
}

/// The argument vectors of [`behaviour`]: `(1, …, params)`, then [`TRIALS`] random ones.
fn vectors(p: &Program, key: &str) -> Vec<Vec<Val>> {
    let mut rng = stream(key, "merge/verify");
    let mut vectors: Vec<Vec<Val>> = vec![(1..=p.params as i64).map(Val::from_i64).collect()];
    for _ in 0..TRIALS {
        vectors.push((0..p.params).map(|_| Val::from_i64(between(&mut rng, -5, 5))).collect());
    }
    vectors
}

/// Environments of `vars` variables holding the argument vectors, one per environment.
fn with_args(vars: usize, vectors: &[Vec<Val>]) -> Envs {
    let mut e = Envs::zeros(vars, vectors.len());
    for (k, v) in vectors.iter().enumerate() {
        for (j, &x) in v.iter().enumerate() {
            e.set(j, k, x);
        }
    }
    e
}

/// What `compute()` returns in each environment: its leaves' sum.
fn returned(p: &Program, e: &Envs) -> Vec<Val> {
    (0..e.width()).map(|k| p.leaves.iter().fold(Val::ZERO, |acc, &v| acc + e.get(v, k))).collect()
}

/// The values a class's `compute()` returns in the starter, on each argument vector.
fn starter_values(p: &Program, c: &ClassCode, class: usize, vectors: &[Vec<Val>]) -> Vec<Val> {
    let mut e = with_args(c.names.len(), vectors);
    e.run(class_lines(p, c, class));
    returned(p, &e)
}

/// The values a class's `compute()` returns in the solution, on each argument vector.
fn solution_values(p: &Program, class: usize, vectors: &[Vec<Val>]) -> Vec<Val> {
    let mut e = with_args(p.names.len(), vectors);
    for item in &p.items {
        match item {
            Segment::Block(b) => e.run(&b.lines),
            Segment::Diff(d) => e.assign(if class == 0 { &d.canon } else { &d.pert }, d.target),
        }
    }
    returned(p, &e)
}

/// Both classes of the starter equal the solution's on (1, …, params) and random vectors, and the
/// two classes differ on at least one of them.
pub fn behaviour(p: &Program, classes: &[ClassCode; 2], key: &str) -> Result<(), Reject> {
    let vectors = vectors(p, key);
    let starter = [0, 1].map(|ci| starter_values(p, &classes[ci], ci, &vectors));
    let solution = [0, 1].map(|ci| solution_values(p, ci, &vectors));
    let mut differ = false;
    for k in 0..vectors.len() {
        for ci in 0..2 {
            if starter[ci][k] != solution[ci][k] {
                return Err(Reject(format!("{}: the starter and the solution disagree", CLASSES[ci])));
            }
        }
        differ |= starter[0][k] != starter[1][k];
    }
    if differ {
        Ok(())
    } else {
        Err(Reject("the two classes never differ".into()))
    }
}

/// Every check, in the reference's order.
pub fn validate(p: &Program, classes: &[ClassCode; 2], key: &str) -> Result<(), Reject> {
    for (ci, c) in classes.iter().enumerate() {
        structure(p, c, ci)?;
    }
    synonyms(p, classes, key)?;
    behaviour(p, classes, key)
}

#[cfg(test)]
mod tests {
    use super::super::build::{build, Shape};
    use super::super::ir::{line_value, run_lines};
    use super::super::rewrite::class_code;
    use super::super::{Perturbations, Transformations};
    use super::*;

    // The checks one trial at a time, as they were written first: what the side-by-side runs must
    // agree with, verdict and message.

    fn one_by_one_synonyms(p: &Program, classes: &[ClassCode; 2], key: &str) -> Result<(), Reject> {
        let mut rng = stream(key, "merge/synonyms");
        for (index, item) in p.items.iter().enumerate() {
            let Segment::Block(b) = item else { continue };
            for _ in 0..TRIALS {
                let inputs: Vec<(Var, Val)> =
                    b.inputs.iter().map(|&v| (v, Val::from_i64(between(&mut rng, -5, 5)))).collect();
                let env_with = |size: usize| {
                    let mut env = vec![Val::ZERO; size];
                    for &(v, x) in &inputs {
                        env[v] = x;
                    }
                    env
                };
                let mut canonical = env_with(p.names.len());
                run_lines(&b.lines, &mut canonical);
                for (ci, c) in classes.iter().enumerate() {
                    let mut env = env_with(c.names.len());
                    run_lines(&c.items[index], &mut env);
                    if let Some(&v) = b.live_out.iter().find(|&&v| env[v] != canonical[v]) {
                        return Err(another_value(p, ci, index, v));
                    }
                }
            }
        }
        Ok(())
    }

    fn one_by_one_behaviour(p: &Program, classes: &[ClassCode; 2], key: &str) -> Result<(), Reject> {
        let starter = |c: &ClassCode, class: usize, args: &[Val]| {
            let mut env = vec![Val::ZERO; c.names.len()];
            env[..args.len()].copy_from_slice(args);
            run_lines(class_lines(p, c, class), &mut env);
            p.leaves.iter().fold(Val::ZERO, |acc, &v| acc + env[v])
        };
        let solution = |class: usize, args: &[Val]| {
            let mut env = vec![Val::ZERO; p.names.len()];
            env[..args.len()].copy_from_slice(args);
            for item in &p.items {
                match item {
                    Segment::Block(b) => run_lines(&b.lines, &mut env),
                    Segment::Diff(d) => {
                        let l = if class == 0 { &d.canon } else { &d.pert };
                        env[d.target] = line_value(l, &env);
                    }
                }
            }
            p.leaves.iter().fold(Val::ZERO, |acc, &v| acc + env[v])
        };
        let mut differ = false;
        for v in &vectors(p, key) {
            let mut got = [Val::ZERO; 2];
            for (ci, c) in classes.iter().enumerate() {
                got[ci] = starter(c, ci, v);
                if got[ci] != solution(ci, v) {
                    return Err(Reject(format!("{}: the starter and the solution disagree", CLASSES[ci])));
                }
            }
            differ |= got[0] != got[1];
        }
        if differ {
            Ok(())
        } else {
            Err(Reject("the two classes never differ".into()))
        }
    }

    /// Over many programs, as drawn and damaged (a class line's coefficient or a difference made
    /// to change nothing), the side-by-side checks give what the one-by-one checks give.
    #[test]
    fn side_by_side_checks_match_one_by_one() {
        let (mut failures, mut checked) = (0, 0);
        for seed in 0..60u64 {
            let shape = Shape {
                lines: [5, 12, 40, 150][seed as usize % 4],
                diffs: 1 + seed as usize % 3,
                params: 2 + seed as usize % 5,
                min_block: 2,
                perturbations: Perturbations::all(),
            };
            let key = format!("side-by-side {seed}");
            let Ok(p) = build(&mut stream(&key, "program"), &shape) else { continue };
            let classes =
                [0, 1].map(|i| class_code(&p, &mut stream(&key, &format!("class/{i}")), Transformations::all()));
            let mut cases = vec![(p.clone(), classes.clone())];
            // A class line that computes something else.
            let mut bent = classes.clone();
            if let Some(l) = bent[seed as usize % 2].items.iter_mut().flatten().nth(seed as usize % 3) {
                l.terms[0].coeff += 1;
                cases.push((p.clone(), bent));
            }
            // Differences that change nothing (then the classes never differ).
            let mut same = p.clone();
            for item in &mut same.items {
                if let Segment::Diff(d) = item {
                    d.pert = d.canon.clone();
                }
            }
            cases.push((same, classes.clone()));
            for (p, classes) in &cases {
                let fast = (synonyms(p, classes, &key), behaviour(p, classes, &key));
                let slow = (one_by_one_synonyms(p, classes, &key), one_by_one_behaviour(p, classes, &key));
                assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "seed {seed}");
                failures += usize::from(fast.0.is_err()) + usize::from(fast.1.is_err());
                checked += 1;
            }
        }
        // The damaged cases do fail, so the comparison covers the messages too.
        assert!(checked > 100 && failures > 40, "{checked} cases, {failures} failures");
    }
}
