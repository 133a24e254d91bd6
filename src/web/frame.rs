//! The page around every view: the header with its navigation, the theme and large-type switches and
//! the keys' help, the `<main>` the view goes in, and the page's title. The app and each page module's
//! app (Results and Traces, the agents page) draw their page inside one.

use super::route;
use crate::playground::keys::Command;
use cabrito_gen::TaskSpec;
use yew::prelude::*;

/// The colour theme: the system's unless the reader chose one (kept in localStorage).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Theme {
    Light,
    Dark,
}

const THEME_KEY: &str = "cabrito-theme";

fn stored_theme() -> Option<Theme> {
    let v = web_sys::window()?.local_storage().ok()??.get_item(THEME_KEY).ok()??;
    match v.as_str() {
        "dark" => Some(Theme::Dark),
        "light" => Some(Theme::Light),
        _ => None,
    }
}

fn system_theme() -> Theme {
    let dark = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches());
    if dark {
        Theme::Dark
    } else {
        Theme::Light
    }
}

/// Put a theme on the page (`<html data-theme>`) and, when chosen, remember it.
fn apply_theme(theme: Theme, remember: bool) {
    let name = match theme {
        Theme::Dark => "dark",
        Theme::Light => "light",
    };
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = el.set_attribute("data-theme", name);
    }
    if remember {
        if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
            let _ = storage.set_item(THEME_KEY, name);
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct FrameProps {
    /// The spec the Task, Scale and Agents links open.
    pub spec: TaskSpec,
    /// The page's title.
    pub title: AttrValue,
    /// The read-only embed (`?embed=1`): no header.
    #[prop_or_default]
    pub embed: bool,
    #[prop_or_default]
    pub children: Html,
}

/// The header, the page's `<main>` with the view in it, and the keys' help.
#[function_component(Frame)]
pub fn frame(p: &FrameProps) -> Html {
    let theme = use_state(|| stored_theme().unwrap_or_else(system_theme));
    {
        let chosen = stored_theme().is_some();
        use_effect_with(*theme, move |t| apply_theme(*t, chosen));
    }
    // Large type for projectors: remembered like the theme.
    let large = use_state(super::keys::stored_large);
    use_effect_with(*large, |on| super::keys::apply_large(*on, false));
    let toggle_large = {
        let large = large.clone();
        Callback::from(move |_: ()| {
            super::keys::apply_large(!*large, true);
            large.set(!*large);
        })
    };
    // The page-wide shortcuts (the task page's own are in TaskView).
    {
        let toggle_large = toggle_large.clone();
        super::keys::use_shortcuts(Callback::from(move |c: Command| match c {
            Command::LargeType => {
                toggle_large.emit(());
                true
            }
            Command::Help => {
                super::keys::open_help();
                true
            }
            _ => false,
        }));
    }
    use_effect_with(p.title.clone(), |t| {
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            doc.set_title(t);
        }
    });
    let toggle_theme = {
        let theme = theme.clone();
        Callback::from(move |_: MouseEvent| {
            let next = if *theme == Theme::Dark { Theme::Light } else { Theme::Dark };
            apply_theme(next, true);
            theme.set(next);
        })
    };
    let spec = &p.spec;
    if p.embed {
        return html! { <main class="page embed">{ p.children.clone() }</main> };
    }
    html! {
        <>
            <header class="topbar">
                <a class="brand" href="#/">{ "Cabrito" }</a>
                { super::view::text_el("span", Some("tagline"), "Cabra coding tasks from random call graphs, generated in your browser") }
                <nav class="nav">
                    <a id="nav-gallery" href="#/">{ "Gallery" }</a>
                    <a id="nav-task" href={route::fragment(spec)}>{ "Task" }</a>
                    <a id="nav-scale" href={route::scale_fragment(spec)}>{ "Scale" }</a>
                    <a id="nav-agents" href={route::agents_fragment(spec)}>{ "Agents" }</a>
                    <a id="nav-results" href={format!("#{}", route::RESULTS_PATH)}>{ "Results" }</a>
                    <a id="nav-traces" href={format!("#{}", route::TRACES_PATH)}>{ "Traces" }</a>
                    <button id="theme-toggle" type="button" class="button small ghost" onclick={toggle_theme}
                        title={if *theme == Theme::Dark { "Switch to the light theme" } else { "Switch to the dark theme" }}>
                        { if *theme == Theme::Dark { "☀ Light" } else { "☾ Dark" } }
                    </button>
                    <button id="large-toggle" type="button" class="button small ghost" aria-pressed={super::view::bool_str(*large)}
                        onclick={ { let t = toggle_large.clone(); Callback::from(move |_: MouseEvent| t.emit(())) } }
                        title="Large type for projectors (shortcut: l)">{ "A+ Large type" }</button>
                    <button id="help-open" type="button" class="button small ghost" title="Keyboard shortcuts (shortcut: ?)"
                        onclick={Callback::from(|_: MouseEvent| super::keys::open_help())}>{ "? Keys" }</button>
                </nav>
            </header>
            <main class="page">{ p.children.clone() }</main>
            <super::keys::HelpDialog />
        </>
    }
}
