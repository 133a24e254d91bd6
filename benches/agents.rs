//! `cargo bench --bench agents`: the scripted agents on the traversal and search axes at the paper's
//! sizes — tool calls, tokens (estimated, four characters a token; input with the history resent
//! every turn, the previous turn's input cached), the static rubric's pass rate, and the time per
//! task (the strategy's whole session through the interface, one thread, release build).
//! Every kind and domain, `SEEDS` seeds per cell. Prints a markdown table; accuracy under the real
//! grader comes from `scripts/bench_agents.sh` (BENCHMARKS.md). `AGENTS_BENCH_AXES=runtime` (a
//! comma-separated list) runs only those axes; kinds a strategy refuses (merge_codebases) have no axis
//! and are not in the table.

use cabrito_agents as agents;
use cabrito_agents::{Settings, Strategy};
use cabrito_gen::spec::{Axis, Kind, Support, TaskSpec};
use std::collections::BTreeMap;
use std::time::Instant;

const SEEDS: u64 = 2;

#[derive(Default)]
struct Cell {
    tasks: usize,
    passed: usize,
    calls: Vec<usize>,
    input: f64,
    output: f64,
    ms: Vec<f64>,
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

fn main() {
    let mut cells: BTreeMap<(Strategy, Axis, u32), Cell> = BTreeMap::new();
    let started = Instant::now();
    let runner: std::sync::Arc<dyn agents::Runner> =
        std::sync::Arc::new(cabrito_native::run_tool::SandboxRunner::default());
    let only: Option<Vec<Axis>> =
        std::env::var("AGENTS_BENCH_AXES").ok().map(|v| v.split(',').filter_map(Axis::parse).collect());
    for &axis in Axis::ALL.iter().filter(|a| only.as_ref().is_none_or(|o| o.contains(a))) {
        for &n in axis.def().paper_sizes() {
            for &kind in Kind::ALL {
                let def = kind.def();
                let (Support::Only(domains), Support::Only(axes)) = (def.domains(), def.axes()) else { continue };
                if !axes.contains(&axis) {
                    continue;
                }
                for &domain in domains {
                    for seed in 0..SEEDS {
                        let task =
                            cabrito_gen::generate(&TaskSpec::new(kind, domain, axis, n, seed)).expect("generates");
                        for &strategy in Strategy::ALL {
                            let t0 = Instant::now();
                            let aci = agents::run(&task, strategy, Settings::default(), runner.clone());
                            let ms = t0.elapsed().as_secs_f64() * 1000.0;
                            let turns = aci.turns(true);
                            let c = cells.entry((strategy, axis, n)).or_default();
                            c.tasks += 1;
                            c.passed += aci.rubric().passed() as usize;
                            c.calls.push(aci.steps().len());
                            c.input += turns.iter().map(|t| t.input).sum::<f64>();
                            c.output += turns.iter().map(|t| t.output).sum::<f64>();
                            c.ms.push(ms);
                        }
                    }
                }
            }
        }
    }
    println!("| strategy | axis | n | tasks | static pass | mean calls | mean input tokens | mean output tokens | median ms / task |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for ((s, a, n), c) in &mut cells {
        let k = c.tasks as f64;
        println!(
            "| {s} | {a} | {n} | {} | {:.0}% | {:.1} | {:.0} | {:.0} | {:.1} |",
            c.tasks,
            100.0 * c.passed as f64 / k,
            c.calls.iter().sum::<usize>() as f64 / k,
            c.input / k,
            c.output / k,
            median(&mut c.ms)
        );
    }
    eprintln!(
        "{} sessions in {:.1} s",
        cells.values().map(|c| c.tasks).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
}
