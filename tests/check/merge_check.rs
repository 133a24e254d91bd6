//! Mutants of merge reference solutions against the static rubric (the same check the grader runs as
//! `difference_blocks`): each fails for the right reason, naming the class, the method and the line;
//! variants the reference scorer accepts (docstrings, `pass`, `custom_compute_01`, helper methods)
//! pass.

use cabrito_check::rubric::{static_checks, Rubric, TaskRef};
use cabrito_gen::{generate, Kind, Task, TaskSpec};

pub fn spec(n: u32, d: u32, seed: u64) -> TaskSpec {
    TaskSpec { kind: Kind::MergeCodebases, n, d, seed, ..TaskSpec::default() }
}

fn rubric(t: &Task, code: &str) -> Rubric {
    static_checks(&TaskRef::of(t), code)
}

fn line_of(code: &str, needle: &str) -> usize {
    code[..code.find(needle).unwrap_or_else(|| panic!("no {needle:?}"))].matches('\n').count() + 1
}

/// The byte offset just after the line holding `needle` (first occurrence after `from`).
fn after_line(code: &str, from: usize, needle: &str) -> usize {
    let at = from + code[from..].find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    at + code[at..].find('\n').unwrap() + 1
}

/// Apply `f` to the text of one class (`class X(` to the next top-level statement).
fn in_class(code: &str, class: &str, f: impl Fn(&str) -> String) -> String {
    let start = code.find(&format!("\nclass {class}(")).unwrap() + 1;
    let end = code[start + 1..].find("\n\n\n").map(|e| start + 1 + e + 1).unwrap_or(code.len());
    format!("{}{}{}", &code[..start], f(&code[start..end]), &code[end..])
}

#[track_caller]
fn fails(t: &Task, code: &str, id: &str, reason: &str, line: Option<usize>) {
    let r = rubric(t, code);
    let item = r.item(id).unwrap_or_else(|| panic!("no {id}"));
    assert!(!item.passed && item.must_have, "{}: {id} passes\n{code}", t.spec);
    assert!(item.reason.contains(reason), "{}: {id}: {:?} does not say {reason:?}", t.spec, item.reason);
    if line.is_some() {
        assert_eq!(item.line, line, "{}: {id}: {}", t.spec, item.reason);
    }
    assert!(r.item("compilation").unwrap().passed, "{}: the mutant does not parse\n{code}", t.spec);
    assert!(!r.passed());
}

#[track_caller]
fn passes(t: &Task, code: &str) {
    let r = rubric(t, code);
    let bad: Vec<String> = r.failed_must_haves().map(|i| format!("{}: {}", i.id, i.reason)).collect();
    assert!(bad.is_empty(), "{}: {bad:?}\n{code}", t.spec);
}

fn tasks() -> Vec<Task> {
    [(5, 1, 0), (10, 1, 1), (25, 2, 2), (40, 3, 3), (60, 5, 4), (200, 1, 5), (120, 10, 6)]
        .iter()
        .map(|&(n, d, s)| generate(&spec(n, d, s)).unwrap())
        .collect()
}

