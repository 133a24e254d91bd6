//! Every syntax colour of the playground has a contrast of at least 4.5:1 (WCAG AA for body text)
//! on every background code is shown on, in the light theme, the dark theme chosen with the toggle
//! and the dark theme the system asks for.
//!
//! Nothing here repeats a colour: the stylesheets are the ones index.html links (in its order), read
//! with `cssparser`; the themes are their `:root` blocks (custom properties), the syntax classes are
//! those `web/code.rs` emits (`"tok-…"`) plus any colour a rule under `.code` or `.merge-code` sets,
//! and the backgrounds are `pre`'s and those of every rule under `.code` or `.merge-code` (selected,
//! hovered, touched, viewed, … lines), composited over it. Such a rule may not set `opacity`.

#![cfg(not(target_arch = "wasm32"))]

use cssparser::{Delimiter, ParseError, Parser, ParserInput, Token};
use std::collections::BTreeMap;
use std::path::Path;

/// One style rule: the media query it sits in (if any), its selector and its declarations.
#[derive(Debug)]
struct Rule {
    media: Option<String>,
    selector: String,
    decls: Vec<(String, String)>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The stylesheets index.html links, in order.
fn stylesheets() -> Vec<String> {
    let html = std::fs::read_to_string(root().join("index.html")).expect("index.html");
    let sheets: Vec<String> = html
        .lines()
        .filter(|l| l.contains("rel=\"css\""))
        .filter_map(|l| l.split("href=\"").nth(1)?.split('"').next().map(str::to_string))
        .collect();
    assert!(sheets.iter().any(|s| s == "www/style.css"), "index.html links no www/style.css: {sheets:?}");
    sheets
}

/// The rules of a stylesheet; at-rules other than `@media` are skipped.
fn rules(css: &str) -> Vec<Rule> {
    let mut input = ParserInput::new(css);
    let mut parser = Parser::new(&mut input);
    let mut out = Vec::new();
    block_rules(&mut parser, None, &mut out);
    out
}

fn block_rules<'i>(p: &mut Parser<'i, '_>, media: Option<&str>, out: &mut Vec<Rule>) {
    loop {
        p.skip_whitespace();
        if p.is_exhausted() {
            return;
        }
        let start = p.position();
        let at = match p.next_including_whitespace_and_comments().cloned() {
            Ok(Token::Comment(_) | Token::CDO | Token::CDC | Token::Semicolon) => continue,
            Ok(Token::AtKeyword(name)) => Some(name.to_string()),
            Ok(_) => None,
            Err(_) => return,
        };
        // The prelude (selector or at-rule prelude) runs to the block, or to a semicolon.
        let prelude_start = if at.is_some() { p.position() } else { start };
        let _ = p.parse_until_before(Delimiter::CurlyBracketBlock | Delimiter::Semicolon, rest);
        let prelude = p.slice_from(prelude_start).trim().to_string();
        if !matches!(p.next(), Ok(Token::CurlyBracketBlock)) {
            continue;
        }
        match at {
            Some(name) => {
                let _ = p.parse_nested_block(|p| -> Result<(), ParseError<'i, ()>> {
                    if name.eq_ignore_ascii_case("media") {
                        block_rules(p, Some(&prelude), out);
                    }
                    Ok(())
                });
            }
            None => {
                let decls = p
                    .parse_nested_block(|p| -> Result<_, ParseError<'i, ()>> { Ok(declarations(p)) })
                    .unwrap_or_default();
                for sel in prelude.split(',') {
                    out.push(Rule {
                        media: media.map(str::to_string),
                        selector: sel.trim().to_string(),
                        decls: decls.clone(),
                    });
                }
            }
        }
    }
}

/// Consume everything (nested blocks whole).
fn rest<'i>(p: &mut Parser<'i, '_>) -> Result<(), ParseError<'i, ()>> {
    while p.next_including_whitespace_and_comments().is_ok() {}
    Ok(())
}

