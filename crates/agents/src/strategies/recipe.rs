//! From the problem statement to changes: what the statement asks (a [`Recipe`], read from its
//! title and the code it quotes) and, given a [`Model`] of what a strategy has seen, the functions
//! to rewrite or delete (a [`Plan`]). The recipes follow the statement's rules, applied to the
//! strategy's own understanding of the file, never to the task's graph.

use super::know::{Func, Model, Sight};
use super::requirements::{Place, Requirements};
use std::collections::BTreeSet;

/// What a statement asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recipe {
    /// Delete every function `main()` cannot reach; when the statement says so, calls to them left
    /// in branches that never run become `left` (`val`).
    DeadCode { left: Option<String> },
    /// Thread the parameters `names` (declared as `decls`) below the function that has the first;
    /// terminals apply them with `op` (`mult * X`, `prefix + X`; indexed, `mult1 * mult2 * X`).
    AddParameter { names: Vec<String>, decls: Vec<String>, op: String },
    /// Functions depending on `lib()` return `(X, key…)` annotated `annotation`.
    AddReturnValue { lib: String, annotation: String, keys: Keys },
    /// Call `lib` once per value in the callers' lowest common ancestor (`lines`), passing `vars`
    /// down to the functions on the way (as keywords when `keywords`), each declaring `decls`.
    CacheFunction { lib: String, vars: Vec<String>, lines: Vec<String>, decls: Vec<String>, keywords: bool },
    /// Call `helper` once per value in the callers' nearest common descendant (`lines`), returning
    /// `vars` up through functions annotated `annotation`.
    ExtractHelper { helper: String, vars: Vec<String>, lines: Vec<String>, annotation: String },
    /// Rename variables of `main()` (old → new), everywhere they appear.
    Rename { table: Vec<(String, String)> },
}

/// How callers unpack the keys of add_return_value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keys {
    /// `b_val, b_str = b(val)`: the key named after the callee.
    PerCallee { suffix: String },
    /// `b_val, key1, …, keyN = b(val)` at the first such call, `_` at later ones.
    Indexed { names: Vec<String> },
}

/// A change to `solution.py`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Replace a function's text (as seen) by a new one.
    Rewrite { name: String, old: String, new: String },
    /// Delete lines `first..=last` (a whole function and the blank lines after it).
    Delete { name: String, first: usize, last: usize },
}

impl Change {
    pub fn name(&self) -> &str {
        match self {
            Change::Rewrite { name, .. } | Change::Delete { name, .. } => name,
        }
    }
}

/// The changes a recipe asks of a model, and the functions it would need to see to be sure.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub changes: Vec<Change>,
    /// Functions the plan needs the text (or the end) of but has not seen.
    pub missing: BTreeSet<String>,
}

/// The code quoted in backticks in the rules (before the worked example).
fn quoted(statement: &str) -> Vec<&str> {
    let rules = statement.split("A worked example").next().unwrap_or(statement);
    rules.split('`').skip(1).step_by(2).collect()
}

