//! The behavioural test plan (grading.md §3.2–§3.3 with decision D5): which functions are tested,
//! with which argument types, on which inputs, under which `mylibrary` stub block per trial.

use super::value::Value;
use crate::program::Program;
use cabrito_gen::domain::stubs;
use cabrito_gen::graph::sample::{below, between, uniform};
use cabrito_gen::rng::{hex_id, stream, Rng};
use cabrito_gen::spec::Domain;
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;
use std::collections::BTreeSet;

/// The type of one argument, from its annotation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArgType {
    Bool,
    Int,
    Float,
    Str,
    Array,
    List(Box<ArgType>),
}

/// One tested function: its name and plain positional parameters (name, type), in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSpec {
    pub name: String,
    pub params: Vec<(String, ArgType)>,
}

pub use crate::program::{ProgramError, TopDef};

/// The top-level `def`s of a module, in source order, read by the one front end.
pub fn top_defs(src: &str) -> Result<Vec<TopDef>, ProgramError> {
    Ok(Program::read(src)?.top_defs())
}

/// Why a reference cannot be planned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The reference cannot be read (its line and why).
    Syntax(ProgramError),
    /// A parameter without annotation (function, parameter).
    Unannotated(String, String),
    /// An annotation the input drawer does not support (function, parameter, annotation text).
    Unsupported(String, String, String),
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::Syntax(s) => write!(f, "the reference cannot be read: {s}"),
            PlanError::Unannotated(func, p) => {
                write!(f, "parameter '{p}' of reference function '{func}' has no annotation")
            }
            PlanError::Unsupported(func, p, a) => {
                write!(f, "parameter '{p}' of reference function '{func}' has an unsupported type '{a}'")
            }
        }
    }
}

