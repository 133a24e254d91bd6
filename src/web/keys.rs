//! Keyboard shortcuts in the page (the table and its rules are [`crate::playground::keys`]), the
//! help overlay that lists them (a modal `<dialog>`), and large type for projectors.

use crate::playground::keys::{command, takes_text, Command, Press, SHORTCUTS};
use gloo::events::{EventListener, EventListenerOptions};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlDialogElement, HtmlElement, KeyboardEvent};
use yew::prelude::*;

/// The command of a key press on the page, or `None` when it is text typed into a field, carries
/// Ctrl/Alt/Meta, or happens inside an open dialog.
pub fn command_of(e: &KeyboardEvent) -> Option<Command> {
    if e.default_prevented() {
        return None;
    }
    let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
    let typing = target.as_ref().is_some_and(|el| {
        let input_type = el.get_attribute("type");
        let editable = el.dyn_ref::<HtmlElement>().is_some_and(|h| h.is_content_editable());
        takes_text(&el.tag_name(), input_type.as_deref(), editable)
            || el.closest("dialog[open]").ok().flatten().is_some()
    });
    let key = e.key();
    command(Press { key: &key, modifier: e.ctrl_key() || e.alt_key() || e.meta_key(), typing, repeat: e.repeat() })
}

/// Listen to the document's key presses for the component's lifetime, calling the latest `handler`
/// (replaced on each render) with each shortcut's command; a handled command's default is prevented.
#[hook]
pub fn use_shortcuts(handler: Callback<Command, bool>) {
    let latest: Rc<RefCell<Callback<Command, bool>>> = use_mut_ref(|| handler.clone());
    *latest.borrow_mut() = handler;
    use_effect_with((), move |_| {
        let listener = web_sys::window().and_then(|w| w.document()).map(|doc| {
            // Not passive: a handled shortcut prevents the key's default (`/`-like keys, scrolling).
            EventListener::new_with_options(&doc, "keydown", EventListenerOptions::enable_prevent_default(), move |e| {
                let Some(e) = e.dyn_ref::<KeyboardEvent>() else { return };
                if let Some(c) = command_of(e) {
                    let handled = latest.borrow().emit(c);
                    if handled {
                        e.prevent_default();
                    }
                }
            })
        });
        move || drop(listener)
    });
}

const LARGE_KEY: &str = "cabrito-large-type";

/// Large type as remembered in localStorage (off when never chosen).
pub fn stored_large() -> bool {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(LARGE_KEY).ok().flatten())
        .is_some_and(|v| v == "on")
}

/// Put large type on the page (`<html data-large-type>`) and remember the choice.
pub fn apply_large(on: bool, remember: bool) {
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = if on { el.set_attribute("data-large-type", "on") } else { el.remove_attribute("data-large-type") };
    }
    if remember {
        if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
            let _ = storage.set_item(LARGE_KEY, if on { "on" } else { "off" });
        }
    }
}

/// The id of the help dialog.
pub const HELP_ID: &str = "help";

thread_local! {
    /// Where the focus was when the help opened (it returns there when the help closes).
    static BACK_TO: RefCell<Option<HtmlElement>> = const { RefCell::new(None) };
}

/// Open the help dialog (modal: focus moves into it; Escape closes it), remembering where the focus
/// was so that closing it returns there.
pub fn open_help() {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Some(dialog) = doc.get_element_by_id(HELP_ID).and_then(|d| d.dyn_into::<HtmlDialogElement>().ok()) else {
        return;
    };
    if dialog.open() {
        return;
    }
    let was = doc.active_element().and_then(|e| e.dyn_into::<HtmlElement>().ok());
    BACK_TO.with(|b| *b.borrow_mut() = was);
    if dialog.show_modal().is_ok() {
        if let Some(close) = doc.get_element_by_id("help-close").and_then(|e| e.dyn_into::<HtmlElement>().ok()) {
            let _ = close.focus();
        }
    }
}

/// The help overlay: every shortcut and what it does. Its list is drawn once the page has painted:
/// the dialog opens only on a key or a click.
#[function_component(HelpDialog)]
pub fn help_dialog() -> Html {
    let painted = super::lazy::use_painted();
    let close = Callback::from(|_: MouseEvent| {
        if let Some(d) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(HELP_ID))
            .and_then(|d| d.dyn_into::<HtmlDialogElement>().ok())
        {
            d.close();
        }
    });
    // However it closes (the button, Escape), the focus goes back where it was.
    let onclose = Callback::from(|_: Event| {
        if let Some(el) = BACK_TO.with(|b| b.borrow_mut().take()) {
            let _ = el.focus();
        }
    });
    html! {
        <dialog id={HELP_ID} class="help" aria-labelledby="help-title" {onclose}>
            <div class="panel-head">
                <h2 id="help-title">{ "Keyboard shortcuts" }</h2>
                <button id="help-close" type="button" class="button small ghost" onclick={close}>{ "Close (Esc)" }</button>
            </div>
            { super::view::text_el("p", Some("hint"), "On a task page; never while typing in a box, nor with Ctrl, Alt or Meta.") }
            if painted {
                <table class="shortcuts">
                    <tbody>
                        { for SHORTCUTS.iter().map(|s| html! {
                            <tr><th><kbd>{ s.key }</kbd></th>{ super::view::text_el("td", None, s.help) }</tr>
                        }) }
                    </tbody>
                </table>
            }
        </dialog>
    }
}
