"""The git side of publishing against a real local bare repository: commit, push, lose the race,
fetch the new tip, re-apply, re-render, push again."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from evaluator.errors import ConfigError
from evaluator.repo.gitops import Change, Git, auth_env, commit_and_push, remote_auth_env
from evaluator.repo.record import record_submission
from tests.helpers.arena import Arena, Sleeps, git


def row(arena: Arena, login: str, slug: str = "toy-nodes", accuracy: float = 0.5,
        pr: int = 1) -> tuple[dict, bytes]:
    sealed = arena.envelope(slug, login)
    from evaluator.submission import envelope

    return ({"type": "submission", "digest": envelope.digest(sealed), "slug": slug,
             "version": 1, "participant": login, "participant_id": pr, "entrant": "human",
             "method": "m", "model": "", "scores": {"accuracy": accuracy, "macro_f1": accuracy},
             "pr": pr, "submitted_at": "2026-01-01T00:00:00Z",
             "scored_at": "2026-01-01T00:00:00Z"}, sealed)


def push_competing(arena: Arena, login: str) -> None:
    """Someone else records a submission on origin/main."""
    other = arena.clone()
    r, sealed = row(arena, login, pr=99)
    change = record_submission(other, r, sealed, f"record {login}")
    assert change is not None
    git(other, "add", "--", *change.paths)
    git(other, "commit", "-q", "-m", change.message)
    git(other, "push", "-q", "origin", "main")


def test_records_and_pushes(arena: Arena) -> None:
    work = arena.clone()
    r, sealed = row(arena, "alice")
    report = commit_and_push(work, lambda: record_submission(work, r, sealed, "record alice"),
                             sleep=Sleeps())
    assert report.pushed and report.attempts == 1
    assert [x["participant"] for x in arena.rows()] == ["alice"]
    assert git(arena.origin, "log", "-1", "--format=%an <%ae>|%s", "main") == \
        "gnncb-bot <41898282+github-actions[bot]@users.noreply.github.com>|record alice"
    files = git(arena.origin, "show", "--name-only", "--format=", "main").splitlines()
    # only alice's competition is re-rendered (board + its full CSV), plus the index
    assert sorted(files) == sorted([
        "leaderboard/README.md", f"leaderboard/envelopes/{r['digest']}.jwe",
        "leaderboard/ledger.jsonl", "leaderboard/toy-nodes.csv", "leaderboard/toy-nodes.md"])


def test_push_conflict_is_retried_on_the_new_tip(arena: Arena) -> None:
    work = arena.clone()  # starts at the seed commit
    r, sealed = row(arena, "alice", accuracy=0.9)
    raced = []

    def mutate() -> Change | None:
        if not raced:  # between our fetch and our push, bob's row lands on origin
            raced.append(True)
            push_competing(arena, "bob")
        return record_submission(work, r, sealed, "record alice")

    sleeps = Sleeps()
    report = commit_and_push(work, mutate, sleep=sleeps)
    assert report.pushed and report.attempts == 2 and sleeps == [1.0]
    assert [x["participant"] for x in arena.rows()] == ["bob", "alice"]  # nothing lost
    page = arena.show("leaderboard/toy-nodes.md") or ""
    assert page.index("alice") < page.index("bob")  # re-rendered with both, alice ranks 1st
    history = git(arena.origin, "log", "--format=%s", "main").splitlines()
    assert history[:2] == ["record alice", "record bob"]  # linear: re-applied, not merged


def test_gives_up_after_repeated_races(arena: Arena) -> None:
    work = arena.clone()
    r, sealed = row(arena, "alice")
    count = iter(range(100))

    def mutate() -> Change | None:
        push_competing(arena, f"rival{next(count)}")
        return record_submission(work, r, sealed, "record alice")

    with pytest.raises(ConfigError, match="lost the race 3 times"):
        commit_and_push(work, mutate, attempts=3, sleep=Sleeps())
    assert "alice" not in {x["participant"] for x in arena.rows()}


def test_nothing_to_record_makes_no_commit(arena: Arena) -> None:
    work = arena.clone()
    r, sealed = row(arena, "alice")
    commit_and_push(work, lambda: record_submission(work, r, sealed, "m"), sleep=Sleeps())
    head = arena.head()
    again = commit_and_push(work, lambda: record_submission(work, r, sealed, "m"),
                            sleep=Sleeps())
    assert not again.pushed and again.commit is None and arena.head() == head


def test_other_push_failures_are_not_retried(arena: Arena, tmp_path: Path) -> None:
    work = arena.clone()
    hook = arena.origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch: pushes need review' >&2\nexit 1\n")
    hook.chmod(0o755)
    r, sealed = row(arena, "alice")
    sleeps = Sleeps()
    with pytest.raises(ConfigError, match="not a conflict") as info:
        commit_and_push(work, lambda: record_submission(work, r, sealed, "m"), sleep=sleeps)
    assert "protected branch" in str(info.value) and sleeps == []
    assert arena.rows() == []


def test_refuses_to_reset_over_local_edits(arena: Arena) -> None:
    work = arena.clone()
    yaml_path = work / "competitions" / "toy-nodes" / "competition.yaml"
    yaml_path.write_text(yaml_path.read_text() + "\n# local edit\n")
    with pytest.raises(ConfigError, match="uncommitted changes"):
        commit_and_push(work, lambda: None, sleep=Sleeps())
    assert yaml_path.read_text().endswith("# local edit\n")


def test_token_travels_in_the_environment_only(arena: Arena) -> None:
    env = auth_env("ghs_secret_token_value")
    assert env["GIT_CONFIG_KEY_0"] == "http.https://github.com/.extraheader"
    assert "ghs_secret_token_value" not in json.dumps(env)  # base64 inside a header value
    work = arena.clone()
    Git(work, env).run("status")  # git accepts the configuration
    config = (work / ".git" / "config").read_text()
    assert "extraheader" not in config and "AUTHORIZATION" not in config


def test_the_token_goes_to_https_and_loopback_http_only() -> None:
    """A local stand-in on http (the workflow tests' git server) gets the job's token; http
    over a network never does, and ssh or path remotes are not asked for one."""
    def token() -> str:
        return "ghs_t"

    assert remote_auth_env("https://github.com/o/r", token)["GIT_CONFIG_KEY_0"] == (
        "http.https://github.com/.extraheader")
    local = remote_auth_env("http://github.localhost:4321/o/r", token)
    assert local is not None
    assert local["GIT_CONFIG_KEY_0"] == "http.http://github.localhost:4321/.extraheader"
    assert remote_auth_env("http://127.0.0.1:80/o/r", token) is not None

    def no_token() -> str:
        raise AssertionError("no token must be asked for")

    for url in ("http://example.org/o/r", "git@github.com:o/r.git", "/srv/origin.git"):
        assert remote_auth_env(url, no_token) is None, url


def test_git_receives_argument_lists_not_shell(arena: Arena) -> None:
    """A commit message with shell syntax is stored verbatim (no shell ever sees it)."""
    work = arena.clone()
    r, sealed = row(arena, "alice")
    message = "record $(touch /tmp/pwned-by-gnncb) `id`; rm -rf ~\n"
    commit_and_push(work, lambda: record_submission(work, r, sealed, message), sleep=Sleeps())
    assert git(arena.origin, "log", "-1", "--format=%B", "main").strip() == message.strip()
    assert not Path("/tmp/pwned-by-gnncb").exists()
    subprocess.run(["git", "-C", str(work), "fsck", "--no-progress"], check=True,
                   capture_output=True)


def test_site_links_accept_only_https_or_this_machines_loopback(tmp_path) -> None:
    """The site's repository links follow the push rule (evaluator.util.urls, one owner):
    https anywhere, plain http only to a local stand-in."""
    from evaluator.errors import ConfigError
    from evaluator.util.urls import is_loopback_http

    assert is_loopback_http("http://github.localhost:8080/o/r")
    assert is_loopback_http("http://127.0.0.1:9/o/r") and is_loopback_http("http://[::1]/x")
    assert not is_loopback_http("http://github.com/o/r")
    assert not is_loopback_http("http://localhost.evil.example/o/r")
    assert not is_loopback_http("https://localhost/o/r")  # https needs no exception

    from evaluator.render.site.build import build_site
    with pytest.raises(ConfigError, match="https://"):
        build_site([], [], tmp_path / "site", repo_url="http://github.com/o/r")
