#!/usr/bin/env python3
"""Write tests/data/tool_calls.jsonl: realistic tool calls of coding agents on Cabra tasks, each
with the label the paper's definitions give it (grading.md §8.3: read, search, understand, edit,
test, summary, plan, other). The labels were set by hand from the definitions, before the rules of
src/traces/classify.rs were written; the rules are measured against them, never the other way.

Shapes: GitHub Copilot CLI (view, grep, glob, bash, edit, create, task_complete, update_todo,
report_intent, sql, read_bash, web_fetch), Claude Code (Read, Grep, Glob, LS, Bash, Edit,
MultiEdit, Write, TodoWrite, Task, WebSearch), Codex (shell argv, apply_patch, update_plan),
SWE-agent / OpenHands (str_replace_editor, execute_bash, think, finish, submit) and Cabrito's own
agent interface (view, search, edit, check, submit).

Run: python3 scripts/labelled_calls.py > tests/data/tool_calls.jsonl
"""
import json
import sys

W = "/workspace"
SOL = f"{W}/solution.py"
out = []


def add(agent, tool, args, label, why=""):
    out.append({"agent": agent, "tool": tool, "arguments": args, "label": label, "why": why})


def heredoc(cmd_head, body, tail=""):
    return f"{cmd_head} <<'EOF'\n{body.strip()}\nEOF" + (f"\n{tail}" if tail else "")


names = ["ah", "bq", "cx", "dz", "bu", "aw", "j", "ag", "x", "bl", "bd", "t", "an", "mult", "slow", "get_multiplier", "prefix", "get_key"]

# ---------------------------------------------------------------- Copilot CLI: view
for i, (a, b) in enumerate([(1, 80), (80, 160), (160, 240), (240, 320), (320, 400), (1, 50), (400, 520), (35, 60), (900, 1000), (1, 200)]):
    add("copilot", "view", {"path": SOL, "view_range": [a, b]}, "read", "a window of the file")
add("copilot", "view", {"path": SOL}, "read", "the whole file")
add("copilot", "view", {"path": W}, "read", "a folder listing")
add("copilot", "view", {"path": f"{W}/"}, "read")
add("copilot", "view", {"path": "/tmp/solution_orig.py", "view_range": [1, 40]}, "read")
add("copilot", "view", {"path": SOL, "view_range": [120, -1]}, "read")
add("copilot", "view", {"path": "solution.py", "view_range": [10, 30]}, "read")

# ---------------------------------------------------------------- Copilot CLI: grep / glob
for n in names[:12]:
    add("copilot", "grep", {"pattern": f"{n}\\(", "path": SOL, "output_mode": "content", "-n": True}, "search", "callers of one function")
add("copilot", "grep", {"pattern": "def ", "path": W, "output_mode": "count"}, "search")
add("copilot", "grep", {"pattern": "^def \\w+", "path": SOL, "output_mode": "content", "-n": True}, "search", "list the definitions")
add("copilot", "grep", {"pattern": "slow\\(\\)", "path": W, "output_mode": "files_with_matches"}, "search")
add("copilot", "grep", {"pattern": "mult", "path": SOL, "output_mode": "content", "-n": True, "-C": 2}, "search")
add("copilot", "grep", {"pattern": "get_multiplier", "glob": "*.py", "output_mode": "content"}, "search")
add("copilot", "grep", {"pattern": "def main", "path": SOL, "output_mode": "content", "-A": 15, "-n": True}, "search")
add("copilot", "glob", {"pattern": "**/*.py"}, "search")
add("copilot", "glob", {"pattern": "*", "path": W}, "search", "looking for files by pattern")
add("copilot", "glob", {"pattern": "**/mylibrary*"}, "search")

# ---------------------------------------------------------------- Copilot CLI: bash reading
for cmd in [
    "cat solution.py", f"cat {SOL}", "cat -n solution.py", "cat -n solution.py | head -120", "head -60 solution.py",
    "tail -n 40 solution.py", "sed -n '1,80p' solution.py", "sed -n '120,200p' /workspace/solution.py",
    "nl -ba solution.py | sed -n '200,260p'", "awk 'NR>=300 && NR<=380' solution.py", "ls -la", f"ls -la {W}",
    "cd /workspace && ls", "wc -l solution.py", "wc -l solution.py && head -30 solution.py", "git status", "git diff",
    "git diff --stat", "diff /tmp/solution_orig.py solution.py | head -80", "tree -L 2", "ls /workspace /tmp",
    "pwd && ls -la", "file solution.py", "stat solution.py", "less solution.py",
]:
    add("copilot", "bash", {"command": cmd, "description": "Look at the code"}, "read")
