//! The agents page's own link keys (besides the task's spec): the strategy to watch, the tab, the
//! interface's settings ([`super::settings::SETTINGS`]), the price table and prompt caching.
//! `#/agents?v=1&kind=…&n=25&strategy=navigator&window=40&prices=3,0.3,15&cache=off&tab=walk`.
//! Reading never fails: a bad value keeps its default and says why in one line.

use crate::playground::route::{decode, split_query};
use cabrito_agents::ledger::Prices;
use cabrito_agents::settings::{setting, Settings};
use cabrito_agents::strategies::Strategy;

/// The keys of the page beyond the spec's and the settings'.
pub const PAGE_KEYS: &[&str] = &["strategy", "tab", "prices", "cache"];

/// Is `k` one of the agents page's keys (not a spec key)?
pub fn is_link_key(k: &str) -> bool {
    let k = k.trim();
    PAGE_KEYS.contains(&k) || setting(k).is_some()
}

/// Which tab is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Watch,
    Walk,
}

/// Everything the page's link says beyond the spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub strategy: Strategy,
    pub tab: Tab,
    pub settings: Settings,
    pub prices: Prices,
    /// Count the previous turn's input as read from a prompt cache.
    pub caching: bool,
}

impl Default for Page {
    fn default() -> Self {
        Page {
            strategy: Strategy::Navigator,
            tab: Tab::Watch,
            settings: Settings::default(),
            prices: Prices::default(),
            caching: true,
        }
    }
}

impl Page {
    /// Read the page keys of a fragment (`#/agents?…`); other keys are ignored. Returns the page and
    /// one line per value that could not be used.
    pub fn from_fragment(fragment: &str) -> (Page, Vec<String>) {
        let query = fragment.split_once('?').map_or("", |(_, q)| q);
        let pairs = split_query(query).unwrap_or_else(|_| {
            query.split('&').filter_map(|i| i.split_once('=').map(|(k, v)| (decode(k), decode(v)))).collect()
        });
        let mut page = Page::default();
        let mut problems = Vec::new();
        for (k, v) in pairs {
            let k = k.trim();
            match k {
                "strategy" => match Strategy::parse_or_explain(&v) {
                    Ok(s) => page.strategy = s,
                    Err(e) => problems.push(e),
                },
                "tab" => match v.trim() {
                    "watch" => page.tab = Tab::Watch,
                    "walk" => page.tab = Tab::Walk,
                    other => problems.push(format!(
                        "tab must be watch or walk, got '{}'",
                        other.chars().take(20).collect::<String>()
                    )),
                },
                "prices" => match Prices::parse(&v) {
                    Ok(p) => page.prices = p,
                    Err(e) => problems.push(e),
                },
                "cache" => match v.trim() {
                    "on" => page.caching = true,
                    "off" => page.caching = false,
                    other => problems
                        .push(format!("cache must be on or off, got '{}'", other.chars().take(20).collect::<String>())),
                },
                _ => {
                    if let Some(s) = setting(k) {
                        if let Err(e) = (s.set)(&mut page.settings, &v) {
                            problems.push(e);
                        }
                    }
                }
            }
        }
        (page, problems)
    }

    /// The page's keys that differ from the defaults, as a query suffix (`&strategy=reader…`).
    pub fn query(&self) -> String {
        let d = Page::default();
        let mut out = String::new();
        if self.strategy != d.strategy {
            out.push_str(&format!("&strategy={}", self.strategy));
        }
        if self.tab == Tab::Walk {
            out.push_str("&tab=walk");
        }
        for (k, v) in self.settings.changed() {
            out.push_str(&format!("&{k}={}", encode(&v)));
        }
        if self.prices != d.prices {
            out.push_str(&format!("&prices={},{},{}", self.prices.input, self.prices.cached_input, self.prices.output));
        }
        if !self.caching {
            out.push_str("&cache=off");
        }
        out
    }

    /// The page's fragment for a spec.
    pub fn fragment(&self, spec: &cabrito_gen::TaskSpec) -> String {
        format!("{}{}", crate::playground::route::agents_fragment(spec), self.query())
    }
}

/// The page keys of `fragment` as they are written there (`&strategy=reader&prices=1,0.1,4.5`), to
/// follow another spec's query in a link to the same page. Unlike [`Page::fragment`] it reads no
/// value (the agents page does, and says what it cannot use): the app's knobs carry the page keys
/// this way.
pub fn carried(fragment: &str) -> String {
    let query = fragment.split_once('?').map_or("", |(_, q)| q);
    query
        .split('&')
        .filter(|item| is_link_key(&decode(item.split_once('=').map_or(*item, |(k, _)| k))))
        .map(|item| format!("&{item}"))
        .collect()
}

/// What a link value holds raw: letters, digits and `-_.,/`; the rest is percent-encoded.
const RAW: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b',').remove(b'/');

/// Percent-encode what a link value must not hold raw.
pub(crate) fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, RAW).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playground::route::{parse, Route};

    #[test]
    fn the_page_reads_back_from_its_link() {
        let spec = cabrito_gen::TaskSpec::default();
        let mut page = Page { strategy: Strategy::Myopic, tab: Tab::Walk, caching: false, ..Page::default() };
        page.settings.window = 40;
        page.settings.lint_gate = false;
        page.settings.protected = vec!["problem.md".into(), "solution.py".into()];
        page.prices = Prices { input: 1.0, cached_input: 0.1, output: 4.5 };
        let f = page.fragment(&spec);
        assert_eq!(Page::from_fragment(&f), (page.clone(), vec![]));
        // Carried to another spec, the page keys read back the same.
        let other = cabrito_gen::TaskSpec { seed: 9, ..spec.clone() };
        let moved = format!("{}{}", crate::playground::route::agents_fragment(&other), carried(&f));
        assert_eq!(moved, page.fragment(&other));
        assert_eq!(carried("#/agents?v=1&n=5&strategy=reader&x=1&window=40"), "&strategy=reader&window=40");
        assert_eq!(parse(&f), Route::Agents(spec.clone()));
        assert_eq!(Page::default().fragment(&spec), crate::playground::route::agents_fragment(&spec));
        let (p, problems) = Page::from_fragment("#/agents?strategy=wizard&window=0&tab=x&cache=maybe&prices=1&n=5");
        assert_eq!(p, Page::default());
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(problems.iter().all(|m| !m.contains('\n')));
    }
}
