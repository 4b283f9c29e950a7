"""The shape of baohuang_eval: the protocols are objects found by name once (with an error
listing the names), they stay singletons across processes, and the package's modules import
neither the agents nor the CLI and form no import cycle."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from baohuang_eval import PROTOCOLS, SEAT, TEAM, get_protocol

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "baohuang_eval"


def test_protocols_are_looked_up_by_name():
    assert list(PROTOCOLS) == ["seat", "team"]
    assert get_protocol("seat") is SEAT and get_protocol("team") is TEAM and get_protocol(TEAM) is TEAM
    assert (SEAT.games_per_deal, TEAM.games_per_deal) == (10, 2)
    with pytest.raises(ValueError, match=r"protocol must be one of \['seat', 'team'\], got 'duplicate'"):
        get_protocol("duplicate")


def test_protocols_pickle_as_the_same_objects():
    assert pickle.loads(pickle.dumps(SEAT)) is SEAT and pickle.loads(pickle.dumps(TEAM)) is TEAM


def _imports(path: Path) -> set[str]:
    """Modules `path` imports: relative ones as their baohuang_eval submodule names."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            out.add(f"baohuang_eval.{node.module}" if node.level == 1 else node.module)
    return out


def test_modules_import_no_agents_and_no_cycle():
    graph = {p.stem: _imports(p) for p in PACKAGE_DIR.glob("*.py") if p.stem != "__init__"}
    for name, imports in graph.items():
        tops = {i.split(".")[0] for i in imports}
        assert not tops & {"agents", "baohuang_cli", "torch"}, name
    edges = {name: {i.split(".")[1] for i in imports if i.startswith("baohuang_eval.")}
             for name, imports in graph.items()}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join((*path, name))}"
        if name not in done:
            for dep in edges[name]:
                visit(dep, (*path, name))
            done.add(name)

    for name in edges:
        visit(name, ())
