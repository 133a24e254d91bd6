//! Every knob of a task, defined once.
//!
//! A [`TaskSpec`] fully determines a task (decision D1). The table [`KNOBS`] is the single definition
//! of each knob: the CLI flags, the share-link keys and the playground's controls are all derived from
//! it, and every textual value (a flag, a URL query value) goes through [`TaskSpec::from_pairs`].

use crate::kinds::merge_codebases as merge;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The generator version. Bump it whenever the output for an existing spec changes.
pub const GENERATOR_VERSION: u32 = 1;
/// Versions this build can still generate byte for byte.
pub const SERVED_VERSIONS: &[u32] = &[1];
/// Largest size accepted for either graph.
pub const MAX_N: u32 = 2000;
/// The paper's sizes `n` (of every axis and own grid; a test checks the `n` knob's help names them).
pub const PAPER_SIZES: &[u32] = &[5, 10, 25, 50, 100, 200];

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
            pub fn parse(s: &str) -> Option<Self> { Self::ALL.iter().copied().find(|x| x.as_str() == s) }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.as_str()) }
        }
    };
}

/// An enum whose every value is defined by a module of its own and reached through one trait
/// object: the kinds (`kinds::Kind`) and the axes (`axes::Axis`). One line per value gives the
/// machine name (flags, links, records), the lists, the parser and `def()`, the value's definition.
/// With `generate: f`, it also gives `f(spec)`, which calls the kind's own `generate` (not in the
/// trait object, so a build that never generates carries no generator). A value may carry a
/// `#[cfg(...)]` (the test-only toy kind).
macro_rules! registry {
    (@enum $(#[$m:meta])* $name:ident: $tr:ident { $($(#[$vm:meta])* $variant:ident = $text:literal => $def:path),+ }) => {
        $(#[$m])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
        )]
        pub enum $name { $($(#[$vm])* #[serde(rename = $text)] $variant),+ }
        impl $name {
            /// Every value, in registry order (the order of flags, lists and the gallery).
            pub const ALL: &'static [$name] = &[$($(#[$vm])* $name::$variant),+];
            /// The machine names, in registry order.
            pub const NAMES: &'static [&'static str] = &[$($(#[$vm])* $text),+];
            /// The machine name used in flags, links and records.
            pub fn as_str(self) -> &'static str { match self { $($(#[$vm])* $name::$variant => $text),+ } }
            pub fn parse(s: &str) -> Option<Self> { Self::ALL.iter().copied().find(|x| x.as_str() == s) }
            /// The definition: everything particular to this value, behind one interface.
            pub fn def(self) -> &'static dyn $tr { match self { $($(#[$vm])* $name::$variant => &$def),+ } }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(self.as_str()) }
        }
    };
    ($(#[$m:meta])* $name:ident: $tr:ident, generate: $generate:ident { $($(#[$vm:meta])* $variant:ident = $text:literal => $def:path),+ $(,)? }) => {
        registry!(@enum $(#[$m])* $name: $tr { $($(#[$vm])* $variant = $text => $def),+ });
        /// Make the task of a valid spec with its kind's own `generate` (`task::generate_full`
        /// checks the spec first).
        pub fn $generate(spec: &$crate::spec::TaskSpec) -> Result<$crate::task::Generated, $crate::spec::SpecError> {
            match spec.kind { $($(#[$vm])* $name::$variant => $def.generate(spec)),+ }
        }
    };
    ($(#[$m:meta])* $name:ident: $tr:ident { $($(#[$vm:meta])* $variant:ident = $text:literal => $def:path),+ $(,)? }) => {
        registry!(@enum $(#[$m])* $name: $tr { $($(#[$vm])* $variant = $text => $def),+ });
    };
}
pub(crate) use registry;

pub use crate::axes::Axis;
pub use crate::kinds::Kind;

named_enum!(
    /// The value domains.
    Domain {
        Math = "math": "math (float)",
        String = "string": "string (str)",
        Array = "array": "array (np.ndarray)",
    }
);

/// Axes of the paper that this generator version does not build yet.
pub const PLANNED_AXES: &[&str] = &[];

/// Which values of a knob a kind is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support<T: 'static> {
    /// Only these values.
    Only(&'static [T]),
    /// The knob does not apply to the kind: the spec keeps the knob's default, links leave it out,
    /// and any other value is an error.
    NotApplicable,
}

impl<T: PartialEq + fmt::Display> Support<T> {
    /// Does the kind take this value?
    pub fn allows(&self, value: &T) -> bool {
        match self {
            Support::Only(list) => list.contains(value),
            Support::NotApplicable => false,
        }
    }
    /// `math, string` (or an empty string when the knob does not apply).
    pub fn names(&self) -> String {
        match self {
            Support::Only(list) => list.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "),
            Support::NotApplicable => String::new(),
        }
    }
}

/// The shape of a knob's values.
#[derive(Clone, Copy, Debug)]
pub enum Values {
    Choice(&'static [&'static str]),
    Int {
        min: u64,
        max: u64,
    },
    /// Any subset of these names with at least `min` of them, written `all`, `none` or the names
    /// joined by commas (printed in this order; see [`set_text`]).
    Set {
        items: &'static [&'static str],
        min: usize,
    },
}

/// A knob's value once checked against its [`Values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parsed<'a> {
    Choice(&'a str),
    Int(u64),
    /// A subset of a [`Values::Set`]'s items: bit `i` is item `i`.
    Set(u32),
}

/// The text of a subset of `items` (bit `i` = item `i`): `all`, `none`, or the names in list order
/// joined by commas. The one way a subset is printed (links, flags, records).
pub fn set_text(items: &[&str], mask: u32) -> String {
    let full = (1u32 << items.len()) - 1;
    match mask & full {
        0 => "none".into(),
        m if m == full => "all".into(),
        m => items.iter().enumerate().filter(|(i, _)| m & (1 << i) != 0).map(|(_, n)| *n).collect::<Vec<_>>().join(","),
    }
}

/// Read a subset of `items` written as [`set_text`] writes it (any order, repeats allowed, spaces
/// around names ignored). The error names the unknown item.
pub fn parse_set(items: &[&str], text: &str) -> Result<u32, String> {
    match text.trim() {
        "all" => return Ok((1u32 << items.len()) - 1),
        "none" => return Ok(0),
        _ => {}
    }
    let mut mask = 0u32;
    for name in text.split(',').map(str::trim) {
        match items.iter().position(|i| *i == name) {
            Some(i) => mask |= 1 << i,
            None => return Err(format!("unknown item '{name}'")),
        }
    }
    Ok(mask)
}

/// A set of named items (a knob of [`Values::Set`]) as a `TaskSpec` field: a bit mask over a fixed
/// list, serialised as its [`set_text`] so records stay readable.
macro_rules! name_set {
    ($(#[$m:meta])* $name:ident = $items:expr) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(into = "String", try_from = "String")]
        pub struct $name(pub u32);
        impl $name {
            /// The names, in canonical order (bit `i` is `ITEMS[i]`).
            pub const ITEMS: &'static [&'static str] = $items;
            /// Every item.
            pub fn all() -> Self {
                $name((1u32 << Self::ITEMS.len()) - 1)
            }
            pub fn is_all(&self) -> bool {
                *self == Self::all()
            }
            /// Whether the item at this index of `ITEMS` is in the set.
            pub fn has(self, index: usize) -> bool {
                self.0 & (1 << index) != 0
            }
            /// The names in the set, in canonical order.
            pub fn names(self) -> Vec<&'static str> {
                Self::ITEMS.iter().enumerate().filter(|(i, _)| self.has(*i)).map(|(_, n)| *n).collect()
            }
            pub fn len(self) -> usize {
                self.0.count_ones() as usize
            }
            pub fn is_empty(self) -> bool {
                self.0 == 0
            }
        }
        impl From<$name> for String {
            fn from(s: $name) -> String {
                $crate::spec::set_text($name::ITEMS, s.0)
            }
        }
        impl TryFrom<String> for $name {
            type Error = String;
            fn try_from(t: String) -> Result<Self, String> {
                $crate::spec::parse_set($name::ITEMS, &t).map($name)
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&$crate::spec::set_text($name::ITEMS, self.0))
            }
        }
    };
}
pub(crate) use name_set;

/// One knob: its key (URL key and CLI long flag), label, help, values and default, and how it is
/// read from, written to and applies to a [`TaskSpec`]. Everything else (parsing, printing, links,
/// flags, controls, range checks) is derived from this table.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    pub key: &'static str,
    pub label: &'static str,
    pub help: &'static str,
    pub values: Values,
    /// `None` means "absent unless given" (the explicit size overrides).
    pub default: Option<&'static str>,
    /// A human label of a value, for the app's controls (`None`: the value is its own label).
    pub value_label: fn(&str) -> Option<&'static str>,
    /// The knob's value in a spec, as text (`None` for an unset optional knob).
    pub get: fn(&TaskSpec) -> Option<String>,
    /// Store a checked value in a spec.
    pub set: fn(&mut TaskSpec, Parsed),
    /// Whether the knob applies to a spec, judged from the knobs before it (kind, domain, axis come
    /// first); `Err` names what it does not apply to. A knob that does not apply is left out of
    /// `canonical()` and links, keeps its default, and may be given only with its default value.
    pub applies: fn(&TaskSpec) -> Result<(), String>,
}

fn always(_: &TaskSpec) -> Result<(), String> {
    Ok(())
}

fn int(p: Parsed) -> u64 {
    match p {
        Parsed::Int(x) => x,
        Parsed::Choice(_) | Parsed::Set(_) => 0,
    }
}

fn choice<'a>(p: Parsed<'a>) -> &'a str {
    match p {
        Parsed::Choice(s) => s,
        Parsed::Int(_) | Parsed::Set(_) => "",
    }
}

fn set(p: Parsed) -> u32 {
    match p {
        Parsed::Set(m) => m,
        Parsed::Int(_) | Parsed::Choice(_) => 0,
    }
}

/// A size knob's value (range-checked against [`MAX_N`] before it is stored).
fn size(p: Parsed) -> u32 {
    u32::try_from(int(p)).unwrap_or(u32::MAX)
}

pub const KNOBS: &[Knob] = &[
    Knob {
        key: "kind",
        label: "Kind",
        help: "task kind (the reference's task type)",
        values: Values::Choice(Kind::NAMES),
        default: Some("add_parameter"),
        value_label: |v| Kind::parse(v).map(Kind::label),
        get: |s| Some(s.kind.to_string()),
        set: |s, v| s.kind = Kind::parse(choice(v)).unwrap_or(s.kind),
        applies: always,
    },
    Knob {
        key: "domain",
        label: "Domain",
        help: "value domain of every function",
        values: Values::Choice(Domain::NAMES),
        default: Some("math"),
        value_label: |v| Domain::parse(v).map(Domain::label),
        get: |s| Some(s.domain.to_string()),
        set: |s, v| s.domain = Domain::parse(choice(v)).unwrap_or(s.domain),
        applies: |s| match s.kind.def().domains() {
            Support::Only(_) => Ok(()),
            Support::NotApplicable => Err(s.kind.to_string()),
        },
    },
    Knob {
        key: "axis",
        label: "Axis",
        help: "scaling axis: traversal grows the functions to edit, search grows the untouched ones, runtime the \
               hops of the check() each branch's guard runs, comment the words of a comment every edited function \
               must carry",
        values: Values::Choice(Axis::NAMES),
        default: Some("traversal"),
        value_label: |v| Axis::parse(v).map(Axis::label),
        get: |s| Some(s.axis.to_string()),
        set: |s, v| s.axis = Axis::parse(choice(v)).unwrap_or(s.axis),
        applies: |s| match s.kind.def().axes() {
            Support::Only(_) => Ok(()),
            Support::NotApplicable => Err(s.kind.to_string()),
        },
    },
    Knob {
        key: "n",
        label: "n",
        help: "size along the axis (the paper uses 5, 10, 25, 50, 100, 200)",
        // The widest range of any axis; each axis narrows it (`AxisDef::max_n`, see `Knob::range`).
        values: Values::Int { min: 1, max: MAX_HOPS as u64 },
        default: Some("25"),
        value_label: |_| None,
        get: |s| Some(s.n.to_string()),
        set: |s, v| s.n = size(v),
        applies: always,
    },
    Knob {
        key: "seed",
        label: "Seed",
        help: "seed of the task; the same spec always gives the same task",
        values: Values::Int { min: 0, max: u64::MAX },
        default: Some("0"),
        value_label: |_| None,
        get: |s| Some(s.seed.to_string()),
        set: |s, v| s.seed = int(v),
        applies: always,
    },
    Knob {
        key: "n_init",
        label: "untouched functions",
        help: "explicit size of the untouched graph C_init (overrides what the axis implies)",
        values: Values::Int { min: 1, max: MAX_N as u64 },
        default: None,
        value_label: |_| None,
        get: |s| s.n_init.map(|x| x.to_string()),
        set: |s, v| s.n_init = Some(size(v)),
        applies: graph_kinds,
    },
    Knob {
        key: "n_edit",
        label: "functions to edit",
        help: "explicit size of the edit graph C_edit (overrides what the axis implies)",
        values: Values::Int { min: 1, max: MAX_N as u64 },
        default: None,
        value_label: |_| None,
        get: |s| s.n_edit.map(|x| x.to_string()),
        set: |s, v| s.n_edit = Some(size(v)),
        applies: graph_kinds,
    },
    Knob {
        key: "branches",
        label: "branches",
        help: "runtime: leaves of every function's if/else tree (one of them runs)",
        values: Values::Choice(&["2", "4", "8"]),
        default: Some("2"),
        value_label: |_| None,
        get: |s| Some(s.branches.to_string()),
        set: |s, v| s.branches = choice(v).parse().unwrap_or(DEFAULT_BRANCHES),
        applies: runtime_axis,
    },
    Knob {
        key: "ratio",
        // The link key and the CLI flag's name (`--ratio`), so that a reader finds it under one name.
        label: "ratio",
        help: "runtime: the guards' breadth/depth ratio; 1.0 makes each guard one check() of n steps, lower values \
               spread the n hops over several calls joined by ^",
        values: Values::Choice(RATIOS),
        default: Some("1.0"),
        value_label: |_| None,
        get: |s| Some(ratio_text(s.ratio_tenths)),
        set: |s, v| s.ratio_tenths = RATIOS.iter().position(|r| *r == choice(v)).unwrap_or(10) as u8,
        applies: runtime_axis,
    },
    Knob {
        key: "d",
        label: "differences",
        help: "merge: lines where the two classes really differ (the blocks between them are rewritten but equal)",
        values: Values::Int { min: 1, max: merge::MAX_D as u64 },
        default: Some("1"),
        value_label: |_| None,
        get: |s| Some(s.d.to_string()),
        set: |s, v| s.d = size(v),
        applies: merge_only,
    },
    Knob {
        key: "params",
        label: "parameters",
        help: "merge: parameters of compute()",
        values: Values::Int { min: 1, max: merge::MAX_PARAMS as u64 },
        default: Some("10"),
        value_label: |_| None,
        get: |s| Some(s.params.to_string()),
        set: |s, v| s.params = size(v),
        applies: merge_only,
    },
    Knob {
        key: "min_block",
        label: "shortest block",
        help: "merge: fewest lines in each shared block",
        values: Values::Int { min: 1, max: merge::MAX_MIN_BLOCK as u64 },
        default: Some("2"),
        value_label: |_| None,
        get: |s| Some(s.min_block.to_string()),
        set: |s, v| s.min_block = size(v),
        applies: merge_only,
    },
    Knob {
        key: "transformations",
        label: "rewrites",
        help: "merge: the meaning-preserving rewrites applied to each class's blocks",
        values: Values::Set { items: merge::Transformations::ITEMS, min: 0 },
        default: Some("all"),
        value_label: |_| None,
        get: |s| Some(s.transformations.to_string()),
        set: |s, v| s.transformations = merge::Transformations(set(v)),
        applies: merge_only,
    },
    Knob {
        key: "perturbations",
        label: "differences by",
        help: "merge: the ways a differing line may differ (one is drawn per difference)",
        values: Values::Set { items: merge::Perturbations::ITEMS, min: 1 },
        default: Some("all"),
        value_label: |_| None,
        get: |s| Some(s.perturbations.to_string()),
        set: |s, v| s.perturbations = merge::Perturbations(set(v)),
        applies: merge_only,
    },
    Knob {
        key: "values",
        label: "values",
        help: "instruction following: how many indexed values (mult1 … multN) the refactoring carries, each with its \
               requirements",
        values: Values::Int { min: 1, max: crate::axes::instructions::MAX_VALUES as u64 },
        default: Some(DEFAULT_VALUES_TEXT),
        value_label: |_| None,
        get: |s| Some(s.values.to_string()),
        set: |s, v| s.values = size(v),
        applies: instructions_axis,
    },
    Knob {
        key: "conditional",
        label: "conditional %",
        help: "instruction following: the share (percent) of requirements that apply only in the functions whose name \
               or place in the call graph meets a stated condition (0, the paper's: every requirement applies in every \
               function that carries its value)",
        values: Values::Int { min: 0, max: 100 },
        default: Some("0"),
        value_label: |_| None,
        get: |s| Some(s.conditional.to_string()),
        set: |s, v| s.conditional = size(v),
        applies: instructions_axis,
    },
    Knob {
        key: "chain",
        label: "assignments",
        help: "variable_renaming: the assignments in main()'s chain, each defining a new variable",
        values: Values::Int { min: 2, max: MAX_N as u64 },
        default: Some(DEFAULT_CHAIN_TEXT),
        value_label: |_| None,
        get: |s| Some(s.chain.to_string()),
        set: |s, v| s.chain = size(v),
        applies: |s| if s.kind == Kind::VariableRenaming { Ok(()) } else { Err(s.kind.to_string()) },
    },
];

/// The largest `n` of any axis: the runtime axis's hops.
pub use crate::axes::runtime::MAX_HOPS;

/// Leaves of each function's if/else tree on the runtime axis, by default (the paper's).
pub const DEFAULT_BRANCHES: u32 = 2;
/// The runtime axis's breadth/depth ratios, in tenths (index = tenths).
pub const RATIOS: &[&str] = &["0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"];

/// A ratio in tenths as written in links (`1.0`).
pub fn ratio_text(tenths: u8) -> String {
    RATIOS.get(tenths as usize).unwrap_or(&"1.0").to_string()
}

fn default_branches() -> u32 {
    DEFAULT_BRANCHES
}

fn is_default_branches(b: &u32) -> bool {
    *b == DEFAULT_BRANCHES
}

fn default_ratio() -> u8 {
    10
}

fn is_default_ratio(r: &u8) -> bool {
    *r == 10
}

/// A ratio in tenths as its link text (`"0.5"`).
mod ratio_serde {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(tenths: &u8, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::ratio_text(*tenths))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
        let text = String::deserialize(d)?;
        super::RATIOS.iter().position(|r| *r == text).map(|i| i as u8).ok_or_else(|| {
            serde::de::Error::custom(format!("ratio must be one of {}, got '{text}'", super::RATIOS.join(", ")))
        })
    }
}

/// The runtime knobs apply on the runtime axis.
fn runtime_axis(s: &TaskSpec) -> Result<(), String> {
    if s.axis == Axis::Runtime {
        Ok(())
    } else {
        Err(format!("the {} axis", s.axis))
    }
}

/// The merge knobs apply to the merge kind only.
fn merge_only(s: &TaskSpec) -> Result<(), String> {
    match s.kind {
        Kind::MergeCodebases => Ok(()),
        k => Err(format!("{k} (only merge_codebases has it)")),
    }
}

const DEFAULT_VALUES_TEXT: &str = "10";

fn default_values() -> u32 {
    crate::axes::instructions::DEFAULT_VALUES
}

fn is_default_values(v: &u32) -> bool {
    *v == crate::axes::instructions::DEFAULT_VALUES
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// The knobs of instruction following apply on its axis.
fn instructions_axis(s: &TaskSpec) -> Result<(), String> {
    if s.axis.def().instructions() {
        Ok(())
    } else {
        Err(format!("the {} axis (only to instructions)", s.axis))
    }
}

/// The default length of variable_renaming's chain (the paper's "about 200 assignments").
pub const DEFAULT_CHAIN: u32 = 200;
const DEFAULT_CHAIN_TEXT: &str = "200";

fn default_chain() -> u32 {
    DEFAULT_CHAIN
}

fn is_default_chain(c: &u32) -> bool {
    *c == DEFAULT_CHAIN
}

/// The explicit graph sizes apply to the kinds made from call graphs.
fn graph_kinds(s: &TaskSpec) -> Result<(), String> {
    match s.kind.def().graph() {
        Some(_) => Ok(()),
        None => Err(format!("{} (it is not made from call graphs)", s.kind)),
    }
}

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
            Values::Set { items, min } => format!(
                "all, {}or a comma-separated list of {}",
                if min == 0 { "none, " } else { "" },
                items.join(", ")
            ),
        }
    }
    /// An integer knob's range for a spec: its values', except `n`, whose largest value the axis
    /// says ([`crate::axes::AxisDef::max_n`]). `None` for a choice or a set.
    pub fn range(&self, spec: &TaskSpec) -> Option<(u64, u64)> {
        match self.values {
            Values::Int { min, max } if self.key == "n" => Some((min, max.min(u64::from(spec.axis.def().max_n())))),
            Values::Int { min, max } => Some((min, max)),
            Values::Choice(_) | Values::Set { .. } => None,
        }
    }
    /// [`Knob::parse`] for a spec whose earlier knobs are set (the range of `n` follows the axis).
    pub fn parse_for<'a>(&self, spec: &TaskSpec, value: &'a str) -> Result<Parsed<'a>, SpecError> {
        let Some((min, max)) = self.range(spec) else { return self.parse(value) };
        let key = self.key;
        let x: u64 = value
            .parse()
            .map_err(|_| err(key, format!("{key} must be an integer from {min} to {max}, got '{value}'")))?;
        if x < min || x > max {
            return Err(self.out_of_range_for(x, min, max));
        }
        Ok(Parsed::Int(x))
    }
    /// Check a textual value against the knob's values.
    pub fn parse<'a>(&self, value: &'a str) -> Result<Parsed<'a>, SpecError> {
        let key = self.key;
        match self.values {
            Values::Choice(c) if c.contains(&value) => Ok(Parsed::Choice(value)),
            Values::Choice(_) => {
                if key == "axis" && PLANNED_AXES.contains(&value) {
                    return Err(err(
                        key,
                        format!(
                            "axis '{value}' is not built by generator v{GENERATOR_VERSION} yet; the axes are {}",
                            Axis::NAMES.join(", ")
                        ),
                    ));
                }
                Err(err(key, format!("unknown {key} '{value}'; {key} must be {}", self.allowed())))
            }
            Values::Set { items, min } => {
                let mask = parse_set(items, value)
                    .map_err(|e| err(key, format!("{key}: {e}; {key} must be {}", self.allowed())))?;
                if (mask.count_ones() as usize) < min {
                    return Err(err(key, format!("{key} must name at least {min}; {key} must be {}", self.allowed())));
                }
                Ok(Parsed::Set(mask))
            }
            Values::Int { min, max } => {
                let parsed: u64 =
                    value.parse().map_err(|_| err(key, format!("{key} must be {}, got '{value}'", self.allowed())))?;
                if parsed < min || parsed > max {
                    return Err(self.out_of_range(parsed));
                }
                Ok(Parsed::Int(parsed))
            }
        }
    }
    fn out_of_range(&self, x: u64) -> SpecError {
        let key = self.key;
        err(key, format!("{key} = {x} is out of range; {key} must be {}", self.allowed()))
    }
    fn out_of_range_for(&self, x: u64, min: u64, max: u64) -> SpecError {
        let key = self.key;
        err(key, format!("{key} = {x} is out of range; {key} must be an integer from {min} to {max}"))
    }
}