/// The identifier at the start of `s` (`mult` of `mult: float`).
fn ident(s: &str) -> String {
    s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

impl Recipe {
    /// Read the statement's title (`Refactor `solution.py`: add a parameter.`) and the code its
    /// rules quote. `None` for a task these recipes do not know.
    pub fn read(statement: &str) -> Option<Recipe> {
        let title = statement.lines().next()?.to_lowercase();
        let q = quoted(statement);
        let find = |pred: &dyn Fn(&str) -> bool| q.iter().copied().find(|s| pred(s)).map(str::to_string);
        if title.contains("indexed values") {
            return Recipe::read_indexed(&title, &q, &Requirements::read(statement)?.values);
        }
        if title.starts_with("rename variables") {
            // "- `old` → `new`" lines, before the rules and the worked example.
            let head = statement.split("Rules:").next().unwrap_or(statement);
            let table: Vec<(String, String)> = head
                .lines()
                .filter_map(|l| {
                    let (a, b) = l.strip_prefix("- `")?.split_once("` → `")?;
                    Some((a.to_string(), b.strip_suffix('`')?.to_string()))
                })
                .collect();
            (!table.is_empty()).then_some(Recipe::Rename { table })
        } else if title.contains("dead code") {
            // "every call to a deleted function that is left (…) is replaced by `val`"
            let left = statement
                .find("is replaced by `")
                .and_then(|at| statement[at + "is replaced by `".len()..].split('`').next())
                .map(str::to_string);
            Some(Recipe::DeadCode { left })
        } else if title.contains("add a parameter") {
            // "already takes the parameter `mult: float=default()`"
            let at = statement.find("takes the parameter `")? + "takes the parameter `".len();
            let decl: String = statement[at..].split('`').next()?.to_string();
            let name = ident(&decl);
            let op = q
                .iter()
                .find_map(|s| s.strip_prefix(&format!("{name} ")).and_then(|r| r.strip_suffix(" X")))
                .unwrap_or("*")
                .to_string();
            (!name.is_empty()).then_some(Recipe::AddParameter { names: vec![name], decls: vec![decl], op })
        } else if title.contains("add a return value") {
            let lib = find(&|s| s.ends_with("()"))?.trim_end_matches("()").to_string();
            let annotation = find(&|s| s.starts_with("tuple["))?;
            // "`b_val, b_str = b(val)`": the unpacked key's suffix.
            let unpack = find(&|s| s.contains("_val, ") && s.contains(" = "))?;
            let key = unpack.split(", ").nth(1)?.split(' ').next()?.to_string();
            let callee = unpack.split(" = ").nth(1)?.split('(').next()?.to_string();
            let suffix = key.strip_prefix(&callee)?.to_string();
            Some(Recipe::AddReturnValue { lib, annotation, keys: Keys::PerCallee { suffix } })
        } else if title.contains("cache a function call") {
            let lib = find(&|s| s.ends_with("()") && !s.contains(' '))?.trim_end_matches("()").to_string();
            let line = find(&|s| s.ends_with(&format!(" = {lib}()")))?;
            let var = ident(&line);
            let decl = find(&|s| s.starts_with(&format!("{var}: ")) && s.contains('=') && !s.contains(" = "))?;
            Some(Recipe::CacheFunction { lib, vars: vec![var], lines: vec![line], decls: vec![decl], keywords: false })
        } else if title.contains("don't repeat yourself") || title.contains("do not repeat yourself") {
            let line = find(&|s| s.contains(": ") && s.contains(" = ") && s.ends_with("(val)"))?;
            let var = ident(&line);
            let helper = line.split(" = ").nth(1)?.split('(').next()?.to_string();
            let annotation = find(&|s| s.starts_with("tuple["))?;
            Some(Recipe::ExtractHelper { helper, vars: vec![var], lines: vec![line], annotation })
        } else {
            None
        }
    }

    /// The instruction-following versions: the kind's rules over the indexed `values` (`mult1` …),
    /// each name and line written from the first value's as the statement quotes it.
    fn read_indexed(title: &str, q: &[&str], values: &[String]) -> Option<Recipe> {
        let find = |pred: &dyn Fn(&str) -> bool| q.iter().copied().find(|s| pred(s)).map(str::to_string);
        let first = values.first()?;
        let starts = |s: &str| s.starts_with(&format!("{first}:"));
        // The first value's text, for value `i` (index `i + 1`).
        let each = |text: &str, index_from: &str, index_to: &dyn Fn(usize) -> String| -> Vec<String> {
            values
                .iter()
                .enumerate()
                .map(|(i, v)| text.replacen(first.as_str(), v, 1).replace(index_from, &index_to(i + 1)))
                .collect()
        };
        let n = values.len();
        if title.contains("add a parameter") {
            let decl = find(&|s| starts(s) && s.contains("default(1)"))?;
            let op = if find(&|s| s.ends_with(" * X") || s.ends_with(" + X"))?.ends_with(" + X") { "+" } else { "*" };
            Some(Recipe::AddParameter {
                names: values.to_vec(),
                decls: each(&decl, "default(1)", &|i| format!("default({i})")),
                op: op.into(),
            })
        } else if title.contains("add a return value") {
            let unpack = find(&|s| s.contains(" = ") && s.ends_with("(N)"))?;
            let lib = unpack.split(" = ").nth(1)?.split('(').next()?.to_string();
            let shape = find(&|s| s.starts_with("tuple["))?;
            let base = shape.strip_prefix("tuple[")?.split(',').next()?.trim().to_string();
            Some(Recipe::AddReturnValue {
                lib,
                annotation: format!("tuple[{base}{}]", ", str".repeat(n)),
                keys: Keys::Indexed { names: values.to_vec() },
            })
        } else if title.contains("cache a function call") {
            let line = find(&|s| starts(s) && s.contains(" = ") && s.ends_with("(1)"))?;
            let lib = line.split(" = ").nth(1)?.split('(').next()?.to_string();
            let decl = find(&|s| starts(s) && s.contains('=') && !s.contains(" = "))?;
            Some(Recipe::CacheFunction {
                lib,
                vars: values.to_vec(),
                lines: each(&line, "(1)", &|i| format!("({i})")),
                decls: values.iter().map(|v| decl.replacen(first.as_str(), v, 1)).collect(),
                keywords: true,
            })
        } else if title.contains("don't repeat yourself") || title.contains("do not repeat yourself") {
            let line = find(&|s| starts(s) && s.contains(" = ") && s.ends_with(", 1)"))?;
            let helper = line.split(" = ").nth(1)?.split('(').next()?.to_string();
            let shape = find(&|s| s.starts_with("tuple["))?;
            let parts: Vec<&str> = shape.strip_prefix("tuple[")?.strip_suffix(']')?.split(", ").collect();
            let (base, value) = (parts.first()?, parts.last()?);
            Some(Recipe::ExtractHelper {
                helper,
                vars: values.to_vec(),
                lines: each(&line, ", 1)", &|i| format!(", {i})")),
                annotation: format!("tuple[{base}{}]", format!(", {value}").repeat(n)),
            })
        } else {
            None
        }
    }

    /// The text one search finds the recipe's starting points by.
    pub fn anchor(&self) -> String {
        match self {
            Recipe::DeadCode { .. } | Recipe::Rename { .. } => "def main(".into(),
            Recipe::AddParameter { decls, .. } => decls.first().cloned().unwrap_or_default(),
            Recipe::AddReturnValue { lib, .. } => format!("{lib}("),
            Recipe::CacheFunction { lib, keywords: false, .. } => format!("{lib}()"),
            Recipe::CacheFunction { lib, .. } => format!("{lib}("),
            Recipe::ExtractHelper { helper, .. } => format!("{helper}("),
        }
    }

    /// The changes the recipe asks of what the model knows. `trust_defs`: the model's `def` lines
    /// are every top-level statement of the file (a strategy that listed them all), so a function
    /// ends where the next `def` starts even when its lines were not seen.
    /// `reqs`: the numbered requirements of the instructions axis, written into every function
    /// that carries the values, where the kind's values become available.
    pub fn plan(&self, m: &Model, sight: &Sight, trust_defs: bool, reqs: Option<&Requirements>) -> Plan {
        let mut plan = Plan { missing: m.unsure.clone(), ..Plan::default() };
        let lines = Lines { reqs, m };
        match self {
            Recipe::DeadCode { left } => dead_code(m, sight, trust_defs, left.as_deref(), &mut plan),
            Recipe::AddParameter { names, decls, op } => add_parameter(m, names, decls, op, &lines, &mut plan),
            Recipe::AddReturnValue { lib, annotation, keys } => {
                add_return_value(m, lib, annotation, keys, &lines, &mut plan)
            }
            Recipe::CacheFunction { lib, vars, lines: first, decls, keywords } => {
                cache_function(m, lib, vars, first, decls, *keywords, &lines, &mut plan)
            }
            Recipe::ExtractHelper { helper, vars, lines: first, annotation } => {
                extract_helper(m, helper, vars, first, annotation, &lines, &mut plan)
            }
            Recipe::Rename { table } => rename(m, table, &mut plan),
        }
        plan.changes.sort_by_key(|c| match c {
            Change::Rewrite { name, .. } => m.defs.get(name).copied().unwrap_or(0),
            Change::Delete { first, .. } => *first,
        });
        plan
    }
}

/// The comment every changed function must carry, when the statement gives one (the line after
/// "your comment is:" in its fenced block).
pub fn carried_comment(statement: &str) -> Option<String> {
    let at = statement.find("your comment is:")?;
    let block = statement[at..].split("```python\n").nth(1)?;
    let line = block.lines().next()?.trim();
    line.starts_with('#').then(|| line.to_string())
}

impl Plan {
    /// Put `comment` on the first line of every function the plan rewrites.
    pub fn with_comment(mut self, comment: Option<&str>) -> Plan {
        let Some(comment) = comment else { return self };
        for c in &mut self.changes {
            if let Change::Rewrite { new, .. } = c {
                let Some(eol) = new.find('\n') else { continue };
                let indent: String = new[eol + 1..].chars().take_while(|c| *c == ' ' || *c == '\t').collect();
                new.insert_str(eol + 1, &format!("{indent}{comment}\n"));
            }
        }
        self
    }
}

/// Text edits of one function: (start, end, replacement), applied from the end backwards.
#[derive(Default)]
struct Edits(Vec<(usize, usize, String)>);

impl Edits {
    fn insert(&mut self, at: usize, text: String) {
        self.0.push((at, at, text));
    }
    fn replace(&mut self, start: usize, end: usize, text: String) {
        self.0.push((start, end, text));
    }
    fn apply(mut self, text: &str) -> String {
        self.0.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        let mut out = text.to_string();
        for (s, e, t) in self.0 {
            if s <= e && e <= out.len() && out.is_char_boundary(s) && out.is_char_boundary(e) {
                out.replace_range(s..e, &t);
            }
        }
        out
    }
}

/// Add an argument before a call's closing parenthesis.
fn add_argument(e: &mut Edits, f: &Func, call_end: usize, arg: &str) {
    let close = call_end - 1;
    let before = f.text[..close].trim_end();
    let sep = if before.ends_with('(') || before.ends_with(',') { "" } else { ", " };
    e.insert(close, format!("{sep}{arg}"));
}

/// Add a parameter before the parameters' closing parenthesis.
fn add_parameter_decl(e: &mut Edits, f: &Func, decl: &str) {
    let before = f.text[..f.params_close].trim_end();
    let sep = if before.ends_with('(') || before.ends_with(',') { "" } else { ", " };
    e.insert(f.params_close, format!("{sep}{decl}"));
}

/// Set the return annotation.
fn annotate(e: &mut Edits, f: &Func, annotation: &str) {
    match f.returns {
        Some((s, t)) => e.replace(s, t, annotation.to_string()),
        None => e.insert(f.params_close + 1, format!(" -> {annotation}")),
    }
}

/// Delete a statement's whole line(s).
fn delete_statement(e: &mut Edits, f: &Func, start: usize, end: usize) {
    let from = f.text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = f.text[end..].find('\n').map_or(f.text.len(), |i| end + i + 1);
    e.replace(from, to, String::new());
}

/// The requirement lines a function gets (none outside the instructions axis).
struct Lines<'r> {
    reqs: Option<&'r Requirements>,
    m: &'r Model,
}

