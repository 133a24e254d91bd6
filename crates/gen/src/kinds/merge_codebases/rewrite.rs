//! The five meaning-preserving rewrites (grading.md §6.4) and each class's names (§6.5).
//!
//! Each class has its own random stream and its own pool of fresh symbolic names. Its renaming of
//! the parameters and canonical targets is drawn first; then, block by block in program order, the
//! allowed rewrites run in the fixed order multi_lines, reorder, logical_equiv, shuffle_lines (the
//! renaming, the fifth, only decides whether the renamed names are shown). A difference line is
//! never rewritten, only renamed.

use super::ir::{Line, Program, Segment, Term, Var};
use super::Transformations;
use crate::graph::names::symbolic_pool;
use crate::graph::sample::{below, sample, shuffle};
use crate::rng::Rng;
use rand::RngExt;
use std::collections::{BTreeMap, BTreeSet};

/// The rewrites, by index in [`Transformations::ITEMS`].
pub const RENAME: usize = 0;
pub const SHUFFLE_LINES: usize = 1;
pub const MULTI_LINES: usize = 2;
pub const REORDER: usize = 3;
pub const LOGICAL_EQUIV: usize = 4;

/// A consumer may hold at most this many terms after a line is folded into it.
const MAX_TERMS: usize = 16;
/// Coefficients stay below this (folding and collapsing that would pass it are skipped).
const MAX_COEFF: u64 = 1 << 40;
/// Decompositions per block: between 1 and this many (so 3 fresh temporaries at most).
const MAX_SPLITS: usize = 3;

/// One class's code: its name table (canonical variables, then its temporaries) and, per item
/// of the program, the lines it writes there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassCode {
    pub names: Vec<String>,
    pub items: Vec<Vec<Line>>,
}

/// A class's random state and name source.
struct Namer {
    pool: Vec<String>,
    next: usize,
    reserved: BTreeSet<String>,
}

impl Namer {
    fn fresh(&mut self) -> String {
        loop {
            if self.next >= self.pool.len() {
                // Never reached with the sizes below; grow rather than fail.
                let more = symbolic_pool(self.pool.len() * 2 + 16);
                let have: BTreeSet<String> = self.pool.iter().cloned().collect();
                self.pool.extend(more.into_iter().filter(|n| !have.contains(n)));
            }
            let name = self.pool[self.next].clone();
            self.next += 1;
            if !self.reserved.contains(&name) && name != "self" {
                return name;
            }
        }
    }
}

/// Rewrite every block of a program for one class with its stream.
pub fn class_code(p: &Program, rng: &mut Rng, allowed: Transformations) -> ClassCode {
    let blocks = p.blocks().count();
    let reserved: BTreeSet<String> = p.names.iter().cloned().collect();
    let size = p.names.len() + MAX_SPLITS * blocks + reserved.len();
    let mut pool = symbolic_pool(size);
    shuffle(rng, &mut pool);
    let mut namer = Namer { pool, next: 0, reserved };
    // The renaming is drawn first, whether or not it is shown.
    let renamed: Vec<String> = (0..p.names.len()).map(|_| namer.fresh()).collect();
    let mut names = if allowed.has(RENAME) { renamed } else { p.names.clone() };
    let mut items = Vec::with_capacity(p.items.len());
    for item in &p.items {
        items.push(match item {
            Segment::Block(b) => rewrite_block(p, &b.lines, &b.live_out, rng, &mut namer, &mut names, allowed),
            Segment::Diff(_) => vec![],
        });
    }
    ClassCode { names, items }
}

/// The lines of a class for one item: its rewritten block, or its side of a difference.
pub fn item_lines<'a>(p: &'a Program, c: &'a ClassCode, index: usize, class: usize) -> Vec<&'a Line> {
    match &p.items[index] {
        Segment::Block(_) => c.items[index].iter().collect(),
        Segment::Diff(d) => vec![if class == 0 { &d.canon } else { &d.pert }],
    }
}

fn is_param(p: &Program, v: Var) -> bool {
    p.is_param(v)
}