add("copilot", "bash", {"command": heredoc("python3 -", "src = open('solution.py').read().splitlines()\nprint('\\n'.join(src[100:160]))")}, "read", "a script that only prints lines")
add("copilot", "bash", {"command": "python3 -c \"print(open('solution.py').read()[:4000])\""}, "read")

# ---------------------------------------------------------------- Copilot CLI: bash searching
for cmd in [
    "grep -n 'def ' solution.py", "grep -n 'def ' solution.py | wc -l", "grep -c 'slow()' solution.py",
    "grep -n 'mult' solution.py", "grep -rn 'get_multiplier' .", "grep -n 'def main' -A 12 solution.py",
    "rg -n 'def (ah|bq|cx)\\(' solution.py", "grep -nE '^def (x|t|an)\\(' solution.py", "grep -n 'prefix' solution.py | head -50",
    "grep -n 'ah(' solution.py", "grep -wn 'bq' solution.py", "egrep -n 'return .*slow' solution.py",
    "find . -name '*.py'", "find / -name 'mylibrary*' 2>/dev/null | head", "grep -rn 'import' solution.py | head",
    "cd /workspace && grep -n 'get_key' solution.py", "grep -n 'slow()' solution.py | head -20",
    "sed -n '/^def ah(/,/^def /p' solution.py", "awk '/^def bq\\(/,/^$/' solution.py", "grep -B2 -A8 'def cx' solution.py",
    "git grep -n 'extract'", "which python3", "grep -l 'def' *.py",
    "for f in ah bq cx; do grep -n \"$f(\" solution.py; done",
]:
    add("copilot", "bash", {"command": cmd}, "search")
add("copilot", "bash", {"command": heredoc("python3 -", "import re\nsrc = open('solution.py').read()\nfor m in re.finditer(r'def (\\w+)\\(', src):\n    print(m.group(1))")}, "search", "lists names")
add("copilot", "bash", {"command": heredoc("python3 -", "for i, line in enumerate(open('solution.py'), 1):\n    if 'slow()' in line:\n        print(i, line.rstrip())")}, "search")
add("copilot", "bash", {"command": "python3 -c \"import solution, inspect; print([n for n, f in inspect.getmembers(solution, inspect.isfunction)])\""}, "search", "lists the functions")

# ---------------------------------------------------------------- Copilot CLI: bash understanding
CALLGRAPH = """
import ast
src = open('solution.py').read()
tree = ast.parse(src)
calls = {}
for node in tree.body:
    if isinstance(node, ast.FunctionDef):
        calls[node.name] = sorted({n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)})
for k, v in calls.items():
    print(k, '->', v)
"""
add("copilot", "bash", {"command": heredoc("python3 -", CALLGRAPH)}, "understand", "builds the call graph")
add("copilot", "bash", {"command": heredoc("cd /workspace && python3 -", CALLGRAPH)}, "understand")
REACH = """
import ast
tree = ast.parse(open('solution.py').read())
funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
graph = {n: {c.func.id for c in ast.walk(f) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in funcs} for n, f in funcs.items()}
seen, stack = set(), ['main']
while stack:
    n = stack.pop()
    if n in seen: continue
    seen.add(n); stack.extend(graph.get(n, ()))
print('unreachable:', sorted(set(funcs) - seen))
"""
add("copilot", "bash", {"command": heredoc("python3 -", REACH)}, "understand", "dead-code analysis")
LCA = """
import ast
tree = ast.parse(open('solution.py').read())
parents = {}
for f in tree.body:
    if isinstance(f, ast.FunctionDef):
        for c in ast.walk(f):
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name):
                parents.setdefault(c.func.id, set()).add(f.name)
users = parents.get('slow', set())
print('functions calling slow():', sorted(users))
def ancestors(n, acc):
    for p in parents.get(n, ()):
        if p not in acc:
            acc.add(p); ancestors(p, acc)
    return acc
common = set.intersection(*[ancestors(u, {u}) for u in users])
print('common ancestors:', common)
"""
add("copilot", "bash", {"command": heredoc("python3 -", LCA)}, "understand", "lowest common ancestor")
add("copilot", "bash", {"command": heredoc("python3 -", "import networkx as nx, ast\ng = nx.DiGraph()\nfor f in ast.parse(open('solution.py').read()).body:\n    if isinstance(f, ast.FunctionDef):\n        for c in ast.walk(f):\n            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name):\n                g.add_edge(f.name, c.func.id)\nprint(list(nx.topological_sort(g)))")}, "understand")
add("copilot", "bash", {"command": heredoc("python3 -", "import sys, solution\ncalls = []\ndef tr(frame, event, arg):\n    if event == 'call': calls.append(frame.f_code.co_name)\n    return tr\nsys.settrace(tr)\nsolution.main(1.0)\nsys.settrace(None)\nprint(calls)")}, "understand", "traces the calls at run time")
add("copilot", "bash", {"command": "python3 -c \"import ast; t = ast.parse(open('solution.py').read()); print([(f.name, [a.arg for a in f.args.args]) for f in t.body if isinstance(f, ast.FunctionDef)])\""}, "understand", "signatures via the AST")
add("copilot", "bash", {"command": "python3 -c \"from solution import ah, bq; print(ah(2.0), bq(2.0))\""}, "understand", "runtime values of functions")
add("copilot", "bash", {"command": "grep -o '[a-z]*(val' solution.py | sort | uniq -c | sort -rn | head -20"}, "understand", "counts calls per function")
add("copilot", "bash", {"command": "for f in $(grep -oP '^def \\K\\w+' solution.py); do echo \"$f: $(grep -c \"$f(\" solution.py)\"; done"}, "understand", "fan-in of every function")
add("copilot", "bash", {"command": "python3 -c \"import dis, solution; dis.dis(solution.main)\""}, "understand")
add("copilot", "bash", {"command": heredoc("python3 -", "import ast\nclass V(ast.NodeVisitor):\n    def __init__(self): self.depth = {}\n    def visit_FunctionDef(self, node):\n        self.depth[node.name] = sum(isinstance(n, ast.Call) for n in ast.walk(node))\nv = V(); v.visit(ast.parse(open('solution.py').read()))\nprint(sorted(v.depth.items(), key=lambda x: -x[1])[:20])")}, "understand")
add("copilot", "bash", {"command": "python3 /tmp/callgraph.py"}, "understand", "runs an analysis script (by name)")
add("copilot", "bash", {"command": "python3 analyze_deps.py | head -50"}, "understand")
add("copilot", "bash", {"command": heredoc("python3 -", "import ast\nsrc = open('solution.py').read()\ntree = ast.parse(src)\ncallers = {}\nfor f in tree.body:\n    if isinstance(f, ast.FunctionDef):\n        for n in ast.walk(f):\n            if isinstance(n, ast.Call) and getattr(n.func, 'id', None) == 'get_multiplier':\n                callers.setdefault(f.name, 0)\n                callers[f.name] += 1\nprint(callers)")}, "understand")

