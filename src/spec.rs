//! Every knob of a task, defined once.
//!
//! A [`TaskSpec`] fully determines a task (decision D1). The table [`KNOBS`] is the single definition
//! of each knob: the CLI flags, the share-link keys and the playground's controls are all derived from
//! it, and every textual value (a flag, a URL query value) goes through [`TaskSpec::from_pairs`].

use serde::{Deserialize, Serialize};
use std::fmt;

/// The generator version. Bump it whenever the output for an existing spec changes.
pub const GENERATOR_VERSION: u32 = 1;
/// Versions this build can still generate byte for byte.
pub const SERVED_VERSIONS: &[u32] = &[1];
/// Largest size accepted for either graph.
pub const MAX_N: u32 = 2000;
/// The paper's sizes, offered as presets.
pub const PAPER_SIZES: &[u32] = &[5, 10, 25, 50, 100, 200];
/// The fixed size of the other graph on the traversal and search axes.
pub const FIXED_OTHER_SIZE: u32 = 25;

macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $text:literal : $label:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name { $(#[serde(rename = $text)] $variant),+ }
        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub const NAMES: &'static [&'static str] = &[$($text),+];
            /// The machine name used in flags, links and records.
            pub fn as_str(self) -> &'static str { match self { $($name::$variant => $text),+ } }
            /// A human label for the playground.
            pub fn label(self) -> &'static str { match self { $($name::$variant => $label),+ } }
            pub fn parse(s: &str) -> Option<Self> { match s { $($text => Some($name::$variant),)+ _ => None } }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }
    };
}

named_enum!(
    /// The task kinds, with the reference's task-type names.
    Kind {
        DeadCode = "dead_code": "Remove dead code",
        AddParameter = "add_parameter": "Add a parameter",
        AddReturnValue = "add_return_value": "Add a return value",
        CacheFunction = "cache_function": "Cache a function call",
        ExtractHelper = "extract_helper": "Don't repeat yourself",
    }
);

named_enum!(
    /// The value domains.
    Domain {
        Math = "math": "math (float)",
        String = "string": "string (str)",
        Array = "array": "array (np.ndarray)",
    }
);

named_enum!(
    /// The scaling axes this generator version serves.
    Axis {
        Traversal = "traversal": "function traversal",
        Search = "search": "function search",
    }
);

/// Axes of the paper that this generator version does not build yet.
pub const PLANNED_AXES: &[&str] = &["runtime", "instructions"];

impl Kind {
    /// Smallest edit-graph size the kind can be built from (cache and DRY need a tree with two
    /// roots, so one edit function cannot work).
    pub fn min_edit(self) -> u32 {
        match self {
            Kind::CacheFunction | Kind::ExtractHelper => 2,
            _ => 1,
        }
    }
    /// The reference's task-set name for a domain.
    pub fn task_set(domain: Domain) -> String {
        format!("{}_function", domain.as_str())
    }
}

impl Axis {
    /// The experiment name the reference gives this axis.
    pub fn experiment(self) -> &'static str {
        match self {
            Axis::Traversal => "function_traversal",
            Axis::Search => "function_search",
        }
    }
    /// What `n` scales on this axis.
    pub fn scales(self) -> &'static str {
        match self {
            Axis::Traversal => "|V_edit| = n functions to edit, 25 untouched",
            Axis::Search => "|V_init| = n untouched functions to search past, 25 to edit",
        }
    }
}

/// The shape of a knob's values.
#[derive(Clone, Copy, Debug)]
pub enum Values {
    Choice(&'static [&'static str]),
    Int { min: u64, max: u64 },
}

/// One knob: its key (URL key and CLI long flag), label, help, values and default.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    pub key: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    pub values: Values,
    /// `None` means "absent unless given" (the explicit size overrides).
    pub default: Option<&'static str>,
}

pub const KNOBS: &[Knob] = &[
    Knob {
        key: "kind",
        label: "Kind",
        help: "task kind (the reference's task type)",
        values: Values::Choice(Kind::NAMES),
        default: Some("add_parameter"),
    },
    Knob {
        key: "domain",
        label: "Domain",
        help: "value domain of every function",
        values: Values::Choice(Domain::NAMES),
        default: Some("math"),
    },
    Knob {
        key: "axis",
        label: "Axis",
        help: "scaling axis: traversal grows the functions to edit, search grows the untouched ones",
        values: Values::Choice(Axis::NAMES),
        default: Some("traversal"),
    },
    Knob {
        key: "n",
        label: "n",
        help: "size along the axis (the paper uses 5, 10, 25, 50, 100, 200)",
        values: Values::Int { min: 1, max: MAX_N as u64 },
        default: Some("25"),
    },
    Knob {
        key: "seed",
        label: "Seed",
        help: "seed of the task; the same spec always gives the same task",
        values: Values::Int { min: 0, max: u64::MAX },
        default: Some("0"),
    },
    Knob {
        key: "n_init",
        label: "untouched functions",
        help: "explicit size of the untouched graph C_init (overrides what the axis implies)",
        values: Values::Int { min: 1, max: MAX_N as u64 },
        default: None,
    },
    Knob {
        key: "n_edit",
        label: "functions to edit",
        help: "explicit size of the edit graph C_edit (overrides what the axis implies)",
        values: Values::Int { min: 1, max: MAX_N as u64 },
        default: None,
    },
];