fn arg_type(e: &Expr) -> Option<ArgType> {
    match e {
        Expr::Name(n) => match n.id.as_str() {
            "bool" => Some(ArgType::Bool),
            "int" => Some(ArgType::Int),
            "float" => Some(ArgType::Float),
            "str" => Some(ArgType::Str),
            "list" | "List" => Some(ArgType::List(Box::new(ArgType::Int))),
            _ => None,
        },
        Expr::Attribute(a) => {
            let base = match a.value.as_ref() {
                Expr::Name(n) => n.id.as_str(),
                _ => return None,
            };
            ((base == "np" || base == "numpy") && a.attr.id.as_str() == "ndarray").then_some(ArgType::Array)
        }
        Expr::Subscript(s) => {
            let head = match s.value.as_ref() {
                Expr::Name(n) => n.id.as_str(),
                _ => return None,
            };
            if head == "list" || head == "List" {
                arg_type(&s.slice).map(|t| ArgType::List(Box::new(t)))
            } else {
                None
            }
        }
        Expr::StringLiteral(s) => {
            // A string annotation is read as a one-line module by the same front end (it is input too).
            let program = Program::read(s.value.to_str()).ok()?;
            match program.body() {
                [Stmt::Expr(e)] => arg_type(&e.value),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The functions to test: every top-level non-async `def` of the reference except `main`, with its
/// plain positional parameters (grading.md §3.2 steps 1 and 4).
pub fn reference_functions(reference: &str) -> Result<Vec<FunctionSpec>, PlanError> {
    let program = Program::read(reference).map_err(PlanError::Syntax)?;
    functions_of(&program)
}

/// [`reference_functions`] of a program already read.
pub fn functions_of(program: &Program) -> Result<Vec<FunctionSpec>, PlanError> {
    functions_to_test(program, false)
}

/// The functions to test of a program already read, `main` among them when `with_main` (a kind whose
/// one function is `main()`).
pub fn functions_to_test(program: &Program, with_main: bool) -> Result<Vec<FunctionSpec>, PlanError> {
    let reference = program.source;
    let mut out = Vec::new();
    for s in program.body() {
        let Stmt::FunctionDef(f) = s else { continue };
        if f.is_async || (f.name.id.as_str() == "main" && !with_main) {
            continue;
        }
        let name = f.name.id.to_string();
        let mut params = Vec::new();
        for p in f.parameters.posonlyargs.iter().chain(f.parameters.args.iter()) {
            let pname = p.parameter.name.id.to_string();
            let ann =
                p.parameter.annotation.as_deref().ok_or_else(|| PlanError::Unannotated(name.clone(), pname.clone()))?;
            let ty = arg_type(ann).ok_or_else(|| {
                let r = ann.range();
                PlanError::Unsupported(
                    name.clone(),
                    pname.clone(),
                    reference[r.start().to_usize()..r.end().to_usize()].to_string(),
                )
            })?;
            params.push((pname, ty));
        }
        out.push(FunctionSpec { name, params });
    }
    Ok(out)
}

/// The program the harness executes: the top-level non-async `def`s whose names are in `keep`,
/// in source order (grading.md §3.2 steps 1–2; everything else is discarded).
pub fn filter_program(defs: &[TopDef], keep: &BTreeSet<String>) -> String {
    let mut out = String::new();
    for d in defs.iter().filter(|d| !d.is_async && keep.contains(&d.name)) {
        out.push_str(&d.source);
        out.push_str("\n\n");
    }
    out
}

/// A stable key for a task's test inputs: its identity and a digest of its reference code, so
/// editing the reference changes the inputs and nothing else does.
pub fn task_key(identity: &str, reference: &str) -> String {
    format!("{identity}#{}", hex_id(reference, "grade/reference", 8))
}

/// One call of one trial: the function and its keyword arguments in reference parameter order.
#[derive(Clone, Debug, PartialEq)]
pub struct TrialCall {
    pub function: String,
    pub args: Vec<(String, Value)>,
}

/// One trial: the stub block (its index in the domain's Cartesian list) and the calls.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    pub stub_index: usize,
    pub calls: Vec<TrialCall>,
}

/// The whole plan of a task: the same for the reference run and the candidate run.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub domain: Domain,
    /// Which `mylibrary` the stub blocks define (the indexed one for instruction following).
    pub library: stubs::Library,
    pub functions: Vec<FunctionSpec>,
    pub trials: Vec<Trial>,
}

/// Draw one input (grading.md §3.3).
pub fn draw(rng: &mut Rng, ty: &ArgType) -> Value {
    match ty {
        ArgType::Bool => Value::Bool(below(rng, 2) == 1),
        ArgType::Int => Value::int(between(rng, 1, 5)),
        ArgType::Float => Value::Float(uniform(rng, -1.0, 1.0)),
        ArgType::Str => {
            let len = between(rng, 1, 10) as usize;
            Value::Str((0..len).map(|_| char::from(b'0' + below(rng, 10) as u8)).collect())
        }
        ArgType::Array => {
            let len = between(rng, 1, 5) as usize;
            let values: Vec<f64> = (0..len).map(|_| uniform(rng, -1.0, 1.0)).collect();
            Value::Array { shape: vec![len], dtype: "float64".into(), values: Some(values), repr: String::new() }
        }
        ArgType::List(inner) => {
            let len = between(rng, 0, 5) as usize;
            Value::List((0..len).map(|_| draw(rng, inner)).collect())
        }
    }
}

/// How a plan draws the inputs of a trial (decision D5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InputScheme {
    /// One value per (trial, parameter name and type), shared by every function with that
    /// parameter (stream `shared/{trial}/{name}/{type}`). Cabra's functions pass `val` and the
    /// kind's extra parameter on unchanged, so with the per-trial memo each function is computed
    /// about once per trial and grading is linear in `n`; each function still sees one fresh
    /// random input per trial.
    #[default]
    PerTrial,
    /// One draw per (trial, function) (stream `inputs/{trial}/{function}`), as the reference draws
    /// per function: every call re-runs the subtree below it, so grading is quadratic in depth.
    PerFunction,
}

impl InputScheme {
    pub fn as_str(self) -> &'static str {
        match self {
            InputScheme::PerTrial => "per-trial",
            InputScheme::PerFunction => "per-function",
        }
    }
}

