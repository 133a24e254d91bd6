//! The grade panel's state: one struct, its [`PanelAction`]s and a pure reducer ([`Panel::reduce`]).
//! A static verdict is shown only when it answers the newest request, and a worker message about
//! another job than the current one is dropped.

use cabrito_check::protocol::checker::Reply;
use cabrito_check::protocol::{ErrorCode, FunctionReport, GradeResult, HelloReply, ServerMessage};
use cabrito_check::RubricItem;

/// The static checker (a web worker loaded after the first paint) as the page sees it.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckerStatus {
    /// Not asked for yet.
    Idle,
    /// Downloading and compiling.
    Loading,
    Ready,
    /// It could not load, or stopped; the reason is for the user.
    Failed(String),
}

/// What the page knows about the grading worker.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkerStatus {
    Probing,
    Connected(HelloReply),
    Absent(String),
}

/// Python in the page (Pyodide in a Web Worker), which runs the hidden tests when no worker is
/// connected; loaded only when first needed.
#[derive(Clone, Debug, PartialEq)]
pub enum BrowserStatus {
    /// Not asked for yet (or stopped at its time limit: it starts afresh at the next run).
    Idle,
    /// Downloading: bytes so far and in all.
    Loading {
        loaded: u64,
        total: u64,
    },
    Ready,
    /// It could not start; the reason is for the user.
    Failed(String),
}

/// Where a job's hidden tests run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The native grading worker.
    Worker,
    /// Pyodide in this page.
    Browser,
}

impl Place {
    /// The words a verdict ends with.
    pub fn words(self) -> &'static str {
        match self {
            Place::Worker => "on the worker",
            Place::Browser => "in your browser",
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Place::Worker => "worker",
            Place::Browser => "browser",
        }
    }
}

/// A stage of a running job, as the worker's `progress` names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Accepted, waiting for a slot.
    Queued,
    /// The response was read and the static rubric ran.
    Static,
    /// The reference's run finished.
    Reference,
    /// The candidate's run finished.
    Candidate,
    /// A stage this build does not know (a newer worker).
    Other(String),
}

impl Stage {
    pub fn from_wire(s: &str) -> Stage {
        match s {
            "queued" => Stage::Queued,
            "static" => Stage::Static,
            "reference" => Stage::Reference,
            "candidate" => Stage::Candidate,
            other => Stage::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Stage::Queued => "queued",
            Stage::Static => "static",
            Stage::Reference => "reference",
            Stage::Candidate => "candidate",
            Stage::Other(s) => s,
        }
    }
}

/// Why a job ended without a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobFailure {
    /// The worker answered with an error.
    Worker(ErrorCode),
    /// The connection failed or closed before the final reply.
    Connection,
}

impl JobFailure {
    pub fn as_str(&self) -> &'static str {
        match self {
            JobFailure::Worker(code) => code.as_str(),
            JobFailure::Connection => "connection",
        }
    }
}

/// The hidden-test job of the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    None,
    Sent { id: String },
    Running { id: String, done: usize, total: usize, stage: Stage },
    Done(Box<GradeResult>),
    Failed { failure: JobFailure, message: String },
}

impl Job {
    /// The id of a job still waiting for its final reply.
    pub fn pending_id(&self) -> Option<&str> {
        match self {
            Job::Sent { id } | Job::Running { id, .. } => Some(id),
            _ => None,
        }
    }
}

/// The newest request to the static checker: its id, and the page's clock when it was sent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Asked {
    pub id: u64,
    pub at: Option<f64>,
}

/// Everything the grade panel shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// The answer in the text area.
    pub text: String,
    /// The "share with solution" link made for this text, if one was asked for.
    pub share_link: Option<String>,
    pub checker: CheckerStatus,
    /// The newest checker request (none when the answer is empty).
    pub asked: Option<Asked>,
    /// The newest checker reply and the page's clock at its arrival.
    pub reply: Option<(Reply, Option<f64>)>,
    pub worker: WorkerStatus,
    /// Python in the page (for hidden tests without a worker).
    pub browser: BrowserStatus,
    pub job: Job,
    /// Where the current job runs (or ran).
    pub place: Place,
    /// Why the last text offered was not taken (too large, or not text), until the answer changes.
    pub notice: Option<String>,
}

