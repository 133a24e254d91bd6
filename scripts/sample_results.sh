#!/usr/bin/env bash
# The sample results the Results view opens with: the three scripted agents (`cabrito agent`) on a
# grid sample of every axis (one task per kind × domain × n, the paper's sizes; Merge Codebases and
# variable renaming on their own grids), graded by the real grader (`cabrito grade`, CPython in the
# sandbox). The sample holds the graded results and the agents' responses (each carries its
# session's ledger: calls, tokens, cost), so `cabrito report` draws accuracy and cost against n per
# strategy. Regenerates tests/data/sample-results/ byte for byte: every step is deterministic, the
# few timings the records carry are dropped, and the files are gzipped without a timestamp.
#
#   bash scripts/sample_results.sh [WORK]      (default work folder: target/sample-results)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$CABRITO_ROOT"
work="${1:-target/sample-results}"
dest=tests/data/sample-results
cargo build --release --locked --bin cabrito
bin=target/release/cabrito
rm -rf "$work"
mkdir -p "$work"
section "grid: one sample a cell, every axis"
"$bin" grid --out "$work/grid" --samples 1 --axes traversal,search,runtime,instructions,comment,merge,renaming
for s in reader navigator myopic; do
  section "cabrito agent --strategy $s"
  "$bin" agent --strategy "$s" --tasks "$work/grid" --out "$work/run" > "$work/agent-$s.txt"
  tail -n 2 "$work/agent-$s.txt"
done
section "cabrito grade --trials 5"
"$bin" grade --tasks "$work/grid" --responses "$work/run" --out "$work/graded" --trials 5 > "$work/grade.txt"
tail -n 3 "$work/grade.txt"
section "the sample: results and responses, timings dropped, gzipped"
rm -rf "$dest"
mkdir -p "$dest"
python3 - "$work" "$dest" <<'PY'
import gzip, json, os, sys
work, dest = sys.argv[1], sys.argv[2]
VOLATILE = {"time_seconds", "seconds", "graded_at", "started_at", "finished_at", "duration_ms", "elapsed"}

def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v

def copy(src_root, sub):
    src = os.path.join(src_root, sub)
    for dirpath, dirnames, files in os.walk(src):
        dirnames.sort()
        for f in sorted(files):
            if not (f.endswith(".jsonl") or f == "summary.json"):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, src_root)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            if f.endswith(".jsonl"):
                out = "".join(json.dumps(clean(json.loads(l)), ensure_ascii=False) + "\n" for l in text.splitlines() if l.strip())
            else:
                out = json.dumps(clean(json.loads(text)), ensure_ascii=False, indent=1) + "\n"
            target = os.path.join(dest, rel + ".gz")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as raw:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
                    gz.write(out.encode("utf-8"))

copy(os.path.join(work, "graded"), "results")
copy(os.path.join(work, "run"), "responses")
PY
du -sh "$dest"
section "cabrito report"
"$bin" report --results "$dest" --out "$work/site" --title "Scripted agents on every axis (the sample)"
echo "sample: $dest (open it in #/results or with cabrito report); report: $work/site/index.html"
