//! Merge Codebases by running code. A script, run through the `run` tool, evaluates every variable of
//! both classes' `compute()` on random arguments and pairs variables whose values agree. The pair of
//! lines that, made equal, brings the most values back into agreement is a difference; repeat until
//! both classes agree. The strategy then writes the template method and runs the old and new
//! classes side by side to check that they return the same values.

use super::know::Sight;
use crate::aci::Tools;
use cabrito_check::program::Program;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::Ranged;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Does the statement ask to merge the two calculators?
pub fn is_merge(statement: &str) -> bool {
    statement.lines().next().unwrap_or("").to_lowercase().contains("merge two calculators")
}

/// One line of a `compute()`: `target = expr`, or the return (`target` empty).
#[derive(Clone, Debug)]
struct Line {
    target: String,
    expr: String,
    /// The names the expression reads.
    reads: Vec<String>,
}

/// A class's `compute()` as seen.
#[derive(Clone, Debug)]
struct Compute {
    params: Vec<String>,
    lines: Vec<Line>,
}

/// The names an expression reads, in order of first appearance.
fn names_read(e: &Expr) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'a> Visitor<'a> for Names {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Name(n) = e {
                if !self.0.iter().any(|x| x == n.id.as_str()) {
                    self.0.push(n.id.to_string());
                }
            }
            visitor::walk_expr(self, e);
        }
    }
    let mut v = Names(Vec::new());
    v.visit_expr(e);
    v.0
}

/// The text of the top-level block starting with `class <name>(`, when seen whole: (first line,
/// last line, text).
fn class_block(sight: &Sight, name: &str) -> Option<(usize, usize, String)> {
    let prefix = format!("class {name}(");
    let first =
        sight.lines.iter().chain(sight.glimpses.iter()).find(|(_, t)| t.starts_with(&prefix)).map(|(l, _)| *l)?;
    let (a, b, _) = sight.block(first)?;
    let mut text = String::new();
    for n in a..=b {
        text.push_str(sight.lines.get(&n)?);
        text.push('\n');
    }
    Some((a, b, text))
}

/// The `compute()` of a class's text.
fn compute_of(class_text: &str) -> Option<Compute> {
    let program = Program::parse(class_text).ok()?;
    let Some(Stmt::ClassDef(c)) = program.body().first() else { return None };
    let f = c.body.iter().find_map(|s| match s {
        Stmt::FunctionDef(f) if f.name.as_str() == "compute" => Some(f),
        _ => None,
    })?;
    let params: Vec<String> = f.parameters.args.iter().skip(1).map(|p| p.parameter.name.to_string()).collect();
    let text = |e: &Expr| class_text[usize::from(e.start())..usize::from(e.end())].to_string();
    let mut lines = Vec::new();
    for s in &f.body {
        match s {
            Stmt::Assign(a) => match a.targets.as_slice() {
                [Expr::Name(t)] => {
                    lines.push(Line { target: t.id.to_string(), expr: text(&a.value), reads: names_read(&a.value) })
                }
                _ => return None,
            },
            Stmt::Return(r) => {
                let v = r.value.as_deref()?;
                lines.push(Line { target: String::new(), expr: text(v), reads: names_read(v) });
            }
            _ => return None,
        }
    }
    (lines.last().is_some_and(|l| l.target.is_empty()) && !params.is_empty()).then_some(Compute { params, lines })
}

/// A Python literal of a string list.
fn py_list(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_default()
}

/// The lines of a compute as a Python literal: `[[target, expr, [reads…]], …]`.
fn py_lines(c: &Compute) -> String {
    let rows: Vec<Value> = c.lines.iter().map(|l| serde_json::json!([l.target, l.expr, l.reads])).collect();
    serde_json::to_string(&rows).unwrap_or_default()
}

