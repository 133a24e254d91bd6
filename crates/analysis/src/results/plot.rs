//! Figures as SVG text, built in Rust: panels of lines with error bars on a (log) x axis, and
//! stacked bars. The same text is drawn inline by the app (which listens for clicks on the points
//! through their `data-*` attributes), written by `cabrito report` and `cabrito traces`, and
//! exported as `.svg` files. Text and axes use `currentColor`, so a page's colour scheme applies
//! inline and a standalone file draws black on white.

use std::fmt::Write;

/// Colours of the lines (Okabe–Ito first, readable for colour-blind readers, then more).
pub const PALETTE: &[&str] = &[
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF",
    "#000000", "#F0E442",
];

pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Escape text for SVG/HTML content and attribute values (one escaper for every drawing).
pub use cabrito_gen::graph::svg::esc;

/// One point: where it is, its interval, a tooltip and `data-*` attributes (names without the
/// `data-` prefix) that identify it to whoever listens for clicks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub tip: String,
    pub data: Vec<(String, String)>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    pub name: String,
    /// Index into [`PALETTE`].
    pub colour: usize,
    pub points: Vec<Pt>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Panel {
    pub title: String,
    pub lines: Vec<Line>,
}

/// A grid of panels sharing their axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub id: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Fixed y range (else from the data).
    pub y_range: Option<(f64, f64)>,
    pub log_x: bool,
    /// Show y values as percentages.
    pub percent: bool,
    /// Draw a line at y = 0.
    pub zero_line: bool,
    pub columns: usize,
    pub panels: Vec<Panel>,
    /// Legend entries (name, colour index).
    pub legend: Vec<(String, usize)>,
}

impl Default for Chart {
    fn default() -> Self {
        Chart {
            id: "figure".into(),
            title: String::new(),
            x_label: "n".into(),
            y_label: String::new(),
            y_range: None,
            log_x: true,
            percent: false,
            zero_line: false,
            columns: 1,
            panels: Vec::new(),
            legend: Vec::new(),
        }
    }
}

const PW: f64 = 250.0;
const PH: f64 = 190.0;
const PL: f64 = 46.0;
const PR: f64 = 12.0;
const PT: f64 = 24.0;
const PB: f64 = 36.0;
const MARGIN: f64 = 10.0;
const LEGEND_ROW: f64 = 18.0;

fn fmt_num(x: f64) -> String {
    if x.abs() >= 1000.0 || x.fract().abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else if (x * 10.0).fract().abs() < 1e-9 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Ticks for a linear range: about five round values.
pub fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return vec![lo];
    }
    let raw = (hi - lo) / 5.0;
    let mag = libm::pow(10.0, libm::floor(libm::log10(raw)));
    let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|s| raw <= *s).unwrap_or(10.0 * mag);
    let mut t = libm::ceil(lo / step - 1e-9) * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-6 && out.len() < 20 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

/// Ticks for a log range: the values present when there are few, else 1-2-5 steps.
pub fn log_ticks(lo: f64, hi: f64, present: &[f64]) -> Vec<f64> {
    let mut p: Vec<f64> = present.iter().copied().filter(|x| *x > 0.0 && x.is_finite()).collect();
    p.sort_by(|a, b| a.total_cmp(b));
    p.dedup();
    if !p.is_empty() && p.len() <= 8 {
        return p;
    }
    let mut out = Vec::new();
    let mut dec = libm::pow(10.0, libm::floor(libm::log10(lo.max(1e-9))));
    while dec <= hi * 1.0001 && out.len() < 30 {
        for m in [1.0, 2.0, 5.0] {
            let v = m * dec;
            if v >= lo * 0.9999 && v <= hi * 1.0001 {
                out.push(v);
            }
        }
        dec *= 10.0;
    }
    out
}

struct Scale {
    lo: f64,
    hi: f64,
    log: bool,
    a: f64,
    b: f64,
}

impl Scale {
    fn map(&self, v: f64) -> f64 {
        let (v, lo, hi) =
            if self.log { (libm::log10(v), libm::log10(self.lo), libm::log10(self.hi)) } else { (v, self.lo, self.hi) };
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
        self.a + t * (self.b - self.a)
    }
}

