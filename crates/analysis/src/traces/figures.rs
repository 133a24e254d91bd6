//! Many traces at once: the paper's figure 3 (mean tool calls and output tokens per label group
//! against `n`, per axis) and table 2 (the distribution of labels), from sessions joined to their
//! tasks. Also the reference's JSONL records of labels (§8.5) and tokens (§8.6), and the usage CSV
//! (§8.7).

use super::{Group, Label, Session};
use crate::results::csv;
use crate::results::input::Problem;
use crate::results::plot::{Bars, Chart, Line, Panel, Pt};
use crate::results::{runs, runs::format_n};
use cabrito_gen::experiment::Experiment;
use cabrito_gen::TaskSpec;
use serde_json::json;
use std::collections::BTreeMap;

/// Where a session sits: its model, experiment, axis and `n`, task set and type.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub model: String,
    pub experiment: String,
    pub axis: String,
    pub n: Option<f64>,
    pub task_set: String,
    pub task_type: String,
}

/// The place of a session from its task's run name, or its Cabrito link.
pub fn place(s: &Session) -> Place {
    let model = if s.model.is_empty() {
        if s.agent.is_empty() {
            "?".to_string()
        } else {
            s.agent.clone()
        }
    } else {
        s.model.clone()
    };
    let (mut experiment, mut axis, mut n) = (String::new(), "?".to_string(), None);
    if !s.task.run.is_empty() {
        let info = runs::parse_run(&s.task.run);
        experiment = info.experiment;
        axis = info.axis;
        n = info.n;
    }
    let mut task_type = s.task.task_type.clone();
    let mut task_set = s.task.task_set.clone();
    // What the run name does not say, the task's link does.
    let spec =
        s.task.link.as_deref().and_then(|q| TaskSpec::from_pairs(q.split('&').filter_map(|p| p.split_once('='))).ok());
    if let Some(spec) = spec {
        if axis == "?" {
            let e = Experiment::of_spec(&spec);
            (axis, experiment) = (e.name().to_string(), e.experiment().to_string());
        }
        n = n.or(Some(f64::from(spec.n)));
        if task_type.is_empty() {
            task_type = spec.kind.to_string();
        }
        if task_set.is_empty() {
            task_set = cabrito_gen::task::task_set(&spec);
        }
    }
    Place { model, experiment, axis, n, task_set, task_type }
}

/// What the sums over many sessions (usage, table 2, figure 3) need of one session, without the
/// text of its calls: so a folder of traces can be summed one session at a time.
#[derive(Clone, Debug, PartialEq)]
pub struct Digest {
    pub id: String,
    pub model: String,
    pub path: String,
    pub usage: super::Usage,
    pub place: Place,
    pub calls: usize,
    /// Calls per label, in [`Label::ALL`]'s order.
    pub labels: [usize; 8],
    /// Calls per group, in [`Group::ALL`]'s order.
    pub group_calls: [usize; 6],
    /// Output tokens (§8.6) of the calls per group, in [`Group::ALL`]'s order.
    pub group_tokens: [f64; 6],
}

/// A session's [`Digest`].
pub fn digest(s: &Session) -> Digest {
    let mut d = Digest {
        id: s.id.clone(),
        model: s.model.clone(),
        path: s.path.clone(),
        usage: s.usage.clone(),
        place: place(s),
        calls: s.calls.len(),
        labels: [0; 8],
        group_calls: [0; 6],
        group_tokens: [0.0; 6],
    };
    for c in &s.calls {
        let l = c.effective_label();
        d.labels[Label::ALL.iter().position(|x| *x == l).unwrap_or(7)] += 1;
        let g = Group::ALL.iter().position(|x| *x == l.group()).unwrap_or(5);
        d.group_calls[g] += 1;
        if let Some(t) = c.output_tokens {
            d.group_tokens[g] += t;
        }
    }
    d
}

fn digests(sessions: &[&Session]) -> Vec<Digest> {
    sessions.iter().map(|s| digest(s)).collect()
}

