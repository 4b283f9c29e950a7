"""Learning curves of training runs: `baohuang curves` (`agents.training.curves`), kept under its old
path for the commands quoted in the docs.

    python experiments/learning_curves.py RUN_DIR[=LABEL] ... --out docs/learning_curves.png
"""

from __future__ import annotations

import sys

from baohuang_cli.cli import main as cli_main


def main(argv: list[str] | None = None) -> int:
    """`baohuang curves` with these arguments."""
    return cli_main(["curves", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