fn legend_rows(legend: &[(String, usize)], width: f64) -> Vec<Vec<(String, usize, f64)>> {
    let mut rows: Vec<Vec<(String, usize, f64)>> = Vec::new();
    let mut x = 0.0;
    for (name, c) in legend {
        let w = 26.0 + 6.5 * name.chars().count().min(60) as f64;
        if rows.is_empty() || x + w > width {
            rows.push(Vec::new());
            x = 0.0;
        }
        rows.last_mut().expect("pushed").push((name.clone(), *c, x));
        x += w;
    }
    rows
}

fn header(out: &mut String, id: &str, title: &str, w: f64, h: f64) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{}\" class=\"figure\" viewBox=\"0 0 {w:.0} {h:.0}\" width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\" aria-label=\"{}\" font-family=\"system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif\" font-size=\"11\">",
        esc(id),
        esc(title)
    );
    let _ = write!(out, "<title>{}</title>", esc(title));
    let _ = write!(
        out,
        "<text x=\"{MARGIN}\" y=\"18\" font-size=\"14\" font-weight=\"600\" fill=\"currentColor\">{}</text>",
        esc(title)
    );
}

fn legend(out: &mut String, rows: &[Vec<(String, usize, f64)>], top: f64) {
    for (ri, row) in rows.iter().enumerate() {
        let y = top + ri as f64 * LEGEND_ROW;
        for (name, c, x) in row {
            let x = MARGIN + x;
            let _ = write!(
                out,
                "<g class=\"legend-item\" data-series=\"{}\"><line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"2.5\"/><circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"currentColor\">{}</text></g>",
                esc(name),
                y + 5.0,
                x + 18.0,
                y + 5.0,
                colour(*c),
                x + 9.0,
                y + 5.0,
                colour(*c),
                x + 23.0,
                y + 9.0,
                esc(name)
            );
        }
    }
}

/// A fitted curve drawn over one panel of a chart (dashed, no markers), with an optional mark at
/// one x: a tick at `mark_y` and a bar for its interval (the frontier's n50 on the accuracy plot).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overlay {
    /// Index into [`Chart::panels`].
    pub panel: usize,
    /// Index into [`PALETTE`].
    pub colour: usize,
    pub curve: Vec<(f64, f64)>,
    /// (x, low, high, y): where the mark sits and its interval along x.
    pub mark: Option<(f64, f64, f64, f64)>,
    pub tip: String,
}

/// Draw a chart.
pub fn render(c: &Chart) -> String {
    render_with(c, &[])
}

