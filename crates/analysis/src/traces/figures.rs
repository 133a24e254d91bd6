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
    let mut cells: BTreeMap<(String, usize, String, i64), Vec<&Session>> = BTreeMap::new();
    let mut ns: BTreeMap<(String, usize, String, i64), Option<f64>> = BTreeMap::new();
    for s in sessions {
        let p = place(s);
        let key = (p.model.clone(), runs::axis_rank(&p.axis), p.axis.clone(), crate::results::aggregate::n_key(p.n));
        ns.insert(key.clone(), p.n);
        cells.entry(key).or_default().push(s);
    }
    let mut out = Vec::new();
    for (key, ss) in cells {
        for &g in Group::ALL {
            let calls: Vec<f64> =
                ss.iter().map(|s| s.calls.iter().filter(|c| c.effective_label().group() == g).count() as f64).collect();
            let tokens: Vec<f64> = ss
                .iter()
                .map(|s| {
                    s.calls
                        .iter()
                        .filter(|c| c.effective_label().group() == g)
                        .filter_map(|c| c.output_tokens)
                        .sum::<f64>()
                        / 1000.0
                })
                .collect();
            let (mc, sc) = mean_se(&calls);
            let (mt, st) = mean_se(&tokens);
            out.push(GroupPoint {
                model: key.0.clone(),
                axis: key.2.clone(),
                n: ns[&key],
                group: g,
                sessions: ss.len(),
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
    let mut rows: BTreeMap<(String, usize, String), LabelRow> = BTreeMap::new();
    for s in sessions {
        let p = place(s);
        let r = rows.entry((p.model.clone(), runs::axis_rank(&p.axis), p.axis.clone())).or_insert_with(|| LabelRow {
            model: p.model.clone(),
            axis: p.axis.clone(),
            sessions: 0,
            counts: BTreeMap::new(),
        });
        r.sessions += 1;
        for c in &s.calls {
            *r.counts.entry(c.effective_label()).or_default() += 1;
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
                    "tool_arguments": c.arguments,
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
        sessions.iter().map(|s| {
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

/// Every call, flat: session, index, turn, tool, label, rule, tokens, and the session's place.
pub fn calls_csv(sessions: &[&Session]) -> String {
    let mut rows = Vec::new();
    for s in sessions {
        let p = place(s);
        for c in &s.calls {
            rows.push(vec![
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
            ]);
        }
    }
    csv::table(
        &[
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
        ],
        rows,
    )
}

/// Every file `cabrito traces` writes: the labels (§8.5) and tokens (§8.6) as JSONL, usage (§8.7),
/// calls, table 2 and figure 3 as CSV, the figures as SVG and an `index.html` showing them.
pub fn outputs(sessions: &[&Session], problems: &[Problem]) -> Vec<(String, String)> {
    use crate::results::page::{html_head, html_table};
    use crate::results::plot::{esc, render, render_bars};
    let mut files = Vec::new();
    let jsonl = |recs: Vec<serde_json::Value>| recs.iter().map(|r| format!("{r}\n")).collect::<String>();
    files.push(("labels.jsonl".to_string(), sessions.iter().map(|s| jsonl(label_records(s))).collect::<String>()));
    files.push((
        "tool_call_token_counts.jsonl".to_string(),
        sessions.iter().map(|s| jsonl(token_records(s))).collect::<String>(),
    ));
    files.push(("usage.csv".to_string(), usage_csv(sessions)));
    files.push(("calls.csv".to_string(), calls_csv(sessions)));
    let rows = table2(sessions);
    files.push(("table2.csv".to_string(), table2_csv(&rows)));
    let points = figure3(sessions);
    files.push(("figure3.csv".to_string(), figure3_csv(&points)));
    let (calls, tokens) = figure3_charts(&points);
    let svgs = [
        ("figures/calls.svg", "Tool calls per label group against n (figure 3)", render(&calls)),
        ("figures/tokens.svg", "Output tokens per label group against n (figure 3)", render(&tokens)),
        ("figures/labels.svg", "Distribution of labels (table 2)", render_bars(&table2_chart(&rows))),
    ];
    let n_calls: usize = sessions.iter().map(|s| s.calls.len()).sum();
    let mut h = html_head("Cabrito traces");
    h.push_str("<h1>Agent traces</h1>\n");
    h.push_str(&format!(
        "<p class=\"muted\">{} sessions, {n_calls} tool calls, labelled by Cabrito's offline rules (<code>cabrito-rules/1</code>: read, search, understand → Analyze, edit, test; summary, plan and other → Other). Error bars: ± one standard error over sessions.</p>\n",
        sessions.len()
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
