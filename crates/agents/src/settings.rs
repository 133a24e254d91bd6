//! The interface's settings and the agent's choice, each defined once: [`SETTINGS`] gives every
//! setting's key (a CLI flag `--<key with dashes>` and a link key of `#/agents?…`), label, help,
//! allowed values and default, and how to read and write it. The command line, the agents page's
//! links and its controls are all derived from this table, so they cannot disagree.

use serde::{Deserialize, Serialize};

/// The workspace file the task is solved in.
pub const SOLUTION: &str = "solution.py";
/// The workspace file holding the problem statement.
pub const STATEMENT: &str = "problem.md";

/// Largest window and search cap accepted.
pub const MAX_WINDOW: usize = 2_000;
/// Most protected paths accepted, and the longest one.
const MAX_PROTECTED: usize = 16;
const MAX_PATH_CHARS: usize = 100;

/// The settings of the agent–computer interface.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Lines one `view` shows at most.
    pub window: usize,
    /// Matches one `search` lists at most.
    pub search_cap: usize,
    /// Refuse an edit of a Python file whose result does not compile.
    pub lint_gate: bool,
    /// Paths no edit may change.
    pub protected: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        let mut s = Settings { window: 0, search_cap: 0, lint_gate: false, protected: Vec::new() };
        for k in SETTINGS {
            (k.set)(&mut s, k.default).expect("defaults are valid");
        }
        s
    }
}

/// What kind of control a setting gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A whole number from `min` to `max`.
    Number { min: usize, max: usize },
    /// `on` or `off`.
    Switch,
    /// A comma-separated list of paths.
    Paths,
}

/// One setting.
pub struct Setting {
    /// Link key and (with `_` as `-`) CLI flag.
    pub key: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    pub input: Input,
    pub default: &'static str,
    pub get: fn(&Settings) -> String,
    pub set: fn(&mut Settings, &str) -> Result<(), String>,
}

impl Setting {
    /// The CLI flag (`search-cap`).
    pub fn flag(&self) -> String {
        self.key.replace('_', "-")
    }
    /// The allowed values, in words.
    pub fn allowed(&self) -> String {
        match self.input {
            Input::Number { min, max } => format!("{min} to {max}"),
            Input::Switch => "on or off".into(),
            Input::Paths => format!("comma-separated workspace paths, at most {MAX_PROTECTED}"),
        }
    }
}

fn number(key: &str, text: &str, min: usize, max: usize) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|x| (min..=max).contains(x))
        .ok_or_else(|| format!("{key} must be a whole number from {min} to {max}, got '{}'", clip(text)))
}

fn switch(key: &str, text: &str) -> Result<bool, String> {
    match text.trim() {
        "on" | "true" | "1" | "yes" => Ok(true),
        "off" | "false" | "0" | "no" => Ok(false),
        other => Err(format!("{key} must be on or off, got '{}'", clip(other))),
    }
}

fn paths(key: &str, text: &str) -> Result<Vec<String>, String> {
    let list: Vec<String> = text.split(',').map(str::trim).filter(|p| !p.is_empty()).map(str::to_string).collect();
    if list.len() > MAX_PROTECTED {
        return Err(format!("{key} takes at most {MAX_PROTECTED} paths, got {}", list.len()));
    }
    if let Some(p) = list.iter().find(|p| p.chars().count() > MAX_PATH_CHARS || p.chars().any(char::is_control)) {
        return Err(format!("{key}: '{}' is not a workspace path", clip(p)));
    }
    Ok(list)
}

fn clip(s: &str) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// Every setting, in the order of flags and controls.
pub const SETTINGS: &[Setting] = &[
    Setting {
        key: "window",
        label: "View window",
        help: "lines one `view` shows at most",
        input: Input::Number { min: 1, max: MAX_WINDOW },
        default: "100",
        get: |s| s.window.to_string(),
        set: |s, t| number("window", t, 1, MAX_WINDOW).map(|v| s.window = v),
    },
    Setting {
        key: "search_cap",
        label: "Search cap",
        help: "matches one `search` lists at most",
        input: Input::Number { min: 1, max: MAX_WINDOW },
        default: "50",
        get: |s| s.search_cap.to_string(),
        set: |s, t| number("search_cap", t, 1, MAX_WINDOW).map(|v| s.search_cap = v),
    },
    Setting {
        key: "lint_gate",
        label: "Lint gate",
        help: "refuse an edit of a Python file whose result does not compile",
        input: Input::Switch,
        default: "on",
        get: |s| if s.lint_gate { "on" } else { "off" }.to_string(),
        set: |s, t| switch("lint_gate", t).map(|v| s.lint_gate = v),
    },
    Setting {
        key: "protected",
        label: "Protected paths",
        help: "workspace paths no edit may change",
        input: Input::Paths,
        default: STATEMENT,
        get: |s| s.protected.join(","),
        set: |s, t| paths("protected", t).map(|v| s.protected = v),
    },
];

/// The setting with this key (`search_cap`; the flag spelling `search-cap` is accepted too).
pub fn setting(key: &str) -> Option<&'static Setting> {
    let key = key.trim().replace('-', "_");
    SETTINGS.iter().find(|s| s.key == key)
}

impl Settings {
    /// Settings from `(key, value)` pairs over the defaults; an unknown key or a bad value is a
    /// one-line error naming what is allowed.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Settings, String> {
        let mut s = Settings::default();
        for (k, v) in pairs {
            let Some(setting) = setting(k) else {
                let keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
                return Err(format!("unknown setting '{}' (settings: {})", clip(k), keys.join(", ")));
            };
            (setting.set)(&mut s, v)?;
        }
        Ok(s)
    }
    /// The settings that differ from the defaults, as `(key, value)` pairs.
    pub fn changed(&self) -> Vec<(&'static str, String)> {
        let d = Settings::default();
        SETTINGS.iter().filter(|k| (k.get)(self) != (k.get)(&d)).map(|k| (k.key, (k.get)(self))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_print_back() {
        let d = Settings::default();
        assert_eq!((d.window, d.search_cap, d.lint_gate), (100, 50, true));
        assert_eq!(d.protected, vec![STATEMENT.to_string()]);
        assert!(d.changed().is_empty());
        for k in SETTINGS {
            let again = Settings::from_pairs([(k.key, (k.get)(&d).as_str())]).unwrap();
            assert_eq!(again, d, "{}", k.key);
        }
    }

    #[test]
    fn bad_values_are_one_line_errors_naming_the_range() {
        for (k, v, want) in [
            ("window", "0", "1 to 2000"),
            ("window", "-3", "1 to 2000"),
            ("search-cap", "x", "1 to 2000"),
            ("lint_gate", "maybe", "on or off"),
            ("colour", "red", "settings: window"),
        ] {
            let e = Settings::from_pairs([(k, v)]).unwrap_err();
            assert!(e.contains(want) && !e.contains('\n'), "{k}={v}: {e}");
        }
        let s = Settings::from_pairs([("search-cap", "7"), ("protected", "a.py, problem.md"), ("lint_gate", "off")])
            .unwrap();
        assert_eq!((s.search_cap, s.lint_gate), (7, false));
        assert_eq!(s.protected, vec!["a.py".to_string(), "problem.md".to_string()]);
        assert_eq!(s.changed().len(), 3);
    }
}
