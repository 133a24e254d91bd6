//! What the browser end-to-end tests of the task page share: a test spec, opening a task link and
//! waiting for it, and the check that named elements lie inside the window (their boxes, not merely in
//! the page).

#![cfg(not(target_arch = "wasm32"))]

use crate::browser::{js, wait_for, Res};
use cabrito_gen::TaskSpec;
use serde_json::json;
use thirtyfour::prelude::*;

/// A spec from a link's query (`kind=add_parameter&n=5`).
pub fn spec(query: &str) -> TaskSpec {
    TaskSpec::from_pairs(query.split('&').filter_map(|kv| kv.split_once('='))).expect("a valid test spec")
}

/// Open a fragment and wait for its task (and its side panel) to be on the page.
pub async fn open(driver: &WebDriver, base: &str, fragment: &str, s: &TaskSpec) -> Res {
    driver.goto(format!("{base}{fragment}")).await?;
    // goto with only a new fragment does not reload: make sure the page follows it.
    js(driver, "if (location.hash !== arguments[0]) location.hash = arguments[0];", vec![json!(fragment)]).await?;
    wait_for(
        driver,
        &format!("the task {}", s.canonical()),
        &format!(
            "const t = document.getElementById('task'); return !!t && t.dataset.spec === {:?} && !!document.getElementById('side');",
            s.canonical()
        ),
        60,
    )
    .await?;
    Ok(())
}

/// What of `selectors` is missing, not shown or outside the window (and, when `no_scroll`, whether
/// the page is scrolled or has anything to scroll to): empty when everything is in view. A selector
/// names its first element; `all:selector` every match; `top:selector` only the top 20 px of a long
/// box that scrolls inside its panel. The page is never wider than the window.
pub async fn outside(driver: &WebDriver, selectors: &[&str], no_scroll: bool) -> Res<String> {
    let v = js(
        driver,
        "const out = []; const W = innerWidth, H = innerHeight; const se = document.scrollingElement; \
         if (arguments[1] && (se.scrollTop !== 0 || se.scrollLeft !== 0)) out.push(`the page is scrolled to ${se.scrollLeft},${se.scrollTop}`); \
         if (arguments[1] && se.scrollHeight > H + 1) out.push(`the page is ${se.scrollHeight} px high in a ${H} px window`); \
         if (se.scrollWidth > W + 1) out.push(`the page is ${se.scrollWidth} px wide in a ${W} px window`); \
         for (const sel of arguments[0]) { const top = sel.startsWith('top:'); const all = sel.startsWith('all:'); \
           const s = (all || top) ? sel.slice(4) : sel; \
           const els = all ? [...document.querySelectorAll(s)] : [document.querySelector(s)].filter(Boolean); \
           if (!els.length) { out.push(`no ${s}`); continue; } \
           for (const e of els) { const r = e.getBoundingClientRect(); \
             if (r.width < 1 || r.height < 1) { out.push(`${s} is not shown`); break; } \
             if (r.top < -0.5 || r.left < -0.5 || (top ? Math.min(r.bottom, r.top + 20) : r.bottom) > H + 0.5 || r.right > W + 0.5) { \
               out.push(`${s} at ${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)} is outside the ${W}×${H} window`); break; } } } \
         return out.join('; ');",
        vec![json!(selectors), json!(no_scroll)],
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

/// Every selector's element ([`outside`]'s forms) inside the window, the page unscrolled and with
/// nothing to scroll to; else an error that starts with `what`.
pub async fn in_view(driver: &WebDriver, what: &str, selectors: &[&str]) -> Res {
    let why = outside(driver, selectors, true).await?;
    if why.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {why}").into())
    }
}