/// A spec error: which knob, and a one-line reason naming what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub key: String,
    pub message: String,
    /// The spec is valid but this build leaves out the part of the generator it needs (the app's
    /// first download; the page loads that part as a module): [`crate::task::Extra`].
    pub needs: Option<crate::task::Extra>,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for SpecError {}

pub(crate) fn err(key: &str, message: String) -> SpecError {
    SpecError { key: key.to_string(), message, needs: None }
}

/// Everything that determines a task. A knob added later gets a field here with
/// `#[serde(default, skip_serializing_if = …)]` so that the serde form (and so the golden hashes) of
/// existing specs stays the same.
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
    /// Runtime resolution: leaves of each function's if/else tree.
    #[serde(default = "default_branches", skip_serializing_if = "is_default_branches")]
    pub branches: u32,
    /// Runtime resolution: a guard's breadth/depth ratio, in tenths (10 = 1.0); serialised as the link
    /// writes it (`"ratio": "0.5"`), so a spec's JSON is also a spec object of link keys.
    #[serde(
        rename = "ratio",
        with = "ratio_serde",
        default = "default_ratio",
        skip_serializing_if = "is_default_ratio"
    )]
    pub ratio_tenths: u8,
    /// Merge: differences (the knob `d`).
    #[serde(default = "merge::default_d", skip_serializing_if = "merge::is_default_d")]
    pub d: u32,
    /// Merge: parameters of `compute()`.
    #[serde(default = "merge::default_params", skip_serializing_if = "merge::is_default_params")]
    pub params: u32,
    /// Merge: fewest lines of a shared block.
    #[serde(default = "merge::default_min_block", skip_serializing_if = "merge::is_default_min_block")]
    pub min_block: u32,
    /// Merge: the rewrites allowed.
    #[serde(default = "merge::Transformations::all", skip_serializing_if = "merge::Transformations::is_all")]
    pub transformations: merge::Transformations,
    /// Merge: the kinds of difference allowed.
    #[serde(default = "merge::Perturbations::all", skip_serializing_if = "merge::Perturbations::is_all")]
    pub perturbations: merge::Perturbations,
    /// Instruction following: the indexed values.
    #[serde(default = "default_values", skip_serializing_if = "is_default_values")]
    pub values: u32,
    /// Instruction following: the percent of conditional requirements.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub conditional: u32,
    /// variable_renaming: the assignments of the chain.
    #[serde(default = "default_chain", skip_serializing_if = "is_default_chain")]
    pub chain: u32,
}

