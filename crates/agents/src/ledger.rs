//! The ledger of a session: per turn, the input tokens (everything sent: system text, statement and
//! the history so far), the part of them read from a prompt cache, the output tokens, and the cost
//! under an editable price table; beside the measured sum of input tokens, the closed form
//! `P·T + g·T(T−1)/2` (a first prompt of `P` tokens growing by `g` a turn, over `T` turns).
//!
//! It works on any trace: a scripted agent's or a student's (whose token figures are estimated from
//! the text, [`estimate`]), or a model's (the server's `usage` figures, read through
//! [`cabrito_analysis::traces::Session`]).

use serde::{Deserialize, Serialize};

/// Tokens of a text, estimated at four characters a token (the estimate task sizes use).
pub fn estimate(text: &str) -> u64 {
    text.chars().count().div_ceil(4) as u64
}

/// Prices in dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    pub input: f64,
    pub cached_input: f64,
    pub output: f64,
}

impl Default for Prices {
    /// A mid-range hosted model's list prices (input $3, cached input $0.30, output $15 per million
    /// tokens); the app and the CLI let you change them.
    fn default() -> Self {
        Prices { input: 3.0, cached_input: 0.3, output: 15.0 }
    }
}

impl Prices {
    /// Prices from text such as `3,0.3,15` (input, cached input, output per million tokens).
    pub fn parse(text: &str) -> Result<Prices, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let bad = || {
            format!(
                "prices are three non-negative numbers, dollars per million tokens: input,cached_input,output (like 3,0.3,15); got '{}'",
                text.chars().take(40).collect::<String>()
            )
        };
        let [a, b, c] = parts.as_slice() else { return Err(bad()) };
        let num = |s: &str| s.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0 && *x <= 1e6);
        match (num(a), num(b), num(c)) {
            (Some(input), Some(cached_input), Some(output)) => Ok(Prices { input, cached_input, output }),
            _ => Err(bad()),
        }
    }
}

/// One turn's token figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnTokens {
    /// Tokens sent, cached ones included.
    pub input: f64,
    /// The part of the input read from a cache.
    pub cached: f64,
    /// Tokens generated.
    pub output: f64,
}

/// One row of the ledger.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Row {
    /// 0-based turn.
    pub turn: usize,
    pub tokens: TurnTokens,
    /// This turn's cost in dollars.
    pub cost: f64,
    /// Input tokens of every turn so far.
    pub input_so_far: f64,
    /// Cost of every turn so far.
    pub cost_so_far: f64,
}

/// `P·T + g·T(T−1)/2`, fitted to a trace: `P` is the first turn's input, `g` the mean growth per
/// turn (`(last − first)/(T − 1)`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ClosedForm {
    pub p: f64,
    pub g: f64,
    pub turns: usize,
    /// The formula's value.
    pub value: f64,
}

impl ClosedForm {
    /// The formula for given `P`, `g`, `T`.
    pub fn of(p: f64, g: f64, turns: usize) -> ClosedForm {
        let t = turns as f64;
        ClosedForm { p, g, turns, value: p * t + g * t * (t - 1.0) / 2.0 }
    }
}

/// The whole ledger.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ledger {
    pub prices: Prices,
    pub rows: Vec<Row>,
    /// Summed figures.
    pub total: TurnTokens,
    pub cost: f64,
    /// What the same turns would cost with no cache (every input token at the input price).
    pub cost_without_cache: f64,
    /// The closed form next to the measured input sum (`None` without turns).
    pub closed_form: Option<ClosedForm>,
}

fn cost(t: &TurnTokens, p: &Prices) -> f64 {
    let cached = t.cached.min(t.input);
    ((t.input - cached) * p.input + cached * p.cached_input + t.output * p.output) / 1e6
}

