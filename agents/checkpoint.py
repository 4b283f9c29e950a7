"""Checkpoints: written atomically, loaded safely, refused when made for other rules.

A checkpoint is a dict of tensors and plain values (no pickled objects), so it loads with
`torch.load(weights_only=True)`. It carries a fingerprint of the rules, the action layout
and the feature encodings; loading it for anything else fails with a message saying which
part differs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch

from baohuang_env.actions import LAYOUT_VERSION, action_table
from baohuang_env.observation import observation_layout
from baohuang_env.replay import atomic_path
from baohuang_env.rules import Rules

CHECKPOINT_FORMAT = "baohuang-checkpoint"
CHECKPOINT_VERSION = 1
#: What a playing copy of a checkpoint keeps (every trainer writes these keys); a training
#: checkpoint also holds what training continues from (optimizer, RNG states ...).
MODEL_KEYS = ("compat", "config", "arch", "models", "counters")


def checkpoint_kind(ckpt: dict[str, Any]) -> str:
    """"training" for a checkpoint a run can resume from; "playing" for a playing copy
    (`model.pt`, an export: only MODEL_KEYS, so it plays but cannot continue training)."""
    extra = set(ckpt) - {"format", "version", *MODEL_KEYS}
    return "training" if extra else "playing"


def compatibility(rules: Rules, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """What a checkpoint must match to be usable: rules, action layout, observation size."""
    return {
        "rules_fingerprint": rules.fingerprint(LAYOUT_VERSION),
        "rules": rules.to_dict(),
        "layout_version": LAYOUT_VERSION,
        "num_actions": action_table(rules).num_actions,
        "observation_size": observation_layout(rules).size,
        **(extra or {}),
    }


def _same_rules(have: Any, want: Any) -> bool:
    """Do two `Rules.to_dict()` records name the same rules? A record from an older version
    lacks the flags added since; rebuilding it fills them with its preset's values."""
    try:
        return Rules.from_dict(have) == Rules.from_dict(want)
    except (TypeError, ValueError):
        return False


def save_checkpoint(path: str | os.PathLike, payload: dict[str, Any]) -> None:
    """torch.save to a temporary file in the same folder, then rename over `path`."""
    with atomic_path(path) as tmp:
        torch.save({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **payload}, tmp)


def load_checkpoint(path: str | os.PathLike, expect: dict[str, Any] | None = None) -> dict[str, Any]:
    """Load a checkpoint with weights_only=True and check it against `expect`
    (a `compatibility(...)` dict). Raises ValueError saying what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds for a damaged or foreign file
        raise ValueError(f"cannot load checkpoint {path}: {err}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not a Baohuang checkpoint")
    if ckpt.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path}: checkpoint version {ckpt.get('version')} is not supported "
                         f"(this code reads version {CHECKPOINT_VERSION})")
    if expect is not None:
        have = ckpt.get("compat", {})
        same_rules = _same_rules(have.get("rules"), expect.get("rules"))
        for key, want in expect.items():
            if key in ("rules_fingerprint", "rules") and same_rules:
                continue  # an older record of the same rules (its fingerprint predates the new flags)
            if have.get(key) != want:
                if key in ("rules_fingerprint", "rules"):
                    why = f"it was trained for rules {have.get('rules')}, not {expect.get('rules')}"
                else:
                    why = f"its {key} is {have.get(key)!r}, expected {want!r}"
                raise ValueError(f"checkpoint {path} does not fit: {why}")
    return ckpt
