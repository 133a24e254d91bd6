//! The URL fragment: which page, and for a task page, which spec.
//!
//! A share link is `#/task?v=1&kind=…&domain=…&axis=…&n=…&seed=…`. Parsing never panics: a
//! malformed or out-of-range link becomes [`Route::BadLink`] with a one-line reason and the nearest
//! valid spec, which the app offers instead of a blank page.

use cabrito_gen::spec::{TaskSpec, KNOBS};

/// What a fragment asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// The landing page: a card per kind and domain.
    Gallery,
    /// How a task grows with `n`: the spec's kind, domain, axis and seed at the paper's sizes.
    Scale(TaskSpec),
    /// A task page for a valid spec.
    Task(TaskSpec),
    /// A link that could not be read, why, and the closest task that can be shown.
    BadLink { message: String, nearest: TaskSpec },
    /// Results files, plotted (the Results view).
    Results,
    /// Agent traces, labelled (the Traces view).
    Traces,
    /// Agents in the loop on a task: watch a scripted agent, or walk the task through the tools
    /// yourself. The link may also carry the agent page's own keys ([`crate::playground::agents_page`]).
    Agents(TaskSpec),
}

/// The path of the task page.
pub const TASK_PATH: &str = "/task";
/// The path of the scale page.
pub const SCALE_PATH: &str = "/scale";
/// The path of the Results view.
pub const RESULTS_PATH: &str = "/results";
/// The path of the Traces view.
pub const TRACES_PATH: &str = "/traces";
/// The path of the agents page.
pub const AGENTS_PATH: &str = "/agents";
/// The path of the gallery (also the page of an empty fragment).
pub const GALLERY_PATH: &str = "/gallery";
/// The key that asks for the read-only embed (in the page's query or the fragment's); it is not
/// part of the spec.
pub const EMBED_KEY: &str = "embed";

/// The fragment (with its `#`) of a spec's task page.
pub fn fragment(spec: &TaskSpec) -> String {
    cabrito_gen::task::link(spec)
}

/// The fragment of a spec's scale page.
pub fn scale_fragment(spec: &TaskSpec) -> String {
    format!("#{SCALE_PATH}?{}", spec.to_query())
}

/// The fragment of a spec's agents page.
pub fn agents_fragment(spec: &TaskSpec) -> String {
    format!("#{AGENTS_PATH}?{}", spec.to_query())
}

/// Read a fragment such as `#/task?v=1&n=5` (the `#` is optional).
pub fn parse(fragment: &str) -> Route {
    match parse_raw(fragment) {
        // Decoded link text may hold line breaks or other control characters: the message stays
        // one line whatever the link.
        Route::BadLink { message, nearest } => Route::BadLink { message: one_line(&message), nearest },
        route => route,
    }
}

/// `s` with control characters shown as escapes (`\n`, `\u{0}`), so a message is one line.
fn one_line(s: &str) -> String {
    s.chars().flat_map(|c| if c.is_control() { c.escape_debug().collect::<Vec<_>>() } else { vec![c] }).collect()
}

fn parse_raw(fragment: &str) -> Route {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let (path, query) = match f.split_once('?') {
        Some((p, q)) => (p, q),
        None => (f, ""),
    };
    if matches!(path, "" | "/" | GALLERY_PATH) {
        return Route::Gallery;
    }
    if path == RESULTS_PATH {
        return Route::Results;
    }
    if path == TRACES_PATH {
        return Route::Traces;
    }
    let scale = path == SCALE_PATH;
    let agents = path == AGENTS_PATH;
    if !matches!(path, TASK_PATH | "/task/" | SCALE_PATH | AGENTS_PATH) {
        return Route::BadLink {
            message: format!(
                "there is no page '{}'; a task link looks like #/task?v=1&kind=add_parameter&n=25&seed=0",
                shorten(&decode(path), 60)
            ),
            nearest: TaskSpec::default(),
        };
    }
    let pairs = match split_query(query) {
        Ok(mut p) => {
            p.retain(|(k, _)| !(is_extra_key(k) || (agents && crate::playground::agents_page::is_link_key(k))));
            p
        }
        Err(message) => {
            let mut well_formed = well_formed_pairs(query);
            if agents {
                well_formed.retain(|(k, _)| !crate::playground::agents_page::is_link_key(k));
            }
            let (nearest, mut problems) = nearest_valid_why(&well_formed);
            problems.insert(0, message);
            return Route::BadLink { message: every_problem(&problems), nearest };
        }
    };
    match TaskSpec::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        Ok(spec) if scale => Route::Scale(spec),
        Ok(spec) if agents => Route::Agents(spec),
        Ok(spec) => Route::Task(spec),
        Err(_) => {
            let (nearest, problems) = nearest_valid_why(&pairs);
            Route::BadLink { message: every_problem(&problems), nearest }
        }
    }
}

