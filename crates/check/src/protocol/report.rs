//! From a response and a verdict to protocol messages (pure): the worker's job and the page's
//! checker both start with [`read_and_check`]; the worker turns the reading, the rubric and the
//! grading verdict into `progress` and `result` messages with the functions here.
//!
//! ```text
//! response ──read_and_check(task, response)──► Reading { candidate, how, rubric }  (or ResponseError)
//!    Reading ──static_checks / unreadable_result──► Check items, a result without hidden tests
//!    Reading + grade::Verdict ──graded_result──► GradeResult (checks: response, rubric, hidden_tests)
//! ```

use super::{Check, CheckSource, FirstFailure, FunctionReport, GradeResult, Progress, ServerMessage, PROTOCOL_VERSION};
use crate::grade::{CheckOutcome, FunctionResult, FunctionStatus, Verdict};
use crate::{parse_response, static_checks as rubric_of, Candidate, ResponseError, Rubric, RubricItem, TaskRef};
use std::borrow::Cow;

/// The id of the check that says how the response was read.
pub const RESPONSE_CHECK: &str = "response";
/// The id of the check of the hidden (behavioural) tests.
pub const HIDDEN_CHECK: &str = "hidden_tests";
/// The title of the response check.
pub const RESPONSE_TITLE: &str = "The response reads as a solution (file block, bare file or diff)";
/// Bytes of the candidate's stdout and stderr a result carries.
pub const OUTPUT_BYTES: usize = 4096;

/// A response read as a candidate file, and the static rubric of that file.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub candidate: Candidate,
    /// How it was read, for people: `read as diff (2 hunks applied)`.
    pub how: String,
    pub rubric: Rubric,
}

/// Read a response (file block, bare file or diff against the task's starter) and run the static
/// rubric on what it gives. The one path from pasted text to a static verdict, shared by the page's
/// checker and the worker.
pub fn read_and_check(task: &TaskRef, response: &str) -> Result<Reading, ResponseError> {
    let candidate = parse_response(response, task.starter)?;
    let mut how = format!("read as {}", candidate.format.as_str());
    if !candidate.notes.is_empty() {
        how.push_str(&format!(" ({})", candidate.notes.join("; ")));
    }
    let rubric = rubric_of(task, &candidate.code);
    Ok(Reading { candidate, how, rubric })
}

/// The `response` check of a reading: passed with how it was read, or failed with why not.
pub fn response_check(reading: &Result<Reading, ResponseError>) -> Check {
    let (passed, reason, line) = match reading {
        Ok(r) => (true, r.how.clone(), None),
        Err(e) => (false, e.message.clone(), e.line),
    };
    Check {
        item: RubricItem {
            id: Cow::Borrowed(RESPONSE_CHECK),
            title: RESPONSE_TITLE.into(),
            must_have: true,
            passed,
            reason,
            line,
        },
        source: CheckSource::Response,
    }
}

/// The rubric's items as checks of a result.
pub fn static_checks(rubric: &Rubric) -> Vec<Check> {
    rubric.items.iter().map(|i| Check { item: i.clone(), source: CheckSource::Static }).collect()
}

/// The `hidden_tests` check of a verdict; its line is the first failing check's, when it names one.
pub fn hidden_check(verdict: &Verdict, trials: usize) -> Check {
    Check {
        item: RubricItem {
            id: Cow::Borrowed(HIDDEN_CHECK),
            title: match verdict.kind.def().behaviour() {
                crate::grade::Behaviour::Functions => {
                    format!("Hidden tests: every function returns what the reference returns ({trials} trials)")
                }
                crate::grade::Behaviour::Calculators => format!(
                    "Hidden tests: CalculateA and CalculateB return what the reference's do ({trials} argument vectors), and the subclasses keep only the differences"
                ),
            },
            must_have: true,
            passed: verdict.passed,
            reason: verdict.message.clone(),
            line: verdict
                .checks
                .iter()
                .find(|c| c.outcome != CheckOutcome::Pass)
                .and_then(|c| c.metadata.get("line"))
                .and_then(|l| l.as_u64())
                .and_then(|l| usize::try_from(l).ok()),
        },
        source: CheckSource::Hidden,
    }
}

/// A function's hidden tests as reported on the wire.
pub fn function_report(f: &FunctionResult) -> FunctionReport {
    FunctionReport {
        name: f.name.clone(),
        status: match f.status {
            FunctionStatus::Pass => "pass",
            FunctionStatus::Fail => "fail",
            FunctionStatus::Error => "error",
            FunctionStatus::Missing => "missing",
        }
        .into(),
        passed: f.passed,
        failed: f.failed,
        errored: f.errored,
        first_failure: f.first_failure.as_ref().map(|ff| FirstFailure {
            trial: ff.trial,
            input: ff.inputs.clone(),
            expected: ff.expected.clone(),
            actual: ff.actual.clone(),
            message: ff.message.clone(),
        }),
    }
}

/// The stages of a job: reading and the rubric, the reference's run, the candidate's run.
pub const JOB_STAGES: usize = 3;

