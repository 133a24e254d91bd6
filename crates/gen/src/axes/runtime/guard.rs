//! The runtime guards (generation.md §4.3). `check(x, a, b, target, num_steps=d)` runs the map
//! `x → x / 2` (even) or `x → a·x + b` (odd) for `d` steps and says whether the final parity is
//! `target`. A guard is `b` such calls joined by `^`.
//!
//! The parity after `d` steps depends only on `x mod 2^(d+1)`: a step costs at most one bit.
//! [`final_parity`] keeps the exact value while it is narrower than the window left, then only the
//! window's low bits, so it is exact for any `d`. [`Trajectory`] keeps full values for the app.

use crate::graph::sample::below;
use crate::rng::Rng;
use num_bigint::BigUint;
use rand::RngExt;
use serde::{Deserialize, Serialize};

/// The start values of `x`: 1 to 100.
pub const X_MAX: u32 = 100;
/// The multipliers and increments: odd digits.
pub const ODD: [u32; 5] = [1, 3, 5, 7, 9];
/// Distinct `(x, a, b)` triples there are (the calls of one guard are distinct).
pub const TRIPLES: u32 = X_MAX * 5 * 5;
/// The most calls one guard may have (a breadth-heavy ratio with many hops would write thousands).
pub const MAX_GUARD_CALLS: u32 = 200;
/// The most steps a condition read from a program is run for (the rubric's messages say whether a
/// branch runs; a hostile program could ask for 10^18 steps).
pub const MAX_STEPS_EVALUATED: u32 = 100_000;

/// The `check` helper every runtime program defines after its imports, exactly as emitted.
pub const CHECK_SOURCE: &str = "def check(x: int, a: int, b: int, target: int, num_steps: int) -> bool:\n    \
    for step in range(num_steps):\n        \
        if x % 2 == 0:\n            \
            x = x // 2\n        \
        else:\n            \
            x = a * x + b\n    \
    return x % 2 == target";

/// One call `check(x, a, b, target, num_steps=steps)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GuardCall {
    pub x: u32,
    pub a: u32,
    pub b: u32,
    pub target: u8,
    pub steps: u32,
}

impl GuardCall {
    /// The parity of `x` after the steps.
    pub fn parity(&self) -> u8 {
        final_parity(self.x, self.a, self.b, self.steps)
    }
    /// What the call returns.
    pub fn value(&self) -> bool {
        self.parity() == self.target
    }
    /// The call as Python source.
    pub fn source(&self) -> String {
        format!("check({}, {}, {}, {}, num_steps={})", self.x, self.a, self.b, self.target, self.steps)
    }
}

/// One guard: its calls (joined by `^`) and its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    pub calls: Vec<GuardCall>,
    pub value: bool,
}

impl Guard {
    /// The guard as Python source.
    pub fn source(&self) -> String {
        self.calls.iter().map(GuardCall::source).collect::<Vec<_>>().join(" ^ ")
    }
    /// The value computed from the calls (the XOR of their values).
    pub fn evaluate(&self) -> bool {
        self.calls.iter().fold(false, |acc, c| acc ^ c.value())
    }
}

/// The low `bits` bits of `v`.
fn low_bits(v: &BigUint, bits: u64) -> BigUint {
    let words = bits.div_ceil(32) as usize;
    let mut digits = v.to_u32_digits();
    digits.truncate(words);
    let spare = (words as u64 * 32).saturating_sub(bits);
    if let (Some(top), true) = (digits.last_mut(), spare > 0) {
        *top &= u32::MAX >> spare;
    }
    BigUint::new(digits)
}

/// One step of the map.
fn step(v: &mut BigUint, a: u32, b: u32) {
    if v.bit(0) {
        *v *= a;
        *v += b;
    } else {
        *v >>= 1usize;
    }
}

/// The parity of `x` after `steps` steps, exact for any `steps` (see the module's note).
pub fn final_parity(x: u32, a: u32, b: u32, steps: u32) -> u8 {
    let mut v = BigUint::from(x);
    // Bits of x_k known to be right after k steps: steps + 1 − k.
    let mut window = u64::from(steps) + 1;
    for _ in 0..steps {
        step(&mut v, a, b);
        window -= 1;
        if v.bits() > window {
            v = low_bits(&v, window);
        }
    }
    u8::from(v.bit(0))
}

/// The full values of the map, step by step (for the "why this branch?" view and the tests).
pub struct Trajectory {
    value: BigUint,
    a: u32,
    b: u32,
    /// Steps taken so far.
    pub done: u32,
}

impl Trajectory {
    pub fn new(x: u32, a: u32, b: u32) -> Trajectory {
        Trajectory { value: BigUint::from(x), a, b, done: 0 }
    }
    /// The current value.
    pub fn value(&self) -> &BigUint {
        &self.value
    }
    /// Is the current value odd?
    pub fn odd(&self) -> bool {
        self.value.bit(0)
    }
    /// Take one step.
    pub fn step(&mut self) {
        step(&mut self.value, self.a, self.b);
        self.done += 1;
    }
    /// Take steps until `done == k` (no-op when already past).
    pub fn advance_to(&mut self, k: u32) {
        while self.done < k {
            self.step();
        }
    }
}

/// A value for people: all digits up to `max` of them, else the first and last few with the count.
pub fn show_value(v: &BigUint, max: usize) -> String {
    let s = v.to_string();
    if s.len() <= max {
        return s;
    }
    let keep = max.saturating_sub(3) / 2;
    format!("{}…{} ({} digits)", &s[..keep], &s[s.len() - keep..], s.len())
}

