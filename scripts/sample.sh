#!/usr/bin/env bash
# Regenerate the built-in samples of the Results and Traces views (www/samples/*.json) with the
# real command line: a small traversal grid (`cabrito grid`), two scripted agents working every
# task through the tool interface (`cabrito agent`), their answers graded by the hidden tests
# (`cabrito grade`). Nothing in the samples is written by hand.
#
#   www/samples/results.json  the graded results (results/… and summary.json as `cabrito grade`
#                             writes them) of both agents at every n
#   www/samples/traces.json   the agents' plain traces for the first two seeds of each n (their
#                             headers name the tasks, so figure 3 places them), and the Copilot
#                             sessions of tests/data/traces with the responses that name them
#
# Each file is a bundle {"about": …, "files": [{"path": …, "text": …}]} that the views read exactly
# as dropped files (src/playground/sample.rs). Usage: bash scripts/sample.sh [path/to/cabrito]
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "$0")/env.sh"
cd "$CABRITO_ROOT"

BIN="${1:-}"
if [ -z "$BIN" ]; then
  cargo build --locked --release --bin cabrito
  BIN="$CABRITO_ROOT/target/release/cabrito"
fi

SIZES="5,10,15,18,20,22,25,50"
SAMPLES=8
KINDS="add_parameter,dead_code"
STRATEGIES="navigator myopic"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$BIN" grid --out "$work/grid" --axes traversal --kinds "$KINDS" --domains math --sizes "$SIZES" --samples "$SAMPLES"
for s in $STRATEGIES; do
  "$BIN" agent --strategy "$s" --tasks "$work/grid" --out "$work/agents"
done
"$BIN" grade --tasks "$work/grid" --responses "$work/agents" --out "$work/graded"

about_results="Two scripted agents (navigator, myopic) on the traversal axis, kinds ${KINDS//,/ and }, math domain, n = ${SIZES//,/, }, $SAMPLES seeds each; graded by the hidden tests. Made by scripts/sample.sh with cabrito grid, agent and grade."
about_traces="The scripted agents' traces (the first two seeds of each n, add_parameter) and two Copilot sessions. Made by scripts/sample.sh with cabrito agent; the Copilot sessions are tests/data/traces."

mkdir -p www/samples
python3 - "$work" "$about_results" "$about_traces" <<'PY'
import json, os, sys

work, about_results, about_traces = sys.argv[1:4]

def files_under(root, prefix, keep=lambda rel: True):
    out = []
    for d, _, names in os.walk(root):
        for n in names:
            full = os.path.join(d, n)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if keep(rel):
                with open(full, encoding="utf-8") as f:
                    out.append({"path": f"{prefix}/{rel}", "text": f.read()})
    return sorted(out, key=lambda x: x["path"])

def write(path, about, files):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"about": about, "files": files}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"{path}: {len(files)} files, {os.path.getsize(path)} bytes")

graded = os.path.join(work, "graded")
results = files_under(graded, "sample", lambda rel: rel.startswith("results/") or rel == "summary.json")
write("www/samples/results.json", about_results, results)

# The seed of each task, from the grid's records.
seeds = {}
with open(os.path.join(work, "grid", "tasks.jsonl"), encoding="utf-8") as f:
    for line in f:
        r = json.loads(line)
        seeds[(r["dag_id"], r["spec"]["kind"])] = r["spec"]["seed"]

def first_seeds(rel):
    # Plain traces of add_parameter on the first two seeds of each size (the header names the task).
    if not rel.endswith(".jsonl"):
        return False
    with open(os.path.join(work, "agents", "traces", rel), encoding="utf-8") as f:
        head = json.loads(f.readline())
    task = head.get("task") or {}
    return task.get("task_type") == "add_parameter" and seeds.get((task.get("dag_id"), "add_parameter"), 99) < 2

traces = files_under(os.path.join(work, "agents", "traces"), "sample/agents", first_seeds)
traces += files_under("tests/data/traces/copilot_traces", "sample/copilot/copilot_traces")
traces += files_under("tests/data/traces/responses", "sample/copilot/responses")
write("www/samples/traces.json", about_traces, traces)
PY