#[test]
fn mutants_fail_difference_blocks_for_the_right_reason() {
    for t in tasks() {
        let r = &t.solution_code;
        passes(&t, r);
        let call = r.find("= self.custom_compute_1(").unwrap();
        let call_line_start = r[..call].rfind('\n').unwrap() + 1;
        let prev_line_start = r[..call_line_start - 1].rfind('\n').unwrap() + 1;
        let shared = &r[prev_line_start..call_line_start];
        assert!(shared.starts_with("        m") && !shared.contains("self."), "{shared}");

        // A shared line left in a child: CalculateA's custom method computes it again.
        let left = in_class(r, "CalculateA", |c| {
            let at = after_line(c, 0, "def custom_compute_1(");
            format!("{}{shared}{}", &c[..at], &c[at..])
        });
        let def_a = line_of(&left, "class CalculateA(") + 1;
        fails(&t, &left, "difference_blocks", "CalculateA.custom_compute_1", Some(def_a));
        fails(&t, &left, "difference_blocks", "has 2 statements", None);

        // Two statements in a custom method.
        let two = in_class(r, "CalculateB", |c| {
            let at = c.find("        return ").unwrap();
            let ret = &c[at..at + c[at..].find('\n').unwrap()];
            c.replacen(ret, &format!("        value = {}\n        return value", &ret["        return ".len()..]), 1)
        });
        let def_b = line_of(&two, "class CalculateB(") + 1;
        fails(&t, &two, "difference_blocks", "CalculateB.custom_compute_1", Some(def_b));
        fails(&t, &two, "difference_blocks", "has 2 statements; it must be a single return", None);

        // compute() redefined in a child (behaviour unchanged).
        let redefined = in_class(r, "CalculateA", |c| {
            format!("{c}\n    def compute(self, *args):\n        return super().compute(*args)\n")
        });
        let at = line_of(&redefined, "def compute(self, *args):\n        return super()");
        fails(
            &t,
            &redefined,
            "difference_blocks",
            &format!("CalculateA.compute (line {at}) is still defined"),
            Some(at),
        );

        // A custom method never called from Calculate.compute (reached through a helper instead).
        let hidden = r.replacen("= self.custom_compute_1(", "= self.helper(", 1).replacen(
            "    def compute(self, ",
            "    def helper(self, *args):\n        return self.custom_compute_1(*args)\n\n    def compute(self, ",
            1,
        );
        fails(&t, &hidden, "difference_blocks", "never calls self.custom_compute_1", None);

        // Called twice.
        let call_line = &r[call_line_start..call_line_start + r[call_line_start..].find('\n').unwrap()];
        let rhs = &call_line[call_line.find("self.").unwrap()..];
        let twice = r.replacen(call_line, &format!("{call_line} + 0 * {rhs}"), 1);
        let at = line_of(&twice, &format!("{call_line} + 0 *"));
        fails(&t, &twice, "difference_blocks", "2 times", Some(at));

        // A difference missing in one child, an extra one in the other.
        let missing = in_class(r, "CalculateB", |c| {
            let at = c.find("    def custom_compute_1(").unwrap();
            let end = c[at..].find("\n\n").map(|e| at + e + 1).unwrap_or(c.len());
            format!("{}    def other(self):\n        pass\n{}", &c[..at], &c[end..])
        });
        fails(&t, &missing, "difference_blocks", "CalculateB lacks custom_compute_1", None);
        let extra =
            in_class(r, "CalculateA", |c| format!("{c}\n    def custom_compute_99(self, x):\n        return x\n"));
        let at = line_of(&extra, "def custom_compute_99");
        fails(&t, &extra, "difference_blocks", &format!("defines custom_compute_99 (line {at})"), Some(at));

        // Not a subclass of Calculate; a class missing.
        let orphan = r.replacen("class CalculateB(Calculate):", "class CalculateB(ABC):", 1);
        fails(&t, &orphan, "difference_blocks", "CalculateB (line", Some(line_of(&orphan, "class CalculateB(")));
        let gone = in_class(r, "CalculateB", |_| String::new());
        fails(&t, &gone, "difference_blocks", "class CalculateB missing", None);

        // Only the three classes at module level.
        let helper_class = format!("{r}\n\nclass Helper:\n    pass\n");
        fails(
            &t,
            &helper_class,
            "merge_module_code",
            "a new class `Helper`",
            Some(line_of(&helper_class, "class Helper")),
        );
        let global = r.replacen("\n\nclass Calculate(ABC):", "\n\nSCALE = 1\n\n\nclass Calculate(ABC):", 1);
        fails(&t, &global, "merge_module_code", "module-level code `SCALE = 1`", Some(line_of(&global, "SCALE = 1")));
        let imported = format!("import math\n{r}");
        fails(&t, &imported, "no_new_imports", "math", Some(1));

        // What the reference scorer accepts: docstrings, `pass`, leading zeros, helper methods.
        let doc = in_class(r, "CalculateA", |c| {
            let at = after_line(c, 0, "def custom_compute_1(");
            format!("{}        \"\"\"The differing line.\"\"\"\n        pass\n{}", &c[..at], &c[at..])
        });
        passes(&t, &doc);
        passes(&t, &r.replace("custom_compute_1(", "custom_compute_01("));
        let helper = r.replacen(
            "    def compute(self, ",
            "    def describe(self):\n        return 'a calculator'\n\n    def compute(self, ",
            1,
        );
        passes(&t, &helper);
    }
}

#[test]
fn the_starter_fails_naming_every_leftover_compute() {
    for t in tasks() {
        let r = rubric(&t, &t.starter_code);
        let item = r.item("difference_blocks").unwrap();
        assert!(!item.passed);
        let a = line_of(&t.starter_code, "class CalculateA(") + 1;
        assert_eq!(item.line, Some(a), "{}", item.reason);
        assert!(item.reason.starts_with(&format!("CalculateA.compute (line {a}) is still defined")), "{}", item.reason);
    }
}

#[test]
fn the_largest_tasks_are_checked_too() {
    // Long programs have hundreds of leaves; the return stays shallow enough for the checker's parser.
    for (n, d, seed) in [(1000, 1, 1), (2000, 10, 2)] {
        let t = generate(&spec(n, d, seed)).unwrap();
        passes(&t, &t.solution_code);
        let r = rubric(&t, &t.starter_code);
        assert!(!r.item("difference_blocks").unwrap().passed, "{}", t.spec);
        assert!(r.item("compilation").unwrap().passed, "{}", t.spec);
    }
}
