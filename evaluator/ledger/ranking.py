"""Leaderboard = pure function of the ledger.

Which submissions count: per (slug, version, participant) the ones the participant chose as
final (`final` in a later submission's metadata.json, or a maintainer's `final-choice` row),
else the latest `rules.final_submissions_per_version` (default 1: the latest); late rows never
count. Among a participant's counted submissions the best one by the `rank_by` keys stands for
them: on the public part for the live board, on the private part for the final standings.
Keys are compared at full precision; entries whose keys are all equal share a rank (1, 1, 3).
Rounding happens only when rendering.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from evaluator.competition.boards import Rankable, final_submissions_per_version
from evaluator.competition.schedule import REVEAL
from evaluator.competition.spec import CompetitionSpec
from evaluator.ledger.store import FINAL_CHOICE as FINAL_CHOICE  # (defined with the row types)
from evaluator.ledger.store import SUBMISSION, active_submissions, belongs, person

_by_key_then_name = itemgetter(0, 1)

# How the keyed job compares two entries (`evaluator.pipeline.paired`), as rows record it.
PAIRED_TEST = "paired-bootstrap-percentile"
# How a tier boundary was decided between an entry and the one ranked just above it.
BY_PAIRED, BY_OVERLAP, BY_POINT = "paired", "overlap", "point"


@dataclass(frozen=True)
class Entry:
    rank: int
    row: dict[str, Any]
    submissions: int  # accepted submissions of this participant for this version


@dataclass(frozen=True)
class FinalEntry:
    rank: int  # by the private part
    row: dict[str, Any]  # the counted submission that stands for the participant
    private: dict[str, float]
    public_rank: int | None  # the same participant on the live (public-part) board
    submissions: int

    @property
    def shake_up(self) -> int | None:
        """Places gained (+) or lost (-) from the public to the private ranking."""
        return None if self.public_rank is None else self.public_rank - self.rank


def _key(spec: Rankable, scores: Mapping[str, Any]) -> tuple[float, ...]:
    values = []
    for k in spec.rank_by:
        v = float(scores[k.score])
        values.append(-v if k.order == "desc" else v)
    return tuple(values)


def _key_fn(spec: Rankable) -> Callable[[Mapping[str, Any]], tuple[float, ...]]:
    """`_key` with the rank_by keys read once (the same tuple; called per ranked row)."""
    keys = [(k.score, k.order == "desc") for k in spec.rank_by]
    if len(keys) == 1:
        (name, desc), = keys
        return (lambda s: (-float(s[name]),)) if desc else (lambda s: (float(s[name]),))
    return lambda s: tuple(-float(s[n]) if d else float(s[n]) for n, d in keys)


def counted(spec: Rankable, rows: list[dict[str, Any]]
            ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    """(participant -> the submissions that count, participant -> accepted submissions)."""
    mine = [r for r in active_submissions(rows)
            if r["slug"] == spec.slug and r["version"] == spec.version and not r.get("late")]
    return _counted(spec, mine, rows)


def _counted(spec: Rankable, mine: list[dict[str, Any]], rows: Iterable[dict[str, Any]]
             ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    """`counted` from the competition's active, on-time submissions (`mine`, ledger order) and
    the rows that may carry a final choice (`rows`, ledger order; others are skipped)."""
    per: dict[str, list[dict[str, Any]]] = {}
    for r in mine:
        who = person(r)
        subs = per.get(who)
        if subs is None:
            per[who] = [r]
        else:
            subs.append(r)
    choice: dict[str, list[str]] = {}
    chosen_rows: list[dict[str, Any]] = []  # rows naming a final choice, in ledger order
    active: dict[str, dict[str, Any]] | None = None  # digest -> row, built when first needed
    for r in rows:  # ledger order is append order
        if (r["type"] == FINAL_CHOICE and r.get("slug") == spec.slug
                and r.get("version") == spec.version):
            chosen_rows.append(r)
        elif r["type"] == "submission" and r.get("final_choice") is not None:
            if active is None:
                active = {m["digest"]: m for m in mine}
            if r.get("digest") in active:
                chosen_rows.append(r)
    if chosen_rows and active is None:
        active = {m["digest"]: m for m in mine}
    for r in chosen_rows:  # in ledger order: a later choice replaces an earlier one
        if r["type"] == FINAL_CHOICE:
            # The account behind the row's author: the person of a named submission made under
            # the row's login (so a later rename keeps the choice). Never the owner of some
            # other named digest: a row naming someone else's submission must not choose for
            # them (the writer only names the author's own, but the ledger is also read raw).
            login = str(r["participant"]).lower()
            owner = next((person(active[d]) for d in r["chosen"] if active and d in active
                          and str(active[d]["participant"]).lower() == login), login)
            choice[owner] = list(r["chosen"])
        else:
            choice[person(r)] = list(r["final_choice"])
    limit = final_submissions_per_version(spec)
    known = active if active is not None else {}  # built above whenever a choice exists
    out: dict[str, list[dict[str, Any]]] = {}
    for who, subs in per.items():
        wish = choice.get(who)
        chosen = [d for d in wish if d in known
                  and person(known[d]) == who] if wish else None
        if chosen:
            out[who] = [r for r in subs if r["digest"] in chosen]
        else:  # the default: the latest submissions
            out[who] = subs[-limit:]
    return out, {who: len(subs) for who, subs in per.items()}


def _ranked(spec: Rankable, items: list[tuple[tuple[float, ...], str, Any]]
            ) -> list[tuple[int, Any]]:
    items = sorted(items, key=lambda t: (t[0], t[1]))
    out: list[tuple[int, Any]] = []
    for i, (key, _, payload) in enumerate(items):
        rank = out[-1][0] if out and items[i - 1][0] == key else i + 1
        out.append((rank, payload))
    return out


def standings(spec: Rankable, rows: list[dict[str, Any]]) -> list[Entry]:
    """The live board: each participant's best counted submission on the scores recorded in
    the row (the public part for a split competition, the whole split otherwise)."""
    return _standings(spec, *counted(spec, rows))


def _standings(spec: Rankable, chosen: dict[str, list[dict[str, Any]]], counts: dict[str, int]
               ) -> list[Entry]:
    key = _key_fn(spec)
    items = []
    for who, subs in chosen.items():
        if len(subs) == 1:
            best = subs[0]
            items.append((key(best["scores"]), who, best))
        else:  # the first of the best (min keeps the earliest of equal keys)
            best_key, best = min(((key(r["scores"]), r) for r in subs), key=lambda t: t[0])
            items.append((best_key, who, best))
    return _rank(items, counts)


def _standings_latest(spec: Rankable, mine: list[dict[str, Any]]) -> list[Entry]:
    """`_standings(spec, *_counted(spec, mine, []))` when only the latest submission of each
    participant counts (one final submission per version, no final choice): the latest row
    and the count of each participant in one pass, without a list of rows per participant
    (at 100,000 rows, building and slicing those lists was a third of the ranking)."""
    key = _key_fn(spec)
    last: dict[str, dict[str, Any]] = {}
    counts: dict[str, int] = {}
    get = counts.get
    for r in mine:  # ledger order: a later row replaces an earlier one
        who = person(r)
        last[who] = r
        counts[who] = get(who, 0) + 1
    return _rank([(key(r["scores"]), who, r) for who, r in last.items()], counts)


def _rank(items: list[tuple[tuple[float, ...], str, dict[str, Any]]], counts: dict[str, int]
          ) -> list[Entry]:
    """Entries from (key, participant, row), best key first; equal keys share a rank."""
    items.sort(key=_by_key_then_name)  # (key, name) is unique: rows are never compared
    out: list[Entry] = []
    previous: tuple[float, ...] | None = None
    rank = 0
    for i, (k, who, r) in enumerate(items):
        if i == 0 or k != previous:
            rank = i + 1
        previous = k
        out.append(Entry(rank=rank, row=r, submissions=counts[who]))
    return out


def standings_by_competition(specs: Iterable[Rankable], rows: list[dict[str, Any]], *,
                             active: list[dict[str, Any]] | None = None
                             ) -> dict[str, list[Entry]]:
    """`standings` of many competitions from one pass over the ledger (slug -> entries); the
    same entries as `standings(spec, rows)` for each spec (tested).

    Why: rendering every board called `standings` once per competition, each re-applying the
    audit lines to the whole ledger; at 100,000 rows those passes dominated rendering. Here the
    audit lines are applied once, each row is routed to its competition once, and each
    competition is ranked on its own active on-time submissions and the rows that may carry a
    final choice (final-choice rows, submissions with `final_choice`), in ledger order.
    `active`: `active_submissions(rows)` when the caller has it already (computed otherwise)."""
    specs = list(specs)
    # keyed as rows name them (a row may lack a slug or version: it matches nothing)
    mine: dict[tuple[str | None, int | None], list[dict[str, Any]]] = {
        (s.slug, s.version): [] for s in specs}
    choices: dict[tuple[str | None, int | None], list[dict[str, Any]]] = {k: [] for k in mine}
    for r in active_submissions(rows) if active is None else active:
        subset = mine.get((r["slug"], r["version"]))
        if subset is not None and not r.get("late"):
            subset.append(r)
    for r in rows:
        if carries_choice(r):
            subset = choices.get((r.get("slug"), r.get("version")))
            if subset is not None:
                subset.append(r)
    return standings_routed(specs, {s.slug: mine[(s.slug, s.version)] for s in specs},
                            {s.slug: choices[(s.slug, s.version)] for s in specs})


def carries_choice(row: dict[str, Any]) -> bool:
    """A row that may name a participant's final choice (read by `_counted`)."""
    kind = row["type"]
    return kind == FINAL_CHOICE or (kind == SUBMISSION and row.get("final_choice") is not None)


