"""Phase 1 of a pull request: decide and score, read-only, holding the decryption key.

Why read-only: this is the only code that sees the private key, so it changes nothing anywhere;
it reads the PR through the API, the ledger and competitions from the base-branch checkout, and
returns a `Result`. Order: already-handled checks, then the path policy, then the two blobs (as
data), then `evaluate_bytes`, which checks identity and eligibility BEFORE any score exists.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa
from pydantic import ValidationError

from evaluator.ci.comment import find_answer
from evaluator.ci.fetch import HeadMoved, fetch_submission
from evaluator.ci.github import GitHubClient, PullInfo
from evaluator.ci.policy import PolicyRejection, check_pr_files
from evaluator.ci.result import ACCEPTED, REJECTED, SKIPPED, ProblemItem, Result
from evaluator.codetrack.board import BOARDS, only_code_track
from evaluator.competition.spec import SLUG_RE, load_spec
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.store import SUBMISSION, Ledger
from evaluator.pipeline.evaluate import (
    ENVELOPE_NAME,
    METADATA_NAME,
    evaluate_bytes,
    max_envelope_bytes,
)
from evaluator.repo.record import ledger_path
from evaluator.submission.metadata import LOGIN_RE, MAX_METADATA_BYTES

KeyLoader = Callable[[], Mapping[str, rsa.RSAPrivateKey]]


class ReadOnlyLedger(Ledger):
    """The base branch's ledger for duplicate and eligibility checks; appends are captured in
    memory and never written (the scoring job holds a read-only token and writes nothing)."""

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


def competition_exists(root: Path) -> Callable[[str], bool]:
    def exists(slug: str) -> bool:
        return bool(re.fullmatch(SLUG_RE, slug)) and \
            (Path(root) / "competitions" / slug / "competition.yaml").is_file()
    return exists


def _check_author(pull: PullInfo, rows: list[dict[str, Any]]) -> None:
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


def score_pr(client: GitHubClient, number: int, *, root: Path, load_keys: KeyLoader,
             bot_login: str, now: datetime | None = None) -> Result:
    """The verdict for PR `number`. Raises ConfigError/GitHubError for platform failures."""
    try:
        return _decide(client, number, Path(root), load_keys, bot_login, now)
    except ValidationError as err:  # a verdict that fails its own schema is our bug
        raise ConfigError(f"PR #{number}: refusing to write an inconsistent verdict: "
                          f"{err}") from None


def _decide(client: GitHubClient, number: int, root: Path, load_keys: KeyLoader,
            bot_login: str, now: datetime | None) -> Result:
    pull = client.pull(number)
    base: dict[str, Any] = {"repo": client.repo_name, "pr": number, "head_sha": pull.head_sha,
                            "author_login": pull.author_login, "author_id": pull.author_id}
    if pull.state != "open":
        return Result(**base, status=SKIPPED, code="closed",
                      reason=f"pull request #{number} is {pull.state}; nothing to evaluate")
    if find_answer(client.comments(number), bot_login) is not None:
        return Result(**base, status=SKIPPED, code="already-answered",
                      reason=f"pull request #{number} already has the bot's answer")
    ledger = ReadOnlyLedger(ledger_path(root))
    rows = ledger.rows()
    recorded = next((r for r in rows if r["type"] == SUBMISSION and r.get("pr") == number
                     and r["slug"] not in BOARDS  # code-track rows: evaluate-code.yml's
                     and r["participant"].lower() == pull.author_login.lower()
                     and r.get("participant_id") == pull.author_id), None)
    if recorded is not None:  # an earlier run committed the row but did not get to answer
        return Result(**base, status=ACCEPTED, slug=recorded["slug"],
                      scores=recorded["scores"], row=recorded, digest=recorded["digest"],
                      already_recorded=True)
    slug = None
    try:
        _check_author(pull, rows)
        default = client.default_branch()
        if pull.base_ref != default:
            raise Rejection(f"the pull request targets {pull.base_ref!r}; submissions go to "
                            f"{default!r}", code="wrong-base")
        files = client.pull_files(number)
        if client.pull(number).head_sha != pull.head_sha:
            raise HeadMoved(f"pull request #{number} was updated while it was being read; the "
                            "run for the new commit evaluates it")
        if only_code_track(p for f in files for p in (f.filename, f.previous_filename)):
            return Result(**base, status=SKIPPED, code="code-track",
                          reason="a code-track submission; evaluate-code.yml judges it")
        sub = check_pr_files(files, pull.author_login, competition_exists=competition_exists(root),
                             total_files=pull.changed_files)
        slug = sub.slug
        competition = root / "competitions" / slug
        spec = load_spec(competition)
        fetched = fetch_submission(client, pull.head_sha, sub, {
            ENVELOPE_NAME: max_envelope_bytes(spec), METADATA_NAME: MAX_METADATA_BYTES})
        outcome = evaluate_bytes(competition, fetched[ENVELOPE_NAME].data,
                                 fetched[METADATA_NAME].data, participant=pull.author_login,
                                 keys=load_keys(), ledger=ledger, pr=number,
                                 participant_id=pull.author_id, now=now)
    except PolicyRejection as err:
        return Result(**base, status=REJECTED, code=err.code, reason=str(err).splitlines()[0],
                      problems=[ProblemItem(path=p.path[:1000], reason=p.reason[:1000])
                                for p in err.problems])
    except Rejection as err:
        return Result(**base, status=REJECTED, code=err.code, reason=str(err)[:20000],
                      slug=slug)
    row = outcome.row
    assert row is not None
    return Result(**base, status=ACCEPTED, slug=outcome.slug, scores=outcome.scores,
                  duplicate=outcome.duplicate, remaining_version=outcome.remaining_version,
                  remaining_today=outcome.remaining_today, row=row,
                  envelope_blob_sha=fetched[ENVELOPE_NAME].blob_sha, digest=row["digest"])
