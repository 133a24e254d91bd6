//! The merge program's intermediate form (grading.md §6.1) and its evaluation.
//!
//! A variable is an index into a name table: the canonical table holds the parameters, then every
//! target in program order; a class's table extends it with the temporaries its rewrites create.
//! Values are evaluated exactly modulo two primes near 2^61 and 2^64 ([`Val`]): two values that
//! differ there differ as integers, so "this line changes the value" is never wrongly believed, and
//! two different integers agree on both residues only when their difference is a multiple of a
//! 125-bit number. CPython, with its exact integers, has the last word in the tests.

/// A variable: an index into a name table.
pub type Var = usize;

/// `sign · coeff · ∏ factors`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub factors: Vec<Var>,
    /// At least 1.
    pub coeff: u64,
    /// The term is subtracted.
    pub neg: bool,
}

impl Term {
    /// The signed coefficient (coefficients of canonical lines are at most 5).
    pub fn signed(&self) -> i64 {
        let c = i64::try_from(self.coeff).unwrap_or(i64::MAX);
        if self.neg {
            -c
        } else {
            c
        }
    }
}

/// `target = Σ terms`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub target: Var,
    pub terms: Vec<Term>,
}

impl Line {
    /// Every factor of every term, in order (with repeats).
    pub fn reads(&self) -> impl Iterator<Item = Var> + '_ {
        self.terms.iter().flat_map(|t| t.factors.iter().copied())
    }
}

/// The four ways a difference line differs (grading.md §6.3), in the reference's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Perturbation {
    SwapFactor,
    FlipSign,
    ChangeCoeff,
    AddFactor,
}

impl Perturbation {
    pub const ALL: [Perturbation; 4] =
        [Perturbation::SwapFactor, Perturbation::FlipSign, Perturbation::ChangeCoeff, Perturbation::AddFactor];
    /// What the perturbation did, for the app.
    pub fn describe(self) -> &'static str {
        match self {
            Perturbation::SwapFactor => "one factor replaced by another variable",
            Perturbation::FlipSign => "one term's sign flipped",
            Perturbation::ChangeCoeff => "one term's coefficient changed",
            Perturbation::AddFactor => "one term multiplied by one more variable",
        }
    }
}

/// A difference: what class A computes (`canon`) and what class B computes (`pert`) for one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    pub target: Var,
    pub canon: Line,
    pub pert: Line,
    pub how: Perturbation,
}

impl Diff {
    /// The variables the two lines read together, first use first (the canonical line's first):
    /// the parameters of `custom_compute_<i>`.
    pub fn args(&self) -> Vec<Var> {
        let mut out: Vec<Var> = Vec::new();
        for v in self.canon.reads().chain(self.pert.reads()) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }
}

/// A block of lines both classes share (each writes it differently).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub lines: Vec<Line>,
    /// The variables read from outside the block, first use first.
    pub inputs: Vec<Var>,
    /// The block's targets read after it (by later items or the return).
    pub live_out: Vec<Var>,
}

/// One piece of `compute()`, in program order: blocks and differences alternate, starting and
/// ending with a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Block(Block),
    Diff(Diff),
}

/// The canonical program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The canonical name of each variable (`a`, …, then `m01`, `m02`, …).
    pub names: Vec<String>,
    /// The parameters (variables `0..params`).
    pub params: usize,
    pub items: Vec<Item>,
    /// The targets no canonical line reads, in definition order: `compute()` returns their sum.
    pub leaves: Vec<Var>,
}

impl Program {
    /// The differences, in order.
    pub fn diffs(&self) -> impl Iterator<Item = &Diff> {
        self.items.iter().filter_map(|i| match i {
            Item::Diff(d) => Some(d),
            Item::Block(_) => None,
        })
    }
    /// The blocks, in order.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.items.iter().filter_map(|i| match i {
            Item::Block(b) => Some(b),
            Item::Diff(_) => None,
        })
    }
    /// Is this variable a parameter?
    pub fn is_param(&self, v: Var) -> bool {
        v < self.params
    }
    /// Lines of blocks (`n`).
    pub fn block_lines(&self) -> usize {
        self.blocks().map(|b| b.lines.len()).sum()
    }
}

// ------------------------------------------------------------------------------------------------
// Values

const P1: u64 = (1 << 61) - 1;
const P2: u64 = u64::MAX - 58; // 2^64 - 59

/// Residues reduced without division (wasm has no native 128-bit division): modulo 2^61 - 1 by
/// folding the high bits onto the low ones, modulo 2^64 - 59 by 2^64 ≡ 59.
fn reduce1(x: u128) -> u64 {
    let folded = (x & P1 as u128) + (x >> 61);
    let folded = (folded & P1 as u128) + (folded >> 61);
    let r = folded as u64;
    if r >= P1 {
        r - P1
    } else {
        r
    }
}