/// A stable text for an argument type (part of the shared streams' names).
fn type_tag(ty: &ArgType) -> String {
    match ty {
        ArgType::Bool => "bool".into(),
        ArgType::Int => "int".into(),
        ArgType::Float => "float".into(),
        ArgType::Str => "str".into(),
        ArgType::Array => "ndarray".into(),
        ArgType::List(inner) => format!("list[{}]", type_tag(inner)),
    }
}

/// Build the plan: per trial one stub block (stream `stubs/{trial}`) and every function's inputs
/// by `scheme`. Either way the inputs are independent of the candidate and of the order of the
/// functions (D5).
pub fn build_plan(key: &str, domain: Domain, functions: Vec<FunctionSpec>, trials: usize, scheme: InputScheme) -> Plan {
    let count = stubs::block_count(domain);
    let trials = (0..trials)
        .map(|t| {
            let stub_index = below(&mut stream(key, &format!("stubs/{t}")), count);
            let mut shared: std::collections::HashMap<(&str, &ArgType), Value> = std::collections::HashMap::new();
            let calls = functions
                .iter()
                .map(|f| {
                    let args = match scheme {
                        InputScheme::PerFunction => {
                            let mut rng = stream(key, &format!("inputs/{t}/{}", f.name));
                            f.params.iter().map(|(n, ty)| (n.clone(), draw(&mut rng, ty))).collect()
                        }
                        InputScheme::PerTrial => f
                            .params
                            .iter()
                            .map(|(n, ty)| {
                                let v = shared.entry((n.as_str(), ty)).or_insert_with(|| {
                                    draw(&mut stream(key, &format!("shared/{t}/{n}/{}", type_tag(ty))), ty)
                                });
                                (n.clone(), v.clone())
                            })
                            .collect(),
                    };
                    TrialCall { function: f.name.clone(), args }
                })
                .collect();
            Trial { stub_index, calls }
        })
        .collect();
    Plan { domain, library: stubs::Library::Plain, functions, trials }
}

/// The stub source of one block (`mylibrary`), as the harness executes it before the program.
pub fn stub_source(domain: Domain, index: usize) -> String {
    stubs::mylibrary_source(domain, stubs::block(domain, index))
}

