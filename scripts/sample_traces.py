#!/usr/bin/env python3
"""Write tests/data/traces/: a small sample of agent traces on real Cabrito tasks, for the tests,
the browser end-to-end test and the README's `cabrito traces` example.

- copilot_traces/<session>/events.jsonl: GitHub Copilot CLI sessions (grading.md §8.1), with tool
  outputs computed from the real starter code;
- responses/<run>/<task_set>/<task_type>/copilot/<model>.jsonl: the responses naming them
  (metadata.session_id), which is how the reference joins a session to its task (§8.2);
- plain/*.jsonl: a session in Cabrito's plain trace format (README), with its task's link.

Run: python3 scripts/sample_traces.py target/debug/cabrito
"""
import json
import os
import subprocess
import sys

cabrito = sys.argv[1] if len(sys.argv) > 1 else "target/debug/cabrito"
root = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "traces")


def task(*flags):
    out = subprocess.run([cabrito, "generate", "--json", *flags], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run_name(axis, n):
    cn, en = (25, n) if axis == "traversal" else (n, 25)
    exp = "function_traversal" if axis == "traversal" else "function_search"
    return (f"{exp}_cn=({cn},{cn})_en=({en},{en})_prop=(0.45,0.55)_psame=(0.9,0.9)_ce=(0.3,0.3)_ee=(0.3,0.3)"
            "_attach=(0.3,0.3)_centry=(1,1)_eentry=(1,1)")


def numbered(code, a=1, b=None):
    lines = code.splitlines()
    b = len(lines) if b is None else b
    return "\n".join(f"{i}. {lines[i - 1]}" for i in range(a, min(b, len(lines)) + 1))


def grep(code, needle):
    return "\n".join(f"{i}:{l}" for i, l in enumerate(code.splitlines(), 1) if needle in l)


def copilot_session(sid, model, t, turns, when="2026-03-02T10:00:00"):
    ev = []
    clock = [0]

    def stamp():
        clock[0] += 3
        return f"{when}.{clock[0]:03d}Z"

    ev.append({"type": "session.start", "timestamp": stamp(), "data": {"sessionId": sid, "selectedModel": model, "copilotVersion": "1.0.81"}})
    ev.append({"type": "user.message", "timestamp": stamp(), "data": {"content": t["prompt"][:400] + "…"}})
    total_in = total_out = 0
    for ti, (reasoning, content, calls, out_tokens, in_tokens) in enumerate(turns):
        reqs = []
        for ci, (name, args, output, ok) in enumerate(calls):
            reqs.append({"toolCallId": f"call_{ti}_{ci}", "name": name, "arguments": args, "type": "function",
                         "intentionSummary": args.get("description", "") if isinstance(args, dict) else ""})
        ev.append({"type": "assistant.turn_start", "timestamp": stamp(), "data": {"turnId": str(ti)}})
        ev.append({"type": "assistant.message", "timestamp": stamp(), "data": {
            "turnId": str(ti), "model": model, "content": content, "reasoningText": reasoning,
            "toolRequests": reqs, "outputTokens": out_tokens, "inputTokens": in_tokens}})
        total_in += in_tokens
        total_out += out_tokens
        for ci, (name, args, output, ok) in enumerate(calls):
            ev.append({"type": "tool.execution_start", "timestamp": stamp(), "data": {"toolCallId": f"call_{ti}_{ci}", "toolName": name, "arguments": args}})
            ev.append({"type": "tool.execution_complete", "timestamp": stamp(), "data": {"toolCallId": f"call_{ti}_{ci}", "success": ok, "result": {"content": output}}})
        ev.append({"type": "assistant.turn_end", "timestamp": stamp(), "data": {"turnId": str(ti)}})
    ev.append({"type": "session.shutdown", "timestamp": stamp(), "data": {
        "totalApiDurationMs": 61234, "totalNanoAiu": 3_250_000_000, "totalPremiumRequests": 1,
        "tokenDetails": {"input": {"tokenCount": total_in}, "output": {"tokenCount": total_out},
                         "cache_read": {"tokenCount": total_in * 3 // 4}, "cache_write": {"tokenCount": 0}}}})
    d = os.path.join(root, "copilot_traces", sid)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "events.jsonl"), "w") as f:
        for e in ev:
            f.write(json.dumps(e) + "\n")


CALLGRAPH = """import ast
tree = ast.parse(open('solution.py').read())
calls = {}
for f in tree.body:
    if isinstance(f, ast.FunctionDef):
        calls[f.name] = sorted({n.func.id for n in ast.walk(f) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)})
users = [k for k, v in calls.items() if 'slow' in v]
print('calls slow():', users)"""

# Session 1: cache_function, traversal, n = 10, seed 0.
t1 = task("--kind", "cache_function", "--domain", "math", "--n", "10", "--seed", "0")
code = t1["starter_code"]
users = [l.split("(")[0][4:] for l in code.splitlines() if l.startswith("def ")]
slow_users = []
cur = None
for l in code.splitlines():
    if l.startswith("def "):
        cur = l[4:].split("(")[0]
    if "slow()" in l and cur:
        slow_users.append(cur)
first = slow_users[0]
sid1 = "5b0f6f2e-1d8a-4c55-9f3e-4a1c2b7d9e01"
turns1 = [
    ("The task asks to cache slow(). Let me look at the code.", "", [
        ("report_intent", {"intent": "Exploring codebase"}, "Intent logged", True),
        ("view", {"path": "/workspace/solution.py", "view_range": [1, 60]}, numbered(code, 1, 60), True)], 120, 5200),
    ("Find every caller of slow().", "", [
        ("bash", {"command": "grep -n 'slow()' /workspace/solution.py", "description": "Find slow() calls"}, grep(code, "slow()"), True)], 60, 7400),
    ("Build the call graph to find the lowest common ancestor.", "", [
        ("bash", {"command": f"cd /workspace && python3 - <<'EOF'\n{CALLGRAPH}\nEOF", "description": "Call graph with ast"},
         "calls slow(): " + repr(slow_users), True)], 260, 8100),
    ("View the rest of the file.", "", [
        ("view", {"path": "/workspace/solution.py", "view_range": [60, 165]}, numbered(code, 60, 165), True)], 40, 9000),
    ("Plan the edit.", "", [
        ("update_todo", {"todos": "- [x] find callers of slow()\n- [ ] call slow() once in the LCA\n- [ ] pass the value down"}, "TODO list updated", True)], 80, 12100),
    ("Edit the first caller.", "", [
        ("edit", {"path": "/workspace/solution.py", "old_str": f"def {first}(val: float) -> float:\n    return slow()",
                  "new_str": f"def {first}(val: float, cached: float) -> float:\n    return cached"}, "File /workspace/solution.py updated", True)], 150, 12600),
    ("Check that it still compiles.", "", [
        ("bash", {"command": "cd /workspace && python3 -m py_compile solution.py && echo OK", "description": "Syntax check"}, "OK", True),
        ("bash", {"command": "cd /workspace && python3 -c \"import solution; print(solution.main(1.0))\"", "description": "Run main"},
         "Traceback (most recent call last):\n  ...\nModuleNotFoundError: No module named 'mylibrary'", False)], 90, 13000),
    ("Done.", "I moved the slow() call to the lowest common ancestor and passed the value down.", [
        ("task_complete", {"summary": "Cached slow() at the LCA and passed it down."}, "Task marked complete", True)], 70, 13500),
]
copilot_session(sid1, "claude-sonnet-4.6", t1, turns1)

# Session 2: add_parameter, search, n = 5, seed 1 (string domain), shorter.
t2 = task("--kind", "add_parameter", "--domain", "string", "--axis", "search", "--n", "5", "--seed", "1")
code2 = t2["starter_code"]
sid2 = "a9c3e1d0-77b2-4f0e-8d35-0c6b2e9f4a12"
root_fn = next(l[4:].split("(")[0] for l in code2.splitlines() if "prefix: str" in l)
turns2 = [
    ("Look at the file.", "", [("view", {"path": "/workspace/solution.py"}, numbered(code2), True)], 80, 4100),
    ("Where is prefix used?", "", [("grep", {"pattern": "prefix", "path": "/workspace/solution.py", "output_mode": "content", "-n": True}, grep(code2, "prefix"), True)], 40, 6000),
    ("Pass prefix down.", "", [("edit", {"path": "/workspace/solution.py", "old_str": f"def {root_fn}(", "new_str": f"def {root_fn}("}, "File updated", True)], 300, 6400),
    ("Finish.", "", [("task_complete", {"summary": "Propagated prefix."}, "ok", True)], 30, 7000),
]
copilot_session(sid2, "gpt-5.4-mini", t2, turns2, when="2026-03-02T11:00:00")

# Responses naming the sessions.
for t, sid, model, axis, n in [(t1, sid1, "claude-sonnet-4.6", "traversal", 10), (t2, sid2, "gpt-5.4-mini", "search", 5)]:
    ts = t["spec"]["domain"] + "_function"
    d = os.path.join(root, "responses", run_name(axis, n), ts, t["spec"]["kind"], "copilot")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{model}.jsonl"), "w") as f:
        f.write(json.dumps({"name": t["name"], "dag_id": t["dag_id"], "output": "# === solution.py ===\n" + t["solution_code"],
                            "metadata": {"session_id": sid, "returncode": 0, "time_seconds": 61.2}}) + "\n")

# A plain-format trace: a scripted reader on task 1.
lines = code.splitlines()
plain = [{"type": "session", "format": "cabrito-trace/1", "session_id": "reader-cache-n10-seed0", "agent": "reader",
          "model": "scripted/reader", "task": {"name": t1["name"], "dag_id": t1["dag_id"], "run": run_name("traversal", 10),
                                                 "task_set": "math_function", "task_type": "cache_function", "link": t1["link"]}}]
turn = 0
inp = 2400
for a in range(1, len(lines) + 1, 40):
    b = min(a + 39, len(lines))
    plain.append({"tool": "view", "arguments": {"path": "solution.py", "start": a, "end": b},
                  "output": "\n".join(f"{i}: {lines[i - 1]}" for i in range(a, b + 1)), "turn": turn,
                  "tokens": {"input": inp, "cached": max(inp - 600, 0), "output": 25}})
    turn += 1
    inp += 650
plain.append({"tool": "search", "arguments": {"pattern": "slow("}, "output": grep(code, "slow("), "turn": turn, "tokens": {"input": inp, "cached": inp - 300, "output": 20}})
turn += 1
plain.append({"tool": "edit", "arguments": {"path": "solution.py", "old": f"def {first}(val: float) -> float:", "new": f"def {first}(val: float, cached: float) -> float:"},
              "output": "edited 1 line", "turn": turn, "tokens": {"input": inp + 100, "cached": inp - 200, "output": 60}})
turn += 1
plain.append({"tool": "check", "arguments": {}, "output": "compiles; rubric: 3 of 4 must-haves", "turn": turn, "tokens": {"input": inp + 300, "cached": inp, "output": 10}})
turn += 1
plain.append({"tool": "submit", "arguments": {}, "output": "submitted", "turn": turn, "tokens": {"input": inp + 500, "cached": inp + 300, "output": 5}})
os.makedirs(os.path.join(root, "plain"), exist_ok=True)
with open(os.path.join(root, "plain", "reader-cache-n10-seed0.jsonl"), "w") as f:
    for p in plain:
        f.write(json.dumps(p) + "\n")
print("wrote", root)