impl Ledger {
    /// The ledger of a list of turns.
    pub fn of(turns: &[TurnTokens], prices: Prices) -> Ledger {
        let mut rows = Vec::with_capacity(turns.len());
        let (mut input_so_far, mut cost_so_far) = (0.0, 0.0);
        let mut total = TurnTokens::default();
        let mut uncached = 0.0;
        for (turn, t) in turns.iter().enumerate() {
            let c = cost(t, &prices);
            input_so_far += t.input;
            cost_so_far += c;
            total.input += t.input;
            total.cached += t.cached;
            total.output += t.output;
            uncached += cost(&TurnTokens { cached: 0.0, ..*t }, &prices);
            rows.push(Row { turn, tokens: *t, cost: c, input_so_far, cost_so_far });
        }
        let closed_form = match turns {
            [] => None,
            [only] => Some(ClosedForm::of(only.input, 0.0, 1)),
            [first, .., last] => {
                let n = turns.len();
                Some(ClosedForm::of(first.input, (last.input - first.input) / (n - 1) as f64, n))
            }
        };
        Ledger { prices, rows, total, cost: cost_so_far, cost_without_cache: uncached, closed_form }
    }

    /// The ledger of the first `n` turns (for a view that steps through a session).
    pub fn upto(&self, n: usize) -> Ledger {
        let turns: Vec<TurnTokens> = self.rows.iter().take(n).map(|r| r.tokens).collect();
        Ledger::of(&turns, self.prices)
    }
}

impl Ledger {
    /// One line: turns, the measured input beside the closed form, and the cost.
    pub fn summary(&self) -> String {
        let Some(cf) = self.closed_form else { return "no turns".into() };
        format!(
            "{} turns · Σ input {:.0} tokens beside P·T + g·T(T−1)/2 = {:.0} (P = {:.0}, g = {:.0}) · {:.0} cached · {:.0} output · ${:.4} at ${}/${}/${} per million input/cached/output (${:.4} without the cache)",
            self.rows.len(),
            self.total.input,
            cf.value,
            cf.p,
            cf.g,
            self.total.cached,
            self.total.output,
            self.cost,
            self.prices.input,
            self.prices.cached_input,
            self.prices.output,
            self.cost_without_cache
        )
    }
}

/// The turns of any trace, with the figures it carries (turns without an input figure count 0).
pub fn turns_of(session: &cabrito_analysis::traces::Session) -> Vec<TurnTokens> {
    session
        .turns
        .iter()
        .map(|t| TurnTokens {
            input: t.input_tokens.unwrap_or(0.0),
            cached: t.cached_tokens.unwrap_or(0.0),
            output: t.output_tokens.unwrap_or(0.0),
        })
        .collect()
}

