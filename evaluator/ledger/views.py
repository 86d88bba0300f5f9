"""Finding ledger rows without grepping JSONL: the read side of `gnncb ledger list|show`.

Why a module of its own: maintainers need a row's digest to withdraw or re-score it, and its
state (withdrawn, re-scored, by whom, when) before they act; both questions are pure functions
of the rows, kept apart from the CLI so tests and other tools can ask them too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evaluator.errors import ConfigError
from evaluator.ledger.store import RESCORE, STALE, SUBMISSION, WITHDRAWAL


@dataclass
class RowState:
    """One submission with the audit lines that concern it."""

    row: dict[str, Any]
    withdrawal: dict[str, Any] | None = None
    rescores: list[dict[str, Any]] = field(default_factory=list)
    stale: dict[str, Any] | None = None  # a re-score could not reach it (no stored envelope)

    @property
    def status(self) -> str:
        if self.withdrawal:
            return "withdrawn"
        if self.stale:
            return "stale"
        return "rescored" if self.rescores else "active"

    @property
    def scores(self) -> dict[str, float]:
        scores: dict[str, float] = (self.rescores[-1]["scores"] if self.rescores
                                    else self.row["scores"])
        return scores


def states(rows: list[dict[str, Any]]) -> list[RowState]:
    """Every submission row in ledger order, with its withdrawal and re-scores attached."""
    by_digest: dict[str, RowState] = {}
    for r in rows:
        if r["type"] == SUBMISSION:
            by_digest.setdefault(r["digest"], RowState(r))
    for r in rows:
        if r["type"] == WITHDRAWAL and r["digest"] in by_digest:
            by_digest[r["digest"]].withdrawal = by_digest[r["digest"]].withdrawal or r
        elif r["type"] == RESCORE and r.get("target") in by_digest:
            by_digest[r["target"]].rescores.append(r)
            by_digest[r["target"]].stale = None
        elif r["type"] == STALE and r.get("target") in by_digest:
            by_digest[r["target"]].stale = r
    return list(by_digest.values())


def _date(value: str | None, option: str) -> str | None:
    """A date or timestamp as the ledger writes them (ISO 8601, UTC, 'Z')."""
    if value is None:
        return None
    from datetime import datetime

    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{option} {value!r}: give a date like 2026-12-01 or "
                          "2026-12-01T10:00:00Z") from None
    return parsed.strftime("%Y-%m-%dT%H:%M:%SZ")


def select(rows: list[dict[str, Any]], *, competition: str | None = None,
           participant: str | None = None, kind: str | None = None,
           since: str | None = None, until: str | None = None,
           status: str | None = None) -> list[RowState]:
    """Submissions matching every filter given (participant compared case-insensitively;
    `since`/`until` bound `scored_at`, `until` inclusive of that whole day when a date)."""
    lo = _date(since, "--since")
    hi = _date(until, "--until")
    if until is not None and len(until) == 10:  # a bare date: the whole day
        hi = hi[:10] + "T23:59:59Z" if hi else hi
    out = []
    for state in states(rows):
        r = state.row
        if competition and r["slug"] != competition:
            continue
        if participant and r["participant"].lower() != participant.lower():
            continue
        if kind and r.get("entrant") != kind:
            continue
        if lo and r["scored_at"] < lo:
            continue
        if hi and r["scored_at"] > hi:
            continue
        if status and state.status != status:
            continue
        out.append(state)
    return out
