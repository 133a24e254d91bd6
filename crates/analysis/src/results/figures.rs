//! The results figures, as [`Chart`]s: accuracy against `n` per axis (figure 2 of the paper, and its
//! facets by kind and by domain), the failing checks against `n`, the difference between two
//! result sets, and what answers cost against `n`.

use super::aggregate::{self, all_series, CheckRate, CostPoint, Diff, Facet, Filter, Point, Series};
use super::frontier::{Crossing, Frontier};
use super::plot::{Chart, Line, Overlay, Panel, Pt};
use super::read::Dataset;
use super::runs::{self, format_n};
use cabrito_gen::spec::{Domain, Kind};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Where a kind or a domain goes among the facets: registry order, then the rest (`-`: no domain).
fn rank(order: &[&str], s: &str) -> usize {
    order.iter().position(|x| *x == s).unwrap_or(order.len() + usize::from(s != "-"))
}

/// The axes present, in the paper's order.
pub fn axes_of<'a>(axes: impl Iterator<Item = &'a Arc<str>>) -> Vec<Arc<str>> {
    let mut v: Vec<Arc<str>> = axes.cloned().collect::<BTreeSet<_>>().into_iter().collect();
    v.sort_by_key(|a| (runs::axis_rank(a), a.to_string()));
    v
}

