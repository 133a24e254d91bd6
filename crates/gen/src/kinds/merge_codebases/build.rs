//! The canonical program (grading.md §6.2) and its differences (§6.3).
//!
//! `n` block lines are split into `d + 1` blocks of at least `min_block` lines; a difference follows
//! every block but the last. Each line is a sum of two or three terms, each a signed coefficient
//! times one or two variables drawn from the parameters and the earlier targets. Every line after
//! the first reads an earlier target (the first line of a block after a difference reads that
//! difference), and a difference is a canonical line plus one perturbation that changes its value.

use super::ir::{Block, Diff, Line, Perturbation, Program, Segment, Term, Val, Var};
use super::Perturbations;
use crate::graph::sample::below;
use crate::rng::Rng;

/// The signed coefficients of canonical terms.
pub const SIGNED_COEFFS: [i64; 10] = [-5, -4, -3, -2, -1, 1, 2, 3, 4, 5];

/// Perturbations tried for one difference before the program is given up (and resampled).
const PERTURB_TRIES: usize = 64;

/// What the program is built from.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Block lines (`n`).
    pub lines: usize,
    /// Differences (`d`).
    pub diffs: usize,
    pub params: usize,
    pub min_block: usize,
    pub perturbations: Perturbations,
}

/// Why a draw was rejected (the generator then draws again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reject(pub String);

/// The parameter names: `a`, `b`, … when there are at most 26, else `p0`, `p1`, ….
pub fn param_names(n: usize) -> Vec<String> {
    if n <= 26 {
        (0..n).map(|i| ((b'a' + i as u8) as char).to_string()).collect()
    } else {
        (0..n).map(|i| format!("p{i}")).collect()
    }
}

/// Block sizes: `min_block` each, then every remaining line to a uniformly drawn block.
fn partition(rng: &mut Rng, total: usize, parts: usize, minimum: usize) -> Vec<usize> {
    let mut sizes = vec![minimum; parts];
    for _ in 0..total.saturating_sub(parts * minimum) {
        sizes[below(rng, parts)] += 1;
    }
    sizes
}

/// The variables a canonical line may read: the parameters `0..params`, then the targets defined
/// before it (indexed as one list, without making it: a program of `n` lines would copy it `n` times).
#[derive(Clone, Copy)]
struct Pool<'a> {
    params: usize,
    earlier: &'a [Var],
}

impl Pool<'_> {
    fn len(self) -> usize {
        self.params + self.earlier.len()
    }

    /// A uniform draw from the list.
    fn draw(self, rng: &mut Rng) -> Var {
        let i = below(rng, self.len());
        if i < self.params {
            i
        } else {
            self.earlier[i - self.params]
        }
    }
}

fn draw_term(rng: &mut Rng, pool: Pool) -> Term {
    let two = below(rng, 3) == 2;
    let mut factors = vec![pool.draw(rng)];
    if two {
        factors.push(pool.draw(rng));
    }
    let c = SIGNED_COEFFS[below(rng, SIGNED_COEFFS.len())];
    Term { factors, coeff: c.unsigned_abs(), neg: c < 0 }
}

/// One canonical line. `earlier` are the targets defined before it; `forced` a variable the line
/// must read (the difference just before the block).
fn draw_line(rng: &mut Rng, target: Var, params: usize, earlier: &[Var], forced: Option<Var>) -> Line {
    let pool = Pool { params, earlier };
    let count = 2 + below(rng, 2);
    let mut terms: Vec<Term> = (0..count).map(|_| draw_term(rng, pool)).collect();
    match forced {
        Some(f) => {
            if !terms.iter().any(|t| t.factors.contains(&f)) {
                terms[0].factors[0] = f;
            }
        }
        None => {
            // Every factor is from the pool, where the earlier targets are the variables past the parameters.
            let reads_earlier = terms.iter().any(|t| t.factors.iter().any(|&x| x >= params));
            if !earlier.is_empty() && !reads_earlier {
                let t = below(rng, terms.len());
                let i = below(rng, terms[t].factors.len());
                terms[t].factors[i] = earlier[below(rng, earlier.len())];
            }
        }
    }
    Line { target, terms }
}

