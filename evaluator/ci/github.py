"""PyGithub behind a small, retrying facade: exactly what the pull-request pipeline needs.

Why a facade: PyGithub objects are lazy (reading an attribute may hit the network), so a retry is
only sound around a function that fetches AND converts to plain data in one go. Every method here
does that and returns frozen dataclasses; nothing lazy escapes. Why our own retry instead of
PyGithub's urllib3 one: we need it to cover timeouts raised by `requests`, to honour 403/429 rate
limits with `Retry-After` under a cap, to re-check before repeating a non-idempotent write (a
comment), and to take an injectable `sleep` so tests do not wait.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TypeVar

import requests
from github import Auth, Github, GithubException, RateLimitExceededException

from evaluator.errors import ConfigError

DEFAULT_API_URL = "https://api.github.com"
T = TypeVar("T")


class GitHubError(ConfigError):
    """The GitHub API failed (after retries) or refused a request: the platform's problem."""


@dataclass(frozen=True)
class PullInfo:
    number: int
    state: str  # "open" | "closed"
    merged: bool
    author_login: str
    author_id: int
    author_type: str  # "User" | "Bot" | "Organization"
    head_sha: str
    base_ref: str
    changed_files: int
    labels: tuple[str, ...]


@dataclass(frozen=True)
class ChangedFile:
    """One entry of `GET /pulls/{n}/files`: what the PR changes, not what the file is."""

    filename: str
    status: str  # added | modified | removed | renamed | copied | changed | unchanged
    sha: str | None  # blob id at the head commit (None for deletions)
    previous_filename: str | None = None


@dataclass(frozen=True)
class TreeEntry:
    name: str
    mode: str  # 100644 file, 100755 executable, 120000 symlink, 040000 tree, 160000 submodule
    type: str  # blob | tree | commit
    sha: str
    size: int | None


@dataclass(frozen=True)
class RunInfo:
    """`GET /actions/runs/{id}`: what GitHub says triggered a workflow run, and when."""

    id: int
    event: str  # pull_request_target | workflow_dispatch | ...
    head_sha: str
    created_at: datetime  # aware, UTC


@dataclass(frozen=True)
class CommentInfo:
    id: int
    author_login: str
    body: str


def _headers(err: GithubException) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in (err.headers or {}).items()}


def _message(err: GithubException) -> str:
    data = err.data if isinstance(err.data, dict) else {}
    return str(data.get("message") or err.message or "").strip()


def rate_limit_wait(err: GithubException, now: float | None = None) -> float | None:
    """Seconds GitHub asks us to wait, or None when the error is not a rate limit.

    GitHub signals limits with 403 or 429: `Retry-After` (secondary limits) wins, then
    `x-ratelimit-remaining: 0` + `x-ratelimit-reset` (primary limit); a limit message without
    either header means "wait at least a minute" per GitHub's documentation.
    """
    if err.status not in (403, 429):
        return None
    headers = _headers(err)
    retry_after = headers.get("retry-after", "").strip()
    if retry_after.isdigit():
        return float(retry_after)
    reset = headers.get("x-ratelimit-reset", "")
    if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
        now = time.time() if now is None else now
        return max(1.0, float(reset) - now + 1)
    if err.status == 429 or isinstance(err, RateLimitExceededException) \
            or "rate limit" in _message(err).lower():
        return 60.0
    return None