/// The analysis script (run through the `run` tool): prints one JSON line with the differences.
fn analysis_script(a: &Compute, b: &Compute) -> String {
    format!(
        r#"import json, random
A_PARAMS, B_PARAMS = {ap}, {bp}
A, B = {al}, {bl}
rng = random.Random(20260)
VECS = [[rng.randint(-999, 999) for _ in A_PARAMS] for _ in range(6)]
FRESH = [[rng.randint(-10**6, 10**6) for _ in VECS] for _ in range(64)]
CODE_A = [compile(e, "<a>", "eval") for _, e, _ in A]
CODE_B = [compile(e, "<b>", "eval") for _, e, _ in B]

def values(lines, code, params, over):
    # every line's value on every vector; a line in `over` gives fresh value number over[i]
    out = [[] for _ in lines]
    for vi, vec in enumerate(VECS):
        env = dict(zip(params, vec))
        for i, (t, _, _) in enumerate(lines):
            v = FRESH[over[i]][vi] if i in over else eval(code[i], {{}}, env)
            env[t or "<return>"] = v
            out[i].append(v)
    return [tuple(v) for v in out]

def params_sigs(params):
    return [tuple(vec[i] for vec in VECS) for i in range(len(params))]

def state(oa, ob):
    va, vb = values(A, CODE_A, A_PARAMS, oa), values(B, CODE_B, B_PARAMS, ob)
    pa, pb = params_sigs(A_PARAMS), params_sigs(B_PARAMS)
    sa, sb = set(va) | set(pa), set(vb) | set(pb)
    ma = [v in sb for v in va]
    mb = [v in sa for v in vb]
    return va, vb, ma, mb

def frontier(lines, params, matched):
    ok = set(params) | {{lines[i][0] for i in range(len(lines)) if matched[i]}}
    return [i for i, (t, _, reads) in enumerate(lines) if t and not matched[i] and all(r in ok for r in reads)]

oa, ob, diffs = {{}}, {{}}, []
while True:
    va, vb, ma, mb = state(oa, ob)
    if va[-1] == vb[-1]:
        break
    score = sum(ma) + sum(mb)
    best = None
    for i in frontier(A, A_PARAMS, ma):
        for j in frontier(B, B_PARAMS, mb):
            k = len(diffs)
            _, _, ma2, mb2 = state({{**oa, i: k}}, {{**ob, j: k}})
            s = sum(ma2) + sum(mb2)
            if s > score and (best is None or s > best[0]):
                best = (s, i, j)
    if best is None or len(diffs) >= 20:
        print(json.dumps({{"ok": False, "diffs": diffs}}))
        raise SystemExit(0)
    _, i, j = best
    oa[i], ob[j] = len(diffs), len(diffs)
    diffs.append([i, j])

# B's names in A's names: a value of B equal to a value of A defined before the difference.
va, vb, _, _ = state(oa, ob)
pa = params_sigs(A_PARAMS)
maps = []
for i, j in diffs:
    where = {{}}
    for n, p in enumerate(A_PARAMS):
        where.setdefault(pa[n], p)
    for n in range(i):
        if A[n][0]:
            where.setdefault(va[n], A[n][0])
    sig_b = {{p: s for p, s in zip(B_PARAMS, params_sigs(B_PARAMS))}}
    for n in range(j):
        if B[n][0]:
            sig_b[B[n][0]] = vb[n]
    maps.append({{r: where.get(sig_b.get(r)) for r in B[j][2]}})
print(json.dumps({{"ok": True, "diffs": diffs, "maps": maps}}))
"#,
        ap = py_list(&a.params),
        bp = py_list(&b.params),
        al = py_lines(a),
        bl = py_lines(b),
    )
}

/// `expr` with its names renamed by `map` (names not in it stay).
fn renamed(expr: &str, map: &BTreeMap<String, String>) -> Option<String> {
    let program = Program::parse(expr).ok()?;
    let Some(Stmt::Expr(e)) = program.body().first() else { return None };
    struct Names<'m>(&'m BTreeMap<String, String>, Vec<(usize, usize, String)>);
    impl<'a> Visitor<'a> for Names<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Name(n) = e {
                if let Some(to) = self.0.get(n.id.as_str()) {
                    self.1.push((n.start().into(), n.end().into(), to.clone()));
                }
            }
            visitor::walk_expr(self, e);
        }
    }
    let mut v = Names(map, Vec::new());
    v.visit_expr(&e.value);
    let mut out = expr.to_string();
    v.1.sort_by_key(|y| std::cmp::Reverse(y.0));
    for (s, t, to) in v.1 {
        out.replace_range(s..t, &to);
    }
    Some(out)
}

/// The differences the analysis printed: (line of A, line of B, B's read names in A's names).
type Found = Vec<(usize, usize, BTreeMap<String, String>)>;

fn read_analysis(reply: &str, a: &Compute, b: &Compute) -> Option<Found> {
    let json_line = reply.lines().find(|l| l.starts_with("{\"ok\""))?;
    let v: Value = serde_json::from_str(json_line).ok()?;
    if v["ok"] != Value::Bool(true) {
        return None;
    }
    let mut out = Vec::new();
    for (d, m) in v["diffs"].as_array()?.iter().zip(v["maps"].as_array()?) {
        let (i, j) = (d[0].as_u64()? as usize, d[1].as_u64()? as usize);
        let mut map = BTreeMap::new();
        for r in &b.lines.get(j)?.reads {
            map.insert(r.clone(), m.get(r)?.as_str()?.to_string());
        }
        a.lines.get(i)?;
        out.push((i, j, map));
    }
    (!out.is_empty()).then_some(out)
}