/// Look a knob up by key.
pub fn knob(key: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.key == key)
}

impl Knob {
    /// The CLI flag: `--n-init` for `n_init`.
    pub fn flag(&self) -> String {
        self.key.replace('_', "-")
    }
    /// A one-line description of the allowed values.
    pub fn allowed(&self) -> String {
        match self.values {
            Values::Choice(c) => format!("one of {}", c.join(", ")),
            Values::Int { min, max } => format!("an integer from {min} to {max}"),
        }
    }
}

/// A spec error: which knob, and a one-line reason naming what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub key: String,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for SpecError {}

fn err(key: &str, message: String) -> SpecError {
    SpecError { key: key.to_string(), message }
}

/// Everything that determines a task.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TaskSpec {
    pub v: u32,
    pub kind: Kind,
    pub domain: Domain,
    pub axis: Axis,
    pub n: u32,
    pub seed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_init: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_edit: Option<u32>,
}

impl Default for TaskSpec {
    fn default() -> Self {
        TaskSpec::from_pairs(std::iter::empty::<(&str, &str)>()).expect("defaults are valid")
    }
}

/// Sizes of the two graphs a spec asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphSizes {
    pub n_init: u32,
    pub n_edit: u32,
}

impl TaskSpec {
    pub fn new(kind: Kind, domain: Domain, axis: Axis, n: u32, seed: u64) -> Self {
        TaskSpec { v: GENERATOR_VERSION, kind, domain, axis, n, seed, n_init: None, n_edit: None }
    }

    /// The sizes of C_init and C_edit: the axis decides, explicit sizes override.
    pub fn sizes(&self) -> GraphSizes {
        let (init, edit) = match self.axis {
            Axis::Traversal => (FIXED_OTHER_SIZE, self.n),
            Axis::Search => (self.n, FIXED_OTHER_SIZE),
        };
        GraphSizes { n_init: self.n_init.unwrap_or(init), n_edit: self.n_edit.unwrap_or(edit) }
    }

