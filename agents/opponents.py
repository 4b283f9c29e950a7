"""Opponents named in trainer configs (`eval_opponents`, PPO's `opponent_mix`) as they appear
in TensorBoard: one short tag per agent spec, free of the `/` and `:` a checkpoint's path
brings (a `/` would nest the tag in TensorBoard's tree). Both trainers name every opponent
through `opponent_tag`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

#: The file names a run writes (`agents.run.CHECKPOINT_NAME`, `MODEL_NAME`): they say nothing
#: about which run, so such an opponent is named by its run folder.
RUN_FILE_STEMS = ("checkpoint", "model")


def opponent_tag(spec: str) -> str:
    """A short TensorBoard-safe name for agent spec `spec`: a bot's own name ("greedy"), a
    checkpoint agent's kind and file stem ("dmc:agents/pretrained/dmc_jj.pt" -> "dmc-dmc_jj"),
    or kind and run folder for a run's own files ("ppo:runs/RUN/model.pt" -> "ppo-RUN").
    Only letters, digits, "_", "-" and "." remain."""
    kind, sep, arg = spec.partition(":")
    name = kind
    if sep:
        path = PurePosixPath(arg.replace("\\", "/"))
        stem = path.stem
        if stem in RUN_FILE_STEMS and path.parent.name:
            stem = path.parent.name
        name = f"{kind}-{stem}" if stem else kind
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def check_distinct_tags(key: str, specs: Iterable[str]) -> None:
    """Refuse two opponents of one config key that would share a TensorBoard tag (and so
    write over each other's curves)."""
    seen: dict[str, str] = {}
    for spec in specs:
        tag = opponent_tag(spec)
        if tag in seen and seen[tag] != spec:
            raise ValueError(f"{key}: {seen[tag]!r} and {spec!r} would share the TensorBoard tag {tag!r}; "
                             "give one of the files another name")
        seen[tag] = spec
