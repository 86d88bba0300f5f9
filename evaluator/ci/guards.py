"""The security guards both pull-request pipelines run, once, in one order.

Why one module: the predictions pipeline (`evaluator.ci.predictions`) and the code track's
(`evaluator.ci.code`) face the same attacker, a pull request on `pull_request_target`, and
their first copies of these checks had begun to drift (one phase 1 read the ledger through a
writable object). Each guard is one function whose docstring names the attack it stops;
`decide_pr` runs them in their order around a pipeline's own decision, so neither pipeline can
skip or reorder one. The messages and codes are the pipelines' public answers (pinned by tests).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from evaluator.ci.comment import find_answer
from evaluator.ci.github import ChangedFile, GitHubClient, PullInfo, TreeEntry
from evaluator.ci.policy import PolicyRejection
from evaluator.ci.result import ACCEPTED, REJECTED, SKIPPED, ProblemItem, ResultBase
from evaluator.codetrack.board import BOARDS
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.store import SUBMISSION, Ledger
from evaluator.repo.record import ledger_path
from evaluator.submission.metadata import LOGIN_RE

REGULAR_MODES = ("100644", "100755")
R = TypeVar("R", bound=ResultBase)


class HeadMoved(ConfigError):
    """The PR changed while it was being read; the run triggered by that push handles it."""


class ReadOnlyLedger(Ledger):
    """The base branch's ledger for duplicate and eligibility checks; appends are captured in
    memory and never written (the scoring job holds a read-only token and writes nothing).

    Stops: phase 1, which reads attacker-chosen bytes (and, for predictions, holds the private
    key), changing the ledger the publishing job commits; whatever asks to append, nothing
    reaches the file, and a direct write raises.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.captured: list[dict[str, Any]] = []

    @contextlib.contextmanager
    def locked(self) -> Iterator[list[dict[str, Any]]]:
        yield self.rows()  # nothing is written, so no lock file either

    def write_locked(self, rows: list[dict[str, Any]], current: list[dict[str, Any]]) -> int:
        rows = list(rows)
        self.captured.extend(rows)
        return len(rows)

    def _write(self, lines: list[str]) -> None:
        raise ConfigError(f"{self.path}: phase 1 reads the ledger and never writes it")


def skip_reason(client: GitHubClient, pull: PullInfo, bot_login: str,
                verb: str) -> tuple[str, str] | None:
    """(code, reason) when the PR is closed or already answered, else None.

    Stops: re-runs of the workflow (anyone can trigger one by closing and reopening, or a
    maintainer re-runs it) scoring a PR twice, answering twice or scoring a closed PR; the
    answer is only looked for among the bot's own comments, so a pasted marker does not count.
    """
    if pull.state != "open":
        return "closed", f"pull request #{pull.number} is {pull.state}; nothing to {verb}"
    if find_answer(client.comments(pull.number), bot_login) is not None:
        return "already-answered", f"pull request #{pull.number} already has the bot's answer"
    return None


def recorded_row(rows: list[dict[str, Any]], pull: PullInfo, *,
                 code_track: bool) -> dict[str, Any] | None:
    """This PR's row when an earlier run committed it but did not get to answer, else None.

    Stops: a re-run recording or scoring the PR again, and a row being claimed by someone
    else: it must be this PR's, on this pipeline's track, from this GitHub account (the login
    may have been renamed since: the account is the person; a reused login is not).
    """
    return next((r for r in rows if r["type"] == SUBMISSION and r.get("pr") == pull.number
                 and (r["slug"] in BOARDS) == code_track
                 and r.get("participant_id") == pull.author_id), None)


def check_author(pull: PullInfo, rows: list[dict[str, Any]]) -> None:
    """Rejection unless the PR comes from a personal account that owns its login's history.

    Stops: bots and organisations submitting, odd logins reaching paths and messages, and a
    renamed or re-registered login submitting as (and using the limits of) its earlier owner.
    """
    if pull.author_type != "User" or not re.fullmatch(LOGIN_RE, pull.author_login):
        raise Rejection(f"pull requests by {pull.author_login!r} ({pull.author_type}) are not "
                        "submissions; submit from a personal GitHub account",
                        code="invalid-author")
    for r in rows:
        if (r["type"] == SUBMISSION and r["participant"].lower() == pull.author_login.lower()
                and r.get("participant_id") not in (None, pull.author_id)):
            raise Rejection(f"the login {pull.author_login!r} made earlier submissions from a "
                            "different GitHub account (the login was renamed or reused); a "
                            "maintainer must resolve this", code="identity-mismatch")


def check_base(client: GitHubClient, pull: PullInfo) -> None:
    """Rejection unless the PR targets the default branch.

    Stops: a PR against another branch (one with an older workflow, policy or ledger) being
    judged by that branch's rules while its result is recorded on the default branch.
    """
    default = client.default_branch()
    if pull.base_ref != default:
        raise Rejection(f"the pull request targets {pull.base_ref!r}; submissions go to "
                        f"{default!r}", code="wrong-base")