def standings_routed(specs: Iterable[Rankable], on_time: Mapping[str, list[dict[str, Any]]],
                     choices: Mapping[str, list[dict[str, Any]]]) -> dict[str, list[Entry]]:
    """`standings_by_competition` from rows a caller routed already (slug -> its active,
    on-time submissions of the current version, and slug -> the rows of that slug and version
    that may carry a final choice, `carries_choice`; both in ledger order).

    Why: `evaluator.render.boards.Prepared` routes every row to its competition for the site anyway;
    routing them a second time here was a pass over the whole ledger for nothing."""
    return {s.slug: _standings_latest(s, on_time[s.slug]) if not choices[s.slug]
            and final_submissions_per_version(s) == 1
            else _standings(s, *_counted(s, on_time[s.slug], choices[s.slug]))
            for s in specs}


def as_revealed(spec: Rankable, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as the latest reveal of the spec's version saw them: submission rows appended
    after it are left out (audit lines, e.g. a withdrawal, still apply).

    Why: a submission scored before the reveal can be recorded after it (its publish job
    re-run); as the participant's latest row it would replace the counted one the reveal
    opened, and the final standings, which rank only opened rows, dropped the participant."""
    at = max((i for i, r in enumerate(rows) if r["type"] == REVEAL
              and r.get("slug") == spec.slug and r.get("version") == spec.version), default=None)
    if at is None:
        return rows
    return rows[:at] + [r for r in rows[at:] if r["type"] != SUBMISSION]


def final_standings(spec: CompetitionSpec, rows: list[dict[str, Any]],
                    private: Mapping[str, Mapping[str, float]]) -> list[FinalEntry]:
    """The final board: each participant's best counted submission on the private part
    (`private`: digest -> unsealed private-part scores), with the live rank beside it."""
    rows = as_revealed(spec, rows)
    chosen, counts = counted(spec, rows)
    public_rank = {person(e.row): e.rank for e in standings(spec, rows)}
    items = []
    for who, subs in chosen.items():
        scored = [r for r in subs if r["digest"] in private]
        if not scored:
            continue
        best = min(scored, key=lambda r: _key(spec, private[r["digest"]]))
        items.append((_key(spec, private[best["digest"]]), who, best))
    return [FinalEntry(rank=rank, row=r, private=dict(private[r["digest"]]),
                       public_rank=public_rank.get(person(r)),
                       submissions=counts[person(r)])
            for rank, r in _ranked(spec, items)]


def standing_of(spec: Rankable, rows: list[dict[str, Any]], participant: str,
                participant_id: int | None = None) -> tuple[int | None, int]:
    """(rank of the participant's counted submission, number of ranked participants); with
    `participant_id`, the account's entry whatever login its counted row carries."""
    table = standings(spec, rows)
    for entry in table:
        if belongs(entry.row, participant, participant_id):
            return entry.rank, len(table)
    return None, len(table)


# ----------------------------------------------------------------------------- tiers
@dataclass(frozen=True)
class Tier:
    """An entry's statistical tier and how its boundary with the entry above was decided:
    `by` is BY_PAIRED (the recorded paired bootstrap), BY_OVERLAP (no paired comparison was
    recorded: the two 95% intervals), BY_POINT (neither: the scores), or "" for the first."""

    tier: int
    by: str
    outcome: dict[str, float] | None = None  # paired: diff, low, high of above minus this


def interval_of(row: Mapping[str, Any], score: str) -> dict[str, Any] | None:
    found = (row.get("intervals") or {}).get(score)
    return found if isinstance(found, dict) and "low" in found and "high" in found else None


def overlaps(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    if not a or not b:
        return False
    return bool(a["low"] <= b["high"] and b["low"] <= a["high"])


def board_part(spec: Rankable) -> str:
    """The part of the hidden labels a live board's scores (and comparisons) are on."""
    return "public" if getattr(spec, "has_parts", False) else "all"


def board_tiers(spec: Rankable, table: list[Entry]) -> list[Tier]:
    """`tiers` of a live board's standings, on the part its scores are on."""
    return tiers(spec, [(e.rank, e.row) for e in table], part=board_part(spec))


def final_tiers(spec: Rankable, table: list[FinalEntry], reveal: Mapping[str, Any]
                ) -> list[Tier]:
    """`tiers` of the final standings: the reveal row's paired comparisons of neighbours on the
    private part (recorded by the keyed reveal); without them, by the private scores."""
    record = reveal.get("paired")
    pairs = record.get("pairs") if isinstance(record, dict) else None
    return tiers(spec, [(e.rank, e.row) for e in table], part="private",
                 pairs=pairs if isinstance(pairs, dict) else {}, intervals=False)


def significant(outcome: Mapping[str, float]) -> bool:
    """A paired difference is significant when its interval excludes 0."""
    return not (outcome["low"] <= 0.0 <= outcome["high"])


def paired_outcome(upper: Mapping[str, Any], lower: Mapping[str, Any], *, score: str,
                   part: str, pairs: Mapping[str, Mapping[str, float]] | None = None
                   ) -> dict[str, float] | None:
    """diff, low, high of upper minus lower on `part`: from `pairs` ("upper:lower" digests, a
    reveal row's), else from whichever of the two rows recorded the comparison when it was
    scored (the later one: it was compared with every entry on the board then)."""
    if pairs is not None:
        found = pairs.get(f"{upper['digest']}:{lower['digest']}")
        return dict(found) if found else None
    for mine, other, sign in ((lower, upper, -1.0), (upper, lower, 1.0)):
        record = mine.get("paired")
        if not isinstance(record, dict) or record.get("score") != score \
                or record.get("part") != part:
            continue
        got = (record.get("vs") or {}).get(other["digest"])
        if got:
            low, high = sign * got["low"], sign * got["high"]
            return {"diff": sign * got["diff"], "low": min(low, high), "high": max(low, high)}
    return None


def tiers(spec: Rankable, ranked: list[tuple[int, Mapping[str, Any]]], *, part: str,
          pairs: Mapping[str, Mapping[str, float]] | None = None,
          intervals: bool = True) -> list[Tier]:
    """Tiers of a board (`ranked`: (point rank, row) in rank order): an entry starts a new tier
    when its difference from the entry just above is significant at 95% by the recorded
    paired bootstrap; else it shares that entry's tier. Where no paired comparison was
    recorded (rows scored before comparisons existed, an envelope that was not stored), two
    non-overlapping 95% intervals (`intervals`) or, without intervals, different point scores
    separate them. Equal point ranks always share a tier."""
    out: list[Tier] = []
    score = spec.primary_score
    for i, (rank, row) in enumerate(ranked):
        if i == 0:
            out.append(Tier(1, ""))
            continue
        above_rank, above = ranked[i - 1]
        tier = out[-1].tier
        if rank == above_rank:  # equal scores: the same tier, nothing to test
            out.append(Tier(tier, ""))
            continue
        outcome = paired_outcome(above, row, score=score, part=part, pairs=pairs)
        if outcome is not None:
            by, apart = BY_PAIRED, significant(outcome)
        elif intervals and interval_of(above, score) and interval_of(row, score):
            by = BY_OVERLAP
            apart = not overlaps(interval_of(above, score), interval_of(row, score))
        else:
            by, apart = BY_POINT, True
        out.append(Tier(tier + 1 if apart else tier, by, outcome))
    return out


def shake_up(entries: list[FinalEntry]) -> dict[str, Any]:
    """Kaggle's shake-up: the mean absolute change between public and private rank, over every
    ranked entry that has both and over the top 10 % of the final standings (at least one
    entry); None where no entry has both ranks."""
    moved = [abs(e.shake_up) for e in entries if e.shake_up is not None]
    top_n = max(1, math.ceil(0.1 * len(entries))) if entries else 0
    top = [abs(e.shake_up) for e in entries[:top_n] if e.shake_up is not None]
    return {"all": sum(moved) / len(moved) if moved else None, "n_all": len(moved),
            "top": sum(top) / len(top) if top else None, "n_top": len(top)}
