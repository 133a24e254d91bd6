#!/usr/bin/env python3
"""Time the whole `cabrito grade --jobs 1` command against the reference's own scorer (issue 33).

Each bucket of ../shared/fixtures/cabra-reference (traversal, search, runtime, instructions, merge)
is laid out in a scratch folder with its reference solutions as the responses. Then, alternated and
repeated (`--repeat` rounds), each of these runs as a whole process with a fresh output folder:

- the reference scorer (`--reference DIR`: microsoft/CABRA's scorer rebuilt outside the repository,
  see BENCHMARKS.md), one worker, its default trials (5; Merge Codebases: 20 tests), on the same
  responses in its own layout (test cases made beforehand by its `data/generate_test_cases.py`);
- `cabrito grade --jobs 1 --trials T` for each of `--trials`.

Each run is timed by wall clock and by CPU time (user + system of the whole process tree: this
script is a child subreaper, so processes the command leaves behind, such as a pool's zygote, are
reaped and counted here). Under load the CPU ratio is what can be trusted. The load average is
printed before and after. Every task must pass in every run, and the reference's per-check verdicts
must equal the fixtures' `verdicts.json` (so the rebuild is faithful); otherwise the script fails.

    python3 scripts/bench_grade.py --reference /work/scratch/cabra-ref --trials 5,50 --repeat 3 \\
        [--before OTHER_CABRITO]
"""

import argparse
import ctypes
import gzip
import json
import os
import resource
import shutil
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


