"""`baohuang export CHECKPOINT OUT`: a playing-only copy of a training checkpoint (networks,
shapes and rules fingerprint; no optimizer or RNG state), a fraction of the size."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write the weights-only copy of a DMC or PPO checkpoint")
    p.add_argument("checkpoint")
    p.add_argument("out")


def main(args) -> int:
    from agents.training import export_model

    export_model(args.checkpoint, args.out)
    print(f"wrote {args.out}")
    return 0
