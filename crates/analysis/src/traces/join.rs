//! Joining sessions to their tasks: responses name their Copilot session (`metadata.session_id`,
//! grading.md §8.2) and sit in the reference layout (run, task set, task type, model); task records
//! give the run and the Cabrito spec of a `dag_id`.

use super::TaskRef;
use crate::results::read::{layout_of, link_query, spec_query};
use crate::results::{input, input::Problem};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;

/// A session a response names: its task and the model of the response file.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionOf {
    pub session_id: String,
    pub task: TaskRef,
    pub model: String,
}

/// Sessions named by a response file (`responses/<run>/<task_set>/<task_type>/<backend>/<model>.jsonl`);
/// the last record of a (name, dag_id) wins, as in the reference's readers.
pub fn sessions_of_responses(path: &str, text: &str, problems: &mut Vec<Problem>) -> Vec<SessionOf> {
    sessions_of_response_lines(path, input::numbered_lines(text), problems)
}

/// [`sessions_of_responses`] from numbered lines (a file read as a stream).
pub fn sessions_of_response_lines<S: AsRef<str>>(
    path: &str,
    lines: impl Iterator<Item = (usize, S)>,
    problems: &mut Vec<Problem>,
) -> Vec<SessionOf> {
    let layout = layout_of(path, "responses");
    let mut latest: HashMap<(String, String), SessionOf> = HashMap::new();
    let mut order: Vec<(String, String)> = Vec::new();
    for (lineno, line) in lines {
        let v: Value = match serde_json::from_str(line.as_ref()) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                problems.push(Problem::line(path, lineno, "not a response record"));
                continue;
            }
        };
        let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let Some(sid) =
            v.get("metadata").and_then(|m| m.get("session_id")).and_then(Value::as_str).filter(|x| !x.is_empty())
        else {
            continue;
        };
        let key = (s("name"), s("dag_id"));
        if !latest.contains_key(&key) {
            order.push(key.clone());
        }
        let run = v
            .get("metadata")
            .and_then(|m| m.get("run_name"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .or(layout.run.clone())
            .unwrap_or_default();
        latest.insert(
            key,
            SessionOf {
                session_id: sid.to_string(),
                task: TaskRef {
                    run,
                    task_set: layout.task_set.clone().unwrap_or_default(),
                    task_type: layout.task_type.clone().unwrap_or_default(),
                    dag_id: s("dag_id"),
                    name: s("name"),
                    link: None,
                },
                model: layout.model.clone().unwrap_or_default(),
            },
        );
    }
    order.into_iter().filter_map(|k| latest.remove(&k)).collect()
}

/// Tasks by `dag_id`, from task files (`tasks/<run>/<task_set>/<task_type>.json[.gz]`, a JSON list,
/// or a `tasks.jsonl` of Cabrito records).
#[derive(Clone, Debug, Default)]
pub struct TaskIndex {
    by_dag: HashMap<String, Vec<TaskRef>>,
}

/// What the index keeps of a task record (the rest of it is skipped unread).
#[derive(Deserialize)]
struct TaskLite {
    #[serde(default)]
    dag_id: Option<Value>,
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    spec: Option<Value>,
    #[serde(default)]
    link: Option<Value>,
}

impl TaskLite {
    fn of(v: Value) -> TaskLite {
        let mut v = v;
        let mut take = |k: &str| v.get_mut(k).map(Value::take);
        TaskLite { dag_id: take("dag_id"), name: take("name"), spec: take("spec"), link: take("link") }
    }
}

impl TaskIndex {
    pub fn add_file(&mut self, path: &str, text: &str, problems: &mut Vec<Problem>) {
        self.add_reader(path, text.as_bytes(), problems)
    }

