"""The `baohuang` command: `baohuang <command> --help` for each command's options.

Each command lives in its own module `baohuang_cli/<name>_cmd.py` with two functions:
`add_parser(subparsers)` to declare its options and `main(args) -> int` to run it.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: Command name -> module implementing it.
COMMANDS = {
    "bench": "baohuang_cli.bench",
    "eval": "baohuang_cli.eval_cmd",
    "fuzz": "baohuang_cli.fuzz",
    "fit": "baohuang_cli.fit_cmd",
    "train": "baohuang_cli.train_cmd",
    "export": "baohuang_cli.export_cmd",
    "info": "baohuang_cli.info_cmd",
    "replay": "baohuang_cli.replay_cmd",
    "play": "baohuang_cli.play_cmd",
    "serve": "baohuang_cli.serve_cmd",
    "study": "baohuang_cli.study_cmd",
    "curves": "baohuang_cli.curves_cmd",
}


def build_parser() -> argparse.ArgumentParser:
    from baohuang_env import __version__

    parser = argparse.ArgumentParser(prog="baohuang", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"baohuang {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS.values():
        importlib.import_module(module).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    # key=value overrides may stand anywhere (argparse alone rejects them after an option)
    args, extra = parser.parse_known_args(argv)
    if extra:
        if not hasattr(args, "overrides") or any("=" not in e or e.startswith("-") for e in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.overrides = [*args.overrides, *extra]
    try:
        return importlib.import_module(COMMANDS[args.command]).main(args)
    except ValueError as err:  # bad user input (preset, flag, file ...): say what, no traceback
        print(f"baohuang {args.command}: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `baohuang replay game.json | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