def files_at_head(client: GitHubClient, pull: PullInfo, verb: str) -> list[ChangedFile]:
    """The PR's changed files, listed while the head was `pull.head_sha` (HeadMoved if not).

    Stops: a push between reading the PR and listing its files, which would check the policy
    on one commit and fetch the files of another.
    """
    files = client.pull_files(pull.number)
    if client.pull(pull.number).head_sha != pull.head_sha:
        raise HeadMoved(f"pull request #{pull.number} was updated while it was being read; the "
                        f"run for the new commit {verb}s it")
    return files


def check_size(path: str, size: int, limit: int) -> None:
    """Rejection when a file is over its limit.

    Stops: a huge blob exhausting the runner's memory or the judge's time; called on the
    tree's size before downloading and again on the bytes (the tree may not report a size).
    """
    if size > limit:
        raise Rejection(f"{path!r} is {size:,} bytes; the limit is {limit:,}", code="too-large")


def checked_entry(entries: Mapping[str, TreeEntry], f: ChangedFile, head_sha: str,
                  limit: int) -> TreeEntry:
    """The git tree entry of PR file `f` at the head commit, after identity, mode and size.

    Stops: a symlink (to the keys, the runner's files) or a submodule read in place of a file,
    an oversize file downloaded at all, and a file list and tree from different commits (the
    entry's blob id must be the one the PR listed).
    """
    entry = entries.get(f.filename.rsplit("/", 1)[1])
    if entry is None or entry.sha != f.sha:
        raise HeadMoved(f"{f.filename} at commit {head_sha} differs from the PR's file list; "
                        "the pull request changed while it was being evaluated")
    if entry.mode == "120000":
        raise Rejection(f"{f.filename!r} is a symbolic link; commit the file itself",
                        code="symlink")
    if entry.type != "blob" or entry.mode not in REGULAR_MODES:
        raise Rejection(f"{f.filename!r} is not a regular file (git mode {entry.mode})",
                        code="not-a-file")
    if entry.size is not None:
        check_size(f.filename, entry.size, limit)
    return entry


@dataclass
class Admission:
    """What a pipeline's own decision starts from once the shared guards have passed."""

    client: GitHubClient
    pull: PullInfo
    base: dict[str, Any]  # the fields every verdict on this PR carries
    ledger: ReadOnlyLedger
    rows: list[dict[str, Any]]
    files: list[ChangedFile]
    slug: str | None = None  # set once known: a later rejection names it


def decide_pr(client: GitHubClient, number: int, model: type[R], *, root: Path, bot_login: str,
              verb: str, code_track: bool, decide: Callable[[Admission], R]) -> R:
    """Phase 1 of either pipeline: the guards in order, then `decide`, as a verdict.

    The order is the defence: handled PRs are skipped before anything is read; the ledger is
    read only through `ReadOnlyLedger`; author, base branch and a stable head are checked
    before the file list is trusted; a Rejection from anywhere becomes a rejected verdict that
    carries no score. Raises ConfigError/GitHubError for platform failures.
    """
    try:
        return _decide(client, number, model, Path(root), bot_login, verb, code_track, decide)
    except ValidationError as err:  # a verdict that fails its own schema is our bug
        raise ConfigError(f"PR #{number}: refusing to write an inconsistent verdict: "
                          f"{err}") from None


def _decide(client: GitHubClient, number: int, model: type[R], root: Path, bot_login: str,
            verb: str, code_track: bool, decide: Callable[[Admission], R]) -> R:
    pull = client.pull(number)
    base: dict[str, Any] = {**model.TAG, "repo": client.repo_name, "pr": number,
                            "head_sha": pull.head_sha, "author_login": pull.author_login,
                            "author_id": pull.author_id}
    skip = skip_reason(client, pull, bot_login, verb)
    if skip is not None:
        return model(**base, status=SKIPPED, code=skip[0], reason=skip[1])
    ledger = ReadOnlyLedger(ledger_path(root))
    rows = ledger.rows()
    recorded = recorded_row(rows, pull, code_track=code_track)
    if recorded is not None:
        return model(**base, status=ACCEPTED, slug=recorded["slug"], row=recorded,
                     digest=recorded["digest"], already_recorded=True,
                     **model.recorded_fields(recorded))
    admission = Admission(client, pull, base, ledger, rows, files=[])
    try:
        check_author(pull, rows)
        check_base(client, pull)
        admission.files = files_at_head(client, pull, verb)
        return decide(admission)
    except PolicyRejection as err:
        return model(**base, status=REJECTED, code=err.code, reason=str(err).splitlines()[0],
                     problems=[ProblemItem(path=p.path[:1000], reason=p.reason[:1000])
                               for p in err.problems])
    except Rejection as err:
        return model(**base, status=REJECTED, code=err.code, reason=str(err)[:20000],
                     slug=admission.slug)
