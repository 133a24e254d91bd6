//! Scripted agents through the interface: their answers against the static rubric on many seeds.

use cabrito::agents::{self, Settings, Strategy};
use cabrito::spec::{Axis, Domain, Kind, Support, TaskSpec};

fn specs(sizes: &[u32], seeds: std::ops::Range<u64>) -> Vec<TaskSpec> {
    let mut out = Vec::new();
    for &kind in Kind::ALL {
        let def = kind.def();
        let (Support::Only(domains), Support::Only(axes)) = (def.domains(), def.axes()) else { continue };
        for &axis in axes {
            for &domain in domains {
                for &n in sizes {
                    for seed in seeds.clone() {
                        let spec = TaskSpec::new(kind, domain, axis, n, seed);
                        if spec.validate().is_ok() {
                            out.push(spec);
                        }
                    }
                }
            }
        }
    }
    out
}

#[test]
#[ignore]
fn survey() {
    for &strategy in Strategy::ALL {
        let mut fails = Vec::new();
        let mut total = 0;
        let only = std::env::var("KIND").unwrap_or_default();
        for spec in specs(&[5, 10, 25, 50], 0..3).into_iter().filter(|s| only.is_empty() || s.kind.as_str() == only) {
            let task = cabrito::generate(&spec).unwrap();
            let aci = agents::run(&task, strategy, Settings::default());
            total += 1;
            let r = aci.rubric();
            if !r.passed() {
                fails.push((
                    spec.canonical(),
                    aci.steps().len(),
                    r.failed_must_haves().map(|i| format!("{}: {}", i.id, i.reason)).collect::<Vec<_>>().join("; "),
                ));
            }
        }
        println!("{strategy}: {} / {total} fail", fails.len());
        for f in fails.iter().take(12) {
            println!("  {f:?}");
        }
    }
    let _ = (Axis::ALL, Domain::ALL);
}
