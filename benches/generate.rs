//! `cargo bench --bench generate`: time to generate one task natively, per kind and size; prints a
//! table (median of repeated runs).

use cabrito_gen::spec::{Axis, Domain, Kind, TaskSpec};
use std::time::Instant;

fn median_us(spec: &TaskSpec, runs: usize) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|i| {
            let mut s = spec.clone();
            s.seed = i as u64;
            let start = Instant::now();
            let task = cabrito_gen::generate(&s).expect("generates");
            std::hint::black_box(&task);
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[t.len() / 2]
}

fn main() {
    println!("| kind | n (traversal) | median µs | n (search) | median µs |");
    println!("|---|---|---|---|---|");
    for &kind in Kind::ALL.iter().filter(|k| k.def().graph().is_some()) {
        for &n in &[5u32, 25, 200, 1000] {
            let runs = if n >= 1000 { 10 } else { 40 };
            let tr = median_us(&TaskSpec::new(kind, Domain::Math, Axis::Traversal, n, 0), runs);
            let se = median_us(&TaskSpec::new(kind, Domain::Math, Axis::Search, n, 0), runs);
            println!("| {} | {n} | {tr:.0} | {n} | {se:.0} |", kind.as_str());
        }
    }
    println!();
    println!("| kind (comment axis) | n = 5 words | 25 | 200 | 1000 |");
    println!("|---|---|---|---|---|");
    for &kind in Kind::ALL.iter().filter(|k| k.def().axes().allows(&Axis::Comment)) {
        let t: Vec<String> = [5u32, 25, 200, 1000]
            .iter()
            .map(|&n| format!("{:.0}", median_us(&TaskSpec::new(kind, Domain::Math, Axis::Comment, n, 0), 40)))
            .collect();
        println!("| {} | {} |", kind.as_str(), t.join(" | "));
    }
    println!();
    println!("| variable_renaming | chain | renames n | median µs |");
    println!("|---|---|---|---|");
    for (chain, n) in [(200u32, 5u32), (200, 25), (200, 200), (1000, 1000), (2000, 2000)] {
        let spec = TaskSpec { chain, ..TaskSpec::new(Kind::VariableRenaming, Domain::Math, Axis::Traversal, n, 0) };
        let runs = if chain >= 1000 { 10 } else { 40 };
        println!("| | {chain} | {n} | {:.0} |", median_us(&spec, runs));
    }
}
