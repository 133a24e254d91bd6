//! CSV tables (RFC 4180: a header row, fields quoted when they hold a comma, quote or line break),
//! the same text in the app's downloads and in `cabrito report`.

use super::aggregate::{CheckRate, CostPoint, Diff, Flip, Point, Series};
use super::frontier::{Crossing, Frontier};
use super::paired::{Paired, PairedTask};
use super::read::{Dataset, TaskResult};
use super::runs::format_n;

/// One field, quoted when needed.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A whole table: header, then rows, each line ending in `\n`.
pub fn table<I, R>(header: &[&str], rows: I) -> String
where
    I: IntoIterator<Item = R>,
    R: AsRef<[String]>,
{
    let mut out = header.iter().map(|h| field(h)).collect::<Vec<_>>().join(",");
    out.push('\n');
    for r in rows {
        out.push_str(&r.as_ref().iter().map(|f| field(f)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

fn num(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" || s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// The accuracy table: `model, axis, kind, domain, n, tasks, passed, accuracy, ci_low, ci_high`,
/// then `set` (the loaded set's name).
pub fn accuracy(ds: &Dataset, points: &[Point]) -> String {
    table(
        &["model", "axis", "kind", "domain", "n", "tasks", "passed", "accuracy", "ci_low", "ci_high", "set"],
        points.iter().map(|p| {
            vec![
                p.series.model.to_string(),
                p.axis.to_string(),
                p.kind.to_string(),
                p.domain.to_string(),
                format_n(p.n),
                p.tasks.to_string(),
                p.passed.to_string(),
                num(p.accuracy()),
                num(p.lo),
                num(p.hi),
                set_name(ds, &p.series),
            ]
        }),
    )
}

fn set_name(ds: &Dataset, s: &Series) -> String {
    ds.sets.get(s.set).cloned().unwrap_or_default()
}

/// How often each check failed: `model, axis, n, check, tasks, failed, rate, set`.
pub fn checks(ds: &Dataset, rates: &[CheckRate]) -> String {
    table(
        &["model", "axis", "n", "check", "tasks", "failed", "rate", "set"],
        rates.iter().map(|r| {
            vec![
                r.series.model.to_string(),
                r.axis.to_string(),
                format_n(r.n),
                r.check.to_string(),
                r.tasks.to_string(),
                r.failed.to_string(),
                num(r.rate()),
                set_name(ds, &r.series),
            ]
        }),
    )
}

/// Every task result, one row each: the raw results behind every number.
/// `base` goes before each link's fragment (the playground's address, or empty).
pub fn tasks(ds: &Dataset, indices: Option<&[usize]>, base: &str) -> String {
    tasks_lines(ds, indices, base).collect()
}

/// [`tasks`] one line at a time (the header first), to write a large table without holding it.
pub fn tasks_lines<'a>(
    ds: &'a Dataset,
    indices: Option<&'a [usize]>,
    base: &'a str,
) -> impl Iterator<Item = String> + 'a {
    let header = table(
        &[
            "model",
            "axis",
            "kind",
            "domain",
            "n",
            "passed",
            "failing_checks",
            "name",
            "dag_id",
            "run",
            "task_set",
            "message",
            "link",
            "set",
        ],
        Vec::<Vec<String>>::new(),
    );
    let picked: Box<dyn Iterator<Item = &TaskResult> + 'a> = match indices {
        Some(i) => Box::new(i.iter().filter_map(|&i| ds.records.get(i))),
        None => Box::new(ds.records.iter()),
    };
    std::iter::once(header).chain(picked.map(move |r| {
        let row = [
            r.model.to_string(),
            r.axis.to_string(),
            r.kind.to_string(),
            r.domain.to_string(),
            format_n(r.n),
            if r.passed { "1" } else { "0" }.to_string(),
            r.failing_checks().collect::<Vec<_>>().join(" "),
            r.name.clone(),
            r.dag_id.clone(),
            r.run.to_string(),
            r.task_set.to_string(),
            r.message.clone().unwrap_or_default(),
            ds.link_of(r).map(|q| format!("{base}#/task?{q}")).unwrap_or_default(),
            ds.sets.get(r.set).cloned().unwrap_or_default(),
        ];
        let mut line = row.iter().map(|f| field(f)).collect::<Vec<_>>().join(",");
        line.push('\n');
        line
    }))
}

/// The comparison of two series: `axis, kind, domain, n, a_tasks, a_passed, a_accuracy, b_tasks,
/// b_passed, b_accuracy, difference, ci_low, ci_high` (B − A, Newcombe 95%).
pub fn compare(diffs: &[Diff]) -> String {
    let acc = |p: usize, t: usize| if t == 0 { 0.0 } else { p as f64 / t as f64 };
    table(
        &[
            "axis",
            "kind",
            "domain",
            "n",
            "a_tasks",
            "a_passed",
            "a_accuracy",
            "b_tasks",
            "b_passed",
            "b_accuracy",
            "difference",
            "ci_low",
            "ci_high",
        ],
        diffs.iter().map(|d| {
            vec![
                d.axis.to_string(),
                d.kind.to_string(),
                d.domain.to_string(),
                format_n(d.n),
                d.a_tasks.to_string(),
                d.a_passed.to_string(),
                num(acc(d.a_passed, d.a_tasks)),
                d.b_tasks.to_string(),
                d.b_passed.to_string(),
                num(acc(d.b_passed, d.b_tasks)),
                num(d.diff),
                num(d.lo),
                num(d.hi),
            ]
        }),
    )
}

/// The tasks that flipped: `axis, kind, domain, n, name, dag_id, run, a_passed, b_passed`.
pub fn flips(ds: &Dataset, flips: &[Flip]) -> String {
    table(
        &["axis", "kind", "domain", "n", "name", "dag_id", "run", "a_passed", "b_passed"],
        flips.iter().map(|f| {
            let (a, b) = (&ds.records[f.a], &ds.records[f.b]);
            vec![
                a.axis.to_string(),
                a.kind.to_string(),
                a.domain.to_string(),
                format_n(a.n),
                a.name.clone(),
                a.dag_id.clone(),
                a.run.to_string(),
                u8::from(a.passed).to_string(),
                u8::from(b.passed).to_string(),
            ]
        }),
    )
}

/// Cost against `n`: mean dollars, tool calls and tokens per task, per series, axis and `n`.
pub fn cost(ds: &Dataset, points: &[CostPoint]) -> String {
    table(
        &["model", "axis", "n", "tasks", "cost", "tool_calls", "input_tokens", "output_tokens"],
        points.iter().map(|p| {
            vec![
                p.series.name(ds),
                p.axis.to_string(),
                format_n(p.n),
                p.tasks.to_string(),
                format!("{:.6}", p.cost),
                num(p.tool_calls),
                num(p.input_tokens),
                num(p.output_tokens),
            ]
        }),
    )
}

/// A p-value: four decimals, or four significant digits below 0.01.
fn p_value(p: f64) -> String {
    if p < 1e-2 {
        format!("{p:.3e}")
    } else {
        num(p)
    }
}

/// The capability frontier: `model, axis, sizes, tasks, status, n50, n50_low, n50_high, intercept,
/// slope, set` (the interval is empty where the curve does not cross 50% inside the sizes tested).
pub fn frontier(ds: &Dataset, frontiers: &[Frontier]) -> String {
    table(
        &["model", "axis", "sizes", "tasks", "status", "n50", "n50_low", "n50_high", "intercept", "slope", "set"],
        frontiers.iter().map(|f| {
            let (n50, lo, hi) = match f.crossing {
                Crossing::At { n50, lo, hi } => (num(n50), num(lo), num(hi)),
                _ => (String::new(), String::new(), String::new()),
            };
            vec![
                f.series.model.to_string(),
                f.axis.to_string(),
                f.groups.len().to_string(),
                f.groups.iter().map(|g| g.tasks).sum::<usize>().to_string(),
                f.crossing.describe(),
                n50,
                lo,
                hi,
                f.fit.map(|x| num(x.intercept)).unwrap_or_default(),
                f.fit.map(|x| num(x.slope)).unwrap_or_default(),
                set_name(ds, &f.series),
            ]
        }),
    )
}

/// The paired comparison's summary: one row of counts, accuracies, the difference B − A with its
/// bootstrap interval and McNemar's p-value.
pub fn paired_summary(a: &str, b: &str, p: &Paired) -> String {
    table(
        &[
            "model_a",
            "model_b",
            "tasks",
            "both",
            "only_a",
            "only_b",
            "neither",
            "accuracy_a",
            "accuracy_b",
            "diff",
            "ci_low",
            "ci_high",
            "mcnemar_p",
            "resamples",
            "seed",
        ],
        [vec![
            a.to_string(),
            b.to_string(),
            p.tasks.to_string(),
            p.both.to_string(),
            p.only_a.to_string(),
            p.only_b.to_string(),
            p.neither.to_string(),
            num(p.accuracy_a),
            num(p.accuracy_b),
            num(p.diff),
            num(p.lo),
            num(p.hi),
            p_value(p.p_value),
            p.resamples.to_string(),
            p.seed.to_string(),
        ]],
    )
}

/// Per task graded for both models: who solved it.
pub fn paired_tasks(ds: &Dataset, tasks: &[PairedTask]) -> String {
    let who = |a: bool, b: bool| match (a, b) {
        (true, true) => "both",
        (true, false) => "a only",
        (false, true) => "b only",
        (false, false) => "neither",
    };
    table(
        &["axis", "n", "kind", "domain", "task", "dag_id", "a_passed", "b_passed", "solved_by"],
        tasks.iter().map(|t| {
            let (ra, rb) = (&ds.records[t.a], &ds.records[t.b]);
            vec![
                ra.axis.to_string(),
                format_n(ra.n),
                ra.kind.to_string(),
                ra.domain.to_string(),
                ra.name.clone(),
                ra.dag_id.clone(),
                u8::from(ra.passed).to_string(),
                u8::from(rb.passed).to_string(),
                who(ra.passed, rb.passed).to_string(),
            ]
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        let t = table(&["a", "b"], [vec!["1".to_string(), "x,y".to_string()]]);
        assert_eq!(t, "a,b\n1,\"x,y\"\n");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(1.0), "1");
        assert_eq!(num(0.83888), "0.8389");
        assert_eq!(num(-0.00001), "0");
    }
}