# ---------------------------------------------------------------- Copilot CLI: edit / create
add("copilot", "edit", {"path": SOL, "old_str": "def ah(val: float) -> float:\n    return math.cos(val)", "new_str": "def ah(val: float, mult: float = default()) -> float:\n    return mult * math.cos(val)"}, "edit")
for n in names[:10]:
    add("copilot", "edit", {"path": SOL, "old_str": f"    {n}_val = {n}(val)", "new_str": f"    {n}_val = {n}(val, mult)"}, "edit")
add("copilot", "edit", {"path": "solution.py", "old_str": "def dead_one(val: float) -> float:\n    return abs(val)\n\n", "new_str": ""}, "edit", "deletes a dead function")
add("copilot", "edit", {"path": f"{W}/test_solution.py", "old_str": "assert a == b", "new_str": "assert math.isclose(a, b)"}, "test", "edits a test file")
add("copilot", "create", {"path": f"{W}/test_solution.py", "file_text": "import solution\n\ndef test_main():\n    assert solution.main(1.0) is not None\n"}, "test")
add("copilot", "create", {"path": "/tmp/check_equivalence.py", "file_text": "import importlib.util\n\ndef load(p):\n    spec = importlib.util.spec_from_file_location('m', p)\n    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m\n\na = load('/tmp/solution_orig.py'); b = load('/workspace/solution.py')\nfor v in [0.1, 1.0, 2.5]:\n    assert a.main(v) == b.main(v)[0], v\nprint('OK')\n"}, "test")
add("copilot", "create", {"path": "/tmp/callgraph.py", "file_text": CALLGRAPH}, "understand", "an analysis script")
add("copilot", "create", {"path": "/tmp/refactor.py", "file_text": "import re\nsrc = open('/workspace/solution.py').read()\nsrc = re.sub(r'def (\\w+)\\(val: float\\)', r'def \\1(val: float, mult: float = default())', src)\nopen('/workspace/solution.py', 'w').write(src)\n"}, "edit", "a script that rewrites the solution")
add("copilot", "create", {"path": SOL, "file_text": "from mylibrary import default\nimport math\n\ndef a(val: float) -> float:\n    return math.cos(val)\n"}, "edit", "rewrites the whole file")
add("copilot", "create", {"path": f"{W}/PLAN.md", "file_text": "1. Find every caller of slow()\n2. Find their lowest common ancestor\n3. Call slow() there and pass the value down\n"}, "plan")
add("copilot", "create", {"path": f"{W}/notes.md", "file_text": "- [ ] add mult to ah\n- [ ] pass mult from bq to cx\n- [ ] run the checks\n"}, "plan")

