//! `myopic`: read the top of the file (two windows), search once for what the statement names, view
//! one window at the first new hit, and edit as if that were the whole program. It submits without
//! checking. It settles an `if` only within [`PATIENCE`] statements of the helper, and otherwise
//! guesses true. It keeps the first [`REQUIREMENTS_KEPT`] numbered requirements. On Merge Codebases a
//! class longer than its two windows is missing from its answer.

use super::know::{Model, Sight};

/// Statements of a condition's helper `myopic` is willing to run (a dozen steps of a loop).
pub const PATIENCE: u64 = 40;
/// Numbered requirements `myopic` keeps in mind (it reads the list from the top and stops there).
pub const REQUIREMENTS_KEPT: usize = 10;
use super::recipe::{carried_comment, Recipe};
use super::requirements::Requirements;
use crate::aci::Tools;

pub fn run(tools: &mut Tools, statement: &str) {
    if super::merge::is_merge(statement) {
        // The top of the file, as far as its patience goes, is all it reads.
        let mut sight = Sight::default();
        let w = tools.window().max(1);
        sight.absorb(&tools.view(1, w));
        if sight.total.is_some_and(|t| t > w) {
            sight.absorb(&tools.view(w + 1, 2 * w));
        }
        super::merge::run(tools, &sight);
        return;
    }
    let Some(recipe) = Recipe::read(statement) else {
        tools.submit();
        return;
    };
    let mut sight = Sight::default();
    let w = tools.window().max(1);
    sight.absorb(&tools.view(1, w));
    if sight.total.is_some_and(|t| t > w) {
        sight.absorb(&tools.view(w + 1, 2 * w));
    }
    let found = tools.search(&recipe.anchor(), None);
    sight.absorb(&found);
    if let Some((line, _)) = Sight::hits(&found).into_iter().find(|(l, _)| !sight.lines.contains_key(l)) {
        let start = line.saturating_sub(2).max(1);
        sight.absorb(&tools.view(start, start + w - 1));
    }
    let reqs = Requirements::read(statement).map(|r| r.first(REQUIREMENTS_KEPT));
    let plan = recipe
        .plan(&Model::of_with(&sight, PATIENCE), &sight, false, reqs.as_ref())
        .with_comment(carried_comment(statement).as_deref());
    super::apply(tools, &plan);
    tools.submit();
}
