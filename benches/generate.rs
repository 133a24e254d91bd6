//! `cargo bench --bench generate`: time to generate one task natively, per kind and size; prints a
//! table (median of repeated runs).

use cabrito::spec::{Axis, Domain, Kind, TaskSpec};
use std::time::Instant;

fn median_us(spec: &TaskSpec, runs: usize) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|i| {
            let mut s = spec.clone();
            s.seed = i as u64;
            let start = Instant::now();
            let task = cabrito::generate(&s).expect("generates");
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
    for &kind in Kind::ALL {
        for &n in &[5u32, 25, 200, 1000] {
            let runs = if n >= 1000 { 10 } else { 40 };
            let tr = median_us(&TaskSpec::new(kind, Domain::Math, Axis::Traversal, n, 0), runs);
            let se = median_us(&TaskSpec::new(kind, Domain::Math, Axis::Search, n, 0), runs);
            println!("| {} | {n} | {tr:.0} | {n} | {se:.0} |", kind.as_str());
        }
    }
}
