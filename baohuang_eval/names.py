"""The names tables and plots give agents: an agent spec with its file paths cut short.

A spec names its checkpoint by path (`dmc:runs/baohuang-jj__dmc_quick__1__20261204-064906/model.pt`,
90 characters in a training run's final evaluation), which made every row of a table that wide.
`display_names` keeps of each path only its last components, as few as keep the specs of one
report apart; report.json keeps the full specs, and report.md says which is which.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: A file path inside a spec: a run of characters with a slash, up to the spec's separators.
_PATH = re.compile(r"[^:=,\s]*[/\\][^:=,\s]*")


def _cut(spec: str, parts: int) -> str:
    """`spec` with each path in it cut to its last `parts` components."""
    return _PATH.sub(lambda m: "/".join(re.split(r"[/\\]", m.group(0))[-parts:]), spec)


def display_names(specs: Sequence[str]) -> dict[str, str]:
    """spec -> its display name: each path cut to its file name, or to as many last components
    as tell the specs apart (`dmc:a/model.pt` and `dmc:b/model.pt` stay `dmc:a/model.pt` and
    `dmc:b/model.pt`); a spec without a path is its own name."""
    specs = list(dict.fromkeys(specs))
    longest = max((m.group(0).count("/") + m.group(0).count("\\") + 1 for s in specs for m in _PATH.finditer(s)),
                  default=1)
    for parts in range(1, longest + 1):
        names = {s: _cut(s, parts) for s in specs}
        if len(set(names.values())) == len(specs):
            return names
    return {s: s for s in specs}


__all__ = ["display_names"]