/// The `progress` message after the static rubric (its checks ride along).
pub fn static_progress(id: &str, checks: Vec<Check>) -> ServerMessage {
    ServerMessage::Progress(Progress {
        v: PROTOCOL_VERSION,
        id: id.to_string(),
        done: 1,
        total: JOB_STAGES,
        stage: "static".into(),
        checks,
    })
}

/// The `progress` message when `done` of the grader's `of` runs have finished (the reference's run
/// first, then the candidate's).
pub fn run_progress(id: &str, done: usize, of: usize) -> ServerMessage {
    ServerMessage::Progress(Progress {
        v: PROTOCOL_VERSION,
        id: id.to_string(),
        done: 1 + done.min(of),
        total: 1 + of,
        stage: if done >= of { "candidate" } else { "reference" }.into(),
        checks: vec![],
    })
}

fn empty_result(id: &str, spec: &str, trials: usize) -> GradeResult {
    GradeResult {
        v: PROTOCOL_VERSION,
        id: id.to_string(),
        passed: false,
        checks: vec![],
        functions: vec![],
        message: String::new(),
        static_passed: false,
        hidden_passed: None,
        format: None,
        spec: spec.to_string(),
        trials,
        seconds: 0.0,
        stdout: String::new(),
        stderr: String::new(),
    }
}

/// The result of a response that cannot be read: the failed `response` check, no hidden tests.
/// (`seconds` is left at 0 for the caller, who has a clock.)
pub fn unreadable_result(id: &str, spec: &str, trials: usize, error: &ResponseError) -> GradeResult {
    let mut r = empty_result(id, spec, trials);
    r.message = format!("the response cannot be read: {error}");
    r.checks.push(response_check(&Err(error.clone())));
    r
}

/// The result of a graded response: the `response` check, the rubric's items, the `hidden_tests`
/// check and the functions; it passes when every static must-have and the hidden tests pass. The
/// message is the verdict's when it passed, else the first failed must-have's, else the verdict's.
/// (`seconds` is left at 0 for the caller, who has a clock.)
pub fn graded_result(id: &str, spec: &str, trials: usize, reading: &Reading, verdict: &Verdict) -> GradeResult {
    let mut r = empty_result(id, spec, trials);
    r.format = Some(reading.candidate.format.as_str().to_string());
    r.checks.push(Check {
        item: RubricItem {
            id: Cow::Borrowed(RESPONSE_CHECK),
            title: RESPONSE_TITLE.into(),
            must_have: true,
            passed: true,
            reason: reading.how.clone(),
            line: None,
        },
        source: CheckSource::Response,
    });
    r.checks.extend(static_checks(&reading.rubric));
    r.checks.push(hidden_check(verdict, trials));
    r.functions = verdict.functions.iter().map(function_report).collect();
    r.static_passed = reading.rubric.passed();
    r.hidden_passed = Some(verdict.passed);
    r.passed = r.static_passed && verdict.passed;
    r.message = if r.passed {
        verdict.message.clone()
    } else if let Some(item) = reading.rubric.failed_must_haves().next() {
        format!("{}: {}", item.id, item.reason)
    } else {
        verdict.message.clone()
    };
    r.stdout = capped(&verdict.candidate_stdout, OUTPUT_BYTES);
    r.stderr = capped(&verdict.candidate_stderr, OUTPUT_BYTES);
    r
}

