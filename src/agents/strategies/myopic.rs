//! `myopic`: read the top of the file (two windows), search once for what the statement names,
//! view one window at the first hit not yet seen, and edit as if that were the whole program.
//! Functions it never saw do not exist for it; it submits without checking.

use super::know::{Model, Sight};
use super::recipe::Recipe;
use crate::agents::aci::Tools;

pub fn run(tools: &mut Tools, statement: &str) {
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
    let plan = recipe.plan(&Model::of(&sight), &sight, false);
    super::apply(tools, &plan);
    tools.submit();
}