/// Figure 3's numbers for one group in one cell (model × axis × n).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupPoint {
    pub model: String,
    pub axis: String,
    pub n: Option<f64>,
    pub group: Group,
    pub sessions: usize,
    pub mean_calls: f64,
    pub se_calls: f64,
    /// Thousands of output tokens (§8.6) per session.
    pub mean_tokens_k: f64,
    pub se_tokens_k: f64,
}

fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let m = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (m, 0.0);
    }
    let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, libm::sqrt(var / n))
}

/// Per model × axis × n × group: mean calls and output tokens per session, with standard errors.
pub fn figure3(sessions: &[&Session]) -> Vec<GroupPoint> {
    figure3_of(&digests(sessions))
}

/// [`figure3`] from digests.
pub fn figure3_of(digests: &[Digest]) -> Vec<GroupPoint> {
    let mut cells: BTreeMap<(String, usize, String, i64), Vec<&Digest>> = BTreeMap::new();
    let mut ns: BTreeMap<(String, usize, String, i64), Option<f64>> = BTreeMap::new();
    for d in digests {
        let p = &d.place;
        let key = (p.model.clone(), runs::axis_rank(&p.axis), p.axis.clone(), crate::results::aggregate::n_key(p.n));
        ns.insert(key.clone(), p.n);
        cells.entry(key).or_default().push(d);
    }
    let mut out = Vec::new();
    for (key, ds) in cells {
        for (gi, &g) in Group::ALL.iter().enumerate() {
            let calls: Vec<f64> = ds.iter().map(|d| d.group_calls[gi] as f64).collect();
            let tokens: Vec<f64> = ds.iter().map(|d| d.group_tokens[gi] / 1000.0).collect();
            let (mc, sc) = mean_se(&calls);
            let (mt, st) = mean_se(&tokens);
            out.push(GroupPoint {
                model: key.0.clone(),
                axis: key.2.clone(),
                n: ns[&key],
                group: g,
                sessions: ds.len(),
                mean_calls: mc,
                se_calls: sc,
                mean_tokens_k: mt,
                se_tokens_k: st,
            });
        }
    }
    out
}

/// Figure 3 as two charts: mean calls, and mean output tokens (thousands), per label group against
/// `n`; one column per axis, one row per model; error bars ± one standard error.
pub fn figure3_charts(points: &[GroupPoint]) -> (Chart, Chart) {
    let mut axes: Vec<String> = points.iter().map(|p| p.axis.clone()).collect();
    axes.sort_by_key(|a| (runs::axis_rank(a), a.clone()));
    axes.dedup();
    let mut models: Vec<String> = points.iter().map(|p| p.model.clone()).collect();
    models.sort();
    models.dedup();
    let make = |tokens: bool| -> Chart {
        let mut panels = Vec::new();
        for m in &models {
            for a in &axes {
                let lines = Group::ALL
                    .iter()
                    .enumerate()
                    .map(|(gi, g)| Line {
                        name: g.as_str().into(),
                        colour: gi,
                        points: points
                            .iter()
                            .filter(|p| &p.model == m && &p.axis == a && p.group == *g)
                            .filter_map(|p| {
                                let (y, se) =
                                    if tokens { (p.mean_tokens_k, p.se_tokens_k) } else { (p.mean_calls, p.se_calls) };
                                Some(Pt {
                                    x: p.n?,
                                    y,
                                    lo: Some((y - se).max(0.0)),
                                    hi: Some(y + se),
                                    tip: format!(
                                        "{m} · {a} · n = {} · {}: {:.2} {} per session (± {:.2}), {} sessions",
                                        format_n(p.n),
                                        g.as_str(),
                                        y,
                                        if tokens { "thousand output tokens" } else { "calls" },
                                        se,
                                        p.sessions
                                    ),
                                    data: vec![
                                        ("model".into(), m.clone()),
                                        ("axis".into(), a.clone()),
                                        ("n".into(), format_n(p.n)),
                                        ("group".into(), g.as_str().into()),
                                    ],
                                })
                            })
                            .collect(),
                    })
                    .collect();
                panels.push(Panel { title: format!("{m} · {a}"), lines });
            }
        }
        Chart {
            id: if tokens { "fig-tokens".into() } else { "fig-calls".into() },
            title: if tokens {
                "Output tokens per label group (thousands per session)".into()
            } else {
                "Tool calls per label group (per session)".into()
            },
            x_label: "n".into(),
            y_label: if tokens { "thousand tokens".into() } else { "tool calls".into() },
            y_range: None,
            log_x: true,
            percent: false,
            zero_line: true,
            columns: axes.len().max(1),
            panels,
            legend: Group::ALL.iter().enumerate().map(|(i, g)| (g.as_str().to_string(), i)).collect(),
        }
    };
    (make(false), make(true))
}