use cabrito_gen::mend::every_problem;

/// Keys of a task link that are not part of the spec: the embed flag, a shared solution and the
/// panel to open.
fn is_extra_key(k: &str) -> bool {
    let k = k.trim();
    k == EMBED_KEY || k == super::share::SOLUTION_KEY || k == PANEL_KEY
}

/// The link key naming the task page's side panel to open (`panel=grade`). Not a task knob: it is
/// not in `canonical()` and never changes the task.
pub const PANEL_KEY: &str = "panel";

/// The task page's side panels (beside the code), in their tab order. Which ones a task has depends
/// on its kind and axis ([`SidePanel::applies`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SidePanel {
    /// Paste an answer: the static rubric and the hidden tests.
    Grade,
    /// The call graph (the data-flow graph for merge tasks).
    Graph,
    /// variable_renaming: the renames and the chain.
    Renames,
    /// Instruction following: the numbered requirements.
    Requirements,
    /// Runtime resolution: "why this branch?".
    Why,
    /// The problem statement and the task as a 4-tuple.
    Statement,
    /// The full LLM prompt.
    Prompt,
}

/// What a task offers beside its code, for [`SidePanel::applies`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PanelSet {
    /// A call or data-flow graph (not variable_renaming's chain).
    pub graph: bool,
    pub renames: bool,
    pub requirements: bool,
    pub why: bool,
    /// The grade panel (not in the read-only embed).
    pub grade: bool,
}

impl SidePanel {
    /// In tab order: what explains the task first (so a task opens on its graph or renames, with the
    /// code), then grading, then the full prompt.
    pub const ALL: &'static [SidePanel] = &[
        SidePanel::Graph,
        SidePanel::Renames,
        SidePanel::Statement,
        SidePanel::Requirements,
        SidePanel::Why,
        SidePanel::Grade,
        SidePanel::Prompt,
    ];

    /// The name in links (`panel=…`) and element ids.
    pub fn as_str(self) -> &'static str {
        match self {
            SidePanel::Grade => "grade",
            SidePanel::Graph => "graph",
            SidePanel::Renames => "renames",
            SidePanel::Requirements => "requirements",
            SidePanel::Why => "why",
            SidePanel::Statement => "statement",
            SidePanel::Prompt => "prompt",
        }
    }

    pub fn parse(name: &str) -> Option<SidePanel> {
        SidePanel::ALL.iter().copied().find(|p| p.as_str() == name.trim())
    }

    /// Whether a task with these views has this panel.
    pub fn applies(self, set: PanelSet) -> bool {
        match self {
            SidePanel::Grade => set.grade,
            SidePanel::Graph => set.graph,
            SidePanel::Renames => set.renames,
            SidePanel::Requirements => set.requirements,
            SidePanel::Why => set.why,
            SidePanel::Statement | SidePanel::Prompt => true,
        }
    }

    /// The panels a task has, in tab order.
    pub fn available(set: PanelSet) -> Vec<SidePanel> {
        SidePanel::ALL.iter().copied().filter(|p| p.applies(set)).collect()
    }

    /// The panel `step` places after `self` among `panels`, wrapping around (`[` is -1, `]` is +1).
    pub fn cycle(self, panels: &[SidePanel], step: isize) -> SidePanel {
        let Some(at) = panels.iter().position(|&p| p == self) else {
            return panels.first().copied().unwrap_or(self);
        };
        let len = panels.len() as isize;
        panels[(at as isize + step).rem_euclid(len) as usize]
    }
}