def become_subreaper():
    """Orphaned descendants of the timed commands are re-parented here, so their CPU is counted."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        print("warning: not a subreaper; CPU of processes a command leaves behind is not counted")


def reap_orphans(deadline_s=10.0):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.005)


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, cwd=None, env=None):
    """(wall s, CPU s of the whole tree, stdout) of one command; exits on failure."""
    reap_orphans(0)
    cpu0 = cpu_of_children()
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    reap_orphans()
    cpu = cpu_of_children() - cpu0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd[:3])} ... failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return wall, cpu, p.stdout


def grade_once(cabrito, root, trials, out):
    wall, cpu, stdout = timed([cabrito, "grade", "--jobs", "1", "--trials", str(trials), "--tasks", root,
                               "--responses", root, "--out", out, "--json"])
    summary = json.loads(stdout)
    passed = sum(r["passed"] for r in summary["rows"])
    tasks = sum(r["tasks"] for r in summary["rows"])
    return wall, cpu, passed, tasks, summary.get("isolation", "")


class Reference:
    """microsoft/CABRA's scorer, rebuilt in a scratch folder, on one bucket in its own layout."""

    def __init__(self, ref_dir, fixtures, bucket, root):
        self.dir = os.path.abspath(ref_dir)
        venv = os.path.join(self.dir, ".venv", "bin", "python")
        self.python = venv if os.path.exists(venv) else sys.executable
        self.env = dict(os.environ, PYTHONPATH=self.dir)
        self.fixtures, self.bucket, self.root = fixtures, bucket, root
        manifest = json.load(open(os.path.join(fixtures, "manifest.json")))
        self.run = manifest[bucket]["run_name"]
        self.merge = bucket.startswith("merge")
        base = os.path.join(fixtures, bucket)
        lines = gzip.open(os.path.join(base, "responses", "solution.jsonl.gz"), "rt").read().splitlines()
        self.count = len(lines)
        if self.merge:
            os.makedirs(os.path.join(root, "tasks"), exist_ok=True)
            with open(os.path.join(root, "tasks", self.run + ".json"), "wb") as f:
                f.write(gzip.open(os.path.join(base, "tasks.json.gz")).read())
            d = os.path.join(root, "responses", self.run)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "solution.jsonl"), "w") as f:
                f.write("\n".join(lines) + "\n")
            return
        self.task_sets = sorted(os.listdir(os.path.join(base, "tasks")))
        types = set()
        for ts in self.task_sets:
            d = os.path.join(root, "tasks", self.run, ts)
            os.makedirs(d, exist_ok=True)
            for name in os.listdir(os.path.join(base, "tasks", ts)):
                types.add(name.split(".")[0])
                with open(os.path.join(d, name.removesuffix(".gz")), "wb") as f:
                    f.write(gzip.open(os.path.join(base, "tasks", ts, name)).read())
        self.task_types = sorted(types)
        for line in lines:
            rec = json.loads(line)
            d = os.path.join(root, "responses", self.run, rec["task_set"], rec["task_type"])
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "solution.jsonl"), "a") as f:
                f.write(line + "\n")
        # The test cases, made once by the reference's own generator (not timed).
        cmd = [self.python, "data/generate_test_cases.py", "--tasks_dir", os.path.join(root, "tasks"),
               "--output_dir", os.path.join(root, "test_cases"), "--run_name", self.run, "-y"]
        if "constraints" in self.task_sets[0]:
            cmd += ["--constraints", "--program-args", "num_constraints=200"]
        timed(cmd, cwd=self.dir, env=self.env)

    def score(self, out):
        """Run the scorer once (whole process); returns (wall, CPU, passed, tasks)."""
        if self.merge:
            cmd = [self.python, "data/tasks/merge_code/score.py", "--tasks-root", os.path.join(self.root, "tasks"),
                   "--responses-dir", os.path.join(self.root, "responses"), "--output-dir", out,
                   "--run-name", self.run, "--models", "solution"]
        else:
            cmd = [self.python, "analysis/score.py", "--task-dir", os.path.join(self.root, "tasks", self.run),
                   "--test-cases-dir", os.path.join(self.root, "test_cases", self.run),
                   "--task-set-name", *self.task_sets, "--task-types", *self.task_types,
                   "--responses-dir", os.path.join(self.root, "responses"), "--run-name", self.run,
                   "--models", "solution", "--n-parallel-tests", "1", "--output-dir", out]
        wall, cpu, _ = timed(cmd, cwd=self.dir, env=self.env)
        got = self.verdicts(out)
        want = self.fixture_verdicts()
        if got != want:
            diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))[:5]
            sys.exit(f"{self.bucket}: the rebuilt reference disagrees with verdicts.json on {diff}")
        passed = sum(all(t == "pass" for _, t in checks) for checks in got.values())
        return wall, cpu, passed, len(got)

    def verdicts(self, out):
        """{(task_set, task_type, dag_id): [(check, result), ...]} from the scorer's output."""
        got = {}
        if self.merge:
            for line in open(os.path.join(out, self.run, "solution.jsonl")):
                rec = json.loads(line)
                got[("", "", rec["dag_id"])] = sorted((k, v["type"]) for k, v in rec["results"].items())
            return got
        for ts in self.task_sets:
            for tt in self.task_types:
                path = os.path.join(out, self.run, ts, tt, "solution.jsonl")
                for line in open(path):
                    rec = json.loads(line)
                    got[(ts, tt, rec["dag_id"])] = sorted((r["kind"], r["type"]) for r in rec["results"])
        return got

    def fixture_verdicts(self):
        want = {}
        for v in json.load(open(os.path.join(self.fixtures, self.bucket, "verdicts.json"))):
            if v["response"] != "solution":
                continue
            if self.merge:
                want[("", "", v["dag_id"])] = sorted(v["results"].items())
            else:
                want[(v["task_set"], v["task_type"], v["dag_id"])] = sorted(
                    (r["kind"], r["type"]) for r in v["results"])
        return want


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
        took, cpu, stdout = timed([args.cabrito, "grade", "--jobs", jobs, "--shard", args.shard, "--trials",
                                   str(trials), "--tasks", root, "--responses", root, "--out", out, "--json"])
        summary = json.loads(stdout)
        passed = sum(r["passed"] for r in summary["rows"])
        load1 = open("/proc/loadavg").read().split()[0]
        print(f"--jobs {jobs} --shard {args.shard} --trials {trials}: {summary['graded']} answers in {took:.1f} s "
              f"({summary['graded'] / took:.2f}/s), CPU {cpu:.1f} s, {passed} passed, load {load0} -> {load1}")
        shutil.rmtree(out, ignore_errors=True)


