//! The static report of `cabrito report`: an `index.html` with the SVG figures inline, the figures as
//! files, and CSV tables — a leaderboard that can be committed and hosted anywhere. Pure: it returns
//! (path, contents) pairs and the caller writes them.

use super::aggregate::{self, all_series, Facet, Filter, Point, Series};
use super::csv;
use super::figures;
use super::frontier;
use super::paired;
use super::plot::{self, esc};
use super::read::Dataset;
use super::runs::format_n;

/// What to compare in the report, if anything: (A, B), B − A.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub title: String,
    pub compare: Option<(Series, Series)>,
    /// The playground's address, to make task links absolute (else they are fragments).
    pub app: Option<String>,
    /// Leave `tables/tasks.csv` out: the caller writes it a line at a time ([`csv::tasks_lines`]).
    pub tasks_apart: bool,
}

/// The CSS of the static pages (report and traces), light and dark.
pub const STYLE: &str = "body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1200px;margin:2rem auto;padding:0 1rem;color:#1b1f24;background:#fff}\
h1{font-size:1.6rem}h2{font-size:1.2rem;margin-top:2rem}figure{margin:1rem 0;overflow-x:auto}svg.figure{max-width:100%;height:auto}\
table{border-collapse:collapse;font-size:13px;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:2px 8px;text-align:right}th{background:#f6f8fa}td.l,th.l{text-align:left}\
.muted{color:#57606a}.bad{color:#b3261e}code{font-size:13px}a{color:#0969da}\
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}th{background:#161b22}th,td{border-color:#30363d}.muted{color:#8b949e}a{color:#58a6ff}.bad{color:#ff7b72}}";

/// Start an HTML page (no script, no external resource, no favicon request).
pub fn html_head(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"color-scheme\" content=\"light dark\"><link rel=\"icon\" href=\"data:,\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        esc(title)
    )
}

