"""The rules engine is pure. Its modules import only the standard library,
numpy and each other (never pettingzoo, gymnasium or torch), and never use a global RNG
(`random`, or `np.random.*` other than building a Generator)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = "baohuang_env"
PACKAGE_DIR = Path(__file__).resolve().parents[1] / PACKAGE
ENGINE = ("rules", "cards", "actions", "hands", "role_phase", "scoring", "game")
FORBIDDEN = {"pettingzoo", "gymnasium", "gym", "torch"}
THIRD_PARTY_ALLOWED = {"numpy"}
#: `np.random` names that build an explicit generator instead of drawing from global state.
RNG_CONSTRUCTORS = {"default_rng", "SeedSequence", "Generator"}


def imported_modules(tree: ast.AST) -> list[str]:
    """Absolute module names a module imports; relative imports as "baohuang_env.<name>"."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                out.append(node.module)
            elif node.level == 1 and node.module:
                out.append(f"{PACKAGE}.{node.module}")
            elif node.level == 1:  # from . import x, y
                out += [f"{PACKAGE}.{alias.name}" for alias in node.names]
            else:
                out.append("<outside the package>")
    return out


def import_problems(source: str) -> list[str]:
    problems = []
    for name in imported_modules(ast.parse(source)):
        top = name.split(".")[0]
        if top in FORBIDDEN:
            problems.append(f"imports {name} (an adapter dependency)")
        elif top == PACKAGE:
            sub = name.split(".")[1] if "." in name else ""
            if sub not in ENGINE:
                problems.append(f"imports {name}, which is not an engine module")
        elif top not in sys.stdlib_module_names and top not in THIRD_PARTY_ALLOWED and top != "__future__":
            problems.append(f"imports {name}, which is neither stdlib nor numpy")
    return problems


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def global_rng_problems(source: str) -> list[str]:
    tree = ast.parse(source)
    numpy_names = {"numpy"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            numpy_names |= {a.asname or a.name for a in node.names if a.name == "numpy"}
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problems += [f"imports {a.name}" for a in node.names if a.name == "random"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if node.module == "random":
                problems.append("imports from random")
            elif node.module == "numpy" and any(a.name == "random" for a in node.names):
                problems.append("imports numpy.random as a name")
            elif node.module == "numpy.random":
                problems += [f"imports numpy.random.{a.name}" for a in node.names if a.name not in RNG_CONSTRUCTORS]
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted is None:
                continue
            parts = dotted.split(".")
            if len(parts) >= 3 and parts[0] in numpy_names and parts[1] == "random":
                if parts[2] not in RNG_CONSTRUCTORS:
                    problems.append(f"uses global RNG {dotted}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
            problems.append("dynamic __import__")
    return problems


def _source(module: str) -> str:
    return (PACKAGE_DIR / f"{module}.py").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the checks themselves


def test_the_import_check_catches_violations():
    assert import_problems("import pettingzoo") != []
    assert import_problems("from gymnasium import spaces") != []
    assert import_problems("import torch.nn as nn") != []
    assert import_problems("import pandas") != []
    assert import_problems("from .encoding import Encoder") != []  # an adapter module
    assert import_problems("from baohuang_env.aec_env import env") != []
    assert import_problems("from .. import x") != []
    assert import_problems("from __future__ import annotations\nimport json\nimport numpy as np\n"
                           "from .cards import NUM_SEATS\nfrom baohuang_env.rules import Rules") == []


def test_the_rng_check_catches_violations():
    assert global_rng_problems("import random") != []
    assert global_rng_problems("from random import shuffle") != []
    assert global_rng_problems("import numpy as np\nnp.random.shuffle(x)") != []
    assert global_rng_problems("import numpy\nnumpy.random.rand()") != []
    assert global_rng_problems("import numpy as onp\nonp.random.randint(3)") != []
    assert global_rng_problems("from numpy.random import permutation") != []
    assert global_rng_problems("from numpy import random") != []
    assert global_rng_problems(
        "import numpy as np\nrng = np.random.default_rng(1)\nrng.permutation(3)\n"
        "s = np.random.SeedSequence()\ndef f(g: np.random.Generator): return g.random()") == []


# --------------------------------------------------------------------------- the engine


@pytest.mark.parametrize("module", ENGINE)
def test_engine_module_imports_only_stdlib_numpy_and_the_engine(module):
    assert import_problems(_source(module)) == []


@pytest.mark.parametrize("module", ENGINE)
def test_engine_module_never_uses_a_global_rng(module):
    assert global_rng_problems(_source(module)) == []


def test_rules_modules_do_not_mention_adapter_libraries():
    """The literal purity check: grep -rE "pettingzoo|gymnasium|torch" baohuang_env/rules*."""
    for path in sorted(PACKAGE_DIR.glob("rules*")):
        text = path.read_text(encoding="utf-8")
        for word in ("pettingzoo", "gymnasium", "torch"):
            assert word not in text, f"{path.name} mentions {word}"


def test_every_engine_module_exists():
    assert all((PACKAGE_DIR / f"{m}.py").is_file() for m in ENGINE)
