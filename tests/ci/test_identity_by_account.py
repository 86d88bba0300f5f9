"""Identity by GitHub account, not login: a rename is the same person (limits, final entries,
the author check between the two jobs), and a scored submission is recorded even when the
publishing job refuses to answer (issue 24). Through both phases on the fake GitHub."""

from __future__ import annotations

from typing import Any

import pytest

from evaluator.errors import ConfigError
from tests.helpers.arena import Arena, run_pr, run_publish, run_score
from tests.helpers.fake_github import FakeGitHub


def _earlier(account: int, login: str, n: int, *, scored_at: str) -> list[dict[str, Any]]:
    return [{"type": "submission", "digest": f"{account:032x}{i:032x}", "slug": "toy-nodes",
             "version": 1, "participant": login, "participant_id": account,
             "entrant": "human", "method": "m", "scores": {"accuracy": 0.5, "macro_f1": 0.5},
             "pr": 100 + i, "submitted_at": scored_at, "scored_at": scored_at}
            for i in range(n)]


def test_fake_github_account_ids_are_stable_and_survive_a_rename(fake: FakeGitHub) -> None:
    # sha256-derived, so the same in every process (abs(hash()) changed per hash seed)
    assert fake.account_id("Alice") == fake.account_id("alice") == 5577802
    account = fake.rename_user("alice", "alicia")
    assert fake.account_id("alicia") == account == 5577802


def test_a_renamed_account_gets_no_fresh_quota(arena: Arena, fake: FakeGitHub) -> None:
    account = fake.account_id("alice")
    arena.commit_rows(_earlier(account, "alice", 3, scored_at="2020-01-01T00:00:00Z"))
    fake.rename_user("alice", "alicia")  # per_version is 3 in the toy spec
    fake.open_pr(1, "alicia", arena.files("toy-nodes", "alicia"))
    head = arena.head()
    result, _ = run_pr(arena, fake, 1)
    assert (result.status, result.code) == ("rejected", "over-limit")
    assert result.scores == {} and arena.head() == head
    assert "used all 3 submissions" in fake.bot_comments(1)[0]


def test_a_renamed_account_stays_one_entry_on_the_board(arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice", wrong=4))
    run_pr(arena, fake, 1)
    fake.rename_user("alice", "alicia")
    fake.open_pr(2, "alicia", arena.files("toy-nodes", "alicia", wrong=1))
    result, _ = run_pr(arena, fake, 2)
    assert result.status == "accepted" and result.remaining_version == 1  # 2 of 3 used
    board = arena.show("leaderboard/toy-nodes.md") or ""
    # one participant, counted by account: the latest submission stands (the default rule)
    assert "alicia" in board and "| alice |" not in board
    assert "Rank:** 1 of 1" in fake.bot_comments(2)[0]


def test_a_rename_between_the_jobs_is_published(arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"))
    result = run_score(arena, fake, 1)
    assert result.status == "accepted"
    fake.rename_user("alice", "alicia")
    published = run_publish(arena, fake, result)
    assert published.status == "accepted" and published.commented
    [row] = arena.rows()
    assert (row["participant"], row["participant_id"]) == ("alice", fake.account_id("alicia"))


def test_deleting_the_account_between_the_jobs_still_records_the_score(
        arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(1, "alice", arena.files("toy-nodes", "alice"))
    result = run_score(arena, fake, 1)
    assert result.status == "accepted"
    fake.delete_user("alice")
    with pytest.raises(ConfigError, match="the scored row was recorded; refusing to answer"):
        run_publish(arena, fake, result)
    # the public-part score exists in the artifact: it is recorded and counts
    [row] = arena.rows()
    assert row["digest"] == result.digest and row["participant_id"] == result.author_id
    assert fake.bot_comments(1) == []