    /// [`TaskIndex::add_file`] from a reader (a file the caller opened, gzipped or not), read as a
    /// stream.
    pub fn add_reader<R: std::io::Read>(&mut self, path: &str, reader: R, problems: &mut Vec<Problem>) {
        let comps: Vec<&str> = path.split(['/', '\\']).filter(|c| !c.is_empty()).collect();
        let file = comps.last().copied().unwrap_or("");
        let stem = crate::results::read::stem(file).to_string();
        let (run, set) = if comps.len() >= 3 {
            (comps[comps.len() - 3].to_string(), comps[comps.len() - 2].to_string())
        } else {
            (String::new(), String::new())
        };
        let mut src = input::Source::new(path, reader, input::MAX_TEXT_BYTES);
        let records: Vec<TaskLite> = if src.head().trim_start().starts_with('[') {
            match serde_json::from_reader::<_, Vec<TaskLite>>(&mut src) {
                Ok(v) => v,
                Err(e) if e.is_io() => {
                    problems.push(src.problem_of(&std::io::Error::other(e.to_string()), true));
                    return;
                }
                Err(e) => {
                    problems.push(Problem::file(path, format!("not a JSON list of tasks ({e})")));
                    return;
                }
            }
        } else {
            let mut lines = src.lines();
            let v = (&mut lines)
                .filter_map(|(_, l)| serde_json::from_str::<Value>(&l).ok())
                .filter(Value::is_object)
                .map(TaskLite::of)
                .collect();
            problems.append(&mut lines.problems);
            v
        };
        let from_layout = crate::results::runs::is_task_type(&stem);
        let text = |v: &Option<Value>| v.as_ref().and_then(Value::as_str).unwrap_or("").to_string();
        for r in records {
            let dag = text(&r.dag_id);
            if dag.is_empty() {
                continue;
            }
            let link = r
                .spec
                .as_ref()
                .and_then(spec_query)
                .or_else(|| r.link.as_ref().and_then(Value::as_str).map(link_query));
            let (run, set, ty) = if from_layout {
                (run.clone(), set.clone(), stem.clone())
            } else {
                let spec = r.spec.as_ref();
                let kind = spec.and_then(|sp| sp.get("kind")).and_then(Value::as_str).unwrap_or("").to_string();
                let domain = spec
                    .and_then(|sp| sp.get("domain"))
                    .and_then(Value::as_str)
                    .map(|d| format!("{d}_function"))
                    .unwrap_or_default();
                (String::new(), domain, kind)
            };
            self.by_dag.entry(dag.clone()).or_default().push(TaskRef {
                run,
                task_set: set,
                task_type: ty,
                dag_id: dag,
                name: text(&r.name),
                link,
            });
        }
    }

    pub fn len(&self) -> usize {
        self.by_dag.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.by_dag.is_empty()
    }

    /// Fill what a session's task lacks (run, task set and type, name, link) from the tasks with its
    /// `dag_id`, keeping to the ones that agree with what it already has. Returns a note when the
    /// `dag_id` names several tasks that disagree on the run.
    pub fn complete(&self, t: &mut TaskRef) -> Option<String> {
        let cands = self.by_dag.get(&t.dag_id)?;
        let fits = |c: &&TaskRef| {
            (t.run.is_empty() || c.run.is_empty() || c.run == t.run)
                && (t.task_set.is_empty() || c.task_set == t.task_set)
                && (t.task_type.is_empty() || c.task_type == t.task_type)
                && (t.name.is_empty() || c.name == t.name)
        };
        let fit: Vec<&TaskRef> = cands.iter().filter(fits).collect();
        let runs: std::collections::BTreeSet<&str> =
            fit.iter().map(|c| c.run.as_str()).filter(|r| !r.is_empty()).collect();
        let first = fit.first()?;
        let mut note = None;
        if t.run.is_empty() {
            match runs.len() {
                1 => t.run = runs.iter().next().expect("one").to_string(),
                0 => {}
                k => note = Some(format!("dag_id {} is in {k} runs; its axis and n stay unknown", t.dag_id)),
            }
        }
        let all_same = |f: fn(&TaskRef) -> &str| fit.iter().all(|c| f(c) == f(first));
        if t.task_set.is_empty() && all_same(|c| &c.task_set) {
            t.task_set = first.task_set.clone();
        }
        if t.task_type.is_empty() && all_same(|c| &c.task_type) {
            t.task_type = first.task_type.clone();
        }
        if t.name.is_empty() && all_same(|c| &c.name) {
            t.name = first.name.clone();
        }
        if t.link.is_none() {
            t.link = fit.iter().find_map(|c| c.link.clone());
        }
        note
    }
}