fn reads_non_param(p: &Program, terms: &[Term]) -> bool {
    terms.iter().any(|t| t.factors.iter().any(|&f| !is_param(p, f)))
}

fn coin(rng: &mut Rng) -> bool {
    rng.random::<bool>()
}

fn rewrite_block(
    p: &Program,
    lines: &[Line],
    live_out: &[Var],
    rng: &mut Rng,
    namer: &mut Namer,
    names: &mut Vec<String>,
    allowed: Transformations,
) -> Vec<Line> {
    let mut lines = lines.to_vec();
    if allowed.has(MULTI_LINES) {
        let rounds = 1 + below(rng, lines.len());
        let mut reads = count_reads(&lines);
        for _ in 0..rounds {
            if !fold_one(p, &mut lines, &mut reads, live_out, rng) {
                break;
            }
            debug_assert!(same_reads(&reads, &count_reads(&lines)), "fold_one kept its read counts");
        }
        for _ in 0..1 + below(rng, MAX_SPLITS) {
            split_one(p, &mut lines, rng, namer, names);
        }
    }
    if allowed.has(REORDER) {
        for l in &mut lines {
            shuffle(rng, &mut l.terms);
            for t in &mut l.terms {
                if t.factors.len() == 2 && coin(rng) {
                    t.factors.swap(0, 1);
                }
            }
        }
    }
    if allowed.has(LOGICAL_EQUIV) {
        for _ in 0..1 + below(rng, 3) {
            if coin(rng) {
                expand(&mut lines, rng);
            } else {
                collapse(&mut lines, rng);
            }
        }
    }
    if allowed.has(SHUFFLE_LINES) {
        lines = shuffle_lines(p, lines, rng);
    }
    lines
}

/// How often a variable is read in a block: never, once (line, term), or more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reads {
    Never,
    Once(usize, usize),
    More,
}

/// Each variable's reads in the block's lines. A line never reads its own target, so the reads of a
/// line's target are all in other lines.
fn count_reads(lines: &[Line]) -> Vec<Reads> {
    let mut reads: Vec<Reads> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        for (j, t) in l.terms.iter().enumerate() {
            for &f in &t.factors {
                if reads.len() <= f {
                    reads.resize(f + 1, Reads::Never);
                }
                reads[f] = match reads[f] {
                    Reads::Never => Reads::Once(i, j),
                    _ => Reads::More,
                };
            }
        }
    }
    reads
}

/// Two read counts alike (a variable past the end of one is read never).
fn same_reads(a: &[Reads], b: &[Reads]) -> bool {
    (0..a.len().max(b.len()))
        .all(|v| a.get(v).copied().unwrap_or(Reads::Never) == b.get(v).copied().unwrap_or(Reads::Never))
}

