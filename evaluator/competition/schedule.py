"""Which submission window a moment falls in: a phase, late, or closed.

Why a pure function of (spec, now, revealed): the scoring job, `gnncb evaluate`, the LLM track
(before it calls a model) and the README all need the same answer, and a competition without
phases must keep its single open window with `submission.limits`, exactly as before phases
existed. After the last phase ends or the private part has been revealed, a submission is
refused (`late_submissions: refuse`) or accepted as late (`accept`): scored on the public part,
marked late and never ranked, so nothing submitted after the reveal can change the standings.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from evaluator.competition.spec import CompetitionSpec, SubmissionLimits
from evaluator.errors import Rejection

REVEAL = "reveal"


@dataclass(frozen=True)
class Window:
    phase: str | None  # phase name; None for a competition without phases (or late)
    limits: SubmissionLimits
    late: bool = False


def stamp(moment: datetime) -> str:
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def revealed(rows: list[dict[str, Any]], slug: str, version: int) -> dict[str, Any] | None:
    """The latest reveal row of this competition version, if any."""
    found = None
    for r in rows:
        if r["type"] == REVEAL and r.get("slug") == slug and r.get("version") == version:
            found = r
    return found


def window_for(spec: CompetitionSpec, now: datetime, *, is_revealed: bool) -> Window:
    """The window `now` falls in; raises Rejection when submissions are not accepted."""
    closed_reason = None
    if is_revealed:
        closed_reason = (f"the final standings of {spec.slug} version {spec.version} have been "
                         "revealed")
    elif spec.phases and now >= spec.phases[-1].end:
        closed_reason = (f"{spec.slug} version {spec.version} closed at "
                         f"{stamp(spec.phases[-1].end)} (end of phase "
                         f"{spec.phases[-1].name!r})")
    if closed_reason is not None:
        if spec.late_submissions == "accept":
            return Window(None, spec.submission.limits, late=True)
        reveal = (f"; the private part is revealed at {stamp(spec.reveal_at)}"
                  if spec.reveal_at and not is_revealed else "")
        raise Rejection(f"{closed_reason}{reveal}: submissions are no longer accepted",
                        code="closed")
    if not spec.phases:
        return Window(None, spec.submission.limits)
    for phase in spec.phases:
        if phase.start <= now < phase.end:
            return Window(phase.name, phase.limits)
        if now < phase.start:
            raise Rejection(f"{spec.slug} is not open for submissions now; phase "
                            f"{phase.name!r} opens at {stamp(phase.start)}", code="not-open")
    raise AssertionError("unreachable: now is before the end of the last phase")
