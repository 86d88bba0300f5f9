"""GitHub misbehaving: 5xx, rate limits, timeouts, lost replies. Either the pipeline retries
(with the waits GitHub asks for, through an injected sleep) or it fails cleanly with the ledger
untouched and nothing said on the PR."""

from __future__ import annotations

import time

import pytest

from evaluator.ci.github import GitHubError
from evaluator.errors import ConfigError
from tests.helpers.arena import Arena, Sleeps, run_pr, run_publish, run_score
from tests.helpers.fake_github import FakeGitHub


def open_alice(arena: Arena, fake: FakeGitHub, pr: int = 1) -> None:
    fake.open_pr(pr, "alice", arena.files("toy-nodes", "alice", wrong=1))


def assert_untouched(arena: Arena, fake: FakeGitHub, head: str, pr: int = 1) -> None:
    assert arena.head() == head and arena.rows() == []
    assert fake.comments[pr] == [] and fake.pulls[pr]["state"] == "open"


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_retried_with_backoff(arena: Arena, fake: FakeGitHub,
                                                status: int) -> None:
    open_alice(arena, fake)
    fake.fail("GET", r"/pulls/1$", status, times=1)
    fake.fail("GET", r"/git/blobs/", status, times=2)
    sleeps = Sleeps()
    result = run_score(arena, fake, 1, sleeps=sleeps)
    assert result.status == "accepted"
    assert sleeps == [2.0, 2.0, 4.0]  # exponential per call: 2 s, then 2 s and 4 s


def test_secondary_rate_limit_honours_retry_after(arena: Arena, fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    fake.fail("GET", r"/pulls/1/files$", 403, headers={"Retry-After": "7"},
              message="You have exceeded a secondary rate limit")
    sleeps = Sleeps()
    assert run_score(arena, fake, 1, sleeps=sleeps).status == "accepted"
    assert sleeps == [7.0]


def test_primary_rate_limit_waits_for_the_reset(arena: Arena, fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    reset = int(time.time()) + 30
    fake.fail("GET", r"/git/trees/", 403, message="API rate limit exceeded for installation",
              headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
    sleeps = Sleeps()
    assert run_score(arena, fake, 1, sleeps=sleeps).status == "accepted"
    assert len(sleeps) == 1 and 20 <= sleeps[0] <= 32


def test_429_honours_retry_after(arena: Arena, fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    fake.fail("GET", r"/issues/1/comments$", 429, headers={"Retry-After": "3"},
              message="Too Many Requests")
    sleeps = Sleeps()
    assert run_score(arena, fake, 1, sleeps=sleeps).status == "accepted"
    assert sleeps == [3.0]


def test_timeouts_are_retried(arena: Arena, fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    fake.fail("GET", r"/pulls/1/files$", delay=2.5)  # the client gives up after 1 s
    sleeps = Sleeps()
    assert run_score(arena, fake, 1, sleeps=sleeps, timeout=1).status == "accepted"
    assert sleeps == [2.0]


def test_persistent_outage_fails_cleanly(arena: Arena, fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    head = arena.head()
    fake.fail("GET", r"/pulls/1/files$", 502, times=100)
    sleeps = Sleeps()
    with pytest.raises(GitHubError, match="after 4 attempts") as info:
        run_score(arena, fake, 1, sleeps=sleeps)
    assert isinstance(info.value, ConfigError)  # exit code 2: the platform's fault
    assert sleeps == [2.0, 4.0, 8.0]
    assert_untouched(arena, fake, head)


def test_rate_limit_beyond_the_cap_fails_without_waiting(arena: Arena,
                                                         fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    head = arena.head()
    fake.fail("GET", r"/pulls/1$", 403, headers={"Retry-After": "5000"},
              message="You have exceeded a secondary rate limit")
    sleeps = Sleeps()
    with pytest.raises(GitHubError, match="re-run the workflow later"):
        run_score(arena, fake, 1, sleeps=sleeps)
    assert sleeps == []
    assert_untouched(arena, fake, head)


def test_client_errors_are_not_retried(arena: Arena, fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    fake.fail("GET", r"/git/blobs/", 404, message="Not Found")
    sleeps = Sleeps()
    with pytest.raises(GitHubError, match="HTTP 404"):
        run_score(arena, fake, 1, sleeps=sleeps)
    assert sleeps == []


def test_publish_outage_before_commit_leaves_ledger_untouched(arena: Arena,
                                                              fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    result = run_score(arena, fake, 1)
    head = arena.head()
    fake.fail("GET", r"/git/blobs/", 500, times=100)  # the envelope cannot be re-read
    with pytest.raises(GitHubError):
        run_publish(arena, fake, result)
    assert_untouched(arena, fake, head)
    fake.faults.clear()
    run_publish(arena, fake, result)  # "re-run failed jobs" reuses the same artifact
    assert len(arena.rows()) == 1 and len(fake.bot_comments(1)) == 1


def test_lost_comment_reply_is_not_posted_twice(arena: Arena, fake: FakeGitHub) -> None:
    """The POST is applied but the reply never arrives: the retry finds the answer first."""
    open_alice(arena, fake)
    result = run_score(arena, fake, 1)
    fake.fail("POST", r"/issues/1/comments$", delay=2.5, after=True)
    sleeps = Sleeps()
    published = run_publish(arena, fake, result, sleeps=sleeps, timeout=1)
    assert len(fake.bot_comments(1)) == 1
    assert not published.commented  # this call's POST timed out; the check saw it landed
    assert fake.pulls[1]["state"] == "closed"


def test_failed_close_is_finished_by_a_rerun(arena: Arena, fake: FakeGitHub) -> None:
    open_alice(arena, fake)
    fake.fail("PATCH", r"/pulls/1$", 500, times=100)
    with pytest.raises(GitHubError, match="close pull request #1"):
        run_pr(arena, fake, 1)
    assert len(arena.rows()) == 1 and len(fake.bot_comments(1)) == 1
    fake.faults.clear()
    again, published = run_pr(arena, fake, 1)
    assert (again.status, again.code) == ("skipped", "already-answered")
    assert published.closed and fake.pulls[1]["state"] == "closed"
    assert len(arena.rows()) == 1 and len(fake.bot_comments(1)) == 1
