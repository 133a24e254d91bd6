//! `cabrito generate`: one task as JSON, or as a folder.

use super::cli::{spec_from, Failure};
use cabrito_gen::kinds::prompt::llm_prompt;
use cabrito_gen::task::{export, generate_full};
use cabrito_gen::words::count;
use clap::ArgMatches;
use std::path::Path;

pub fn run(m: &ArgMatches) -> Result<(), Failure> {
    let spec = spec_from(m).map_err(Failure::Usage)?;
    let generated = generate_full(&spec).map_err(|e| Failure::Usage(e.to_string()))?;
    let task = &generated.task;
    // The record as the kind writes it out (merge: the reference's merge format plus Cabrito's fields).
    let record = serde_json::to_string_pretty(&export(task)).expect("a task serialises");
    match m.get_one::<String>("out") {
        None => {
            println!("{record}");
        }
        Some(dir) => {
            let dir = Path::new(dir);
            std::fs::create_dir_all(dir)
                .map_err(|e| Failure::Other(format!("cannot create {}: {e}", dir.display())))?;
            let write = |name: &str, text: &str| -> Result<(), Failure> {
                let path = dir.join(name);
                std::fs::write(&path, text).map_err(|e| Failure::Other(format!("cannot write {}: {e}", path.display())))
            };
            write("solution.py", &format!("{}\n", task.starter_code))?;
            write("reference.py", &format!("{}\n", task.solution_code))?;
            write("prompt.md", &format!("{}\n", task.prompt))?;
            write("llm_prompt.md", &llm_prompt(&task.prompt, &task.starter_code))?;
            write("task.json", &record)?;
            if let Some((graph, built)) = generated.call_graph() {
                write("dag.json", &serde_json::to_string_pretty(&task.graph).expect("json"))?;
                write("dag.dot", &cabrito_gen::graph::dot::to_dot(graph, &built.roles))?;
            }
            if m.get_flag("json") {
                println!("{record}");
            } else {
                eprintln!(
                    "wrote {} ({}, {} to edit)",
                    dir.display(),
                    count(task.sizes.functions, "function", "functions"),
                    task.sizes.functions_to_edit
                );
            }
        }
    }
    Ok(())
}
