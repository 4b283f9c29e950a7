"""`baohuang export CHECKPOINT OUT [--force]`: a playing-only copy of a training checkpoint
(networks, shapes and rules fingerprint; no optimizer or RNG state), a fraction of the size.
`baohuang export --onnx CHECKPOINT OUT.onnx`: the network of a DMC or PPO checkpoint as an
ONNX graph for other runtimes (`agents.files.onnx_export`, docs/deploy.md; needs the onnx extra).
CHECKPOINT may be a run directory, as for `--resume`. An existing OUT is replaced only with
--force, and a training checkpoint never is."""

from __future__ import annotations

import json


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write the weights-only copy of a DMC or PPO checkpoint, or its ONNX graph")
    p.add_argument("checkpoint", help="training checkpoint, or a run directory (its checkpoint.pt)")
    p.add_argument("out", help="file to write the playing copy to (with --onnx: the .onnx file)")
    p.add_argument("--onnx", action="store_true",
                   help='write the network as an ONNX graph instead (docs/deploy.md; pip install -e ".[onnx]")')
    p.add_argument("--force", action="store_true",
                   help="replace an existing OUT (never a training checkpoint)")


def main(args) -> int:
    from agents.training.run import checkpoint_path

    if args.onnx:
        from agents.files.onnx_export import export_onnx

        meta = export_onnx(checkpoint_path(args.checkpoint), args.out, force=args.force)
        inputs = ", ".join(f"{name} {shape}" for name, shape in json.loads(meta["inputs"]).items())
        outputs = ", ".join(f"{name} {shape}" for name, shape in json.loads(meta["outputs"]).items())
        print(f"wrote {args.out}: {meta['algo']} network ({meta['networks']}) for preset {meta['preset']} "
              f"(rules fingerprint {meta['rules_fingerprint']}); inputs {inputs}; outputs {outputs}")
        return 0
    from agents.training.common import export_model

    export_model(checkpoint_path(args.checkpoint), args.out, force=args.force)
    print(f"wrote {args.out}")
    return 0