impl Lines<'_> {
    /// The block for `f`, indented as its body, each line ending in a newline (empty without
    /// requirements, and in `main()`, which never carries the values).
    fn block(&self, f: &Func) -> String {
        let Some(r) = self.reqs else { return String::new() };
        if f.name == "main" {
            return String::new();
        }
        let place =
            Place { name: &f.name, callees: self.m.callees(&f.name).len(), callers: self.m.callers(&f.name).len() };
        r.lines_for(&place).iter().map(|l| format!("{}{l}\n", f.indent)).collect()
    }
}

/// The start of the line holding byte `at` of a function's text.
fn line_start(f: &Func, at: usize) -> usize {
    f.text[..at.min(f.text.len())].rfind('\n').map_or(0, |i| i + 1)
}

/// The start of the line after the one holding byte `at`.
fn next_line(f: &Func, at: usize) -> usize {
    f.text[at.min(f.text.len())..].find('\n').map_or(f.text.len(), |i| at + i + 1)
}

fn rewrite(plan: &mut Plan, f: &Func, e: Edits) {
    let new = e.apply(&f.text);
    if new != f.text {
        plan.changes.push(Change::Rewrite { name: f.name.clone(), old: f.text.clone(), new });
    }
}

/// The functions of a set the model has seen whole, noting the others as missing.
fn seen<'m>(m: &'m Model, names: &BTreeSet<String>, plan: &mut Plan) -> Vec<&'m Func> {
    let mut out = Vec::new();
    for n in names {
        match m.funcs.get(n) {
            Some(f) => out.push(f),
            None => {
                plan.missing.insert(n.clone());
            }
        }
    }
    out
}