/// Table 2: the distribution of labels per model and axis (calls and shares).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelRow {
    pub model: String,
    pub axis: String,
    pub sessions: usize,
    pub counts: BTreeMap<Label, usize>,
}

impl LabelRow {
    pub fn total(&self) -> usize {
        self.counts.values().sum()
    }
}

pub fn table2(sessions: &[&Session]) -> Vec<LabelRow> {
    table2_of(&digests(sessions))
}

/// [`table2`] from digests.
pub fn table2_of(digests: &[Digest]) -> Vec<LabelRow> {
    let mut rows: BTreeMap<(String, usize, String), LabelRow> = BTreeMap::new();
    for d in digests {
        let p = &d.place;
        let r = rows.entry((p.model.clone(), runs::axis_rank(&p.axis), p.axis.clone())).or_insert_with(|| LabelRow {
            model: p.model.clone(),
            axis: p.axis.clone(),
            sessions: 0,
            counts: BTreeMap::new(),
        });
        r.sessions += 1;
        for (l, &k) in Label::ALL.iter().zip(&d.labels) {
            if k > 0 {
                *r.counts.entry(*l).or_default() += k;
            }
        }
    }
    rows.into_values().collect()
}

pub fn table2_csv(rows: &[LabelRow]) -> String {
    let mut header = vec!["model", "axis", "sessions", "calls"];
    header.extend(Label::ALL.iter().map(|l| l.as_str()));
    header.extend([
        "share_read",
        "share_search",
        "share_understand",
        "share_edit",
        "share_test",
        "share_summary",
        "share_plan",
        "share_other",
    ]);
    csv::table(
        &header,
        rows.iter().map(|r| {
            let total = r.total();
            let mut v = vec![r.model.clone(), r.axis.clone(), r.sessions.to_string(), total.to_string()];
            v.extend(Label::ALL.iter().map(|l| r.counts.get(l).copied().unwrap_or(0).to_string()));
            v.extend(Label::ALL.iter().map(|l| {
                let c = r.counts.get(l).copied().unwrap_or(0);
                format!("{:.4}", if total == 0 { 0.0 } else { c as f64 / total as f64 })
            }));
            v
        }),
    )
}

pub fn table2_chart(rows: &[LabelRow]) -> Bars {
    Bars {
        id: "fig-labels".into(),
        title: "Distribution of tool-call labels (table 2)".into(),
        rows: rows
            .iter()
            .map(|r| {
                let total = r.total().max(1) as f64;
                (
                    format!("{} · {} ({} sessions)", r.model, r.axis, r.sessions),
                    Label::ALL
                        .iter()
                        .enumerate()
                        .map(|(i, l)| {
                            let c = r.counts.get(l).copied().unwrap_or(0);
                            (i, c as f64, format!("{}: {c} calls ({:.1}%)", l.as_str(), 100.0 * c as f64 / total))
                        })
                        .collect(),
                )
            })
            .collect(),
        legend: Label::ALL.iter().enumerate().map(|(i, l)| (l.as_str().to_string(), i)).collect(),
    }
}

