"""Counts and durations on the command line are checked by argparse (`baohuang_cli.argtypes`):
a negative or zero count, or a negative pause, is refused before any work starts."""

from __future__ import annotations

import pytest

from baohuang_cli import cli


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fuzz", "--games", "-3"], "argument --games: must be a positive integer (1 or more), got '-3'"),
        (["fuzz", "--games", "0"], "argument --games: must be a positive integer (1 or more), got '0'"),
        (["fuzz", "--workers", "0"], "argument --workers: must be a positive integer (1 or more), got '0'"),
        (["fuzz", "--games", "2.5"], "argument --games: must be a positive integer (1 or more), got '2.5'"),
        (["eval", "--agents", "random", "random", "--deals", "-1"], "argument --deals: must be a positive integer"),
        (["eval", "--agents", "random", "random", "--workers", "0"], "argument --workers: must be a positive integer"),
        (["train", "dmc", "--workers", "0"], "argument --workers: must be a positive integer"),
        (["bench", "--seconds", "0"], "argument --seconds: must be a number of seconds > 0, got '0'"),
        (["bench", "--seconds", "nan"], "argument --seconds: must be a number of seconds > 0, got 'nan'"),
        (["replay", "x.json", "--delay", "-1"], "argument --delay: must be a number of seconds >= 0, got '-1'"),
    ],
)
def test_bad_counts_are_refused_by_argparse(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_good_counts_run(capsys):
    assert cli.main(["fuzz", "--games", "2", "--workers", "1", "--seed", "5"]) == 0
    assert '"games": 2' in capsys.readouterr().out


def test_version_of_the_command_and_the_package(capsys):
    import baohuang_env

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"baohuang {baohuang_env.__version__}"
    from importlib.metadata import version

    assert version("baohuang-rl") == baohuang_env.__version__
