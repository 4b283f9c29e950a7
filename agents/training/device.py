"""Where a trainer's learner computes: `device: auto | cpu | cuda | cuda:N` (`RunConfig.device`).

The actors (DMC) and rollouts (PPO) keep playing from a copy of the networks in the CPU's
memory, where their small per-decision passes are fastest; only the learner's updates move to
the device. With "cpu" the learner updates that copy itself, as before this setting existed.
"""

from __future__ import annotations

import copy

import torch

from .config import check_device_spec


def training_device(spec: str) -> torch.device:
    """The device `spec` names on this machine: "auto" takes the first CUDA device when torch
    sees one, else the CPU. Asking for CUDA where there is none (a CPU build of torch, no
    driver, or no such index) is a ValueError that says why, raised before a run starts."""
    check_device_spec(spec)
    if spec == "auto":
        return torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    if spec == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        why = ("this torch is a CPU-only build" if torch.version.cuda is None
               else "torch sees no CUDA device (no GPU, or no driver)")
        raise ValueError(f"device={spec!r} asks for CUDA, but {why}; use device=cpu or device=auto")
    device = torch.device(spec if ":" in spec else "cuda:0")
    if device.index >= torch.cuda.device_count():
        raise ValueError(f"device={spec!r}: this machine has {torch.cuda.device_count()} CUDA device(s), "
                         f"cuda:0..cuda:{torch.cuda.device_count() - 1}")
    return device


def learner_copy(module: torch.nn.Module, device: torch.device) -> torch.nn.Module:
    """The module the learner updates: `module` itself on the CPU, else a copy on `device`
    (whose weights `sync_to` brings back to the CPU copy the players read)."""
    if device.type == "cpu":
        return module
    return copy.deepcopy(module).to(device)


@torch.no_grad()
def sync_to(players: torch.nn.Module, learner: torch.nn.Module) -> None:
    """Copy the learner's weights into the players' CPU copy (nothing when they are one)."""
    if players is learner:
        return
    for mine, theirs in zip(players.parameters(), learner.parameters(), strict=True):
        mine.copy_(theirs, non_blocking=False)
    for mine, theirs in zip(players.buffers(), learner.buffers(), strict=True):
        mine.copy_(theirs)
