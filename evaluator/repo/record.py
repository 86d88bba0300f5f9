"""What a publish writes into the repository: ledger row, stored ciphertext, rendered pages.

Why store the ciphertext: re-scoring after a label fix needs the original predictions, and we
never keep them decrypted. The envelope is already public in the pull request and only the
platform key opens it, so `leaderboard/envelopes/<digest>.jwe` is safe to commit; its name is its
SHA-256, which is also the ledger row's identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evaluator.competition.boards import Board, Leaderboard
from evaluator.competition.spec import load_spec
from evaluator.errors import ConfigError
from evaluator.ledger.store import SUBMISSION, Ledger
from evaluator.ledger.store import store_envelope as store_in
from evaluator.render.boards import write_leaderboards
from evaluator.repo.gitops import Change
from evaluator.submission import envelope


def ledger_path(root: Path) -> Path:
    return Path(root) / "leaderboard" / "ledger.jsonl"


def envelopes_dir(root: Path) -> Path:
    return Path(root) / "leaderboard" / "envelopes"


def all_specs(root: Path, boards: Sequence[Board] = ()) -> list[Leaderboard]:
    """Every competition spec, plus the track boards (passed in by the track's caller: this
    layer sits below the tracks) whose folder exists."""
    comps = Path(root) / "competitions"
    return [load_spec(p.parent) for p in sorted(comps.glob("*/competition.yaml"))] + [
        b for b in boards if (comps / b.slug).is_dir()]


def store_envelope(root: Path, sealed: bytes) -> Path:
    """Write the ciphertext under its digest (idempotent); returns the path."""
    return store_in(envelopes_dir(root), sealed)


def rerender(root: Path, changed: list[str] | None = None, *,
             boards: Sequence[Board] = ()) -> list[Path]:
    """Re-render the boards under root/leaderboard: all of them, or only `changed` + the index
    (a publish changes one competition; the others' pages stay as they are)."""
    ledger = Ledger(ledger_path(root))
    return write_leaderboards(all_specs(root, boards), ledger.rows(), Path(root) / "leaderboard",
                              ledger="leaderboard/ledger.jsonl", changed=changed)


def rerender_readmes(root: Path, slugs: Sequence[str]) -> list[Path]:
    """Re-render the participant README of each competition in `slugs` from its spec and the
    repository's ledger; write (and return) only those that changed. Why: a README shows
    ledger rows (the baselines' scores), so a withdrawal or a re-score that moves them leaves
    a stale README that `gnncb competition lint` then fails in CI."""
    from evaluator.render.readme import render_readme

    written = []
    for slug in dict.fromkeys(slugs):
        folder = Path(root) / "competitions" / slug
        readme = folder / "README.md"
        if not (folder / "competition.yaml").is_file() or not readme.is_file():
            continue  # a track's board (its own README) or a folder without one
        text = render_readme(folder, ledger_path(root))
        if readme.read_text(encoding="utf-8") != text:
            readme.write_text(text, encoding="utf-8")
            written.append(readme)
    return written


def record_submission(root: Path, row: dict[str, Any], sealed: bytes, message: str, *,
                      boards: Sequence[Board] = ()) -> Change | None:
    """Append `row` (idempotent by digest), store the envelope, re-render. None if all done."""
    root = Path(root)
    if envelope.digest(sealed) != row["digest"]:
        raise ConfigError("the stored envelope does not hash to the ledger row's digest")
    ledger = Ledger(ledger_path(root))
    env_path = envelopes_dir(root) / f"{row['digest']}.jwe"
    present = any(r["type"] == SUBMISSION and r["digest"] == row["digest"]
                  for r in ledger.rows())
    if present and env_path.exists():
        return None
    store_envelope(root, sealed)
    ledger.append(row)
    pages = rerender(root, changed=[row["slug"]], boards=boards)
    paths = [ledger.path, env_path, *pages]
    return Change(paths=[str(p.relative_to(root)) for p in paths], message=message)
