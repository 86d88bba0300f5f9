"""`leaderboard/ledger.jsonl`: the append-only record of every accepted submission.

Why append-only JSONL: leaderboards are a pure function of this file, so nobody ever edits a
leaderboard by hand; a row's identity is the digest of its envelope, so re-running a workflow on
the same pull request cannot add a second row; corrections (withdrawals, re-scores) are new
audit lines, never rewrites of history.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock

from evaluator.errors import ConfigError

SUBMISSION = "submission"
WITHDRAWAL = "withdrawal"
RESCORE = "rescore"
# A re-score that could not reach a row (its envelope was not stored): the row keeps its score
# but is marked as scored on labels that may since have changed.
STALE = "stale"


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _dumps(row: dict[str, Any]) -> str:
    """One JSONL line; NaN or infinity anywhere is refused (it would not be JSON)."""
    try:
        return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
    except ValueError as err:
        raise ConfigError(f"refusing to write a ledger row that is not JSON: {err}") from None


class Ledger:
    """A JSONL file guarded by a lock file beside it (safe for concurrent local writers)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = FileLock(str(self.path) + ".lock", timeout=120)

    def rows(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        rows = []
        with self.path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as err:
                    raise ConfigError(f"{self.path}, line {lineno}: corrupt ledger row: {err}"
                                      ) from None
                if not isinstance(row, dict) or "type" not in row:
                    raise ConfigError(f"{self.path}, line {lineno}: ledger row without 'type'")
                rows.append(row)
        return rows

    def append(self, row: dict[str, Any]) -> bool:
        """Append one row unless a row with the same (type, digest) exists; True if written."""
        return self.append_many([row]) == 1

    def append_many(self, rows: Iterable[dict[str, Any]]) -> int:
        rows = list(rows)
        for row in rows:
            if "type" not in row or "digest" not in row:
                raise ValueError("ledger rows need 'type' and 'digest'")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            seen = {(r["type"], r.get("digest")) for r in self.rows()}
            new = []
            for row in rows:
                key = (row["type"], row["digest"])
                if key not in seen:
                    seen.add(key)
                    new.append(_dumps(row) + "\n")
            if new:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write("".join(new))
                    fh.flush()
                    os.fsync(fh.fileno())
            return len(new)


def active_submissions(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Submission rows not withdrawn, with the latest re-score applied, in ledger order."""
    withdrawn = {r["digest"] for r in rows if r["type"] == WITHDRAWAL}
    rescored: dict[str, dict[str, Any]] = {}
    stale: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r["type"] == RESCORE:
            rescored[r["target"]] = r
            stale.pop(r["target"], None)
        elif r["type"] == STALE:
            stale[r["target"]] = r
    out = []
    for r in rows:
        if r["type"] != SUBMISSION or r["digest"] in withdrawn:
            continue
        if r["digest"] in rescored:
            audit = rescored[r["digest"]]
            r = {**r, "scores": audit["scores"], "rescored_at": audit["at"]}
            for key in ("scored_on", "sealed_scores"):  # a re-score onto the public part
                if key in audit:
                    r[key] = audit[key]
        if r["digest"] in stale:
            r = {**r, "stale_since": stale[r["digest"]]["at"]}
        out.append(r)
    return out


def count_accepted(rows: list[dict[str, Any]], slug: str, version: int, participant: str,
                   *, since: str | None = None) -> int:
    """Accepted (not withdrawn) submissions of one participant, optionally since a timestamp."""
    return sum(1 for r in active_submissions(rows)
               if r["slug"] == slug and r["version"] == version
               and r["participant"].lower() == participant.lower()
               and (since is None or r["scored_at"] >= since))


def envelopes_beside(ledger_path: Path) -> Path:
    """Where a ledger keeps the ciphertexts of its rows (`leaderboard/envelopes/` for the
    repository's): `gnncb ledger rescore` re-opens them, so every way of recording a row
    stores its envelope, not only the pull-request flow."""
    return Path(ledger_path).parent / "envelopes"


def store_envelope(directory: Path, sealed: bytes) -> Path:
    """Write a ciphertext under its digest (idempotent); returns the path. Only ciphertext is
    ever stored: it is what the participant's pull request made public already."""
    from evaluator.envelope import digest

    path = Path(directory) / f"{digest(sealed)}.jwe"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = sealed.strip() + b"\n"
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    return path