/// Draw a chart with fitted curves over its panels (the scales stay the data's).
pub fn render_with(c: &Chart, overlays: &[Overlay]) -> String {
    let columns = c.columns.max(1).min(c.panels.len().max(1));
    let rows = c.panels.len().div_ceil(columns).max(1);
    let width = 2.0 * MARGIN + columns as f64 * PW;
    let legend_rows = legend_rows(&c.legend, width - 2.0 * MARGIN);
    let top = 30.0 + legend_rows.len() as f64 * LEGEND_ROW + 4.0;
    let height = top + rows as f64 * PH + MARGIN;
    let mut out = String::new();
    header(&mut out, &c.id, &c.title, width, height);
    legend(&mut out, &legend_rows, 30.0);

    // Shared scales.
    let pts = || c.panels.iter().flat_map(|p| p.lines.iter().flat_map(|l| l.points.iter()));
    let xs: Vec<f64> = pts().map(|p| p.x).filter(|x| x.is_finite() && (!c.log_x || *x > 0.0)).collect();
    let (mut x_lo, mut x_hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| (a.min(x), b.max(x)));
    if !x_lo.is_finite() {
        (x_lo, x_hi) = if c.log_x { (1.0, 100.0) } else { (0.0, 1.0) };
    }
    if c.log_x {
        let pad = if x_hi > x_lo { libm::pow(x_hi / x_lo, 0.07).max(1.15) } else { 2.0 };
        (x_lo, x_hi) = (x_lo / pad, x_hi * pad);
    } else {
        let pad = if x_hi > x_lo { (x_hi - x_lo) * 0.06 } else { 1.0 };
        (x_lo, x_hi) = (x_lo - pad, x_hi + pad);
    }
    let (y_lo, y_hi) = c.y_range.unwrap_or_else(|| {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for p in pts() {
            for v in [Some(p.y), p.lo, p.hi].into_iter().flatten().filter(|v| v.is_finite()) {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
        if !lo.is_finite() {
            return (0.0, 1.0);
        }
        let lo = if lo > 0.0 && c.zero_line { 0.0 } else { lo.min(0.0) };
        let hi = if hi <= lo { lo + 1.0 } else { hi };
        (lo, hi + (hi - lo) * 0.05)
    });
    let x_ticks = if c.log_x { log_ticks(x_lo, x_hi, &xs) } else { linear_ticks(x_lo, x_hi) };
    let y_ticks = linear_ticks(y_lo, y_hi);

    for (i, panel) in c.panels.iter().enumerate() {
        let ox = MARGIN + (i % columns) as f64 * PW;
        let oy = top + (i / columns) as f64 * PH;
        let sx = Scale { lo: x_lo, hi: x_hi, log: c.log_x, a: ox + PL, b: ox + PW - PR };
        let sy = Scale { lo: y_lo, hi: y_hi, log: false, a: oy + PH - PB, b: oy + PT };
        let _ = write!(out, "<g class=\"panel\" data-panel=\"{}\">", esc(&panel.title));
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-weight=\"600\" fill=\"currentColor\">{}</text>",
            ox + (PL + PW - PR) / 2.0,
            oy + 14.0,
            esc(&panel.title)
        );
        // Frame, grid and ticks.
        let _ = write!(
            out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"currentColor\" stroke-opacity=\"0.35\"/>",
            ox + PL,
            oy + PT,
            PW - PL - PR,
            PH - PT - PB
        );
        for &t in &y_ticks {
            let y = sy.map(t);
            let label = if c.percent { format!("{}%", fmt_num(t * 100.0)) } else { fmt_num(t) };
            let _ = write!(
                out,
                "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"currentColor\" stroke-opacity=\"0.12\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"currentColor\" fill-opacity=\"0.8\">{label}</text>",
                ox + PL,
                ox + PW - PR,
                ox + PL - 4.0,
                y + 3.5
            );
        }
        // A tick whose label would overlap the last one keeps its grid line only.
        let mut labelled_to = f64::NEG_INFINITY;
        for &t in &x_ticks {
            let x = sx.map(t);
            let label = fmt_num(t);
            let half = 3.3 * label.chars().count() as f64;
            let _ = write!(
                out,
                "<line x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"currentColor\" stroke-opacity=\"0.12\"/>",
                oy + PT,
                oy + PH - PB,
            );
            if x - half >= labelled_to + 3.0 {
                labelled_to = x + half;
                let _ = write!(
                    out,
                    "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"currentColor\" fill-opacity=\"0.8\">{label}</text>",
                    oy + PH - PB + 13.0,
                );
            }
        }
        if c.zero_line && y_lo < 0.0 && y_hi > 0.0 {
            let y = sy.map(0.0);
            let _ = write!(
                out,
                "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"currentColor\" stroke-opacity=\"0.6\" stroke-dasharray=\"4 3\"/>",
                ox + PL,
                ox + PW - PR
            );
        }
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"currentColor\" fill-opacity=\"0.8\">{}</text>",
            ox + (PL + PW - PR) / 2.0,
            oy + PH - 6.0,
            esc(&format!("{}{}", c.x_label, if c.log_x { " (log scale)" } else { "" }))
        );
        let _ = write!(
            out,
            "<text transform=\"translate({:.1},{:.1}) rotate(-90)\" text-anchor=\"middle\" fill=\"currentColor\" fill-opacity=\"0.8\">{}</text>",
            ox + 11.0,
            oy + (PT + PH - PB) / 2.0,
            esc(&c.y_label)
        );
        let nonempty = panel.lines.iter().any(|l| !l.points.is_empty());
        if !nonempty {
            let _ = write!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"currentColor\" fill-opacity=\"0.6\">no data</text>",
                ox + (PL + PW - PR) / 2.0,
                oy + (PT + PH - PB) / 2.0
            );
        }
        for o in overlays.iter().filter(|o| o.panel == i) {
            draw_overlay(&mut out, o, &sx, &sy, (x_lo, x_hi), c.log_x);
        }
        // Lines, error bars, points. Series are nudged apart so their bars do not hide each other.
        let count = panel.lines.len().max(1) as f64;
        for (li, line) in panel.lines.iter().enumerate() {
            let dx = (li as f64 - (count - 1.0) / 2.0) * 3.0;
            let col = colour(line.colour);
            let mut pts: Vec<&Pt> =
                line.points.iter().filter(|p| p.x.is_finite() && p.y.is_finite() && (!c.log_x || p.x > 0.0)).collect();
            pts.sort_by(|a, b| a.x.total_cmp(&b.x));
            let _ = write!(out, "<g class=\"series\" data-series=\"{}\">", esc(&line.name));
            if pts.len() > 1 {
                let d: Vec<String> =
                    pts.iter().map(|p| format!("{:.1},{:.1}", sx.map(p.x) + dx, sy.map(p.y))).collect();
                let _ = write!(
                    out,
                    "<polyline points=\"{}\" fill=\"none\" stroke=\"{col}\" stroke-width=\"2\" stroke-linejoin=\"round\"/>",
                    d.join(" ")
                );
            }
            for p in &pts {
                let x = sx.map(p.x) + dx;
                if let (Some(lo), Some(hi)) = (p.lo, p.hi) {
                    if lo.is_finite() && hi.is_finite() {
                        let (y1, y2) = (sy.map(lo), sy.map(hi));
                        let _ = write!(
                            out,
                            "<path class=\"bar\" d=\"M{x:.1},{y1:.1}V{y2:.1}M{:.1},{y1:.1}h6M{:.1},{y2:.1}h6\" stroke=\"{col}\" stroke-width=\"1.3\" fill=\"none\"/>",
                            x - 3.0,
                            x - 3.0
                        );
                    }
                }
                let attrs: String =
                    p.data.iter().map(|(k, v)| format!(" data-{}=\"{}\"", esc(k), esc(v))).collect::<Vec<_>>().join("");
                let _ = write!(
                    out,
                    "<circle class=\"pt\" cx=\"{x:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{col}\" stroke=\"white\" stroke-width=\"1\"{attrs}><title>{}</title></circle>",
                    sy.map(p.y),
                    esc(&p.tip)
                );
            }
            out.push_str("</g>");
        }
        out.push_str("</g>");
    }
    out.push_str("</svg>");
    out
}