# ---------------------------------------------------------------- Copilot CLI: bash editing
for cmd in [
    "sed -i 's/def ah(val: float)/def ah(val: float, mult: float = default())/' solution.py",
    "sed -i 's/bq_val = bq(val)/bq_val = bq(val, mult)/g' /workspace/solution.py",
    "perl -0pi -e 's/def dead_(\\w+)\\(.*?\\n\\n//sg' solution.py",
    "cp /tmp/solution_new.py solution.py", "mv solution_refactored.py solution.py", "git checkout -- solution.py",
    "python3 /tmp/refactor.py", "python3 rewrite_solution.py && head -20 solution.py",
    "echo 'def helper(val):\n    return val' >> solution.py",
    "python3 -m black solution.py", "patch solution.py < /tmp/fix.diff", "git apply /tmp/change.patch",
]:
    add("copilot", "bash", {"command": cmd}, "edit")
add("copilot", "bash", {"command": heredoc("cat > solution.py", "from mylibrary import default\nimport math\n\ndef a(val: float, mult: float = default()) -> float:\n    return mult * math.cos(val)\n\ndef main(val: float):\n    return a(val)\n")}, "edit", "writes the whole solution")
EDITSCRIPT = """
import ast, re
path = 'solution.py'
src = open(path).read()
tree = ast.parse(src)
callers = [f.name for f in tree.body if isinstance(f, ast.FunctionDef) and 'slow()' in ast.get_source_segment(src, f)]
for name in callers:
    src = src.replace(f'def {name}(val: float)', f'def {name}(val: float, cached)')
with open(path, 'w') as fh:
    fh.write(src)
print('rewrote', len(callers), 'functions')
"""
add("copilot", "bash", {"command": heredoc("python3 -", EDITSCRIPT)}, "edit", "analyses, then writes solution.py")
add("copilot", "bash", {"command": heredoc("cd /workspace && python3 -", "from pathlib import Path\np = Path('solution.py')\ns = p.read_text()\ns = s.replace('get_multiplier(val)', 'm')\np.write_text(s)")}, "edit")
add("copilot", "bash", {"command": "python3 -c \"import re; s=open('solution.py').read(); s=re.sub(r'\\n\\ndef dead_\\w+\\(.*?(?=\\n\\ndef )', '', s, flags=re.S); open('solution.py','w').write(s)\""}, "edit")
add("copilot", "bash", {"command": heredoc("python3 - ", "import fileinput\nfor line in fileinput.input('solution.py', inplace=True):\n    print(line.replace('slow()', 'cached'), end='')")}, "edit")
add("copilot", "bash", {"command": heredoc("cat > /tmp/patch.py", "import re\np='/workspace/solution.py'\ns=open(p).read()\ns=re.sub(r'(\\w+)_val = (\\w+)\\(val\\)', r'\\1_val = \\2(val, mult)', s)\nopen(p,'w').write(s)") + "\npython3 /tmp/patch.py && grep -c mult solution.py"}, "edit")

# ---------------------------------------------------------------- Copilot CLI: bash testing
for cmd in [
    "python3 solution.py 1.5", "python3 -m py_compile solution.py && echo OK", "python3 -c \"import ast; ast.parse(open('solution.py').read()); print('syntax ok')\"",
    "python3 -c \"import solution; print(solution.main(1.5))\"", "python3 -c \"exec(open('solution.py').read()); print(main(0.5))\"",
    "python3 -m pytest -q", "pytest test_solution.py -x", "python3 test_solution.py", "timeout 60 python3 /tmp/check_equivalence.py",
    "ruff check solution.py", "python3 -m pyflakes solution.py", "python3 -m mypy solution.py", "flake8 --select=F solution.py",
    "python3 -c 'import solution' && echo imported", "cd /workspace && python3 -c \"from solution import main; print(main(2.0))\"",
    "python3 -m compileall -q .", "python3 /tmp/verify.py", "python3 -c \"import mylibrary\"", "python3 -m unittest -q",
    "python3 -c \"import solution as s; assert s.main(1.0)[1] == 'x'\"", "for v in 0.1 1 2; do python3 solution.py $v; done",
    "diff <(python3 /tmp/solution_orig.py 1.0) <(python3 solution.py 1.0) && echo same",
]:
    add("copilot", "bash", {"command": cmd}, "test")
