"""The `baohuang` command: `baohuang <command> --help` for each command's options."""

from __future__ import annotations

import argparse
import sys


def _bench(sub) -> None:
    p = sub.add_parser("bench", help="time masks, engine and envs; prints JSON")
    p.add_argument("--preset", default="jj")
    p.add_argument("--seconds", type=float, default=3.0, help="time per rate measurement (default 3)")
    p.add_argument("--seed", type=int, default=0)


def _fuzz(sub) -> None:
    p = sub.add_parser("fuzz", help="play random games and check every invariant")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--preset", default="jj")
    p.add_argument("--seed", type=int, default=0, help="first game seed; game i uses seed + i")
    p.add_argument("--workers", type=int, default=1, help="processes to use (default 1)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="baohuang", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    _bench(sub)
    _fuzz(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "bench":
            from . import bench

            return bench.main(args)
        if args.command == "fuzz":
            from . import fuzz

            return fuzz.main(args)
    except ValueError as err:  # bad user input (preset, flag, file ...): say what, no traceback
        print(f"baohuang {args.command}: error: {err}", file=sys.stderr)
        return 2
    raise AssertionError(f"unhandled command {args.command}")


if __name__ == "__main__":
    sys.exit(main())