/// A fitted curve (clipped to the panel's x range) and its mark.
fn draw_overlay(out: &mut String, o: &Overlay, sx: &Scale, sy: &Scale, (x_lo, x_hi): (f64, f64), log_x: bool) {
    let col = colour(o.colour);
    let inside = |x: f64| x.is_finite() && x >= x_lo && x <= x_hi && (!log_x || x > 0.0);
    let pts: Vec<String> = o
        .curve
        .iter()
        .filter(|(x, y)| inside(*x) && y.is_finite())
        .map(|&(x, y)| format!("{:.1},{:.1}", sx.map(x), sy.map(y)))
        .collect();
    let _ = write!(out, "<g class=\"fit\"><title>{}</title>", esc(&o.tip));
    if pts.len() > 1 {
        let _ = write!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{col}\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\" stroke-opacity=\"0.8\"/>",
            pts.join(" ")
        );
    }
    if let Some((x, lo, hi, y)) = o.mark {
        if inside(x) && y.is_finite() {
            let (px, py) = (sx.map(x), sy.map(y));
            let (l, h) = (sx.map(lo.clamp(x_lo, x_hi)), sx.map(hi.clamp(x_lo, x_hi)));
            let _ = write!(
                out,
                "<path class=\"n50\" d=\"M{l:.1},{py:.1}H{h:.1}M{px:.1},{:.1}V{:.1}\" stroke=\"{col}\" stroke-width=\"1.5\" stroke-opacity=\"0.7\" fill=\"none\"/>",
                py - 6.0,
                py + 6.0
            );
        }
    }
    out.push_str("</g>");
}