fn or_self(set: BTreeSet<String>, f: &str) -> BTreeSet<String> {
    let mut s = set;
    s.insert(f.to_string());
    s
}

fn dead_code(m: &Model, sight: &Sight, trust_defs: bool, left: Option<&str>, plan: &mut Plan) {
    if !m.funcs.contains_key("main") {
        plan.missing.insert("main".into());
        return;
    }
    // Reached by the calls of running branches, and by the conditions on the way to them.
    let mut reachable = or_self(m.descendants("main"), "main");
    loop {
        let more: BTreeSet<String> = m
            .guard_edges
            .iter()
            .filter(|(a, b)| reachable.contains(a) && !reachable.contains(b))
            .flat_map(|(_, b)| or_self(m.descendants(b), b))
            .collect();
        if more.is_empty() {
            break;
        }
        reachable.extend(more);
    }
    // A function reached only through functions not seen whole might look dead: note those.
    for r in &reachable {
        if !m.funcs.contains_key(r) {
            plan.missing.insert(r.clone());
        }
    }
    let def_lines: BTreeSet<usize> = m.defs.values().copied().collect();
    for (name, &line) in &m.defs {
        if reachable.contains(name) {
            continue;
        }
        let end = match sight.block(line) {
            Some((_, _, end)) => Some(end),
            None if trust_defs => def_lines.range(line + 1..).next().map(|next| next - 1),
            None => None,
        };
        match end {
            Some(last) => plan.changes.push(Change::Delete { name: name.clone(), first: line, last }),
            None => {
                plan.missing.insert(name.clone());
            }
        }
    }
    // Calls left to deleted functions (in branches that never run) become `left`.
    if let Some(left) = left {
        for f in m.funcs.values().filter(|f| reachable.contains(&f.name)) {
            let mut e = Edits::default();
            for c in f.all_calls.iter().filter(|c| m.defs.contains_key(&c.callee) && !reachable.contains(&c.callee)) {
                e.replace(c.start, c.end, left.to_string());
            }
            rewrite(plan, f, e);
        }
    }
}

