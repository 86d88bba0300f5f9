"""What a publish writes into the repository: ledger row, stored ciphertext, rendered pages.

Why store the ciphertext: re-scoring after a label fix needs the original predictions, and we
never keep them decrypted. The envelope is already public in the pull request and only the
platform key opens it, so `leaderboard/envelopes/<digest>.jwe` is safe to commit; its name is its
SHA-256, which is also the ledger row's identity.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluator import envelope
from evaluator.ci.gitops import Change
from evaluator.errors import ConfigError
from evaluator.ledger import SUBMISSION, Ledger
from evaluator.ledger import store_envelope as store_in
from evaluator.render import write_leaderboards
from evaluator.spec import load_spec


def ledger_path(root: Path) -> Path:
    return Path(root) / "leaderboard" / "ledger.jsonl"


def envelopes_dir(root: Path) -> Path:
    return Path(root) / "leaderboard" / "envelopes"


def all_specs(root: Path) -> list[Any]:
    """Every competition spec, plus the code-track boards whose folder exists."""
    from evaluator.codetrack.board import boards_in

    return [load_spec(p.parent) for p in sorted((Path(root) / "competitions").glob(
        "*/competition.yaml"))] + boards_in(Path(root) / "competitions")


def store_envelope(root: Path, sealed: bytes) -> Path:
    """Write the ciphertext under its digest (idempotent); returns the path."""
    return store_in(envelopes_dir(root), sealed)


def rerender(root: Path, changed: list[str] | None = None) -> list[Path]:
    """Re-render the boards under root/leaderboard: all of them, or only `changed` + the index
    (a publish changes one competition; the others' pages stay as they are)."""
    ledger = Ledger(ledger_path(root))
    return write_leaderboards(all_specs(root), ledger.rows(), Path(root) / "leaderboard",
                              ledger="leaderboard/ledger.jsonl", changed=changed)


def record_submission(root: Path, row: dict[str, Any], sealed: bytes,
                      message: str) -> Change | None:
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
    pages = rerender(root, changed=[row["slug"]])
    paths = [ledger.path, env_path, *pages]
    return Change(paths=[str(p.relative_to(root)) for p in paths], message=message)
