#!/usr/bin/env python3
"""Write tests/data/tool_calls_heldout.jsonl: a second labelled set, written after the rules of
src/traces/classify.rs were frozen and never used to tune them. Other agents' tool names (Gemini
CLI, OpenCode, Goose, Amp, Aider-style shells) and shapes the development set
(scripts/labelled_calls.py) lacks. Labels follow the paper's definitions (grading.md §8.3).

Run: python3 scripts/heldout_calls.py > tests/data/tool_calls_heldout.jsonl
"""
import json
import sys

out = []


def add(agent, tool, args, label, why=""):
    out.append({"agent": agent, "tool": tool, "arguments": args, "label": label, "why": why})


def hd(head, body, tail=""):
    return f"{head} <<'PY'\n{body.strip()}\nPY" + (f"\n{tail}" if tail else "")


# Gemini CLI
add("gemini", "read_file", {"absolute_path": "/home/u/task/solution.py", "offset": 0, "limit": 300}, "read")
add("gemini", "list_directory", {"path": "/home/u/task"}, "read")
add("gemini", "search_file_content", {"pattern": "def \\w+\\(val", "path": "/home/u/task"}, "search")
add("gemini", "glob", {"pattern": "*.py"}, "search")
add("gemini", "replace", {"file_path": "/home/u/task/solution.py", "old_string": "    return ah_val", "new_string": "    return (ah_val, s)", "expected_replacements": 1}, "edit")
add("gemini", "write_file", {"file_path": "/home/u/task/solution.py", "content": "import math\n\ndef main(val):\n    return val\n"}, "edit")
add("gemini", "write_file", {"file_path": "/home/u/task/test_main.py", "content": "from solution import main\nassert main(1.0)\n"}, "test")
add("gemini", "run_shell_command", {"command": "python3 test_main.py", "description": "run test"}, "test")
add("gemini", "run_shell_command", {"command": "grep -n 'get_key' solution.py"}, "search")
add("gemini", "run_shell_command", {"command": "wc -l solution.py"}, "read")
add("gemini", "google_web_search", {"query": "python propagate parameter through call graph"}, "other")
add("gemini", "save_memory", {"fact": "the sink is bq"}, "other")
add("gemini", "read_many_files", {"paths": ["solution.py"]}, "read")

# OpenCode
add("opencode", "read", {"filePath": "/work/solution.py", "offset": 100, "limit": 100}, "read")
add("opencode", "list", {"path": "/work"}, "read")
add("opencode", "grep", {"pattern": "slow\\(\\)", "include": "*.py"}, "search")
add("opencode", "edit", {"filePath": "/work/solution.py", "oldString": "def x(val: float) -> float:", "newString": "def x(val: float, mult: float = default()) -> float:"}, "edit")
add("opencode", "write", {"filePath": "/work/scratch_test.py", "content": "import solution\nprint(solution.main(0.5))\n"}, "test")
add("opencode", "bash", {"command": "python3 scratch_test.py", "description": "Runs the scratch test"}, "test")
add("opencode", "todowrite", {"todos": [{"id": "1", "content": "map calls", "status": "pending", "priority": "high"}]}, "plan")
add("opencode", "todoread", {}, "plan")
add("opencode", "webfetch", {"url": "https://example.org", "format": "text"}, "other")
add("opencode", "task", {"description": "explore", "prompt": "Read solution.py and describe which functions depend on get_multiplier", "subagent_type": "general"}, "understand")
add("opencode", "patch", {"patchText": "--- a/solution.py\n+++ b/solution.py\n@@ -3 +3 @@\n-    return x\n+    return mult * x\n"}, "edit")

# Goose / MCP-style names
add("goose", "developer__shell", {"command": "rg -n 'def ' solution.py | wc -l"}, "search")
add("goose", "developer__shell", {"command": "python3 -c 'import solution; print(solution.main(3.0))'"}, "test")
add("goose", "developer__text_editor", {"command": "view", "path": "/w/solution.py"}, "read")
add("goose", "developer__text_editor", {"command": "write", "path": "/w/solution.py", "file_text": "import math\n"}, "edit")
add("goose", "developer__text_editor", {"command": "str_replace", "path": "/w/solution.py", "old_str": "slow()", "new_str": "cached"}, "edit")
add("goose", "mcp__filesystem__read_text_file", {"path": "/w/solution.py"}, "read")
add("goose", "mcp__filesystem__search_files", {"path": "/w", "pattern": "solution"}, "search")
add("goose", "mcp__filesystem__edit_file", {"path": "/w/solution.py", "edits": [{"oldText": "a", "newText": "b"}]}, "edit")

# Amp / others
add("amp", "Bash", {"cmd": "sed -n '1,120p' solution.py"}, "read")
add("amp", "edit_file", {"path": "solution.py", "old_str": "    s = slow()", "new_str": ""}, "edit")
add("amp", "create_file", {"path": "verify_refactor.py", "content": "import solution\nassert solution.main(2.0) == solution.main(2.0)\n"}, "test")
add("amp", "Grep", {"pattern": "prefix", "path": "solution.py"}, "search")
add("amp", "todo_write", {"todos": [{"id": "a", "content": "edit", "status": "todo"}]}, "plan")
add("amp", "codebase_search_agent", {"query": "Which functions call get_key?"}, "search")