TESTSCRIPT = """
import importlib.util, math, random
def load(p, name):
    spec = importlib.util.spec_from_file_location(name, p)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
orig = load('/tmp/solution_orig.py', 'orig')
new = load('/workspace/solution.py', 'new')
bad = 0
for _ in range(50):
    v = random.uniform(-5, 5)
    if not math.isclose(orig.main(v)[0], new.main(v)[0], rel_tol=1e-9):
        bad += 1
print('mismatches:', bad)
"""
add("copilot", "bash", {"command": heredoc("python3 -", TESTSCRIPT)}, "test", "compares old and new behaviour")
add("copilot", "bash", {"command": heredoc("cat > /workspace/test_refactor.py", "import solution\n\ndef test_runs():\n    assert solution.main(1.0) is not None\n", "python3 -m pytest -q /workspace/test_refactor.py")}, "test")
add("copilot", "bash", {"command": heredoc("python3 -", "import ast\nold = {f.name for f in ast.parse(open('/tmp/solution_orig.py').read()).body if isinstance(f, ast.FunctionDef)}\nnew = {f.name for f in ast.parse(open('solution.py').read()).body if isinstance(f, ast.FunctionDef)}\nprint('removed:', sorted(old - new))\nassert 'main' in new")}, "test", "checks which functions were removed")
add("copilot", "bash", {"command": heredoc("python3 -", "import solution\nfor v in [0.0, 1.0, -2.5]:\n    r = solution.main(v)\n    assert isinstance(r, tuple), r\nprint('PASS')")}, "test")

# ---------------------------------------------------------------- Copilot CLI: other tools
add("copilot", "task_complete", {"summary": "Added the mult parameter to every function below the root and applied it in the terminal functions."}, "summary")
add("copilot", "task_complete", {"summary": "Removed the 25 dead functions."}, "summary")
add("copilot", "task_complete", {}, "summary")
add("copilot", "update_todo", {"todos": "- [x] Find callers of slow()\n- [ ] Move the call to the LCA\n- [ ] Test"}, "plan")
add("copilot", "update_todo", {"todos": "1. read main\n2. follow the calls\n3. edit"}, "plan")
add("copilot", "sql", {"query": "INSERT INTO todos (title, status) VALUES ('propagate mult', 'pending')"}, "plan")
add("copilot", "sql", {"query": "UPDATE todos SET status = 'done' WHERE id = 2"}, "plan")
add("copilot", "report_intent", {"intent": "Exploring codebase"}, "other", "intent reporting, no steps")
add("copilot", "report_intent", {"intent": "Editing solution"}, "other")
add("copilot", "web_fetch", {"url": "https://docs.python.org/3/library/ast.html"}, "other")
add("copilot", "bash", {"command": "pip install networkx"}, "other", "package installation")
add("copilot", "bash", {"command": "pip3 install -q numpy && python3 -c 'import numpy'"}, "other")
add("copilot", "bash", {"command": "python3 -m pip install astor"}, "other")
add("copilot", "bash", {"command": "rm -f /tmp/callgraph.py /tmp/refactor.py"}, "other", "file removal")
add("copilot", "bash", {"command": "rm test_solution.py"}, "other")
add("copilot", "bash", {"command": "cp solution.py /tmp/solution_orig.py"}, "other", "a backup")
add("copilot", "bash", {"command": "mkdir -p /tmp/work && chmod 755 /tmp/work"}, "other")
add("copilot", "bash", {"command": "python3 --version"}, "other")
add("copilot", "bash", {"command": "echo done"}, "other")
add("copilot", "fetch_copilot_cli_documentation", {}, "other")
add("copilot", "read_bash", {"sessionId": "main", "delay": 5}, "other", "reads a shell's output, with no context")
add("copilot", "stop_bash", {"sessionId": "main"}, "other")

# ---------------------------------------------------------------- Claude Code
for a in [1, 200, 400, 600]:
    add("claude-code", "Read", {"file_path": SOL, "offset": a, "limit": 200}, "read")
add("claude-code", "Read", {"file_path": SOL}, "read")
add("claude-code", "LS", {"path": W}, "read")
for pat in ["def main", "slow\\(\\)", "mult", "get_multiplier\\(", "def (ah|bq)\\(", "prefix"]:
    add("claude-code", "Grep", {"pattern": pat, "path": SOL, "output_mode": "content", "-n": True}, "search")
