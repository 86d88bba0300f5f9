"""Leaderboard = pure function of the ledger.

Latest accepted submission per (slug, version, participant), ordered by the spec's `rank_by`
keys (later keys break ties), compared at full precision; entries whose keys are all equal share
a rank (1, 1, 3). Rounding happens only when rendering.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluator.ledger import active_submissions
from evaluator.spec import CompetitionSpec


@dataclass(frozen=True)
class Entry:
    rank: int
    row: dict[str, Any]
    submissions: int  # accepted submissions of this participant for this version


def standings(spec: CompetitionSpec, rows: list[dict[str, Any]]) -> list[Entry]:
    mine = [r for r in active_submissions(rows)
            if r["slug"] == spec.slug and r["version"] == spec.version]
    latest: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    for r in mine:  # ledger order is append order: a later row is a later submission
        who = r["participant"].lower()
        latest[who] = r
        counts[who] = counts.get(who, 0) + 1

    def key(r: dict[str, Any]) -> tuple[float, ...]:
        values = []
        for k in spec.rank_by:
            v = float(r["scores"][k.score])
            values.append(-v if k.order == "desc" else v)
        return tuple(values)

    ordered = sorted(latest.values(), key=lambda r: (key(r), r["participant"].lower()))
    entries: list[Entry] = []
    for i, r in enumerate(ordered):
        rank = entries[-1].rank if entries and key(entries[-1].row) == key(r) else i + 1
        entries.append(Entry(rank=rank, row=r, submissions=counts[r["participant"].lower()]))
    return entries


def standing_of(spec: CompetitionSpec, rows: list[dict[str, Any]],
                participant: str) -> tuple[int | None, int]:
    """(rank of the participant's counted submission, number of ranked participants)."""
    table = standings(spec, rows)
    for entry in table:
        if entry.row["participant"].lower() == participant.lower():
            return entry.rank, len(table)
    return None, len(table)
