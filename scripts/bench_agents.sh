#!/usr/bin/env bash
# The scripted agents graded by the real grader, on every task: every kind on every axis and domain it
# is built for (and the merge and renaming grids), at a small and a medium n, three samples a cell by
# default. Each strategy answers (`cabrito agent`), the answers are graded (`cabrito grade`, CPython),
# the static report is built (`cabrito report`), and a pass-rate table per strategy is printed (rows
# kind × axis, columns domain × n), with the grader's message for every failure and the agents'
# refusals. The results folder is what the Results view plots (drop it on #/results).
#
#   nice -n 10 bash scripts/bench_agents.sh [OUT] [SIZES] [SAMPLES] [TRIALS]
#     (defaults: target/agent-bench, 5,50, 3, 5)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$CABRITO_ROOT"
out="${1:-target/agent-bench}"
sizes="${2:-5,50}"
samples="${3:-3}"
trials="${4:-5}"
# Every scaling axis, then the grids of the kinds whose axis knob does not apply.
axes="traversal,search,runtime,instructions,comment,merge,renaming"
strategies="reader navigator myopic"
cargo build --release --locked --bin cabrito
bin=target/release/cabrito
rm -rf "$out"
mkdir -p "$out"
started=$(date +%s)
section "grid: --axes $axes --sizes $sizes --samples $samples"
"$bin" grid --out "$out/grid" --axes "$axes" --sizes "$sizes" --samples "$samples"
for s in $strategies; do
  section "cabrito agent --strategy $s"
  # A refused task is a `cabrito: skipped:` line on stderr; keep them for the table.
  /usr/bin/time -f "%e s wall, %M KB max RSS" "$bin" agent --strategy "$s" --tasks "$out/grid" --out "$out/run" \
    > "$out/agent-$s.txt" 2> "$out/agent-$s.err" || { cat "$out/agent-$s.err"; exit 1; }
  tail -n 2 "$out/agent-$s.err"
done
section "cabrito grade --trials $trials"
/usr/bin/time -f "%e s wall, %M KB max RSS" "$bin" grade --tasks "$out/grid" --responses "$out/run" \
  --out "$out/graded" --trials "$trials" > "$out/grade.txt"
tail -n 3 "$out/grade.txt"
section "cabrito report"
"$bin" report --results "$out/graded" --out "$out/site"
section "cabrito traces"
"$bin" traces --traces "$out/run/traces" --tasks "$out/grid" --out "$out/labels" > /dev/null
section "pass rates"
python3 - "$out" "$strategies" > "$out/table.md" <<'PY'
import collections, json, os, sys

out, strategies = sys.argv[1], sys.argv[2].split()
rows = json.load(open(os.path.join(out, "graded", "summary.json")))["rows"]
# The grader's message of every response that did not pass, by (model, kind, axis, domain, n).
why = collections.defaultdict(list)
for d, _, names in os.walk(os.path.join(out, "graded", "results")):
    for n in names:
        if not n.endswith(".jsonl"):
            continue
        for line in open(os.path.join(d, n), encoding="utf-8"):
            r = json.loads(line)
            if r.get("score") != 1:
                why[(n[: -len(".jsonl")], r["name"])].append(r.get("message", ""))
cells = collections.defaultdict(lambda: [0, 0])
for r in rows:
    # A kind without domains (merge_codebases, domain `-`) is shown in the math columns.
    kind, domain = r["kind"], r["domain"]
    if domain not in ("math", "string", "array"):
        kind, domain = f"{kind} (no domain)", "math"
    key = (r["model"].split("/")[-1], kind, r["axis"], domain, int(r["n"]))
    cells[key][0] += r["passed"]
    cells[key][1] += r["tasks"]
sizes = sorted({k[4] for k in cells})
domains = [d for d in ("math", "string", "array") if any(k[3] == d for k in cells)]
columns = [(d, n) for d in domains for n in sizes]
total = collections.Counter()
for s in strategies:
    print(f"\n**{s}**\n")
    print("| kind | axis | " + " | ".join(f"{d} {n}" for d, n in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for kind, axis in sorted({(k[1], k[2]) for k in cells if k[0] == s}):
        out_row = []
        for d, n in columns:
            p, t = cells.get((s, kind, axis, d, n), (None, None))
            out_row.append("" if t is None else f"{p}/{t}")
            if t:
                total[(s, "passed")] += p
                total[(s, "tasks")] += t
        print(f"| {kind} | {axis} | " + " | ".join(out_row) + " |")
    print(f"\n{s}: {total[(s, 'passed')]}/{total[(s, 'tasks')]} passed")
    refused = [l.strip() for l in open(os.path.join(out, f"agent-{s}.err")) if "skipped:" in l]
    for l in refused:
        print(f"- refused: {l}")
print("\nFailures (the grader's message):\n")
for (model, name), messages in sorted(why.items()):
    for m in messages:
        print(f"- {model} {name}: {m[:200]}")
PY
cat "$out/table.md"
echo
echo "total $(( $(date +%s) - started )) s wall (build excluded); results: $out/graded (drop it on #/results), report: $out/site/index.html, labels: $out/labels, table: $out/table.md"
