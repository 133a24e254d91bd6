//! Fair scheduling of jobs onto the grading slots, so big jobs do not starve small ones.
//!
//! Each job is queued with an estimate of its grading time ([`estimate_seconds`]). When a slot frees,
//! the next job has the smallest key:
//!
//! - **per-connection share**: fewer running jobs on its connection first;
//! - **small first, with ageing**: the smallest estimate, less the seconds waited;
//! - **a lane for small jobs**: large jobs ([`LARGE_SECONDS`]) never hold the last free slot.
//!
//! The estimate goes to the client in `accepted`, so it knows up front when a job will take long.

use cabrito_gen::spec::TaskSpec;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::oneshot;

/// Jobs estimated to take at least this many seconds are large.
pub const LARGE_SECONDS: f64 = 2.0;
/// Seconds of a run besides its calls (process, stubs, the program's definitions), measured on
/// this project's machine (BENCHMARKS.md).
const FIXED_SECONDS: f64 = 0.1;
/// Seconds per call per run, measured the same way (one trial calls every function once).
const SECONDS_PER_CALL: f64 = 40e-6;

/// A job's grading time, estimated from its spec before it is generated: the two runs go in
/// parallel, each calling every function once per trial.
pub fn estimate_seconds(spec: &TaskSpec, trials: usize) -> f64 {
    let s = spec.sizes();
    let functions = f64::from(s.n_init) + f64::from(s.n_edit) + 2.0;
    FIXED_SECONDS + functions * trials as f64 * SECONDS_PER_CALL
}

/// One job's hold on a slot: the slot frees when it is dropped.
pub struct Ticket {
    sched: Arc<Scheduler>,
    conn: u64,
    large: bool,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.sched.release(self.conn, self.large);
    }
}

struct Waiter {
    conn: u64,
    estimate: f64,
    large: bool,
    since: Instant,
    seq: u64,
    tx: oneshot::Sender<Ticket>,
}

#[derive(Default)]
struct State {
    running: usize,
    running_large: usize,
    per_conn: HashMap<u64, usize>,
    waiting: Vec<Waiter>,
    seq: u64,
}

/// The grading slots and the queue in front of them.
pub struct Scheduler {
    slots: usize,
    large_slots: usize,
    state: Mutex<State>,
}