/// Everything that changes the panel.
#[derive(Clone, Debug, PartialEq)]
pub enum PanelAction {
    /// Another task is shown: start from this answer (a solution shared in the link, or empty).
    NewTask(String),
    /// The answer was typed, pasted, dropped or filled in.
    SetText(String),
    /// A share link was made for the current answer.
    Shared(String),
    /// The editor refused a change (a paste too large), and says why.
    Notice(String),
    Checker(CheckerStatus),
    /// A request was sent to the checker (`None`: the answer is empty, nothing to check).
    Asked(Option<Asked>),
    /// The checker answered, at this time.
    CheckerReply(Reply, Option<f64>),
    Worker(WorkerStatus),
    /// A grade job was sent to the worker.
    JobStarted(String),
    /// A grade job was sent to the in-page grader (Python in the page).
    BrowserJobStarted(String),
    Browser(BrowserStatus),
    /// A message from the worker about a job (or its hello).
    Server(ServerMessage),
    /// The connection of job `id` ended before its final reply, and why.
    Lost {
        id: String,
        why: String,
    },
}

/// What the static part of the panel shows.
#[derive(Clone, Debug, PartialEq)]
pub enum StaticView<'a> {
    /// Nothing to check yet.
    Empty,
    /// Waiting for the checker, which is in this state.
    Pending(&'a CheckerStatus),
    /// The newest answer cannot be read as a solution.
    Unreadable(&'a str),
    /// The rubric of the newest answer.
    Verdict {
        how: &'a str,
        items: &'a [RubricItem],
        passed: bool,
        /// Milliseconds spent in the checker.
        ms: Option<f64>,
        /// Milliseconds from the request to the reply, as the page saw them.
        waited: Option<f64>,
    },
}

impl Default for Panel {
    fn default() -> Self {
        Panel::new(CheckerStatus::Idle)
    }
}

impl Panel {
    /// An empty panel; the checker may already be loaded (it lives as long as the page).
    pub fn new(checker: CheckerStatus) -> Panel {
        Panel {
            text: String::new(),
            share_link: None,
            checker,
            asked: None,
            reply: None,
            worker: WorkerStatus::Probing,
            browser: BrowserStatus::Idle,
            job: Job::None,
            place: Place::Worker,
            notice: None,
        }
    }

    /// The panel after an action.
    pub fn reduce(mut self, action: PanelAction) -> Panel {
        match action {
            PanelAction::NewTask(text) => {
                self.text = text;
                self.share_link = None;
                self.job = Job::None;
                self.notice = None;
            }
            PanelAction::SetText(text) => match refusal(&text) {
                // The answer keeps what it had; the notice says why the new text was not taken.
                Some(why) => self.notice = Some(why),
                None => {
                    if text != self.text {
                        self.share_link = None;
                    }
                    self.text = text;
                    self.notice = None;
                }
            },
            PanelAction::Notice(why) => self.notice = Some(why),
            PanelAction::Shared(link) => self.share_link = Some(link),
            PanelAction::Checker(status) => self.checker = status,
            PanelAction::Asked(asked) => self.asked = asked,
            PanelAction::CheckerReply(reply, at) => match reply {
                // A checker that stopped is a status, not a verdict.
                Reply::Failed { why } => self.checker = CheckerStatus::Failed(why),
                Reply::Ready => self.checker = CheckerStatus::Ready,
                reply => self.reply = Some((reply, at)),
            },
            PanelAction::Worker(w) => self.worker = w,
            PanelAction::JobStarted(id) => {
                self.job = Job::Sent { id };
                self.place = Place::Worker;
            }
            PanelAction::BrowserJobStarted(id) => {
                self.job = Job::Sent { id };
                self.place = Place::Browser;
            }
            PanelAction::Browser(b) => self.browser = b,
            PanelAction::Lost { id, why } => {
                if self.job.pending_id() == Some(id.as_str()) {
                    self.job = Job::Failed { failure: JobFailure::Connection, message: why };
                }
            }
            PanelAction::Server(msg) => {
                // Replies to an earlier job (after a reset or a new task) are dropped.
                if msg.id().is_some() && msg.id() != self.job.pending_id() {
                    return self;
                }
                match msg {
                    ServerMessage::Hello(h) => self.worker = WorkerStatus::Connected(h),
                    ServerMessage::Accepted(a) => {
                        self.job = Job::Running { id: a.id, done: 0, total: 0, stage: Stage::Queued }
                    }
                    ServerMessage::Progress(p) => {
                        self.job =
                            Job::Running { id: p.id, done: p.done, total: p.total, stage: Stage::from_wire(&p.stage) }
                    }
                    ServerMessage::Result(r) => self.job = Job::Done(Box::new(r)),
                    // The task page sends no `run`: an answer to one is not its job's.
                    ServerMessage::Ran(_) => {}
                    ServerMessage::Error(e) => {
                        self.job = Job::Failed { failure: JobFailure::Worker(e.code), message: e.message }
                    }
                }
            }
        }
        self
    }

    /// Whether there is an answer to check or grade.
    pub fn has_answer(&self) -> bool {
        !self.text.trim().is_empty()
    }

    /// A job is waiting for its final reply.
    pub fn busy(&self) -> bool {
        self.job.pending_id().is_some()
    }

    /// The hidden tests can be started now: on the worker, or without one in the page.
    pub fn can_run(&self) -> bool {
        self.run_place().is_some() && !self.busy() && self.has_answer()
    }

    /// Where the next hidden tests would run: on a connected worker, else in the page once the
    /// probe has found no worker (none while it is still looking).
    pub fn run_place(&self) -> Option<Place> {
        match self.worker {
            WorkerStatus::Connected(_) => Some(Place::Worker),
            WorkerStatus::Absent(_) => Some(Place::Browser),
            WorkerStatus::Probing => None,
        }
    }

    /// What the static part shows: the newest reply only when it answers the newest request.
    pub fn static_view(&self) -> StaticView<'_> {
        let Some(asked) = &self.asked else { return StaticView::Empty };
        let answer = match &self.reply {
            Some((r @ (Reply::Verdict { id, .. } | Reply::Unreadable { id, .. }), at)) if *id == asked.id => {
                Some((r, at))
            }
            _ => None,
        };
        match answer {
            None => StaticView::Pending(&self.checker),
            Some((Reply::Unreadable { why, .. }, _)) => StaticView::Unreadable(why),
            Some((Reply::Verdict { how, items, ms, .. }, at)) => StaticView::Verdict {
                how,
                items,
                passed: Reply::passed(items),
                ms: *ms,
                waited: match (asked.at, at) {
                    (Some(a), Some(b)) => Some(b - a),
                    _ => None,
                },
            },
            Some(_) => StaticView::Pending(&self.checker),
        }
    }
}