add("claude-code", "Glob", {"pattern": "**/*.py", "path": W}, "search")
add("claude-code", "Bash", {"command": "grep -n 'def ' /workspace/solution.py | head -100", "description": "List function definitions"}, "search")
add("claude-code", "Bash", {"command": "wc -l /workspace/solution.py", "description": "Count lines"}, "read")
add("claude-code", "Bash", {"command": heredoc("python3 -", CALLGRAPH), "description": "Build the call graph with ast"}, "understand")
add("claude-code", "Bash", {"command": heredoc("python3 -", REACH), "description": "Find functions unreachable from main"}, "understand")
add("claude-code", "Bash", {"command": "cd /workspace && python3 -c \"import solution; print(solution.main(0.7))\"", "description": "Run main"}, "test")
add("claude-code", "Bash", {"command": heredoc("python3 -", TESTSCRIPT), "description": "Compare with the original"}, "test")
add("claude-code", "Bash", {"command": "python3 -m py_compile /workspace/solution.py", "description": "Check syntax"}, "test")
add("claude-code", "Bash", {"command": "cp /workspace/solution.py /tmp/solution_orig.py", "description": "Back up the original"}, "other")
add("claude-code", "Edit", {"file_path": SOL, "old_string": "def bq(val: float) -> float:", "new_string": "def bq(val: float, mult: float = default()) -> float:"}, "edit")
add("claude-code", "Edit", {"file_path": SOL, "old_string": "    s = slow()\n", "new_string": ""}, "edit")
add("claude-code", "MultiEdit", {"file_path": SOL, "edits": [{"old_string": "x_val = x(val)", "new_string": "x_val = x(val, mult)"}, {"old_string": "t_val = t(val)", "new_string": "t_val = t(val, mult)"}]}, "edit")
add("claude-code", "Write", {"file_path": SOL, "content": "import math\n\ndef main(val: float):\n    return math.cos(val)\n"}, "edit")
add("claude-code", "Write", {"file_path": "/tmp/test_equiv.py", "content": TESTSCRIPT}, "test")
add("claude-code", "Write", {"file_path": "/tmp/analyze.py", "content": LCA}, "understand")
add("claude-code", "TodoWrite", {"todos": [{"content": "Map the call graph", "status": "in_progress", "activeForm": "Mapping"}, {"content": "Propagate mult", "status": "pending", "activeForm": "Propagating"}]}, "plan")
add("claude-code", "TodoWrite", {"todos": [{"content": "Run the equivalence check", "status": "completed", "activeForm": "Checking"}]}, "plan")
add("claude-code", "Task", {"description": "Map callers", "prompt": "Analyze the call graph of /workspace/solution.py and list every function that can reach slow()", "subagent_type": "general-purpose"}, "understand")
add("claude-code", "Task", {"description": "Find definitions", "prompt": "Find where get_multiplier is called in /workspace/solution.py", "subagent_type": "general-purpose"}, "search")
add("claude-code", "WebSearch", {"query": "python ast find all function calls"}, "other")
add("claude-code", "WebFetch", {"url": "https://refactoring.com/catalog/addParameter.html", "prompt": "summarise"}, "other")
add("claude-code", "ExitPlanMode", {"plan": "1. find sinks\n2. add the second return value\n3. run tests"}, "plan")

# ---------------------------------------------------------------- Codex (shell argv, apply_patch)
def sh(cmd):
    return {"command": ["bash", "-lc", cmd], "workdir": W, "timeout_ms": 120000}
for cmd, label in [
    ("ls", "read"), ("sed -n '1,160p' solution.py", "read"), ("sed -n '160,320p' solution.py", "read"),
    ("nl -ba solution.py | sed -n '1,120p'", "read"), ("rg -n 'def ' solution.py", "search"), ("rg -n 'slow\\(' solution.py", "search"),
    ("rg -n 'mult' -S .", "search"), ("rg --files", "search"), ("python3 - <<'PY'\n" + CALLGRAPH.strip() + "\nPY", "understand"),
    ("python3 - <<'PY'\n" + REACH.strip() + "\nPY", "understand"), ("python3 -m py_compile solution.py", "test"),
    ("python3 - <<'PY'\n" + TESTSCRIPT.strip() + "\nPY", "test"), ("python3 solution.py 0.3", "test"),
    ("python3 - <<'PY'\n" + EDITSCRIPT.strip() + "\nPY", "edit"), ("git diff", "read"), ("pip install networkx", "other"),
    ("rg -n 'get_key\\(' solution.py | head -n 50", "search"), ("wc -l solution.py && rg -c 'def ' solution.py", "search"),
]:
    add("codex", "shell", sh(cmd), label)