/// At most `max` bytes of `s` (cut at a character boundary), saying how long it was when cut.
pub fn capped(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &s[..end], s.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::{CheckResult, FirstFailure as GradeFirstFailure};
    use cabrito_gen::{Axis, Domain, Kind, TaskSpec};

    fn task() -> cabrito_gen::Task {
        cabrito_gen::generate(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 5, 1)).unwrap()
    }

    fn verdict(passed: bool) -> Verdict {
        Verdict {
            passed,
            kind: Kind::AddParameter,
            message: if passed { "all functions agree".into() } else { "f_a: 2 of 3 trials differ".into() },
            checks: vec![CheckResult {
                kind: "behavioral".into(),
                outcome: if passed { CheckOutcome::Pass } else { CheckOutcome::Fail },
                message: String::new(),
                metadata: serde_json::json!({"line": 12}),
            }],
            functions: vec![FunctionResult {
                name: "f_a".into(),
                status: if passed { FunctionStatus::Pass } else { FunctionStatus::Fail },
                passed: 1,
                failed: 2,
                errored: 0,
                first_failure: Some(GradeFirstFailure {
                    trial: 4,
                    stub_block: 3,
                    inputs: vec![("x".into(), "1".into())],
                    expected: Some("2".into()),
                    actual: Some("3".into()),
                    message: "differs".into(),
                }),
            }],
            trials: 3,
            candidate_stdout: "é".repeat(3000),
            candidate_stderr: String::new(),
            seconds: 1.5,
        }
    }

    #[test]
    fn the_reference_reads_and_passes_the_rubric() {
        let t = task();
        let r = read_and_check(&TaskRef::of(&t), &t.solution_code).unwrap();
        assert!(r.rubric.passed());
        assert_eq!(r.how, "read as bare");
        let diff = similar::TextDiff::from_lines(&t.starter_code, &t.solution_code).unified_diff().to_string();
        let r = read_and_check(&TaskRef::of(&t), &diff).unwrap();
        assert!(r.how.starts_with("read as diff ("), "{}", r.how);
        assert_eq!(r.candidate.code, t.solution_code);
        let e = read_and_check(&TaskRef::of(&t), "").unwrap_err();
        assert!(!e.message.is_empty());
    }

    #[test]
    fn a_graded_result_lists_response_rubric_and_hidden_checks() {
        let t = task();
        let reading = read_and_check(&TaskRef::of(&t), &t.solution_code).unwrap();
        let r = graded_result("j", "v=1&n=5", 3, &reading, &verdict(true));
        assert!(r.passed && r.static_passed && r.hidden_passed == Some(true));
        assert_eq!(r.checks.first().map(|c| &*c.id), Some(RESPONSE_CHECK));
        assert_eq!(r.checks.last().map(|c| &*c.id), Some(HIDDEN_CHECK));
        assert_eq!(r.checks.len(), reading.rubric.items.len() + 2);
        assert!(r.checks[1..r.checks.len() - 1].iter().all(|c| c.source == CheckSource::Static));
        assert_eq!(r.message, "all functions agree");
        assert_eq!(r.format.as_deref(), Some("bare"));
        assert_eq!(r.functions[0].status, "pass");
        assert_eq!(r.functions[0].first_failure.as_ref().unwrap().input, vec![("x".into(), "1".into())]);
        // Output is capped at a character boundary and says how long it was.
        assert!(r.stdout.len() <= OUTPUT_BYTES + 40 && r.stdout.ends_with("(6000 bytes in all)"), "{}", r.stdout);
        // The wire shape of a check is the rubric item's plus its source.
        let json = serde_json::to_value(&r.checks[1]).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "title", "must_have", "passed", "reason", "line", "source"]);
        let back: GradeResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn the_message_names_the_first_failed_must_have_before_the_hidden_tests() {
        let t = task();
        let reading = read_and_check(&TaskRef::of(&t), &t.starter_code).unwrap();
        assert!(!reading.rubric.passed());
        let r = graded_result("j", "", 3, &reading, &verdict(false));
        assert!(!r.passed && !r.static_passed && r.hidden_passed == Some(false));
        let first = reading.rubric.failed_must_haves().next().unwrap();
        assert_eq!(r.message, format!("{}: {}", first.id, first.reason));
        let hidden = r.checks.iter().find(|c| c.id == HIDDEN_CHECK).unwrap();
        assert_eq!((hidden.passed, hidden.line), (false, Some(12)));
        // Static checks pass, hidden tests fail: the verdict's message.
        let good = read_and_check(&TaskRef::of(&t), &t.solution_code).unwrap();
        let r = graded_result("j", "", 3, &good, &verdict(false));
        assert_eq!((r.passed, r.message.as_str()), (false, "f_a: 2 of 3 trials differ"));
        assert_eq!(r.functions[0].status, "fail");
    }

    #[test]
    fn an_unreadable_response_fails_with_its_line_and_no_hidden_tests() {
        let error = ResponseError { line: Some(7), message: "the hunk does not apply".into() };
        let r = unreadable_result("q", "v=1", 5, &error);
        assert!(!r.passed && r.hidden_passed.is_none() && r.format.is_none());
        assert_eq!(r.checks.len(), 1);
        assert_eq!((&*r.checks[0].id, r.checks[0].passed, r.checks[0].line), (RESPONSE_CHECK, false, Some(7)));
        assert_eq!(r.message, "the response cannot be read: line 7: the hunk does not apply");
    }

    #[test]
    fn progress_counts_stages() {
        let ServerMessage::Progress(p) = static_progress("a", vec![]) else { panic!("progress") };
        assert_eq!((p.done, p.total, p.stage.as_str()), (1, 3, "static"));
        let ServerMessage::Progress(p) = run_progress("a", 1, 2) else { panic!("progress") };
        assert_eq!((p.done, p.total, p.stage.as_str()), (2, 3, "reference"));
        let ServerMessage::Progress(p) = run_progress("a", 2, 2) else { panic!("progress") };
        assert_eq!((p.done, p.total, p.stage.as_str()), (3, 3, "candidate"));
        let ServerMessage::Progress(p) = run_progress("a", 9, 2) else { panic!("progress") };
        assert!(p.done <= p.total);
    }

    #[test]
    fn capping_keeps_short_text_and_character_boundaries() {
        assert_eq!(capped("abc", 3), "abc");
        assert_eq!(capped("abcd", 3), "abc… (4 bytes in all)");
        assert_eq!(capped("ééé", 3), "é… (6 bytes in all)");
        assert_eq!(capped("", 0), "");
    }
}