impl Default for TaskSpec {
    fn default() -> Self {
        TaskSpec::from_pairs(std::iter::empty::<(&str, &str)>()).unwrap_or_else(|_| TaskSpec::blank())
    }
}

/// Sizes of the two graphs a spec asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphSizes {
    pub n_init: u32,
    pub n_edit: u32,
}

impl TaskSpec {
    /// A spec with every knob's default.
    pub fn new(kind: Kind, domain: Domain, axis: Axis, n: u32, seed: u64) -> Self {
        TaskSpec { kind, domain, axis, n, seed, ..TaskSpec::default() }
    }

    /// The starting point of [`TaskSpec::from_pairs`], before any knob (default or given) is set.
    fn blank() -> Self {
        TaskSpec {
            v: GENERATOR_VERSION,
            kind: Kind::ALL[0],
            domain: Domain::ALL[0],
            axis: Axis::ALL[0],
            n: 1,
            seed: 0,
            n_init: None,
            n_edit: None,
            branches: DEFAULT_BRANCHES,
            ratio_tenths: 10,
            d: merge::default_d(),
            params: merge::default_params(),
            min_block: merge::default_min_block(),
            transformations: merge::Transformations::all(),
            perturbations: merge::Perturbations::all(),
            values: crate::axes::instructions::DEFAULT_VALUES,
            conditional: 0,
            chain: DEFAULT_CHAIN,
        }
    }