/// Why a text cannot be the answer, if it cannot: more than the grader reads
/// ([`MAX_RESPONSE_BYTES`]), or binary bytes (a NUL, which no Python source holds, or the
/// replacement characters a binary file read as text is full of).
pub fn refusal(text: &str) -> Option<String> {
    use cabrito_check::response::MAX_RESPONSE_BYTES;
    if text.len() > MAX_RESPONSE_BYTES {
        return Some(format!(
            "That text was not taken: it is {:.1} MB, and at most {} MB can be graded. The answer is unchanged.",
            text.len() as f64 / 1_048_576.0,
            MAX_RESPONSE_BYTES / 1_048_576
        ));
    }
    if let Some(at) = text.find('\0') {
        let line = text[..at].matches('\n').count() + 1;
        return Some(format!(
            "That text was not taken: it holds binary bytes (a NUL byte on line {line}), so it is not a Python file. The answer is unchanged."
        ));
    }
    let replaced = text.matches('\u{FFFD}').count();
    if replaced > 8 && replaced * 100 > text.chars().count() {
        return Some(format!(
            "That text was not taken: {replaced} of its characters are not UTF-8 text, so it looks like a binary file, not Python. The answer is unchanged."
        ));
    }
    None
}

/// A rubric's items in the order a reader needs them: the failing ones first (must-haves before
/// nice-to-haves), then the passing ones, each group in the rubric's own order.
pub fn failing_first(items: &[RubricItem]) -> (Vec<&RubricItem>, Vec<&RubricItem>) {
    let mut failing: Vec<&RubricItem> = items.iter().filter(|i| !i.passed).collect();
    failing.sort_by_key(|i| !i.must_have);
    (failing, items.iter().filter(|i| i.passed).collect())
}

