"""The fast ranking (one routing pass, keys read once) equals the straightforward one it
replaced, kept here as the oracle: on random ledgers with withdrawals, re-scores, late rows,
final choices, tied scores and several counted submissions per participant."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.competition.spec import parse_spec
from evaluator.ledger.ranking import FINAL_CHOICE, Entry, standings, standings_by_competition
from evaluator.ledger.store import active_submissions
from tests.helpers.spec import GOOD


def _oracle_key(spec: Any, scores: dict[str, Any]) -> tuple[float, ...]:
    return tuple(-float(scores[k.score]) if k.order == "desc" else float(scores[k.score])
                 for k in spec.rank_by)


def oracle_standings(spec: Any, rows: list[dict[str, Any]]) -> list[Entry]:
    """`evaluator.ledger.ranking.standings` as it was before the rendering-at-scale work."""
    mine = [r for r in active_submissions(rows)
            if r["slug"] == spec.slug and r["version"] == spec.version and not r.get("late")]
    active = {r["digest"]: r for r in mine}
    per: dict[str, list[dict[str, Any]]] = {}
    for r in mine:
        per.setdefault(r["participant"].lower(), []).append(r)
    choice: dict[str, list[str]] = {}
    for r in rows:
        if (r["type"] == FINAL_CHOICE and r.get("slug") == spec.slug
                and r.get("version") == spec.version):
            choice[r["participant"].lower()] = list(r["chosen"])
        elif r.get("digest") in active and r["type"] == "submission" and \
                r.get("final_choice") is not None:
            choice[r["participant"].lower()] = list(r["final_choice"])
    limit = spec.rules.final_submissions_per_version
    items = []
    for who, subs in per.items():
        chosen = [d for d in choice.get(who, []) if d in active
                  and active[d]["participant"].lower() == who]
        counted = [r for r in subs if r["digest"] in chosen] if chosen else subs[-limit:]
        best = min(counted, key=lambda r: _oracle_key(spec, r["scores"]))
        items.append((_oracle_key(spec, best["scores"]), who, best))
    items.sort(key=lambda t: (t[0], t[1]))
    out: list[Entry] = []
    for i, (key, who, best) in enumerate(items):
        rank = out[-1].rank if out and items[i - 1][0] == key else i + 1
        out.append(Entry(rank=rank, row=best, submissions=len(per[who])))
    return out


def _spec(slug: str, limit: int) -> Any:
    spec = parse_spec(GOOD.replace("slug: gta", f"slug: {slug}"))
    rules = spec.rules.model_copy(update={"final_submissions_per_version": limit})
    return spec.model_copy(update={"rules": rules})


EVENTS = st.lists(st.tuples(
    st.sampled_from(["submission"] * 4 + ["withdrawal", "rescore", "stale", "final-choice"]),
    st.sampled_from(["gta", "gta-two", "elsewhere"]), st.sampled_from([1, 2]),
    st.sampled_from(["ann", "Ann", "bob", "cy", "dee"]),
    st.sampled_from([0.0, 0.25, 0.5, 0.5, 0.75, 1.0]), st.sampled_from([0.0, 0.1, 0.1]),
    st.integers(0, 40), st.booleans()), max_size=60)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(EVENTS, st.integers(1, 3))
def test_fast_standings_equal_the_oracle(events, limit):
    specs = [_spec("gta", limit), _spec("gta-two", 1)]
    rows: list[dict[str, Any]] = []
    for i, (kind, slug, version, who, score, gap, ref, late) in enumerate(events):
        digests = [r["digest"] for r in rows if r["type"] == "submission"]
        target = digests[ref % len(digests)] if digests else "none"
        scores = {"f1_ideal": 0.9, "f1_perturbed": score, "robustness_gap": gap}
        if kind == "submission":
            rows.append({"type": kind, "digest": f"d{i}", "slug": slug, "version": version,
                         "participant": who, "entrant": "human", "method": "m",
                         "scores": scores, "scored_at": "2026-01-01T00:00:00Z", "late": late,
                         **({"final_choice": digests[-2:]} if ref % 5 == 0 else {})})
        elif kind in ("withdrawal",):
            rows.append({"type": kind, "digest": target})
        elif kind in ("rescore", "stale"):
            rows.append({"type": kind, "digest": f"{kind}{i}", "target": target,
                         "scores": scores, "at": "2026-01-02T00:00:00Z"})
        else:
            rows.append({"type": kind, "digest": f"c{i}", "slug": slug, "version": version,
                         "participant": who, "chosen": digests[-(1 + ref % 3):]})
    want = {s.slug: oracle_standings(s, rows) for s in specs}
    assert standings_by_competition(specs, rows) == want
    assert {s.slug: standings(s, rows) for s in specs} == want