fn add_parameter(m: &Model, names: &[String], decls: &[String], op: &str, lines: &Lines, plan: &mut Plan) {
    let Some(name) = names.first() else { return };
    let Some(root) = m.funcs.values().find(|f| f.params.iter().any(|p| p == name)) else {
        plan.missing.insert(format!("the function that takes {name}"));
        return;
    };
    let below = m.descendants(&root.name);
    let all = or_self(below.clone(), &root.name);
    let args: Vec<String> = names.iter().map(|n| format!("{n}={n}")).collect();
    let factors = names.join(&format!(" {op} "));
    for f in seen(m, &all, plan) {
        let mut e = Edits::default();
        if f.name != root.name && !f.params.iter().any(|p| p == name) {
            add_parameter_decl(&mut e, f, &decls.join(", "));
        }
        for c in f.calls.iter().filter(|c| below.contains(&c.callee)) {
            add_argument(&mut e, f, c.end, &args.join(", "));
        }
        let terminal = m.callees(&f.name).is_empty();
        if terminal && f.name != root.name {
            for &(s, t, compound) in &f.returns_values {
                let (open, close) = if compound { ("(", ")") } else { ("", "") };
                e.insert(t, close.to_string());
                e.insert(s, format!("{factors} {op} {open}"));
            }
        }
        // The values are parameters: the requirement lines open the body.
        let block = lines.block(f);
        if !block.is_empty() {
            e.insert(f.body_line, block);
        }
        rewrite(plan, f, e);
    }
}