pub fn figure3_csv(points: &[GroupPoint]) -> String {
    csv::table(
        &[
            "model",
            "axis",
            "n",
            "group",
            "sessions",
            "mean_calls",
            "se_calls",
            "mean_output_tokens_k",
            "se_output_tokens_k",
        ],
        points.iter().map(|p| {
            vec![
                p.model.clone(),
                p.axis.clone(),
                format_n(p.n),
                p.group.as_str().into(),
                p.sessions.to_string(),
                format!("{:.4}", p.mean_calls),
                format!("{:.4}", p.se_calls),
                format!("{:.4}", p.mean_tokens_k),
                format!("{:.4}", p.se_tokens_k),
            ]
        }),
    )
}

const MAX_INFO: usize = 12_000;

fn truncate_middle(s: &str, budget: usize) -> String {
    if s.chars().count() <= budget {
        return s.to_string();
    }
    let half = budget / 2;
    let head: String = s.chars().take(half).collect();
    let tail: String = s.chars().rev().take(half).collect::<Vec<_>>().into_iter().rev().collect();
    format!("{head}\n…[truncated]…\n{tail}")
}

/// Counts what is written to it, and fails past a limit (to learn whether a value is short
/// without writing it all out).
struct Meter {
    n: usize,
    max: usize,
}

