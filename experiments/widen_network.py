"""Grow a trained DMC network wider without changing what it computes (function-preserving widening).

Is the jj agent's plateau the network's size? A wider network trained from scratch would need the
whole recipe again; instead the trained one is widened so that the wider network starts exactly
where it was (Chen et al. 2016, "Net2Net"): every new unit gets fresh incoming weights (PyTorch's
default initialisation) and zero outgoing weights, so no old unit and not the score sees it
until training moves those zeros. Training then goes on from the same function with more room.

    python experiments/widen_network.py agents/pretrained/dmc_kickstart_jj.pt --hidden 512 --head 256 \\
        --out runs/wide/start.pt
    baohuang train dmc --config dmc_anneal init_from=runs/wide/start.pt hidden=512 head=256 ...

Writes a playing copy (`MODEL_KEYS`) whose `arch` and `config` carry the new sizes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from agents.files.checkpoint import load_checkpoint, playing_copy, save_checkpoint
from agents.nets.networks import ActionScorer


def widen(state: dict[str, torch.Tensor], hidden: int, head: int, seed: int = 0) -> dict[str, torch.Tensor]:
    """The state dict of an `ActionScorer` with `hidden` and `head` units computing the same
    scores as the one in `state` (new units: fresh inputs, zero outputs)."""
    obs_size = state["state.0.weight"].shape[1]
    action_size = state["action.weight"].shape[1]
    old_hidden, old_head = state["state.0.weight"].shape[0], state["head.1.weight"].shape[0]
    if hidden < old_hidden or head < old_head:
        raise ValueError(f"widen only: the network has hidden={old_hidden}, head={old_head}; "
                         f"asked for hidden={hidden}, head={head}")
    torch.manual_seed(seed)
    new = ActionScorer(obs_size, action_size, hidden, head).state_dict()
    for key, old in state.items():
        grown = new[key].clone()
        if key in ("state.2.weight", "head.1.weight", "head.3.weight"):
            grown[:old.shape[0], old.shape[1]:] = 0.0  # the new units of the layer below reach no old unit
        grown[tuple(slice(0, n) for n in old.shape)] = old
        new[key] = grown
    return new


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoint", type=Path, help="a DMC checkpoint (one network, `networks: shared`)")
    p.add_argument("--hidden", type=int, required=True, help="state and action layers' width (the network's `hidden`)")
    p.add_argument("--head", type=int, required=True, help="the head's hidden width (`head`)")
    p.add_argument("--seed", type=int, default=0, help="for the new units' initial weights")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    ckpt = load_checkpoint(args.checkpoint)
    extra = [k for k in ckpt["models"] if k != "shared"]
    if extra:
        sys.exit(f"widen_network.py: {args.checkpoint} holds {sorted(ckpt['models'])}; only one shared network widens")
    try:
        models = {"shared": widen(ckpt["models"]["shared"], args.hidden, args.head, args.seed)}
    except ValueError as e:
        sys.exit(f"widen_network.py: {e}")
    out = playing_copy(ckpt)
    sizes = {"hidden": args.hidden, "head": args.head}
    out.update(models=models, arch={**ckpt["arch"], **sizes},
               config={**ckpt["config"], **sizes, "widened_from": str(args.checkpoint)})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(args.out, out)
    old = ckpt["arch"]
    print(f"wrote {args.out}: hidden {old['hidden']} -> {args.hidden}, head {old['head']} -> {args.head}")


if __name__ == "__main__":
    main()
