//! `function_existence`, the reference's dead-code criterion (grading.md §4.2), computed once for both
//! the static rubric (`check::rubric`) and the behavioural grader's check list (`grade::verdict`).
//!
//! Sets of top-level `def` names (not async): must-have = the reference's; cannot-have = the starter's
//! less the reference's; anything else is an extra. It fails on a missing, forbidden or extra function,
//! and then on any module-level assignment to a plain name (global variables).

use super::program::Program;
use cabrito_gen::words::count;

/// What `function_existence` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Existence {
    /// Reference functions the candidate lacks.
    pub missing: Vec<String>,
    /// Functions the task removes that the candidate still defines.
    pub forbidden: Vec<String>,
    /// Functions neither the starter nor the reference has.
    pub extra: Vec<String>,
    /// Module-level assignments to a plain name: `(name, line)`.
    pub assignments: Vec<(String, usize)>,
    /// How many functions the reference keeps, and how many of the starter's it removes.
    pub kept: usize,
    pub removed: usize,
    /// The candidate line the first problem is on.
    pub line: Option<usize>,
}

/// Apply the rule to three programs.
pub fn function_existence(starter: &Program, reference: &Program, candidate: &Program) -> Existence {
    let s_start = starter.function_names();
    let s_sol = reference.function_names();
    let s_cand = candidate.function_names();
    let owned = |v: Vec<&str>| -> Vec<String> { v.into_iter().map(str::to_string).collect() };
    let missing = owned(s_sol.difference(&s_cand).copied().collect());
    let forbidden = owned(s_cand.iter().filter(|n| s_start.contains(*n) && !s_sol.contains(*n)).copied().collect());
    let extra = owned(s_cand.iter().filter(|n| !s_start.contains(*n) && !s_sol.contains(*n)).copied().collect());
    let assignments = candidate.module_assignments();
    let line = forbidden
        .first()
        .or(extra.first())
        .and_then(|n| candidate.function(n))
        .map(|f| candidate.line_of(f))
        .or_else(|| if missing.is_empty() { assignments.first().map(|a| a.1) } else { None });
    Existence {
        missing,
        forbidden,
        extra,
        assignments,
        kept: s_sol.len(),
        removed: s_start.difference(&s_sol).count(),
        line,
    }
}

impl Existence {
    /// Do the function sets match the rule (before module-level assignments are looked at)?
    pub fn sets_match(&self) -> bool {
        self.missing.is_empty() && self.forbidden.is_empty() && self.extra.is_empty()
    }

    pub fn passed(&self) -> bool {
        self.sets_match() && self.assignments.is_empty()
    }

    /// One line saying why it passed or failed.
    pub fn message(&self) -> String {
        if !self.sets_match() {
            let mut parts = Vec::new();
            if !self.forbidden.is_empty() {
                parts.push(format!(
                    "{} still defined: {}",
                    count(self.forbidden.len(), "function that must go is", "functions that must go are"),
                    list(&self.forbidden)
                ));
            }
            if !self.missing.is_empty() {
                parts.push(format!(
                    "{} missing: {}",
                    count(self.missing.len(), "function that must stay is", "functions that must stay are"),
                    list(&self.missing)
                ));
            }
            if !self.extra.is_empty() {
                parts.push(format!(
                    "{}: {}",
                    count(self.extra.len(), "unknown function", "unknown functions"),
                    list(&self.extra)
                ));
            }
            return parts.join("; ");
        }
        if let Some((name, line)) = self.assignments.first() {
            let more = match self.assignments.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            return format!(
                "module-level assignment to `{name}` (line {line}){more}: global variables are not allowed"
            );
        }
        format!(
            "the {} functions the reference keeps are there{}, nothing else, and no module-level assignments",
            self.kept,
            if self.removed > 0 { format!(", the {} it removes are gone", self.removed) } else { String::new() }
        )
    }
}

/// `` `a`, `b`, `c` and 4 more ``
fn list(names: &[String]) -> String {
    const SHOWN: usize = 6;
    let shown: Vec<String> = names.iter().take(SHOWN).map(|n| format!("`{n}`")).collect();
    let mut s = shown.join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const STARTER: &str = "def a():\n    pass\n\ndef dead():\n    pass\n\ndef main():\n    a()\n";
    const REFERENCE: &str = "def a():\n    pass\n\ndef main():\n    a()\n";

    fn run(candidate: &str) -> Existence {
        let (s, r) = (Program::read(STARTER).unwrap(), Program::read(REFERENCE).unwrap());
        function_existence(&s, &r, &Program::read(candidate).unwrap())
    }

    #[test]
    fn the_reference_rule() {
        assert!(run(REFERENCE).passed());
        assert!(run(REFERENCE).message().contains("the 1 it removes are gone"));
        let left = run(STARTER);
        assert!(!left.passed() && left.forbidden == ["dead"] && left.line == Some(4), "{left:?}");
        assert!(left.message().contains("`dead`"));
        let missing = run("def main():\n    a()\n");
        assert_eq!(missing.missing, ["a"]);
        assert!(missing.message().contains("must stay is missing: `a`"));
        let extra = run("def a():\n    pass\n\ndef main():\n    a()\n\ndef b():\n    pass\n");
        assert_eq!((extra.extra.clone(), extra.line), (vec!["b".to_string()], Some(7)));
        let global = run("X = 1\ndef a():\n    pass\n\ndef main():\n    a()\n");
        assert!(!global.passed() && global.line == Some(1));
        assert!(global.message().contains("`X` (line 1)"), "{}", global.message());
    }
}
