"""Error types that map to CLI exit codes.

Why two kinds: a participant's bad file is a *rejection* (exit 1, message shown on the PR),
while a broken competition folder or a missing key is a *configuration* problem (exit 2) that a
maintainer must fix. Neither ever reaches the user as a traceback.
"""

from __future__ import annotations

from typing import Any


class GnncbError(Exception):
    """Base class; `str(err)` is a complete, user-facing message."""

    exit_code = 2


class ConfigError(GnncbError):
    """The platform side is wrong: a spec, a key, a path the maintainer controls."""

    exit_code = 2


class Rejection(GnncbError):
    """The submission is wrong: the participant can fix it and submit again."""

    exit_code = 1

    def __init__(self, message: str, *, code: str = "rejected",
                 problems: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.code = code
        # structured problems (file, line, column, code, message) when the refusal is about
        # a file's contents; `gnncb check --json` prints them
        self.problems = problems or []
