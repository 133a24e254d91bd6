//! Mutation tests of the static rubric: small wrong edits of the reference solution must each fail, for
//! the right reason (the failing must-have item's id), with a line that points at the edit.

use cabrito_check::response::parse_response;
use cabrito_check::rubric::{static_checks, Rubric, TaskRef};
use cabrito_gen::{generate, Axis, Domain, Kind, Task, TaskSpec};

fn task(kind: Kind, domain: Domain, seed: u64) -> Task {
    generate(&TaskSpec::new(kind, domain, Axis::Traversal, 10, seed)).unwrap()
}

fn task_ref(t: &Task) -> TaskRef<'_> {
    TaskRef::of(t)
}

fn show(r: &Rubric) -> String {
    r.items
        .iter()
        .map(|i| format!("{} {} {:?} {}", if i.passed { "✓" } else { "✗" }, i.id, i.line, i.reason))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Assert that `code` fails must-have `id` (and so the rubric), returning the item's line.
#[track_caller]
fn fails(t: &Task, code: &str, id: &str) -> Option<usize> {
    let r = static_checks(&task_ref(t), code);
    let item = r.item(id).unwrap_or_else(|| panic!("no item {id}\n{}", show(&r)));
    assert!(item.must_have && !item.passed, "{:?}: expected {id} to fail\n{}\n---\n{code}", t.spec, show(&r));
    if id != "compilation" {
        assert!(r.item("compilation").unwrap().passed, "{:?}: the mutant does not parse\n{}", t.spec, show(&r));
    }
    assert!(!r.passed());
    item.line
}

/// Top-level function names of a program in file order.
fn defs(code: &str) -> Vec<String> {
    code.lines().filter_map(|l| l.strip_prefix("def ")).map(|l| l[..l.find('(').unwrap()].to_string()).collect()
}

/// The byte range of a top-level function's block (up to the next blank line).
fn block(code: &str, name: &str) -> std::ops::Range<usize> {
    let start = code.find(&format!("\ndef {name}(")).unwrap() + 1;
    let end = code[start..].find("\n\n").map(|e| start + e + 2).unwrap_or(code.len());
    start..end
}

fn line_of(code: &str, needle: &str) -> usize {
    code[..code.find(needle).unwrap()].matches('\n').count() + 1
}

fn seeds() -> impl Iterator<Item = (Domain, u64)> {
    Domain::ALL.iter().flat_map(|&d| [3u64, 17, 99].into_iter().map(move |s| (d, s)))
}

#[test]
fn every_kind_common_mutations() {
    // The call-graph kinds (merge's mutations: tests/check/merge_check.rs).
    for &kind in Kind::ALL.iter().filter(|k| k.def().graph().is_some()) {
        for (domain, seed) in seeds() {
            if !kind.def().domains().allows(&domain) {
                continue;
            }
            let t = task(kind, domain, seed);
            let r = &t.solution_code;
            assert!(static_checks(&task_ref(&t), r).passed(), "{:?}", t.spec);

            // An empty file: nothing of the reference exists (D6).
            fails(&t, "", "no_missing_functions");
            fails(&t, "# nothing to see\n", "no_missing_functions");

            // An extra top-level helper.
            let extra = format!("{r}\n\ndef helper(val):\n    return val\n");
            assert_eq!(fails(&t, &extra, "no_new_functions"), Some(line_of(&extra, "def helper")));

            // A new import.
            let imp = format!("import functools\n{r}");
            assert_eq!(fails(&t, &imp, "no_new_imports"), Some(1));
            let inner = r.replacen("    return ", "    import os\n    return ", 1);
            assert_eq!(fails(&t, &inner, "no_new_imports"), Some(line_of(&inner, "import os")));

            // A module global (the reference's dead-code rule flags it too).
            let glob = r.replacen("\ndef ", "\nCACHE = {}\n\ndef ", 1);
            assert_eq!(fails(&t, &glob, "no_module_names"), Some(line_of(&glob, "CACHE")));
            let r2 = static_checks(&task_ref(&t), &glob);
            assert!(!r2.item("function_existence").unwrap().passed);
            let global = r.replacen("    return ", "    global seen\n    return ", 1);
            fails(&t, &global, "no_module_names");

            // The main guard changed.
            let guard = r.replace("if __name__ == '__main__':", "if __name__ == '__main__' and len(sys.argv) > 1:");
            assert_ne!(&guard, r);
            assert_eq!(fails(&t, &guard, "main_guard_unchanged"), Some(line_of(&guard, "if __name__")));
            let no_guard = &r[..r.find("if __name__").unwrap()];
            fails(&t, no_guard, "main_guard_unchanged");

            // A syntax error on line 3 (lines 1 and 2 are imports in every domain; variable_renaming's
            // line 3 is its def).
            let mut lines: Vec<&str> = r.lines().collect();
            lines[2] = "def broken(:";
            let broken = lines.join("\n");
            assert_eq!(fails(&t, &broken, "compilation"), Some(3));
            let rb = static_checks(&task_ref(&t), &broken);
            assert!(rb.item("compilation").unwrap().reason.contains("syntax error"), "{}", show(&rb));
            assert!(rb.items.iter().skip(1).all(|i| !i.passed && i.reason.contains("does not parse")));

            // A kind whose one function is main() (variable_renaming) has no main_unchanged item and
            // no other function to rename or define twice.
            if kind.def().grades_main() {
                assert!(static_checks(&task_ref(&t), r).item("main_unchanged").is_none());
                continue;
            }

            // main() changed.
            let main = block(r, "main");
            let mut m = r.clone();
            m.replace_range(main.clone(), &r[main].replacen("return ", "return None or ", 1));
            fails(&t, &m, "main_unchanged");

            // A function renamed (and its callers).
            let victim = defs(r).into_iter().find(|n| n != "main").unwrap();
            let renamed = r.replace(&format!("def {victim}("), &format!("def {victim}_renamed("));
            let line = fails(&t, &renamed, "function_names");
            assert_eq!(line, Some(line_of(&renamed, &format!("def {victim}_renamed("))));
            fails(&t, &renamed, "no_missing_functions");

            // Defined twice.
            let b = block(r, &victim);
            let twice = format!("{r}\n{}", &r[b]);
            fails(&t, &twice, "no_new_functions");
        }
    }
}

#[test]
fn file_block_marker_without_content_is_a_response_error() {
    let t = task(Kind::AddParameter, Domain::Math, 1);
    let e = parse_response("<solution>\n# === solution.py ===\n</solution>", &t.starter_code).unwrap_err();
    assert_eq!(e.line, Some(2));
    assert!(e.to_string().contains("no code"), "{e}");
    let e = parse_response("Sure!\n# === solution.py ===\n```python\n```\n", &t.starter_code).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn dead_code_mutations() {
    for (domain, seed) in seeds() {
        let t = task(Kind::DeadCode, domain, seed);
        let (s, r) = (&t.starter_code, &t.solution_code);
        let live = defs(r);
        let mut dead: Vec<String> = defs(s).into_iter().filter(|n| !live.contains(n)).collect();
        dead.sort();
        assert!(!dead.is_empty());

        // One dead function left: take the reference and add one dead block back.
        let b = block(s, &dead[0]);
        let left = format!("{r}\n{}", &s[b]);
        let line = fails(&t, &left, "function_existence");
        assert_eq!(line, Some(line_of(&left, &format!("def {}(", dead[0]))));
        let rl = static_checks(&task_ref(&t), &left);
        assert!(rl.item("function_existence").unwrap().reason.contains(&format!("`{}`", dead[0])));
        assert!(rl.item("no_new_functions").unwrap().passed, "a dead function left is not a new one");

        // One live function removed.
        let victim = live.iter().find(|n| *n != "main").unwrap();
        let mut removed = r.clone();
        removed.replace_range(block(r, victim), "");
        fails(&t, &removed, "function_existence");
        let rr = static_checks(&task_ref(&t), &removed);
        let item = rr.item("no_missing_functions").unwrap();
        assert!(!item.passed && item.reason.contains(&format!("`{victim}`")), "{}", item.reason);

        // The starter itself: every dead function is named.
        let st = static_checks(&task_ref(&t), s);
        let fe = st.item("function_existence").unwrap();
        assert!(dead.iter().take(6).all(|d| fe.reason.contains(&format!("`{d}`"))), "{}", fe.reason);
    }
}

#[test]
fn add_parameter_mutations() {
    for (domain, seed) in seeds() {
        let t = task(Kind::AddParameter, domain, seed);
        let r = &t.solution_code;
        let p = if domain == Domain::String { "prefix: str=default()" } else { "mult: float=default()" };
        let bare = p.trim_end_matches("=default()");
        // A missing default in one function.
        let m = r.replacen(p, bare, 1);
        assert_eq!(fails(&t, &m, "required_parameter"), Some(line_of(&m, bare)));
        // A wrong default.
        let wrong = r.replacen("=default()", "=1", 1);
        fails(&t, &wrong, "required_parameter");
        // The parameter added to a function the reference leaves alone.
        let plain = defs(r).into_iter().find(|n| n != "main" && !r[block(r, n)].contains(p)).unwrap();
        let extra = fix_signature(r, &plain, p);
        let line = fails(&t, &extra, "required_parameter");
        assert_eq!(line, Some(line_of(&extra, &format!("def {plain}("))));
        // Dropped from one function entirely.
        let gone = r.replacen(&format!(", {p}"), "", 1);
        fails(&t, &gone, "required_parameter");
    }
}

/// Append `param` to `name`'s parameter list (after `val: T`).
fn fix_signature(code: &str, name: &str, param: &str) -> String {
    let start = code.find(&format!("\ndef {name}(val")).unwrap() + 1;
    let close = start + code[start..].find(") ->").unwrap();
    let mut out = code.to_string();
    if !code[start..close].contains(param) {
        out.insert_str(close, &format!(", {param}"));
    }
    out
}

#[test]
fn cache_function_mutations() {
    for (domain, seed) in seeds() {
        let t = task(Kind::CacheFunction, domain, seed);
        let r = &t.solution_code;
        let (p, d) = if domain == Domain::String { ("temp: str", "''") } else { ("temp: float", "0.0") };
        let full = format!("{p}={d}");
        assert!(r.contains(&full), "{r}");
        // Missing default.
        let m = r.replacen(&full, p, 1);
        fails(&t, &m, "required_parameter");
        // `temp` passed one level too high: a function that the reference leaves alone gains it.
        let plain = defs(r).into_iter().find(|n| n != "main" && !r[block(r, n)].contains("temp")).unwrap();
        let higher = fix_signature(r, &plain, &full);
        let line = fails(&t, &higher, "required_parameter");
        assert_eq!(line, Some(line_of(&higher, &format!("def {plain}("))));
    }
}

#[test]
fn return_value_mutations() {
    for kind in [Kind::AddReturnValue, Kind::ExtractHelper] {
        for (domain, seed) in seeds() {
            let t = task(kind, domain, seed);
            let r = &t.solution_code;
            let ty = match domain {
                Domain::Math => "float",
                Domain::String => "str",
                Domain::Array => "np.ndarray",
            };
            let h = match (kind, domain) {
                (Kind::AddReturnValue, _) => "str",
                (_, Domain::String) => "str",
                _ => "float",
            };
            let tuple = format!("-> tuple[{ty}, {h}]:");
            assert!(r.contains(&tuple), "{kind} {domain}\n{r}");
            // One annotation left as in the starter.
            let m = r.replacen(&tuple, &format!("-> {ty}:"), 1);
            let line = fails(&t, &m, "return_annotations");
            assert_eq!(line, Some(line_of(r, &tuple)));
            // A tuple annotation on a function that keeps its type in the reference.
            let plain = defs(r).into_iter().find(|n| n != "main" && !r[block(r, n)].contains("tuple[")).unwrap();
            let b = block(r, &plain);
            let mut extra = r.clone();
            extra.replace_range(b.clone(), &r[b].replacen(&format!("-> {ty}:"), &tuple, 1));
            fails(&t, &extra, "return_annotations");
        }
    }
}

/// The name of the top-level function whose block contains `needle`.
fn function_containing(code: &str, needle: &str) -> String {
    let at = code.find(needle).unwrap();
    let start = code[..at].rfind("\ndef ").unwrap() + 5;
    code[start..start + code[start..].find('(').unwrap()].to_string()
}

/// Functions whose body calls `name(`.
fn callers(code: &str, name: &str) -> Vec<String> {
    defs(code).into_iter().filter(|f| f != name && code[block(code, f)].contains(&format!(" {name}(val"))).collect()
}

/// Functions that `name`'s body calls.
fn callees(code: &str, name: &str) -> Vec<String> {
    let body = &code[block(code, name)];
    defs(code).into_iter().filter(|f| f != name && body.contains(&format!(" {f}(val"))).collect()
}

/// Insert `line` as the first statement of function `name`.
fn insert_first(code: &str, name: &str, line: &str) -> String {
    let b = block(code, name);
    let body_start = b.start + code[b.clone()].find(":\n").unwrap() + 2;
    let mut out = code.to_string();
    out.insert_str(body_start, &format!("    {line}\n"));
    out
}

#[test]
fn missing_keyword_pass() {
    for (domain, seed) in seeds() {
        let t = task(Kind::AddParameter, domain, seed);
        let r = &t.solution_code;
        let kw = if domain == Domain::String { ", prefix=prefix)" } else { ", mult=mult)" };
        let Some(at) = r.find(kw) else { continue };
        let m = format!("{}){}", &r[..at], &r[at + kw.len()..]);
        let line = fails(&t, &m, "parameter_passed");
        assert_eq!(line, Some(r[..at].matches('\n').count() + 1));
        // The required parameter itself is still there: only the passing item fails.
        assert!(static_checks(&task_ref(&t), &m).item("required_parameter").unwrap().passed);
    }
}

#[test]
fn slow_called_at_a_higher_ancestor() {
    for (domain, seed) in seeds() {
        let t = task(Kind::CacheFunction, domain, seed);
        let r = &t.solution_code;
        let ty = if domain == Domain::String { "str" } else { "float" };
        let stmt = format!("temp: {ty} = slow()");
        let lca = function_containing(r, &stmt);
        let ups = callers(r, &lca);
        let Some(up) = ups.iter().find(|f| *f != "main").or(ups.first()).cloned() else { continue };
        // The cache moves from the LCA to its caller, which hands it down.
        let moved = r.replacen(&format!("    {stmt}\n"), "", 1);
        let moved = insert_first(&moved, &up, &stmt);
        let moved = fix_signature(&moved, &lca, &format!("temp: {ty}={}", if ty == "str" { "''" } else { "0.0" }));
        let moved = moved.replacen(&format!(" {lca}(val)"), &format!(" {lca}(val, temp)"), 1);
        let line = fails(&t, &moved, "library_calls");
        let lines = [line_of(&moved, &stmt), line_of(&moved, &format!("def {lca}("))];
        assert_eq!(line, lines.iter().min().copied(), "{moved}");
        let rr = static_checks(&task_ref(&t), &moved);
        let reason = &rr.item("library_calls").unwrap().reason;
        assert!(reason.contains(&format!("`{up}` calls `slow()` once")), "{reason}");
        assert!(reason.contains(&format!("`{lca}` should call `slow()` once")), "{reason}");
        fails(&t, &moved, "required_parameter");
        fails(&t, &moved, "parameter_passed");
        // A second slow() call anywhere else.
        let other = defs(r).into_iter().find(|f| f != "main" && *f != lca).unwrap();
        let twice = insert_first(r, &other, "_ = slow()");
        fails(&t, &twice, "library_calls");
    }
}

#[test]
fn helper_moved_too_deep() {
    for (domain, seed) in seeds() {
        let t = task(Kind::ExtractHelper, domain, seed);
        let r = &t.solution_code;
        let h = if domain == Domain::String { "get_key" } else { "get_multiplier" };
        let stmt_at = r.find(&format!(" = {h}(val)")).unwrap();
        let line_start = r[..stmt_at].rfind('\n').unwrap() + 1;
        let stmt = r[line_start..stmt_at + format!(" = {h}(val)").len()].trim().to_string();
        let ncd = function_containing(r, &stmt);
        let Some(deeper) = callees(r, &ncd).into_iter().next() else { continue };
        let moved = r.replacen(&format!("    {stmt}\n"), "", 1);
        let moved = insert_first(&moved, &deeper, &stmt);
        let line = fails(&t, &moved, "library_calls");
        assert!(line.is_some());
        let rr = static_checks(&task_ref(&t), &moved);
        let reason = &rr.item("library_calls").unwrap().reason;
        assert!(reason.contains(&format!("`{ncd}`")) && reason.contains(&format!("`{deeper}`")), "{reason}");
    }
}