fn add_return_value(m: &Model, lib: &str, annotation: &str, keys: &Keys, lines: &Lines, plan: &mut Plan) {
    let sinks: BTreeSet<String> = m.calling_library(lib).into_iter().map(str::to_string).collect();
    if sinks.is_empty() {
        plan.missing.insert(format!("the caller of {lib}()"));
        return;
    }
    let mut depend: BTreeSet<String> = sinks.clone();
    for s in &sinks {
        depend.extend(m.ancestors(s));
    }
    depend.remove("main");
    for f in seen(m, &depend, plan) {
        let mut e = Edits::default();
        annotate(&mut e, f, annotation);
        let is_sink = sinks.contains(&f.name);
        match keys {
            Keys::PerCallee { suffix } => {
                if !is_sink {
                    let mut key: Option<&str> = None;
                    for c in f.calls.iter().filter(|c| depend.contains(&c.callee)) {
                        if let Some(t) = c.target_end {
                            e.insert(t, format!(", {}{suffix}", c.callee));
                            key.get_or_insert(&c.callee);
                        }
                    }
                    if let Some(k) = key {
                        for &(s, t, _) in &f.returns_values {
                            e.insert(t, format!(", {k}{suffix})"));
                            e.insert(s, "(".into());
                        }
                    }
                }
            }
            Keys::Indexed { names } => {
                // The sink has its keys from the library; elsewhere the first dependent call
                // brings them, later ones are unpacked into `_`.
                let mut have = is_sink;
                for c in f.calls.iter().filter(|c| depend.contains(&c.callee)) {
                    if let Some(t) = c.target_end {
                        let targets: Vec<&str> =
                            if have { vec!["_"; names.len()] } else { names.iter().map(String::as_str).collect() };
                        e.insert(t, format!(", {}", targets.join(", ")));
                        have = true;
                    }
                }
                if have {
                    for &(s, t, _) in &f.returns_values {
                        e.insert(t, format!(", {})", names.join(", ")));
                        e.insert(s, "(".into());
                    }
                }
            }
        }
        // The keys are first used by the return: the requirement lines go right before it.
        let block = lines.block(f);
        if !block.is_empty() {
            for &(s, _, _) in &f.returns_values {
                e.insert(line_start(f, s), block.clone());
            }
        }
        rewrite(plan, f, e);
    }
}

