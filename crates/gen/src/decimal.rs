//! Decimal text of an `f64` with a fixed number of decimals, without `core`'s float formatting.
//!
//! `format!("{x:.1}")` and `x.to_string()` pull `core::num::flt2dec` (Grisu and Dragon4, with their
//! big-number arithmetic: about 15 KB of wasm) into every binary that writes a float. The views only
//! ever write coordinates, sizes and percentages with at most three decimals, so [`fixed`] rounds the
//! float's exact binary value to a whole number of thousandths (or hundredths, tenths, units) in
//! integer arithmetic and writes that number's digits.
//!
//! What it writes, for every `f64` `x` and `places` from 0 to 3:
//! - finite `x` with `|x| < 2^64`: exactly what `format!("{x:.places$}")` writes (the exact value
//!   rounded half to even; a negative `x`, `-0.0` included, keeps its `-`, so `-0.04` at one decimal
//!   is `-0.0`, as Rust writes it);
//! - NaN: `NaN`; infinities: `inf` and `-inf` (as Rust writes them);
//! - finite `x` with `|x| >= 2^64` (no drawing is that large): `18446744073709551615` (`u64::MAX`)
//!   with its sign and zero decimals, where Rust would write all of the number's digits.
//!
//! [`short`] is [`fixed`] with three decimals and its trailing zeros (and then the point) dropped: the
//! same text as `x.to_string()` for every `x` whose shortest decimal has at most three decimals
//! (`58`, `17.5`, `-0`), the rest rounded to three.

use std::fmt;

/// An `f64` to be written with a fixed number of decimals ([`fixed`], [`short`]).
#[derive(Clone, Copy, Debug)]
pub struct Fixed {
    x: f64,
    places: u8,
    trim: bool,
}

/// `x` with `places` decimals (at most 3; more are taken as 3), as `format!("{x:.places$}")` writes it
/// (see the module's documentation for huge values).
pub fn fixed(x: f64, places: u8) -> Fixed {
    Fixed { x, places: places.min(3), trim: false }
}

/// `x` with at most three decimals and no trailing zeros, as `x.to_string()` writes a number with
/// at most three decimals.
pub fn short(x: f64) -> Fixed {
    Fixed { x, places: 3, trim: true }
}

const SCALE: [u64; 4] = [1, 10, 100, 1000];

impl Fixed {
    /// The number's whole part and its decimals as a whole number of `10^-places`, both of the
    /// absolute value; `None` for NaN and the infinities.
    fn parts(self) -> Option<(u64, u64)> {
        let bits = self.x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        if exp == 0x7ff {
            return None;
        }
        let frac = bits & ((1 << 52) - 1);
        // |x| = m · 2^k exactly, m < 2^53.
        let (m, k) = if exp == 0 { (frac, -1074) } else { (frac | (1 << 52), exp - 1075) };
        let scale = SCALE[usize::from(self.places)];
        if k >= 0 {
            // A whole number (|x| ≥ 2^52): no decimals; saturated from 2^64.
            let whole = if k <= 11 { m << k } else { u64::MAX };
            return Some((whole, 0));
        }
        // m · scale < 2^63: the shifted-out bits decide the rounding, half to even.
        let big = m * scale;
        let shift = k.unsigned_abs();
        let q = if shift >= 64 {
            // Below 2^-11: less than half a unit of the last decimal.
            0
        } else {
            let q = big >> shift;
            let rest = big - (q << shift);
            let half = 1u64 << (shift - 1);
            q + u64::from(rest > half || (rest == half && q & 1 == 1))
        };
        Some((q / scale, q % scale))
    }
}

impl Fixed {
    /// The text: `Err` with a word for NaN and the infinities, else `Ok(start)` with the number's
    /// ASCII digits, point and sign in `buf[start..]`.
    fn ascii(self, buf: &mut [u8; 26]) -> Result<usize, &'static str> {
        let negative = self.x.is_sign_negative();
        let Some((whole, mut decimals)) = self.parts() else {
            return Err(match (self.x.is_nan(), negative) {
                (true, _) => "NaN",
                (false, false) => "inf",
                (false, true) => "-inf",
            });
        };
        // Written backwards: the decimals, the point, the whole part's digits, the sign.
        let mut at = buf.len();
        let mut places = usize::from(self.places);
        if self.trim {
            while places > 0 && decimals % 10 == 0 {
                decimals /= 10;
                places -= 1;
            }
        }
        if places > 0 {
            for _ in 0..places {
                at -= 1;
                buf[at] = b'0' + (decimals % 10) as u8;
                decimals /= 10;
            }
            at -= 1;
            buf[at] = b'.';
        }
        at = digits(buf, at, whole);
        if negative {
            at -= 1;
            buf[at] = b'-';
        }
        Ok(at)
    }

    /// Append the text to `out`, as `write!(out, "{self}")` does, without the formatting machinery
    /// (drawings write thousands of coordinates).
    pub fn push_to(self, out: &mut String) {
        let mut buf = [0u8; 26];
        match self.ascii(&mut buf) {
            Ok(at) => push_ascii(out, &buf[at..]),
            Err(word) => out.push_str(word),
        }
    }
}

/// Write `n`'s decimal digits backwards into `buf`, ending at `at`; the start of them.
fn digits(buf: &mut [u8], mut at: usize, mut n: u64) -> usize {
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return at;
        }
    }
}

