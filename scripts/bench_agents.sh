#!/usr/bin/env bash
# The scripted agents graded by the real grader: a grid on the traversal and search axes at the
# paper's sizes, each strategy's answers (`cabrito agent`), graded (`cabrito grade`, CPython), then the
# static report (`cabrito report`). The results folder is what the Results view plots (drop it on
# #/results); the summary tables go into BENCHMARKS.md.
#
#   bash scripts/bench_agents.sh [OUT] [SAMPLES] [TRIALS]     (defaults: target/agent-bench, 2, 5)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$CABRITO_ROOT"
out="${1:-target/agent-bench}"
samples="${2:-2}"
trials="${3:-5}"
cargo build --release --locked --bin cabrito
bin=target/release/cabrito
rm -rf "$out"
mkdir -p "$out"
section "grid ($samples samples a cell)"
"$bin" grid --out "$out/grid" --samples "$samples"
for s in reader navigator myopic; do
  section "cabrito agent --strategy $s"
  /usr/bin/time -f "%e s wall, %M KB max RSS" "$bin" agent --strategy "$s" --tasks "$out/grid" --out "$out/run" > "$out/agent-$s.txt"
  tail -n 3 "$out/agent-$s.txt"
done
section "cabrito grade --trials $trials"
"$bin" grade --tasks "$out/grid" --responses "$out/run" --out "$out/graded" --trials "$trials" > "$out/grade.txt"
tail -n 5 "$out/grade.txt"
section "cabrito report"
"$bin" report --results "$out/graded" --out "$out/site"
section "cabrito traces"
"$bin" traces --traces "$out/run/traces" --tasks "$out/grid" --out "$out/labels" > /dev/null
echo "results: $out/graded (drop it on #/results), report: $out/site/index.html, labels: $out/labels"
