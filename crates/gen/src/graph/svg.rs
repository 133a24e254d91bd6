//! The call graph's drawing as SVG markup, the pieces the plain graph (drawn by the app,
//! `web/graph.rs`) and the clustered one (drawn by the lazily loaded `bigraph` module,
//! [`super::bigsvg`]) share: a function's vertex, `main()`'s box, an edge's curve, the drawing's
//! `<svg>` element, and each item's arrow-key targets (`data-nav`, read by the app's one handler
//! of the keyboard, `web::graph::Drawing`). Pure: text in, text out.

use crate::decimal::short;
use crate::kinds::Role;
use std::fmt::Write;

/// A function's box: 58 × 26 in both drawings.
pub const NODE_W: f64 = 58.0;
pub const NODE_H: f64 = 26.0;

/// The keys an item's `data-nav` gives a target for, in its order ("-" for none).
pub const NAV_KEYS: [&str; 6] = ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Home", "End"];

/// `s` as text or an attribute value in markup (SVG and HTML; the results plots use it too): the five
/// markup characters escaped, control characters other than newline and tab (which XML forbids) as spaces.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    esc_to(&mut out, s);
    out
}

/// [`esc`], written at the end of `out`.
pub fn esc_to(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
}

/// An edge's path: from (`x1`, `y1`) to (`x2`, `y2`), leaving and arriving vertically, its two
/// control points at height `my`; coordinates to a tenth of a pixel.
pub fn curve(x1: f64, y1: f64, my: f64, x2: f64, y2: f64) -> String {
    format!("M{x1:.1},{y1:.1} C{x1:.1},{my:.1} {x2:.1},{my:.1} {x2:.1},{y2:.1}")
}