/// (breadth, depth) of a guard: `breadth` calls of `depth` steps each, from the hops `h` and the
/// breadth/depth ratio in tenths (generation.md §4.3): ratio 1 gives one call of `h` steps, ratio 0
/// gives `h` calls of one step, otherwise `q = r / (1 − r)`, breadth `round(√(h/q))`, depth
/// `round(√(h·q))` (Python's rounding, half to even), each at least 1.
pub fn shape(hops: u32, ratio_tenths: u8) -> (u32, u32) {
    let h = hops.max(1);
    match ratio_tenths {
        0 => (h, 1),
        t if t >= 10 => (1, h),
        t => {
            let q = f64::from(t) / f64::from(10 - t);
            let breadth = round_half_even(libm::sqrt(f64::from(h) / q)).max(1.0);
            let depth = round_half_even(libm::sqrt(f64::from(h) * q)).max(1.0);
            (breadth as u32, depth as u32)
        }
    }
}

/// Python's `round` of a float to an integer: halves go to the even neighbour.
fn round_half_even(x: f64) -> f64 {
    let r = libm::round(x);
    if libm::fabs(x - libm::trunc(x)) == 0.5 && r % 2.0 != 0.0 {
        r - libm::copysign(1.0, x)
    } else {
        r
    }
}

/// Draw one guard of `breadth` calls of `depth` steps (generation.md §4.3): the guard's value is a
/// fair coin; the calls' values are coins but for the last, which makes their XOR the guard's value;
/// each call's `(x, a, b)` is new within the guard, and its target is the final parity when the call
/// must be true, the other parity otherwise.
pub fn draw_guard(rng: &mut Rng, breadth: u32, depth: u32) -> Guard {
    let value: bool = rng.random();
    let mut wanted: Vec<bool> = (1..breadth).map(|_| rng.random()).collect();
    let so_far = wanted.iter().fold(false, |acc, &t| acc ^ t);
    wanted.push(so_far ^ value);
    let mut used: Vec<(u32, u32, u32)> = Vec::with_capacity(wanted.len());
    let calls = wanted
        .into_iter()
        .map(|want| {
            let (x, a, b) = loop {
                let x = 1 + below(rng, X_MAX as usize) as u32;
                let a = ODD[below(rng, ODD.len())];
                let b = ODD[below(rng, ODD.len())];
                // At most MAX_GUARD_CALLS < TRIPLES calls: a new triple is always found.
                if !used.contains(&(x, a, b)) {
                    break (x, a, b);
                }
            };
            used.push((x, a, b));
            let parity = final_parity(x, a, b, depth);
            GuardCall { x, a, b, target: if want { parity } else { 1 - parity }, steps: depth }
        })
        .collect();
    Guard { calls, value }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    /// The parity from the full values, for comparison.
    fn slow_parity(x: u32, a: u32, b: u32, steps: u32) -> u8 {
        let mut t = Trajectory::new(x, a, b);
        t.advance_to(steps);
        u8::from(t.odd())
    }

    #[test]
    fn the_window_gives_the_full_values_parity() {
        for (x, a, b) in [(1, 1, 1), (27, 9, 9), (100, 9, 1), (77, 7, 5), (3, 5, 3), (64, 3, 7)] {
            for steps in (0..600).chain([1000, 2047, 2048, 3001]) {
                assert_eq!(final_parity(x, a, b, steps), slow_parity(x, a, b, steps), "{x} {a} {b} {steps}");
            }
        }
    }

    #[test]
    fn low_bits_masks() {
        let v = BigUint::from(0b1011_0110u32) + (BigUint::from(1u32) << 100usize);
        assert_eq!(low_bits(&v, 3), BigUint::from(0b110u32));
        assert_eq!(low_bits(&v, 64), BigUint::from(0b1011_0110u32));
        assert_eq!(low_bits(&v, 101), v);
        assert_eq!(low_bits(&v, 0), BigUint::from(0u32));
    }

    #[test]
    fn shapes_are_the_references() {
        assert_eq!(shape(200, 10), (1, 200));
        assert_eq!(shape(200, 0), (200, 1));
        assert_eq!(shape(100, 5), (10, 10));
        // q = 1/9: breadth √900 = 30, depth √(100/9) = 3.33 → 3.
        assert_eq!(shape(100, 1), (30, 3));
        assert_eq!(shape(1, 5), (1, 1));
        assert_eq!(round_half_even(2.5), 2.0);
        assert_eq!(round_half_even(3.5), 4.0);
        assert_eq!(round_half_even(0.5), 0.0);
        assert_eq!(round_half_even(2.4), 2.0);
    }

    #[test]
    fn a_guard_has_the_value_it_was_drawn_for() {
        let mut rng = stream("guard-test", "guards");
        for (breadth, depth) in [(1, 1), (1, 200), (3, 7), (200, 1), (17, 50)] {
            for _ in 0..50 {
                let g = draw_guard(&mut rng, breadth, depth);
                assert_eq!(g.calls.len(), breadth as usize);
                assert_eq!(g.evaluate(), g.value);
                let mut triples: Vec<(u32, u32, u32)> = g.calls.iter().map(|c| (c.x, c.a, c.b)).collect();
                triples.sort_unstable();
                triples.dedup();
                assert_eq!(triples.len(), breadth as usize);
                assert!(g.calls.iter().all(|c| (1..=X_MAX).contains(&c.x) && ODD.contains(&c.a) && c.steps == depth));
            }
        }
    }

    #[test]
    fn values_are_shown_whole_or_cut() {
        assert_eq!(show_value(&BigUint::from(12345u32), 10), "12345");
        let big = BigUint::from(7u32).pow(100);
        let s = show_value(&big, 21);
        assert!(s.contains('…') && s.ends_with("(85 digits)"), "{s}");
    }
}