/// Append `n` in decimal to `out`, as `write!(out, "{n}")` does, without the formatting machinery
/// (generated code writes tens of thousands of coefficients and names).
pub fn push_u64(out: &mut String, n: u64) {
    let mut buf = [0u8; 20];
    let at = digits(&mut buf, 20, n);
    push_ascii(out, &buf[at..]);
}

/// Append ASCII bytes (digits, a point, a sign) to `out`, with no UTF-8 check.
fn push_ascii(out: &mut String, ascii: &[u8]) {
    out.extend(ascii.iter().map(|&b| char::from(b)));
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 26];
        match self.ascii(&mut buf) {
            // Only ASCII digits, '.' and '-' were written.
            Ok(at) => f.write_str(std::str::from_utf8(&buf[at..]).unwrap_or_default()),
            Err(word) => f.write_str(word),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TWO_64: f64 = 18_446_744_073_709_551_616.0;

    fn rust(x: f64, places: u8) -> String {
        format!("{x:.*}", usize::from(places))
    }

    #[test]
    fn the_edges() {
        for places in 0..=3 {
            for x in [
                0.0,
                -0.0,
                0.5,
                1.5,
                2.5,
                -2.5,
                0.25,
                0.125,
                0.375,
                0.0625,
                -0.04,
                0.05,
                0.15,
                0.35,
                1e-300,
                -5e-324,
                f64::MIN_POSITIVE,
                4503599627370495.5,
                4503599627370496.0,
                9007199254740993.0,
                1e18,
                -1e19,
                TWO_64 - 2048.0,
                99.9995,
                99.9994999,
                0.9995,
                12345.6789,
            ] {
                assert_eq!(fixed(x, places).to_string(), rust(x, places), "{x:e} at {places}");
            }
        }
        assert_eq!(fixed(f64::NAN, 1).to_string(), "NaN");
        assert_eq!(fixed(-f64::NAN, 1).to_string(), "NaN");
        assert_eq!(fixed(f64::INFINITY, 2).to_string(), "inf");
        assert_eq!(fixed(f64::NEG_INFINITY, 0).to_string(), "-inf");
        assert_eq!(fixed(TWO_64, 1).to_string(), "18446744073709551615.0");
        assert_eq!(fixed(-1e300, 2).to_string(), "-18446744073709551615.00");
        assert_eq!(fixed(f64::MAX, 0).to_string(), "18446744073709551615");
        assert_eq!(fixed(1.25, 9).to_string(), "1.250");
        for (x, s) in [(58.0, "58"), (17.5, "17.5"), (-0.0, "-0"), (0.0, "0"), (0.125, "0.125"), (29.25, "29.25")] {
            assert_eq!(short(x).to_string(), s);
            assert_eq!(x.to_string(), s);
        }
        assert_eq!(short(0.0001).to_string(), "0");
        assert_eq!(short(2.0 / 3.0).to_string(), "0.667");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        /// Any float below 2^64 in magnitude, from its bits.
        #[test]
        fn as_rust_writes_any_float(bits in any::<u64>(), places in 0u8..=3) {
            let x = f64::from_bits(bits);
            let mut pushed = String::from("x=");
            fixed(x, places).push_to(&mut pushed);
            short(x).push_to(&mut pushed);
            prop_assert_eq!(pushed, format!("x={}{}", fixed(x, places), short(x)));
            if x.is_finite() && x.abs() < TWO_64 {
                prop_assert_eq!(fixed(x, places).to_string(), rust(x, places));
            } else if x.is_finite() {
                let sign = if x < 0.0 { "-" } else { "" };
                let decimals = if places == 0 { String::new() } else { format!(".{}", "0".repeat(places.into())) };
                prop_assert_eq!(fixed(x, places).to_string(), format!("{sign}{}{decimals}", u64::MAX));
            } else {
                prop_assert_eq!(fixed(x, places).to_string(), rust(x, places));
            }
        }

        /// The floats drawings have: near decimals with few places, where ties and near-ties are.
        #[test]
        fn as_rust_writes_coordinates(whole in -100_000_000i64..100_000_000, thousandths in 0i64..1000,
                                      nudge in -2i64..=2, places in 0u8..=3) {
            let x = f64::from_bits(((whole * 1000 + thousandths) as f64 / 1000.0).to_bits().wrapping_add_signed(nudge));
            prop_assert_eq!(fixed(x, places).to_string(), rust(x, places));
            let tie = (whole * 1000 + thousandths) as f64 / 8.0;
            prop_assert_eq!(fixed(tie, places).to_string(), rust(tie, places));
        }

        /// `push_u64` writes what `to_string` writes.
        #[test]
        fn push_u64_is_to_string(n in any::<u64>(), small in 0u64..1000) {
            for x in [n, small, 0, u64::MAX] {
                let mut s = String::from("m");
                push_u64(&mut s, x);
                prop_assert_eq!(s, format!("m{x}"));
            }
        }

        /// `short` is `to_string` for numbers of at most three decimals.
        #[test]
        fn short_is_to_string(n in -1_000_000_000i64..1_000_000_000, places in 0u32..=3) {
            let x = n as f64 / 10f64.powi(places as i32);
            prop_assert_eq!(short(x).to_string(), x.to_string());
        }
    }
}
