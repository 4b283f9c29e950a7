"""Checkpoints: written atomically, loaded safely, refused when made for other rules.

A checkpoint is a dict of tensors and plain values (no pickled objects), so it loads with
`torch.load(weights_only=True)`. It carries a fingerprint of the rules, the action layout
and the feature encodings; loading it for anything else fails with a message saying which
part differs. There are two kinds: a training checkpoint (`checkpoint.pt`: the networks plus
the optimizer and RNG state a resume needs) and a playing copy (`model.pt`, `baohuang
export`: only `MODEL_KEYS`).
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import Any, Literal

import torch

from baohuang_env.actions import LAYOUT_VERSION, action_table
from baohuang_env.observation import observation_layout
from baohuang_env.replay import atomic_path
from baohuang_env.rules import PRESETS, Rules, get_rules

from ..pretrained import checkpoint_path

CHECKPOINT_FORMAT = "baohuang-checkpoint"
CHECKPOINT_VERSION = 1
#: What a playing copy of a checkpoint keeps (every trainer writes these keys); a training
#: checkpoint also holds what training continues from (optimizer, RNG states ...).
MODEL_KEYS = ("compat", "config", "arch", "models", "counters")
#: Said whenever a file is not a checkpoint at all.
_WHAT_A_CHECKPOINT_IS = "a checkpoint is a file written by `baohuang train` or `baohuang export`"
#: How the files torch writes begin: a zip archive (torch >= 1.6), or a pickle (protocol >= 2).
_TORCH_FILE_STARTS = (b"PK\x03\x04", b"\x80")


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


def _rules_record(record: Any) -> dict[str, Any] | None:
    """A `Rules.to_dict()` record, rebuilt so that a record from an older version gets the
    flags added since (its preset's values); the record as it is when it does not rebuild."""
    try:
        return Rules.from_dict(record).to_dict()
    except (TypeError, ValueError):
        return record if isinstance(record, dict) else None


def _rules_difference(have: Any, want: Any) -> str | None:
    """None when two `Rules.to_dict()` records name the same rules; else what differs: the
    preset of each and each flag whose values differ (the checkpoint's, then the asked one)."""
    have, want = _rules_record(have), _rules_record(want)
    if have is not None and have == want:
        return None
    if not have:
        return f"(the checkpoint records none; asked: preset {(want or {}).get('preset', '?')!r})"
    want = want or {}
    presets = f"checkpoint: preset {have.get('preset', '?')!r}; asked: preset {want.get('preset', '?')!r}"
    flags = [f"{key} (checkpoint {value!r}, asked {want.get(key, 'no such flag')!r})"
             for key, value in have.items() if key != "preset" and value != want.get(key)]
    return f"({presets}){_preset_hint(have, want)}" + (f"; flags that differ: {', '.join(flags)}" if flags else "")


def _preset_hint(have: dict[str, Any], want: dict[str, Any]) -> str:
    """When the checkpoint's rules are another preset's as it stands, how to ask for that
    preset (the flag of `baohuang eval` and `baohuang play`, and in Python); else nothing."""
    preset = have.get("preset")
    try:
        plays_preset = preset != want.get("preset") and preset in PRESETS and Rules.from_dict(have) == get_rules(preset)
    except (TypeError, ValueError):
        plays_preset = False
    return f": it plays preset {preset!r}, so add --preset {preset} (in Python: get_rules({preset!r}))" \
        if plays_preset else ""


def sha256_of(path: str | os.PathLike) -> str:
    """The hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def playing_copy(checkpoint: dict[str, Any]) -> dict[str, Any]:
    """The part of a loaded checkpoint that plays (`MODEL_KEYS`): what `baohuang export` writes,
    and what a script that changes a network's weights starts its output from."""
    return {k: checkpoint[k] for k in MODEL_KEYS}


def save_checkpoint(path: str | os.PathLike, payload: dict[str, Any]) -> None:
    """torch.save to a temporary file in the same folder, then rename over `path`."""
    with atomic_path(path) as tmp:
        torch.save({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **payload}, tmp)


def _read(path: Path) -> dict[str, Any]:
    """The dict in a Baohuang checkpoint file, read without running any code it may hold.
    Raises ValueError saying what the file is instead. A shipped agent's path as the docs write
    it (`agents/pretrained/dmc_jj.pt`) is found from any directory (`pretrained.checkpoint_path`)."""
    path = checkpoint_path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a directory, not a checkpoint file; {_WHAT_A_CHECKPOINT_IS}")
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    with open(path, "rb") as f:
        head = f.read(4)
    if not head.startswith(_TORCH_FILE_STARTS):
        raise ValueError(f"{path} is not a checkpoint: {_WHAT_A_CHECKPOINT_IS}")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # torch's own text here advises unsafe loading: never repeat it
        raise ValueError(f"{path} is not a Baohuang checkpoint, or it contains objects a Baohuang checkpoint "
                         f"never has; it was refused for safety, without running anything in it; "
                         f"{_WHAT_A_CHECKPOINT_IS}") from None
    except Exception as err:  # a truncated or damaged archive: torch raises many kinds
        reason = str(err).split(". ")[0].strip() or type(err).__name__  # its first sentence
        raise ValueError(f"cannot load checkpoint {path}: it is damaged or not a checkpoint ({reason}); "
                         f"{_WHAT_A_CHECKPOINT_IS}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not a Baohuang checkpoint: {_WHAT_A_CHECKPOINT_IS}")
    return ckpt


def checkpoint_kind(checkpoint: dict[str, Any] | str | os.PathLike) -> Literal["training", "playing"]:
    """"training" for a checkpoint a run can resume from (it holds more than `MODEL_KEYS`:
    optimizer and RNG state), "playing" for a playing copy (`model.pt`, an export: it plays
    but cannot continue training). Takes a loaded checkpoint or a path; raises ValueError
    when the file is not a Baohuang checkpoint."""
    ckpt = checkpoint if isinstance(checkpoint, dict) else _read(Path(checkpoint))
    return "training" if set(ckpt) - {"format", "version", *MODEL_KEYS} else "playing"


def load_checkpoint(path: str | os.PathLike, expect: dict[str, Any] | None = None) -> dict[str, Any]:
    """Load a checkpoint with weights_only=True and check it against `expect`
    (a `compatibility(...)` dict). Raises ValueError saying what is wrong."""
    path = Path(path)
    ckpt = _read(path)
    if ckpt.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path}: checkpoint version {ckpt.get('version')} is not supported "
                         f"(this code reads version {CHECKPOINT_VERSION})")
    if expect is not None:
        have = ckpt.get("compat", {})
        rules = _rules_difference(have.get("rules"), expect.get("rules"))
        if rules is not None:
            raise ValueError(f"checkpoint {path} was trained for other rules {rules}")
        for key, want in expect.items():
            # rules_fingerprint: a record of the same rules from an older version has another one
            if key not in ("rules_fingerprint", "rules") and have.get(key) != want:
                raise ValueError(f"checkpoint {path} does not fit: its {key} is {have.get(key)!r}, "
                                 f"expected {want!r}")
    return ckpt
