"""`gnncb results standings`: every competition's live standings, statistical tier first and
point rank second, with the test that separates two tiers and its level.

Why in the results too, and not only on the boards: issue 26 makes the tier the default rank
wherever a standing is shown, and `gnncb results` is where readers go for comparisons in CSV
and JSON. One owner for everything: the entries are `ranking.standings_by_competition`'s (the
boards' live standings, late rows left out), the tiers `ranking.board_tiers`' (the recorded
paired bootstraps; `°` where none was recorded), the sentence under each table the boards'
own `tier_note`. Pure function of the ledger rows and the specs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluator.competition.boards import Leaderboard
from evaluator.competition.spec import CompetitionSpec
from evaluator.ledger.ranking import (
    BY_OVERLAP,
    BY_PAIRED,
    BY_POINT,
    PAIRED_TEST,
    board_part,
    board_tiers,
    standings_by_competition,
)
from evaluator.render.results.board import annotate, tier_cell, tier_note
from evaluator.render.results.render import _cell, _table, to_csv, to_json

HEADER = ("competition", "tier", "rank", "participant", "entrant", "score", "value", "low",
          "high", "boundary", "diff", "diff_low", "diff_high", "protocol", "test", "level",
          "part")
BOUNDARY = {BY_PAIRED: "paired bootstrap", BY_OVERLAP: "95% intervals (no paired comparison)",
            BY_POINT: "point scores (no paired comparison, no intervals)", "": ""}


def standings_result(specs: Sequence[Leaderboard], rows: list[dict[str, Any]],
                     only: Sequence[str] = ()) -> dict[str, Any]:
    """slug -> the competition's standings with tiers (`only`: these slugs, in that order)."""
    competitions = [s for s in specs if isinstance(s, CompetitionSpec)]
    if only:
        by_slug = {s.slug: s for s in competitions}
        competitions = [by_slug[slug] for slug in only]
    tables = standings_by_competition(competitions, rows)
    out: dict[str, Any] = {}
    for spec in competitions:
        table = tables[spec.slug]
        shown = [e.row for e in table]
        found = board_tiers(spec, table)
        record: dict[str, Any] = next(
            (r["paired"] for r in shown if isinstance(r.get("paired"), dict)), {})
        entries = []
        for e, tier, extra in zip(table, found, annotate(spec, shown), strict=True):
            iv = extra["interval"]
            entries.append({
                "tier": tier.tier, "tier_mark": tier_cell(tier), "rank": e.rank,
                "participant": e.row["participant"], "entrant": e.row.get("entrant", "human"),
                "value": e.row["scores"].get(spec.primary_score),
                "interval": [iv["low"], iv["high"]] if iv else None,
                "boundary": tier.by, "difference": tier.outcome,
                "protocol": extra["protocol"]})
        out[spec.slug] = {
            "score": spec.primary_score, "higher_is_better":
                spec.higher_is_better(spec.primary_score),
            "part": board_part(spec), "test": PAIRED_TEST,
            "level": float(record.get("level", 0.95)), "unit": record.get("unit"),
            "resamples": record.get("resamples"), "note": tier_note(spec, shown, found),
            "entries": entries}
    return {"source": "ledger", "competitions": out}


def _num(value: float | None, digits: int = 3, sign: str = "") -> str:
    return "–" if value is None else f"{value:{sign}.{digits}f}"


def _boundary_cell(entry: dict[str, Any]) -> str:
    outcome = entry["difference"]
    if entry["boundary"] == BY_PAIRED and outcome:
        return (f"{_num(outcome['diff'], sign='+')} [{_num(outcome['low'], sign='+')}, "
                f"{_num(outcome['high'], sign='+')}]")
    return BOUNDARY[entry["boundary"]]


def render(data: dict[str, Any], fmt: str) -> str:
    """`standings_result` as Markdown (md), CSV (csv) or JSON (json)."""
    if fmt == "json":
        return to_json(data)
    return to_csv(HEADER, standings_rows(data)) if fmt == "csv" else standings_markdown(data)


def standings_markdown(data: dict[str, Any]) -> str:
    lines = ["# Standings with statistical tiers", "",
             "Source: the ledger (each competition's live board: accepted, on-time "
             "submissions of the current version). Tier first, point rank second; ° = the "
             "tier boundary above follows the 95 % intervals (or the scores) because no "
             "paired comparison was recorded.", ""]
    for slug, c in data["competitions"].items():
        arrow = "↑" if c["higher_is_better"] else "↓"
        lines += [f"## {_cell(slug)}", "",
                  f"Test: {c['test']} at {round(100 * c['level'])} %, on "
                  + ("the public part of the hidden labels (the part the live board shows)."
                     if c["part"] == "public" else "all the hidden labels."), ""]
        if not c["entries"]:
            lines += ["No entries yet.", ""]
            continue
        rows = [[e["tier_mark"], str(e["rank"]), _cell(e["participant"]), _cell(e["entrant"]),
                 _num(e["value"], 4),
                 f"[{_num(e['interval'][0])}, {_num(e['interval'][1])}]" if e["interval"]
                 else "–", _boundary_cell(e)] for e in c["entries"]]
        lines += _table(["Tier", "Rank", "Participant", "Entrant", f"{c['score']} {arrow}",
                         "95% interval", "Entry above minus this, 95% interval"], rows)
        lines += ["", c["note"], ""]  # our own sentence (no participant string in it)
    return "\n".join(lines)


def standings_rows(data: dict[str, Any]) -> list[list[Any]]:
    out = []
    for slug, c in data["competitions"].items():
        for e in c["entries"]:
            d = e["difference"] or {}
            iv = e["interval"] or [None, None]
            out.append([slug, e["tier"], e["rank"], e["participant"], e["entrant"],
                        c["score"], e["value"], iv[0], iv[1], e["boundary"], d.get("diff"),
                        d.get("low"), d.get("high"), e["protocol"], c["test"], c["level"],
                        c["part"]])
    return out
