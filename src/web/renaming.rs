//! The panel beside the code of a variable_renaming task: the rename table, and the chain with every
//! occurrence of a name to rename highlighted (its new name in the tooltip).

use super::app::Shown;
use crate::kinds::variable_renaming::split_line;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RenamingProps {
    pub shown: Rc<Shown>,
    pub renames: Rc<Vec<(String, String)>>,
}

/// The lines of `main()`'s body.
fn main_body(code: &str) -> impl Iterator<Item = &str> {
    code.lines().skip_while(|l| !l.starts_with("def main(")).skip(1).take_while(|l| l.starts_with("    "))
}

#[function_component(RenamingPanel)]
pub fn renaming_panel(p: &RenamingProps) -> Html {
    let table: BTreeMap<&str, &str> = crate::sort::map(p.renames.iter().map(|(a, b)| (a.as_str(), b.as_str())));
    let code = &p.shown.generated.task.starter_code;
    let occurrences: usize =
        code.lines().map(|l| split_line(l, &table).iter().filter(|(_, new)| new.is_some()).count()).sum();
    html! {
        <section class="panel renaming-panel" aria-label="Renames">
            <div class="panel-head">
                { super::view::text_el("h2", None, "Renames") }
            </div>
            <p class="hint">
                { format!("{} variables to rename, at {occurrences} places in the chain (highlighted).", p.renames.len()) }
            </p>
            <div class="rename-scroll">
                <table id="rename-table" class="renames">
                    <thead><tr>{ super::view::text_el("th", None, "old name") }{ super::view::text_el("th", None, "new name") }</tr></thead>
                    <tbody>
                        { for p.renames.iter().map(|(a, b)| html! {
                            <tr><td>{ super::view::text_el("code", Some("rename-from"), a.clone()) }</td><td>{ super::view::text_el("code", Some("rename-to"), b.clone()) }</td></tr>
                        }) }
                    </tbody>
                </table>
            </div>
            { super::view::text_el("h2", None, "The chain") }
            <pre id="rename-chain" class="chain">
                { for main_body(code).map(|l| html! {
                    <div class="chain-line">
                        { for split_line(l, &table).into_iter().map(|(text, new)| match new {
                            Some(new) => html! { <mark class="rename-from" title={format!("→ {new}")}>{ text.to_string() }</mark> },
                            None => html! { { text.to_string() } },
                        }) }
                    </div>
                }) }
            </pre>
        </section>
    }
}
