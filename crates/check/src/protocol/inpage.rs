//! Hidden tests in the page, without a worker (pure): the checker web worker plans the two harness
//! runs and reads their output into the worker's `result`; Python (Pyodide, in a Web Worker of its
//! own, `www/pygrade/`) runs the same harness text the native grader runs, on the same requests:
//! `harness.py` for the kinds graded function by function, `merge_harness.py` for Merge Codebases.
//!
//! ```text
//! page ── Step::Plan {job} ──► checker worker: [`answer`]
//! page ◄── StepReply::Runs {harness, bodies: [reference, candidate]} (or Final: nothing to run)
//! page ── body ──► a fresh pygrade worker per run ──► BrowserRun (raw result lines)
//! page ── Step::Verdict {job, runs} ──► checker ──► StepReply::Final {message: result}
//! ```
//!
//! The page plans and judges (the checker is the page's own worker); a pygrade worker only runs
//! the harness and hands back its raw result lines, which are read as the native runner reads a
//! process's, so a hostile candidate can at most misreport its own run. The plan, the comparison
//! and the verdict are the native grader's ([`crate::grade`], [`crate::merge::behaviour`]), and so
//! are the per-call time limits (the harness's own; the pygrade worker makes its timer signal
//! fire). Only the process around the harness differs: the page's whole-run limit ends the Web
//! Worker where the native runner kills a process.

use super::checker::Request;
use super::report::{self, read_and_check};
use super::{ErrorCode, ServerMessage};
use crate::grade::outcome::{read_results, Ending};
use crate::grade::{self, Behaviour, CheckOutcome, GradeTask, HarnessOptions, RunOutcome, RunStatus, DEFAULT_TRIALS};
use crate::merge::behaviour as merge;
use cabrito_gen::{Domain, Kind};
use serde::{Deserialize, Serialize};

/// Why the page cannot run a task's hidden tests itself, if it cannot. Every kind runs in the page
/// (Merge Codebases with its own harness); array tasks do not, for want of numpy.
pub fn browser_refusal(_kind: Kind, domain: Domain) -> Option<String> {
    if domain == Domain::Array {
        return Some(
            "array tasks need numpy, which the page does not ship: their hidden tests run on the native worker only"
                .into(),
        );
    }
    None
}

fn default_trials() -> usize {
    DEFAULT_TRIALS
}

/// One response to grade in the page: the checker's request for its task, plus what the native
/// grader also reads (the task's key, its spec query) and the job's id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BrowserJob {
    pub id: String,
    /// The task's canonical spec query (the result's `spec`).
    pub spec: String,
    /// The task's identity (its dag id): the inputs are drawn from it.
    pub key: String,
    pub request: Request,
    #[serde(default = "default_trials")]
    pub trials: usize,
}

impl BrowserJob {
    /// The job for a response to a Cabrito task.
    pub fn for_task(id: impl Into<String>, task: &cabrito_gen::Task, response: &str) -> BrowserJob {
        BrowserJob {
            id: id.into(),
            spec: task.spec.to_query(),
            key: task.dag_id.clone(),
            request: Request::for_task(0, task, response),
            trials: DEFAULT_TRIALS,
        }
    }

    fn grade_task(&self) -> GradeTask {
        let r = &self.request;
        GradeTask {
            kind: r.kind,
            domain: r.domain,
            axis: r.axis,
            starter: r.starter.clone(),
            reference: r.reference.clone(),
            key: self.key.clone(),
            metadata: r.metadata.clone(),
        }
    }
}

/// What one harness run in Pyodide gave back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BrowserRun {
    /// The harness's result lines (what it wrote on its result channel).
    pub output: String,
    /// Set when Python raised out of the harness (the run did not finish): the exception.
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub seconds: f64,
    /// Set when the page stopped the run at its time limit (in seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<f64>,
}

/// The most result text one run may hand back (the harness writes a few kilobytes a run).
pub const MAX_RUN_OUTPUT_BYTES: usize = 16 << 20;