#[allow(clippy::too_many_arguments)]
fn cache_function(
    m: &Model,
    lib: &str,
    vars: &[String],
    first_lines: &[String],
    decls: &[String],
    keywords: bool,
    lines: &Lines,
    plan: &mut Plan,
) {
    let callers: Vec<&str> = m.calling_library(lib);
    if callers.is_empty() {
        plan.missing.insert(format!("the callers of {lib}()"));
        return;
    }
    let up: Vec<BTreeSet<String>> = callers.iter().map(|c| or_self(m.ancestors(c), c)).collect();
    let mut common: BTreeSet<String> = up[0].clone();
    for u in &up[1..] {
        common = common.intersection(u).cloned().collect();
    }
    common.remove("main");
    // The lowest: no other common ancestor lies below it.
    let Some(lca) = common.iter().find(|x| !common.iter().any(|y| y != *x && m.ancestors(y).contains(*x))).cloned()
    else {
        plan.missing.insert(format!("a common ancestor of the callers of {lib}()"));
        return;
    };
    let upward: BTreeSet<String> = up.iter().flatten().cloned().collect();
    let way: BTreeSet<String> =
        upward.iter().filter(|f| **f != lca && m.ancestors(f).contains(&lca)).cloned().collect();
    let mut all = way.clone();
    all.insert(lca.clone());
    let passed: Vec<String> = vars.iter().map(|v| if keywords { format!("{v}={v}") } else { v.clone() }).collect();
    for f in seen(m, &all, plan) {
        let mut e = Edits::default();
        let block = lines.block(f);
        if f.name == lca {
            // The values first, then the requirement lines on them.
            let head: String = first_lines.iter().map(|l| format!("{}{l}\n", f.indent)).collect();
            e.insert(f.body_line, head + &block);
        } else {
            add_parameter_decl(&mut e, f, &decls.join(", "));
            if !block.is_empty() {
                e.insert(f.body_line, block);
            }
        }
        for c in &f.calls {
            if way.contains(&c.callee) {
                add_argument(&mut e, f, c.end, &passed.join(", "));
            } else if c.callee == lib {
                // `slow()` is the one value; `slow(I)` is value I.
                let inside = f.text[c.start..c.end].split_once('(').map_or("", |(_, r)| r.trim_end_matches(')').trim());
                let var = match inside.parse::<usize>() {
                    Ok(i) if i >= 1 && keywords => vars.get(i - 1),
                    _ => vars.first(),
                };
                if let Some(v) = var {
                    e.replace(c.start, c.end, v.clone());
                }
            }
        }
        rewrite(plan, f, e);
    }
}

fn rename(m: &Model, table: &[(String, String)], plan: &mut Plan) {
    use ruff_python_ast::visitor::{self, Visitor};
    struct Names<'t>(&'t [(String, String)], Vec<(usize, usize, String)>);
    impl<'a> Visitor<'a> for Names<'_> {
        fn visit_expr(&mut self, e: &'a ruff_python_ast::Expr) {
            if let ruff_python_ast::Expr::Name(n) = e {
                if let Some((_, new)) = self.0.iter().find(|(old, _)| old == n.id.as_str()) {
                    use ruff_text_size::Ranged;
                    self.1.push((n.start().into(), n.end().into(), new.clone()));
                }
            }
            visitor::walk_expr(self, e);
        }
    }
    let Some(f) = m.funcs.get("main") else {
        plan.missing.insert("main".into());
        return;
    };
    let Ok(program) = cabrito_check::program::Program::parse(&f.text) else { return };
    let mut names = Names(table, Vec::new());
    names.visit_body(program.body());
    let mut e = Edits::default();
    for (s, t, new) in names.1 {
        e.replace(s, t, new);
    }
    rewrite(plan, f, e);
}

