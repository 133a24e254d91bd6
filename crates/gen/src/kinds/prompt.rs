//! The whole model prompt around a statement (every kind): the answer format and the codebase in
//! file blocks. Each kind writes its own statement (for the call-graph kinds,
//! [`super::graph_kind::statement`]).

/// The whole model prompt: answer format, the codebase in file blocks, then the statement.
pub fn llm_prompt(statement: &str, starter_code: &str) -> String {
    format!(
        "You are changing a small Python repository to solve the problem below.\n\
         Think first inside <thought>...</thought>, then give your answer inside one <solution>...</solution> \
         block that holds the whole changed repository, each file introduced by a line `# === <file name> ===`, \
         like this:\n\n<solution>\n# === solution.py ===\n<the complete new content of solution.py>\n</solution>\n\n\
         <code repository>\n# === solution.py ===\n{starter_code}\n</code repository>\n\n\
         <problem statement>\n{statement}\n</problem statement>\n"
    )
}
