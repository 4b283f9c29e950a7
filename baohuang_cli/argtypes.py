"""Argument types for counts and durations on the command line: argparse calls them, so a bad
value is refused before any work starts, as "argument --games: must be ..., got '-3'"."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def positive_int(text: str) -> int:
    """A count (games, deals, workers): an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer (1 or more), got {text!r}")
    return value


def _float(text: str, ok: Callable[[float], bool], allowed: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (ok(value) and value != float("inf")):  # NaN fails every comparison
        raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A duration that must pass (seconds per measurement): a finite number > 0."""
    return _float(text, lambda v: v > 0, "a number of seconds > 0")


def non_negative_float(text: str) -> float:
    """A pause that may be none: a finite number >= 0."""
    return _float(text, lambda v: v >= 0, "a number of seconds >= 0")
