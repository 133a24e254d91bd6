//! `reader`: read the whole file, window by window, then edit.

use super::know::{Model, Sight};
use super::recipe::{carried_comment, Recipe};
use super::requirements::Requirements;
use crate::aci::Tools;

pub fn run(tools: &mut Tools, statement: &str) {
    let mut sight = Sight::default();
    let w = tools.window().max(1);
    sight.absorb(&tools.view(1, w));
    let total = sight.total.unwrap_or(0);
    let mut start = w + 1;
    while start <= total && !tools.ended() {
        sight.absorb(&tools.view(start, start + w - 1));
        start += w;
    }
    if super::merge::is_merge(statement) {
        super::merge::run(tools, &sight);
        return;
    }
    if let Some(recipe) = Recipe::read(statement) {
        let reqs = Requirements::read(statement);
        let plan = recipe
            .plan(&Model::of(&sight), &sight, false, reqs.as_ref())
            .with_comment(carried_comment(statement).as_deref());
        super::apply(tools, &plan);
    }
    tools.lint();
    tools.submit();
}