/// A copy of `canon` with one perturbation of one term (grading.md §6.3, with D8: `change_coeff`
/// draws a different signed coefficient, so the term's value always changes).
pub fn perturb(rng: &mut Rng, canon: &Line, pool: &[Var], allowed: Perturbations) -> (Line, Perturbation) {
    let mut pert = canon.clone();
    let t = below(rng, pert.terms.len());
    let kinds: Vec<Perturbation> = Perturbation::ALL.iter().copied().filter(|p| allowed.has(*p as usize)).collect();
    let how = kinds[below(rng, kinds.len())];
    let term = &mut pert.terms[t];
    match how {
        Perturbation::SwapFactor => {
            let i = below(rng, term.factors.len());
            let alts: Vec<Var> = pool.iter().copied().filter(|&v| v != term.factors[i]).collect();
            if !alts.is_empty() {
                term.factors[i] = alts[below(rng, alts.len())];
            }
        }
        Perturbation::FlipSign => term.neg = !term.neg,
        Perturbation::ChangeCoeff => {
            let current = term.signed();
            let alts: Vec<i64> = SIGNED_COEFFS.iter().copied().filter(|&c| c != current).collect();
            let c = alts[below(rng, alts.len())];
            term.coeff = c.unsigned_abs();
            term.neg = c < 0;
        }
        Perturbation::AddFactor => term.factors.push(pool[below(rng, pool.len())]),
    }
    (pert, how)
}

/// Build a canonical program. Rejected when no perturbation of some difference changes its value
/// while reading an earlier target.
pub fn build(rng: &mut Rng, s: &Shape) -> Result<Program, Reject> {
    let mut names = param_names(s.params);
    let mut env: Vec<Val> = (1..=s.params as i64).map(Val::from_i64).collect();
    let blocks = s.diffs + 1;
    let sizes = partition(rng, s.lines, blocks, s.min_block);
    let mut items: Vec<Segment> = Vec::new();
    let mut earlier: Vec<Var> = Vec::new();
    let mut counter = 1usize;
    let mut pending: Option<Var> = None;
    let new_var = |names: &mut Vec<String>, counter: &mut usize| {
        // `m01`, `m02`, …, `m100`.
        names.push(format!("m{:02}", *counter));
        *counter += 1;
        names.len() - 1
    };
    for (k, &size) in sizes.iter().enumerate() {
        let mut lines = Vec::with_capacity(size);
        for i in 0..size {
            let target = new_var(&mut names, &mut counter);
            let forced = if i == 0 { pending } else { None };
            let line = draw_line(rng, target, s.params, &earlier, forced);
            env.push(super::ir::line_value(&line, &env));
            earlier.push(target);
            lines.push(line);
        }
        pending = None;
        items.push(Segment::Block(Block { lines, inputs: vec![], live_out: vec![] }));
        if k + 1 < blocks {
            let target = new_var(&mut names, &mut counter);
            let canon = draw_line(rng, target, s.params, &earlier, None);
            let base = super::ir::line_value(&canon, &env);
            let pool: Vec<Var> = (0..s.params).chain(earlier.iter().copied()).collect();
            let mut found = None;
            for _ in 0..PERTURB_TRIES {
                let (pert, how) = perturb(rng, &canon, &pool, s.perturbations);
                let reads_earlier = pert.reads().any(|v| v >= s.params);
                if reads_earlier && super::ir::line_value(&pert, &env) != base {
                    found = Some((pert, how));
                    break;
                }
            }
            let Some((pert, how)) = found else {
                return Err(Reject(format!(
                    "no allowed perturbation ({}) changed difference {} after {PERTURB_TRIES} tries",
                    s.perturbations,
                    k + 1
                )));
            };
            env.push(base);
            earlier.push(target);
            items.push(Segment::Diff(Diff { target, canon, pert, how }));
            pending = Some(target);
        }
    }
    let mut program = Program { names, params: s.params, items, leaves: vec![] };
    liveness(&mut program);
    Ok(program)
}

