#!/usr/bin/env python3
"""Time the whole `cabrito grade --jobs 1` command on the reference's fixture buckets (issue 33).

Each bucket of ../shared/fixtures/cabra-reference (traversal, search, runtime, instructions, merge)
is laid out in the reference's layout in a scratch folder with its reference solutions as the
responses; then `cabrito grade --jobs 1 --trials T` runs on it, a fresh output folder each time,
every bucket in turn, `--repeat` rounds, and the median wall time of the whole process is printed.

The reference scorer's times come from `--reference-seconds` (bucket=seconds,...), measured by
running it on the same buckets (its default 5 trials, one worker; see BENCHMARKS.md); the table
gives reference ÷ Cabrito, which issue 33 wants at 2 or more.

    python3 scripts/bench_grade.py --cabrito target/release/cabrito --trials 5,50 --repeat 5 \\
        --reference-seconds traversal=3.67,search=27.2,runtime=3.96,instructions=44.3,merge=0.18
"""

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BUCKETS = [
    ("traversal", "function_traversal_en25"),
    ("search", "function_search_cn200"),
    ("runtime", "runtime_resolution_ifhops200"),
    ("instructions", "add_instructions_nc200"),
    ("merge", "merge_codebases_n200"),
]


def lay_out(fixtures, bucket, root):
    """tasks/ and responses/ of one bucket in the reference's layout; returns the response count."""
    manifest = json.load(open(os.path.join(fixtures, "manifest.json")))
    run = manifest[bucket]["run_name"]
    base = os.path.join(fixtures, bucket)
    lines = gzip.open(os.path.join(base, "responses", "solution.jsonl.gz"), "rt").read().splitlines()
    if bucket.startswith("merge"):
        os.makedirs(os.path.join(root, "tasks"), exist_ok=True)
        with open(os.path.join(root, "tasks", run + ".json.gz"), "wb") as f:
            f.write(open(os.path.join(base, "tasks.json.gz"), "rb").read())
        d = os.path.join(root, "responses", run, "code")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "solution.jsonl"), "w") as f:
            f.write("\n".join(lines) + "\n")
        return len(lines)
    for task_set in sorted(os.listdir(os.path.join(base, "tasks"))):
        d = os.path.join(root, "tasks", run, task_set)
        os.makedirs(d, exist_ok=True)
        for name in os.listdir(os.path.join(base, "tasks", task_set)):
            with open(os.path.join(d, name), "wb") as f:
                f.write(open(os.path.join(base, "tasks", task_set, name), "rb").read())
    for line in lines:
        rec = json.loads(line)
        d = os.path.join(root, "responses", run, rec["task_set"], rec["task_type"], "code")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "solution.jsonl"), "a") as f:
            f.write(line + "\n")
    return len(lines)


def grid_responses(root):
    """responses/ beside a `cabrito grid` tasks/ folder: every task's reference solution."""
    n = 0
    tasks = os.path.join(root, "tasks")
    for run in sorted(os.listdir(tasks)):
        for task_set in sorted(os.listdir(os.path.join(tasks, run))):
            for name in sorted(os.listdir(os.path.join(tasks, run, task_set))):
                path = os.path.join(tasks, run, task_set, name)
                opener = gzip.open if name.endswith(".gz") else open
                task_type = name.split(".")[0]
                d = os.path.join(root, "responses", run, task_set, task_type, "code")
                os.makedirs(d, exist_ok=True)
                with opener(path, "rt") as f, open(os.path.join(d, "solution.jsonl"), "w") as out:
                    for rec in json.load(f):
                        out.write(json.dumps({"name": rec["name"], "dag_id": rec["dag_id"],
                                              "output": "# === solution.py ===\n" + rec["solution_code"]}) + "\n")
                        n += 1
    return n