fn extract_helper(
    m: &Model,
    helper: &str,
    vars: &[String],
    first_lines: &[String],
    annotation: &str,
    lines: &Lines,
    plan: &mut Plan,
) {
    let tops: Vec<&str> = m.calling_library(helper);
    if tops.is_empty() {
        plan.missing.insert(format!("the callers of {helper}()"));
        return;
    }
    let down: Vec<BTreeSet<String>> = tops.iter().map(|t| or_self(m.descendants(t), t)).collect();
    let mut common: BTreeSet<String> = down[0].clone();
    for d in &down[1..] {
        common = common.intersection(d).cloned().collect();
    }
    // The nearest: no other common descendant leads to it (the deeper ones all lie below it).
    let Some(ncd) = common.iter().find(|x| !common.iter().any(|y| y != *x && m.descendants(y).contains(*x))).cloned()
    else {
        plan.missing.insert(format!("a common descendant of the callers of {helper}()"));
        return;
    };
    // Functions known to be below some caller but whose callees are unknown make the answer unsure.
    for d in down.iter().flatten() {
        if !m.funcs.contains_key(d) {
            plan.missing.insert(d.clone());
        }
    }
    let reached: BTreeSet<String> = down.iter().flatten().cloned().collect();
    let between: BTreeSet<String> = reached.iter().filter(|f| m.descendants(f).contains(&ncd)).cloned().collect();
    let mut all = between.clone();
    all.insert(ncd.clone());
    let returning: BTreeSet<&String> = all.iter().collect();
    let var = vars.join(", ");
    for f in seen(m, &all, plan) {
        let mut e = Edits::default();
        let is_top = tops.contains(&f.name.as_str());
        let block = lines.block(f);
        if f.name != ncd {
            for c in f.calls.iter().filter(|c| returning.contains(&c.callee)) {
                if let Some(t) = c.target_end {
                    e.insert(t, format!(", {var}"));
                }
            }
            // The values arrive with the first unpack: the requirement lines follow it.
            let unpack = f.call_statements.iter().find(|s| returning.contains(&s.callee));
            if let (Some(s), false) = (unpack, block.is_empty()) {
                e.insert(next_line(f, s.end), block.clone());
            }
        } else {
            let head: String = first_lines.iter().map(|l| format!("{}{l}\n", f.indent)).collect();
            e.insert(f.body_line, head + &block);
        }
        if is_top {
            for s in f.call_statements.iter().filter(|s| s.callee == helper) {
                delete_statement(&mut e, f, s.start, s.end);
            }
        } else {
            annotate(&mut e, f, annotation);
            for &(s, t, _) in &f.returns_values {
                e.insert(t, format!(", {var})"));
                e.insert(s, "(".into());
            }
        }
        rewrite(plan, f, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sight_of(code: &str) -> Sight {
        let mut s = Sight::default();
        let n = code.lines().count();
        let mut view = format!("solution.py, lines 1-{n} of {n}:\n");
        for (i, l) in code.lines().enumerate() {
            view.push_str(&format!("{}: {l}\n", i + 1));
        }
        s.absorb(&view);
        s
    }

    #[test]
    fn renames_every_use_and_nothing_else() {
        let statement = "Rename variables in `solution.py`.\n\n`main(val)` computes its result through a chain of 3 assignments; each assignment defines a new variable. Rename these 2 variables:\n\n- `x1` → `total`\n- `x2` → `half`\n\nRules:\n1. Apply every rename everywhere.\n\nA worked example. This code:\n<example>\n- `q` → `r`\n</example>\n";
        let r = Recipe::read(statement).unwrap();
        assert_eq!(r, Recipe::Rename { table: vec![("x1".into(), "total".into()), ("x2".into(), "half".into())] });
        let code = "import sys\n\ndef main(val: float):\n    x1 = val + 2\n    x2 = x1 * x1 - 3\n    x12 = x2 / 2\n    return x12 + x1\n";
        let s = sight_of(code);
        let plan = r.plan(&Model::of(&s), &s, false, None);
        let [Change::Rewrite { new, .. }] = plan.changes.as_slice() else { panic!("{plan:?}") };
        assert_eq!(
            new,
            "def main(val: float):\n    total = val + 2\n    half = total * total - 3\n    x12 = half / 2\n    return x12 + total\n"
        );
    }

    #[test]
    fn the_given_comment_goes_on_every_changed_function() {
        let statement = "Refactor `solution.py`: add a parameter.\n\nOne more rule: ... your comment is:\n\n```python\n# keep the units in metres\n```\n\nA worked example.";
        assert_eq!(carried_comment(statement).as_deref(), Some("# keep the units in metres"));
        assert_eq!(carried_comment("Refactor `solution.py`: add a parameter."), None);
        let plan = Plan {
            changes: vec![Change::Rewrite {
                name: "f".into(),
                old: String::new(),
                new: "def f(val: float) -> float:\n    if check(1, 1, 1, 0, num_steps=1):\n        return val\n".into(),
            }],
            ..Plan::default()
        }
        .with_comment(Some("# c"));
        let [Change::Rewrite { new, .. }] = plan.changes.as_slice() else { panic!() };
        assert!(new.starts_with("def f(val: float) -> float:\n    # c\n    if check("), "{new}");
    }
}