add("codex", "shell", {"command": ["rg", "-n", "def main", "solution.py"]}, "search", "argv without a shell")
add("codex", "shell", {"command": ["cat", "solution.py"]}, "read")
add("codex", "shell", {"command": ["python3", "-m", "pytest", "-q"]}, "test")
add("codex", "exec_command", {"cmd": "sed -n '40,90p' solution.py"}, "read")
add("codex", "exec_command", {"cmd": "rg -n 'prefix' solution.py"}, "search")
add("codex", "apply_patch", {"input": "*** Begin Patch\n*** Update File: solution.py\n@@\n-def ah(val: float) -> float:\n+def ah(val: float, mult: float = default()) -> float:\n*** End Patch"}, "edit")
add("codex", "apply_patch", {"input": "*** Begin Patch\n*** Update File: /workspace/solution.py\n@@ def cx(val: float) -> float:\n-    return slow() + val\n+    return cached + val\n*** End Patch"}, "edit")
add("codex", "apply_patch", {"input": "*** Begin Patch\n*** Add File: test_solution.py\n+import solution\n+\n+def test_main():\n+    assert solution.main(1.0)\n*** End Patch"}, "test")
add("codex", "apply_patch", {"input": "*** Begin Patch\n*** Delete File: scratch.py\n*** End Patch"}, "other", "file removal")
add("codex", "shell", sh("apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: solution.py\n@@\n-    bq_val = bq(val)\n+    bq_val = bq(val, mult)\n*** End Patch\nPATCH"), "edit")
add("codex", "update_plan", {"plan": [{"step": "Read solution.py", "status": "completed"}, {"step": "Propagate mult", "status": "in_progress"}]}, "plan")
add("codex", "update_plan", {"explanation": "next", "plan": [{"step": "Verify behaviour", "status": "pending"}]}, "plan")

# ---------------------------------------------------------------- SWE-agent / OpenHands
add("openhands", "str_replace_editor", {"command": "view", "path": SOL}, "read")
add("openhands", "str_replace_editor", {"command": "view", "path": SOL, "view_range": [1, 60]}, "read")
add("openhands", "str_replace_editor", {"command": "view", "path": W}, "read")
add("openhands", "str_replace_editor", {"command": "str_replace", "path": SOL, "old_str": "    return j_val", "new_str": "    return (j_val, s)"}, "edit")
add("openhands", "str_replace_editor", {"command": "insert", "path": SOL, "insert_line": 10, "new_str": "    m = get_multiplier(val)\n"}, "edit")
add("openhands", "str_replace_editor", {"command": "create", "path": f"{W}/reproduce.py", "file_text": "import solution\nprint(solution.main(1.0))\n"}, "test", "a script to run the code")
add("openhands", "str_replace_editor", {"command": "create", "path": "/tmp/graph.py", "file_text": CALLGRAPH}, "understand")
add("openhands", "str_replace_editor", {"command": "undo_edit", "path": SOL}, "edit")
add("openhands", "str_replace_based_edit_tool", {"command": "view", "path": SOL, "view_range": [200, 260]}, "read")
add("openhands", "str_replace_based_edit_tool", {"command": "str_replace", "path": SOL, "old_str": "def dead(val):\n    pass\n", "new_str": ""}, "edit")
add("openhands", "execute_bash", {"command": "grep -n 'return' /workspace/solution.py | head -40"}, "search")
add("openhands", "execute_bash", {"command": "cd /workspace && python reproduce.py"}, "test")
add("openhands", "execute_bash", {"command": "cat /workspace/solution.py"}, "read")
add("openhands", "execute_bash", {"command": "python3 -c \"from solution import *; print(ag(3.0))\""}, "understand", "runtime value of one function")
add("openhands", "execute_bash", {"command": "rm reproduce.py"}, "other")
add("openhands", "think", {"thought": "Plan: 1) find the sink 2) return the string up every caller 3) test main."}, "plan")
add("openhands", "finish", {"message": "Done: the string is now returned by every function above the sink."}, "summary")
add("swe-agent", "submit", {}, "summary")
add("swe-agent", "open", {"path": "solution.py", "line_number": 120}, "read")
add("swe-agent", "goto", {"line_number": 300}, "read")
add("swe-agent", "scroll_down", {}, "read")
add("swe-agent", "search_file", {"search_term": "slow()", "file": "solution.py"}, "search")
add("swe-agent", "search_dir", {"search_term": "get_multiplier"}, "search")
add("swe-agent", "find_file", {"file_name": "solution.py"}, "search")
add("swe-agent", "edit", {"start_line": 40, "end_line": 42, "replacement": "def ah(val: float, mult: float = default()) -> float:\n    return mult * math.cos(val)\n"}, "edit")

# ---------------------------------------------------------------- Cursor-style names
add("cursor", "read_file", {"target_file": "solution.py", "start_line_one_indexed": 1, "end_line_one_indexed_inclusive": 250}, "read")
add("cursor", "list_dir", {"relative_workspace_path": "."}, "read")
add("cursor", "grep_search", {"query": "def main", "include_pattern": "*.py"}, "search")
add("cursor", "codebase_search", {"query": "where is slow() called"}, "search")
add("cursor", "file_search", {"query": "solution"}, "search")
add("cursor", "edit_file", {"target_file": "solution.py", "instructions": "add mult to ah", "code_edit": "def ah(val: float, mult: float = default()) -> float:\n    return mult * math.cos(val)"}, "edit")
add("cursor", "run_terminal_cmd", {"command": "python3 -m py_compile solution.py", "is_background": False}, "test")
add("cursor", "run_terminal_cmd", {"command": "grep -n slow solution.py", "is_background": False}, "search")
add("cursor", "delete_file", {"target_file": "tmp_check.py"}, "other")
add("cursor", "web_search", {"search_term": "template method pattern python"}, "other")

