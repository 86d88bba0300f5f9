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


def final(who, chosen, pid=None):
    return {"type": "final-choice", "digest": f"c-{who}-{'-'.join(chosen)}", "slug": "gta",
            "version": 1, "participant": who, "chosen": chosen,
            **({"participant_id": pid} if pid is not None else {})}


def test_a_final_choice_never_chooses_for_someone_else():
    """A final-choice row naming another participant's submission (found by hypothesis in
    test_ranking_oracle: the row went to the owner of the first digest it named) chooses
    nothing for them: b's latest submission still counts, and a's own choice still holds."""
    rows = [sub("b1", "b", 0.9, 0.1), sub("b2", "b", 0.5, 0.1), sub("a1", "a", 0.7, 0.1),
            sub("a2", "a", 0.6, 0.1), final("a", ["b1", "a1"])]
    table = {e.row["participant"]: e.row["digest"] for e in standings(SPEC, rows)}
    assert table == {"b": "b2", "a": "a1"}


def test_a_final_choice_follows_its_author_through_a_rename():
    """The choice is the account's: recorded under the old login, it still counts after the
    account renamed and submitted again under the new one."""
    rows = [{**sub("o1", "old", 0.9, 0.1), "participant_id": 7},
            {**sub("o2", "old", 0.5, 0.1), "participant_id": 7}, final("old", ["o1"]),
            {**sub("n1", "new", 0.4, 0.1), "participant_id": 7}]
    [entry] = standings(SPEC, rows)
    assert (entry.row["digest"], entry.submissions) == ("o1", 3)
