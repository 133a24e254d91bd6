//! The playground's pure logic, tested natively; `web` is the DOM glue around it. Links ([`route`],
//! [`share`], [`agents_page`]), the `gen` module's answer ([`gen_answer`]), each view's state and
//! reducer ([`task_view`], [`panel`] for the grade panel, [`results_view`], [`traces_view`]), the
//! shortcuts ([`keys`]), what the runtime and instructions axes' views show ([`branches`],
//! [`requirements`]), how Merge Codebases' data-flow graph fits its box ([`flow_fit`]) and which lines of a long code block are rendered ([`window`]).

pub mod agents_page;
pub mod branches;
pub mod flow_fit;
pub mod gen_answer;
pub mod keys;
pub mod panel;
pub mod requirements;
pub mod results_view;
pub mod route;
pub mod sample;
pub mod share;
pub mod task_view;
pub mod traces_view;
pub mod window;
pub mod words;

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

    /// Links written by the hand-written codecs before issue 29 (`testdata/links_before.tsv`, made
    /// by a copy of them) read the same with the crates, and the crates write them the same.
    #[test]
    fn links_written_before_issue_29_read_the_same() {
        use crate::playground::{agents_page, route, share};
        let text = |json: &str| serde_json::from_str::<String>(json).expect("a JSON string");
        let spec = cabrito_gen::TaskSpec::default();
        let mut seen = [0; 3];
        for line in include_str!("testdata/links_before.tsv").lines().filter(|l| !l.starts_with('#')) {
            let cols: Vec<&str> = line.split('\t').collect();
            match cols[..] {
                ["solution", raw, written] => {
                    let raw = text(raw);
                    assert_eq!(share::encode_solution(&raw), written, "{raw:?}");
                    assert_eq!(share::decode_solution(written).as_ref(), Ok(&raw));
                    // As a published link carries it: the task and its solution.
                    let link = format!("{}&{}={written}", route::fragment(&spec), share::SOLUTION_KEY);
                    assert_eq!(route::parse(&link), route::Route::Task(spec.clone()));
                    assert_eq!(share::solution_in(&link), Some(Ok(raw)));
                    seen[0] += 1;
                }
                ["value", raw, written] => {
                    assert_eq!(agents_page::encode(&text(raw)), written, "{raw}");
                    assert_eq!(route::decode(written), text(raw));
                    seen[1] += 1;
                }
                ["decode", part, read] => {
                    assert_eq!(route::decode(&text(part)), text(read), "{part}");
                    seen[2] += 1;
                }
                _ => panic!("a line of links_before.tsv is not one of its kinds: {line:?}"),
            }
        }
        assert!(seen.iter().all(|&n| n >= 10), "{seen:?}");
    }
}