/// An HTML table.
pub fn html_table(header: &[&str], rows: &[Vec<String>], left: usize) -> String {
    let mut s = String::from("<table><thead><tr>");
    for (i, h) in header.iter().enumerate() {
        s.push_str(&format!("<th{}>{}</th>", if i < left { " class=\"l\"" } else { "" }, esc(h)));
    }
    s.push_str("</tr></thead><tbody>");
    for r in rows {
        s.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            s.push_str(&format!("<td{}>{}</td>", if i < left { " class=\"l\"" } else { "" }, esc(c)));
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table>");
    s
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn point_rows(ds: &Dataset, points: &[Point]) -> Vec<Vec<String>> {
    points
        .iter()
        .map(|p| {
            vec![
                p.series.name(ds),
                p.axis.to_string(),
                p.kind.to_string(),
                p.domain.to_string(),
                format_n(p.n),
                p.tasks.to_string(),
                p.passed.to_string(),
                pct(p.accuracy()),
                format!("{} – {}", pct(p.lo), pct(p.hi)),
            ]
        })
        .collect()
}

/// The paired comparison of B against A, as the page shows it.
fn paired_html(ds: &Dataset, a: &Series, b: &Series, p: &paired::Paired) -> String {
    let p_text = if p.p_value < 1e-3 { format!("{:.1e}", p.p_value) } else { format!("{:.3}", p.p_value) };
    let mut h = format!(
        "<h3>Paired comparison on the {} tasks both were graded on</h3>\n<p class=\"muted\">Solved by one only: {} by {} alone, {} by {} alone (exact McNemar test p = {p_text}). Accuracy {} − {} = {:+.1} points, 95% paired bootstrap interval {:+.1} to {:+.1} ({} resamples of the tasks, seed {}). Per task: <a href=\"tables/paired_tasks.csv\">paired_tasks.csv</a>; summary: <a href=\"tables/paired.csv\">paired.csv</a>.</p>\n",
        p.tasks,
        p.only_a,
        a.name(ds),
        p.only_b,
        b.name(ds),
        b.name(ds),
        a.name(ds),
        p.diff * 100.0,
        p.lo * 100.0,
        p.hi * 100.0,
        p.resamples,
        p.seed
    );
    h.push_str(&html_table(
        &["", &format!("{} solved", b.name(ds)), &format!("{} failed", b.name(ds))],
        &[
            vec![format!("{} solved", a.name(ds)), p.both.to_string(), p.only_a.to_string()],
            vec![format!("{} failed", a.name(ds)), p.only_b.to_string(), p.neither.to_string()],
        ],
        1,
    ));
    h
}

/// Every file of the report, as (path, contents).
pub fn report(ds: &Dataset, opts: &Options) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = Vec::new();
    let _ = report_to(ds, opts, &mut |rel: &str, parts: &[&str], _more: bool| {
        match files.iter_mut().find(|(r, _)| r == rel) {
            Some((_, contents)) => contents.push_str(&parts.concat()),
            None => files.push((rel.to_string(), parts.concat())),
        }
        Ok(())
    });
    files
}

/// Where the report's files go: a file's path, a part of its contents, and whether more of it
/// follows.
pub type Emit<'a> = dyn FnMut(&str, &[&str], bool) -> Result<(), String> + 'a;

/// Every file of the report, each given to `emit` (its path, its contents in parts, and whether
/// more of it follows: the page comes a figure at a time) as soon as it is made, so that a large
/// report is not held whole; the first error of `emit` ends it. Returns how many files it made.
pub fn report_to(ds: &Dataset, opts: &Options, emit: &mut Emit) -> Result<usize, String> {
    let filter = Filter::default();
    // The tables emitted so far (each one's contents dropped once emitted).
    let mut files: Vec<String> = Vec::new();
    fn put(emit: &mut &mut Emit, files: &mut Vec<String>, rel: String, contents: String) -> Result<(), String> {
        emit(&rel, &[&contents], false)?;
        files.push(rel);
        Ok(())
    }
    let mut emit = emit;
    let tables = figures::all_tables(ds, &filter);
    for (name, points) in &tables {
        put(&mut emit, &mut files, format!("tables/{name}.csv"), csv::accuracy(ds, points))?;
    }
    // The page shows the pooled table only.
    let pooled = tables.into_iter().next().map(|(_, points)| points).unwrap_or_default();
    let rates = aggregate::check_failures(ds, &filter);
    put(&mut emit, &mut files, "tables/checks.csv".into(), csv::checks(ds, &rates))?;
    if !opts.tasks_apart {
        put(&mut emit, &mut files, "tables/tasks.csv".into(), csv::tasks(ds, None, opts.app.as_deref().unwrap_or("")))?;
    }

    // The page: its head now, each figure as it is drawn (its file and its place in the page), the
    // rest at the end.
    let title = if opts.title.is_empty() { "Cabrito results".to_string() } else { opts.title.clone() };
    let mut head = html_head(&title);
    head.push_str(&format!("<h1>{}</h1>\n", esc(&title)));
    let series = all_series(ds);
    let read = ds.files.iter().filter(|f| f.records > 0).count();
    head.push_str(&format!(
        "<p class=\"muted\">{} task results and {} summary rows from {read} files; {} models; {} problems. Accuracy is the share of tasks scoring 1 (every required check passes, grading.md §5.4); bars are Wilson 95% intervals.</p>\n",
        ds.records.len(),
        ds.counts.len(),
        series.len(),
        ds.problems.len()
    ));
    emit("index.html", &[&head], true)?;
    drop(head);
    let mut svgs = 0;
    let mut figure = |emit: &mut Emit, file: &str, heading: &str, svg: String| -> Result<(), String> {
        svgs += 1;
        emit(file, &["<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", &svg, "\n"], false)?;
        let caption = format!("<figcaption class=\"muted\"><a href=\"{file}\">{file}</a></figcaption></figure>\n");
        emit("index.html", &[&format!("<h2>{}</h2>\n<figure>", esc(heading)), &svg, &caption], true)
    };
    let frontiers = frontier::frontiers(&aggregate::accuracy(ds, Facet::All, &filter));
    put(&mut emit, &mut files, "tables/frontier.csv".into(), csv::frontier(ds, &frontiers))?;
    for (facet, file, heading) in [
        (Facet::All, "accuracy", "Accuracy against n (the paper's figure 2), with each model's fitted frontier"),
        (Facet::Kind, "accuracy_by_kind", "By kind"),
        (Facet::Domain, "accuracy_by_domain", "By domain"),
    ] {
        let points = aggregate::accuracy(ds, facet, &filter);
        let chart = figures::accuracy_chart(ds, &points, facet, &format!("fig-{file}"));
        let overlays =
            if facet == Facet::All { figures::frontier_overlays(ds, &chart, &frontiers) } else { Vec::new() };
        let svg = plot::render_with(&chart, &overlays);
        figure(&mut *emit, &format!("figures/{file}.svg"), heading, svg)?;
    }
    // What the answers cost, beside their accuracy (when their responses carry a ledger).
    let costs = aggregate::cost(ds, &filter);
    if !costs.is_empty() {
        put(&mut emit, &mut files, "tables/cost.csv".into(), csv::cost(ds, &costs))?;
        let svg = plot::render(&figures::cost_chart(ds, &costs, "fig-cost"));
        figure(&mut *emit, "figures/cost.svg", "Cost against n (the ledger's dollars per task)", svg)?;
    }
    let checks_svg = plot::render(&figures::checks_chart(ds, &rates, "fig-checks"));
    figure(&mut *emit, "figures/checks.svg", "Which checks fail as n grows", checks_svg)?;

    if let Some((a, b)) = &opts.compare {
        let diffs = aggregate::compare(ds, a, b, Facet::All);
        let fine = aggregate::compare(ds, a, b, Facet::Kind);
        let flips = aggregate::flips(ds, a, b);
        put(&mut emit, &mut files, "tables/compare.csv".into(), csv::compare(&diffs))?;
        put(&mut emit, &mut files, "tables/compare_by_kind.csv".into(), csv::compare(&fine))?;
        put(&mut emit, &mut files, "tables/flips.csv".into(), csv::flips(ds, &flips))?;
        let svg = plot::render(&figures::compare_chart(ds, a, b, &diffs, "fig-compare"));
        figure(&mut *emit, "figures/compare.svg", &format!("{} against {}", b.name(ds), a.name(ds)), svg)?;
        let (p, tasks) = paired::compare_paired(ds, a, b, paired::DEFAULT_RESAMPLES, paired::DEFAULT_SEED);
        put(&mut emit, &mut files, "tables/paired.csv".into(), csv::paired_summary(&a.name(ds), &b.name(ds), &p))?;
        put(&mut emit, &mut files, "tables/paired_tasks.csv".into(), csv::paired_tasks(ds, &tasks))?;
        let up = flips.iter().filter(|f| f.now_passes).count();
        let mut compare_html = paired_html(ds, a, b, &p);
        compare_html += &format!(
            "<p>{} tasks flipped: {up} now pass, {} now fail (<a href=\"tables/flips.csv\">flips.csv</a>; per cell: <a href=\"tables/compare.csv\">compare.csv</a>, <a href=\"tables/compare_by_kind.csv\">compare_by_kind.csv</a>).</p>",
            flips.len(),
            flips.len() - up
        );
        emit("index.html", &[&compare_html], true)?;
    }

    let mut h = String::new();
    h.push_str("<h2>Tables</h2>\n<p>");
    let mut names: Vec<&str> = files.iter().map(String::as_str).filter(|p| p.ends_with(".csv")).collect();
    if opts.tasks_apart {
        names.push("tables/tasks.csv");
    }
    names.sort();
    h.push_str(&names.iter().map(|p| format!("<a href=\"{p}\">{p}</a>")).collect::<Vec<_>>().join(" · "));
    h.push_str("</p>\n");
    let pooled = &pooled;
    h.push_str(&html_table(
        &["model", "axis", "kind", "domain", "n", "tasks", "passed", "accuracy", "Wilson 95%"],
        &point_rows(ds, pooled),
        4,
    ));
    if !frontiers.is_empty() {
        h.push_str("<h2>Capability frontier</h2>\n<p class=\"muted\">Per model and axis, a logistic fit of success against ln n (maximum likelihood over the tasks); n50 is the n at which the fitted success falls to 50%, with a 95% interval (delta method on ln n50). Drawn dashed on the accuracy plot, n50 marked at 50%. <a href=\"tables/frontier.csv\">frontier.csv</a></p>\n");
        let rows: Vec<Vec<String>> = frontiers
            .iter()
            .map(|f| {
                vec![
                    f.series.name(ds),
                    f.axis.to_string(),
                    f.groups.len().to_string(),
                    f.groups.iter().map(|g| g.tasks).sum::<usize>().to_string(),
                    f.crossing.describe(),
                ]
            })
            .collect();
        h.push_str(&html_table(&["model", "axis", "sizes", "tasks", "where success falls to 50%"], &rows, 2));
    }
    let worst = aggregate::worst_checks(&rates);
    if !worst.is_empty() {
        h.push_str("<h2>Checks, most failed first</h2>\n");
        let rows: Vec<Vec<String>> = worst
            .iter()
            .map(|(k, f, t)| {
                vec![
                    k.to_string(),
                    t.to_string(),
                    f.to_string(),
                    pct(if *t == 0 { 0.0 } else { *f as f64 / *t as f64 }),
                ]
            })
            .collect();
        h.push_str(&html_table(&["check", "tasks", "failed", "share"], &rows, 1));
    }
    if !ds.problems.is_empty() {
        h.push_str("<h2>Problems</h2>\n<ul class=\"bad\">");
        for p in ds.problems.iter().take(500) {
            h.push_str(&format!("<li>{}</li>", esc(&p.to_string())));
        }
        h.push_str("</ul>\n");
    }
    if let Some(app) = &opts.app {
        h.push_str(&format!(
            "<p class=\"muted\">Tasks open in the playground at <a href=\"{0}\">{0}</a> (links in tasks.csv).</p>\n",
            esc(app)
        ));
    }
    h.push_str("<p class=\"muted\">Made by <code>cabrito report</code>.</p>\n</body></html>\n");
    emit("index.html", &[&h], false)?;
    Ok(files.len() + svgs + 1)
}