class GitHubClient:
    """One repository, through PyGithub, with retries. `sleep` is injectable for tests."""

    def __init__(self, repo: str, token: str | None, *, base_url: str = DEFAULT_API_URL,
                 timeout: int = 30, attempts: int = 5, backoff: float = 2.0,
                 max_backoff: float = 60.0, max_rate_wait: float = 900.0,
                 sleep: Callable[[float], None] = time.sleep,
                 write_spacing: float | None = 1.0) -> None:
        if attempts < 1:
            raise ValueError("attempts must be >= 1")
        self.repo_name = repo
        self.attempts, self.backoff, self.max_backoff = attempts, backoff, max_backoff
        self.max_rate_wait = max_rate_wait
        self.sleep = sleep
        self._gh = Github(auth=Auth.Token(token) if token else None, base_url=base_url,
                          timeout=int(timeout),
                          retry=None, lazy=True, per_page=100,
                          seconds_between_requests=None, seconds_between_writes=write_spacing)
        self._repo = self._gh.get_repo(repo)

    # -- retry core ---------------------------------------------------------------------------

    def call(self, what: str, fn: Callable[[], T], *,
             before_retry: Callable[[], bool] | None = None) -> T:
        """Run `fn` with retries. `before_retry` returns True when a retry is unnecessary
        because the first (timed-out) attempt did take effect; then `call` returns None."""
        for attempt in range(1, self.attempts + 1):
            try:
                return fn()
            except GithubException as err:
                wait = rate_limit_wait(err)
                if wait is not None:
                    if wait > self.max_rate_wait:
                        raise GitHubError(
                            f"GitHub API rate limit while trying to {what}: reset in {wait:.0f} s, "
                            f"longer than the {self.max_rate_wait:.0f} s we wait; re-run the "
                            "workflow later") from None
                    reason = f"rate limited ({err.status}), waiting {wait:.0f} s"
                elif err.status >= 500:
                    wait = self._backoff(attempt, _headers(err))
                    reason = f"server error {err.status}"
                else:
                    raise self._fatal(what, err) from None
            except (requests.exceptions.Timeout, requests.exceptions.ConnectionError) as err:
                wait = self._backoff(attempt, {})
                reason = f"{type(err).__name__}"
            if attempt == self.attempts:
                raise GitHubError(f"GitHub API: could not {what} after {self.attempts} attempts "
                                  f"(last: {reason}); GitHub may be degraded, re-run the workflow "
                                  "later") from None
            self.sleep(wait)
            if before_retry is not None and before_retry():
                return None  # type: ignore[return-value]
        raise AssertionError("unreachable")

    def _backoff(self, attempt: int, headers: dict[str, str]) -> float:
        retry_after = headers.get("retry-after", "")
        if retry_after.isdigit():
            return min(float(retry_after), self.max_backoff)
        return min(self.backoff * 2 ** (attempt - 1), self.max_backoff)

    def _fatal(self, what: str, err: GithubException) -> GitHubError:
        hint = {
            401: "the token is missing or invalid",
            403: "the token lacks a permission (check the job's `permissions:`)",
            404: f"not found in {self.repo_name} (or the token cannot see it)",
            422: "GitHub refused the request as invalid",
        }.get(err.status, "unexpected response")
        detail = _message(err)
        return GitHubError(f"GitHub API: could not {what}: HTTP {err.status}, {hint}"
                           + (f" ({detail})" if detail else ""))

    # -- reads --------------------------------------------------------------------------------

    def default_branch(self) -> str:
        return self.call(f"read repository {self.repo_name}",
                         lambda: str(self._gh.get_repo(self.repo_name).default_branch))

    def pull(self, number: int) -> PullInfo:
        def fetch() -> PullInfo:
            pr = self._repo.get_pull(number)
            return PullInfo(number=pr.number, state=pr.state, merged=bool(pr.merged),
                            author_login=pr.user.login, author_id=int(pr.user.id),
                            author_type=str(pr.user.type or "User"), head_sha=pr.head.sha,
                            base_ref=pr.base.ref, changed_files=int(pr.changed_files or 0),
                            labels=tuple(label.name for label in pr.labels))
        return self.call(f"read pull request #{number}", fetch)

    def pull_files(self, number: int, limit: int = 300) -> list[ChangedFile]:
        """At most `limit` changed files (the policy needs only enough to name offenders)."""
        def fetch() -> list[ChangedFile]:
            out = []
            for f in self._repo.get_pull(number).get_files():
                out.append(ChangedFile(filename=f.filename, status=f.status, sha=f.sha or None,
                                       previous_filename=f.previous_filename or None))
                if len(out) >= limit:
                    break
            return out
        return self.call(f"list the files of pull request #{number}", fetch)

    def tree(self, sha: str) -> list[TreeEntry]:
        def fetch() -> list[TreeEntry]:
            tree = self._repo.get_git_tree(sha)
            return [TreeEntry(name=e.path, mode=e.mode, type=e.type, sha=e.sha, size=e.size)
                    for e in tree.tree]
        return self.call(f"read git tree {sha}", fetch)

    def blob(self, sha: str) -> bytes:
        def fetch() -> bytes:
            blob = self._repo.get_git_blob(sha)
            if blob.encoding != "base64":
                raise GitHubError(f"git blob {sha}: unexpected encoding {blob.encoding!r}")
            return base64.b64decode(blob.content or "")
        return self.call(f"download git blob {sha}", fetch)

    def workflow_run(self, run_id: int) -> RunInfo:
        def fetch() -> RunInfo:
            run = self._repo.get_workflow_run(run_id)
            created = run.created_at
            if created.tzinfo is None:
                created = created.replace(tzinfo=UTC)
            return RunInfo(id=int(run.id), event=str(run.event), head_sha=str(run.head_sha),
                           created_at=created.astimezone(UTC))
        return self.call(f"read workflow run {run_id}", fetch)

    def comments(self, number: int) -> list[CommentInfo]:
        def fetch() -> list[CommentInfo]:
            return [CommentInfo(id=c.id, author_login=c.user.login if c.user else "",
                                body=c.body or "")
                    for c in self._repo.get_issue(number).get_comments()]
        return self.call(f"list the comments of #{number}", fetch)

    # -- writes -------------------------------------------------------------------------------

    def comment_once(self, number: int, body: str, *,
                     already: Callable[[list[CommentInfo]], bool]) -> bool:
        """Post `body` unless `already(comments)` is true; True if this call posted it.

        A POST that timed out may still have been applied, so before any retry the comments
        are listed again: the bot never answers twice.
        """
        if already(self.comments(number)):
            return False
        posted = self.call(f"comment on #{number}",
                           lambda: self._repo.get_issue(number).create_comment(body),
                           before_retry=lambda: already(self.comments(number)))
        return posted is not None

    def add_labels(self, number: int, *labels: str) -> None:
        self.call(f"label #{number}", lambda: self._repo.get_issue(number).add_to_labels(*labels))

    def close(self, number: int) -> None:
        self.call(f"close pull request #{number}",
                  lambda: self._repo.get_pull(number).edit(state="closed"))