# ---------------------------------------------------------------- Cabrito's agent interface (issue 12)
for a in [1, 41, 81, 121]:
    add("cabrito", "view", {"path": "solution.py", "start": a, "end": a + 39}, "read")
for p in ["slow(", "def main", "mult", "get_multiplier(", "ah("]:
    add("cabrito", "search", {"pattern": p}, "search")
add("cabrito", "edit", {"path": "solution.py", "old": "def ah(val: float) -> float:", "new": "def ah(val: float, mult: float = default()) -> float:"}, "edit")
add("cabrito", "edit", {"path": "solution.py", "start": 10, "end": 12, "new": "    return mult * x\n"}, "edit")
add("cabrito", "check", {}, "test")
add("cabrito", "submit", {}, "summary")

# ---------------------------------------------------------------- harder shapes
add("copilot", "bash", {"command": "cd /workspace && cp solution.py /tmp/orig.py && python3 /tmp/refactor.py && python3 /tmp/check_equivalence.py"}, "edit", "backs up, edits, then checks: the edit is the point")
add("copilot", "bash", {"command": "python3 /tmp/check_equivalence.py && git diff --stat"}, "test")
add("copilot", "bash", {"command": "grep -n 'def ' solution.py > /tmp/defs.txt && wc -l /tmp/defs.txt"}, "search")
add("copilot", "bash", {"command": "sed -n '1,40p' solution.py; grep -n 'slow()' solution.py"}, "search", "reads and searches: the search is the aim")
add("copilot", "bash", {"command": "ls && cat solution.py | head -50"}, "read")
add("copilot", "bash", {"command": heredoc("python3 -", "import ast, solution\nfor f in ast.parse(open('solution.py').read()).body:\n    if isinstance(f, ast.FunctionDef) and f.name != 'main':\n        print(f.name, getattr(solution, f.name)(1.0))")}, "understand", "runtime values of every function")
add("copilot", "bash", {"command": heredoc("python3 -", "import re\nsrc = open('solution.py').read()\ndeps = {}\nfor m in re.finditer(r'def (\\w+)\\(.*?\\n((?:    .*\\n)+)', src):\n    deps[m.group(1)] = re.findall(r'(\\w+)\\(val', m.group(2))\nimport json; print(json.dumps(deps, indent=1))")}, "understand", "dependency map with regexes")
add("copilot", "bash", {"command": "python3 -c \"import ast;print(len([n for n in ast.walk(ast.parse(open('solution.py').read())) if isinstance(n, ast.FunctionDef)]))\""}, "understand", "counts functions through the AST")
add("copilot", "bash", {"command": "echo '1. find callers\n2. edit\n3. test' > /tmp/plan.txt"}, "plan")
add("copilot", "bash", {"command": "cat /tmp/plan.txt"}, "read")
add("copilot", "bash", {"command": "curl -s https://pypi.org/pypi/networkx/json | head -c 200"}, "other")
add("copilot", "bash", {"command": "git log --oneline | head"}, "read")
add("copilot", "bash", {"command": "git stash"}, "edit", "reverts the solution")
add("copilot", "bash", {"command": "python3 -c \"import solution; help(solution.ah)\""}, "read", "prints a signature and docstring")
add("copilot", "bash", {"command": "python3 -c \"import inspect, solution; print(inspect.getsource(solution.ah))\""}, "read", "prints a function's source")
add("copilot", "bash", {"command": "grep -n 'slow()' solution.py && python3 -c \"import solution; print(solution.main(1.0))\""}, "test")
add("copilot", "bash", {"command": "timeout 30 python3 -c \"import solution, random; [solution.main(random.random()) for _ in range(100)]; print('ran 100 inputs')\""}, "test")
add("copilot", "grep", {"pattern": "return \\(", "path": SOL, "output_mode": "content", "-n": True}, "search")
add("copilot", "view", {"path": "/tmp/defs.txt"}, "read")
add("copilot", "edit", {"path": "/tmp/refactor.py", "old_str": "src = re.sub(", "new_str": "src = re.sub(  # all callers\n"}, "edit", "fixes the editing script")
add("copilot", "edit", {"path": "/tmp/callgraph.py", "old_str": "print(k, '->', v)", "new_str": "print(k, len(v))"}, "understand", "adjusts the analysis script")

json.dump  # keep flake quiet
for i, r in enumerate(out):
    r = {"id": i + 1, **r}
    sys.stdout.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"{len(out)} calls", file=sys.stderr)
from collections import Counter
print(Counter(r["label"] for r in out), file=sys.stderr)
