"""Commit to the default branch and push, retrying when someone else pushed first.

Why "reset and redo" rather than rebase: every change we commit is a pure function of the ledger
(append a row, store a ciphertext, re-render pages), so after a rejected push the right move is to
take the new tip, re-apply the change there and render again. A rebase could only conflict in
generated pages. Git runs as a subprocess with an argument list (never a shell); the token, when
needed, travels in the environment as an HTTP header, never in argv or `.git/config`.
"""

from __future__ import annotations

import base64
import os
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from evaluator.errors import ConfigError
from evaluator.util.urls import is_loopback_http

BOT_NAME = "gnncb-bot"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
# What git prints when the remote moved under us (or a concurrent push holds the ref lock).
# A bare "[remote rejected]" is NOT one of them: that is a hook or branch protection saying no,
# and retrying would not help.
CONFLICT_MARKERS = ("[rejected]", "non-fast-forward", "fetch first", "cannot lock ref",
                    "failed to update ref", "incorrect old value", "stale info")


@dataclass(frozen=True)
class Change:
    paths: list[str]  # relative to the repository root
    message: str


@dataclass(frozen=True)
class PushReport:
    attempts: int
    commit: str | None  # None when there was nothing to commit
    pushed: bool


def auth_env(token: str, host: str = "github.com", scheme: str = "https") -> dict[str, str]:
    """Git config through the environment (as actions/checkout does), so the token is never
    written to `.git/config` nor visible in the process list."""
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
    return {"GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": f"http.{scheme}://{host}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}


def remote_auth_env(url: str, token: Callable[[], str]) -> dict[str, str] | None:
    """The push credentials for remote `url`, or None when the remote brings its own (ssh,
    local paths).

    https remotes get the token; plain http only on this machine's loopback (a local stand-in
    such as the workflow tests' git server on `*.localhost`), never over a network in clear.
    `token` is called only when a token is needed, so a local push needs none.
    """
    parsed = urlparse(url)
    if parsed.scheme == "https":
        return auth_env(token(), parsed.hostname or "github.com")
    if is_loopback_http(url):
        return auth_env(token(), parsed.netloc.rsplit("@", 1)[-1], scheme="http")
    return None


class Git:
    def __init__(self, repo: Path, env: Mapping[str, str] | None = None) -> None:
        self.repo = Path(repo)
        self.env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})}

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(["git", "-C", str(self.repo), *args], capture_output=True,
                              text=True, env=self.env, timeout=600, check=False)
        if check and proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise ConfigError(f"git {args[0]} failed in {self.repo}: " + " | ".join(tail))
        return proc

    def out(self, *args: str) -> str:
        return self.run(*args).stdout.strip()

    def blob(self, commit: str, path: str) -> bytes:
        """The bytes of `path` as `commit` holds it (`git show COMMIT:PATH`, no text decoding)."""
        proc = subprocess.run(["git", "-C", str(self.repo), "show", f"{commit}:{path}"],
                              capture_output=True, env=self.env, timeout=600, check=False)
        if proc.returncode != 0:
            raise ConfigError(f"git show {commit[:12]}:{path} failed in {self.repo}: "
                              + proc.stderr.decode(errors="replace").strip()[-300:])
        return proc.stdout


def _is_conflict(stderr: str) -> bool:
    return any(m in stderr for m in CONFLICT_MARKERS)


def ensure_clean(git: Git) -> None:
    """Publishing moves the checkout to the remote tip; refuse to do that over local edits."""
    dirty = git.out("status", "--porcelain", "--untracked-files=no")
    if dirty:
        raise ConfigError(f"{git.repo} has uncommitted changes to tracked files; publishing "
                          "resets the checkout to the remote branch, so run it in a clean clone")


def commit_and_push(repo: Path, mutate: Callable[[], Change | None], *, remote: str = "origin",
                    branch: str = "main", attempts: int = 5, backoff: float = 1.0,
                    sleep: Callable[[float], None] = time.sleep,
                    env: Mapping[str, str] | None = None) -> PushReport:
    """Fetch the tip, apply `mutate` there, commit, push; on a lost race start over.

    `mutate` runs once per attempt on a fresh tip and returns the paths it changed (or None
    when there is nothing to record, e.g. the row is already there).
    """
    git = Git(repo, env)
    ensure_clean(git)
    for attempt in range(1, attempts + 1):
        git.run("fetch", "--quiet", "--no-tags", remote, branch)
        git.run("checkout", "--quiet", "--force", "-B", branch, "FETCH_HEAD")
        change = mutate()
        if change is None:
            return PushReport(attempt, None, False)
        git.run("add", "--", *change.paths)
        if git.run("diff", "--cached", "--quiet", check=False).returncode == 0:
            return PushReport(attempt, None, False)
        git.run("-c", f"user.name={BOT_NAME}", "-c", f"user.email={BOT_EMAIL}",
                "commit", "--quiet", "--no-verify", "-m", change.message)
        commit = git.out("rev-parse", "HEAD")
        push = git.run("push", "--quiet", "--porcelain", remote, f"HEAD:refs/heads/{branch}",
                       check=False)
        if push.returncode == 0:
            return PushReport(attempt, commit, True)
        if not _is_conflict(push.stderr + push.stdout):
            tail = " | ".join((push.stderr or push.stdout).strip().splitlines()[-5:])
            raise ConfigError(f"git push to {remote} {branch} failed (not a conflict): {tail}")
        if attempt < attempts:
            sleep(min(backoff * 2 ** (attempt - 1), 30.0))
    raise ConfigError(f"git push to {remote} {branch} lost the race {attempts} times; nothing "
                      "was published, re-run the job")
