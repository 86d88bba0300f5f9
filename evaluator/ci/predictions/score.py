"""Phase 1 of a pull request: decide and score, read-only, holding the decryption key.

Why read-only: this is the only code that sees the private key, so it changes nothing anywhere;
it reads the PR through the API, the ledger and competitions from the base-branch checkout, and
returns a `Result`. Order: the guards both pipelines share (`evaluator.ci.guards`: already
handled, author, base branch, stable head; the ledger read-only), then the path policy, then the
two blobs (as data), then `evaluate_bytes`, which checks identity and eligibility BEFORE any
score exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.ci.event import PullEvent, event_time, superseded
from evaluator.ci.fetch import fetch_submission
from evaluator.ci.github import GitHubClient
from evaluator.ci.guards import Admission, decide_pr
from evaluator.ci.policy import check_pr_files
from evaluator.ci.result import ACCEPTED, SKIPPED, Result
from evaluator.codetrack.board import only_code_track
from evaluator.competition.spec import SLUG_RE, load_spec
from evaluator.pipeline.evaluate import (
    ENVELOPE_NAME,
    METADATA_NAME,
    evaluate_bytes,
    max_envelope_bytes,
)
from evaluator.submission.metadata import MAX_METADATA_BYTES

KeyLoader = Callable[[], Mapping[str, rsa.RSAPrivateKey]]


def competition_exists(root: Path) -> Callable[[str], bool]:
    def exists(slug: str) -> bool:
        return bool(re.fullmatch(SLUG_RE, slug)) and \
            (Path(root) / "competitions" / slug / "competition.yaml").is_file()
    return exists


def score_pr(client: GitHubClient, number: int, *, root: Path, load_keys: KeyLoader,
             bot_login: str, now: datetime | None = None,
             event: PullEvent | None = None) -> Result:
    """The verdict for PR `number`. Raises ConfigError/GitHubError for platform failures.

    `event`: the pull-request event that triggered this run; its time (checked against
    GitHub's API) is the submission's time, whenever the queued run starts."""
    return decide_pr(client, number, Result, root=root, bot_login=bot_login, verb="evaluate",
                     code_track=False,
                     decide=lambda admission: _decide(admission, Path(root), load_keys, now,
                                                      event))


def _decide(admission: Admission, root: Path, load_keys: KeyLoader,
            now: datetime | None, event: PullEvent | None) -> Result:
    """After the shared guards: route code-track PRs away, a run for an older push stops,
    path policy, the two blobs as data, then `evaluate_bytes` (identity and eligibility
    BEFORE any score exists) at the event's time."""
    pull = admission.pull
    moved = superseded(pull, event)
    if moved is not None:
        return Result(**admission.base, status=SKIPPED, code="superseded", reason=moved)
    if only_code_track(p for f in admission.files for p in (f.filename, f.previous_filename)):
        return Result(**admission.base, status=SKIPPED, code="code-track",
                      reason="a code-track submission; evaluate-code.yml judges it")
    sub = check_pr_files(admission.files, pull.author_login,
                         competition_exists=competition_exists(root),
                         total_files=pull.changed_files)
    admission.slug = sub.slug
    competition = root / "competitions" / sub.slug
    spec = load_spec(competition)
    fetched = fetch_submission(admission.client, pull.head_sha, sub, {
        ENVELOPE_NAME: max_envelope_bytes(spec), METADATA_NAME: MAX_METADATA_BYTES})
    submitted = event_time(admission.client, event, pull.number) if event else None
    outcome = evaluate_bytes(competition, fetched[ENVELOPE_NAME].data,
                             fetched[METADATA_NAME].data, participant=pull.author_login,
                             keys=load_keys(), ledger=admission.ledger, pr=pull.number,
                             participant_id=pull.author_id, now=now, submitted_at=submitted)
    row = outcome.row
    assert row is not None
    return Result(**admission.base, status=ACCEPTED, slug=outcome.slug, scores=outcome.scores,
                  duplicate=outcome.duplicate, remaining_version=outcome.remaining_version,
                  remaining_today=outcome.remaining_today, row=row,
                  envelope_blob_sha=fetched[ENVELOPE_NAME].blob_sha, digest=row["digest"])
