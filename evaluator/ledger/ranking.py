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

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from evaluator.competition.boards import Rankable, final_submissions_per_version
from evaluator.competition.spec import CompetitionSpec
from evaluator.ledger.store import FINAL_CHOICE as FINAL_CHOICE  # (defined with the row types)
from evaluator.ledger.store import SUBMISSION, active_submissions, belongs, person

_by_key_then_name = itemgetter(0, 1)


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
        if r["type"] == FINAL_CHOICE:  # the person whose submission it names (a rename kept)
            owner = next((person(active[d]) for d in r["chosen"] if active and d in active),
                         str(r["participant"]).lower())
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


def final_standings(spec: CompetitionSpec, rows: list[dict[str, Any]],
                    private: Mapping[str, Mapping[str, float]]) -> list[FinalEntry]:
    """The final board: each participant's best counted submission on the private part
    (`private`: digest -> unsealed private-part scores), with the live rank beside it."""
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
