"""Average the weights of several checkpoints of one network into one playing copy (a "model soup").

Networks fine-tuned from one start lie in one basin of the loss, so their weight average is a
network too, and often a better one than each: the regression targets are noisy, and averaging
the weights averages the noise each run fitted (Wortsman et al. 2022, "Model soups"; Izmailov et
al. 2018, stochastic weight averaging). Averaging unrelated networks gives nonsense, so every
input must have the same rules, architecture and network names; they should share a start.

    python experiments/average_weights.py agents/pretrained/dmc_kickstart_jj.pt \\
        runs/anneal_lr1e4/jj/RUN/model.pt --out runs/soup/model.pt

Writes a playing copy (`MODEL_KEYS`): the first file's record with the averaged weights, its
counters the largest of the inputs', and `config.averaged_from` naming the inputs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.files.checkpoint import load_checkpoint, playing_copy, save_checkpoint


def average(paths: list[Path], weights: list[float] | None = None) -> dict:
    """The weighted mean of the networks in `paths` (equal weights by default), as a playing copy."""
    if len(paths) < 2:
        raise ValueError("average at least two checkpoints")
    weights = weights or [1.0] * len(paths)
    if len(weights) != len(paths) or min(weights) < 0 or sum(weights) <= 0:
        raise ValueError(f"one non-negative weight per checkpoint, not all zero (got {weights} for {len(paths)})")
    ckpts = [load_checkpoint(p) for p in paths]
    first = ckpts[0]
    for path, ckpt in zip(paths[1:], ckpts[1:], strict=True):
        for key in ("compat", "arch"):
            if ckpt[key] != first[key]:
                raise ValueError(f"{path}: its {key} differs from {paths[0]}'s; only one network's checkpoints average")
        if ckpt["models"].keys() != first["models"].keys():
            raise ValueError(f"{path}: networks {sorted(ckpt['models'])}, {paths[0]} has {sorted(first['models'])}")
    total = sum(weights)
    models = {
        name: {
            tensor: sum(w * c["models"][name][tensor].double() for w, c in zip(weights, ckpts, strict=True)).div(total)
            .to(state[tensor].dtype)
            for tensor in state
        }
        for name, state in first["models"].items()
    }
    out = playing_copy(first)
    out["models"] = models
    out["counters"] = {k: max(c["counters"].get(k, 0) for c in ckpts) for k in first["counters"]}
    out["config"] = {**first["config"], "averaged_from": [
        {"file": str(p), "weight": w / total} for p, w in zip(paths, weights, strict=True)]}
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoints", nargs="+", type=Path, help="checkpoints of one network (same rules and architecture)")
    p.add_argument("--weights", type=float, nargs="+", help="one per checkpoint (default: equal)")
    p.add_argument("--out", type=Path, required=True, help="the averaged playing copy")
    args = p.parse_args(argv)
    try:
        soup = average(args.checkpoints, args.weights)
    except ValueError as e:
        sys.exit(f"average_weights.py: {e}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(args.out, soup)
    print(f"wrote {args.out}: the mean of {len(args.checkpoints)} networks")


if __name__ == "__main__":
    main()