/// The facet values present, in display order.
pub fn facet_values(points: &[Point], facet: Facet) -> Vec<Arc<str>> {
    let mut v: Vec<Arc<str>> = points
        .iter()
        .map(|p| match facet {
            Facet::All => p.kind.clone(),
            Facet::Kind => p.kind.clone(),
            Facet::Domain => p.domain.clone(),
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    match facet {
        Facet::Kind => v.sort_by_key(|k| (rank(Kind::NAMES, k), k.to_string())),
        Facet::Domain => v.sort_by_key(|d| (rank(Domain::NAMES, d), d.to_string())),
        Facet::All => {}
    }
    v
}

/// The colour of each series: its position among all series, so it is the same in every figure.
pub fn colours(ds: &Dataset) -> BTreeMap<Series, usize> {
    all_series(ds).into_iter().enumerate().map(|(i, s)| (s, i)).collect()
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// Accuracy against `n`: one column per axis, one row per facet value, one line per series,
/// Wilson 95% intervals as error bars. Points carry `data-series`, `data-axis`, `data-kind`,
/// `data-domain` and `data-n`.
pub fn accuracy_chart(ds: &Dataset, points: &[Point], facet: Facet, id: &str) -> Chart {
    let colours = colours(ds);
    let axes = axes_of(points.iter().map(|p| &p.axis));
    let values = facet_values(points, facet);
    let series: Vec<Series> = points.iter().map(|p| p.series.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let mut panels = Vec::new();
    for v in &values {
        for axis in &axes {
            let title = match facet {
                Facet::All => axis.to_string(),
                _ => format!("{v} · {axis}"),
            };
            let lines = series
                .iter()
                .map(|s| {
                    let pts = points
                        .iter()
                        .filter(|p| p.series == *s && p.axis == *axis)
                        .filter(|p| match facet {
                            Facet::All => true,
                            Facet::Kind => p.kind == *v,
                            Facet::Domain => p.domain == *v,
                        })
                        .filter_map(|p| {
                            let n = p.n?;
                            Some(Pt {
                                x: n,
                                y: p.accuracy(),
                                lo: Some(p.lo),
                                hi: Some(p.hi),
                                tip: format!(
                                    "{} · {} · n = {}: {}/{} = {} (95% {}–{}){}",
                                    s.name(ds),
                                    title,
                                    format_n(p.n),
                                    p.passed,
                                    p.tasks,
                                    percent(p.accuracy()),
                                    percent(p.lo),
                                    percent(p.hi),
                                    if p.records.is_empty() {
                                        " · counts from a summary"
                                    } else {
                                        " · click for the tasks"
                                    }
                                ),
                                data: vec![
                                    ("series".into(), s.key()),
                                    ("axis".into(), p.axis.to_string()),
                                    ("kind".into(), p.kind.to_string()),
                                    ("domain".into(), p.domain.to_string()),
                                    ("n".into(), format_n(p.n)),
                                ],
                            })
                        })
                        .collect();
                    Line { name: s.name(ds), colour: colours.get(s).copied().unwrap_or(0), points: pts }
                })
                .collect();
            panels.push(Panel { title, lines });
        }
    }
    let title = match facet {
        Facet::All => "Accuracy against n, per axis".to_string(),
        Facet::Kind => "Accuracy against n, per kind and axis".to_string(),
        Facet::Domain => "Accuracy against n, per domain and axis".to_string(),
    };
    Chart {
        id: id.to_string(),
        title,
        x_label: "n".into(),
        y_label: "accuracy".into(),
        y_range: Some((0.0, 1.0)),
        log_x: true,
        percent: true,
        zero_line: false,
        columns: axes.len().max(1),
        panels,
        legend: series.iter().map(|s| (s.name(ds), colours.get(s).copied().unwrap_or(0))).collect(),
    }
}

/// The cost of an answer against `n` (the ledger's dollars per task): one panel per axis, one line
/// per series. Points carry `data-series`, `data-axis` and `data-n`.
pub fn cost_chart(ds: &Dataset, points: &[CostPoint], id: &str) -> Chart {
    let colours = colours(ds);
    let axes = axes_of(points.iter().map(|p| &p.axis));
    let series: Vec<Series> = points.iter().map(|p| p.series.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let panels = axes
        .iter()
        .map(|axis| Panel {
            title: axis.to_string(),
            lines: series
                .iter()
                .map(|s| Line {
                    name: s.name(ds),
                    colour: colours.get(s).copied().unwrap_or(0),
                    points: points
                        .iter()
                        .filter(|p| p.series == *s && p.axis == *axis)
                        .filter_map(|p| {
                            Some(Pt {
                                x: p.n?,
                                y: p.cost,
                                lo: None,
                                hi: None,
                                tip: format!(
                                    "{} · {axis} · n = {}: ${:.4} a task ({:.0} calls, {:.0} input tokens; {} tasks)",
                                    s.name(ds),
                                    format_n(p.n),
                                    p.cost,
                                    p.tool_calls,
                                    p.input_tokens,
                                    p.tasks
                                ),
                                data: vec![
                                    ("series".into(), s.key()),
                                    ("axis".into(), axis.to_string()),
                                    ("n".into(), format_n(p.n)),
                                ],
                            })
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect();
    Chart {
        id: id.to_string(),
        title: "Cost of an answer against n, per axis".into(),
        x_label: "n".into(),
        y_label: "dollars per task".into(),
        y_range: None,
        log_x: true,
        percent: false,
        zero_line: false,
        columns: axes.len().max(1),
        panels,
        legend: series.iter().map(|s| (s.name(ds), colours.get(s).copied().unwrap_or(0))).collect(),
    }
}

/// The failure rate of each check against `n`: one column per axis, one row per series, one line
/// per check that ever fails.
pub fn checks_chart(ds: &Dataset, rates: &[CheckRate], id: &str) -> Chart {
    let failing: Vec<Arc<str>> =
        aggregate::worst_checks(rates).into_iter().filter(|(_, f, _)| *f > 0).map(|(k, _, _)| k).collect();
    let axes = axes_of(rates.iter().map(|r| &r.axis));
    let series: Vec<Series> = rates.iter().map(|r| r.series.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let mut panels = Vec::new();
    for s in &series {
        for axis in &axes {
            let lines = failing
                .iter()
                .enumerate()
                .map(|(ci, check)| Line {
                    name: check.to_string(),
                    colour: ci,
                    points: rates
                        .iter()
                        .filter(|r| r.series == *s && r.axis == *axis && r.check == *check)
                        .filter_map(|r| {
                            Some(Pt {
                                x: r.n?,
                                y: r.rate(),
                                lo: None,
                                hi: None,
                                tip: format!(
                                    "{} · {axis} · n = {}: {} failed in {}/{} tasks ({})",
                                    s.name(ds),
                                    format_n(r.n),
                                    check,
                                    r.failed,
                                    r.tasks,
                                    percent(r.rate())
                                ),
                                data: vec![
                                    ("series".into(), s.key()),
                                    ("axis".into(), axis.to_string()),
                                    ("check".into(), check.to_string()),
                                    ("n".into(), format_n(r.n)),
                                ],
                            })
                        })
                        .collect(),
                })
                .collect();
            panels.push(Panel { title: format!("{} · {axis}", s.name(ds)), lines });
        }
    }
    Chart {
        id: id.to_string(),
        title: "Which checks fail as n grows (share of tasks failing each check)".into(),
        x_label: "n".into(),
        y_label: "tasks failing".into(),
        y_range: Some((0.0, 1.0)),
        log_x: true,
        percent: true,
        zero_line: false,
        columns: axes.len().max(1),
        panels,
        legend: failing.iter().enumerate().map(|(i, c)| (c.to_string(), i)).collect(),
    }
}

/// B − A against `n`, per axis, with Newcombe 95% intervals.
pub fn compare_chart(ds: &Dataset, a: &Series, b: &Series, diffs: &[Diff], id: &str) -> Chart {
    let axes = axes_of(diffs.iter().map(|d| &d.axis));
    let name = format!("{} − {}", b.name(ds), a.name(ds));
    let panels = axes
        .iter()
        .map(|axis| Panel {
            title: axis.to_string(),
            lines: vec![Line {
                name: name.clone(),
                colour: 3,
                points: diffs
                    .iter()
                    .filter(|d| d.axis == *axis)
                    .filter_map(|d| {
                        Some(Pt {
                            x: d.n?,
                            y: d.diff,
                            lo: Some(d.lo),
                            hi: Some(d.hi),
                            tip: format!(
                                "{axis} · n = {}: {}/{} vs {}/{}: {:+.0} points (95% {:+.0} to {:+.0})",
                                format_n(d.n),
                                d.b_passed,
                                d.b_tasks,
                                d.a_passed,
                                d.a_tasks,
                                d.diff * 100.0,
                                d.lo * 100.0,
                                d.hi * 100.0
                            ),
                            data: vec![("axis".into(), axis.to_string()), ("n".into(), format_n(d.n))],
                        })
                    })
                    .collect(),
            }],
        })
        .collect();
    Chart {
        id: id.to_string(),
        title: format!("Difference in accuracy: {name}"),
        x_label: "n".into(),
        y_label: "difference".into(),
        y_range: Some((-1.0, 1.0)),
        log_x: true,
        percent: true,
        zero_line: true,
        columns: axes.len().max(1),
        panels,
        legend: vec![(name, 3)],
    }
}

/// Accuracy points of every facet, for the tables (pooled, by kind, by domain, and both).
pub fn all_tables(ds: &Dataset, filter: &Filter) -> [(String, Vec<Point>); 4] {
    [
        ("accuracy_by_axis".to_string(), aggregate::accuracy(ds, Facet::All, filter)),
        ("accuracy_by_kind".to_string(), aggregate::accuracy(ds, Facet::Kind, filter)),
        ("accuracy_by_domain".to_string(), aggregate::accuracy(ds, Facet::Domain, filter)),
        ("accuracy".to_string(), aggregate::accuracy_fine(ds, filter)),
    ]
}

/// The capability frontier drawn on the accuracy chart of [`Facet::All`]: per series and axis the
/// fitted logistic curve, and where it crosses 50% a mark at `n50` with its interval.
pub fn frontier_overlays(ds: &Dataset, chart: &Chart, frontiers: &[Frontier]) -> Vec<Overlay> {
    let colours = colours(ds);
    frontiers
        .iter()
        .filter_map(|f| {
            let panel = chart.panels.iter().position(|p| p.title == *f.axis)?;
            let fit = f.fit?;
            let (lo, hi) =
                f.groups.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), g| (a.min(g.n), b.max(g.n)));
            if !(lo.is_finite() && hi.is_finite() && lo > 0.0) {
                return None;
            }
            let steps = 48;
            let curve = (0..=steps)
                .map(|i| {
                    let x = libm::exp(libm::log(lo) + (libm::log(hi) - libm::log(lo)) * i as f64 / steps as f64);
                    (x, fit.at(x))
                })
                .collect();
            let mark = match f.crossing {
                Crossing::At { n50, lo, hi } => Some((n50, lo, hi, 0.5)),
                _ => None,
            };
            Some(Overlay {
                panel,
                colour: colours.get(&f.series).copied().unwrap_or(0),
                curve,
                mark,
                tip: format!("{} · {}: logistic fit; {}", f.series.name(ds), f.axis, f.crossing.describe()),
            })
        })
        .collect()
}
