//! The merge program's intermediate form (grading.md §6.1) and its evaluation.
//!
//! A variable is an index into a name table: the parameters, then every target in program order; a
//! class's table adds its rewrites' temporaries. Values are exact modulo two primes near 2^61 and 2^64
//! ([`Val`]): values that differ there differ as integers, and two different integers agree on both
//! only when their difference is a multiple of a 125-bit number. The tests compare with CPython.

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
pub enum Segment {
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
    pub items: Vec<Segment>,
    /// The targets no canonical line reads, in definition order: `compute()` returns their sum.
    pub leaves: Vec<Var>,
}

impl Program {
    /// The differences, in order.
    pub fn diffs(&self) -> impl Iterator<Item = &Diff> {
        self.items.iter().filter_map(|i| match i {
            Segment::Diff(d) => Some(d),
            Segment::Block(_) => None,
        })
    }
    /// The blocks, in order.
    pub fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.items.iter().filter_map(|i| match i {
            Segment::Block(b) => Some(b),
            Segment::Diff(_) => None,
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

// The arithmetic is written with 64-bit operations only, always inlined: wasm has no 128-bit
// integers (a `u128` product is a call to `__multi3`), and the browser runs a module's first call in
// its baseline compiler, which inlines nothing. The tests check it against `u128` remainders.

/// `a · b` as `(high, low)` 64-bit halves, from four 32-bit products.
#[inline(always)]
fn mul_wide(a: u64, b: u64) -> (u64, u64) {
    const M: u64 = u32::MAX as u64;
    let (a0, a1, b0, b1) = (a & M, a >> 32, b & M, b >> 32);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 32) + (p01 & M) + (p10 & M);
    ((p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)), (p00 & M) | (mid << 32))
}

/// `x mod (2^61 - 1)` for `x < 2^63`: fold the high bits onto the low ones.
#[inline(always)]
fn fold1(x: u64) -> u64 {
    let r = (x & P1) + (x >> 61);
    if r >= P1 {
        r - P1
    } else {
        r
    }
}

/// `(high · 2^64 + low) mod (2^64 - 59)` for `high < 2^64`: 2^64 ≡ 59.
#[inline(always)]
fn fold2(high: u64, low: u64) -> u64 {
    // high · 59 < 59 · 2^64, so its own high half is under 59.
    let (h, l) = mul_wide(high, 59);
    let (s, carry) = low.overflowing_add(l);
    let high = h + carry as u64; // < 60
    let (s, carry) = s.overflowing_add(high * 59);
    // When that sum wrapped, s < 60 · 59, and the wrap is worth 59 more.
    let r = if carry { s + 59 } else { s };
    if r >= P2 {
        r - P2
    } else {
        r
    }
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
    #[inline(always)]
    pub fn from_u64(x: u64) -> Val {
        Val(fold1((x & P1) + (x >> 61)), if x >= P2 { x - P2 } else { x })
    }
}

impl std::ops::Add for Val {
    type Output = Val;
    #[inline(always)]
    fn add(self, o: Val) -> Val {
        // Residues are below their primes: the first sum fits, the second may wrap (worth 59).
        let (s, carry) = self.1.overflowing_add(o.1);
        let s = if carry { s + 59 } else { s };
        Val(fold1(self.0 + o.0), if s >= P2 { s - P2 } else { s })
    }
}

impl std::ops::Mul for Val {
    type Output = Val;
    #[inline(always)]
    fn mul(self, o: Val) -> Val {
        // Both residues under 2^61: the product is under 2^122, its high half under 2^58, and
        // 2^64 ≡ 2^3 modulo 2^61 - 1.
        let (h, l) = mul_wide(self.0, o.0);
        let first = fold1((h << 3) + (l >> 61) + (l & P1));
        let (h, l) = mul_wide(self.1, o.1);
        Val(first, fold2(h, l))
    }
}

impl std::ops::Neg for Val {
    type Output = Val;
    #[inline(always)]
    fn neg(self) -> Val {
        Val(if self.0 == 0 { 0 } else { P1 - self.0 }, if self.1 == 0 { 0 } else { P2 - self.1 })
    }
}

/// The value of a term in an environment (one value per variable).
#[inline(always)]
pub fn term_value(t: &Term, env: &[Val]) -> Val {
    let mut v = Val::from_u64(t.coeff);
    for &f in &t.factors {
        v = v * env[f];
    }
    if t.neg {
        -v
    } else {
        v
    }
}

/// The value of a line's right-hand side.
#[inline(always)]
pub fn line_value(l: &Line, env: &[Val]) -> Val {
    let mut sum = Val::ZERO;
    for t in &l.terms {
        sum = sum + term_value(t, env);
    }
    sum
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

/// Many environments at once, for the validation's trials: `width` values per variable, stored
/// variable by variable (variable `v`'s are `vals[v * width..(v + 1) * width]`). A line runs on all
/// of them in one pass, which costs a fraction of running it `width` times (most of a line's cost
/// is walking its terms, the more so in the browser's baseline compiler).
pub struct Envs {
    width: usize,
    vals: Vec<Val>,
    /// Scratch rows for one term and one line's sum.
    term: Vec<Val>,
    sum: Vec<Val>,
}

impl Envs {
    /// `vars` variables (more are added as lines assign them), every value zero.
    pub fn zeros(vars: usize, width: usize) -> Envs {
        Envs { width, vals: vec![Val::ZERO; vars * width], term: vec![Val::ZERO; width], sum: vec![Val::ZERO; width] }
    }

    /// How many environments.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Variable `v`'s value in environment `k` (zero for a variable past the table).
    pub fn get(&self, v: Var, k: usize) -> Val {
        self.vals.get(v * self.width + k).copied().unwrap_or(Val::ZERO)
    }

    /// Set variable `v` in environment `k`.
    pub fn set(&mut self, v: Var, k: usize, x: Val) {
        self.grow(v);
        self.vals[v * self.width + k] = x;
    }

    /// Set every variable back to zero in every environment.
    pub fn clear(&mut self) {
        self.vals.fill(Val::ZERO);
    }

    fn grow(&mut self, v: Var) {
        if self.vals.len() < (v + 1) * self.width {
            self.vals.resize((v + 1) * self.width, Val::ZERO);
        }
    }

    /// Run lines in order in every environment: [`run_lines`] on each.
    pub fn run<'a>(&mut self, lines: impl IntoIterator<Item = &'a Line>) {
        for l in lines {
            self.assign(l, l.target);
        }
    }

    /// Store a line's right-hand side, in every environment, in `target`: [`line_value`] on each.
    pub fn assign(&mut self, l: &Line, target: Var) {
        let w = self.width;
        for f in l.reads() {
            self.grow(f);
        }
        self.grow(target);
        let Envs { vals, term, sum, .. } = self;
        sum.fill(Val::ZERO);
        for t in &l.terms {
            term.fill(Val::from_u64(t.coeff));
            for &f in &t.factors {
                for (x, &y) in term.iter_mut().zip(&vals[f * w..(f + 1) * w]) {
                    *x = *x * y;
                }
            }
            for (s, &x) in sum.iter_mut().zip(term.iter()) {
                *s = *s + if t.neg { -x } else { x };
            }
        }
        vals[target * w..(target + 1) * w].copy_from_slice(sum);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The residues by `u128` division, the arithmetic the 64-bit code stands in for.
    fn by_division(x: u128) -> Val {
        Val((x % P1 as u128) as u64, (x % P2 as u128) as u64)
    }

    #[test]
    fn arithmetic_matches_128_bit_remainders() {
        let mut x: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
        let mut next = || {
            x = x.wrapping_mul(0x2545_f491_4f6c_dd1d_1405_7b7e_f767_814f).wrapping_add(0x1405_7b7e_f767_814f);
            x
        };
        let mut values: Vec<u128> = vec![0, 1, 2, 58, 59, 60, P1 as u128 - 1, P1 as u128, P2 as u128 - 1, P2 as u128];
        values.extend([u64::MAX as u128, u64::MAX as u128 - 1, 1 << 61, 1 << 63, (1 << 32) - 1, 1 << 32]);
        for _ in 0..20_000 {
            let r = next();
            // Whole words, and small and mid-sized ones (the sizes that carry and wrap differently).
            values.push(r >> 64);
            values.push((r >> 64) >> (r as u32 % 64));
        }
        for w in values.windows(2) {
            let (a, b) = (w[0] % (1 << 64), w[1] % (1 << 64));
            assert_eq!(Val::from_u64(a as u64), by_division(a), "from_u64({a})");
            let (va, vb) = (by_division(a), by_division(b));
            let sum = (va.0 as u128 + vb.0 as u128, va.1 as u128 + vb.1 as u128);
            assert_eq!(va + vb, Val((sum.0 % P1 as u128) as u64, (sum.1 % P2 as u128) as u64), "{a} + {b}");
            let prod = (va.0 as u128 * vb.0 as u128, va.1 as u128 * vb.1 as u128);
            assert_eq!(va * vb, Val((prod.0 % P1 as u128) as u64, (prod.1 % P2 as u128) as u64), "{a} * {b}");
            assert_eq!(-va + va, Val::ZERO, "-{a}");
        }
        for a in [0u64, 1, u32::MAX as u64, u64::MAX, P2 - 1, P1 - 1] {
            for b in [0u64, 1, u32::MAX as u64, u64::MAX, P2 - 1, P1 - 1] {
                let (h, l) = mul_wide(a, b);
                assert_eq!(((h as u128) << 64) | l as u128, a as u128 * b as u128, "{a} * {b}");
                let wide = a as u128 * b as u128;
                assert_eq!(fold2((wide >> 64) as u64, wide as u64) as u128, wide % P2 as u128);
            }
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
