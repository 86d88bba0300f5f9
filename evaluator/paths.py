"""Where the repository's top-level folders are.

Why: the design card puts `templates/`, `competitions/`, `keys/` and `leaderboard/` at the top
of the repository, beside the package, and the tools run from a checkout (`pip install -e .`).
`GNNCB_ROOT` overrides the location for tools run elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

from evaluator.errors import ConfigError


def repo_root() -> Path:
    env = os.environ.get("GNNCB_ROOT")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent


def templates_dir() -> Path:
    path = repo_root() / "templates"
    if not path.is_dir():
        raise ConfigError(f"{path}: templates folder not found; run from a gnncb checkout "
                          "installed with `pip install -e .` or set GNNCB_ROOT")
    return path


def competitions_dir() -> Path:
    return repo_root() / "competitions"


def default_ledger() -> Path:
    return repo_root() / "leaderboard" / "ledger.jsonl"


def default_public_key() -> Path:
    return repo_root() / "keys" / "platform-public.pem"