/// One segment of a bar: colour index, value, tooltip.
pub type Part = (usize, f64, String);

/// Horizontal stacked bars: one bar per row, one segment per part (a share of the row's total).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bars {
    pub id: String,
    pub title: String,
    /// Each row: its label and its parts.
    pub rows: Vec<(String, Vec<Part>)>,
    pub legend: Vec<(String, usize)>,
}

/// Draw stacked bars; each bar is scaled to its own total (shares).
pub fn render_bars(b: &Bars) -> String {
    const LABEL_W: f64 = 260.0;
    const BAR_W: f64 = 460.0;
    const ROW_H: f64 = 22.0;
    let width = 2.0 * MARGIN + LABEL_W + BAR_W + 10.0;
    let legend_rows = legend_rows(&b.legend, width - 2.0 * MARGIN);
    let top = 30.0 + legend_rows.len() as f64 * LEGEND_ROW + 6.0;
    let height = top + b.rows.len().max(1) as f64 * ROW_H + MARGIN;
    let mut out = String::new();
    header(&mut out, &b.id, &b.title, width, height);
    legend(&mut out, &legend_rows, 30.0);
    if b.rows.is_empty() {
        let _ = write!(
            out,
            "<text x=\"{MARGIN}\" y=\"{:.1}\" fill=\"currentColor\" fill-opacity=\"0.6\">no data</text>",
            top + 14.0
        );
    }
    for (i, (label, parts)) in b.rows.iter().enumerate() {
        let y = top + i as f64 * ROW_H;
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"currentColor\">{}</text>",
            MARGIN + LABEL_W - 8.0,
            y + 14.0,
            esc(&super::input::clip(label, 44))
        );
        let total: f64 = parts.iter().map(|p| p.1.max(0.0)).sum();
        let mut x = MARGIN + LABEL_W;
        for (c, v, tip) in parts {
            if total <= 0.0 || *v <= 0.0 {
                continue;
            }
            let w = BAR_W * v / total;
            let _ = write!(
                out,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>",
                y + 3.0,
                ROW_H - 6.0,
                colour(*c),
                esc(tip)
            );
            x += w;
        }
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(linear_ticks(0.0, 1.0), vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]);
        assert_eq!(
            log_ticks(4.0, 250.0, &[5.0, 10.0, 25.0, 50.0, 100.0, 200.0]),
            vec![5.0, 10.0, 25.0, 50.0, 100.0, 200.0]
        );
        let t = log_ticks(1.0, 1000.0, &[]);
        assert!(t.contains(&1.0) && t.contains(&500.0) && t.contains(&1000.0));
    }

    #[test]
    fn a_chart_has_its_points_bars_and_escaped_text() {
        let chart = Chart {
            title: "A <b> & \"c\"".into(),
            panels: vec![Panel {
                title: "traversal".into(),
                lines: vec![Line {
                    name: "m".into(),
                    colour: 0,
                    points: vec![
                        Pt {
                            x: 5.0,
                            y: 0.5,
                            lo: Some(0.2),
                            hi: Some(0.8),
                            tip: "t".into(),
                            data: vec![("cell".into(), "k'1".into())],
                        },
                        Pt { x: 200.0, y: 1.0, lo: Some(0.8), hi: Some(1.0), ..Pt::default() },
                        Pt { x: f64::NAN, y: 1.0, ..Pt::default() },
                    ],
                }],
            }],
            legend: vec![("m".into(), 0)],
            y_range: Some((0.0, 1.0)),
            ..Chart::default()
        };
        let svg = render(&chart);
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("class=\"pt\"").count(), 2, "the NaN point is left out");
        assert_eq!(svg.matches("class=\"bar\"").count(), 2);
        assert!(svg.contains("A &lt;b&gt; &amp; &quot;c&quot;"));
        assert!(svg.contains("data-cell=\"k&#39;1\""));
        assert!(!svg.contains("NaN"));
        // An empty chart still draws.
        let empty = render(&Chart { panels: vec![Panel::default()], ..Chart::default() });
        assert!(empty.contains("no data") && !empty.contains("NaN") && !empty.contains("inf"));
    }
}
