//! Rename variables (the paper's appendix A.9): `main(val: float)` is a chain of assignments
//! (`x = y ± k`, `x = y ± z`), each defining a new variable; `n` of them must be renamed at their
//! definition and every use, and no other name may change.
//!
//! Streams, under [`key`] (version, chain length and seed, not `n`: one seed gives one chain at every
//! `n`): `renaming/names`, `renaming/chain`, `renaming/renamed` (the first `n` of one shuffle, so a
//! larger `n` renames a superset).

use super::{Kind, Role, TaskKind};
use crate::graph::names::is_banned;
use crate::graph::sample::{below, shuffle};
use crate::kinds::Level;
use crate::rng::{stream, uuid_like};
use crate::spec::{err, Axis, Domain, SpecError, Support, TaskSpec};
use crate::task::{link, Generated, Sizes, Task, View};
use crate::{
    python,
    python::{Expr, Function, Module, Op, Param, Stmt},
};
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub struct VariableRenaming;

/// Two-letter names while they are plenty (the chain's names and as many new ones), else three.
fn name_length(chain: u32) -> usize {
    if 2 * chain as usize <= two_letter_names().len() {
        2
    } else {
        3
    }
}

fn names_of_length(len: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = vec![b'a'; len];
    loop {
        let name = String::from_utf8(word.clone()).expect("ascii");
        if !is_banned(&name) {
            out.push(name);
        }
        // The next word in lexicographic order.
        let mut i = len;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            if word[i] < b'z' {
                word[i] += 1;
                break;
            }
            word[i] = b'a';
        }
    }
}

fn two_letter_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| names_of_length(2))
}

/// One operand of an assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The parameter `val`.
    Val,
    /// An earlier variable of the chain (its index).
    Var(usize),
    /// A small integer constant.
    Const(i64),
}

/// `v_i = left ± right`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub left: Operand,
    pub op: Op,
    pub right: Operand,
}

/// A chain: the variables' names (variable i is defined by assignment i), the assignments, and the
/// names not in the chain in the order new names are taken from.
#[derive(Clone, Debug)]
pub struct Chain {
    pub names: Vec<String>,
    pub assignments: Vec<Assignment>,
    pub spare: Vec<String>,
}

/// The key of a spec's streams.
pub fn key(spec: &TaskSpec) -> String {
    format!("cabrito-renaming|v{}|chain={}|seed={}", spec.v, spec.chain, spec.seed)
}

/// Sample a chain of `length` assignments.
pub fn chain(key: &str, length: u32) -> Chain {
    let mut pool: Vec<String> = match name_length(length) {
        2 => two_letter_names().to_vec(),
        len => names_of_length(len),
    };
    shuffle(&mut stream(key, "renaming/names"), &mut pool);
    let spare = pool.split_off(length as usize);
    let mut rng = stream(key, "renaming/chain");
    let assignments = (0..length as usize)
        .map(|i| {
            let left = if i == 0 { Operand::Val } else { Operand::Var(i - 1) };
            let op = if below(&mut rng, 2) == 0 { Op::Add } else { Op::Sub };
            let right = if below(&mut rng, 2) == 0 {
                Operand::Const(1 + below(&mut rng, 9) as i64)
            } else {
                // `val` or any variable defined so far.
                match below(&mut rng, i + 1) {
                    0 => Operand::Val,
                    j => Operand::Var(j - 1),
                }
            };
            Assignment { left, op, right }
        })
        .collect();
    Chain { names: pool, assignments, spare }
}

/// The renames of a chain: `count` variables, each to a name the chain does not use, listed in the
/// order the chain defines them.
pub fn renames(key: &str, chain: &Chain, count: usize) -> Vec<(String, String)> {
    let mut order: Vec<usize> = (0..chain.names.len()).collect();
    shuffle(&mut stream(key, "renaming/renamed"), &mut order);
    let mut picked: Vec<(usize, String)> =
        order.into_iter().take(count).enumerate().map(|(i, v)| (v, chain.spare[i].clone())).collect();
    picked.sort();
    picked.into_iter().map(|(v, new)| (chain.names[v].clone(), new)).collect()
}

/// `main()` of a chain with each variable called by `name`.
fn main_fn(chain: &Chain, name: &dyn Fn(usize) -> String) -> Function {
    let operand = |o: Operand| match o {
        Operand::Val => Expr::name("val"),
        Operand::Var(j) => Expr::Name(name(j)),
        Operand::Const(k) => Expr::Int(k),
    };
    let mut body: Vec<Stmt> = chain
        .assignments
        .iter()
        .enumerate()
        .map(|(i, a)| Stmt::Assign {
            targets: vec![name(i)],
            value: Expr::bin(operand(a.left), a.op, operand(a.right)),
        })
        .collect();
    body.push(Stmt::Return(Expr::Name(name(chain.names.len() - 1))));
    Function { name: "main".into(), params: vec![Param::new("val", "float")], returns: Some("float".into()), body }
}