/// The stub source of one block of a plan's library.
pub fn plan_stub_source(plan: &Plan, index: usize) -> String {
    stubs::library_source(plan.domain, plan.library, stubs::block(plan.domain, index))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REF: &str = "from mylibrary import default\nimport numpy as np\n\ndef f(val: float, mult: float=default()) -> float:\n    return val * mult\n\nasync def g(val: float):\n    return val\n\ndef h(xs: list[int], a: np.ndarray, s: 'str', b: bool, *rest, k: int = 1) -> float:\n    return 0.0\n\ndef main():\n    f(1.0)\n";

    #[test]
    fn reference_functions_read_plain_positional_params() {
        let fs = reference_functions(REF).unwrap();
        assert_eq!(fs.len(), 2);
        assert_eq!(
            fs[0],
            FunctionSpec {
                name: "f".into(),
                params: vec![("val".into(), ArgType::Float), ("mult".into(), ArgType::Float)]
            }
        );
        assert_eq!(
            fs[1].params,
            vec![
                ("xs".into(), ArgType::List(Box::new(ArgType::Int))),
                ("a".into(), ArgType::Array),
                ("s".into(), ArgType::Str),
                ("b".into(), ArgType::Bool)
            ]
        );
        assert!(matches!(reference_functions("def f(x):\n    pass\n"), Err(PlanError::Unannotated(..))));
        assert!(matches!(reference_functions("def f(x: dict):\n    pass\n"), Err(PlanError::Unsupported(..))));
        match reference_functions("x = 1\n\ndef f(:\n") {
            Err(PlanError::Syntax(s)) => assert_eq!(s.line, 3),
            other => panic!("{other:?}"),
        }
        // A hostile reference is refused by the front end, not overflowed on.
        let deep = format!("def f(x: float) -> float:\n    return {}1\n", "-".repeat(100_000));
        assert!(matches!(reference_functions(&deep), Err(PlanError::Syntax(_))));
    }

    #[test]
    fn inputs_are_per_trial_and_function() {
        let fs = reference_functions(REF).unwrap();
        let a = build_plan("k", Domain::Math, fs.clone(), 4, InputScheme::PerFunction);
        let b = build_plan("k", Domain::Math, fs.iter().rev().cloned().collect(), 4, InputScheme::PerFunction);
        // The same function gets the same inputs whatever the order of the others.
        assert_eq!(a.trials[2].calls[0], b.trials[2].calls[1]);
        assert_ne!(a.trials[0].calls[0], a.trials[1].calls[0]);
        for t in &a.trials {
            assert!(t.stub_index < 625);
            for (_, v) in &t.calls[0].args {
                let Value::Float(x) = v else { panic!() };
                assert!((-1.0..1.0).contains(x));
            }
            let Value::Str(s) = &t.calls[1].args[2].1 else { panic!() };
            assert!((1..=10).contains(&s.len()) && s.chars().all(|c| c.is_ascii_digit()));
        }
    }

    #[test]
    fn shared_inputs_are_one_per_trial_and_parameter() {
        let src = "def f(val: float, mult: float) -> float:\n    return val\n\ndef g(val: float) -> float:\n    return val\n\ndef h(val: str) -> str:\n    return val\n\ndef k(mult: float, val: float) -> float:\n    return val\n";
        let fs = reference_functions(src).unwrap();
        let a = build_plan("k", Domain::Math, fs.clone(), 50, InputScheme::PerTrial);
        let b = build_plan("k", Domain::Math, fs.iter().rev().cloned().collect(), 50, InputScheme::PerTrial);
        let mut vals = BTreeSet::new();
        for (ta, tb) in a.trials.iter().zip(&b.trials) {
            let arg = |t: &Trial, f: &str, p: &str| {
                let c = t.calls.iter().find(|c| c.function == f).unwrap();
                c.args.iter().find(|(n, _)| n == p).unwrap().1.clone()
            };
            // One value per name and type in a trial, whatever the function or its order.
            assert_eq!(arg(ta, "f", "val"), arg(ta, "g", "val"));
            assert_eq!(arg(ta, "f", "val"), arg(ta, "k", "val"));
            assert_eq!(arg(ta, "f", "mult"), arg(ta, "k", "mult"));
            assert_ne!(arg(ta, "f", "val"), arg(ta, "f", "mult"));
            assert!(matches!(arg(ta, "h", "val"), Value::Str(_)));
            for f in ["f", "g", "h", "k"] {
                assert_eq!(arg(ta, f, "val"), arg(tb, f, "val"));
            }
            assert_eq!(ta.stub_index, tb.stub_index);
            let Value::Float(x) = arg(ta, "g", "val") else { panic!() };
            assert!((-1.0..1.0).contains(&x));
            vals.insert(x.to_bits());
        }
        // A fresh value every trial.
        assert_eq!(vals.len(), 50);
        // The per-function scheme draws differently (its own streams).
        let c = build_plan("k", Domain::Math, fs, 50, InputScheme::PerFunction);
        assert_ne!(a.trials[0].calls[0], c.trials[0].calls[0]);
        assert_eq!(a.trials[0].stub_index, c.trials[0].stub_index);
    }

    #[test]
    fn filter_keeps_named_defs_only() {
        let defs = top_defs(REF).unwrap();
        let keep: BTreeSet<String> = ["f".to_string()].into();
        let p = filter_program(&defs, &keep);
        assert!(p.starts_with("def f(") && !p.contains("def h") && !p.contains("import"));
        let assigned = Program::read("x = 1\ny: int = 2\nz += 1\na, b = 1, 2\n").unwrap().module_assignments();
        assert_eq!(assigned.len(), 3);
    }
}