/// Simulated token figures of a session in which every call is one turn: turn `t` sends the
/// system text and every earlier call and output (`input`), of which the previous turn's input is
/// read from the cache when `caching` is on, and generates the call itself (`output`).
pub fn simulate(system: u64, turns: &[(u64, u64)], caching: bool) -> Vec<TurnTokens> {
    let mut out = Vec::with_capacity(turns.len());
    let mut context = system;
    let mut previous: Option<u64> = None;
    for &(call, observation) in turns {
        let cached = if caching { previous.unwrap_or(0) } else { 0 };
        out.push(TurnTokens { input: context as f64, cached: cached as f64, output: call as f64 });
        previous = Some(context);
        context += call + observation;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * (1.0 + a.abs().max(b.abs()))
    }

    /// A hand-computed trace of three turns.
    #[test]
    fn sums_and_costs_match_a_hand_computed_trace() {
        let turns = [
            TurnTokens { input: 1000.0, cached: 0.0, output: 50.0 },
            TurnTokens { input: 1600.0, cached: 1000.0, output: 20.0 },
            TurnTokens { input: 2000.0, cached: 1600.0, output: 100.0 },
        ];
        let prices = Prices { input: 2.0, cached_input: 0.5, output: 10.0 };
        let l = Ledger::of(&turns, prices);
        // turn 0: 1000·2 + 50·10 = 2500 µ$; turn 1: 600·2 + 1000·0.5 + 20·10 = 1900; turn 2: 400·2 + 1600·0.5 + 100·10 = 2600.
        let want = [2500.0e-6, 1900.0e-6, 2600.0e-6];
        for (r, w) in l.rows.iter().zip(want) {
            assert!(close(r.cost, w), "{} vs {w}", r.cost);
        }
        assert!(close(l.cost, 7000.0e-6));
        assert_eq!(l.total, TurnTokens { input: 4600.0, cached: 2600.0, output: 170.0 });
        assert!(close(l.rows[2].input_so_far, 4600.0));
        // Without the cache: 4600·2 + 170·10 = 10900 µ$.
        assert!(close(l.cost_without_cache, 10900.0e-6));
        // P = 1000, g = (2000 − 1000)/2 = 500: 1000·3 + 500·3 = 4500 (the measured sum is 4600).
        let cf = l.closed_form.unwrap();
        assert_eq!((cf.p, cf.g, cf.turns), (1000.0, 500.0, 3));
        assert!(close(cf.value, 4500.0));
        assert_eq!(l.upto(2).rows.len(), 2);
        assert!(close(l.upto(2).cost, 4400.0e-6));
    }

    /// A trace that grows by the same amount every turn is exactly the closed form.
    #[test]
    fn the_closed_form_is_exact_for_constant_growth() {
        for (p, g, t) in [(1500u64, 300u64, 1usize), (1500, 300, 2), (800, 0, 7), (2000, 125, 40), (1, 1, 200)] {
            let calls: Vec<(u64, u64)> = vec![(g / 5, g - g / 5); t];
            let turns = simulate(p, &calls, true);
            let l = Ledger::of(&turns, Prices::default());
            let cf = l.closed_form.unwrap();
            assert!(close(cf.value, l.total.input), "P={p} g={g} T={t}: {} vs {}", cf.value, l.total.input);
            assert!(close(cf.value, (p * t as u64) as f64 + (g * (t * (t - 1) / 2) as u64) as f64));
            if t > 1 {
                assert!(l.cost < l.cost_without_cache);
            }
        }
    }

    /// Any trace: a model's plain trace, with the server's figures per turn (two calls in turn 0).
    #[test]
    fn the_ledger_of_a_read_trace_uses_its_turns() {
        let text = "{\"type\":\"session\",\"format\":\"cabrito-trace/1\",\"session_id\":\"m\"}\n\
            {\"tool\":\"view\",\"arguments\":{},\"turn\":0,\"tokens\":{\"input\":1000,\"cached\":0,\"output\":40}}\n\
            {\"tool\":\"search\",\"arguments\":{},\"turn\":0}\n\
            {\"tool\":\"edit\",\"arguments\":{},\"turn\":1,\"tokens\":{\"input\":1600,\"cached\":1000,\"output\":100}}\n\
            {\"type\":\"message\",\"turn\":2,\"content\":\"done\",\"tokens\":{\"input\":2200,\"cached\":1600,\"output\":5}}\n";
        let s = cabrito_analysis::traces::plain::read("m.jsonl", text);
        let turns = turns_of(&s);
        assert_eq!(turns.len(), 3);
        let l = Ledger::of(&turns, Prices { input: 1.0, cached_input: 0.0, output: 0.0 });
        // Uncached input only: 1000 + 600 + 600 = 2200 µ$.
        assert!(close(l.cost, 2200.0e-6), "{}", l.cost);
        assert_eq!(l.total, TurnTokens { input: 4800.0, cached: 2600.0, output: 145.0 });
        // Constant growth (600 a turn): the closed form is exact.
        assert!(close(l.closed_form.unwrap().value, 4800.0));
        assert!(
            l.summary().starts_with("3 turns · Σ input 4800 tokens beside P·T + g·T(T−1)/2 = 4800"),
            "{}",
            l.summary()
        );
    }

    #[test]
    fn prices_parse_or_say_what_is_allowed() {
        assert_eq!(Prices::parse("3, 0.3,15").unwrap(), Prices::default());
        for bad in ["", "1,2", "1,2,x", "-1,0,0", "1,2,3,4", "nan,1,1"] {
            let e = Prices::parse(bad).unwrap_err();
            assert!(e.contains("input,cached_input,output"), "{bad}: {e}");
        }
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("abcde"), 2);
        assert_eq!(Ledger::of(&[], Prices::default()).closed_form, None);
    }
}
