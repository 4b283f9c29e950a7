"""`baohuang export CHECKPOINT OUT [--force]`: a playing-only copy of a training checkpoint
(networks, shapes and rules fingerprint; no optimizer or RNG state), a fraction of the size.
CHECKPOINT may be a run directory, as for `--resume`. An existing OUT is replaced only with
--force, and a training checkpoint never is."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write the weights-only copy of a DMC or PPO checkpoint")
    p.add_argument("checkpoint", help="training checkpoint, or a run directory (its checkpoint.pt)")
    p.add_argument("out", help="file to write the playing copy to")
    p.add_argument("--force", action="store_true",
                   help="replace an existing OUT (never a training checkpoint)")


def main(args) -> int:
    from agents.run import checkpoint_path
    from agents.training import export_model

    export_model(checkpoint_path(args.checkpoint), args.out, force=args.force)
    print(f"wrote {args.out}")
    return 0
