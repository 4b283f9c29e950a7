"""Deal sets: the deals an evaluation is played on, and the deal files that save them.

A deal set is a rule set plus one game seed per deal; `Game(rules, seed)` regenerates every
deal exactly. `deal_range(n, start)` gives seeds start..start+n-1; the default start
`EVAL_SEED_START` lies in the seed range reserved for evaluation (`baohuang_env.seeds`:
training deals are drawn from `TRAIN_SEED_START` upwards, so no evaluation deal is ever
trained on). A deal file (`write_deals`, `baohuang eval --write-deals`) is
``{"format": "baohuang-deals", "version": 1, "rules": {...}, "seeds": [...]}``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from baohuang_env.replay import atomic_path
from baohuang_env.rules import Rules, get_rules
from baohuang_env.seeds import EVAL_SEED_START

DEALS_FORMAT = "baohuang-deals"
DEALS_VERSION = 1


@dataclass(frozen=True)
class DealSet:
    """The deals of an evaluation: a rule set and one game seed per deal."""

    rules: Rules
    seeds: tuple[int, ...]
    source: str = "range"  # "range" or the deal file it was read from

    def to_file_dict(self) -> dict[str, Any]:
        """The deal-file format (see `write_deals`)."""
        return {"format": DEALS_FORMAT, "version": DEALS_VERSION, "rules": self.rules.to_dict(),
                "seeds": list(self.seeds)}

    @property
    def fingerprint(self) -> str:
        """sha256 (16 hex digits) of the rules and seeds: equal fingerprints, equal deals."""
        blob = json.dumps({"rules": self.rules.to_dict(), "seeds": list(self.seeds)}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        """A short description for reports."""
        s = self.seeds
        contiguous = list(s) == list(range(s[0], s[0] + len(s)))
        return {"source": self.source, "count": len(s), "first_seed": s[0], "last_seed": s[-1],
                "contiguous": contiguous, "preset": self.rules.preset, "rules": self.rules.to_dict(),
                "fingerprint": self.fingerprint}


def check_seeds(seeds: Iterable[Any], where: str) -> tuple[int, ...]:
    """The seeds as a tuple of ints; ValueError (starting with `where`) unless they are
    distinct non-negative integers, at least one."""
    out = tuple(seeds)
    if not out:
        raise ValueError(f"{where}: the deal set is empty; give at least one seed")
    bad = [s for s in out if isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0]
    if bad:
        raise ValueError(f"{where}: seeds must be non-negative integers, got {bad[:3]!r}")
    out = tuple(int(s) for s in out)
    if len(set(out)) != len(out):
        raise ValueError(f"{where}: seeds must be distinct (a repeated deal would count twice)")
    return out


def deal_range(count: int, start: int = EVAL_SEED_START, rules: Rules | None = None) -> DealSet:
    """Deals with seeds start .. start + count - 1 (rules: the default preset if None)."""
    if count < 1:
        raise ValueError(f"--deals must be at least 1, got {count}")
    if start < 0:
        raise ValueError(f"--deal-seed must be non-negative, got {start}")
    return DealSet(rules if rules is not None else get_rules(), tuple(range(start, start + count)))


def write_deals(path: str | os.PathLike, deals: DealSet) -> None:
    """Save a deal set as a deal file (atomically: a temporary file, then a rename)."""
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        f.write(json.dumps(deals.to_file_dict()).encode("utf-8"))


def load_deals(path: str | os.PathLike) -> DealSet:
    """Read a deal file. Raises ValueError naming the file and what is expected."""
    expected = (f'expected a JSON object {{"format": "{DEALS_FORMAT}", "version": {DEALS_VERSION}, '
                '"rules": {...}, "seeds": [...]}, as written by `baohuang eval --write-deals FILE`')
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as err:
        raise ValueError(f"cannot read deal file {path}: {err.strerror}; {expected}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"deal file {path} is not valid JSON ({err}); {expected}") from None
    if not isinstance(data, dict) or data.get("format") != DEALS_FORMAT:
        raise ValueError(f"deal file {path} is not a Baohuang deal file; {expected}")
    if data.get("version") != DEALS_VERSION:
        raise ValueError(f"deal file {path} has version {data.get('version')!r}; this code reads "
                         f"version {DEALS_VERSION}")
    if not isinstance(data.get("rules"), dict) or not isinstance(data.get("seeds"), list):
        raise ValueError(f"deal file {path} lacks a 'rules' object or a 'seeds' list; {expected}")
    try:
        rules = Rules.from_dict(data["rules"])
    except (ValueError, TypeError) as err:
        raise ValueError(f"deal file {path} has invalid rules: {err}") from None
    return DealSet(rules, check_seeds(data["seeds"], f"deal file {path}"), source=str(path))


__all__ = ["DEALS_FORMAT", "DEALS_VERSION", "DealSet", "check_seeds", "deal_range", "load_deals", "write_deals"]