    /// The sizes of C_init and C_edit: the axis decides, explicit sizes override.
    pub fn sizes(&self) -> GraphSizes {
        let s = crate::axes::sizes(self.axis, self.n);
        GraphSizes { n_init: self.n_init.unwrap_or(s.n_init), n_edit: self.n_edit.unwrap_or(s.n_edit) }
    }

    /// Build a spec from `key=value` pairs (URL query, CLI flags). Unknown keys, repeated keys,
    /// bad values and out-of-range sizes give a one-line error that says what is allowed.
    pub fn from_pairs<'a, I, K, V>(pairs: I) -> Result<TaskSpec, SpecError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str> + 'a,
        V: AsRef<str> + 'a,
    {
        TaskSpec::from_pairs_in(KNOBS, pairs)
    }

    /// [`TaskSpec::from_pairs`] over a knob table (the tests use tables with knobs that apply only
    /// to some specs).
    fn from_pairs_in<'a, I, K, V>(knobs: &[Knob], pairs: I) -> Result<TaskSpec, SpecError>
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
            if !knobs.iter().any(|kn| kn.key == k) {
                let keys: Vec<&str> = knobs.iter().map(|k| k.key).collect();
                return Err(err(k, format!("unknown key '{k}'; the keys are v, {}", keys.join(", "))));
            }
            if given.iter().any(|(g, _)| g == k) {
                return Err(err(k, format!("'{k}' is given twice")));
            }
            given.push((k.to_string(), val.to_string()));
        }
        let mut spec = TaskSpec::blank();
        spec.v = v.unwrap_or(GENERATOR_VERSION);
        // Knob order matters: whether a knob applies is judged from the knobs set before it.
        for k in knobs {
            let value = given.iter().find(|(g, _)| g == k.key).map(|(_, v)| v.as_str());
            if let (Some(value), Err(what)) = (value, (k.applies)(&spec)) {
                if Some(value) != k.default {
                    return Err(err(
                        k.key,
                        format!("'{}' does not apply to {what}; leave it out (got '{value}')", k.key),
                    ));
                }
            }
            if let Some(value) = value.or(k.default) {
                let parsed = k.parse_for(&spec, value)?;
                (k.set)(&mut spec, parsed);
            }
        }
        spec.validate_in(knobs)?;
        Ok(spec)
    }

    /// Check the ranges of every integer knob, and the cross-knob rules: the kind is built for the
    /// domain and the axis, and the kind's own rules (such as its minimum edit size).
    pub fn validate(&self) -> Result<(), SpecError> {
        self.validate_in(KNOBS)
    }

    fn validate_in(&self, knobs: &[Knob]) -> Result<(), SpecError> {
        for k in knobs {
            // A knob that does not apply keeps its default (specs built in code, not parsed, too).
            if let Err(what) = (k.applies)(self) {
                if let Some(value) = (k.get)(self).filter(|v| Some(v.as_str()) != k.default) {
                    return Err(err(
                        k.key,
                        format!("'{}' does not apply to {what}; leave it out (got '{value}')", k.key),
                    ));
                }
            }
            match (k.values, (k.get)(self)) {
                (Values::Int { .. }, Some(text)) => {
                    if let (Some((min, max)), Ok(x)) = (k.range(self), text.parse::<u64>()) {
                        if x < min || x > max {
                            return Err(k.out_of_range_for(x, min, max));
                        }
                    }
                }
                (Values::Set { .. }, Some(text)) => {
                    k.parse(&text)?;
                }
                _ => {}
            }
        }
        let def = self.kind.def();
        self.check_support(def.domains(), def.axes())?;
        self.axis.def().validate(self)?;
        def.validate(self)
    }

    /// The domain and axis are ones the kind (with these supports) is built for; the error names
    /// what is allowed (for an axis: the kinds built along it).
    fn check_support(&self, domains: Support<Domain>, axes: Support<Axis>) -> Result<(), SpecError> {
        if let (Support::Only(_), false) = (domains, domains.allows(&self.domain)) {
            return Err(err(
                "domain",
                format!(
                    "{} is not built for the {} domain; domain must be one of {}",
                    self.kind,
                    self.domain,
                    domains.names()
                ),
            ));
        }
        if let (Support::Only(_), false) = (axes, axes.allows(&self.axis)) {
            let kinds: Vec<&str> =
                Kind::ALL.iter().filter(|k| k.def().axes().allows(&self.axis)).map(|k| k.as_str()).collect();
            let built = match kinds.as_slice() {
                [] => "no kind is built along it yet".to_string(),
                kinds => format!("the kinds built along it are {}", kinds.join(", ")),
            };
            return Err(err(
                "axis",
                format!("{} has no {} axis (its axes are {}); {built}", self.kind, self.axis, axes.names()),
            ));
        }
        Ok(())
    }

    /// Every key that applies to the spec with its value, in knob order, the version first.
    pub fn pairs(&self) -> Vec<(&'static str, String)> {
        self.pairs_in(KNOBS)
    }

    fn pairs_in(&self, knobs: &[Knob]) -> Vec<(&'static str, String)> {
        let mut out = vec![("v", self.v.to_string())];
        for k in knobs {
            if (k.applies)(self).is_err() {
                continue;
            }
            if let Some(value) = (k.get)(self) {
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
        self.to_query_in(KNOBS)
    }

    fn to_query_in(&self, knobs: &[Knob]) -> String {
        let default = |key: &str| knobs.iter().find(|k| k.key == key).and_then(|k| k.default);
        self.pairs_in(knobs)
            .into_iter()
            .filter(|(k, v)| *k == "v" || default(k) != Some(v.as_str()))
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
    fn the_chain_default_is_one_number() {
        assert_eq!(DEFAULT_CHAIN_TEXT.parse::<u32>().unwrap(), DEFAULT_CHAIN);
        assert_eq!(TaskSpec::default().chain, DEFAULT_CHAIN);
    }

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
        // The n knob's help names the paper's sizes.
        let sizes: Vec<String> = PAPER_SIZES.iter().map(u32::to_string).collect();
        assert!(knob("n").unwrap().help.contains(&sizes.join(", ")));
        // Every axis of the paper is built: the planned list is empty, and all four parse.
        assert!(PLANNED_AXES.is_empty());
        for axis in ["traversal", "search", "runtime", "instructions", "comment"] {
            assert!(TaskSpec::from_pairs([("axis", axis)]).is_ok(), "{axis}");
        }
        let e = TaskSpec::from_pairs([("values", "3")]).unwrap_err();
        assert_eq!(
            e.message,
            "'values' does not apply to the traversal axis (only to instructions); leave it out (got '3')"
        );
        let e = TaskSpec::from_pairs([("axis", "instructions"), ("kind", "dead_code")]).unwrap_err();
        assert!(e.message.starts_with("dead_code has no instructions axis"), "{e}");
        let e = TaskSpec::from_pairs([("axis", "instructions"), ("n", "200"), ("values", "2")]).unwrap_err();
        assert!(e.message.contains("do not fit on 2 values") && e.message.contains("raise values"), "{e}");
        let e = TaskSpec::from_pairs([("axis", "instructions"), ("n", "721")]).unwrap_err();
        assert!(e.message.contains("from 1 to 720"), "{e}");
        let e = TaskSpec::from_pairs([("axis", "bogus")]).unwrap_err();
        assert!(e.message.contains("unknown axis"), "{e}");
        let e = TaskSpec::from_pairs([("v", "9")]).unwrap_err();
        assert!(e.message.contains("not served"), "{e}");
        let e = TaskSpec::from_pairs([("bogus", "1")]).unwrap_err();
        assert!(e.message.contains("unknown key"), "{e}");
    }

    /// A knob table with a knob that applies only on the search axis (stored in `n_init`).
    fn table_with_a_search_knob() -> Vec<Knob> {
        let mut t: Vec<Knob> =
            KNOBS.iter().filter(|k| ["kind", "domain", "axis", "n", "seed"].contains(&k.key)).copied().collect();
        t.push(Knob {
            key: "extra",
            label: "extra",
            help: "a knob of the search axis",
            values: Values::Int { min: 1, max: 9 },
            default: Some("3"),
            value_label: |_| None,
            get: |s| s.n_init.map(|x| x.to_string()),
            set: |s, v| s.n_init = Some(size(v)),
            applies: |s| if s.axis == Axis::Search { Ok(()) } else { Err(format!("the {} axis", s.axis)) },
        });
        t
    }

    #[test]
    fn a_knob_that_does_not_apply_is_left_out_and_only_its_default_is_accepted() {
        let t = table_with_a_search_knob();
        let parse = |pairs: &[(&str, &str)]| TaskSpec::from_pairs_in(&t, pairs.iter().copied());
        let e = parse(&[("extra", "5")]).unwrap_err();
        assert_eq!(e.key, "extra");
        assert_eq!(e.message, "'extra' does not apply to the traversal axis; leave it out (got '5')");
        // Its default is accepted (tools that send every key keep working) and left out of links.
        let s = parse(&[("extra", "3")]).unwrap();
        assert_eq!(s.pairs_in(&t).iter().filter(|(k, _)| *k == "extra").count(), 0);
        assert_eq!(s.to_query_in(&t), "v=1");
        assert_eq!(s, parse(&[]).unwrap());
        // Where it applies, it is parsed, range-checked and printed like any knob.
        let s = parse(&[("axis", "search"), ("extra", "5")]).unwrap();
        assert_eq!(s.to_query_in(&t), "v=1&axis=search&extra=5");
        assert!(s.canonical().starts_with("v=1&kind=add_parameter"));
        assert_eq!(parse(&[("axis", "search")]).unwrap().to_query_in(&t), "v=1&axis=search");
        let e = parse(&[("axis", "search"), ("extra", "12")]).unwrap_err();
        assert_eq!(e.message, "extra = 12 is out of range; extra must be an integer from 1 to 9");
        let e = parse(&[("n_init", "5")]).unwrap_err();
        assert_eq!(e.message, "unknown key 'n_init'; the keys are v, kind, domain, axis, n, seed, extra");
    }

    #[test]
    fn an_unsupported_domain_or_axis_names_what_is_allowed() {
        let s = TaskSpec::new(Kind::DeadCode, Domain::String, Axis::Search, 5, 0);
        let e = s.check_support(Support::Only(&[Domain::Math]), Support::Only(Axis::ALL)).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            ("domain", "dead_code is not built for the string domain; domain must be one of math")
        );
        let e = s.check_support(Support::Only(Domain::ALL), Support::Only(&[Axis::Traversal])).unwrap_err();
        assert_eq!(e.key, "axis");
        assert_eq!(
            e.message,
            format!(
                "dead_code has no search axis (its axes are traversal); the kinds built along it are {}",
                Kind::ALL
                    .iter()
                    .filter(|k| k.def().axes().allows(&Axis::Search))
                    .map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        );
        assert!(s.check_support(Support::NotApplicable, Support::NotApplicable).is_ok());
        // Every registered kind supports the default domain and axis combinations it lists.
        for &k in Kind::ALL {
            let def = k.def();
            for &d in Domain::ALL.iter().filter(|d| def.domains().allows(d)) {
                for &a in Axis::ALL.iter().filter(|a| def.axes().allows(a)) {
                    assert!(TaskSpec::new(k, d, a, 10, 0).validate().is_ok(), "{k} {d} {a}");
                }
            }
        }
    }

    #[test]
    fn every_knob_round_trips_through_its_accessors() {
        let s = TaskSpec::from_pairs([("kind", "cache_function"), ("n_init", "7"), ("n_edit", "9"), ("seed", "3")])
            .unwrap();
        for k in KNOBS {
            if let Some(text) = (k.get)(&s) {
                let mut t = TaskSpec::default();
                (k.set)(&mut t, k.parse(&text).unwrap());
                assert_eq!((k.get)(&t), Some(text), "{}", k.key);
            }
        }
        assert_eq!(
            TaskSpec::new(Kind::DeadCode, Domain::Array, Axis::Search, 9, 2).to_query(),
            "v=1&kind=dead_code&domain=array&axis=search&n=9&seed=2"
        );
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
    #[test]
    fn merge_knobs_apply_to_merge_only_and_round_trip() {
        let parse = |pairs: &[(&str, &str)]| TaskSpec::from_pairs(pairs.iter().copied());
        let e = parse(&[("kind", "merge_codebases"), ("domain", "string")]).unwrap_err();
        assert_eq!(e.message, "'domain' does not apply to merge_codebases; leave it out (got 'string')");
        let e = parse(&[("kind", "merge_codebases"), ("axis", "search")]).unwrap_err();
        assert_eq!(e.key, "axis");
        let e = parse(&[("kind", "add_parameter"), ("d", "3")]).unwrap_err();
        assert_eq!(
            e.message,
            "'d' does not apply to add_parameter (only merge_codebases has it); leave it out (got '3')"
        );
        // Defaults stay out of links; a subset is printed in the canonical order.
        let s =
            parse(&[("kind", "merge_codebases"), ("n", "40"), ("transformations", "reorder, multi_lines")]).unwrap();
        assert_eq!(s.to_query(), "v=1&kind=merge_codebases&n=40&transformations=multi_lines,reorder");
        assert!(s
            .canonical()
            .contains("&d=1&params=10&min_block=2&transformations=multi_lines,reorder&perturbations=all"));
        assert!(!s.canonical().contains("domain="));
        let back = TaskSpec::from_pairs(s.to_query().split('&').map(|p| p.split_once('=').unwrap())).unwrap();
        assert_eq!(back, s);
        let none = parse(&[("kind", "merge_codebases"), ("transformations", "none")]).unwrap();
        assert_eq!(none.transformations.0, 0);
        assert!(none.to_query().ends_with("transformations=none"));
        let e = parse(&[("kind", "merge_codebases"), ("perturbations", "none")]).unwrap_err();
        assert!(e.message.contains("must name at least 1"), "{e}");
        let e = parse(&[("kind", "merge_codebases"), ("transformations", "rename,reorder")]).unwrap_err();
        assert!(e.message.contains("unknown item 'rename'") && e.message.contains("rename_variables"), "{e}");
        let e = parse(&[("kind", "merge_codebases"), ("n", "5"), ("d", "4")]).unwrap_err();
        assert_eq!(e.key, "n");
        assert!(e.message.contains("at least (d+1)·min_block = 10"), "{e}");
        let e = parse(&[("kind", "merge_codebases"), ("d", "11")]).unwrap_err();
        assert!(e.message.contains("from 1 to 10"), "{e}");
        // Existing kinds keep their serde form: the merge fields are left out at their defaults.
        let json = serde_json::to_string(&TaskSpec::default()).unwrap();
        assert!(!json.contains("params") && !json.contains("transformations"), "{json}");
        let merge = parse(&[("kind", "merge_codebases"), ("perturbations", "flip_sign,add_factor")]).unwrap();
        let json = serde_json::to_string(&merge).unwrap();
        assert!(json.contains("\"perturbations\":\"flip_sign,add_factor\""), "{json}");
        assert_eq!(serde_json::from_str::<TaskSpec>(&json).unwrap(), merge);
    }
}