/// The three classes of the answer.
fn template(a: &Compute, b: &Compute, found: &Found) -> Option<String> {
    let by_a: BTreeMap<usize, usize> = found.iter().enumerate().map(|(k, (i, _, _))| (*i, k)).collect();
    let mut customs = Vec::new();
    for (i, j, map) in found {
        let la = &a.lines[*i];
        let lb = &b.lines[*j];
        let b_expr = renamed(&lb.expr, map)?;
        // The method's parameters: what either version reads, in A's names, A's first.
        let mut params: Vec<String> = la.reads.clone();
        for r in &lb.reads {
            let n = map.get(r)?;
            if !params.contains(n) {
                params.push(n.clone());
            }
        }
        customs.push((params, la.expr.clone(), b_expr));
    }
    let sig = |params: &[String]| {
        std::iter::once("self".to_string()).chain(params.iter().cloned()).collect::<Vec<_>>().join(", ")
    };
    let mut out = String::from(
        "class Calculate(ABC):\n    \"\"\"The shared calculation; each subclass supplies only the steps where it differs.\"\"\"\n",
    );
    for (k, (params, _, _)) in customs.iter().enumerate() {
        out.push_str(&format!(
            "\n    @abstractmethod\n    def custom_compute_{}({}):\n        ...\n",
            k + 1,
            sig(params)
        ));
    }
    out.push_str(&format!("\n    def compute({}):\n", sig(&a.params)));
    for (n, l) in a.lines.iter().enumerate() {
        match (by_a.get(&n), l.target.is_empty()) {
            (Some(&k), _) => out.push_str(&format!(
                "        {} = self.custom_compute_{}({})\n",
                l.target,
                k + 1,
                customs[k].0.join(", ")
            )),
            (None, true) => out.push_str(&format!("        return {}\n", l.expr)),
            (None, false) => out.push_str(&format!("        {} = {}\n", l.target, l.expr)),
        }
    }
    for (class, pick) in [("CalculateA", 0), ("CalculateB", 1)] {
        out.push_str(&format!("\n\nclass {class}(Calculate):\n"));
        for (k, (params, ea, eb)) in customs.iter().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            let e = if pick == 0 { ea } else { eb };
            out.push_str(&format!("    def custom_compute_{}({}):\n        return {e}\n", k + 1, sig(params)));
        }
    }
    Some(out)
}

/// A script that runs the starter's two classes (renamed) and the workspace's side by side.
fn verify_script(old_a: &str, old_b: &str, params: usize) -> String {
    format!(
        "import random\n{}\n{}\nimport solution\nrng = random.Random(7)\nbad = 0\nfor _ in range(20):\n    v = [rng.randint(-99, 99) for _ in range({params})]\n    if OldA().compute(*v) != solution.CalculateA().compute(*v) or OldB().compute(*v) != solution.CalculateB().compute(*v):\n        bad += 1\nprint('same results' if bad == 0 else f'{{bad}} of 20 vectors differ')\n",
        old_a.replacen("class CalculateA(Calculate):", "class OldA:", 1),
        old_b.replacen("class CalculateB(Calculate):", "class OldB:", 1),
    )
}

/// Merge what the strategy has seen; without both classes seen whole it leaves the file as it is.
/// Submits.
pub fn run(tools: &mut Tools, sight: &Sight) {
    let (Some(base), Some((_, _, ta)), Some((_, b_last, tb))) =
        (class_line(sight, "Calculate"), class_block(sight, "CalculateA"), class_block(sight, "CalculateB"))
    else {
        tools.submit();
        return;
    };
    let (Some(a), Some(b)) = (compute_of(&ta), compute_of(&tb)) else {
        tools.submit();
        return;
    };
    if a.params.len() != b.params.len() {
        tools.submit();
        return;
    }
    let reply = tools.run(&analysis_script(&a, &b));
    let Some(found) = read_analysis(&reply, &a, &b) else {
        tools.submit();
        return;
    };
    let Some(new) = template(&a, &b, &found) else {
        tools.submit();
        return;
    };
    tools.replace_lines(base, b_last, &new);
    tools.lint();
    tools.run(&verify_script(&ta, &tb, a.params.len()));
    tools.submit();
}

/// The line of `class <name>(`, from a view or a search.
fn class_line(sight: &Sight, name: &str) -> Option<usize> {
    let prefix = format!("class {name}(");
    let seen: BTreeSet<usize> = sight
        .lines
        .iter()
        .chain(sight.glimpses.iter())
        .filter(|(_, t)| t.starts_with(&prefix))
        .map(|(l, _)| *l)
        .collect();
    seen.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_renamed_where_they_are_names() {
        let map: BTreeMap<String, String> =
            [("al".to_string(), "z".to_string()), ("ag".to_string(), "l".to_string())].into();
        assert_eq!(renamed("2 * al + 2 * ag", &map).as_deref(), Some("2 * z + 2 * l"));
        assert_eq!(renamed("alag + al", &map).as_deref(), Some("alag + z"));
    }

    #[test]
    fn a_class_is_read_into_its_lines() {
        let c = compute_of("class CalculateA(Calculate):\n    def compute(self, a, b):\n        x = a + b\n        y = 2 * (x * a)\n        return x + y\n").unwrap();
        assert_eq!(c.params, ["a", "b"]);
        assert_eq!(c.lines.len(), 3);
        assert_eq!(c.lines[1].reads, ["x", "a"]);
        assert!(c.lines[2].target.is_empty());
    }
}