# Shell shapes not in the development set
for cmd, label in [
    ("cat solution.py | grep -n 'def '", "search"),
    ("sed -n '/def main/,$p' solution.py", "search"),
    ("find . -type f -name '*.py' | xargs wc -l", "search"),
    ("python3 -c \"import solution; print(dir(solution))\"", "search"),
    ("python3 -c \"import solution; print(len([n for n in dir(solution) if not n.startswith('_')]))\"", "search"),
    ("grep -n 'def ' solution.py | awk -F: '{print $1}' | tr '\\n' ' '", "search"),
    ("grep -rn --include='*.py' 'mult' .", "search"),
    ("head -n 200 solution.py | tail -n 50", "read"),
    ("echo '---'; cat -A solution.py | head -5", "read"),
    ("ls -1 /workspace && wc -c solution.py", "read"),
    ("python3 -c \"import pathlib; print(pathlib.Path('solution.py').read_text()[-2000:])\"", "read"),
    ("python3 -m py_compile solution.py; echo $?", "test"),
    ("python3 -W error -c 'import solution'", "test"),
    ("python3 -c \"import solution; import math; assert math.isfinite(solution.main(0.1)[0]); print('fine')\"", "test"),
    ("cd /workspace && PYTHONPATH=. python3 -m pytest tests/ -q 2>&1 | tail -20", "test"),
    ("python3 -m doctest -v solution.py", "test"),
    ("sed -i '/^def dead_[a-z]*(/,/^$/d' solution.py", "edit"),
    ("sed -i.bak 's/slow()/cached/' solution.py && rm solution.py.bak", "edit"),
    ("ed -s solution.py <<< $'12d\\nw'", "edit"),
    ("printf 'def helper(val):\\n    return val\\n' >> solution.py", "edit"),
    ("tee solution.py < /tmp/new_solution.py > /dev/null", "edit"),
    ("cp -f /tmp/out.py /workspace/solution.py && python3 -m py_compile /workspace/solution.py", "edit"),
    ("rm -rf __pycache__ .pytest_cache", "other"),
    ("apt-get install -y python3-networkx", "other"),
    ("uv pip install networkx", "other"),
    ("env | grep PYTHON", "other"),
    ("date", "other"),
    ("sleep 2 && echo ready", "other"),
    ("git add -A && git commit -m wip", "other"),
    ("git diff --no-index /tmp/solution_orig.py solution.py", "read"),
]:
    add("bash-mix", "bash", {"command": cmd}, label)

# Generated scripts not in the development set
add("bash-mix", "bash", {"command": hd("python3 -", """
import ast
tree = ast.parse(open('solution.py').read())
print(ast.dump(tree.body[3], indent=1))
""")}, "understand", "dumps a function's tree")
add("bash-mix", "bash", {"command": hd("python3 -", """
import ast
src = open('solution.py').read()
t = ast.parse(src)
names = [n.name for n in t.body if isinstance(n, ast.FunctionDef)]
print(len(names), names[:30])
""")}, "understand", "lists functions through the AST")
add("bash-mix", "bash", {"command": hd("python3 -", """
import ast
class Finder(ast.NodeVisitor):
    def visit_Call(self, node):
        if getattr(node.func, 'id', '') == 'slow':
            print('slow() at line', node.lineno)
        self.generic_visit(node)
Finder().visit(ast.parse(open('solution.py').read()))
""")}, "understand")
add("bash-mix", "bash", {"command": hd("python3 -", """
import importlib, solution
importlib.reload(solution)
vals = {name: getattr(solution, name)(0.5) for name in ['ah', 'bq', 'cx']}
print(vals)
""")}, "understand", "runtime values")
add("bash-mix", "bash", {"command": hd("python3 -", """
import solution, random
random.seed(0)
outs = [solution.main(random.uniform(-3, 3)) for _ in range(20)]
print(outs[:3])
""")}, "test", "runs main on random inputs")
add("bash-mix", "bash", {"command": hd("python3 -", """
import subprocess
r = subprocess.run(['python3', 'solution.py', '1.0'], capture_output=True, text=True)
print(r.returncode, r.stderr[-500:])
""")}, "test")
add("bash-mix", "bash", {"command": hd("python3 -", """
import re
src = open('solution.py').read()
src = src.replace('get_multiplier(val)', 'm', 3)
with open('solution.py', 'w') as f:
    f.write(src)
""")}, "edit")
add("bash-mix", "bash", {"command": hd("python3 -", """
import ast, astor
tree = ast.parse(open('solution.py').read())
class T(ast.NodeTransformer):
    def visit_FunctionDef(self, node):
        node.args.args.append(ast.arg(arg='mult'))
        return node
open('solution.py', 'w').write(astor.to_source(T().visit(tree)))
""")}, "edit", "an AST rewrite written back")
add("bash-mix", "bash", {"command": hd("python3 -", """
lines = open('solution.py').read().splitlines()
for i, l in enumerate(lines, 1):
    if l.startswith('def '):
        print(i, l)
""")}, "search")
add("bash-mix", "bash", {"command": hd("python3 -", """
src = open('solution.py').read()
start = src.index('def main')
print(src[start:start + 400])
""")}, "search", "finds main and prints it")
add("bash-mix", "bash", {"command": hd("cat > /tmp/deps.py", """
import ast, sys
t = ast.parse(open(sys.argv[1]).read())
for f in t.body:
    if isinstance(f, ast.FunctionDef):
        print(f.name, [c.func.id for c in ast.walk(f) if isinstance(c, ast.Call) and hasattr(c.func, 'id')])
""", "python3 /tmp/deps.py solution.py | head -40")}, "understand")
add("bash-mix", "bash", {"command": hd("cat > /tmp/t.py", """
import solution
assert solution.main(1.0)[1].startswith('x')
print('ok')
""", "python3 /tmp/t.py")}, "test")