def grade_once(cabrito, root, trials, out):
    start = time.perf_counter()
    p = subprocess.run(
        [cabrito, "grade", "--jobs", "1", "--trials", str(trials), "--tasks", root, "--responses", root,
         "--out", out, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    took = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"cabrito grade failed on {root}: {p.stderr.strip()}")
    summary = json.loads(p.stdout)
    passed = sum(r["passed"] for r in summary["rows"])
    tasks = sum(r["tasks"] for r in summary["rows"])
    return took, passed, tasks, summary.get("isolation", "")


def grid(args):
    root = os.path.abspath(args.grid)
    if not os.path.isdir(os.path.join(root, "tasks")):
        subprocess.run([args.cabrito, "grid", "--out", root], check=True, stdout=subprocess.DEVNULL)
    if not os.path.isdir(os.path.join(root, "responses")):
        print(f"{grid_responses(root)} reference answers written under {root}/responses")
    trials = int(args.trials.split(",")[-1])
    for jobs in args.jobs.split(","):
        out = tempfile.mkdtemp(prefix="cabrito-bench-grid-out-")
        load0 = open("/proc/loadavg").read().split()[0]
        start = time.perf_counter()
        p = subprocess.run([args.cabrito, "grade", "--jobs", jobs, "--shard", args.shard, "--trials", str(trials),
                            "--tasks", root, "--responses", root, "--out", out, "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        took = time.perf_counter() - start
        if p.returncode != 0:
            sys.exit(f"cabrito grade failed: {p.stderr.strip()}")
        summary = json.loads(p.stdout)
        passed = sum(r["passed"] for r in summary["rows"])
        load1 = open("/proc/loadavg").read().split()[0]
        print(f"--jobs {jobs} --shard {args.shard} --trials {trials}: {summary['graded']} answers in {took:.1f} s "
              f"({summary['graded'] / took:.2f}/s), {passed} passed, load {load0} -> {load1}")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cabrito", default=os.path.join(here, "..", "target", "release", "cabrito"))
    ap.add_argument("--before", help="another cabrito binary, run in alternation with --cabrito (a 'before' column)")
    ap.add_argument("--fixtures", default=os.path.join(here, "..", "..", "..", "shared", "fixtures", "cabra-reference"))
    ap.add_argument("--trials", default="5,50", help="comma-separated trial counts")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--buckets", default=",".join(b for b, _ in BUCKETS))
    ap.add_argument("--reference-seconds", default="", help="bucket=seconds,... for the ratio column")
    ap.add_argument("--grid", metavar="DIR", help="instead: time `cabrito grade` over the paper's grid of reference "
                    "answers (`cabrito grid --out DIR`, made if missing) with --shard and each of --jobs")
    ap.add_argument("--shard", default="1/1", help="with --grid: the shard K/N to grade")
    ap.add_argument("--jobs", default="1,2", help="with --grid: comma-separated --jobs values")
    args = ap.parse_args()
    if args.grid:
        return grid(args)
    if not os.path.isdir(args.fixtures):
        args.fixtures = os.path.join(here, "..", "..", "shared", "fixtures", "cabra-reference")
    trials = [int(t) for t in args.trials.split(",")]
    wanted = args.buckets.split(",")
    ref = dict((k, float(v)) for k, v in (x.split("=") for x in args.reference_seconds.split(",") if x))
    scratch = tempfile.mkdtemp(prefix="cabrito-bench-grade-")
    roots, counts = {}, {}
    for short, bucket in BUCKETS:
        if short in wanted:
            roots[short] = os.path.join(scratch, short)
            counts[short] = lay_out(args.fixtures, bucket, roots[short])
    load0 = open("/proc/loadavg").read().split()[:3]
    times = {(b, t): [] for b in roots for t in trials}
    before = {(b, t): [] for b in roots for t in trials}
    verdicts, isolation = {}, ""
    for r in range(args.repeat):
        for b in roots:
            for t in trials:
                out = os.path.join(scratch, f"out-{b}-{t}-{r}")
                took, passed, tasks, isolation = grade_once(args.cabrito, roots[b], t, out)
                times[(b, t)].append(took)
                verdicts[(b, t)] = (passed, tasks)
                if args.before:
                    took, passed, tasks, _ = grade_once(args.before, roots[b], t, out + "-before")
                    before[(b, t)].append(took)
                    if (passed, tasks) != verdicts[(b, t)]:
                        sys.exit(f"{b}: before and after disagree: {(passed, tasks)} vs {verdicts[(b, t)]}")
    load = open("/proc/loadavg").read().split()[:3]
    print(f"load average before: {' '.join(load0)}")
    print(f"load average after: {' '.join(load)}; isolation: {isolation}")
    head = "| bucket | responses | "
    if args.before:
        head += " | ".join(f"before, {t} trials" for t in trials) + " | "
    head += " | ".join(f"Cabrito, {t} trials" for t in trials)
    head += " | passed | reference, 5 trials | reference ÷ Cabrito at " + str(max(trials)) + " |"
    print(head)
    print("|" + "---|" * (4 + len(trials) * (2 if args.before else 1)))
    for b in roots:
        cells = []
        if args.before:
            for t in trials:
                xs = before[(b, t)]
                cells.append(f"{statistics.median(xs):.3f} s ({min(xs):.3f}–{max(xs):.3f})")
        for t in trials:
            xs = times[(b, t)]
            cells.append(f"{statistics.median(xs):.3f} s ({min(xs):.3f}–{max(xs):.3f})")
        passed, tasks = verdicts[(b, max(trials))]
        rs = ref.get(b)
        ratio = f"{rs / statistics.median(times[(b, max(trials))]):.2f}" if rs else "—"
        print(f"| {b} | {counts[b]} | " + " | ".join(cells) + f" | {passed}/{tasks} | "
              + (f"{rs} s" if rs else "—") + f" | {ratio} |")


if __name__ == "__main__":
    main()
