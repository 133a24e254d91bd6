//! Problem statements (decision D10): written for Cabrito, stating the rules of generation.md §6,
//! each with a worked example that the kind's own transform builds from a tiny fixed graph in the
//! task's domain, so the example can never disagree with the rules or the grader.

use super::{build, Ctx, Role};
use crate::domain::DomainInfo;
use crate::graph::{CallGraph, Part};
use crate::python;
use crate::spec::{Domain, Kind};
use crate::task::draw_ops;

use Part::{Edit, Init, Special};

/// The tiny graph of a kind's worked example: nodes, edges, main root, the edit graph's wrapper,
/// and the roots `main()` must not call.
type Example = (
    &'static [(&'static str, Part)],
    &'static [(&'static str, &'static str)],
    &'static str,
    &'static str,
    &'static [&'static str],
);

fn example_graph(kind: Kind) -> Example {
    match kind {
        // a is live; e (dead root) → f → c: dead code may call live code.
        Kind::DeadCode => (
            &[("a", Init), ("b", Init), ("c", Init), ("e", Special), ("f", Edit)],
            &[("a", "b"), ("a", "c"), ("e", "f"), ("f", "c")],
            "a",
            "e",
            &["e"],
        ),
        // c has the parameter; c → d, e; d → f; e → f; the untouched b also calls e.
        Kind::AddParameter => (
            &[("a", Init), ("b", Init), ("c", Special), ("d", Edit), ("e", Edit), ("f", Edit)],
            &[("a", "b"), ("a", "c"), ("c", "d"), ("c", "e"), ("d", "f"), ("e", "f"), ("b", "e")],
            "a",
            "c",
            &[],
        ),
        // b → c, f; c and f → d (the sink calling external); d → e (untouched).
        Kind::AddReturnValue => (
            &[("a", Init), ("e", Init), ("b", Edit), ("c", Edit), ("f", Edit), ("d", Special)],
            &[("a", "e"), ("b", "c"), ("b", "f"), ("c", "d"), ("f", "d"), ("d", "e")],
            "a",
            "d",
            &[],
        ),
        // a → b (the LCA) → c, d; c → e; e and d call slow(); e also calls the untouched g.
        Kind::CacheFunction => (
            &[("a", Init), ("g", Init), ("b", Special), ("c", Edit), ("d", Edit), ("e", Edit)],
            &[("a", "g"), ("a", "b"), ("b", "c"), ("b", "d"), ("c", "e"), ("e", "g")],
            "a",
            "b",
            &[],
        ),
        // a → c; c and d call the helper; c → e → f; d → f (the nearest common descendant); f → g.
        Kind::ExtractHelper => (
            &[("a", Init), ("g", Init), ("c", Edit), ("d", Edit), ("e", Edit), ("f", Special)],
            &[("a", "g"), ("a", "c"), ("c", "e"), ("e", "f"), ("d", "f"), ("f", "g")],
            "a",
            "f",
            &[],
        ),
    }
}

/// The worked example of a kind in a domain: (before, after, what happened) — the programs as
/// Python source and a sentence naming the example's functions by role.
pub fn worked_example(kind: Kind, d: &DomainInfo) -> (String, String, String) {
    let (nodes, edges, root, special, excluded) = example_graph(kind);
    let g = CallGraph::from_edges(nodes, edges, root, special, excluded);
    let ops = draw_ops("cabrito-worked-example", d, &g);
    // Examples keep alphabetical order so they read top-down.
    let mut order: Vec<usize> = (0..g.len()).collect();
    order.sort_by(|&a, &b| g.name(a).cmp(g.name(b)));
    let built = build(kind, &Ctx { graph: &g, domain: d, ops: &ops, order: &order });
    let named_any = |roles: &[Role]| -> String {
        let names: Vec<String> =
            (0..g.len()).filter(|&v| roles.contains(&built.roles[v])).map(|v| format!("`{}()`", g.name(v))).collect();
        match names.len() {
            0 => String::new(),
            1 => names[0].clone(),
            _ => format!("{} and {}", names[..names.len() - 1].join(", "), names[names.len() - 1]),
        }
    };
    let named = |role: Role| named_any(&[role]);
    let untouched = named(Role::Untouched);
    let why = match kind {
        Kind::DeadCode => format!(
            "{} cannot be reached from `main()`, so they go, although one of them calls live code; {untouched} stay as they were.",
            named(Role::Dead)
        ),
        Kind::AddParameter => format!(
            "{} had the parameter; {} gain it, and only the terminal {} uses it. {untouched} keep calling without it.",
            named(Role::Root),
            named_any(&[Role::Edit, Role::EditLeaf]),
            named(Role::EditLeaf)
        ),
        Kind::AddReturnValue => format!(
            "{} calls `external()`; {} depend on it and now return the key too; {untouched} do not and stay as they were.",
            named(Role::Sink),
            named(Role::Edit)
        ),
        Kind::CacheFunction => format!(
            "{} call `slow()`; their lowest common ancestor is {}, which calls it once. `a()` also reaches them but is \
             higher, so it stays as it was, and so does everything that does not lead to a caller of `slow()`.",
            named(Role::EditLeaf),
            named(Role::Lca)
        ),
        Kind::ExtractHelper => format!(
            "{} called `{}(val)`; their nearest common descendant is {}. `g()` is also reached by both but lies deeper, so it \
             stays as it was.",
            named(Role::EditLeaf),
            d.helper_fn,
            named(Role::Ncd)
        ),
    };
    (python::module(&built.starter), python::module(&built.reference), why)
}

