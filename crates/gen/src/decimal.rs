//! Short decimal text of an `f64` for drawings and run names.

/// `x` rounded to three decimals, trailing zeros (and then the point) dropped: `58`, `17.5`, `0.667`.
pub fn short(x: f64) -> String {
    let mut s = format!("{x:.3}");
    if s.contains('.') {
        let kept = s.trim_end_matches('0').trim_end_matches('.').len();
        s.truncate(kept);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_edges() {
        for (x, s) in [(58.0, "58"), (17.5, "17.5"), (-0.0, "-0"), (0.0, "0"), (0.125, "0.125"), (29.25, "29.25")] {
            assert_eq!(short(x), s);
            assert_eq!(x.to_string(), s);
        }
        assert_eq!(short(0.0001), "0");
        assert_eq!(short(-0.0001), "-0");
        assert_eq!(short(2.0 / 3.0), "0.667");
        assert_eq!(short(100.0), "100");
        assert_eq!(short(f64::NAN), "NaN");
        assert_eq!(short(f64::NEG_INFINITY), "-inf");
    }

    proptest! {
        /// `short` is `to_string` for numbers of at most three decimals.
        #[test]
        fn short_is_to_string(n in -1_000_000_000i64..1_000_000_000, places in 0u32..=3) {
            let x = n as f64 / 10f64.powi(places as i32);
            prop_assert_eq!(short(x), x.to_string());
        }
    }
}