def cell(xs):
    """median (min–max) of (wall, cpu) pairs."""
    walls = [w for w, _ in xs]
    cpus = [c for _, c in xs]
    return f"{statistics.median(walls):.2f} s / {statistics.median(cpus):.2f} s"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cabrito", default=os.path.join(here, "..", "target", "release", "cabrito"))
    ap.add_argument("--reference", metavar="DIR", help="the reference scorer rebuilt in DIR (see BENCHMARKS.md)")
    ap.add_argument("--before", help="another cabrito binary, run in alternation with --cabrito (a 'before' column)")
    ap.add_argument("--fixtures", default=os.path.join(here, "..", "..", "..", "shared", "fixtures", "cabra-reference"))
    ap.add_argument("--trials", default="5,50", help="comma-separated trial counts for cabrito")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--buckets", default=",".join(b for b, _ in BUCKETS))
    ap.add_argument("--grid", metavar="DIR", help="instead: time `cabrito grade` over the paper's grid of reference "
                    "answers (`cabrito grid --out DIR`, made if missing) with --shard and each of --jobs")
    ap.add_argument("--shard", default="1/1", help="with --grid: the shard K/N to grade")
    ap.add_argument("--jobs", default="1,2", help="with --grid: comma-separated --jobs values")
    args = ap.parse_args()
    become_subreaper()
    if args.grid:
        return grid(args)
    if not os.path.isdir(args.fixtures):
        args.fixtures = os.path.join(here, "..", "..", "shared", "fixtures", "cabra-reference")
    trials = [int(t) for t in args.trials.split(",")]
    wanted = args.buckets.split(",")
    scratch = tempfile.mkdtemp(prefix="cabrito-bench-grade-")
    roots, counts, refs = {}, {}, {}
    for short, bucket in BUCKETS:
        if short in wanted:
            roots[short] = os.path.join(scratch, short)
            counts[short] = lay_out(args.fixtures, bucket, roots[short])
            if args.reference:
                refs[short] = Reference(args.reference, args.fixtures, bucket, os.path.join(scratch, "ref-" + short))
    load0 = open("/proc/loadavg").read().split()[:3]
    runs = {}  # (bucket, "ref" or trials) -> [(wall, cpu)]
    verdicts, isolation = {}, ""
    for r in range(args.repeat):
        for b in roots:
            # Alternate the order every round so that neither side always runs first.
            order = ([("ref", None)] if b in refs else []) + [("cab", t) for t in trials]
            if args.before:
                order += [("before", t) for t in trials]
            if r % 2:
                order.reverse()
            for who, t in order:
                out = os.path.join(scratch, f"out-{b}-{who}-{t}-{r}")
                if who == "ref":
                    wall, cpu, passed, tasks = refs[b].score(out)
                    key = (b, "ref")
                elif who == "before":
                    wall, cpu, passed, tasks, _ = grade_once(args.before, roots[b], t, out)
                    key = (b, "before", t)
                else:
                    wall, cpu, passed, tasks, isolation = grade_once(args.cabrito, roots[b], t, out)
                    key = (b, t)
                runs.setdefault(key, []).append((wall, cpu))
                verdicts[key] = (passed, tasks)
                if passed != tasks or tasks != counts[b]:
                    sys.exit(f"{b} ({who}, {t}): {passed} of {tasks} passed, {counts[b]} responses")
                shutil.rmtree(out, ignore_errors=True)
    load = open("/proc/loadavg").read().split()[:3]
    print(f"load average before: {' '.join(load0)}; after: {' '.join(load)}; {args.repeat} rounds, medians, "
          "wall / CPU (user + system of the process tree)")
    print(f"isolation: {isolation}")
    head = "| bucket | responses | "
    if refs:
        head += "reference, 5 trials | "
    if args.before:
        head += " | ".join(f"before, {t} trials" for t in trials) + " | "
    head += " | ".join(f"Cabrito, {t} trials" for t in trials)
    if refs:
        head += f" | reference ÷ Cabrito at {max(trials)}, CPU (wall)"
    print(head + " | passed |")
    print("|" + "---|" * (3 + len(trials) * (2 if args.before else 1) + (2 if refs else 0)))
    for b in roots:
        cells = [b, str(counts[b])]
        if b in refs:
            cells.append(cell(runs[(b, "ref")]))
        if args.before:
            cells += [cell(runs[(b, "before", t)]) for t in trials]
        cells += [cell(runs[(b, t)]) for t in trials]
        if b in refs:
            ref_cpu = statistics.median(c for _, c in runs[(b, "ref")])
            ref_wall = statistics.median(w for w, _ in runs[(b, "ref")])
            cab_cpu = statistics.median(c for _, c in runs[(b, max(trials))])
            cab_wall = statistics.median(w for w, _ in runs[(b, max(trials))])
            cells.append(f"**{ref_cpu / cab_cpu:.2f}** ({ref_wall / cab_wall:.2f})")
        passed, tasks = verdicts[(b, max(trials))]
        cells.append(f"{passed}/{tasks}" + (" both" if b in refs else ""))
        print("| " + " | ".join(cells) + " |")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