fn module(f: Function) -> Module {
    Module {
        imports: vec!["import sys".into()],
        helpers: vec![],
        functions: vec![f],
        guard_call: "main(float(sys.argv[1]))".into(),
    }
}

/// Starter and reference of a chain under some renames.
pub fn programs(chain: &Chain, renames: &[(String, String)]) -> (String, String) {
    let table: BTreeMap<&str, &str> = renames.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let starter = main_fn(chain, &|i| chain.names[i].clone());
    let reference = main_fn(chain, &|i| {
        let old = chain.names[i].as_str();
        table.get(old).copied().unwrap_or(old).to_string()
    });
    (python::module(&module(starter)), python::module(&module(reference)))
}

/// `- `gg` → `bt`` lines.
fn rename_list(renames: &[(String, String)]) -> String {
    renames.iter().map(|(a, b)| format!("- `{a}` → `{b}`")).collect::<Vec<_>>().join("\n")
}

/// The statement's fixed part: the rules and a worked example made by this generator (D10).
fn statement_parts() -> &'static (String, String) {
    static PARTS: OnceLock<(String, String)> = OnceLock::new();
    PARTS.get_or_init(|| {
        let ex_key = "cabrito-worked-example/variable_renaming";
        let ex = chain(ex_key, 6);
        let ex_renames = renames(ex_key, &ex, 2);
        let (before, after) = programs(&ex, &ex_renames);
        let rules = "Rules:\n\
             1. Apply every rename everywhere the variable appears: in the assignment that defines it and in every \
             later line that uses it, the `return` included.\n\
             2. No other name changes: every other variable, the parameter `val` and the function `main` keep their \
             names. Each new name is new to the function, so no two variables ever share a name.\n\
             3. Change nothing else: the same statements in the same order, with the same operators and numbers."
            .to_string();
        let example = format!(
            "A worked example. This code:\n<example>\n{before}\n</example>\n\nwith the renames\n{}\n\nbecomes:\n\
             <output>\n{after}\n</output>\n\nRules for every answer:\n\
             - Add no functions, imports or module-level variables.\n\
             - Leave the `if __name__ == '__main__':` block unchanged.",
            rename_list(&ex_renames)
        );
        (rules, example)
    })
}

/// The problem statement of a chain and its renames.
fn statement(length: usize, renames: &[(String, String)]) -> String {
    let (rules, example) = statement_parts();
    format!(
        "Rename variables in `solution.py`.\n\n`main(val)` computes its result through a chain of {length} assignments; \
         each assignment defines a new variable. Rename {count}:\n\n{list}\n\n{rules}\n\n{example}",
        count = if renames.len() == 1 { "this variable".to_string() } else { format!("these {} variables", renames.len()) },
        list = rename_list(renames),
    )
}