struct Words {
    values: &'static str,
    apply: String,
}

fn words(d: &DomainInfo) -> Words {
    match d.domain {
        Domain::Math => Words { values: "floats", apply: format!("multiply by it: `{} * X`", d.param) },
        Domain::Array => Words {
            values: "numpy arrays (`np.ndarray`)",
            apply: format!("multiply by it: `{} * X`, where `X` is an array and `{}` a float", d.param, d.param),
        },
        Domain::String => Words { values: "strings", apply: format!("prepend it: `{} + X`", d.param) },
    }
}

fn rules(kind: Kind, d: &DomainInfo) -> String {
    let w = words(d);
    let t = d.ty;
    let (p, pt) = (d.param, d.helper_ty);
    match kind {
        Kind::DeadCode => format!(
            "Every function in `solution.py` works on {values}. Some functions can never run: no chain of calls that \
             starts in `main()` reaches them. Delete every one of those unreachable functions.\n\n\
             - A function is reachable only if `main()` calls it, or a reachable function calls it. Calling a reachable \
             function does not make a function reachable.\n\
             - Leave every reachable function exactly as it is.",
            values = w.values
        ),
        Kind::AddParameter => format!(
            "Every function in `solution.py` works on {values}. One function already takes the parameter \
             `{p}: {pt}=default()`. Thread that parameter through the code below it:\n\n\
             1. A function that has `{p}` passes it to every function of `solution.py` it calls, as a keyword \
             argument: `c(val, {p}={p})`. Each such callee gains the parameter too, with the same default: \
             `{p}: {pt}=default()`.\n\
             2. Repeat for the callees, and their callees, until every function below the first one has the parameter.\n\
             3. Only terminal functions use it. A terminal function calls no function of `solution.py` (library calls \
             are fine); it must {apply}, where `X` is the value it returned before. Functions in between pass `{p}` \
             on and do not use it.\n\
             4. Do not touch functions above the one that first had the parameter, nor other callers of the functions \
             you change: they keep calling without `{p}` and get the default.\n\
             5. Never rely on the default inside the chain: always pass `{p}` explicitly.",
            values = w.values,
            apply = w.apply
        ),
        Kind::AddReturnValue => format!(
            "Every function in `solution.py` works on {values}. The library function `external()` has changed: it \
             now returns a pair `(value, key)`, the value it is given and a `str` key.\n\n\
             1. Every function whose result depends on `external()`, directly or through the functions it calls, must \
             return a tuple `(value, key)` annotated `tuple[{t}, str]`: the value it computed before, then the key.\n\
             2. A function that calls such a function unpacks the pair, `b_val, b_str = b(val)`, computes its value \
             from `b_val` exactly as before, and returns `(X, b_str)`.\n\
             3. When several keys reach a function, return any one of them; they are all equal.\n\
             4. Functions whose result does not depend on `external()` stay exactly as they are.",
            values = w.values
        ),
        Kind::CacheFunction => format!(
            "Every function in `solution.py` works on {values}. Several functions call `slow()`, which is expensive \
             and always returns the same value. Call it exactly once, in the lowest common ancestor of the functions \
             that call it, and hand the value down.\n\n\
             - Function `f` is the lowest common ancestor of `g_1, …, g_k` when `f` is each `g_i` or calls it (directly \
             or through other functions), and no function that `f` calls (directly or not) is also such a common \
             ancestor. A higher ancestor, such as one of the functions `main()` calls, is wrong.\n\
             - In the lowest common ancestor, store the result first: `temp: {pt} = slow()`.\n\
             - Pass `temp` down as an extra positional argument, `c(val, temp)`, only to the functions on the way to \
             the callers of `slow()`; each gains the parameter `temp: {pt}={default}`. Do not pass it past them.\n\
             - Where a function called `slow()`, it uses `temp` instead.\n\
             - Global variables are not allowed.",
            values = w.values,
            default = python::expr(&d.temp_default())
        ),
        Kind::ExtractHelper => format!(
            "Every function in `solution.py` works on {values}. Several functions each compute \
             `{p}: {pt} = {h}(val)` and {apply}. Compute it once instead, in their nearest common descendant, and \
             return it up.\n\n\
             - Function `f` is the nearest common descendant of `g_1, …, g_k` when each `g_i` is `f` or calls it \
             (directly or through other functions), and `f` calls no other function that is also such a common \
             descendant. A deeper function that all of them also reach is wrong.\n\
             - The nearest common descendant starts with `{p}: {pt} = {h}(val)` and returns `(X, {p})`, annotated \
             `tuple[{t}, {pt}]`.\n\
             - Every function between it and the original callers returns `(X, {p})` too, annotated \
             `tuple[{t}, {pt}]`, after unpacking its call: `c_val, {p} = c(val)`.\n\
             - The original callers unpack the same way, drop their own `{h}` call, keep their annotation and still \
             return {apply_short}.\n\
             - Never move the call into a function that calls them.",
            values = w.values,
            h = d.helper_fn,
            apply = w.apply.replace("multiply by it", "multiply their result by it").replace("prepend it", "prepend it to their result"),
            apply_short = if d.combine == python::Op::Mult { format!("`{p} * X`") } else { format!("`{p} + X`") },
        ),
    }
}