impl Scheduler {
    pub fn new(slots: usize) -> Arc<Scheduler> {
        let slots = slots.max(1);
        Arc::new(Scheduler {
            slots,
            large_slots: if slots >= 2 { slots - 1 } else { 1 },
            state: Mutex::new(State::default()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue a job of connection `conn`; the receiver resolves with its ticket when it may run.
    /// Also returns how many queued jobs are ahead of it now. Dropping the receiver leaves the
    /// queue (a cancel).
    pub fn enqueue(self: &Arc<Self>, conn: u64, estimate: f64) -> (oneshot::Receiver<Ticket>, usize) {
        let (tx, rx) = oneshot::channel();
        let now = Instant::now();
        let (failed, ahead) = {
            let mut st = self.lock();
            st.seq += 1;
            let seq = st.seq;
            let me = Waiter { conn, estimate, large: estimate >= LARGE_SECONDS, since: now, seq, tx };
            let my_key = key(&st, &me, now);
            let ahead = st.waiting.iter().filter(|w| key(&st, w, now) < my_key).count();
            st.waiting.push(me);
            let failed = self.dispatch(&mut st);
            let queued = st.waiting.iter().any(|w| w.seq == seq);
            (failed, if queued { ahead } else { 0 })
        };
        drop(failed);
        (rx, ahead)
    }

    fn release(self: &Arc<Self>, conn: u64, large: bool) {
        let failed = {
            let mut st = self.lock();
            st.running = st.running.saturating_sub(1);
            if large {
                st.running_large = st.running_large.saturating_sub(1);
            }
            if let Some(n) = st.per_conn.get_mut(&conn) {
                *n -= 1;
                if *n == 0 {
                    st.per_conn.remove(&conn);
                }
            }
            self.dispatch(&mut st)
        };
        // Tickets whose job left the queue are dropped here, outside the lock (each frees its slot).
        drop(failed);
    }

    /// Start waiting jobs while slots are free; returns the tickets of jobs that had gone.
    fn dispatch(self: &Arc<Self>, st: &mut State) -> Vec<Ticket> {
        let mut gone = Vec::new();
        let now = Instant::now();
        while st.running < self.slots {
            let large_ok = st.running_large < self.large_slots;
            let best = st
                .waiting
                .iter()
                .enumerate()
                .filter(|(_, w)| large_ok || !w.large)
                .min_by(|(_, a), (_, b)| {
                    key(st, a, now).partial_cmp(&key(st, b, now)).unwrap_or(std::cmp::Ordering::Equal)
                })
                .map(|(i, _)| i);
            let Some(i) = best else { break };
            let w = st.waiting.swap_remove(i);
            st.running += 1;
            if w.large {
                st.running_large += 1;
            }
            *st.per_conn.entry(w.conn).or_insert(0) += 1;
            let ticket = Ticket { sched: self.clone(), conn: w.conn, large: w.large };
            if let Err(t) = w.tx.send(ticket) {
                gone.push(t);
            }
        }
        gone
    }

    /// Jobs running and waiting (for logs and tests).
    pub fn load(&self) -> (usize, usize) {
        let st = self.lock();
        (st.running, st.waiting.len())
    }
}

/// The order of waiting jobs: fewer running jobs of the same connection, then the smaller
/// estimate less the seconds waited, then arrival.
fn key(st: &State, w: &Waiter, now: Instant) -> (usize, f64, u64) {
    let running = st.per_conn.get(&w.conn).copied().unwrap_or(0);
    let aged = w.estimate - now.saturating_duration_since(w.since).as_secs_f64();
    (running, aged, w.seq)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cabrito_gen::spec::{Axis, Domain, Kind};

    fn ready(rx: &mut oneshot::Receiver<Ticket>) -> Option<Ticket> {
        rx.try_recv().ok()
    }

    #[test]
    fn estimates_grow_linearly_with_the_task() {
        let e = |n| estimate_seconds(&TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, n, 1), 50);
        assert!(e(25) < 0.5, "{}", e(25));
        assert!(e(2000) >= LARGE_SECONDS, "{}", e(2000));
        assert!(((e(2000) - FIXED_SECONDS) / (e(1000) - FIXED_SECONDS) - 2.0).abs() < 0.1);
    }

    #[test]
    fn small_jobs_pass_large_ones_and_keep_a_slot() {
        let s = Scheduler::new(2);
        // Two large jobs from one client: only one may hold a slot, the other waits.
        let (mut big1, _) = s.enqueue(1, 10.0);
        let (mut big2, ahead) = s.enqueue(1, 10.0);
        let t1 = ready(&mut big1).expect("the first large job runs");
        assert!(ready(&mut big2).is_none(), "a second large job must leave the small lane free");
        assert_eq!(ahead, 0);
        // A small job from another client runs at once, in the small lane.
        let (mut small, ahead) = s.enqueue(2, 0.2);
        assert_eq!(ahead, 0);
        let t2 = ready(&mut small).expect("the small job runs beside the large one");
        assert_eq!(s.load(), (2, 1));
        // More small jobs queue in front of the waiting large one.
        let (mut small2, ahead) = s.enqueue(3, 0.2);
        assert_eq!(ahead, 0, "ahead of the large job");
        drop(t2);
        let _t3 = ready(&mut small2).expect("the next small job runs");
        drop(t1);
        let _t4 = ready(&mut big2).expect("the large job runs once the other large one is done");
    }

    #[test]
    fn one_connection_does_not_take_every_slot() {
        let s = Scheduler::new(2);
        let mut mine: Vec<_> = (0..4).map(|_| s.enqueue(1, 0.3).0).collect();
        let held: Vec<Ticket> = mine.iter_mut().filter_map(ready).collect();
        assert_eq!(held.len(), 2);
        // Another client's job goes before client 1's third.
        let (mut other, _) = s.enqueue(2, 0.3);
        let mut held = held;
        held.pop();
        let _other = ready(&mut other).expect("the other connection goes first");
        assert!(mine.iter_mut().all(|r| ready(r).is_none()));
    }

    #[test]
    fn a_job_that_left_the_queue_frees_its_place() {
        let s = Scheduler::new(1);
        let (mut a, _) = s.enqueue(1, 0.1);
        let t = ready(&mut a).unwrap();
        let (b, _) = s.enqueue(2, 0.1);
        let (mut c, _) = s.enqueue(3, 0.1);
        drop(b); // cancelled while queued
        drop(t);
        let _c = ready(&mut c).expect("the next job runs");
        assert_eq!(s.load(), (1, 0));
    }
}