/// The worker's isolation (its hello's one line, `sandbox::Isolation::describe`) in a word or two for
/// the grade panel: "sandboxed", or "partly sandboxed (…)" naming what is not isolated.
pub fn isolation_summary(isolation: &str) -> String {
    if isolation.trim().is_empty() {
        return "isolation not reported".to_string();
    }
    let gaps: Vec<&str> = [("NETWORK NOT ISOLATED", "network open"), ("HOST FILES READABLE", "host files readable")]
        .iter()
        .filter(|(said, _)| isolation.contains(said))
        .map(|(_, short)| *short)
        .collect();
    if gaps.is_empty() {
        "sandboxed".to_string()
    } else {
        format!("partly sandboxed ({})", gaps.join(", "))
    }
}

/// The functions of a result whose hidden tests did not all pass.
pub fn failing_functions(r: &GradeResult) -> impl Iterator<Item = &FunctionReport> {
    r.functions.iter().filter(|f| f.status != "pass")
}

/// Every function of a result passed (and there was at least one).
pub fn all_functions_pass(r: &GradeResult) -> bool {
    !r.functions.is_empty() && failing_functions(r).next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_check::protocol::{Accepted, GradeResult, Limits, Progress, PROTOCOL_VERSION};
    use std::borrow::Cow;

    fn item(id: &'static str, must_have: bool, passed: bool) -> RubricItem {
        RubricItem { id: Cow::Borrowed(id), title: id.into(), must_have, passed, reason: String::new(), line: None }
    }

    fn hello() -> HelloReply {
        HelloReply {
            v: 1,
            server: "cabrito test".into(),
            limits: Limits {
                max_message_bytes: 1,
                max_jobs_per_connection: 1,
                max_queued_jobs: 1,
                workers: 1,
                default_trials: 1,
                max_trials: 1,
                job_timeout_seconds: 1.0,
                idle_timeout_seconds: 1.0,
                handshake_timeout_seconds: 1.0,
                max_connections: 1,
            },
            generator_versions: vec![1],
            isolation: String::new(),
        }
    }

    fn result(id: &str, passed: bool) -> GradeResult {
        let mut r: GradeResult =
            serde_json::from_str(&format!(r#"{{"v":1,"id":"{id}","passed":{passed},"checks":[],"functions":[]}}"#))
                .unwrap();
        r.message = "m".into();
        r
    }

    fn run(actions: impl IntoIterator<Item = PanelAction>) -> Panel {
        actions.into_iter().fold(Panel::default(), Panel::reduce)
    }

    #[test]
    fn only_the_reply_to_the_newest_request_is_shown() {
        let p = run([
            PanelAction::SetText("x = 1".into()),
            PanelAction::Asked(Some(Asked { id: 1, at: Some(10.0) })),
            PanelAction::SetText("x = 2".into()),
            PanelAction::Asked(Some(Asked { id: 2, at: Some(20.0) })),
            PanelAction::Checker(CheckerStatus::Ready),
            PanelAction::CheckerReply(
                Reply::Verdict { id: 1, how: "read as bare".into(), items: vec![item("a", true, true)], ms: None },
                Some(25.0),
            ),
        ]);
        assert_eq!(p.static_view(), StaticView::Pending(&CheckerStatus::Ready));
        let items = vec![item("a", true, true), item("b", false, false)];
        let p = p.reduce(PanelAction::CheckerReply(
            Reply::Verdict { id: 2, how: "read as diff".into(), items: items.clone(), ms: Some(1.5) },
            Some(26.0),
        ));
        assert_eq!(
            p.static_view(),
            StaticView::Verdict { how: "read as diff", items: &items, passed: true, ms: Some(1.5), waited: Some(6.0) }
        );
        let p = p.reduce(PanelAction::CheckerReply(
            Reply::Verdict { id: 2, how: String::new(), items: vec![item("c", true, false)], ms: None },
            None,
        ));
        assert!(matches!(p.static_view(), StaticView::Verdict { passed: false, waited: None, .. }));
        let p = p.reduce(PanelAction::CheckerReply(Reply::Unreadable { id: 2, why: "no hunk".into() }, None));
        assert_eq!(p.static_view(), StaticView::Unreadable("no hunk"));
        // An emptied answer shows nothing, whatever came before.
        let p = p.reduce(PanelAction::Asked(None));
        assert_eq!(p.static_view(), StaticView::Empty);
    }

    #[test]
    fn a_checker_that_fails_is_a_status() {
        let p = run([
            PanelAction::Asked(Some(Asked { id: 1, at: None })),
            PanelAction::Checker(CheckerStatus::Loading),
            PanelAction::CheckerReply(Reply::Failed { why: "no wasm".into() }, None),
        ]);
        assert_eq!(p.checker, CheckerStatus::Failed("no wasm".into()));
        assert_eq!(p.static_view(), StaticView::Pending(&CheckerStatus::Failed("no wasm".into())));
    }

    #[test]
    fn a_job_goes_through_typed_stages_and_ignores_other_jobs() {
        let p = run([PanelAction::Worker(WorkerStatus::Connected(hello())), PanelAction::SetText("code".into())]);
        assert!(p.can_run());
        let p = p.reduce(PanelAction::JobStarted("j1".into()));
        assert!(p.busy() && !p.can_run());
        let accepted = ServerMessage::Accepted(Accepted {
            v: 1,
            id: "j1".into(),
            spec: String::new(),
            trials: 3,
            estimated_seconds: None,
            queued_ahead: None,
            note: None,
        });
        let p = p.reduce(PanelAction::Server(accepted));
        assert_eq!(p.job, Job::Running { id: "j1".into(), done: 0, total: 0, stage: Stage::Queued });
        let progress = |id: &str, done, stage: &str| {
            PanelAction::Server(ServerMessage::Progress(Progress {
                v: PROTOCOL_VERSION,
                id: id.into(),
                done,
                total: 3,
                stage: stage.into(),
                checks: vec![],
            }))
        };
        let p = p.reduce(progress("j1", 2, "reference"));
        assert_eq!(p.job, Job::Running { id: "j1".into(), done: 2, total: 3, stage: Stage::Reference });
        // A message about another job changes nothing.
        let p2 = p.clone().reduce(progress("old", 3, "candidate"));
        assert_eq!(p2, p);
        let p2 = p.clone().reduce(PanelAction::Server(ServerMessage::Result(result("old", true))));
        assert_eq!(p2, p);
        let p2 = p.clone().reduce(PanelAction::Lost { id: "old".into(), why: "gone".into() });
        assert_eq!(p2, p);
        let p = p.reduce(progress("j1", 3, "warp"));
        assert!(matches!(&p.job, Job::Running { stage: Stage::Other(s), .. } if s == "warp"));
        let done = p.clone().reduce(PanelAction::Server(ServerMessage::Result(result("j1", true))));
        assert!(matches!(&done.job, Job::Done(r) if r.passed) && done.can_run());
        let Job::Done(r) = &done.job else { panic!() };
        assert!(!all_functions_pass(r), "no functions is not all passing");
        let failed =
            p.clone().reduce(PanelAction::Server(ServerMessage::error(Some("j1".into()), ErrorCode::Timeout, "slow")));
        assert_eq!(failed.job, Job::Failed { failure: JobFailure::Worker(ErrorCode::Timeout), message: "slow".into() });
        let lost = p.reduce(PanelAction::Lost { id: "j1".into(), why: "closed".into() });
        assert_eq!(lost.job, Job::Failed { failure: JobFailure::Connection, message: "closed".into() });
        assert_eq!(JobFailure::Connection.as_str(), "connection");
    }

    #[test]
    fn a_new_task_resets_the_answer_the_link_and_the_job() {
        let p = run([
            PanelAction::SetText("a".into()),
            PanelAction::Shared("#/task?solution=x".into()),
            PanelAction::JobStarted("j".into()),
        ]);
        assert!(p.share_link.is_some() && p.busy());
        // The same text keeps the link; another text drops it.
        let same = p.clone().reduce(PanelAction::SetText("a".into()));
        assert!(same.share_link.is_some());
        assert!(p.clone().reduce(PanelAction::SetText("b".into())).share_link.is_none());
        let p = p.reduce(PanelAction::NewTask("shared".into()));
        assert_eq!((p.text.as_str(), p.share_link.as_ref(), &p.job), ("shared", None, &Job::None));
        // A late reply to the old job is dropped.
        let p = p.reduce(PanelAction::Server(ServerMessage::Result(result("j", true))));
        assert_eq!(p.job, Job::None);
        assert!(!p.clone().reduce(PanelAction::SetText("  \n".into())).has_answer());
    }

    #[test]
    fn the_hello_connects_and_stages_read_back() {
        let p = run([PanelAction::Server(ServerMessage::Hello(hello()))]);
        assert!(matches!(p.worker, WorkerStatus::Connected(_)));
        for s in ["queued", "static", "reference", "candidate", "later"] {
            assert_eq!(Stage::from_wire(s).as_str(), s);
        }
    }

    #[test]
    fn too_large_or_binary_text_is_refused_and_the_answer_kept() {
        let p = Panel::default().reduce(PanelAction::SetText("def f(): pass\n".into()));
        let huge = "x = 1\n".repeat(cabrito_check::response::MAX_RESPONSE_BYTES / 6 + 10);
        let big = p.clone().reduce(PanelAction::SetText(huge));
        assert_eq!(big.text, p.text);
        assert!(
            big.notice.as_deref().is_some_and(|n| n.contains("MB") && n.contains("at most 2 MB")),
            "{:?}",
            big.notice
        );
        let nul = p.clone().reduce(PanelAction::SetText("x = 1\ny = \0\n".into()));
        assert_eq!(nul.text, p.text);
        assert!(nul.notice.as_deref().is_some_and(|n| n.contains("NUL byte on line 2")), "{:?}", nul.notice);
        let garbage: String = std::iter::repeat_n('\u{FFFD}', 50).chain("ab".chars()).collect();
        assert!(p.clone().reduce(PanelAction::SetText(garbage)).notice.is_some());
        // Accented text and a stray replacement character are text.
        let ok = p.clone().reduce(PanelAction::SetText("s = 'été \u{FFFD}'\n".into()));
        assert!(ok.notice.is_none() && ok.text.contains("été"));
        // The next accepted text clears the notice.
        let next = big.reduce(PanelAction::SetText("y = 2\n".into()));
        assert_eq!((next.text.as_str(), next.notice), ("y = 2\n", None));
    }

    #[test]
    fn failing_items_come_first_must_haves_before_nice() {
        let items = [item("a", true, true), item("b", false, false), item("c", true, false), item("d", false, true)];
        let (failing, passing) = failing_first(&items);
        let ids = |v: &[&RubricItem]| v.iter().map(|i| i.id.to_string()).collect::<Vec<_>>();
        assert_eq!(ids(&failing), ["c", "b"]);
        assert_eq!(ids(&passing), ["a", "d"]);
    }

    #[test]
    fn isolation_reads_in_a_word() {
        assert_eq!(
            isolation_summary("each run its own process; no network (empty network namespace); minimal read-only root"),
            "sandboxed"
        );
        assert_eq!(
            isolation_summary("rlimits; NETWORK NOT ISOLATED; HOST FILES READABLE (no mount namespace)"),
            "partly sandboxed (network open, host files readable)"
        );
        assert_eq!(isolation_summary(""), "isolation not reported");
    }

    #[test]
    fn without_a_worker_the_hidden_tests_run_in_the_page_and_say_so() {
        let p = Panel::default().reduce(PanelAction::SetText("x = 1\n".into()));
        assert_eq!((p.can_run(), p.run_place()), (false, None));
        let p = p.reduce(PanelAction::Worker(WorkerStatus::Absent("no worker".into())));
        assert_eq!((p.can_run(), p.run_place()), (true, Some(Place::Browser)));
        let p = p
            .reduce(PanelAction::BrowserJobStarted("job-b".into()))
            .reduce(PanelAction::Browser(BrowserStatus::Loading { loaded: 5, total: 10 }));
        assert!(p.busy() && !p.can_run());
        assert_eq!((p.place, p.place.words()), (Place::Browser, "in your browser"));
        let p = p.reduce(PanelAction::Server(ServerMessage::Result(result("job-b", true))));
        assert!(matches!(p.job, Job::Done(_)) && p.place == Place::Browser);
        // A worker found later takes over.
        let p = p.reduce(PanelAction::Worker(WorkerStatus::Connected(hello())));
        assert_eq!(p.run_place(), Some(Place::Worker));
        let p = p.reduce(PanelAction::JobStarted("job-w".into()));
        assert_eq!(p.place.words(), "on the worker");
    }
}