fn reduce2(x: u128) -> u64 {
    let mut t = (x >> 64) * 59 + (x & u64::MAX as u128);
    t = (t >> 64) * 59 + (t & u64::MAX as u128);
    // Now t < 2^64 + 59 · 59 < 2 · P2, so one subtraction is enough.
    if t >= P2 as u128 {
        t -= P2 as u128;
    }
    t as u64
}

/// An integer known by its residues modulo two primes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Val(u64, u64);

impl Val {
    pub const ZERO: Val = Val(0, 0);

    pub fn from_i64(x: i64) -> Val {
        let v = Val::from_u64(x.unsigned_abs());
        if x < 0 {
            -v
        } else {
            v
        }
    }
    pub fn from_u64(x: u64) -> Val {
        Val(reduce1(x as u128), reduce2(x as u128))
    }
}

impl std::ops::Add for Val {
    type Output = Val;
    fn add(self, o: Val) -> Val {
        Val(reduce1(self.0 as u128 + o.0 as u128), reduce2(self.1 as u128 + o.1 as u128))
    }
}

impl std::ops::Mul for Val {
    type Output = Val;
    fn mul(self, o: Val) -> Val {
        Val(reduce1(self.0 as u128 * o.0 as u128), reduce2(self.1 as u128 * o.1 as u128))
    }
}

impl std::ops::Neg for Val {
    type Output = Val;
    fn neg(self) -> Val {
        Val(if self.0 == 0 { 0 } else { P1 - self.0 }, if self.1 == 0 { 0 } else { P2 - self.1 })
    }
}

/// The value of a term in an environment (one value per variable).
pub fn term_value(t: &Term, env: &[Val]) -> Val {
    let v = t.factors.iter().fold(Val::from_u64(t.coeff), |acc, &f| acc * env[f]);
    if t.neg {
        -v
    } else {
        v
    }
}

/// The value of a line's right-hand side.
pub fn line_value(l: &Line, env: &[Val]) -> Val {
    l.terms.iter().fold(Val::ZERO, |acc, t| acc + term_value(t, env))
}

/// Run lines in order, storing each target's value (the environment grows as needed).
pub fn run_lines<'a>(lines: impl IntoIterator<Item = &'a Line>, env: &mut Vec<Val>) {
    for l in lines {
        let v = line_value(l, env);
        if env.len() <= l.target {
            env.resize(l.target + 1, Val::ZERO);
        }
        env[l.target] = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_match_division() {
        let mut x: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
        for _ in 0..10_000 {
            x = x.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(0x1405_7b7e_f767_814f);
            assert_eq!(reduce1(x) as u128, x % P1 as u128);
            assert_eq!(reduce2(x) as u128, x % P2 as u128);
            let small = x >> 64;
            assert_eq!(reduce1(small) as u128, small % P1 as u128);
            assert_eq!(reduce2(small) as u128, small % P2 as u128);
        }
        for edge in [0u128, 1, P1 as u128, P2 as u128, u64::MAX as u128, u128::MAX, (P1 as u128) * (P1 as u128)] {
            assert_eq!(reduce1(edge) as u128, edge % P1 as u128);
            assert_eq!(reduce2(edge) as u128, edge % P2 as u128);
        }
    }

    #[test]
    fn residues_follow_integer_arithmetic() {
        let a = Val::from_i64(-7);
        let b = Val::from_i64(12);
        assert_eq!(a + b, Val::from_i64(5));
        assert_eq!(a * b, Val::from_i64(-84));
        assert_eq!(-a, Val::from_i64(7));
        assert_eq!(-Val::from_i64(0), Val::ZERO);
        assert_eq!(Val::from_u64(u64::MAX), Val::from_i64(-1) + Val::from_u64(u64::MAX) + Val::from_i64(1));
        // (2^40)^2 = 2^80 wraps around neither modulus the same way as u128 would overflow.
        let big = Val::from_u64(1 << 40);
        assert_ne!(big * big, Val::ZERO);
        assert_eq!(big * big + -(big * big), Val::ZERO);
    }

    #[test]
    fn lines_evaluate_as_sums_of_signed_products() {
        // x2 = 3 * x0 * x1 - x0 with x0 = 2, x1 = 5 → 28
        let l = Line {
            target: 2,
            terms: vec![
                Term { factors: vec![0, 1], coeff: 3, neg: false },
                Term { factors: vec![0], coeff: 1, neg: true },
            ],
        };
        let mut env = vec![Val::from_i64(2), Val::from_i64(5)];
        run_lines([&l], &mut env);
        assert_eq!(env[2], Val::from_i64(28));
    }
}