    /// Build a spec from `key=value` pairs (URL query, CLI flags). Unknown keys, repeated keys,
    /// bad values and out-of-range sizes give a one-line error that says what is allowed.
    pub fn from_pairs<'a, I, K, V>(pairs: I) -> Result<TaskSpec, SpecError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str> + 'a,
        V: AsRef<str> + 'a,
    {
        let mut given: Vec<(String, String)> = Vec::new();
        let mut v: Option<u32> = None;
        for (k, val) in pairs {
            let (k, val) = (k.as_ref().trim(), val.as_ref().trim());
            if k == "v" {
                let parsed: u32 = val
                    .parse()
                    .map_err(|_| err("v", format!("the version 'v' must be a positive integer, got '{val}'")))?;
                if !SERVED_VERSIONS.contains(&parsed) {
                    return Err(err(
                        "v",
                        format!(
                            "generator version {parsed} is not served by this build (it serves v{})",
                            SERVED_VERSIONS.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", v")
                        ),
                    ));
                }
                v = Some(parsed);
                continue;
            }
            if knob(k).is_none() {
                let keys: Vec<&str> = KNOBS.iter().map(|k| k.key).collect();
                return Err(err(k, format!("unknown key '{k}'; the keys are v, {}", keys.join(", "))));
            }
            if given.iter().any(|(g, _)| g == k) {
                return Err(err(k, format!("'{k}' is given twice")));
            }
            given.push((k.to_string(), val.to_string()));
        }
        let get = |key: &str| -> Option<String> {
            given
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .or_else(|| knob(key).and_then(|k| k.default).map(str::to_string))
        };
        let choice = |key: &str| -> Result<String, SpecError> {
            let kn = knob(key).expect("known knob");
            let value = get(key).expect("choice knobs have defaults");
            match kn.values {
                Values::Choice(c) if c.contains(&value.as_str()) => Ok(value),
                _ => {
                    if key == "axis" && PLANNED_AXES.contains(&value.as_str()) {
                        return Err(err(
                            key,
                            format!(
                                "axis '{value}' is not built by generator v{GENERATOR_VERSION} yet; the axes are {}",
                                Axis::NAMES.join(", ")
                            ),
                        ));
                    }
                    Err(err(key, format!("unknown {key} '{value}'; {key} must be {}", kn.allowed())))
                }
            }
        };
        let int = |key: &str| -> Result<Option<u64>, SpecError> {
            let kn = knob(key).expect("known knob");
            let Some(value) = get(key) else { return Ok(None) };
            let Values::Int { min, max } = kn.values else { unreachable!("int knob") };
            let parsed: u64 =
                value.parse().map_err(|_| err(key, format!("{key} must be {}, got '{value}'", kn.allowed())))?;
            if parsed < min || parsed > max {
                return Err(err(key, format!("{key} = {parsed} is out of range; {key} must be {}", kn.allowed())));
            }
            Ok(Some(parsed))
        };
        let spec = TaskSpec {
            v: v.unwrap_or(GENERATOR_VERSION),
            kind: Kind::parse(&choice("kind")?).expect("validated"),
            domain: Domain::parse(&choice("domain")?).expect("validated"),
            axis: Axis::parse(&choice("axis")?).expect("validated"),
            n: int("n")?.expect("n has a default") as u32,
            seed: int("seed")?.expect("seed has a default"),
            n_init: int("n_init")?.map(|x| x as u32),
            n_edit: int("n_edit")?.map(|x| x as u32),
        };
        spec.validate()?;
        Ok(spec)
    }

    /// Check the cross-knob rules (the kind's minimum edit size).
    pub fn validate(&self) -> Result<(), SpecError> {
        for (key, value) in [("n", Some(self.n)), ("n_init", self.n_init), ("n_edit", self.n_edit)] {
            if let Some(x) = value {
                if x == 0 || x > MAX_N {
                    return Err(err(
                        key,
                        format!("{key} = {x} is out of range; {key} must be an integer from 1 to {MAX_N}"),
                    ));
                }
            }
        }
        let s = self.sizes();
        let min = self.kind.min_edit();
        if s.n_edit < min {
            let key = if self.n_edit.is_some() || self.axis == Axis::Search { "n_edit" } else { "n" };
            return Err(err(
                key,
                format!(
                    "{} needs at least {min} functions to edit (a tree with two roots), got {}; {key} must be an integer from {min} to {MAX_N}",
                    self.kind, s.n_edit
                ),
            ));
        }
        Ok(())
    }

    /// All keys with their values, in knob order, the version first.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![("v", self.v.to_string())];
        for k in KNOBS {
            let value = match k.key {
                "kind" => Some(self.kind.to_string()),
                "domain" => Some(self.domain.to_string()),
                "axis" => Some(self.axis.to_string()),
                "n" => Some(self.n.to_string()),
                "seed" => Some(self.seed.to_string()),
                "n_init" => self.n_init.map(|x| x.to_string()),
                "n_edit" => self.n_edit.map(|x| x.to_string()),
                _ => unreachable!("every knob is listed"),
            };
            if let Some(value) = value {
                out.push((k.key, value));
            }
        }
        out
    }

    /// The canonical text of the spec: every key, explicit. Seeds are hashed from it.
    pub fn canonical(&self) -> String {
        self.pairs().iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")
    }

    /// The readable query of a share link: the version, then only what differs from the defaults.
    pub fn to_query(&self) -> String {
        self.pairs()
            .into_iter()
            .filter(|(k, v)| *k == "v" || knob(k).and_then(|kn| kn.default) != Some(v.as_str()))
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }
}

impl fmt::Display for TaskSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_round_trip() {
        let s = TaskSpec::default();
        assert_eq!(s.to_query(), "v=1");
        assert_eq!(s.kind, Kind::AddParameter);
        assert_eq!(s.sizes(), GraphSizes { n_init: 25, n_edit: 25 });
    }

    #[test]
    fn errors_name_what_is_allowed() {
        let e = TaskSpec::from_pairs([("kind", "nope")]).unwrap_err();
        assert!(e.message.contains("dead_code, add_parameter"), "{e}");
        let e = TaskSpec::from_pairs([("n", "0")]).unwrap_err();
        assert!(e.message.contains("from 1 to 2000"), "{e}");
        let e = TaskSpec::from_pairs([("seed", "x1")]).unwrap_err();
        assert!(e.message.contains("integer"), "{e}");
        let e = TaskSpec::from_pairs([("kind", "cache_function"), ("n", "1")]).unwrap_err();
        assert!(e.message.contains("at least 2"), "{e}");
        let e = TaskSpec::from_pairs([("axis", "runtime")]).unwrap_err();
        assert!(e.message.contains("not built"), "{e}");
        let e = TaskSpec::from_pairs([("v", "9")]).unwrap_err();
        assert!(e.message.contains("not served"), "{e}");
        let e = TaskSpec::from_pairs([("bogus", "1")]).unwrap_err();
        assert!(e.message.contains("unknown key"), "{e}");
    }

    #[test]
    fn query_round_trips() {
        let s = TaskSpec::from_pairs([("kind", "dead_code"), ("n", "200"), ("seed", "7"), ("axis", "search")]).unwrap();
        let q = s.to_query();
        assert_eq!(q, "v=1&kind=dead_code&axis=search&n=200&seed=7");
        let back = TaskSpec::from_pairs(q.split('&').map(|p| p.split_once('=').unwrap())).unwrap();
        assert_eq!(back, s);
        assert_eq!(s.sizes(), GraphSizes { n_init: 200, n_edit: 25 });
    }
}
