"""The project's layers, read from the source (AST), so they stay true as the code grows.

* Layers, lowest first: `baohuang_env` (the rules engine, the envs, the agent protocol and
  the auto-play bot) < `baohuang_eval` (duplicate-deal evaluation) < `agents` (bots and
  trainers) < `baohuang_study` (the hidden-teammate studies) < `baohuang_web` (the browser
  app) < `baohuang_cli` (the `baohuang` command). A module imports only from its own layer or
  lower ones, lazily (inside a function) or not.
* No import cycles between the project's modules at import time.
* `from baohuang_env import Game, get_rules` works with PettingZoo, Gymnasium and torch
  not installed: the adapters load lazily.
* Size: no module over 900 lines, no class over 400, no function over 150.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("baohuang_env", "baohuang_eval", "agents", "baohuang_study", "baohuang_web", "baohuang_cli")
MAX_MODULE_LINES, MAX_CLASS_LINES, MAX_FUNCTION_LINES = 900, 400, 150


def project_modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the project's packages."""
    out = {}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


MODULES = project_modules()


def _absolute(module: str, node: ast.ImportFrom) -> list[str]:
    """The project modules an `from ... import ...` names, made absolute."""
    is_package = MODULES[module].name == "__init__.py"
    base = module.split(".")
    if node.level:
        base = base[: len(base) - node.level + (1 if is_package else 0)]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    names = [f"{target}.{alias.name}" for alias in node.names]
    return [n for n in names if n in MODULES] or [target]


def imports(module: str, import_time_only: bool) -> set[str]:
    """Project modules imported by `module` (at import time only: not inside functions, not
    under `if TYPE_CHECKING:`)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if import_time_only and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            if import_time_only and isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                found.update(_absolute(module, child))
            visit(child)

    visit(tree)
    # keep the project's modules (importing a package runs its __init__ too)
    out = set()
    for name in found:
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in MODULES and prefix != module:
                out.add(prefix)
    return out


def test_each_layer_imports_only_itself_and_lower_layers():
    problems = []
    for module in MODULES:
        layer = LAYERS.index(module.split(".")[0])
        for target in imports(module, import_time_only=False):
            if LAYERS.index(target.split(".")[0]) > layer:
                problems.append(f"{module} imports {target}")
    assert not problems, "imports against the layers:\n" + "\n".join(problems)


def test_no_import_cycles():
    graph = {m: imports(m, import_time_only=True) for m in MODULES}
    # a package's __init__ importing its own submodules is not a cycle back from them
    for m, targets in graph.items():
        graph[m] = {t for t in targets if not m.startswith(f"{t}.")}
    state: dict[str, int] = {}
    cycles = []

    def dfs(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*path[path.index(nxt):], nxt]))
            elif nxt not in state:
                dfs(nxt, [*path, nxt])
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            dfs(m, [m])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_import_reader_sees_real_imports():
    """The checks above read real imports: absolute, relative and package ones."""
    found = imports("agents.dmc.actor", import_time_only=True)
    assert {"baohuang_env", "baohuang_env.rewards", "agents.dmc.agent", "agents.training.training_games"} <= found


def _sizes(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    problems = []
    if len(source.splitlines()) > MAX_MODULE_LINES:
        problems.append(f"{path.name}: {len(source.splitlines())} lines (at most {MAX_MODULE_LINES})")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            limit = MAX_CLASS_LINES if isinstance(node, ast.ClassDef) else MAX_FUNCTION_LINES
            length = node.end_lineno - node.lineno + 1
            if length > limit:
                problems.append(f"{path.name}: {node.name} has {length} lines (at most {limit})")
    return problems


def test_modules_classes_and_functions_stay_small():
    problems = [p for path in MODULES.values() for p in _sizes(path)]
    assert not problems, "\n".join(problems)


def test_size_check_counts_lines(tmp_path):
    big = tmp_path / "big.py"
    big.write_text("def f():\n" + "    x = 1\n" * MAX_FUNCTION_LINES)
    assert _sizes(big) == [f"big.py: f has {MAX_FUNCTION_LINES + 1} lines (at most {MAX_FUNCTION_LINES})"]


BLOCK_ADAPTER_DEPENDENCIES = textwrap.dedent("""
    import sys

    class NotInstalled:
        '''Acts as if PettingZoo, Gymnasium and torch were not installed.'''
        BLOCKED = {"pettingzoo", "gymnasium", "gym", "torch"}

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in self.BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
""")


@pytest.mark.parametrize("code", [
    "from baohuang_env import Game, get_rules\n"
    "game = Game(get_rules('jj'), seed=3)\n"
    "while not game.is_over:\n"
    "    game.step(int(game.legal_actions()[-1]))\n"
    "print(sum(game.result.scores) == 0)",
    "from baohuang_env.autoplay import AutoPlayAgent\n"
    "from baohuang_env import get_rules, make_agent\n"
    "print(type(make_agent('autoplay', get_rules('jj'))) is AutoPlayAgent)",
])
def test_the_engine_imports_without_the_adapter_dependencies(code):
    done = subprocess.run([sys.executable, "-c", BLOCK_ADAPTER_DEPENDENCIES + code], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"



def test_an_adapter_without_its_dependency_says_which_one_is_missing():
    done = subprocess.run([sys.executable, "-c", BLOCK_ADAPTER_DEPENDENCIES
                           + "import baohuang_env\nbaohuang_env.env()"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "No module named 'gymnasium'" in done.stderr or "No module named 'pettingzoo'" in done.stderr