/// A path element: its classes, an optional style, extra attributes (already written) and its path.
pub fn path(out: &mut String, class: &str, style: Option<&str>, extra: &str, d: &str) {
    let _ = write!(out, r#"<path class="{class}""#);
    if let Some(s) = style {
        let _ = write!(out, r#" style="{s}""#);
    }
    let _ = write!(out, r#"{extra} d="{d}"/>"#);
}

/// A vertex's accessible name (and tooltip): its function, role and, on runtime tasks, the branch it runs.
pub fn vertex_label(name: &str, role: Role, branch: Option<&str>) -> String {
    match branch {
        Some(b) => format!("{name}: {}; runs {b}", role.label()),
        None => format!("{name}: {}", role.label()),
    }
}

/// What is interactive about an item: whether it is the drawing's one tab stop, and where each of
/// [`NAV_KEYS`] moves the focus (element ids).
pub struct Button {
    pub tab_stop: bool,
    pub nav: [Option<String>; 6],
}

impl Button {
    /// The attributes of an item the keyboard reaches (a button named `label`).
    fn attrs(&self, out: &mut String, label: &str) {
        let nav: Vec<&str> = self.nav.iter().map(|t| t.as_deref().unwrap_or("-")).collect();
        let _ = write!(
            out,
            r#" tabindex="{}" role="button" aria-label="{}" data-nav="{}""#,
            if self.tab_stop { "0" } else { "-1" },
            esc(label),
            esc(&nav.join(" "))
        );
    }
}

/// A function's vertex, as both drawings draw it: its top-left corner `at`, its box `size`; a
/// button (`v-<name>`, pressed when `selected`) in an interactive drawing, else a picture.
pub struct Vertex<'a> {
    pub name: &'a str,
    pub role: Role,
    /// Runtime tasks: the branch the function runs.
    pub branch: Option<&'a str>,
    pub at: (f64, f64),
    pub size: (f64, f64),
    pub selected: bool,
    pub button: Option<Button>,
}

impl Vertex<'_> {
    pub fn write(&self, out: &mut String) {
        let (name, role) = (esc(self.name), self.role);
        let label = vertex_label(self.name, role, self.branch);
        let _ =
            write!(out, r#"<g class="vertex role-{}{}""#, role.as_str(), if self.selected { " selected" } else { "" });
        if self.button.is_some() {
            let _ = write!(out, r#" id="v-{name}""#);
        }
        let _ = write!(out, r#" data-name="{name}" data-role="{}""#, role.as_str());
        if let Some(b) = self.branch {
            let _ = write!(out, r#" data-runs="{}""#, esc(b));
        }
        let _ = write!(out, r#" transform="translate({:.1},{:.1})""#, self.at.0, self.at.1);
        if let Some(b) = &self.button {
            b.attrs(out, &label);
            let _ = write!(out, r#" aria-pressed="{}""#, self.selected);
        }
        let (w, h) = self.size;
        let _ = write!(
            out,
            r#"><title>{}</title><rect width="{}" height="{}" rx="6" fill="{}"/><text x="{}" y="{}" text-anchor="middle">{name}</text></g>"#,
            esc(&label),
            short(w),
            short(h),
            role.colour(),
            short(w / 2.0),
            short(h / 2.0 + 4.0)
        );
    }
}

/// A closed cluster's box or an open one's heading (`c-<cluster>`), as the clustered drawing draws it.
pub struct ClusterBox<'a> {
    pub cluster: usize,
    pub count: usize,
    pub role: Role,
    /// "layer 3" or "layers 3–5".
    pub layers: &'a str,
    pub open: bool,
    /// The selected function is in it.
    pub has_selected: bool,
    pub at: (f64, f64),
    pub size: (f64, f64),
    pub button: Button,
}

impl ClusterBox<'_> {
    pub fn write(&self, out: &mut String) {
        let (count, role) = (self.count, self.role);
        let label = if self.open {
            format!("{count} functions, {}, {}: shown; press Enter to close", role.label(), self.layers)
        } else {
            format!("{count} functions, {}, {}: press Enter to show them", role.label(), self.layers)
        };
        let _ = write!(
            out,
            r#"<g class="{} role-{}{}" id="c-{}" data-cluster="{}" data-count="{count}" data-role="{}" transform="translate({:.1},{:.1})""#,
            if self.open { "cluster-head" } else { "cluster" },
            role.as_str(),
            if self.has_selected { " has-selected" } else { "" },
            self.cluster,
            self.cluster,
            role.as_str(),
            self.at.0,
            self.at.1,
        );
        self.button.attrs(out, &label);
        let (w, h) = self.size;
        let _ = write!(out, r#" aria-expanded="{}"><title>{}</title>"#, self.open, esc(&label));
        if self.open {
            let _ = write!(
                out,
                r#"<rect width="{}" height="{}" rx="6" style="stroke: {}; stroke-width: 3"/><text x="10" y="{}">{count} functions</text></g>"#,
                short(w),
                short(h - 6.0),
                role.colour(),
                short(h / 2.0)
            );
        } else {
            let _ = write!(
                out,
                r#"<rect width="{}" height="{}" rx="8" fill="{}"/><text x="{}" y="{}" text-anchor="middle">{count} functions</text></g>"#,
                short(w),
                short(h),
                role.colour(),
                short(w / 2.0),
                short(h / 2.0 + 4.0)
            );
        }
    }
}

/// `main()`'s box, centred at (`mx`, `my`).
pub fn main_vertex(out: &mut String, (mx, my): (f64, f64)) {
    let _ = write!(
        out,
        r#"<g class="vertex vertex-main" transform="translate({:.1},{:.1})"><title>main(): calls the entry functions</title><rect width="{}" height="{}" rx="13"/><text x="{}" y="{}" text-anchor="middle">main</text></g>"#,
        mx - NODE_W / 2.0,
        my - NODE_H / 2.0,
        short(NODE_W),
        short(NODE_H),
        short(NODE_W / 2.0),
        short(NODE_H / 2.0 + 4.0)
    );
}

/// The drawing's `<svg>` start tag (`#call-graph`): natural size `width` × `height` scaled by `zoom`
/// (zoom 1 fits the drawing into its box, never larger than natural size; other zooms scale the
/// natural size and let the box scroll); `extra`: more classes, then more attributes (written).
pub fn svg_start(
    out: &mut String,
    (width, height): (f64, f64),
    zoom: f64,
    group: bool,
    label: &str,
    extra: (&str, &str),
) {
    let style = if (zoom - 1.0).abs() < 1e-9 { "max-width: 100%; height: auto;" } else { "" };
    let _ = write!(
        out,
        r#"<svg id="call-graph" class="call-graph{}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {:.0} {:.0}" width="{:.0}" height="{:.0}" style="{style}" role="{}" aria-label="{}"{}>"#,
        extra.0,
        width,
        height,
        width * zoom,
        height * zoom,
        if group { "group" } else { "img" },
        esc(label),
        extra.1
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vertex_escapes_what_it_is_given_and_names_its_button() {
        let mut out = String::new();
        let v = Vertex {
            name: "f<1>",
            role: Role::Edit,
            branch: Some("the \"else\" branch"),
            at: (1.0, 2.0),
            size: (NODE_W, NODE_H),
            selected: true,
            button: Some(Button { tab_stop: true, nav: [Some("v-f2".into()), None, None, None, None, None] }),
        };
        v.write(&mut out);
        assert!(
            out.starts_with(r#"<g class="vertex role-edit selected" id="v-f&lt;1&gt;" data-name="f&lt;1&gt;""#),
            "{out}"
        );
        assert!(out.contains(r#"data-runs="the &quot;else&quot; branch""#), "{out}");
        assert!(out.contains(r#"tabindex="0" role="button""#) && out.contains(r#"data-nav="v-f2 - - - - -""#), "{out}");
        assert!(out.contains(r#"aria-pressed="true""#) && !out.contains("<1>"), "{out}");
        let mut picture = String::new();
        Vertex { button: None, selected: false, ..v }.write(&mut picture);
        assert!(!picture.contains("tabindex") && !picture.contains("id=") && picture.contains("<title>"), "{picture}");
    }
}