/// Fold one single-use line into its consumer (the first eligible line in a shuffled order): the
/// line is not live-out, reads a non-parameter, and its target appears once, in one term of one
/// later line of the block, whose terms then take the folded line's terms. `reads` are the block's
/// read counts ([`count_reads`]), kept up to date here: a block of 500 lines may take 500 folds.
fn fold_one(p: &Program, lines: &mut Vec<Line>, reads: &mut [Reads], live_out: &[Var], rng: &mut Rng) -> bool {
    let mut order: Vec<usize> = (0..lines.len()).collect();
    shuffle(rng, &mut order);
    for src in order {
        let name = lines[src].target;
        let Some(&Reads::Once(consumer, term)) = reads.get(name) else { continue };
        if live_out.contains(&name) || !reads_non_param(p, &lines[src].terms) {
            continue;
        }
        if consumer < src || lines[consumer].terms.len() - 1 + lines[src].terms.len() > MAX_TERMS {
            continue;
        }
        let outer = lines[consumer].terms[term].clone();
        let mut rest = outer.factors.clone();
        if let Some(i) = rest.iter().position(|&f| f == name) {
            rest.remove(i);
        }
        let spliced: Option<Vec<Term>> = lines[src]
            .terms
            .iter()
            .map(|t| {
                let coeff = outer.coeff.checked_mul(t.coeff).filter(|&c| c < MAX_COEFF)?;
                let mut factors = rest.clone();
                factors.extend(&t.factors);
                Some(Term { factors, coeff, neg: outer.neg != t.neg })
            })
            .collect();
        let Some(spliced) = spliced else { continue };
        // The counts after the fold. Line `src` goes, so the lines after it move up one, and the
        // consumer's terms after `term` move by the spliced terms less the one they replace. (`src`
        // reads a non-parameter, so it has a term: `spliced` is not empty.)
        let k = spliced.len();
        for r in reads.iter_mut() {
            if let Reads::Once(l, j) = r {
                if *l > src {
                    if *l == consumer && *j > term {
                        *j += k - 1;
                    }
                    *l -= 1;
                }
            }
        }
        // The folded target is read nowhere now.
        reads[name] = Reads::Never;
        // A variable `src` read once is read once in the consumer's new terms.
        for (j, t) in lines[src].terms.iter().enumerate() {
            for &f in &t.factors {
                if reads[f] == Reads::Once(src, j) {
                    reads[f] = Reads::Once(consumer - 1, term + j);
                }
            }
        }
        // The consumer term's other factors are in every spliced term.
        if k > 1 {
            for &g in &rest {
                reads[g] = Reads::More;
            }
        }
        lines[consumer].terms.splice(term..=term, spliced);
        lines.remove(src);
        return true;
    }
    false
}

/// Move a few terms of a long line into a new temporary line just before it.
fn split_one(p: &Program, lines: &mut Vec<Line>, rng: &mut Rng, namer: &mut Namer, names: &mut Vec<String>) {
    let candidates: Vec<usize> =
        (0..lines.len()).filter(|&i| lines[i].terms.len() >= 3 && reads_non_param(p, &lines[i].terms)).collect();
    if candidates.is_empty() {
        return;
    }
    let index = candidates[below(rng, candidates.len())];
    let len = lines[index].terms.len();
    let mut picked = None;
    for _ in 0..8 {
        let count = 2 + below(rng, len - 2);
        let mut choice = sample(rng, &(0..len).collect::<Vec<_>>(), count);
        choice.sort_unstable();
        let chosen: Vec<Term> = choice.iter().map(|&j| lines[index].terms[j].clone()).collect();
        if reads_non_param(p, &chosen) {
            picked = Some(choice);
            break;
        }
    }
    let Some(picked) = picked else { return };
    let line = &lines[index];
    let extracted: Vec<Term> = picked.iter().map(|&j| line.terms[j].clone()).collect();
    let mut remaining: Vec<Term> = (0..len).filter(|j| !picked.contains(j)).map(|j| line.terms[j].clone()).collect();
    names.push(namer.fresh());
    let temp = names.len() - 1;
    remaining.push(Term { factors: vec![temp], coeff: 1, neg: false });
    let target = line.target;
    lines[index] = Line { target, terms: remaining };
    lines.insert(index, Line { target: temp, terms: extracted });
}

/// A coefficient split into a few positive parts in random order: 2 → 1 + 1, 3 → 2 + 1, larger
/// ones at two or three random cut points.
fn split_coeff(c: u64, rng: &mut Rng) -> Vec<u64> {
    let mut parts = match c {
        0 | 1 => return vec![c],
        2 | 3 => vec![c - 1, 1],
        _ => {
            let n = 2 + below(rng, (c.min(3) - 1) as usize);
            let mut cuts: Vec<u64> = Vec::new();
            while cuts.len() < n - 1 {
                let x = 1 + rng.random_range(0..c - 1);
                if !cuts.contains(&x) {
                    cuts.push(x);
                }
            }
            cuts.sort_unstable();
            let mut out = Vec::new();
            let mut prev = 0;
            for x in cuts.into_iter().chain([c]) {
                out.push(x - prev);
                prev = x;
            }
            out
        }
    };
    shuffle(rng, &mut parts);
    parts
}

