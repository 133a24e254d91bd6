//! `navigator`: list the `def` lines (a search, paged), start from what the statement names and
//! follow calls: down by viewing one function at a time, up by searching for `name(`. Then edit
//! the functions the statement's rules touch, viewing any it still lacks, check and submit.

use super::know::{calls_name, def_name, Func, Model, Sight};
use super::recipe::{carried_comment, Recipe};
use super::requirements::Requirements;
use crate::aci::Tools;
use std::collections::{BTreeSet, VecDeque};

/// Rounds of "view what the plan still lacks" before editing anyway.
const ROUNDS: usize = 4;

struct Nav<'t, 'a> {
    tools: &'t mut Tools<'a>,
    sight: Sight,
}

impl Nav<'_, '_> {
    /// Every hit of a search, following its continuation.
    fn search_all(&mut self, pattern: &str) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        let mut from = None;
        loop {
            let reply = self.tools.search(pattern, from);
            self.sight.absorb(&reply);
            out.extend(Sight::hits(&reply));
            match Sight::continuation(&reply) {
                Some(next) if Some(next) != from && !self.tools.ended() => from = Some(next),
                _ => return out,
            }
        }
    }

    /// The function whose `def` is the last one at or before `line`.
    fn enclosing(&self, line: usize) -> Option<String> {
        self.sight.defs().into_iter().filter(|(_, l)| *l <= line).max_by_key(|(_, l)| *l).map(|(n, _)| n)
    }

    /// See a function whole: view from its `def` to the line before the next one, a window at a time.
    fn ensure(&mut self, name: &str) {
        let defs = self.sight.defs();
        let Some(&line) = defs.get(name) else { return };
        let next_def = defs.values().copied().filter(|l| *l > line).min();
        let w = self.tools.window().max(1);
        let mut start = line;
        while self.sight.function_text(line).is_none() && !self.tools.ended() {
            if self.sight.total.is_some_and(|t| start > t) {
                return;
            }
            let end = match next_def {
                Some(n) if n > start => (n - 1).min(start + w - 1),
                _ => start + w - 1,
            };
            let reply = self.tools.view(start, end);
            if !reply.starts_with("solution.py, lines") {
                return;
            }
            self.sight.absorb(&reply);
            start = end + 1;
        }
    }

    /// The functions of the file a function seen whole calls.
    fn callees(&self, f: &str) -> Vec<String> {
        let defs = self.sight.defs();
        let Some(&line) = defs.get(f) else { return Vec::new() };
        let Some(func) = self.sight.function_text(line).and_then(|t| Func::parse(&t, line)) else { return Vec::new() };
        func.callee_names().into_iter().filter(|c| defs.contains_key(*c)).map(str::to_string).collect()
    }

    /// Follow calls down from `roots`, seeing each function reached.
    fn down(&mut self, roots: &[String]) {
        let mut queue: VecDeque<String> = roots.iter().cloned().collect();
        let mut done = BTreeSet::new();
        while let Some(f) = queue.pop_front() {
            if !done.insert(f.clone()) || self.tools.ended() {
                continue;
            }
            self.ensure(&f);
            for c in self.callees(&f) {
                if !done.contains(&c) {
                    queue.push_back(c);
                }
            }
        }
    }

    /// Follow calls up from `starts`: search for `name(` and note who calls it.
    fn up(&mut self, starts: &[String]) {
        let mut queue: VecDeque<String> = starts.iter().cloned().collect();
        let mut done = BTreeSet::new();
        while let Some(f) = queue.pop_front() {
            if f == "main" || !done.insert(f.clone()) || self.tools.ended() {
                continue;
            }
            for (line, text) in self.search_all(&format!("{f}(")) {
                if !calls_name(&text, &f) {
                    continue;
                }
                let Some(caller) = self.enclosing(line) else { continue };
                if caller != f {
                    self.sight.edges.insert((caller.clone(), f.clone()));
                    queue.push_back(caller);
                }
            }
        }
    }

    /// The functions holding the hits of a search.
    fn holders(&mut self, pattern: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (line, text) in self.search_all(pattern) {
            if def_name(&text).is_some() && !pattern.contains(':') {
                continue;
            }
            if let Some(f) = self.enclosing(line) {
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        out
    }
}

pub fn run(tools: &mut Tools, statement: &str) {
    if super::merge::is_merge(statement) {
        // The classes found by search; the two subclasses read whole, up to the main guard.
        let mut nav = Nav { tools, sight: Sight::default() };
        let classes = nav.search_all("class Calculate");
        let guard = nav.search_all("if __name__");
        let first = classes.iter().find(|(_, t)| t.starts_with("class CalculateA")).map(|(l, _)| *l);
        let last = guard.first().map(|(l, _)| l.saturating_sub(1));
        if let (Some(first), Some(last)) = (first, last) {
            let w = nav.tools.window().max(1);
            let mut start = first;
            while start <= last && !nav.tools.ended() {
                let end = last.min(start + w - 1);
                let reply = nav.tools.view(start, end);
                nav.sight.absorb(&reply);
                start = end + 1;
            }
        }
        super::merge::run(nav.tools, &nav.sight);
        return;
    }
    let Some(recipe) = Recipe::read(statement) else {
        tools.lint();
        tools.submit();
        return;
    };
    let reqs = Requirements::read(statement);
    let mut nav = Nav { tools, sight: Sight::default() };
    // The index: every def line.
    nav.search_all("def ");
    match &recipe {
        Recipe::Rename { .. } => nav.ensure("main"),
        Recipe::DeadCode { .. } => nav.down(&["main".to_string()]),
        Recipe::AddParameter { .. } => {
            let roots = nav.holders(&recipe.anchor());
            nav.down(&roots);
        }
        Recipe::ExtractHelper { helper, .. } => {
            let tops = nav.holders(&format!("{helper}("));
            nav.down(&tops);
        }
        Recipe::AddReturnValue { lib, .. } => {
            let sinks = nav.holders(&format!("{lib}("));
            for s in &sinks {
                nav.ensure(s);
            }
            nav.up(&sinks);
        }
        Recipe::CacheFunction { .. } => {
            let callers = nav.holders(&recipe.anchor());
            for c in &callers {
                nav.ensure(c);
            }
            nav.up(&callers);
        }
    }
    // View whatever the plan still lacks (the functions it will rewrite), a few rounds at most.
    let mut plan = recipe.plan(&Model::of(&nav.sight), &nav.sight, true, reqs.as_ref());
    for _ in 0..ROUNDS {
        let defs = nav.sight.defs();
        let lacking: Vec<String> = plan.missing.iter().filter(|m| defs.contains_key(*m)).cloned().collect();
        if lacking.is_empty() || nav.tools.ended() {
            break;
        }
        let before = nav.tools.calls();
        for f in &lacking {
            nav.ensure(f);
        }
        if matches!(recipe, Recipe::ExtractHelper { .. }) {
            nav.down(&lacking);
        }
        plan = recipe.plan(&Model::of(&nav.sight), &nav.sight, true, reqs.as_ref());
        if nav.tools.calls() == before {
            break;
        }
    }
    // A requirement that depends on a function's callers: search for who calls each changed one.
    if reqs.as_ref().is_some_and(Requirements::needs_callers) {
        let changed: Vec<String> = plan.changes.iter().map(|c| c.name().to_string()).collect();
        for f in &changed {
            for (line, text) in nav.search_all(&format!("{f}(")) {
                if let (true, Some(caller)) = (calls_name(&text, f), nav.enclosing(line)) {
                    if caller != *f {
                        nav.sight.edges.insert((caller, f.clone()));
                    }
                }
            }
        }
        plan = recipe.plan(&Model::of(&nav.sight), &nav.sight, true, reqs.as_ref());
    }

    let plan = plan.with_comment(carried_comment(statement).as_deref());
    super::apply(nav.tools, &plan);
    nav.tools.lint();
    nav.tools.submit();
}