/// A message from the pygrade worker to the checker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Read the response, run the rubric and plan the runs.
    Plan { job: BrowserJob },
    /// The runs are done (the reference's, then the candidate's): the result.
    Verdict { job: BrowserJob, runs: Vec<BrowserRun> },
}

/// Which harness a run executes (the pygrade worker has both, as the native grader does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunHarness {
    /// `harness.py`: the reference's functions called on the plan's trials.
    #[default]
    Grade,
    /// `merge_harness.py`: `CalculateA` and `CalculateB` called on the argument vectors.
    Merge,
}

impl RunHarness {
    /// The harness of a kind's hidden tests.
    pub fn of(kind: Kind) -> RunHarness {
        match kind.def().behaviour() {
            Behaviour::Functions => RunHarness::Grade,
            Behaviour::Calculators => RunHarness::Merge,
        }
    }
}

/// The checker's answer to a [`Step`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum StepReply {
    /// Run `harness` on each body (the reference's, then the candidate's); `messages` are the
    /// worker's progress messages so far (JSON), for the page.
    Runs {
        id: String,
        #[serde(default)]
        harness: RunHarness,
        bodies: Vec<String>,
        messages: Vec<String>,
    },
    /// The job's final message (a result or an error, JSON), and the progress before it.
    Final { id: String, messages: Vec<String>, last: String },
}

/// The checker's answer to one step, JSON in and out; a message it cannot read gets an `error`.
pub fn answer(text: &str) -> String {
    let reply = match serde_json::from_str::<Step>(text) {
        Ok(step) => answer_step(&step),
        Err(e) => StepReply::Final {
            id: String::new(),
            messages: vec![],
            last: ServerMessage::error(None, ErrorCode::BadRequest, format!("the checker cannot read this step: {e}"))
                .to_json(),
        },
    };
    serde_json::to_string(&reply).unwrap_or_default()
}

/// Whether a message to the checker is a [`Step`] (JSON text with a `step`).
pub fn is_step(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains("\"step\"")
}

fn final_error(id: &str, code: ErrorCode, message: String) -> StepReply {
    StepReply::Final {
        id: id.to_string(),
        messages: vec![],
        last: ServerMessage::error(Some(id.to_string()), code, message).to_json(),
    }
}

/// The planned job: its task, rubric reading and what its two runs are.
struct Planned {
    task: GradeTask,
    reading: report::Reading,
    runs: Runs,
}

/// The runs of a job, by harness.
enum Runs {
    /// The reference's functions on the plan's trials (`harness.py`).
    Functions { prep: Box<grade::Prepared>, candidate: grade::CandidateProgram },
    /// `compute()` of both classes on the argument vectors (`merge_harness.py`); `names` are its
    /// parameters.
    Calculators { names: Vec<String>, vectors: Vec<Vec<i64>> },
}