impl std::io::Write for Meter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.n += buf.len();
        if self.n > self.max {
            return Err(std::io::Error::other("long"));
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The arguments of a label record: as they are, or, past [`MAX_INFO`] characters, pretty-printed
/// and cut in the middle as the classifier sees them (§8.5).
fn shown_arguments(v: &serde_json::Value) -> serde_json::Value {
    if serde_json::to_writer(&mut Meter { n: 0, max: MAX_INFO }, v).is_ok() {
        return v.clone();
    }
    let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
    serde_json::Value::String(truncate_middle(&pretty, MAX_INFO))
}

/// One label record per tool call, in the reference's JSONL shape (§8.5), with `reason` = the rule.
pub fn label_records(s: &Session) -> Vec<serde_json::Value> {
    let p = place(s);
    s.calls
        .iter()
        .map(|c| {
            let turn = s.turns.get(c.turn);
            json!({
                "experiment": if p.experiment.is_empty() { p.axis.clone() } else { p.experiment.clone() },
                "task_set_name": p.task_set,
                "task_type": p.task_type,
                "model": p.model,
                "run_name": s.task.run,
                "task_name": s.task.name,
                "dag_id": s.task.dag_id,
                "session_id": s.id,
                "tool_call_index": c.index,
                "tool_call_information": {
                    "assistant_reasoning_text": truncate_middle(turn.map_or("", |t| t.reasoning.as_str()), 8000),
                    "assistant_content": truncate_middle(turn.map_or("", |t| t.content.as_str()), 4000),
                    "tool_request_index": c.request_index,
                    "tool_name": c.tool,
                    "tool_arguments": shown_arguments(&c.arguments),
                    "tool_intention_summary": truncate_middle(&c.intention, 2000),
                },
                "label": c.effective_label().as_str(),
                "reason": if c.given_label.is_some() { "given in the trace".to_string() } else { truncate_middle(&c.rule, MAX_INFO) },
                "classifier": "cabrito-rules/1",
            })
        })
        .collect()
}

/// One token row per tool call (§8.6).
pub fn token_records(s: &Session) -> Vec<serde_json::Value> {
    let p = place(s);
    s.calls
        .iter()
        .map(|c| {
            json!({
                "run_name": s.task.run, "task_set_name": p.task_set, "task_type": p.task_type, "model": p.model,
                "dag_id": s.task.dag_id, "session_id": s.id, "tool_call_index": c.index, "label": c.effective_label().as_str(),
                "tool_call_tokens": c.output_tokens,
            })
        })
        .collect()
}

/// Session usage as the reference's CSV (§8.7).
pub fn usage_csv(sessions: &[&Session]) -> String {
    usage_csv_of(&digests(sessions))
}

/// [`usage_csv`] from digests.
pub fn usage_csv_of(digests: &[Digest]) -> String {
    let f = |x: Option<f64>| {
        x.map(|v| if v.fract() == 0.0 { format!("{}", v as i64) } else { format!("{v}") }).unwrap_or_default()
    };
    csv::table(
        &[
            "session_id",
            "model",
            "total_nano_aiu",
            "total_aiu",
            "total_premium_requests",
            "input_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "output_tokens",
            "total_tokens",
            "usage_source",
            "token_usage_source",
            "trace_path",
        ],
        digests.iter().map(|s| {
            vec![
                s.id.clone(),
                s.model.clone(),
                f(s.usage.total_nano_aiu),
                f(s.usage.total_aiu()),
                f(s.usage.total_premium_requests),
                f(s.usage.input_tokens),
                f(s.usage.cache_read_tokens),
                f(s.usage.cache_write_tokens),
                f(s.usage.output_tokens),
                f(s.usage.total_tokens),
                s.usage.usage_source.clone(),
                s.usage.token_usage_source.clone(),
                s.path.clone(),
            ]
        }),
    )
}

/// The header of `calls.csv`.
pub const CALLS_HEADER: &[&str] = &[
    "session_id",
    "tool_call_index",
    "turn",
    "tool",
    "label",
    "rule_label",
    "rule",
    "output_tokens",
    "model",
    "axis",
    "n",
    "dag_id",
    "run",
];

/// One session's rows of `calls.csv` (no header).
pub fn calls_rows(s: &Session) -> String {
    let p = place(s);
    let table = csv::table(
        &[],
        s.calls.iter().map(|c| {
            vec![
                s.id.clone(),
                c.index.to_string(),
                c.turn.to_string(),
                c.tool.clone(),
                c.effective_label().as_str().to_string(),
                c.label.as_str().to_string(),
                c.rule.clone(),
                c.output_tokens.map(|t| format!("{t:.2}")).unwrap_or_default(),
                p.model.clone(),
                p.axis.clone(),
                format_n(p.n),
                s.task.dag_id.clone(),
                s.task.run.clone(),
            ]
        }),
    );
    // `table` with no header starts with an empty line.
    table[1..].to_string()
}

/// Every call, flat: session, index, turn, tool, label, rule, tokens, and the session's place.
pub fn calls_csv(sessions: &[&Session]) -> String {
    let mut out = csv::table(CALLS_HEADER, Vec::<Vec<String>>::new());
    for s in sessions {
        out.push_str(&calls_rows(s));
    }
    out
}

/// The files written one session at a time, in [`outputs`]' order: labels (§8.5), tokens (§8.6)
/// and calls; each starts with [`streamed_start`] and goes on with [`session_lines`].
pub const STREAMED: [&str; 3] = ["labels.jsonl", "tool_call_token_counts.jsonl", "calls.csv"];

/// What each of [`STREAMED`] starts with.
pub fn streamed_start() -> [String; 3] {
    [String::new(), String::new(), csv::table(CALLS_HEADER, Vec::<Vec<String>>::new())]
}

/// A session's lines of each of [`STREAMED`].
pub fn session_lines(s: &Session) -> [String; 3] {
    let jsonl = |recs: Vec<serde_json::Value>| recs.iter().map(|r| format!("{r}\n")).collect::<String>();
    [jsonl(label_records(s)), jsonl(token_records(s)), calls_rows(s)]
}

/// Every file `cabrito traces` writes: the labels (§8.5) and tokens (§8.6) as JSONL, usage (§8.7),
/// calls, table 2 and figure 3 as CSV, the figures as SVG and an `index.html` showing them.
pub fn outputs(sessions: &[&Session], problems: &[Problem]) -> Vec<(String, String)> {
    let mut streamed = streamed_start();
    for s in sessions {
        for (acc, part) in streamed.iter_mut().zip(session_lines(s)) {
            acc.push_str(&part);
        }
    }
    let [labels, tokens, calls] = streamed;
    let mut files = vec![(STREAMED[0].to_string(), labels), (STREAMED[1].to_string(), tokens)];
    let mut rest = summary_files(&digests(sessions), problems);
    // usage.csv, then calls.csv, as the page lists them.
    files.push(rest.remove(0));
    files.push((STREAMED[2].to_string(), calls));
    files.extend(rest);
    files
}

/// The files of [`outputs`] that sum over sessions (usage, table 2, figure 3, the page and its
/// figures), from the sessions' digests.
pub fn summary_files(digests: &[Digest], problems: &[Problem]) -> Vec<(String, String)> {
    use crate::results::page::{html_head, html_table};
    use crate::results::plot::{esc, render, render_bars};
    let mut files = vec![("usage.csv".to_string(), usage_csv_of(digests))];
    let rows = table2_of(digests);
    files.push(("table2.csv".to_string(), table2_csv(&rows)));
    let points = figure3_of(digests);
    files.push(("figure3.csv".to_string(), figure3_csv(&points)));
    let (calls, tokens) = figure3_charts(&points);
    let svgs = [
        ("figures/calls.svg", "Tool calls per label group against n (figure 3)", render(&calls)),
        ("figures/tokens.svg", "Output tokens per label group against n (figure 3)", render(&tokens)),
        ("figures/labels.svg", "Distribution of labels (table 2)", render_bars(&table2_chart(&rows))),
    ];
    let n_calls: usize = digests.iter().map(|d| d.calls).sum();
    let mut h = html_head("Cabrito traces");
    h.push_str("<h1>Agent traces</h1>\n");
    h.push_str(&format!(
        "<p class=\"muted\">{} sessions, {n_calls} tool calls, labelled by Cabrito's offline rules (<code>cabrito-rules/1</code>: read, search, understand → Analyze, edit, test; summary, plan and other → Other). Error bars: ± one standard error over sessions.</p>\n",
        digests.len()
    ));
    for (file, heading, svg) in &svgs {
        h.push_str(&format!("<h2>{}</h2>\n<figure>{svg}<figcaption class=\"muted\"><a href=\"{file}\">{file}</a></figcaption></figure>\n", esc(heading)));
    }
    h.push_str("<h2>Table 2</h2>\n");
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let total = r.total().max(1) as f64;
            let mut v = vec![r.model.clone(), r.axis.clone(), r.sessions.to_string(), r.total().to_string()];
            v.extend(
                Label::ALL
                    .iter()
                    .map(|l| format!("{:.1}%", 100.0 * r.counts.get(l).copied().unwrap_or(0) as f64 / total)),
            );
            v
        })
        .collect();
    let mut header = vec!["model", "axis", "sessions", "calls"];
    header.extend(Label::ALL.iter().map(|l| l.as_str()));
    h.push_str(&html_table(&header, &table, 2));
    h.push_str("<h2>Files</h2>\n<p>");
    let names = ["labels.jsonl", "tool_call_token_counts.jsonl", "usage.csv", "calls.csv", "table2.csv", "figure3.csv"];
    h.push_str(&names.iter().map(|n| format!("<a href=\"{n}\">{n}</a>")).collect::<Vec<_>>().join(" · "));
    h.push_str("</p>\n");
    if !problems.is_empty() {
        h.push_str("<h2>Problems</h2>\n<ul class=\"bad\">");
        for p in problems.iter().take(500) {
            h.push_str(&format!("<li>{}</li>", esc(&p.to_string())));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("<p class=\"muted\">Made by <code>cabrito traces</code>.</p>\n</body></html>\n");
    files.push(("index.html".to_string(), h));
    for (file, _, svg) in svgs {
        files.push((file.to_string(), format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{svg}\n")));
    }
    files
}
