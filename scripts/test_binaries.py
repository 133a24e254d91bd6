#!/usr/bin/env python3
"""Run the test binaries that `cargo test --no-run --message-format=json-render-diagnostics` listed
on stdin, two at a time (CABRITO_TEST_LANES), each as `cargo test` would: from its package's folder,
with the arguments after `--`. Many tests wait on CPython or a socket with a core idle, and `cargo
test` runs the binaries one after another; here a second binary uses that core.

Each binary's output is printed whole when it ends, so two never interleave. Every binary runs;
the exit status is 1 when any failed, with their names at the end.

    cargo test ... --no-run --message-format=json-render-diagnostics \
        | python3 scripts/test_binaries.py -- --skip e2e_
"""

import json
import os
import subprocess
import sys
import threading
import time

# Started first, so the longest does not start last (BENCHMARKS.md, "The test suite", has their times).
SLOWEST_FIRST = ["agents", "check", "cli", "grade", "worker_run", "gen", "grade_pool"]


def binaries(lines):
    """(name, executable, package folder, source) of each test artifact, in cargo's order."""
    out = []
    for line in lines:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg.get("profile", {}).get("test"):
            continue
        target = msg["target"]
        folder = os.path.dirname(msg["manifest_path"])
        source = os.path.relpath(target["src_path"], folder)
        out.append((target["name"], msg["executable"], folder, source))
    return out


def rank(item):
    name, _, _, source = item
    is_integration = source.startswith("tests")
    slow = SLOWEST_FIRST.index(name) if is_integration and name in SLOWEST_FIRST else len(SLOWEST_FIRST)
    return slow


def main():
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    todo = sorted(binaries(sys.stdin), key=rank)
    if not todo:
        print("test_binaries: cargo listed no test binary", file=sys.stderr)
        return 1
    lanes = max(1, int(os.environ.get("CABRITO_TEST_LANES", "2")))
    lock = threading.Lock()
    failed = []
    times = []
    queue = list(todo)

    def lane():
        while True:
            with lock:
                if not queue:
                    return
                name, exe, folder, source = queue.pop(0)
            start = time.monotonic()
            try:
                run = subprocess.run([exe, *args], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                output, status = run.stdout, run.returncode
            except OSError as e:
                output, status = f"test_binaries: cannot run {exe}: {e}\n".encode(), 127
            secs = time.monotonic() - start
            with lock:
                print(f"     Running {source} ({os.path.relpath(exe)}), {secs:.1f} s", flush=True)
                sys.stdout.buffer.write(output)
                sys.stdout.flush()
                times.append((secs, source))
                if status != 0:
                    failed.append(f"{source} (exit {status})")

    threads = [threading.Thread(target=lane) for _ in range(lanes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"\ntest binaries, {lanes} at a time, the slowest first:")
    for secs, source in sorted(times, reverse=True)[:10]:
        print(f"  {secs:6.1f} s  {source}")
    if failed:
        print("\nFAILED: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
