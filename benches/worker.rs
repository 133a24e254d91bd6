//! `cargo bench --bench worker`: the grading worker over real WebSockets. Jobs per second and
//! p50/p95 latency (send to final reply, queueing included) for `n = 25` tasks with 1, 8 and 50
//! clients, each client sending one job at a time, back to back (peak throughput); then the
//! classroom: 50 clients, each grading a task of its own seed at random times, one job every 30 s
//! on average per client (exponential gaps, about 1.7 jobs/s in all); prints tables.
//!
//! "warm": four tasks whose reference outputs the worker has cached (the usual case: a class
//! grades the same task); "cold": a new task (seed) for every job, so the reference runs too.
//! Environment: `WORKER_BENCH_TRIALS` (default 50, the paper's) sets the trials per function;
//! `WORKER_BENCH_CLASSROOM_SECONDS` (default 90) how long students keep sending;
//! `WORKER_BENCH_POOL=0` runs every Python program in a fresh process instead of the pool;
//! `WORKER_BENCH_ONLY=peak|classroom` runs one part.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native_bench::main();
}

#[cfg(not(target_arch = "wasm32"))]
mod native_bench {

    use cabrito_check::protocol::{ClientMessage, ServerMessage};
    use cabrito_gen::{Axis, Domain, Kind, TaskSpec};
    use cabrito_native::worker::{router, WorkerConfig};
    use futures_util::{SinkExt, StreamExt};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};
    use tokio_tungstenite::tungstenite::Message;

    fn spec(seed: u64) -> TaskSpec {
        TaskSpec::new(Kind::AddParameter, Domain::Math, Axis::Traversal, 25, seed)
    }

    async fn client(addr: std::net::SocketAddr, jobs: usize, trials: usize, cold: Option<Arc<AtomicU64>>) -> Vec<f64> {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await.expect("connect");
        // The worker grades nothing before the client's hello.
        ws.send(Message::text(ClientMessage::hello().to_json())).await.expect("send");
        let _ = tokio::time::timeout(Duration::from_secs(60), ws.next()).await.expect("hello back");
        let mut lat = Vec::with_capacity(jobs);
        for j in 0..jobs {
            let seed = match &cold {
                Some(next) => next.fetch_add(1, Ordering::Relaxed),
                None => (j % 4) as u64,
            };
            let s = spec(seed);
            let code = cabrito_gen::generate(&s).expect("task").solution_code;
            let id = format!("j{j}");
            let start = Instant::now();
            let msg = ClientMessage::grade(id.clone(), &s, code, Some(trials)).to_json();
            ws.send(Message::text(msg)).await.expect("send");
            loop {
                let frame = tokio::time::timeout(Duration::from_secs(600), ws.next()).await.expect("reply in time");
                let Some(Ok(Message::Text(t))) = frame else { panic!("connection closed") };
                let m = ServerMessage::parse(t.as_str()).expect("message");
                if m.is_final() && m.id() == Some(id.as_str()) {
                    match m {
                        ServerMessage::Result(r) if r.passed => {}
                        other => panic!("the reference must pass: {other:?}"),
                    }
                    break;
                }
            }
            lat.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        lat
    }

    /// One student: `jobs` submissions of the reference solution of its own task, each after an
    /// exponential gap of mean `mean_gap` seconds (drawn from a seeded stream).
    async fn student(addr: std::net::SocketAddr, who: u64, trials: usize, mean_gap: f64, until: Instant) -> Vec<f64> {
        let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws")).await.expect("connect");
        // Say hello at once, as the app does (the worker closes connections silent past the handshake timeout).
        ws.send(Message::text(ClientMessage::hello().to_json())).await.expect("send");
        let _ = tokio::time::timeout(Duration::from_secs(60), ws.next()).await.expect("hello back");
        let mut rng = cabrito_gen::rng::stream(&format!("student {who}"), "bench/classroom");
        let s = spec(20_000 + who);
        let code = cabrito_gen::generate(&s).expect("task").solution_code;
        let mut lat = Vec::new();
        for j in 0.. {
            let u = cabrito_gen::graph::sample::uniform(&mut rng, 0.0, 1.0);
            let gap = -mean_gap * (1.0 - u).ln();
            let at = Instant::now() + Duration::from_secs_f64(gap);
            if at >= until {
                break;
            }
            tokio::time::sleep_until(at.into()).await;
            let id = format!("s{who}-{j}");
            let start = Instant::now();
            let msg = ClientMessage::grade(id.clone(), &s, code.clone(), Some(trials)).to_json();
            ws.send(Message::text(msg)).await.expect("send");
            loop {
                let frame = tokio::time::timeout(Duration::from_secs(600), ws.next()).await.expect("reply in time");
                let Some(Ok(Message::Text(t))) = frame else { panic!("connection closed") };
                let m = ServerMessage::parse(t.as_str()).expect("message");
                if m.is_final() && m.id() == Some(id.as_str()) {
                    match m {
                        ServerMessage::Result(r) if r.passed => {}
                        other => panic!("the reference must pass: {other:?}"),
                    }
                    break;
                }
            }
            lat.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        lat
    }

    fn pct(sorted: &[f64], p: f64) -> f64 {
        let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
        sorted[i.min(sorted.len() - 1)]
    }

    pub fn main() {
        let trials: usize = std::env::var("WORKER_BENCH_TRIALS").ok().and_then(|t| t.parse().ok()).unwrap_or(50);
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
        let only = std::env::var("WORKER_BENCH_ONLY").unwrap_or_default();
        let classroom_secs: f64 =
            std::env::var("WORKER_BENCH_CLASSROOM_SECONDS").ok().and_then(|t| t.parse().ok()).unwrap_or(90.0);
        let mut cfg = WorkerConfig { log: false, ..Default::default() };
        cfg.grade.pool = std::env::var("WORKER_BENCH_POOL").map(|v| v != "0").unwrap_or(true);
        cfg.limits.max_queued_jobs = 1000;
        cfg.limits.max_trials = trials.max(cfg.limits.max_trials);
        cfg.limits.job_timeout_seconds = 600.0;
        let workers = cfg.limits.workers;
        let cfg_pool = cfg.grade.pool;
        let addr = rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = listener.local_addr().expect("addr");
            let app = router(cfg);
            tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
            addr
        });
        println!(
            "worker: {workers} worker slots on {} cores; n = 25 add_parameter/math/traversal (50 functions), {trials} trials per function",
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0)
        );
        println!("isolation: {}", cabrito_native::runner::isolation().describe());
        println!("interpreter pool: {}", if cfg_pool { "on" } else { "off (a fresh process per run)" });
        // Warm the four tasks' reference outputs.
        rt.block_on(client(addr, 4, trials, None));
        if only != "classroom" {
            peak(&rt, addr, trials);
        }
        if only != "peak" {
            println!();
            println!("classroom: 50 students, each its own n = 25 task (seed), one job every 30 s on average, for {classroom_secs:.0} s");
            println!();
            println!("| students | jobs | seconds | jobs/s | p50 ms | p95 ms | max ms |");
            println!("|---|---|---|---|---|---|---|");
            let start = Instant::now();
            let until = start + Duration::from_secs_f64(classroom_secs);
            let mut lat: Vec<f64> = rt.block_on(async {
                let handles: Vec<_> =
                    (0..50u64).map(|who| tokio::spawn(student(addr, who, trials, 30.0, until))).collect();
                let mut all = Vec::new();
                for h in handles {
                    all.extend(h.await.expect("student"));
                }
                all
            });
            let secs = start.elapsed().as_secs_f64();
            lat.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
            if lat.is_empty() {
                println!("| 50 | 0 | {secs:.1} | | | | |");
            } else {
                println!(
                    "| 50 | {} | {secs:.1} | {:.2} | {:.0} | {:.0} | {:.0} |",
                    lat.len(),
                    lat.len() as f64 / secs,
                    pct(&lat, 0.5),
                    pct(&lat, 0.95),
                    lat.last().copied().unwrap_or(0.0)
                );
            }
        }
    }

    fn peak(rt: &tokio::runtime::Runtime, addr: std::net::SocketAddr, trials: usize) {
        println!();
        println!("| tasks | clients | jobs | seconds | jobs/s | p50 ms | p95 ms | max ms |");
        println!("|---|---|---|---|---|---|---|---|");
        let next_seed = Arc::new(AtomicU64::new(1000));
        for cold in [false, true] {
            for clients in [1usize, 8, 50] {
                let per_client = match clients {
                    1 => 20,
                    8 => 5,
                    _ => 2,
                };
                let start = Instant::now();
                let mut lat: Vec<f64> = rt.block_on(async {
                    let handles: Vec<_> = (0..clients)
                        .map(|_| tokio::spawn(client(addr, per_client, trials, cold.then(|| next_seed.clone()))))
                        .collect();
                    let mut all = Vec::new();
                    for h in handles {
                        all.extend(h.await.expect("client"));
                    }
                    all
                });
                let secs = start.elapsed().as_secs_f64();
                lat.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
                println!(
                    "| {} | {clients} | {} | {secs:.1} | {:.2} | {:.0} | {:.0} | {:.0} |",
                    if cold { "cold" } else { "warm" },
                    lat.len(),
                    lat.len() as f64 / secs,
                    pct(&lat, 0.5),
                    pct(&lat, 0.95),
                    lat.last().copied().unwrap_or(0.0)
                );
            }
        }
    }
}