/// The job's plan, as the native grader makes it (`runner::grade`, `merge_runner::grade`), or the
/// final reply when nothing is to run.
fn plan(job: &BrowserJob, messages: &mut Vec<String>) -> Result<Planned, StepReply> {
    let id = job.id.as_str();
    let task = job.grade_task();
    if let Some(why) = browser_refusal(task.kind, task.domain) {
        return Err(final_error(id, ErrorCode::BadRequest, why));
    }
    if job.request.bytes() > super::checker::MAX_REQUEST_BYTES || job.trials == 0 || job.trials > grade::MAX_TRIALS {
        return Err(final_error(id, ErrorCode::BadRequest, "the job is too large for the page".into()));
    }
    let reading = match read_and_check(&task.task_ref(), &job.request.response) {
        Ok(r) => r,
        Err(e) => {
            let result = report::unreadable_result(id, &job.spec, job.trials, &e);
            return Err(StepReply::Final {
                id: id.to_string(),
                messages: std::mem::take(messages),
                last: ServerMessage::Result(result).to_json(),
            });
        }
    };
    messages.push(report::static_progress(id, report::static_checks(&reading.rubric)).to_json());
    let finish = |verdict: grade::Verdict, messages: &mut Vec<String>| StepReply::Final {
        id: id.to_string(),
        messages: std::mem::take(messages),
        last: ServerMessage::Result(report::graded_result(id, &job.spec, job.trials, &reading, &verdict)).to_json(),
    };
    let code = &reading.candidate.code;
    let runs = match RunHarness::of(task.kind) {
        RunHarness::Merge => {
            let names = match merge::compute_params(&task.reference) {
                Ok(n) => n,
                Err(e) => {
                    let v = merge::error_verdict(&task, job.trials, format!("the task cannot be graded: {e}"));
                    return Err(finish(v, messages));
                }
            };
            let vectors = merge::vectors(&task.input_key(), names.len(), job.trials);
            // A candidate that does not compile needs no run.
            if grade::verdict::compilation(code).outcome != CheckOutcome::Pass {
                return Err(finish(merge::verdict(&task, code, &vectors, &names, None), messages));
            }
            Runs::Calculators { names, vectors }
        }
        RunHarness::Grade => {
            let prep = match grade::prepare(&task, job.trials) {
                Ok(p) => p,
                Err(e) => {
                    let v = grade::error_verdict(&task, job.trials, format!("the task cannot be graded: {e}"));
                    return Err(finish(v, messages));
                }
            };
            // A candidate that does not parse, or defines none of the reference's functions, needs
            // no run.
            match grade::candidate_program(&prep, code) {
                Ok(cp) if !cp.tested.is_empty() => Runs::Functions { prep: Box::new(prep), candidate: cp },
                other => {
                    let nothing = RunOutcome::failed(RunStatus::Completed, 0, 0);
                    let actual = other.ok().map(|_| RunOutcome::failed(RunStatus::Completed, 0, 0));
                    let v = grade::verdict(&task, &prep, code, &nothing, actual.as_ref());
                    return Err(finish(v, messages));
                }
            }
        }
    };
    Ok(Planned { task, reading, runs })
}

/// The two request bodies (the reference's, the candidate's), as the native grader sends them.
fn bodies(p: &Planned) -> Vec<String> {
    match &p.runs {
        Runs::Functions { prep, candidate } => {
            let opts = HarnessOptions::default();
            let plan = &prep.plan;
            let reference = grade::request_body(plan, &prep.reference_program, &prep.reference_defs, None, &opts);
            let candidate =
                grade::request_body(plan, &candidate.program, &candidate.defs, Some(&candidate.tested), &opts);
            vec![lossless(reference), lossless(candidate)]
        }
        Runs::Calculators { vectors, .. } => [&p.task.reference, &p.reading.candidate.code]
            .iter()
            .map(|program| merge::request(program, vectors, merge::CALL_TIMEOUT).to_string())
            .collect(),
    }
}

/// The verdict from the two runs, as the native grader gives it.
fn judge(p: &Planned, trials: usize, reference: &BrowserRun, candidate: &BrowserRun) -> grade::Verdict {
    let shape = match &p.runs {
        Runs::Functions { prep, .. } => grade::shape(&prep.plan),
        Runs::Calculators { vectors, .. } => vec![merge::CLASSES.len(); vectors.len()],
    };
    let expected = outcome(reference, &shape);
    let actual = outcome(candidate, &shape);
    let code = &p.reading.candidate.code;
    let reference_failed = || {
        format!(
            "the reference solution did not run to the end: {}; {}",
            expected.status.describe(),
            expected.stderr.trim()
        )
    };
    match &p.runs {
        Runs::Functions { .. } if expected.status != RunStatus::Completed => {
            grade::error_verdict(&p.task, trials, reference_failed())
        }
        Runs::Functions { prep, .. } => grade::verdict(&p.task, prep, code, &expected, Some(&actual)),
        Runs::Calculators { vectors, .. } if expected.status != RunStatus::Completed => {
            merge::error_verdict(&p.task, vectors.len(), reference_failed())
        }
        Runs::Calculators { names, vectors } => {
            merge::verdict(&p.task, code, vectors, names, Some((&expected, &actual)))
        }
    }
}

