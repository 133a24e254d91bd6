//! The gallery loads the generator module (`gen_bg.wasm`, `web::gen`) only when a card that needs
//! it comes near the viewport (issue 14 item 3, `web::cards`), in headless Chromium against the
//! real `cabrito serve`: a gallery visit that is not scrolled generates its other cards and never
//! fetches the module, its merge and renaming cards and its comment, runtime and instructions rows
//! saying "loading …" meanwhile; scrolling to the runtime row fetches it, and those cards then show
//! what the native generator makes (their numbers from the native task's sizes).
//!
//! Needs the built app (`trunk build --release`) and chromedriver; skipped locally without them.

#![cfg(not(target_arch = "wasm32"))]

use crate::browser;

use browser::{console_clean, fetched_gen_module, js, run_scenario, wait_for, Res};
use cabrito::playground::{route, route::Route};
use cabrito_gen::task::generate;
use std::path::Path;
use std::time::Duration;
use thirtyfour::prelude::*;

/// The cards of a gallery row (`#gallery-runtime`, ...): each card's link and numbers.
async fn row_cards(driver: &WebDriver, row: &str) -> Res<Vec<(String, String)>> {
    let v = js(
        driver,
        &format!(
            "return [...document.querySelectorAll('#{row} a.card')].map(c => \
             [c.getAttribute('href'), c.querySelector('.card-stats').textContent]);"
        ),
        vec![],
    )
    .await?;
    let cards: Vec<(String, String)> = serde_json::from_value(v)?;
    if cards.is_empty() {
        return Err(format!("the gallery has no #{row} cards").into());
    }
    Ok(cards)
}

/// Wait until every card under `selector` shows its numbers (`… lines`): its task was generated.
async fn cards_generated(driver: &WebDriver, selector: &str, what: &str) -> Res {
    wait_for(
        driver,
        &format!("{what} generated"),
        &format!(
            "const s = [...document.querySelectorAll('{selector} .card-stats')]; \
             return s.length > 0 && s.every(e => / lines$/.test(e.textContent));"
        ),
        60,
    )
    .await
    .map(|_| ())
}

/// A row's cards show the native generator's numbers (`stats` from the native task).
async fn row_matches_native(
    driver: &WebDriver,
    row: &str,
    stats: impl Fn(&cabrito_gen::TaskSpec, &cabrito_gen::task::Sizes) -> String,
) -> Res {
    cards_generated(driver, &format!("#{row}"), &format!("the #{row} cards")).await?;
    for (href, shown) in row_cards(driver, row).await? {
        let Route::Task(spec) = route::parse(&href) else {
            return Err(format!("the card link {href} is not a task link").into());
        };
        let native = generate(&spec)?;
        let expected = stats(&spec, &native.sizes);
        if shown != expected {
            return Err(format!("the card {href} says {shown:?}; the native task: {expected:?}").into());
        }
    }
    Ok(())
}