/// `name: value;` pairs of a rule's block (values as written, without `!important`).
fn declarations(p: &mut Parser<'_, '_>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    loop {
        p.skip_whitespace();
        if p.is_exhausted() {
            return out;
        }
        let name = match p.next().cloned() {
            Ok(Token::Ident(name)) if matches!(p.next(), Ok(Token::Colon)) => Some(name.to_string()),
            Ok(_) => None,
            Err(_) => return out,
        };
        let start = p.position();
        let _ = p.parse_until_before(Delimiter::Semicolon, rest);
        let value = p.slice_from(start).trim().trim_end_matches("!important").trim().to_string();
        let _ = p.next(); // the semicolon
        if let Some(name) = name {
            out.push((name, value));
        }
    }
}

/// A colour with alpha (sRGB, 0–1).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rgba([f64; 3], f64);

impl Rgba {
    fn over(self, below: Rgba) -> Rgba {
        let a = self.1;
        Rgba(std::array::from_fn(|i| self.0[i] * a + below.0[i] * (1.0 - a)), 1.0)
    }

    /// WCAG relative luminance.
    fn luminance(self) -> f64 {
        let lin = |c: f64| if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
        0.2126 * lin(self.0[0]) + 0.7152 * lin(self.0[1]) + 0.0722 * lin(self.0[2])
    }

    fn hex(self) -> String {
        let c = |x: f64| (x * 255.0).round() as u8;
        format!("#{:02x}{:02x}{:02x}", c(self.0[0]), c(self.0[1]), c(self.0[2]))
    }
}

