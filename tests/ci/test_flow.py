"""The pull-request pipeline end to end: fake GitHub over HTTP + a real bare git repository."""

from __future__ import annotations

import json
import threading

import pytest

from evaluator.ci.comment import MARKER_PREFIX
from evaluator.ci.predictions.score import score_pr
from evaluator.ci.result import write_result
from evaluator.errors import ConfigError
from tests.helpers.arena import Arena, Sleeps, client, run_pr, run_publish, run_score
from tests.helpers.fake_github import BOT_LOGIN, READ_TOKEN, FakeGitHub


def test_accepted_pr_end_to_end(arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(7, "Alice", arena.files("toy-nodes", "Alice", wrong=2))
    before = arena.head()
    result, published = run_pr(arena, fake, 7)

    assert result.status == "accepted"
    assert result.scores["accuracy"] == 0.9  # 2 of 20 wrong
    assert (result.remaining_version, result.remaining_today) == (2, 1)
    # the ledger on origin/main has exactly one new row, with identity from the PR author
    rows = arena.rows()
    assert len(rows) == 1
    row = rows[0]
    assert (row["participant"], row["pr"], row["slug"]) == ("alice", 7, "toy-nodes")
    assert row["participant_id"] == fake.pulls[7]["user"]["id"]
    assert arena.head() != before
    # the ciphertext is stored for re-scoring, byte-identical to the PR's envelope
    stored = arena.show(f"leaderboard/envelopes/{row['digest']}.jwe")
    assert stored is not None
    assert stored.strip().encode() == arena_envelope(fake, 7)
    # leaderboards re-rendered in the same commit
    assert "alice" in (arena.show("leaderboard/toy-nodes.md") or "")
    assert "alice" in (arena.show("leaderboard/README.md") or "")
    # answered once, labelled, closed
    [answer] = fake.bot_comments(7)
    assert MARKER_PREFIX in answer and "0.9000" in answer and "Rank:** 1 of 1" in answer
    assert fake.labels[7] == ["gnncb: accepted"]
    assert fake.pulls[7]["state"] == "closed"
    assert published.closed and published.commented and published.rank == 1


def arena_envelope(fake: FakeGitHub, pr: int) -> bytes:
    entry = next(f for f in fake.files[pr] if f["filename"].endswith(".enc"))
    return fake.blobs[entry["sha"]].strip()


def test_scoring_phase_only_reads(arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(3, "bob", arena.files("toy-nodes", "bob"))
    before = arena.head()
    result = run_score(arena, fake, 3)
    assert result.status == "accepted"
    assert fake.writes() == []  # not one POST/PATCH with the scoring token
    assert {token for _, _, token in fake.log} == {READ_TOKEN}
    assert arena.head() == before


def test_result_artifact_holds_no_secret(arena: Arena, fake: FakeGitHub, tmp_path) -> None:
    fake.open_pr(4, "carol", arena.files("toy-nodes", "carol"))
    result = score_pr(client(fake, READ_TOKEN), 4, root=arena.clone(),
                      load_keys=lambda: arena.keypair.private, bot_login=BOT_LOGIN)
    out = tmp_path / "result.json"
    write_result(result, out)
    text = out.read_text()
    assert "PRIVATE KEY" not in text
    plaintext = arena.predictions("toy-nodes").decode()
    assert plaintext.splitlines()[1] not in text  # no decrypted prediction row
    assert json.loads(text)["status"] == "accepted"


def test_rerun_adds_no_second_row_and_no_second_comment(arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(5, "dave", arena.files("toy-nodes", "dave"))
    run_pr(arena, fake, 5)
    head = arena.head()
    fake.pulls[5]["state"] = "open"  # someone reopens it and the workflow runs again
    result, published = run_pr(arena, fake, 5)
    assert (result.status, result.code) == ("skipped", "already-answered")
    assert len(arena.rows()) == 1 and arena.head() == head
    assert len(fake.bot_comments(5)) == 1
    assert fake.pulls[5]["state"] == "closed"  # the re-run just finishes the job


def test_rerun_of_the_same_result_is_idempotent(arena: Arena, fake: FakeGitHub) -> None:
    """Re-running only the publish job (same artifact) records and answers nothing new."""
    fake.open_pr(6, "erin", arena.files("toy-nodes", "erin"))
    result = run_score(arena, fake, 6)
    run_publish(arena, fake, result)
    head = arena.head()
    again = run_publish(arena, fake, result)
    assert again.push is not None and not again.push.pushed
    assert arena.head() == head and len(arena.rows()) == 1
    assert len(fake.bot_comments(6)) == 1


def test_interrupted_publish_is_finished_by_a_rerun(arena: Arena, fake: FakeGitHub) -> None:
    """Row committed, then the comment failed for good: the re-run answers, records nothing."""
    fake.open_pr(8, "frank", arena.files("toy-nodes", "frank", wrong=4))
    result = run_score(arena, fake, 8)
    fake.fail("POST", r"/issues/8/comments$", 500, times=10)
    try:
        run_publish(arena, fake, result)
    except Exception as err:  # GitHubError: the API kept failing
        assert "comment on #8" in str(err)
    else:
        raise AssertionError("publish should have failed")
    assert len(arena.rows()) == 1 and fake.bot_comments(8) == []
    fake.faults.clear()
    again, published = run_pr(arena, fake, 8)
    assert again.status == "accepted" and again.already_recorded
    assert len(arena.rows()) == 1
    [answer] = fake.bot_comments(8)
    assert "0.8000" in answer
    assert fake.pulls[8]["state"] == "closed"


def test_same_envelope_in_a_new_pr_is_not_counted_twice(arena: Arena, fake: FakeGitHub) -> None:
    files = arena.files("toy-nodes", "gina")
    fake.open_pr(9, "gina", files, author_id=99)
    run_pr(arena, fake, 9)
    fake.open_pr(10, "gina", files, author_id=99)
    result, _ = run_pr(arena, fake, 10)
    assert result.status == "accepted" and result.duplicate
    assert len(arena.rows()) == 1
    assert "already scored in pull request #9" in fake.bot_comments(10)[0]


def test_bot_marker_from_someone_else_is_ignored(arena: Arena, fake: FakeGitHub) -> None:
    fake.open_pr(11, "hank", arena.files("toy-nodes", "hank"))
    fake.add_comment(11, "mallory", f"{MARKER_PREFIX} status=rejected pr=11 -->")
    result, _ = run_pr(arena, fake, 11)
    assert result.status == "accepted" and len(arena.rows()) == 1


def test_two_prs_published_concurrently_are_both_recorded(arena: Arena,
                                                          fake: FakeGitHub) -> None:
    fake.open_pr(20, "ivan", arena.files("toy-nodes", "ivan", wrong=1))
    fake.open_pr(21, "judy", arena.files("toy-graphs", "judy", wrong=3))
    results = [run_score(arena, fake, 20), run_score(arena, fake, 21)]
    roots = [arena.clone(), arena.clone()]  # both start from the same base commit
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def publish(i: int) -> None:
        try:
            barrier.wait()
            run_publish(arena, fake, results[i], root=roots[i])
        except BaseException as err:  # surfaced below
            errors.append(err)

    threads = [threading.Thread(target=publish, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    rows = arena.rows()
    assert sorted(r["participant"] for r in rows) == ["ivan", "judy"]
    assert "ivan" in (arena.show("leaderboard/toy-nodes.md") or "")
    assert "judy" in (arena.show("leaderboard/toy-graphs.md") or "")
    readme = arena.show("leaderboard/README.md") or ""
    assert "ivan" in readme and "judy" in readme  # the index was re-rendered after both
    assert fake.pulls[20]["state"] == fake.pulls[21]["state"] == "closed"


def test_accepted_result_is_recorded_even_if_pr_closed_after_scoring(
        arena: Arena, fake: FakeGitHub) -> None:
    """Scores exist once scored; dropping them would allow free probing via the artifact."""
    fake.open_pr(12, "kate", arena.files("toy-nodes", "kate"))
    result = run_score(arena, fake, 12)
    fake.pulls[12]["state"] = "closed"  # the participant closes the PR before publishing
    published = run_publish(arena, fake, result)
    assert len(arena.rows()) == 1 and published.commented and not published.closed


def test_limits_count_published_rows(arena: Arena, fake: FakeGitHub) -> None:
    """per_day is 2 in the toy spec: the third PR within a day is refused without a score."""
    for pr in (30, 31):
        fake.open_pr(pr, "leo", arena.files("toy-nodes", "leo", wrong=pr - 29), author_id=5)
        assert run_pr(arena, fake, pr)[0].status == "accepted"
    fake.open_pr(32, "leo", arena.files("toy-nodes", "leo", wrong=0), author_id=5)
    result, _ = run_pr(arena, fake, 32)
    assert (result.status, result.code) == ("rejected", "over-limit")
    assert result.scores == {} and len(arena.rows()) == 2
    answer = fake.bot_comments(32)[0]
    assert "1.0000" not in answer and "accuracy" not in answer


def test_sleeps_are_injected(arena: Arena, fake: FakeGitHub) -> None:
    """The whole happy path waits for nothing (no PyGithub throttling, no backoff)."""
    sleeps = Sleeps()
    fake.open_pr(13, "mia", arena.files("toy-nodes", "mia"))
    result = run_score(arena, fake, 13, sleeps=sleeps)
    run_publish(arena, fake, result, sleeps=sleeps)
    assert sleeps == []


def test_a_rerun_labels_a_rejection_quoting_status_accepted_as_rejected(arena: Arena,
                                                                        fake: FakeGitHub) -> None:
    """Issue 24: the re-run read the status by searching the whole answer for
    "status=accepted", which a rejection quoting a file name of that text contains."""
    files = arena.files("toy-nodes", "dave")
    files["competitions/toy-nodes/submissions/dave/status=accepted"] = b"x"
    fake.open_pr(7, "dave", files)
    result, _ = run_pr(arena, fake, 7)
    assert result.status == "rejected" and "status=accepted" in fake.bot_comments(7)[0]
    fake.pulls[7]["state"] = "open"  # reopened: the workflow runs again
    fake.labels[7] = []
    result, _ = run_pr(arena, fake, 7)
    assert (result.status, result.code) == ("skipped", "already-answered")
    assert fake.labels[7] == ["gnncb: rejected"]


@pytest.mark.slow
@pytest.mark.parametrize("field, value", [
    ("version", 2), ("scored_on", "private"), ("phase", "final"),
    ("scored_at", "2020-01-01T00:00:00Z"), ("submitted_at", "2999-01-01T00:00:00Z"),
    ("late", True)])
def test_publish_refuses_a_row_whose_derivable_fields_were_changed(
        arena: Arena, fake: FakeGitHub, field: str, value) -> None:
    """Issue 24: publish recorded whatever version, times, phase and part the artifact's row
    said. It now derives them from the repository and the row's submission time, and refuses
    a row that disagrees: nothing recorded, nothing answered."""
    fake.open_pr(7, "dave", arena.files("toy-nodes", "dave"))
    result = run_score(arena, fake, 7)
    assert result.status == "accepted"
    forged = result.model_copy(update={"row": {**result.row, field: value}})
    with pytest.raises(ConfigError, match=f"{field}=.*refusing to publish"):
        run_publish(arena, fake, forged)
    assert arena.rows() == [] and fake.bot_comments(7) == []
    run_publish(arena, fake, result)  # the untouched result is published as usual
    assert [r["digest"] for r in arena.rows()] == [result.digest]