async fn scenario(driver: &WebDriver, base: &str, shots: &Path) -> Res {
    driver.goto(format!("{base}#/")).await?;
    // Every card the first download generates fills in, wherever it is on the page (a task each,
    // in page order, after the first paint); the ones that need the module then wait.
    wait_for(
        driver,
        "the gallery's own cards",
        "const s = [...document.querySelectorAll('.card-stats')]; \
         return s.length > 0 && !s.some(e => /generating/.test(e.textContent));",
        60,
    )
    .await?;
    // Time for a fetch the cards might have started.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    if fetched_gen_module(driver).await? {
        return Err("a gallery visit that was not scrolled fetched the generator module".into());
    }
    for row in ["gallery-runtime", "gallery-instructions"] {
        for (href, shown) in row_cards(driver, row).await? {
            if !shown.starts_with("loading ") {
                return Err(format!("before scrolling, the card {href} says {shown:?} (not \"loading …\")").into());
            }
        }
    }
    // The merge and renaming cards and the comment row come from the module too.
    let waiting = js(
        driver,
        "return ['card-merge_codebases', 'card-variable_renaming', 'card-comment-'].map(p => \
           [...document.querySelectorAll(`a.card[id^=\"${p}\"]`)].map(c => \
             [c.id, c.querySelector('.card-stats').textContent])).flat();",
        vec![],
    )
    .await?;
    let waiting: Vec<(String, String)> = serde_json::from_value(waiting)?;
    for part in ["card-merge_codebases", "card-variable_renaming", "card-comment-"] {
        if !waiting.iter().any(|(id, _)| id.starts_with(part)) {
            return Err(format!("the gallery has no {part}… card").into());
        }
    }
    for (id, shown) in &waiting {
        if !shown.starts_with("loading ") {
            return Err(format!("before scrolling, the card #{id} says {shown:?} (not \"loading …\")").into());
        }
    }
    console_clean(driver, "the gallery's first screen").await?;

    // Scrolled to the runtime row: the module comes, and the row shows the native tasks.
    js(driver, "document.getElementById('gallery-runtime').scrollIntoView();", vec![]).await?;
    row_matches_native(driver, "gallery-runtime", |_, z| {
        format!("{} functions · {} to edit · {} lines", z.functions, z.functions_to_edit, z.starter_lines)
    })
    .await?;
    if !fetched_gen_module(driver).await? {
        return Err("the runtime cards were generated without the generator module".into());
    }
    driver.screenshot(&shots.join("gallery-lazy-runtime.png")).await?;
    js(driver, "document.getElementById('gallery-instructions').scrollIntoView();", vec![]).await?;
    row_matches_native(driver, "gallery-instructions", |s, z| {
        format!("{} requirements · {} functions · {} lines", s.n, z.functions, z.starter_lines)
    })
    .await?;
    // Back up to the merge card: the module is loaded, so it fills in too.
    js(driver, "document.querySelector('a.card[id^=\"card-merge_codebases\"]').scrollIntoView();", vec![]).await?;
    wait_for(
        driver,
        "the merge card generated",
        "const c = document.querySelector('a.card[id^=\"card-merge_codebases\"] .card-stats'); \
         return c && !/loading|generating|could not/.test(c.textContent);",
        60,
    )
    .await?;
    // The renaming card, then the comment row: the module's tasks, with the native tasks' numbers.
    for prefix in ["card-variable_renaming", "card-comment-"] {
        let cards = format!("a.card[id^=\\\"{prefix}\\\"]");
        js(driver, &format!("document.querySelector('{cards}').scrollIntoView();"), vec![]).await?;
        cards_generated(driver, &cards, &format!("the {prefix}… cards")).await?;
        let shown = js(
            driver,
            &format!(
                "return [...document.querySelectorAll('{cards}')] \
                   .map(c => [c.getAttribute('href'), c.querySelector('.card-stats').textContent]);"
            ),
            vec![],
        )
        .await?;
        let shown: Vec<(String, String)> = serde_json::from_value(shown)?;
        for (href, shown) in shown {
            let Route::Task(spec) = route::parse(&href) else {
                return Err(format!("the card link {href} is not a task link").into());
            };
            let z = generate(&spec)?.sizes;
            let expected =
                format!("{} functions · {} to edit · {} lines", z.functions, z.functions_to_edit, z.starter_lines);
            if shown != expected {
                return Err(format!("the card {href} says {shown:?}; the native task: {expected:?}").into());
            }
        }
    }
    console_clean(driver, "scrolling the gallery").await?;
    Ok(())
}

/// A desktop window (more of the page in view) or a phone's.
async fn run(name: &str, size: (u32, u32)) {
    let failure_shot = format!("gallery-lazy-failure-{name}.png");
    run_scenario("gallery_lazy", size, &failure_shot, async |s| scenario(&s.driver, &s.base, &s.shots).await).await;
}

#[tokio::test]
async fn e2e_gallery_loads_the_gen_module_when_scrolled_to_desktop() {
    run("desktop", (1280, 1000)).await;
}

#[tokio::test]
async fn e2e_gallery_loads_the_gen_module_when_scrolled_to_phone() {
    run("phone", (412, 915)).await;
}
