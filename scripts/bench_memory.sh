#!/usr/bin/env bash
# Memory of `cabrito report` and `cabrito traces` on large inputs (BENCHMARKS.md, "Memory of report
# and traces"): 1 GB of results (a real graded run of the scripted agents, its result files copied
# under many model names) and a Copilot trace with one 50 MB shell-command line. Each command runs
# under /usr/bin/time; its peak RSS is printed.
#
#   bash scripts/bench_memory.sh [WORK] [GB]     (default: target/bench-memory, 1)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$CABRITO_ROOT"
work="${1:-target/bench-memory}"
gb="${2:-1}"
cargo build --release --locked --bin cabrito
bin="$PWD/target/release/cabrito"
mkdir -p "$work"
if [ ! -d "$work/graded/results" ]; then
  section "a real graded run: grid, the reader agent, the grader"
  rm -rf "$work/grid" "$work/run" "$work/graded"
  "$bin" grid --out "$work/grid" --samples 1 --axes traversal
  "$bin" agent --strategy reader --tasks "$work/grid" --out "$work/run" | tail -n 1
  "$bin" grade --tasks "$work/grid" --responses "$work/run" --out "$work/graded" | tail -n 1
fi

section "results: the graded run's files copied under model names up to ${gb} GB"
python3 - "$work/graded/results" "$work/big/results" "$gb" <<'PY'
import os, shutil, sys
src, dest, gb = sys.argv[1], sys.argv[2], float(sys.argv[3])
files = []
for d, _, fs in os.walk(src):
    files += [os.path.join(d, f) for f in sorted(fs) if f.endswith(".jsonl")]
one = sum(os.path.getsize(f) for f in files)
copies = max(1, int(gb * (1 << 30) / one) + 1)
if os.path.isdir(dest) and sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(dest) for f in fs) >= gb * (1 << 30):
    print(f"kept {dest}")
    sys.exit(0)
shutil.rmtree(dest, ignore_errors=True)
for f in files:
    rel = os.path.relpath(f, src)
    model = os.path.basename(rel)[: -len(".jsonl")]
    data = open(f, "rb").read()
    for k in range(copies):
        out = os.path.join(dest, os.path.dirname(rel), f"{model}-copy{k:05}.jsonl")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as fh:
            fh.write(data)
print(f"{len(files)} result files of {one} bytes, {copies} copies each")
PY
du -sh "$work/big/results"

section "traces: a Copilot trace with one 50 MB shell-command line"
python3 - "$work/traces" <<'PY'
import json, os, sys
root = sys.argv[1]
d = os.path.join(root, "0d5f4c3a-50mb-line", )
os.makedirs(d, exist_ok=True)
command = "echo " + "x" * (50 << 20)
ev = lambda t, data: json.dumps({"type": t, "timestamp": "2026-03-02T10:00:00.000Z", "data": data}) + "\n"
args = {"command": command, "description": "a long command"}
with open(os.path.join(d, "events.jsonl"), "w") as fh:
    fh.write(ev("session.start", {"sessionId": "0d5f4c3a-50mb-line", "selectedModel": "gpt-5.4-mini"}))
    fh.write(ev("assistant.message", {"turnId": "1", "model": "gpt-5.4-mini", "content": "", "toolRequests": [{"toolCallId": "c1", "name": "bash", "arguments": args, "type": "function"}], "outputTokens": 60, "inputTokens": 7400}))
    fh.write(ev("tool.execution_start", {"toolCallId": "c1", "toolName": "bash", "arguments": {"command": "grep -n slow solution.py"}}))
    fh.write(ev("tool.execution_complete", {"toolCallId": "c1", "success": True, "result": {"content": "3: slow()"}}))
PY
ls -l "$work/traces"/*/events.jsonl

measure() {
  local what="$1"; shift
  echo "\$ $*"
  /usr/bin/time -f "$what: %e s, %M KB max RSS" "$@" > "$work/$what.out" 2> "$work/$what.err" || { tail -n 5 "$work/$what.err"; }
  tail -n 1 "$work/$what.err"
  grep -E '^(report|traces):' "$work/$what.out" || true
}
section "measure (load: $(cut -d' ' -f1-3 /proc/loadavg))"
rm -rf "$work/site" "$work/traces-out"
measure report "$bin" report --results "$work/big/results" --out "$work/site"
measure traces "$bin" traces --traces "$work/traces" --out "$work/traces-out"