/// The panel a fragment asks for: `None` without a `panel` key, `Err` (a one-line message naming the
/// valid panels) for a name that is not one. The first `panel` key counts.
pub fn panel_in(fragment: &str) -> Option<Result<SidePanel, String>> {
    let query = fragment.split_once('?').map_or("", |(_, q)| q);
    let value = query.split('&').find_map(|item| {
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        (decode(k).trim() == PANEL_KEY).then(|| decode(v))
    })?;
    Some(SidePanel::parse(&value).ok_or_else(|| {
        let names: Vec<&str> = SidePanel::ALL.iter().map(|p| p.as_str()).collect();
        one_line(&format!("there is no panel '{}'; the panels are {}", shorten(value.trim(), 40), names.join(", ")))
    }))
}

/// The fragment with its `panel` key set to `panel` (replacing any), every other item kept as it was.
pub fn with_panel(fragment: &str, panel: SidePanel) -> String {
    let f = fragment.strip_prefix('#').unwrap_or(fragment);
    let (path, query) = f.split_once('?').unwrap_or((f, ""));
    let mut items: Vec<String> = query
        .split('&')
        .filter(|item| !item.is_empty() && decode(item.split_once('=').map_or(item, |(k, _)| k)).trim() != PANEL_KEY)
        .map(str::to_string)
        .collect();
    items.push(format!("{PANEL_KEY}={}", panel.as_str()));
    format!("#{path}?{}", items.join("&"))
}

/// Whether the page's query (`?embed=1` before the `#`) or the fragment's asks for the embed.
pub fn embed_requested(search: &str, fragment: &str) -> bool {
    let in_query = |q: &str| {
        q.split('&').any(|item| {
            let (k, v) = item.split_once('=').unwrap_or((item, "1"));
            decode(k).trim() == EMBED_KEY && !matches!(decode(v).trim(), "0" | "false" | "no")
        })
    };
    let fragment_query = fragment.split_once('?').map_or("", |(_, q)| q);
    in_query(search.strip_prefix('?').unwrap_or(search)) || in_query(fragment_query)
}

/// Split a query into decoded `key=value` pairs; an item without `=` is an error.
pub fn split_query(query: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for item in query.split('&').filter(|s| !s.is_empty()) {
        match item.split_once('=') {
            Some((k, v)) => out.push((decode(k), decode(v))),
            None => {
                return Err(format!(
                    "the link part '{}' is not of the form key=value (for example n=25)",
                    shorten(&decode(item), 40)
                ));
            }
        }
    }
    Ok(out)
}

/// The decodable `key=value` items of a query, skipping the malformed ones.
fn well_formed_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter_map(|item| item.split_once('=').map(|(k, v)| (decode(k), decode(v))))
        .filter(|(k, _)| !is_extra_key(k))
        .collect()
}

/// The closest valid spec to some pairs: repeatedly clamp an out-of-range number into its range, or
/// drop the key the spec parser complains about, until the spec parses. Ends at the default spec.
pub fn nearest_valid(pairs: &[(String, String)]) -> TaskSpec {
    nearest_valid_why(pairs).0
}

/// [`nearest_valid`], with each problem it mended on the way, in the order it met them.
pub fn nearest_valid_why(pairs: &[(String, String)]) -> (TaskSpec, Vec<String>) {
    let (spec, problems) = cabrito_gen::mend::nearest_valid(pairs);
    (spec, problems.into_iter().map(|e| e.message).collect())
}

/// Percent-decode a URL component (`+` is kept: links never encode spaces with it). Invalid escapes
/// and invalid UTF-8 are kept as text rather than rejected.
pub fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// At most `max` characters of `s`, with an ellipsis when cut (so a huge link cannot flood the page).
pub fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

