"""Log lines that participant-controlled text cannot forge.

Why: GitHub Actions reads lines on stdout that start with `::` as workflow commands, and a file
name may contain a newline. Everything we print goes through `one_line`, so a participant's string
can neither start a line nor hide in ANSI escapes.
"""

from __future__ import annotations

import sys


def one_line(text: object, limit: int = 2000) -> str:
    """Control characters (newlines, ESC, ...) shown as escapes; long text cut."""
    out = []
    for ch in str(text):
        if ch == "\\":
            out.append("\\\\")
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    line = "".join(out)
    return line if len(line) <= limit else line[:limit] + "…"


def say(message: object) -> None:
    print(f"gnncb: {one_line(message)}", flush=True)


def warn(message: object) -> None:
    print(f"gnncb: {one_line(message)}", file=sys.stderr, flush=True)
