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


def competition_slugs(root: Path | None = None) -> list[str]:
    """Slugs of the competitions in the repository (folders holding a competition.yaml)."""
    base = root or competitions_dir()
    return sorted(p.parent.name for p in base.glob("*/competition.yaml"))


def resolve_competition(value: str | Path) -> Path:
    """A competition given as a folder (`competitions/gnn-cora`) or as a slug (`gnn-cora`).

    Why both: participants copy the slug from the README's table, maintainers tab-complete a
    path; every verb takes either. An unknown name gets the closest slugs and the full list, so
    a typo never ends in a bare "not found".
    """
    import difflib

    path = Path(value)
    if (path / "competition.yaml").is_file():
        return path
    candidate = competitions_dir() / str(value)
    if "/" not in str(value) and (candidate / "competition.yaml").is_file():
        return candidate
    slugs = competition_slugs()
    close = difflib.get_close_matches(path.name, slugs, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    listing = ", ".join(slugs) if slugs else "(none found under competitions/)"
    raise ConfigError(f"competition {str(value)!r} not found: neither {path} nor {candidate} "
                      f"holds a competition.yaml{hint}\n  competitions: {listing}")


def competition_arg(value: str) -> Path:
    """argparse `type=` for --competition: errors become usage errors (exit 2) naming the
    option, not tracebacks."""
    import argparse

    try:
        return resolve_competition(value)
    except ConfigError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