/// WCAG contrast ratio of two opaque colours.
fn contrast(a: Rgba, b: Rgba) -> f64 {
    let (la, lb) = (a.luminance(), b.luminance());
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// A theme: its custom properties.
type Vars = BTreeMap<String, String>;

/// The colour a value names under `vars`: `#rgb`, `#rrggbb`, `var(--x)`, `transparent`,
/// `color-mix(in srgb, C p%, transparent)` and `linear-gradient(C, C)` (one colour). Anything else
/// fails the test, so that a new form is read rather than skipped.
fn colour(value: &str, vars: &Vars) -> Rgba {
    let v = value.trim();
    if let Some(inner) = v.strip_prefix("var(").and_then(|s| s.strip_suffix(')')) {
        let name = inner.split(',').next().unwrap_or_default().trim();
        let Some(x) = vars.get(name) else { panic!("{name} is not defined in this theme") };
        return colour(x, vars);
    }
    if v == "transparent" {
        return Rgba([0.0; 3], 0.0);
    }
    if let Some(h) = v.strip_prefix('#') {
        let digits: Vec<f64> = match h.len() {
            3 => h.chars().map(|c| f64::from(c.to_digit(16).expect("hex") * 17) / 255.0).collect(),
            6 => {
                (0..3).map(|i| f64::from(u8::from_str_radix(&h[2 * i..2 * i + 2], 16).expect("hex")) / 255.0).collect()
            }
            _ => panic!("cannot read the colour {v}"),
        };
        return Rgba([digits[0], digits[1], digits[2]], 1.0);
    }
    if let Some(inner) = v.strip_prefix("color-mix(").and_then(|s| s.strip_suffix(')')) {
        let parts: Vec<&str> = split_top(inner);
        assert_eq!(parts.len(), 3, "color-mix with two colours: {v}");
        assert_eq!(parts[0], "in srgb", "{v}");
        assert_eq!(parts[2], "transparent", "only mixes with transparent are read: {v}");
        let (c, pct) = parts[1].rsplit_once(' ').unwrap_or_else(|| panic!("{v}"));
        let p: f64 = pct.trim_end_matches('%').parse().unwrap_or_else(|_| panic!("{v}"));
        let Rgba(rgb, a) = colour(c, vars);
        return Rgba(rgb, a * p / 100.0);
    }
    if let Some(inner) = v.strip_prefix("linear-gradient(").and_then(|s| s.strip_suffix(')')) {
        let stops: Vec<Rgba> = split_top(inner).iter().map(|s| colour(s, vars)).collect();
        assert!(stops.windows(2).all(|w| w[0] == w[1]), "only one-colour gradients are read: {v}");
        return stops[0];
    }
    panic!("cannot read the colour {v}")
}

/// A background layer's size whose width is at most 4px (`3px calc(…)`).
fn narrow(size: &str) -> bool {
    size.split_whitespace()
        .next()
        .and_then(|w| w.strip_suffix("px"))
        .and_then(|w| w.parse::<f64>().ok())
        .is_some_and(|w| w <= 4.0)
}

/// Split at top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// A theme's name, the selector of its `:root` block and the media query around it.
struct Theme {
    name: &'static str,
    root: Option<(&'static str, Option<&'static str>)>,
}

const THEMES: [Theme; 3] = [
    Theme { name: "light", root: None },
    Theme { name: "dark (toggle)", root: Some((":root[data-theme=\"dark\"]", None)) },
    Theme {
        name: "dark (system)",
        root: Some((":root:not([data-theme=\"light\"])", Some("(prefers-color-scheme: dark)"))),
    },
];

/// Does `rule` apply in `theme` with selector `sel` (a selector written alone, or inside the theme's
/// root)? The light theme reads rules outside media queries only.
fn applies(rule: &Rule, theme: &Theme, sel: &str) -> bool {
    if rule.media.is_none() && rule.selector == sel {
        return true;
    }
    let Some((root, media)) = theme.root else { return false };
    rule.media.as_deref() == media
        && (rule.selector == format!("{root} {sel}") || (sel == ":root" && rule.selector == root))
}

/// A rule about code on the page (lines, pieces, tokens in them).
fn is_code(selector: &str) -> bool {
    selector.starts_with(".code ") || selector.starts_with(".merge-code ")
}

#[test]
fn syntax_colours_have_aa_contrast_in_every_theme() {
    let mut all = Vec::new();
    for sheet in stylesheets() {
        let css = std::fs::read_to_string(root().join(&sheet)).unwrap_or_else(|e| panic!("{sheet}: {e}"));
        all.extend(rules(&css));
    }
    // The classes the highlighter emits.
    let code = std::fs::read_to_string(root().join("src/web/code.rs")).expect("src/web/code.rs");
    let mut classes: Vec<String> =
        code.split("(\"tok-").skip(1).filter_map(|s| s.split('"').next()).map(|c| format!("tok-{c}")).collect();
    classes.sort();
    classes.dedup();
    assert!(classes.len() >= 5, "the highlighter's classes: {classes:?}");

    let mut report = Vec::new();
    let mut failures = Vec::new();
    for theme in &THEMES {
        // Custom properties: later rules win, as in the browser.
        let mut vars = Vars::new();
        for r in all.iter().filter(|r| applies(r, theme, ":root")) {
            vars.extend(r.decls.iter().filter(|(k, _)| k.starts_with("--")).cloned());
        }
        let last = |sel: &str, props: &[&str]| -> Option<String> {
            all.iter()
                .filter(|r| applies(r, theme, sel))
                .flat_map(|r| r.decls.iter())
                .filter(|(k, _)| props.contains(&k.as_str()))
                .map(|(_, v)| v.clone())
                .next_back()
        };
        let pre = colour(&last("pre", &["background", "background-color"]).expect("pre has a background"), &vars);
        assert_eq!(pre.1, 1.0, "{}: pre's background is opaque", theme.name);
        // Backgrounds of the code's lines and pieces, over pre's.
        let mut backgrounds = vec![("pre".to_string(), pre)];
        for r in all.iter().filter(|r| r.media.is_none()) {
            if !is_code(&r.selector) || r.selector.contains("::") {
                continue;
            }
            let sizes: Vec<String> = r
                .decls
                .iter()
                .filter(|(k, _)| k == "background-size")
                .flat_map(|(_, v)| split_top(v).into_iter().map(str::to_string).collect::<Vec<_>>())
                .collect();
            for (k, v) in &r.decls {
                if matches!(k.as_str(), "background" | "background-color" | "background-image") {
                    // Layers, top first. A layer at most 4px wide (its background-size) is a mark in
                    // the gutter, such as the bar beside a wrapped line's further rows: no text is on it.
                    let behind_text: Vec<&str> = split_top(v)
                        .into_iter()
                        .enumerate()
                        .filter(|(i, _)| !sizes.get(*i).is_some_and(|w| narrow(w)))
                        .map(|(_, layer)| layer)
                        .collect();
                    let Some(top) = behind_text.first() else { continue };
                    assert_eq!(behind_text.len(), 1, "{}: one background layer behind text is read: {v}", r.selector);
                    backgrounds.push((r.selector.clone(), colour(top, &vars).over(pre)));
                }
            }
        }
        assert!(backgrounds.len() >= 3, "{}: backgrounds {backgrounds:?}", theme.name);
        // Foregrounds: each syntax class, and any colour a code rule sets (a line greyed as a whole).
        // Generated content (`::before` line numbers, `::after` hints) is not text to assistive
        // technology, and is left out.
        let mut foregrounds: Vec<(String, String)> = classes
            .iter()
            .map(|class| {
                let value = last(&format!(".{class}"), &["color"]).unwrap_or_else(|| panic!(".{class} has no colour"));
                (format!(".{class}"), value)
            })
            .collect();
        for r in all.iter().filter(|r| r.media.is_none() && is_code(&r.selector) && !r.selector.contains("::")) {
            for (k, v) in &r.decls {
                if k == "color" {
                    foregrounds.push((r.selector.clone(), v.clone()));
                }
                if k == "opacity" {
                    failures.push(format!("{}: `opacity: {v}` lowers the contrast of every token", r.selector));
                }
            }
        }
        for (class, value) in &foregrounds {
            let fg = colour(value, &vars);
            assert_eq!(fg.1, 1.0, "{}: {class} is opaque", theme.name);
            for (sel, bg) in &backgrounds {
                let c = contrast(fg, *bg);
                report.push(format!("{:14} {class:13} {} on {} ({sel}): {c:.2}", theme.name, fg.hex(), bg.hex()));
                if c < 4.5 {
                    failures.push(report.last().cloned().unwrap_or_default());
                }
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(failures.is_empty(), "below 4.5:1:\n{}", failures.join("\n"));
}

#[test]
fn the_reader_reads_what_it_must() {
    let css = "/* c */ :root { --a: #102030; --b: var(--a); }\n@media (prefers-color-scheme: dark) { :root:not([data-theme=\"light\"]) { --a: #fff; } }\n@font-face { font-family: x; }\n.x, .y { color: var(--b) !important; background: color-mix(in srgb, #ff0000 50%, transparent) }";
    let rs = rules(css);
    assert_eq!(rs.len(), 4, "{rs:?}");
    assert_eq!(rs[1].media.as_deref(), Some("(prefers-color-scheme: dark)"));
    assert_eq!((rs[2].selector.as_str(), rs[3].selector.as_str()), (".x", ".y"));
    let vars: Vars = rs[0].decls.iter().cloned().collect();
    assert_eq!(colour(&rs[2].decls[0].1, &vars).hex(), "#102030");
    let mix = colour(&rs[3].decls[1].1, &vars);
    assert_eq!(mix.over(Rgba([1.0; 3], 1.0)).hex(), "#ff8080");
    assert!((contrast(Rgba([0.0; 3], 1.0), Rgba([1.0; 3], 1.0)) - 21.0).abs() < 1e-9);
    assert!((contrast(colour("#b4637a", &vars), colour("#f3f4f6", &vars)) - 3.81).abs() < 0.01);
}
