"""Terminal input shared by the interactive commands (play, replay)."""

from __future__ import annotations

import sys


def read_line(prompt: str) -> str:
    """input(), echoing the line when stdin is piped so that the transcript reads well."""
    line = input(prompt)
    if not sys.stdin.isatty():
        print(line)
    return line