fn restrictions(kind: Kind, d: &DomainInfo) -> String {
    let lib = match (kind, d.domain) {
        (Kind::DeadCode, Domain::String) => {
            "The `strops` module is supplied when the code runs; do not define it.".to_string()
        }
        (Kind::DeadCode, _) => String::new(),
        (_, Domain::String) => {
            "`mylibrary` and `strops` are supplied when the code runs; do not define them.".to_string()
        }
        _ => "`mylibrary` and its functions are supplied when the code runs; do not define them.".to_string(),
    };
    let mut out = String::from("Rules for every answer:\n");
    if !lib.is_empty() {
        out.push_str(&format!("- {lib}\n"));
    }
    out.push_str(
        "- Add no functions, imports or module-level variables; local variables inside functions are fine.\n\
         - Keep every function name.\n\
         - Leave `main()` and the `if __name__ == '__main__':` block unchanged.\n\
         - Follow the procedure exactly: extra parameters, extra return values or other changes are graded as wrong.",
    );
    out
}

/// The problem statement of a kind in a domain, as a model receives it.
pub fn statement(kind: Kind, d: &DomainInfo) -> String {
    // A statement depends on the kind and the domain only: build each once per process.
    const SLOTS: usize = Kind::ALL.len() * Domain::ALL.len();
    static CACHE: [std::sync::OnceLock<String>; SLOTS] = [const { std::sync::OnceLock::new() }; SLOTS];
    let k = Kind::ALL.iter().position(|&x| x == kind).expect("a kind");
    let m = Domain::ALL.iter().position(|&x| x == d.domain).expect("a domain");
    CACHE[k * Domain::ALL.len() + m].get_or_init(|| build_statement(kind, d)).clone()
}

fn build_statement(kind: Kind, d: &DomainInfo) -> String {
    let (before, after, why) = worked_example(kind, d);
    format!(
        "Refactor `solution.py`: {title}.\n\n{rules}\n\nA worked example. This code:\n<example>\n{before}\n</example>\n\n\
         becomes:\n<output>\n{after}\n</output>\n\n{why}\n\n{restrictions}",
        title = kind.label().to_lowercase(),
        rules = rules(kind, d),
        restrictions = restrictions(kind, d),
    )
}

/// The whole model prompt: answer format, the codebase in file blocks, then the statement.
pub fn llm_prompt(statement: &str, starter_code: &str) -> String {
    format!(
        "You are changing a small Python repository to solve the problem below.\n\
         Think first inside <thought>...</thought>, then give your answer inside one <solution>...</solution> \
         block that holds the whole changed repository, each file introduced by a line `# === <file name> ===`, \
         like this:\n\n<solution>\n# === solution.py ===\n<the complete new content of solution.py>\n</solution>\n\n\
         <code repository>\n# === solution.py ===\n{starter_code}\n</code repository>\n\n\
         <problem statement>\n{statement}\n</problem statement>\n"
    )
}
