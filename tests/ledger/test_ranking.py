"""Leaderboard = latest valid submission per participant, ranked by rank_by with shared ranks."""

from __future__ import annotations

from evaluator.competition.spec import parse_spec
from evaluator.ledger.ranking import standings
from tests.helpers.spec import GOOD


def sub(digest, who, f1p, gap, f1i=0.9):
    return {"type": "submission", "digest": digest, "slug": "gta", "version": 1,
            "participant": who, "entrant": "human", "method": "m",
            "scores": {"f1_ideal": f1i, "f1_perturbed": f1p, "robustness_gap": gap},
            "scored_at": "2026-01-01T00:00:00Z"}


SPEC = parse_spec(GOOD)


def ranks(rows):
    return [(e.rank, e.row["participant"]) for e in standings(SPEC, rows)]


def test_ties_share_a_rank_and_the_next_rank_skips():
    rows = [sub("1", "a", 0.8, 0.1), sub("2", "b", 0.8, 0.1), sub("3", "c", 0.7, 0.0)]
    assert ranks(rows) == [(1, "a"), (1, "b"), (3, "c")]


def test_second_key_breaks_ties_in_its_own_order():
    rows = [sub("1", "a", 0.8, 0.2), sub("2", "b", 0.8, 0.1)]
    assert ranks(rows) == [(1, "b"), (2, "a")]  # smaller robustness gap wins


def test_full_precision_not_rounded():
    rows = [sub("1", "a", 0.80000001, 0.1), sub("2", "b", 0.8, 0.1)]
    assert ranks(rows) == [(1, "a"), (2, "b")]


def test_latest_valid_submission_counts_not_best():
    rows = [sub("1", "a", 0.9, 0.1), sub("2", "b", 0.8, 0.1), sub("3", "a", 0.5, 0.1)]
    table = standings(SPEC, rows)
    assert [(e.rank, e.row["participant"], e.submissions) for e in table] == [
        (1, "b", 1), (2, "a", 2)]


def test_withdrawn_latest_falls_back_to_previous():
    rows = [sub("1", "a", 0.9, 0.1), sub("3", "a", 0.5, 0.1),
            {"type": "withdrawal", "digest": "3", "reason": "r"}]
    assert standings(SPEC, rows)[0].row["digest"] == "1"


def test_other_versions_and_competitions_ignored():
    other = {**sub("9", "z", 1.0, 0.0), "version": 2}
    elsewhere = {**sub("8", "y", 1.0, 0.0), "slug": "other"}
    assert ranks([sub("1", "a", 0.5, 0.1), other, elsewhere]) == [(1, "a")]
