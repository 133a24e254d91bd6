//! The gallery's cards, generated one per task of the browser (the first with the gallery, the others
//! in zero-delay timeouts), so the page answers input while it fills in; a card that needs the `gen`
//! module asks for it only when it comes near the viewport ([`when_near`]).

use super::app::{show_here, Shown};
use super::graph::CallGraphSvg;
use cabrito_gen::spec::TaskSpec;
use cabrito_gen::task::Extra;
use gloo::timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
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
    let node = use_node_ref();
    {
        let (shown, waiting, node) = (shown.clone(), waiting.clone(), node.clone());
        use_effect_with(p.spec.clone(), move |spec| {
            let pending = match shown.as_ref() {
                Some(Ok(s)) => &s.spec != spec,
                Some(Err(_)) => false,
                None => true,
            };
            let spec = spec.clone();
            // The card's watch on the viewport, while it waits for it.
            let near: Rc<RefCell<Option<Near>>> = Rc::default();
            let timer = pending.then(|| {
                let near = near.clone();
                Timeout::new(0, move || match show_here(&spec) {
                    Ok(r) => shown.set(Some(r)),
                    Err(part) => {
                        waiting.set(Some(part));
                        let there = move || super::gen::show_there(spec, part, move |r| shown.set(Some(r)));
                        match node.cast::<web_sys::Element>() {
                            Some(card) if !super::gen::loaded() => *near.borrow_mut() = when_near(&card, there),
                            _ => there(),
                        }
                    }
                })
            });
            move || {
                drop(timer);
                drop(near.borrow_mut().take());
            }
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
                    <span class="card-graph" ref={node}>{ picture }</span>
                    { super::view::text_el("span", Some("card-stats"), stats) }
                </>
            }
        }
        Some(Err(e)) => html! {
            <>
                <span class="card-graph" ref={node}></span>
                <span class="card-stats">{ format!("could not be generated: {e}") }</span>
            </>
        },
        None => html! {
            <>
                <span class="card-graph card-pending" ref={node}></span>
                <span class="card-stats">{ match *waiting { Some(part) => format!("loading {}…", part.what()), None => "generating…".to_string() } }</span>
            </>
        },
    }
}

fn graph(s: &Rc<Shown>, noop: &Callback<Option<AttrValue>>) -> Html {
    html! { <CallGraphSvg shown={s.clone()} selected={None::<AttrValue>} on_select={noop.clone()} zoom={0.32} /> }
}

/// How near the viewport a card must come before it asks for the generator module: a screen of a
/// phone below it (and above, for a reader scrolling up from a link).
const NEAR: &str = "800px 0px";

/// A watch on an element until it comes near the viewport; dropping it stops the watch.
struct Near {
    observer: web_sys::IntersectionObserver,
    _on_change: Closure<dyn FnMut(js_sys::Array, web_sys::IntersectionObserver)>,
}

impl Drop for Near {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// What a card does once near the viewport.
type Then = Box<dyn FnOnce()>;

/// Call `then` once `el` comes within [`NEAR`] of the viewport (at once if a browser has no
/// IntersectionObserver); the watch lasts while the answer is kept.
fn when_near(el: &web_sys::Element, then: impl FnOnce() + 'static) -> Option<Near> {
    let then: Rc<RefCell<Option<Then>>> = Rc::new(RefCell::new(Some(Box::new(then))));
    let call = then.clone();
    let on_change = Closure::<dyn FnMut(js_sys::Array, web_sys::IntersectionObserver)>::new(
        move |entries: js_sys::Array, observer: web_sys::IntersectionObserver| {
            let near = entries
                .iter()
                .any(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().is_ok_and(|e| e.is_intersecting()));
            if near {
                observer.disconnect();
                // (Taken first: `then` may re-render the card, which never runs this again.)
                let f = call.borrow_mut().take();
                if let Some(f) = f {
                    f();
                }
            }
        },
    );
    let options = web_sys::IntersectionObserverInit::new();
    options.set_root_margin(NEAR);
    match web_sys::IntersectionObserver::new_with_options(on_change.as_ref().unchecked_ref(), &options) {
        Ok(observer) => {
            observer.observe(el);
            Some(Near { observer, _on_change: on_change })
        }
        Err(_) => {
            if let Some(f) = then.borrow_mut().take() {
                f();
            }
            None
        }
    }
}