impl TaskKind for VariableRenaming {
    fn kind(&self) -> Kind {
        Kind::VariableRenaming
    }
    fn label(&self) -> &'static str {
        "Rename variables"
    }
    fn domains(&self) -> Support<Domain> {
        Support::Only(&[Domain::Math])
    }
    fn axes(&self) -> Support<Axis> {
        Support::NotApplicable
    }
    fn validate(&self, spec: &TaskSpec) -> Result<(), SpecError> {
        if spec.n > spec.chain {
            return Err(err(
                "n",
                format!(
                    "variable_renaming renames at most the {c} variables main() defines (chain = {c}), got n = {}; n \
                     must be an integer from 1 to {c}",
                    spec.n,
                    c = spec.chain
                ),
            ));
        }
        Ok(())
    }
    fn generate(&self, spec: &TaskSpec) -> Result<Generated, SpecError> {
        // The app's first download leaves the kind's generator out (`gen` makes its tasks).
        crate::task::require(crate::task::Extra::Renaming)?;
        let key = key(spec);
        let chain = chain(&key, spec.chain);
        let renames = renames(&key, &chain, spec.n as usize);
        let (starter_code, solution_code) = programs(&chain, &renames);
        let prompt = statement(chain.names.len(), &renames);
        // The chain does not depend on n; the task's id does.
        let dag_id = uuid_like(&format!("{key}|n={}", spec.n), "dag_id");
        let sizes = Sizes {
            functions: 1,
            functions_to_edit: 1,
            starter_lines: starter_code.lines().count(),
            starter_chars: starter_code.chars().count(),
            solution_lines: solution_code.lines().count(),
            prompt_tokens_estimate: (prompt.chars().count() + starter_code.chars().count()).div_ceil(4),
        };
        let task = Task {
            name: format!("{}_{}_{dag_id}", Axis::Traversal.def().task_set(spec.domain), spec.kind.as_str()),
            dag_id,
            prompt,
            starter_code,
            solution_code,
            metadata: serde_json::json!({
                "chain": chain.names.len(),
                "renames": renames.iter().map(|(a, b)| [a, b]).collect::<Vec<_>>(),
            }),
            spec: spec.clone(),
            link: link(spec),
            graph: serde_json::Value::Null,
            roles: BTreeMap::from([("main".to_string(), Role::Edit)]),
            edit_set: vec!["main".to_string()],
            sizes,
            runtime: None,
        };
        Ok(Generated { task, view: View::Renaming { renames } })
    }
    fn library(&self, _: Domain) -> Option<&'static str> {
        None
    }
    fn rubric(&self) -> &'static [(&'static str, Level)] {
        // main() is the one function to change, so "main() unchanged" is not a rule here.
        &[("renames", Level::Must), ("main_unchanged", Level::Off)]
    }
    fn required_checks(&self) -> &'static [&'static str] {
        &["behavioral", "renames"]
    }
    fn scorer_rule(&self, _: Domain) -> String {
        "main() returns what the reference returns, every listed variable is renamed where it is defined and \
         wherever it is used, and no other name changes"
            .into()
    }
    fn run_name(&self, spec: &TaskSpec) -> Option<String> {
        Some(format!("variable_renaming_chain={}_n={}", spec.chain, spec.n))
    }
    fn grades_main(&self) -> bool {
        true
    }
    fn own_grid(&self) -> Option<super::OwnGrid> {
        Some(super::OwnGrid {
            name: "renaming",
            sizes: crate::spec::PAPER_SIZES,
            samples: 20,
            run_file: false,
            appendix: true,
        })
    }
    fn extra(&self) -> Option<crate::task::Extra> {
        Some(crate::task::Extra::Renaming)
    }
}

/// One line of code split into plain text and the names to rename (for the app's highlighting): `(text, new name if it is one)`.
pub fn split_line<'a>(line: &'a str, table: &BTreeMap<&str, &'a str>) -> Vec<(&'a str, Option<&'a str>)> {
    let mut out = Vec::new();
    let mut plain_start = 0;
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if let Some(new) = table.get(&line[start..i]) {
                if plain_start < start {
                    out.push((&line[plain_start..start], None));
                }
                out.push((&line[start..i], Some(*new)));
                plain_start = i;
            }
        } else {
            i += 1;
        }
    }
    if plain_start < line.len() {
        out.push((&line[plain_start..], None));
    }
    out
}

/// The lines of `main()`'s body.
fn main_body(code: &str) -> impl Iterator<Item = &str> {
    code.lines().skip_while(|l| !l.starts_with("def main(")).skip(1).take_while(|l| l.starts_with("    "))
}