/// The query pairs of a spec with one knob set to a new value (an empty value removes an optional
/// knob), for the controls.
pub fn with_value(spec: &TaskSpec, key: &str, value: &str) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = spec.pairs().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    pairs.retain(|(k, _)| k != key);
    if !value.trim().is_empty() {
        pairs.push((key.to_string(), value.trim().to_string()));
    }
    // Keep knob order so the resulting link reads the same as a generated one.
    pairs.sort_by_key(|(k, _)| if k == "v" { 0 } else { 1 + KNOBS.iter().position(|kn| kn.key == k).unwrap_or(99) });
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_gen::spec::MAX_N;
    use proptest::prelude::*;

    fn spec(query: &str) -> TaskSpec {
        TaskSpec::from_pairs(split_query(query).unwrap()).unwrap()
    }

    fn bad(fragment: &str) -> (String, TaskSpec) {
        match parse(fragment) {
            Route::BadLink { message, nearest } => (message, nearest),
            other => panic!("{fragment} was accepted as {other:?}"),
        }
    }

    #[test]
    fn panel_keys_read_and_print() {
        // Every panel's name reads back to it, in a link that still opens the same task.
        let s = spec("v=1&kind=add_parameter&n=9&seed=3");
        for &p in SidePanel::ALL {
            let f = with_panel(&fragment(&s), p);
            assert_eq!(panel_in(&f), Some(Ok(p)), "{f}");
            assert_eq!(parse(&f), Route::Task(s.clone()), "{f}: the panel is not a knob");
            assert_eq!(SidePanel::parse(p.as_str()), Some(p));
        }
        assert_eq!(panel_in(&fragment(&s)), None);
        assert_eq!(panel_in("#/task"), None);
        assert_eq!(panel_in("#/task?v=1&panel=statement&n=4"), Some(Ok(SidePanel::Statement)));
        assert_eq!(panel_in("#/task?panel=%20graph%20"), Some(Ok(SidePanel::Graph)));
        // Setting a panel replaces the old one and keeps every other item as written.
        let f = with_panel("#/task?v=1&panel=grade&n=4&solution=x%2By", SidePanel::Prompt);
        assert_eq!(f, "#/task?v=1&n=4&solution=x%2By&panel=prompt");
        assert_eq!(with_panel("/task", SidePanel::Why), "#/task?panel=why");
        // An unknown panel is one line naming the valid ones; the task still opens.
        let f = "#/task?v=1&n=4&panel=no%0dpe%0a";
        let Some(Err(message)) = panel_in(f) else { panic!("{f} was accepted") };
        assert!(message.contains("'no\\rpe'") && message.contains("graph, renames"), "{message}");
        assert!(!message.contains('\n'));
        assert_eq!(parse(f), Route::Task(spec("v=1&n=4")));
        let Some(Err(message)) = panel_in(&format!("#/task?panel={}", "z".repeat(10_000))) else { panic!() };
        assert!(message.len() < 200);
        // The canonical spec (and so the golden hash) never sees it.
        let with = match parse(&with_panel(&fragment(&s), SidePanel::Graph)) {
            Route::Task(t) => t,
            other => panic!("{other:?}"),
        };
        assert_eq!(with.canonical(), s.canonical());
    }

    #[test]
    fn panels_cycle_within_the_tasks_own() {
        let all = PanelSet { graph: true, renames: false, requirements: true, why: false, grade: true };
        let panels = SidePanel::available(all);
        // The graph first (a task opens on what explains it), grading after the task's own panels.
        assert_eq!(
            panels,
            [SidePanel::Graph, SidePanel::Statement, SidePanel::Requirements, SidePanel::Grade, SidePanel::Prompt]
        );
        assert_eq!(SidePanel::Grade.cycle(&panels, 1), SidePanel::Prompt);
        assert_eq!(SidePanel::Graph.cycle(&panels, -1), SidePanel::Prompt);
        assert_eq!(SidePanel::Prompt.cycle(&panels, 1), SidePanel::Graph);
        assert_eq!(SidePanel::Why.cycle(&panels, 1), SidePanel::Graph, "a panel the task lacks starts over");
        let embed = PanelSet { graph: false, renames: true, requirements: false, why: false, grade: false };
        assert_eq!(SidePanel::available(embed), [SidePanel::Renames, SidePanel::Statement, SidePanel::Prompt]);
    }

    #[test]
    fn links_read_back_to_their_spec() {
        let s = spec("v=1&kind=extract_helper&domain=array&axis=search&n=40&seed=18446744073709551615");
        assert_eq!(parse(&fragment(&s)), Route::Task(s.clone()));
        assert_eq!(parse(&fragment(&s)[1..]), Route::Task(s.clone()));
        assert_eq!(parse(&scale_fragment(&s)), Route::Scale(s.clone()));
        assert_eq!(parse("#/task/?v=1&n=9&embed=1&solution=abc"), Route::Task(spec("v=1&n=9")));
        let (message, _) = bad("#/%0anowhere");
        assert!(message.contains("'/\\nnowhere'"), "{message}");
        let (message, _) = bad("#/task?kind=%0d%0a%00");
        assert!(!message.contains(['\n', '\r', '\0']), "{message}");
        for g in ["", "#", "#/", "/", "#/gallery", "#/gallery?x=1"] {
            assert_eq!(parse(g), Route::Gallery, "{g}");
        }
        assert_eq!(parse("#/task"), Route::Task(TaskSpec::default()));
        assert_eq!(parse("#/results"), Route::Results);
        assert_eq!(parse("#/traces"), Route::Traces);
        assert!(matches!(parse("#/results/x"), Route::BadLink { .. }));
        assert_eq!(parse(&agents_fragment(&s)), Route::Agents(s.clone()));
        // The agents page's own keys are not spec keys there, and only there.
        assert_eq!(parse("#/agents?v=1&n=9&strategy=myopic&window=40&lint_gate=off"), Route::Agents(spec("v=1&n=9")));
        assert!(matches!(parse("#/task?v=1&n=9&strategy=myopic"), Route::BadLink { .. }));
    }

    #[test]
    fn malformed_links_get_a_one_line_reason_and_the_nearest_task() {
        let cases: &[(&str, &str, &str)] = &[
            ("#/task?v=1&kind=nope&n=7&seed=3", "unknown kind 'nope'", "v=1&n=7&seed=3"),
            ("#/task?v=1&n=0&seed=5", "out of range", "v=1&n=1&seed=5"),
            ("#/task?v=1&n=99999&domain=string", "out of range", "v=1&domain=string&n=2000"),
            ("#/task?v=1&n=-4", "must be an integer", "v=1&n=1"),
            ("#/task?v=1&n=123456789012345678901234567890", "must be an integer", "v=1&n=2000"),
            ("#/task?v=1&n=000000000000000000000000000000", "out of range", "v=1&n=1"),
            ("#/task?v=1&seed=abc&n=9", "must be an integer", "v=1&n=9"),
            ("#/task?v=1&n=5&n=6", "given twice", "v=1&n=5"),
            ("#/task?v=7&kind=dead_code", "not served", "v=1&kind=dead_code"),
            ("#/task?v=1&colour=red&seed=4", "unknown key 'colour'", "v=1&seed=4"),
            ("#/task?v=1&garbage&n=8", "not of the form key=value", "v=1&n=8"),
            ("#/task?v=1&%ff%fe=1&n=8", "unknown key", "v=1&n=8"),
            ("#/nowhere?v=1&n=8", "there is no page", "v=1"),
        ];
        for (fragment, says, nearest) in cases {
            let (message, got) = bad(fragment);
            assert!(message.contains(says), "{fragment}: message '{message}' should say '{says}'");
            assert!(!message.contains('\n'), "{fragment}: the message is one line");
            assert_eq!(got, spec(nearest), "{fragment}: nearest task");
        }
        // A huge link is named in a short message.
        let (message, _) = bad(&format!("#/{}", "x".repeat(100_000)));
        assert!(message.len() < 300, "{} bytes", message.len());
        let (message, _) = bad(&format!("#/task?{}", "y".repeat(100_000)));
        assert!(message.len() < 300, "{} bytes", message.len());
    }

    #[test]
    fn a_link_repeating_a_key_many_times_still_ends() {
        let query: String = (0..5000).map(|i| format!("n={i}&")).collect();
        let (_, nearest) = bad(&format!("#/task?v=1&{query}"));
        assert_eq!(nearest.n, 1); // the first occurrence, n=0, clamped to 1
        let query: String = (0..2000).map(|i| format!("k{i}=1&")).collect();
        assert_eq!(bad(&format!("#/task?{query}n=7")).1, spec("v=1&n=7"));
    }

    #[test]
    fn percent_decoding_keeps_what_it_cannot_decode() {
        assert_eq!(decode("%41%62c"), "Abc");
        assert_eq!(decode("100%"), "100%");
        assert_eq!(decode("%4"), "%4");
        assert_eq!(decode("%zz%"), "%zz%");
        assert_eq!(decode("a+b"), "a+b");
        assert_eq!(decode("%e2%82%ac"), "€");
        assert_eq!(decode("%e2%82"), "\u{fffd}");
        assert_eq!(shorten("abcdef", 3), "abc…");
        assert_eq!(shorten("ab", 3), "ab");
    }

    #[test]
    fn embed_flags_and_control_values() {
        assert!(embed_requested("?embed=1", "#/task?v=1"));
        assert!(embed_requested("?embed", "#/task?v=1"));
        assert!(embed_requested("", "#/task?v=1&embed=yes"));
        assert!(!embed_requested("", "#/task?v=1&embed=0"));
        assert!(!embed_requested("?x=embed", "#/task?embed=false"));
        let s = spec("v=1&n=9&seed=3");
        let pairs = with_value(&s, "seed", " 12 ");
        assert_eq!(TaskSpec::from_pairs(pairs).unwrap(), spec("v=1&n=9&seed=12"));
        let with = spec("v=1&n=9&n_init=40");
        let pairs = with_value(&with, "n_init", "");
        assert!(pairs.iter().all(|(k, _)| k != "n_init"));
        assert_eq!(pairs[0].0, "v");
    }

    fn link_text() -> impl Strategy<Value = String> {
        let atoms = prop::sample::select(vec![
            "#",
            "/",
            "/task",
            "/scale",
            "?",
            "&",
            "=",
            "%",
            "%2",
            "%41",
            "%ff",
            "%e2%82",
            "v",
            "kind",
            "domain",
            "axis",
            "n",
            "seed",
            "n_init",
            "n_edit",
            "embed",
            "solution",
            "panel",
            "grade",
            "1",
            "0",
            "-3",
            "99999",
            "18446744073709551616",
            "dead_code",
            "math",
            "search",
            "é",
            " ",
            "+",
            "\u{0}",
        ]);
        prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Whatever the fragment, reading it ends, and a bad link's nearest task is a valid spec
        /// whose own link reads back to it.
        #[test]
        fn any_fragment_gives_a_page(body in link_text(), prefix in prop::sample::select(vec!["", "#/task?", "#/scale?", "#/agents?"])) {
            let f = format!("{prefix}{body}");
            match parse(&f) {
                Route::Gallery | Route::Results | Route::Traces => {}
                Route::Task(s) | Route::Scale(s) | Route::Agents(s) => prop_assert!(s.validate().is_ok()),
                Route::BadLink { message, nearest } => {
                    prop_assert!(!message.is_empty() && !message.contains('\n'));
                    prop_assert!(message.chars().count() < 400, "too long: {}", message);
                    prop_assert!(nearest.validate().is_ok());
                    prop_assert!(nearest.n <= MAX_N);
                    prop_assert_eq!(parse(&fragment(&nearest)), Route::Task(nearest.clone()));
                }
            }
        }
    }

    #[test]
    fn a_link_names_every_problem_it_has() {
        let (message, nearest) = bad("#/task?v=1&kind=nope&n=-3");
        assert!(message.starts_with("2 problems: "), "{message}");
        assert!(message.contains("nope") && message.contains("-3"), "{message}");
        assert_eq!(u64::from(nearest.n), cabrito_gen::spec::knob("n").and_then(|k| k.range(&nearest)).unwrap().0);
        // A malformed item and a bad value: both named.
        let (message, _) = bad("#/task?v=1&oops&seed=x");
        assert!(message.contains("oops") && message.contains("seed"), "{message}");
        // One problem reads as before.
        let (message, _) = bad("#/task?v=1&kind=nope");
        assert!(!message.contains("problems"), "{message}");
    }
}
