"""A user's own agent class by spec: `python:MODULE:CLASS` (docs/agents.md).

MODULE is imported with the current directory first on `sys.path` (for that import only), so
`baohuang eval --agents python:mymod:MyBot heuristic` run from the folder that holds
`mymod.py` finds it; the evaluation's worker processes start in the same directory and get
the spec, not the object, so they import it the same way. CLASS is built with
`(rules, seed)` when its `__init__` accepts two positional arguments, else with none. Every
way this can fail is a ValueError that says what to fix.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from types import ModuleType

from .agent import Agent, check_agent, check_agent_class
from .rules import Rules

#: How the spec is written, said in every error about its form.
SPEC_FORM = "python:MODULE:CLASS (e.g. python:mymod:MyBot for class MyBot in mymod.py of the current directory)"


def make_user_agent(arg: str | None, rules: Rules, seed: int | None) -> Agent:
    """The agent of spec `python:arg`: class CLASS of module MODULE (`arg` = "MODULE:CLASS",
    `user_class`), built with `(rules, seed)` or with no arguments (`_construct`)."""
    cls = user_class(arg)
    return check_agent(_construct(cls, rules, seed), f"module {cls.__module__!r}")


def user_class(arg: str | None) -> type:
    """The agent class that `python:arg` names, imported and checked but not built: what
    `baohuang serve` checks before it starts. ValueError when the spec is malformed, the module
    or the class is missing, or the class makes no agents."""
    module_name, _, class_name = (arg or "").rpartition(":")
    if not module_name or not class_name:
        raise ValueError(f"write your own agent as {SPEC_FORM}; got python:{arg or ''}")
    module = _import(module_name)
    return check_agent_class(_find_class(module, class_name), getattr(module, "__file__", None) or module_name)


def _import(module_name: str) -> ModuleType:
    """`module_name` imported with the current directory first on `sys.path` for the import
    (and only then: a folder of the current directory must not shadow a package later)."""
    if module_name in sys.modules:
        return sys.modules[module_name]
    here = os.getcwd()
    sys.path.insert(0, here)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name is not None and module_name != err.name and not module_name.startswith(err.name + "."):
            raise  # the module was found; something it imports is missing: its own traceback says what
        raise ValueError(f"cannot import module {module_name!r}: no {module_name.replace('.', '/')}.py (or package "
                         f"folder) in the current directory {here} nor on sys.path; run from the folder that holds "
                         f"it, or install it") from None
    finally:
        sys.path.remove(here)


def _find_class(module: ModuleType, class_name: str) -> type:
    """Class `class_name` of `module`; a ValueError listing the classes it defines instead."""
    cls = getattr(module, class_name, None)
    if isinstance(cls, type):
        return cls
    where = getattr(module, "__file__", None) or module.__name__
    defined = sorted(name for name, obj in vars(module).items()
                     if isinstance(obj, type) and obj.__module__ == module.__name__)
    raise ValueError(f"module {module.__name__!r} ({where}) has no class {class_name!r}; classes defined there: "
                     f"{defined or 'none'}")


def _construct(cls: type, rules: Rules, seed: int | None) -> object:
    """`cls(rules, seed)` when its `__init__` accepts two positional arguments, else `cls()`:
    an agent that plays one preset or draws random numbers gets them, a simple one need not
    declare them."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):  # a class whose signature cannot be read: try the documented form
        return cls(rules, seed)
    for args in ((rules, seed), ()):
        try:
            signature.bind(*args)
        except TypeError:
            continue
        return cls(*args)
    raise ValueError(f"cannot build {cls.__name__}: its __init__{signature} takes neither (rules, seed) nor "
                     "no arguments")
