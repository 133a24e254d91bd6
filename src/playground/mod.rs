//! The playground's pure logic (no DOM; compiled and tested natively too): reading links
//! ([`route`]), the "share with solution" codec ([`share`]), the task page's shortcuts ([`keys`]), the grade panel's state and reducer
//! ([`panel`]) and what the task page hands it when it loads lazily ([`handoff`]), the `gen` module's answer as bytes ([`tape`]), what the runtime axis's views show ([`branches`]) and instruction following's
//! ([`requirements`]), and which lines of a long code block are rendered ([`window`]). `web` is the
//! DOM glue around them.

pub mod agents_page;
pub mod branches;
pub mod handoff;
pub mod handover;
pub mod keys;
pub mod panel;
pub mod requirements;
pub mod route;
pub mod share;
pub mod tape;
pub mod window;

#[cfg(test)]
mod tests {
    use cabrito_gen::spec::{Axis, Kind};

    /// The names in the group `key=(a|b|…)` of index.html's first script.
    fn early_names(key: &str) -> Vec<String> {
        let html = include_str!("../../index.html");
        let at = html.find(&format!("{key}=(")).unwrap_or_else(|| panic!("index.html names no {key}= group"))
            + key.len()
            + 2;
        let group = &html[at..at + html[at..].find(')').expect("the group closes")];
        let mut names: Vec<String> = group.split('|').map(String::from).collect();
        names.sort();
        names
    }

    /// index.html's first script starts the generator module's worker for a task link whose kind or
    /// axis needs a part the first download leaves out (`web::gen::EARLY`): exactly those, no more.
    #[test]
    fn index_html_starts_the_generator_early_for_exactly_the_extra_kinds_and_axes() {
        let mut kinds: Vec<String> =
            Kind::ALL.iter().filter(|k| k.def().extra().is_some()).map(|k| k.as_str().to_string()).collect();
        kinds.sort();
        let mut axes: Vec<String> =
            Axis::ALL.iter().filter(|a| a.def().extra().is_some()).map(|a| a.as_str().to_string()).collect();
        axes.sort();
        assert_eq!(early_names("kind"), kinds);
        assert_eq!(early_names("axis"), axes);
    }
}
