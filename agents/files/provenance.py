"""What an agent spec resolves to, so that a report stays reproducible.

`pretrained` is the strongest shipped agent of the preset today; a later release may ship
another file under that name, and `dmc:runs/x/model.pt` may be retrained in place. A report
that records only the spec then no longer says what played. `resolve_spec` records the file a
spec loads, its sha256 and the rules fingerprint its checkpoint carries (with, for the
agents that wrap another spec, what that one resolves to); `baohuang eval` and the training's
final evaluation write it into report.json as `agents_resolved`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from baohuang_env import __version__
from baohuang_env.rules import Rules

from .checkpoint import load_checkpoint, sha256_of
from ..pretrained import checkpoint_path, chosen

#: The agent kinds that load a checkpoint file named by their argument.
CHECKPOINT_KINDS = ("dmc", "ppo")


def file_fingerprint(path: str | Path) -> dict[str, Any]:
    """A checkpoint file as a report records it: its absolute path, the sha256 of its bytes,
    and the rules fingerprint it was trained for (None when it records none)."""
    path = Path(path).resolve()
    compat = load_checkpoint(path).get("compat", {})
    return {"file": str(path), "sha256": sha256_of(path), "rules_fingerprint": compat.get("rules_fingerprint")}


def resolve_spec(spec: str, rules: Rules) -> dict[str, Any]:
    """What `spec` plays with under `rules`: always its `spec`, `kind` and the package's
    `version` (a scripted bot is its code); for a checkpoint agent its `file_fingerprint`;
    for `pretrained[:NAME]` also the shipped agent's name (`pretrained`) and the spec it
    `resolves_to`; for `search` its `base` and for `roles:SPEC` the agent whose role answers
    it gives (`roles_of`), each resolved the same way."""
    kind, _, arg = spec.partition(":")
    out: dict[str, Any] = {"spec": spec, "kind": kind, "version": __version__}
    if kind == "pretrained":
        shipped = chosen(arg or None, rules)
        target = f"{shipped.kind}:{shipped.path}"
        return {**resolve_spec(target, rules), "spec": spec, "pretrained": shipped.name, "resolves_to": target}
    if kind in CHECKPOINT_KINDS and arg:
        return {**out, **file_fingerprint(checkpoint_path(arg))}
    if kind == "roles" and arg:
        return {**out, "roles_of": resolve_spec(arg, rules)}
    if kind == "search":
        from ..search import SearchSettings  # the search imports the batched engine (numba)

        return {**out, "base": resolve_spec(SearchSettings.parse(arg or None).base, rules)}
    return out


__all__ = ["CHECKPOINT_KINDS", "file_fingerprint", "resolve_spec"]