fn answer_step(step: &Step) -> StepReply {
    let mut messages = vec![];
    match step {
        Step::Plan { job } => match plan(job, &mut messages) {
            Err(reply) => reply,
            Ok(p) => StepReply::Runs {
                id: job.id.clone(),
                harness: RunHarness::of(p.task.kind),
                bodies: bodies(&p),
                messages,
            },
        },
        Step::Verdict { job, runs } => {
            let p = match plan(job, &mut messages) {
                Err(reply) => return reply,
                Ok(p) => p,
            };
            let [reference, candidate] = runs.as_slice() else {
                return final_error(&job.id, ErrorCode::BadRequest, format!("{} runs came back, not 2", runs.len()));
            };
            let mut verdict = judge(&p, job.trials, reference, candidate);
            verdict.seconds = reference.seconds + candidate.seconds;
            let mut result = report::graded_result(&job.id, &job.spec, job.trials, &p.reading, &verdict);
            result.seconds = verdict.seconds;
            StepReply::Final { id: job.id.clone(), messages: vec![], last: ServerMessage::Result(result).to_json() }
        }
    }
}

/// The request bodies are JSON text (ASCII-safe strings from `request_body`).
fn lossless(body: Vec<u8>) -> String {
    String::from_utf8(body).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A run's result lines read as the native runner reads a process's (`runner::outcome_from_raw`):
/// a partial last line is dropped; a run that raised out of the harness ended early.
pub fn outcome(run: &BrowserRun, shape: &[usize]) -> RunOutcome {
    let complete = match run.output.rfind('\n') {
        Some(i) => &run.output[..=i],
        None => "",
    };
    let stderr = run.error.clone().unwrap_or_default();
    if run.output.len() > MAX_RUN_OUTPUT_BYTES {
        let message = format!("the run wrote more than {} MiB of results", MAX_RUN_OUTPUT_BYTES >> 20);
        return protocol_failure(message, shape, stderr);
    }
    match read_results(complete, shape) {
        Ok((trials, ending)) => {
            let status = match (ending, &run.error) {
                _ if run.timed_out.is_some() => RunStatus::TimedOut { seconds: run.timed_out.unwrap_or_default() },
                (_, Some(_)) => RunStatus::Exited { code: 1 },
                (Ending::Done, None) => RunStatus::Completed,
                (Ending::StoppedAfterTimeout, None) => RunStatus::StoppedAfterTimeout,
                (Ending::Unfinished, None) => RunStatus::Exited { code: 0 },
            };
            RunOutcome { status, trials, stdout: String::new(), stderr, seconds: run.seconds }
        }
        Err(m) => protocol_failure(m, shape, stderr),
    }
}

/// A run whose result lines broke the protocol: no call has a result.
fn protocol_failure(message: String, shape: &[usize], stderr: String) -> RunOutcome {
    let mut failed = RunOutcome::failed(RunStatus::Protocol { message }, shape.len(), 0);
    failed.trials = shape.iter().map(|&n| grade::TrialOutcome { setup_error: None, calls: vec![None; n] }).collect();
    failed.stderr = stderr;
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_gen::{Axis, TaskSpec};

    fn job(kind: Kind, domain: Domain, response: impl Fn(&cabrito_gen::Task) -> String) -> BrowserJob {
        let t = cabrito_gen::generate(&TaskSpec::new(kind, domain, Axis::Traversal, 6, 3)).unwrap();
        BrowserJob::for_task("job-1", &t, &response(&t))
    }

    fn reply(step: &Step) -> StepReply {
        serde_json::from_str(&answer(&serde_json::to_string(step).unwrap())).unwrap()
    }

    #[test]
    fn a_plan_gives_two_bodies_and_the_static_progress() {
        let j = job(Kind::DeadCode, Domain::String, |t| t.solution_code.clone());
        let StepReply::Runs { id, harness, bodies, messages } = reply(&Step::Plan { job: j }) else { panic!() };
        assert_eq!(id, "job-1");
        assert_eq!(harness, RunHarness::Grade);
        assert_eq!(bodies.len(), 2);
        for b in &bodies {
            let v: serde_json::Value = serde_json::from_str(b).unwrap();
            assert_eq!(v["trials"].as_array().unwrap().len(), DEFAULT_TRIALS);
            assert!(v["strops"].is_string());
        }
        assert!(matches!(ServerMessage::parse(&messages[0]).unwrap(), ServerMessage::Progress(_)));
    }

    #[test]
    fn array_tasks_are_refused_with_a_reason() {
        let j = job(Kind::DeadCode, Domain::Array, |t| t.solution_code.clone());
        let StepReply::Final { last, .. } = reply(&Step::Plan { job: j }) else { panic!() };
        let ServerMessage::Error(e) = ServerMessage::parse(&last).unwrap() else { panic!() };
        assert!(e.message.contains("numpy"), "{}", e.message);
        assert!(browser_refusal(Kind::MergeCodebases, Domain::Math).is_none());
        assert!(browser_refusal(Kind::DeadCode, Domain::Math).is_none());
    }

    fn merge_job(response: impl Fn(&cabrito_gen::Task) -> String) -> BrowserJob {
        let t =
            cabrito_gen::generate(&TaskSpec::new(Kind::MergeCodebases, Domain::Math, Axis::Traversal, 12, 5)).unwrap();
        BrowserJob::for_task("merge-1", &t, &response(&t))
    }

    /// The merge harness's result lines: `values[t]` are vector `t`'s two results.
    fn merge_output(values: &[[i64; 2]]) -> BrowserRun {
        let mut output = String::new();
        for (t, v) in values.iter().enumerate() {
            for (i, x) in v.iter().enumerate() {
                output +=
                    &format!("{{\"k\":\"call\",\"trial\":{t},\"i\":{i},\"value\":{{\"t\":\"int\",\"v\":\"{x}\"}}}}\n");
            }
        }
        output += "{\"k\":\"done\",\"stopped\":null}\n";
        BrowserRun { output, error: None, seconds: 0.1, timed_out: None }
    }

    fn result(r: StepReply) -> crate::protocol::GradeResult {
        let StepReply::Final { last, .. } = r else { panic!("{r:?}") };
        let ServerMessage::Result(r) = ServerMessage::parse(&last).unwrap() else { panic!("{last}") };
        r
    }

    #[test]
    fn a_merge_plan_runs_the_merge_harness_on_the_native_vectors() {
        let j = merge_job(|t| t.solution_code.clone());
        let StepReply::Runs { harness, bodies, .. } = reply(&Step::Plan { job: j.clone() }) else { panic!() };
        assert_eq!(harness, RunHarness::Merge);
        let names = merge::compute_params(&j.request.reference).unwrap();
        let vectors = merge::vectors(&j.grade_task().input_key(), names.len(), DEFAULT_TRIALS);
        assert_eq!(vectors.len(), DEFAULT_TRIALS);
        for b in &bodies {
            let v: serde_json::Value = serde_json::from_str(b).unwrap();
            assert_eq!(v, merge::request(&j.request.reference, &vectors, merge::CALL_TIMEOUT));
        }
        // A candidate that does not compile fails without a run.
        let r = result(reply(&Step::Plan { job: merge_job(|_| "class CalculateA(:\n".into()) }));
        assert!(!r.passed && r.hidden_passed == Some(false), "{}", r.message);
    }

    #[test]
    fn a_merge_verdict_compares_the_two_runs() {
        let j = merge_job(|t| t.solution_code.clone());
        let same: Vec<[i64; 2]> = (0..DEFAULT_TRIALS as i64).map(|t| [t, -t]).collect();
        let runs = vec![merge_output(&same), merge_output(&same)];
        let r = result(reply(&Step::Verdict { job: j.clone(), runs }));
        assert!(r.passed, "{}", r.message);
        let mut wrong = same.clone();
        wrong[3][1] = 1000;
        let runs = vec![merge_output(&same), merge_output(&wrong)];
        let r = result(reply(&Step::Verdict { job: j.clone(), runs }));
        assert!(!r.passed && r.message.contains("CalculateB"), "{}", r.message);
        // The candidate's run stopped at the page's limit: a failure naming the first class.
        let stopped =
            BrowserRun { output: String::new(), error: Some("stopped".into()), seconds: 8.0, timed_out: Some(8.0) };
        let r = result(reply(&Step::Verdict { job: j.clone(), runs: vec![merge_output(&same), stopped.clone()] }));
        assert!(!r.passed && r.message.contains("CalculateA"), "{}", r.message);
        // The reference's run did not finish: an error verdict naming it.
        let r = result(reply(&Step::Verdict { job: j, runs: vec![stopped, merge_output(&same)] }));
        assert!(!r.passed && r.message.contains("reference"), "{}", r.message);
    }

    #[test]
    fn an_unreadable_or_empty_candidate_needs_no_run() {
        let j = job(Kind::DeadCode, Domain::Math, |_| "def f(:\n".into());
        let StepReply::Final { last, .. } = reply(&Step::Plan { job: j }) else { panic!() };
        let ServerMessage::Result(r) = ServerMessage::parse(&last).unwrap() else { panic!() };
        assert!(!r.passed);
    }

    #[test]
    fn runs_that_did_not_finish_fail_the_candidate_or_the_reference() {
        let j = job(Kind::DeadCode, Domain::Math, |t| t.solution_code.clone());
        let run = |output: &str, error: Option<&str>| BrowserRun {
            output: output.into(),
            error: error.map(str::to_string),
            seconds: 0.1,
            timed_out: None,
        };
        // The reference did not finish: an error verdict naming it.
        let runs = vec![run("", Some("MemoryError")), run("", None)];
        let StepReply::Final { last, .. } = reply(&Step::Verdict { job: j.clone(), runs }) else { panic!() };
        let ServerMessage::Result(r) = ServerMessage::parse(&last).unwrap() else { panic!() };
        assert!(!r.passed && r.message.contains("reference"), "{}", r.message);
        // Garbage output is a protocol error, not a panic.
        let runs = vec![run("{\"k\":\"done\"}\n", None), run("not json\n", None)];
        let StepReply::Final { last, .. } = reply(&Step::Verdict { job: j.clone(), runs }) else { panic!() };
        assert!(ServerMessage::parse(&last).is_ok());
        let runs = vec![run("", None)];
        let StepReply::Final { last, .. } = reply(&Step::Verdict { job: j, runs }) else { panic!() };
        assert!(matches!(ServerMessage::parse(&last).unwrap(), ServerMessage::Error(_)));
        assert!(answer("{").contains("bad_request"));
    }

    #[test]
    fn a_run_stopped_at_the_limit_or_too_large_fails_the_candidate() {
        let j = job(Kind::DeadCode, Domain::Math, |t| t.solution_code.clone());
        let StepReply::Runs { .. } = reply(&Step::Plan { job: j.clone() }) else { panic!() };
        let prep = grade::prepare(&j.grade_task(), j.trials).unwrap();
        let shape = grade::shape(&prep.plan);
        let stopped =
            BrowserRun { output: String::new(), error: Some("stopped".into()), seconds: 8.0, timed_out: Some(8.0) };
        assert_eq!(outcome(&stopped, &shape).status, RunStatus::TimedOut { seconds: 8.0 });
        let huge =
            BrowserRun { output: "x".repeat(MAX_RUN_OUTPUT_BYTES + 1), error: None, seconds: 1.0, timed_out: None };
        assert!(matches!(outcome(&huge, &shape).status, RunStatus::Protocol { .. }));
        // A reference that ran and a candidate stopped at the limit: a failed result, not an error.
        let fine = BrowserRun {
            output: "{\"k\":\"done\",\"stopped\":null}\n".into(),
            error: None,
            seconds: 0.1,
            timed_out: None,
        };
        let StepReply::Final { last, .. } = reply(&Step::Verdict { job: j, runs: vec![fine, stopped] }) else {
            panic!()
        };
        let ServerMessage::Result(r) = ServerMessage::parse(&last).unwrap() else { panic!("{last}") };
        assert!(!r.passed, "{}", r.message);
    }
}
