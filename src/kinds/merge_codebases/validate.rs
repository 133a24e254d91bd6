//! Validation of a generated merge task (grading.md §6.7), on the program as rendered: the structure
//! of both classes, every rewritten block against its canonical block, and both classes of the
//! starter against the solution. A failed check rejects the draw; the generator then draws again.

use super::build::Reject;
use super::ir::{line_value, run_lines, Item, Line, Program, Val, Var};
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

/// Every block of both classes gives the canonical block's live-outs on random inputs.
pub fn synonyms(p: &Program, classes: &[ClassCode; 2], key: &str) -> Result<(), Reject> {
    let mut rng = stream(key, "merge/synonyms");
    for (index, item) in p.items.iter().enumerate() {
        let Item::Block(b) = item else { continue };
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
                    return Err(Reject(format!(
                        "{}: block {} gives another value for `{}`",
                        CLASSES[ci],
                        index / 2 + 1,
                        p.names[v]
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The value a class's `compute()` returns in the starter, on one argument vector.
pub fn starter_value(p: &Program, c: &ClassCode, class: usize, args: &[Val]) -> Val {
    let mut env = vec![Val::ZERO; c.names.len()];
    env[..args.len()].copy_from_slice(args);
    run_lines(class_lines(p, c, class), &mut env);
    p.leaves.iter().fold(Val::ZERO, |acc, &v| acc + env[v])
}

/// The value a class's `compute()` returns in the solution, on one argument vector.
pub fn solution_value(p: &Program, class: usize, args: &[Val]) -> Val {
    let mut env = vec![Val::ZERO; p.names.len()];
    env[..args.len()].copy_from_slice(args);
    for item in &p.items {
        match item {
            Item::Block(b) => run_lines(&b.lines, &mut env),
            Item::Diff(d) => {
                let l = if class == 0 { &d.canon } else { &d.pert };
                env[d.target] = line_value(l, &env);
            }
        }
    }
    p.leaves.iter().fold(Val::ZERO, |acc, &v| acc + env[v])
}

/// Both classes of the starter equal the solution's on (1, …, params) and random vectors, and the
/// two classes differ on at least one of them.
pub fn behaviour(p: &Program, classes: &[ClassCode; 2], key: &str) -> Result<(), Reject> {
    let mut rng = stream(key, "merge/verify");
    let mut vectors: Vec<Vec<Val>> = vec![(1..=p.params as i64).map(Val::from_i64).collect()];
    for _ in 0..TRIALS {
        vectors.push((0..p.params).map(|_| Val::from_i64(between(&mut rng, -5, 5))).collect());
    }
    let mut differ = false;
    for v in &vectors {
        let mut got = [Val::ZERO; 2];
        for (ci, c) in classes.iter().enumerate() {
            got[ci] = starter_value(p, c, ci, v);
            if got[ci] != solution_value(p, ci, v) {
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

/// Every check, in the reference's order.
pub fn validate(p: &Program, classes: &[ClassCode; 2], key: &str) -> Result<(), Reject> {
    for (ci, c) in classes.iter().enumerate() {
        structure(p, c, ci)?;
    }
    synonyms(p, classes, key)?;
    behaviour(p, classes, key)
}
