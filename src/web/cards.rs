//! The gallery's cards, generated a card at a time: the first card is generated while the gallery
//! first renders, every other card in a task of its own just after (a zero-delay
//! timeout each, in page order), so the page is painted and answers input while the rest of the
//! gallery fills in. One long task of every card's generation and drawing was the gallery's total
//! blocking time on a phone (BENCHMARKS.md, "First download and phones").

use super::app::{show_here, Shown};
use super::graph::CallGraphSvg;
use crate::spec::TaskSpec;
use crate::task::Extra;
use gloo::timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

/// What a card draws once its task is generated.
#[derive(Clone, Copy, PartialEq)]
pub enum Picture {
    /// The gallery's picture for the task's view (`view::card_picture`) and its numbers
    /// (`view::card_stats`).
    Card,
    /// The call graph and "functions · to edit · lines" (the runtime row).
    Runtime,
    /// The call graph and "requirements · functions · lines" (the instructions row).
    Instructions,
}

#[derive(Properties, PartialEq)]
pub struct CardProps {
    pub spec: TaskSpec,
    pub picture: Picture,
    /// Generate while the gallery first renders (the first card).
    #[prop_or(false)]
    pub eager: bool,
}

/// A card's picture and numbers (the `card-graph` and `card-stats` spans), generated now when
/// eager, else in a task of its own after the first paint.
#[function_component(CardBody)]
pub fn card_body(p: &CardProps) -> Html {
    // A card whose spec needs a part of the generator the first download left out says so while
    // the generator module loads (`web::gen`), then shows the module's task.
    let waiting = use_state(|| None::<Extra>);
    let shown = {
        let spec = p.spec.clone();
        let eager = p.eager;
        // (A card that needs the module is left to the effect.)
        use_state(move || eager.then(|| show_here(&spec).ok()).flatten())
    };
    {
        let (shown, waiting) = (shown.clone(), waiting.clone());
        use_effect_with(p.spec.clone(), move |spec| {
            let pending = match shown.as_ref() {
                Some(Ok(s)) => &s.spec != spec,
                Some(Err(_)) => false,
                None => true,
            };
            let spec = spec.clone();
            let timer = pending.then(|| {
                Timeout::new(0, move || match show_here(&spec) {
                    Ok(r) => shown.set(Some(r)),
                    Err(part) => {
                        waiting.set(Some(part));
                        super::gen::show_there(spec, part, move |r| shown.set(Some(r)));
                    }
                })
            });
            move || drop(timer)
        });
    }
    let noop = Callback::from(|_: Option<AttrValue>| ());
    match shown.as_ref() {
        Some(Ok(s)) => {
            let t = &s.generated.task;
            let (picture, stats) = match p.picture {
                Picture::Card => (super::view::card_picture(s, &noop), super::view::card_stats(s)),
                Picture::Runtime => (
                    graph(s, &noop),
                    format!(
                        "{} functions · {} to edit · {} lines",
                        t.sizes.functions, t.sizes.functions_to_edit, t.sizes.starter_lines
                    ),
                ),
                Picture::Instructions => (
                    graph(s, &noop),
                    format!(
                        "{} requirements · {} functions · {} lines",
                        s.spec.n, t.sizes.functions, t.sizes.starter_lines
                    ),
                ),
            };
            html! {
                <>
                    <span class="card-graph">{ picture }</span>
                    <span class="card-stats">{ stats }</span>
                </>
            }
        }
        Some(Err(e)) => html! {
            <>
                <span class="card-graph"></span>
                <span class="card-stats">{ format!("could not be generated: {e}") }</span>
            </>
        },
        None => html! {
            <>
                <span class="card-graph card-pending"></span>
                <span class="card-stats">{ match *waiting { Some(part) => format!("loading {}…", part.what()), None => "generating…".to_string() } }</span>
            </>
        },
    }
}

fn graph(s: &Rc<Shown>, noop: &Callback<Option<AttrValue>>) -> Html {
    html! { <CallGraphSvg shown={s.clone()} selected={None::<AttrValue>} on_select={noop.clone()} zoom={0.32} /> }
}