/// Leaves (targets no canonical line reads), and each block's inputs and live-outs.
fn liveness(p: &mut Program) {
    let n = p.names.len();
    let mut read = vec![false; n];
    for item in &p.items {
        let lines: Vec<&Line> = match item {
            Segment::Block(b) => b.lines.iter().collect(),
            Segment::Diff(d) => vec![&d.canon],
        };
        for l in lines {
            for v in l.reads() {
                read[v] = true;
            }
        }
    }
    p.leaves = (p.params..n).filter(|&v| !read[v]).collect();
    let is_leaf: Vec<bool> = (0..n).map(|v| v >= p.params && !read[v]).collect();
    // read_after[v]: v is read by an item after the one defining it (both lines of a difference).
    let mut last_reader_item = vec![None::<usize>; n];
    for (pos, item) in p.items.iter().enumerate() {
        let lines: Vec<&Line> = match item {
            Segment::Block(b) => b.lines.iter().collect(),
            Segment::Diff(d) => vec![&d.canon, &d.pert],
        };
        for l in lines {
            for v in l.reads() {
                last_reader_item[v] = Some(pos);
            }
        }
    }
    for (pos, item) in p.items.iter_mut().enumerate() {
        let Segment::Block(b) = item else { continue };
        let own: Vec<Var> = b.lines.iter().map(|l| l.target).collect();
        // Masks over the variables (a block of 1,000 lines would search these lists millions of times).
        let mut is_own = vec![false; n];
        for &t in &own {
            is_own[t] = true;
        }
        let mut inputs: Vec<Var> = Vec::new();
        let mut is_input = vec![false; n];
        for l in &b.lines {
            for v in l.reads() {
                if !is_own[v] && !is_input[v] {
                    is_input[v] = true;
                    inputs.push(v);
                }
            }
        }
        b.inputs = inputs;
        b.live_out =
            own.iter().copied().filter(|&t| is_leaf[t] || last_reader_item[t].is_some_and(|r| r > pos)).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn shape(lines: usize, diffs: usize) -> Shape {
        Shape { lines, diffs, params: 10, min_block: 2, perturbations: Perturbations::all() }
    }

    #[test]
    fn sizes_and_names() {
        for seed in 0..50 {
            let mut rng = stream(&format!("t{seed}"), "build");
            let Ok(p) = build(&mut rng, &shape(40, 3)) else { continue };
            assert_eq!(p.block_lines(), 40);
            assert_eq!(p.diffs().count(), 3);
            assert_eq!(p.names.len(), 10 + 43);
            assert_eq!(p.names[10], "m01");
            assert_eq!(p.names[52], "m43");
            assert!(p.blocks().all(|b| b.lines.len() >= 2));
            // Blocks and differences alternate, starting and ending with a block.
            for (i, item) in p.items.iter().enumerate() {
                assert_eq!(matches!(item, Segment::Block(_)), i % 2 == 0);
            }
            // Every difference changes its value at the canonical environment, reads an earlier
            // target, and the next block's first line reads it.
            for (i, item) in p.items.iter().enumerate() {
                if let Segment::Diff(d) = item {
                    assert_ne!(d.canon, d.pert);
                    let Segment::Block(next) = &p.items[i + 1] else { panic!() };
                    assert!(next.lines[0].reads().any(|v| v == d.target));
                }
            }
            assert!(!p.leaves.is_empty());
        }
    }

    #[test]
    fn change_coeff_changes_the_signed_coefficient() {
        let canon = Line { target: 3, terms: vec![Term { factors: vec![0], coeff: 2, neg: true }] };
        let only = Perturbations(1 << (Perturbation::ChangeCoeff as u32));
        for seed in 0..200 {
            let mut rng = stream(&format!("c{seed}"), "perturb");
            let (pert, how) = perturb(&mut rng, &canon, &[0, 1, 2], only);
            assert_eq!(how, Perturbation::ChangeCoeff);
            assert_ne!(pert.terms[0].signed(), -2, "seed {seed}");
            assert!(SIGNED_COEFFS.contains(&pert.terms[0].signed()));
        }
    }

    #[test]
    fn params_past_26_are_numbered() {
        assert_eq!(param_names(3), ["a", "b", "c"]);
        assert_eq!(param_names(27)[26], "p26");
    }
}
