//! The three value domains: types, operation banks (generation.md §2.3), the domain's scalar (the type
//! of a value that scales or prefixes a value, and how it is applied), and the `mylibrary` stub values
//! the grader supplies (grading.md §2.3). The names a kind uses in a domain (`mult` / `prefix`,
//! `get_multiplier` / `get_key`, `temp`'s default) belong to the kind, in `kinds/`.

pub mod stubs;

use crate::python::{Expr, Op};
use crate::spec::Domain;

/// Everything the generator needs to know about a domain.
#[derive(Clone, Copy, Debug)]
pub struct DomainInfo {
    pub domain: Domain,
    /// The annotation of every value (`float`, `str`, `np.ndarray`).
    pub ty: &'static str,
    /// The module's import lines after the `mylibrary` one (before `import sys`).
    pub imports: &'static [&'static str],
    /// Unary operations (one draw for a function with zero or one callee).
    pub unary: &'static [&'static str],
    /// Binary operations (k−1 draws for a function with k ≥ 2 callees, folded left).
    pub binary: &'static [&'static str],
    /// The type of the domain's scalar: what scales a value (`float`, also for arrays) or prefixes it
    /// (`str`). Added parameters, cached values and helper values have this type.
    pub scalar_ty: &'static str,
    /// How a scalar is applied to a value: `*` or `+` (prepend).
    pub combine: Op,
    /// The script guard's call.
    pub guard_call: &'static str,
}

pub const MATH: DomainInfo = DomainInfo {
    domain: Domain::Math,
    ty: "float",
    imports: &["import math", "import operator"],
    unary: &[
        "abs",
        "round",
        "math.sin",
        "math.cos",
        "math.tanh",
        "math.atan",
        "math.erf",
        "math.degrees",
        "math.radians",
        "operator.neg",
    ],
    binary: &["operator.add", "operator.sub", "min", "max", "math.hypot", "math.copysign", "math.atan2"],
    scalar_ty: "float",
    combine: Op::Mult,
    guard_call: "main(float(sys.argv[1]))",
};

pub const STRING: DomainInfo = DomainInfo {
    domain: Domain::String,
    ty: "str",
    imports: &["import strops"],
    unary: &[
        "strops.rot13",
        "strops.reverse",
        "strops.swap_case",
        "strops.char_rotate",
        "strops.char_rotate_by_3",
        "strops.mirror",
    ],
    binary: &[
        "strops.interleave",
        "strops.swap_halves",
        "strops.zip_chars",
        "strops.alternate_chars",
        "strops.xor_chars",
    ],
    scalar_ty: "str",
    combine: Op::Add,
    guard_call: "main(str(sys.argv[1]))",
};

pub const ARRAY: DomainInfo = DomainInfo {
    domain: Domain::Array,
    ty: "np.ndarray",
    imports: &["import numpy as np"],
    unary: &[
        "np.abs",
        "np.sign",
        "np.round",
        "np.sin",
        "np.cos",
        "np.tanh",
        "np.cumsum",
        "np.cumprod",
        "np.sort",
        "np.flip",
    ],
    binary: &["np.add", "np.subtract", "np.multiply", "np.maximum", "np.minimum", "np.hypot", "np.arctan2"],
    scalar_ty: "float",
    combine: Op::Mult,
    guard_call: "main(np.array(eval(sys.argv[1])))",
};

pub fn info(d: Domain) -> &'static DomainInfo {
    match d {
        Domain::Math => &MATH,
        Domain::String => &STRING,
        Domain::Array => &ARRAY,
    }
}

impl DomainInfo {
    /// `x op value`: the scalar named `x` applied to a value (`mult * X` or `prefix + X`).
    pub fn apply(&self, x: &str, value: Expr) -> Expr {
        Expr::bin(Expr::name(x), self.combine, value)
    }
    /// The imports of a program, with the task's `mylibrary` line first when it has one.
    pub fn module_imports(&self, mylibrary: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(name) = mylibrary {
            out.push(format!("from mylibrary import {name}"));
        }
        out.extend(self.imports.iter().map(|s| s.to_string()));
        out.push("import sys".into());
        out
    }
}