/// `k * x` written as several terms whose coefficients add up to `k` (one term anywhere in the block).
fn expand(lines: &mut [Line], rng: &mut Rng) {
    let candidates: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.terms.iter().enumerate().filter(|(_, t)| t.coeff > 1).map(move |(j, _)| (i, j)))
        .collect();
    if candidates.is_empty() {
        return;
    }
    let (i, j) = candidates[below(rng, candidates.len())];
    let t = lines[i].terms[j].clone();
    let copies: Vec<Term> = split_coeff(t.coeff, rng)
        .into_iter()
        .map(|c| Term { factors: t.factors.clone(), coeff: c, neg: t.neg })
        .collect();
    lines[i].terms.splice(j..=j, copies);
}

/// Like terms of one line (the same factors in any order, the same sign) added up into one.
fn collapse(lines: &mut [Line], rng: &mut Rng) {
    if lines.is_empty() {
        return;
    }
    let i = below(rng, lines.len());
    let line = &mut lines[i];
    // (sorted factors, sign) → the terms with them, in first-appearance order.
    type Group = ((Vec<Var>, bool), Vec<usize>);
    let mut groups: Vec<Group> = Vec::new();
    for (j, t) in line.terms.iter().enumerate() {
        let mut f = t.factors.clone();
        f.sort_unstable();
        let key = (f, t.neg);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(j),
            None => groups.push((key, vec![j])),
        }
    }
    let mergeable: Vec<&Vec<usize>> = groups.iter().map(|(_, m)| m).filter(|m| m.len() >= 2).collect();
    if mergeable.is_empty() {
        return;
    }
    let members = mergeable[below(rng, mergeable.len())].clone();
    let total =
        members.iter().try_fold(0u64, |acc, &j| acc.checked_add(line.terms[j].coeff)).filter(|&c| c < MAX_COEFF);
    let Some(total) = total else { return };
    let keep = members[0];
    line.terms[keep].coeff = total;
    let mut j = 0;
    line.terms.retain(|_| {
        let drop = members.contains(&j) && j != keep;
        j += 1;
        !drop
    });
}

/// A random order that keeps every line after the lines of the block it reads, then the lines
/// that read only parameters moved to the front (keeping their order).
fn shuffle_lines(p: &Program, lines: Vec<Line>, rng: &mut Rng) -> Vec<Line> {
    let n = lines.len();
    let index: BTreeMap<Var, usize> = lines.iter().enumerate().map(|(i, l)| (l.target, i)).collect();
    // Each line's distinct block dependencies, and who waits on each line.
    let mut waiting = vec![0usize; n];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, l) in lines.iter().enumerate() {
        let mut deps: Vec<usize> = l.reads().filter_map(|v| index.get(&v).copied()).filter(|&j| j != i).collect();
        deps.sort_unstable();
        deps.dedup();
        waiting[i] = deps.len();
        for j in deps {
            users[j].push(i);
        }
    }
    // A uniform pick among the ready lines (kept in index order) at every step.
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let pick = ready.remove(below(rng, ready.len()));
        order.push(pick);
        for &u in &users[pick] {
            waiting[u] -= 1;
            if waiting[u] == 0 {
                let at = ready.partition_point(|&x| x < u);
                ready.insert(at, u);
            }
        }
    }
    // A cycle cannot happen (targets are defined once, before use); keep any rest in order.
    let placed: BTreeSet<usize> = order.iter().copied().collect();
    order.extend((0..n).filter(|i| !placed.contains(i)));
    let mut lines: Vec<Option<Line>> = lines.into_iter().map(Some).collect();
    let shuffled: Vec<Line> = order.into_iter().filter_map(|i| lines[i].take()).collect();
    let (front, back): (Vec<Line>, Vec<Line>) = shuffled.into_iter().partition(|l| l.reads().all(|v| is_param(p, v)));
    front.into_iter().chain(back).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn coefficient_splits_add_up() {
        let mut rng = stream("split", "coeff");
        for c in 1..200u64 {
            let parts = split_coeff(c, &mut rng);
            assert_eq!(parts.iter().sum::<u64>(), c);
            assert!(parts.iter().all(|&x| x >= 1));
            assert!(parts.len() <= 3);
        }
    }
}