/// The panel the playground shows beside a renaming task's code, as HTML: the rename table, and the
/// chain of `starter`'s `main()` with every occurrence of a name to rename marked (its new name in
/// the tooltip). Written where the task is made (the `gen` module, `playground::handover`), so the
/// app's first download holds none of it; the app puts it in the page as it is (it has no events).
/// No whitespace between elements: the DOM is the one the app's Yew component made.
pub fn panel_html(starter: &str, renames: &[(String, String)]) -> String {
    use crate::graph::svg::esc;
    use std::fmt::Write;
    let table: BTreeMap<&str, &str> = renames.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let occurrences: usize =
        starter.lines().map(|l| split_line(l, &table).iter().filter(|(_, new)| new.is_some()).count()).sum();
    let mut out = format!(
        "<section class=\"panel renaming-panel\" aria-label=\"Renames\"><div class=\"panel-head\"><h2>Renames</h2></div>\
         <p class=\"hint\">{} variables to rename, at {occurrences} places in the chain (highlighted).</p>\
         <div class=\"rename-scroll\"><table id=\"rename-table\" class=\"renames\">\
         <thead><tr><th>old name</th><th>new name</th></tr></thead><tbody>",
        renames.len()
    );
    for (a, b) in renames {
        let _ = write!(
            out,
            "<tr><td><code class=\"rename-from\">{}</code></td><td><code class=\"rename-to\">{}</code></td></tr>",
            esc(a),
            esc(b)
        );
    }
    out.push_str("</tbody></table></div><h2>The chain</h2><pre id=\"rename-chain\" class=\"chain\">");
    for line in main_body(starter) {
        out.push_str("<div class=\"chain-line\">");
        for (text, new) in split_line(line, &table) {
            match new {
                Some(new) => {
                    let _ = write!(out, "<mark class=\"rename-from\" title=\"→ {}\">{}</mark>", esc(new), esc(text));
                }
                None => out.push_str(&esc(text)),
            }
        }
        out.push_str("</div>");
    }
    out.push_str("</pre></section>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_at_whole_names() {
        let table: BTreeMap<&str, &str> = [("ab", "zz")].into_iter().collect();
        let parts = split_line("    abc = ab + ab1 - ab", &table);
        assert_eq!(parts, vec![("    abc = ", None), ("ab", Some("zz")), (" + ab1 - ", None), ("ab", Some("zz"))]);
        let joined: String = parts.iter().map(|p| p.0).collect();
        assert_eq!(joined, "    abc = ab + ab1 - ab");
    }

    #[test]
    fn names_are_short_and_allowed() {
        assert_eq!(two_letter_names().len(), 26 * 26 - 7);
        assert_eq!(name_length(200), 2);
        assert_eq!(name_length(2000), 3);
        let c = chain("k", 2000);
        assert!(c.names.iter().all(|n| n.len() == 3 && !is_banned(n)));
        let mut all: Vec<&String> = c.names.iter().chain(c.spare.iter()).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), c.names.len() + c.spare.len());
    }

    /// The text of `html` without its tags, entities decoded (the few `esc` writes).
    fn text_of(html: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => out.push(c),
                _ => {}
            }
        }
        out.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    /// The panel's HTML: a row per rename, the chain's lines each in a `chain-line` holding exactly
    /// the line's text, every occurrence of a renamed name marked with its new name, and nothing
    /// between the elements.
    #[test]
    fn the_panel_shows_the_renames_and_marks_the_chain() {
        for (chain_len, n, seed) in [(6, 2, 0), (30, 5, 1), (200, 200, 2), (400, 17, 3)] {
            let spec = TaskSpec {
                chain: chain_len,
                n,
                seed,
                ..TaskSpec::new(Kind::VariableRenaming, Domain::Math, Axis::Traversal, n, seed)
            };
            let g = crate::task::generate_full(&spec).unwrap();
            let View::Renaming { renames } = &g.view else { panic!("not a renaming view") };
            let code = &g.task.starter_code;
            let html = panel_html(code, renames);
            assert!(html.starts_with("<section class=\"panel renaming-panel\" aria-label=\"Renames\">"));
            assert!(html.ends_with("</pre></section>") && !html.contains('\n') && !html.contains("> <"));
            assert_eq!(html.matches("<tr><td><code class=\"rename-from\">").count(), renames.len());
            for (a, b) in renames {
                assert!(html.contains(&format!(
                    "<code class=\"rename-from\">{a}</code></td><td><code class=\"rename-to\">{b}</code>"
                )));
            }
            let table: BTreeMap<&str, &str> = renames.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
            let body: Vec<&str> = main_body(code).collect();
            assert_eq!(body.len(), chain_len as usize + 1, "the assignments and the return");
            let (_, chain) = html.split_once("<pre id=\"rename-chain\" class=\"chain\">").unwrap();
            let lines: Vec<&str> =
                chain.trim_end_matches("</pre></section>").split("</div>").filter(|l| !l.is_empty()).collect();
            assert_eq!(lines.len(), body.len());
            let mut marks = 0;
            for (line, code_line) in lines.iter().zip(&body) {
                let line = line.strip_prefix("<div class=\"chain-line\">").unwrap();
                assert_eq!(text_of(line), *code_line);
                for part in line.split("<mark class=\"rename-from\" title=\"→ ").skip(1) {
                    let (new, rest) = part.split_once("\">").unwrap();
                    let (old, _) = rest.split_once("</mark>").unwrap();
                    assert_eq!(table.get(old), Some(&new));
                    marks += 1;
                }
            }
            let every: usize =
                code.lines().map(|l| split_line(l, &table).iter().filter(|p| p.1.is_some()).count()).sum();
            assert_eq!(marks, every, "every occurrence is in main()'s body");
            assert!(text_of(&html).contains(&format!(
                "{} variables to rename, at {every} places in the chain (highlighted).",
                renames.len()
            )));
        }
        // Text is escaped wherever it comes from.
        let odd = panel_html("def main(val: float) -> float:\n    a = b < c & \"d\"\n", &[("b".into(), "<x>".into())]);
        assert!(
            odd.contains("a = <mark class=\"rename-from\" title=\"→ &lt;x&gt;\">b</mark> &lt; c &amp; &quot;d&quot;"),
            "{odd}"
        );
    }

    #[test]
    fn a_larger_n_renames_a_superset() {
        let k = "k";
        let c = chain(k, 50);
        let five = renames(k, &c, 5);
        let ten = renames(k, &c, 10);
        assert!(five.iter().all(|r| ten.contains(r)));
        assert!(ten.iter().all(|(a, b)| c.names.contains(a) && !c.names.contains(b)));
    }
}