# File tools on other paths
add("copilot", "create", {"path": "/workspace/scripts/propagate.py", "file_text": "import re\np='/workspace/solution.py'\ns=open(p).read()\nopen(p,'w').write(s.replace('(val)', '(val, mult)'))\n"}, "edit")
add("copilot", "create", {"path": "/tmp/explore.py", "file_text": "import ast\nt=ast.parse(open('/workspace/solution.py').read())\nprint([f.name for f in t.body if isinstance(f, ast.FunctionDef)])\n"}, "understand")
add("copilot", "create", {"path": "/workspace/TODO.md", "file_text": "- find sink\n- return string upward\n"}, "plan")
add("copilot", "create", {"path": "/workspace/README_changes.md", "file_text": "Added the mult parameter to 25 functions."}, "other", "a note, not steps")
add("copilot", "edit", {"path": "/workspace/tests/test_solution.py", "old_str": "1.0", "new_str": "2.0"}, "test")
add("copilot", "view", {"path": "/workspace/tests"}, "read")
add("copilot", "view", {"path": "/workspace/solution.py", "view_range": [1, 1]}, "read")
add("copilot", "grep", {"pattern": "\\bmult\\b", "path": "/workspace", "-i": True, "output_mode": "count"}, "search")
add("copilot", "glob", {"pattern": "**/test_*.py"}, "search")
add("copilot", "task_complete", {"summary": ""}, "summary")
add("copilot", "update_todo", {"todos": "- [x] done"}, "plan")
add("copilot", "bash", {"command": "python3 -m json.tool /tmp/graph.json | head -40"}, "read")
add("copilot", "bash", {"command": "python3 -m ast solution.py | head -60"}, "understand")
add("copilot", "bash", {"command": "python3 -m trace --trace solution.py 1.0 | head -30"}, "understand")
add("copilot", "write_bash", {"sessionId": "s2", "input": "q"}, "other")
add("codex", "shell", {"command": ["bash", "-lc", "rg -n 'return \\(' solution.py | head"]}, "search")
add("codex", "shell", {"command": ["bash", "-lc", "python3 -c 'import solution;print(solution.main(1.0))'"]}, "test")
add("codex", "shell", {"command": ["sed", "-n", "200,260p", "solution.py"]}, "read")
add("codex", "apply_patch", {"input": "*** Begin Patch\n*** Update File: tests/test_x.py\n@@\n-a\n+b\n*** End Patch"}, "test")
add("codex", "update_plan", {"plan": []}, "plan")
add("openhands", "str_replace_editor", {"command": "create", "path": "/workspace/test_equivalence.py", "file_text": "import solution\n"}, "test")
add("openhands", "execute_bash", {"command": "python3 test_equivalence.py && echo PASSED"}, "test")
add("openhands", "str_replace_editor", {"command": "view", "path": "/workspace/solution.py", "view_range": [300, 340]}, "read")
add("openhands", "finish", {}, "summary")
add("openhands", "think", {"thought": "The LCA of all slow() callers is bq."}, "plan", "reasoning noted as a step")
add("swe-agent", "search_file", {"search_term": "def main"}, "search")
add("swe-agent", "open", {"path": "solution.py"}, "read")
add("swe-agent", "create", {"filename": "reproduce.py"}, "test")
add("swe-agent", "submit", {}, "summary")
add("cabrito", "view", {"path": "solution.py"}, "read")
add("cabrito", "search", {"pattern": "def "}, "search")
add("cabrito", "edit", {"path": "solution.py", "old": "slow()", "new": "cached"}, "edit")
add("cabrito", "check", {"path": "solution.py"}, "test")

for i, r in enumerate(out):
    sys.stdout.write(json.dumps({"id": 1001 + i, **r}, ensure_ascii=False) + "\n")
from collections import Counter
print(len(out), Counter(r["label"] for r in out), file=sys.stderr)
