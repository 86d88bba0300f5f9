"""Phase 2 of a pull request: record, render, commit, answer, label, close (no decryption key).

Why this order: the ledger commit comes first and the comment last, so an answer on the PR always
means the result is on the default branch; a failure anywhere leaves no answer and a re-run
finishes the job. Every step is idempotent (row by digest, answer by hidden marker, labels,
closing), so re-running the workflow never records or answers twice. An accepted result is
recorded even if the PR was closed or pushed to after scoring: its scores already exist in the
run's artifact, and dropping them would let anyone probe the hidden labels for free.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from evaluator.ci.comment import LABELS, answered_status, find_answer, render_answer
from evaluator.ci.fetch import fetch_blob
from evaluator.ci.github import CommentInfo, GitHubClient, PullInfo
from evaluator.ci.logs import say
from evaluator.ci.result import ACCEPTED, SKIPPED, Result, ResultBase
from evaluator.codetrack.board import boards_in
from evaluator.competition.schedule import REVEAL, window_for
from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.ranking import standing_of
from evaluator.ledger.store import Ledger
from evaluator.repo.gitops import PushReport, commit_and_push
from evaluator.repo.record import ledger_path, record_submission
from evaluator.scoring.score import ALL, PUBLIC
from evaluator.submission import envelope

CLOCK_SKEW = timedelta(minutes=5)  # between GitHub's clock and the runners of the two jobs


@dataclass(frozen=True)
class Published:
    status: str
    push: PushReport | None
    commented: bool
    closed: bool
    rank: int | None = None
    entries: int | None = None


def start_publishing(client: GitHubClient, result: ResultBase, bot_login: str,
                     ) -> tuple[PullInfo, CommentInfo | None, Published | None]:
    """The PR, the bot's earlier answer on it, and, for a skipped result, the finished
    publication (None otherwise).

    Why first: a result for another repository or another author must never be published, and
    a skipped result only finishes an interrupted earlier run (label and close an answered PR).
    """
    if result.repo.lower() != client.repo_name.lower():
        raise ConfigError(f"the result is for {result.repo}, not {client.repo_name}")
    pull = client.pull(result.pr)
    answer = find_answer(client.comments(result.pr), bot_login)
    if result.status != SKIPPED:
        return pull, answer, None
    check_same_account(pull, result, recorded=False)
    say(f"PR #{result.pr}: nothing to publish ({result.code}: {result.reason})")
    if answer is not None and pull.state == "open":  # finish an interrupted earlier run
        client.add_labels(result.pr, LABELS[answered_status(answer)])
        client.close(result.pr)
        return pull, answer, Published(SKIPPED, None, False, True)
    return pull, answer, Published(SKIPPED, None, False, False)


def check_same_account(pull: PullInfo, result: ResultBase, *, recorded: bool) -> None:
    """ConfigError unless the PR's author is still the account the keyed job decided for.

    Why by account id and after recording: the account is the person (a login renamed between
    the two jobs is the same participant, answered under the login it had when scored), and a
    scored result is recorded before this refusal, so renaming or deleting the account between
    the jobs cannot turn a scored submission into a free probe that counts against nothing.
    """
    if pull.author_id != result.author_id:
        raise ConfigError(
            f"the result names author {result.author_login} ({result.author_id}) but PR "
            f"#{result.pr} is now by {pull.author_login} ({pull.author_id}); "
            + ("the scored row was recorded; " if recorded else "")
            + "refusing to answer, label or close it")


def finish_publishing(client: GitHubClient, result: ResultBase, *, pull: PullInfo,
                      answer: CommentInfo | None, bot_login: str, render: Callable[[], str],
                      push: PushReport | None, rank: int | None, entries: int | None,
                      ) -> Published:
    """Answer (once, rendered only when no answer exists yet), label, close, log.

    Why last: the ledger commit is already on the default branch, so the answer never claims
    a result that is not recorded.
    """
    check_same_account(pull, result, recorded=result.status == ACCEPTED)
    commented = False
    if answer is None:
        commented = client.comment_once(
            result.pr, render(), already=lambda cs: find_answer(cs, bot_login) is not None)
    client.add_labels(result.pr, LABELS[result.status])
    closed = False
    if pull.state == "open":
        client.close(result.pr)
        closed = True
    say(f"PR #{result.pr}: {result.status}; answered={commented or answer is not None}, "
        f"closed={closed or pull.state != 'open'}")
    return Published(result.status, push, commented, closed, rank, entries)


def _moment(row: Mapping[str, Any], name: str) -> datetime:
    value = row.get(name)
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"the result's row has {name}={value!r}, not an ISO time; "
                          "refusing to publish") from None
    if moment.tzinfo is None:
        raise ConfigError(f"the result's row has {name}={value!r} without a time zone; "
                          "refusing to publish")
    return moment


def check_derived_fields(spec: CompetitionSpec, row: Mapping[str, Any],
                         rows: list[dict[str, Any]], now: datetime) -> None:
    """ConfigError unless the row's version, part, times and phase are what the repository
    and the row's own submission time give.

    Why: the artifact crosses from the keyed job to this one, and nothing in it is believed
    that can be derived here. The version and the part scored come from competition.yaml; the
    times must be in order (submitted, then scored, then now, with a little clock skew); the
    phase and the late mark are the window of the submission time, judged as the keyed job
    judged it (revealed only if a reveal row predates the scoring)."""
    wrong = []
    if row.get("version") != spec.version:
        wrong.append(f"version={row.get('version')!r} (competition.yaml: {spec.version})")
    part = PUBLIC if spec.has_parts else ALL
    if row.get("scored_on") != part:
        wrong.append(f"scored_on={row.get('scored_on')!r} (competition.yaml gives {part!r})")
    submitted, scored = _moment(row, "submitted_at"), _moment(row, "scored_at")
    # the event's time comes from GitHub's clock, the scoring time from the runner's
    if not (submitted <= scored + CLOCK_SKEW and scored <= now + CLOCK_SKEW):
        wrong.append(f"submitted_at={row.get('submitted_at')!r}, "
                     f"scored_at={row.get('scored_at')!r} (not in order before now)")
    is_revealed = any(r["type"] == REVEAL and r.get("slug") == spec.slug
                      and r.get("version") == spec.version
                      and _moment(r, "at") <= scored for r in rows)
    try:
        window = window_for(spec, submitted, is_revealed=is_revealed)
    except Rejection as err:
        wrong.append(f"submitted_at={row.get('submitted_at')!r} is outside every window "
                     f"({err})")
    else:
        if row.get("phase") != window.phase or bool(row.get("late")) != window.late:
            wrong.append(f"phase={row.get('phase')!r}, late={bool(row.get('late'))} (the "
                         f"submission time gives phase={window.phase!r}, late={window.late})")
    if wrong:
        raise ConfigError("the result's row disagrees with the repository: "
                          + "; ".join(wrong) + "; refusing to publish (a re-run of the "
                          "scoring job makes a new result)")


def commit_message(result: Result, run_url: str | None) -> str:
    scores = ", ".join(f"{k}={v:.4f}" for k, v in sorted(result.scores.items()))
    lines = [f"leaderboard: record {result.author_login.lower()} on {result.slug} "
             f"(PR #{result.pr})", "",
             f"Envelope {result.digest}", f"Scores: {scores}"]
    if run_url:
        lines.append(f"Workflow run: {run_url}")
    return "\n".join(lines) + "\n"


def publish_result(client: GitHubClient, result: Result, *, root: Path, remote: str = "origin",
                   branch: str = "main", bot_login: str, server_url: str = "https://github.com",
                   run_url: str | None = None, git_env: Mapping[str, str] | None = None,
                   push_attempts: int = 5, sleep: Callable[[float], None] = time.sleep,
                   ) -> Published:
    pull, answer, skipped = start_publishing(client, result, bot_login)
    if skipped is not None:
        return skipped

    push = rank = entries = version = earlier_pr = None
    if result.status == ACCEPTED:
        assert result.row is not None and result.slug
        spec = load_spec(Path(root) / "competitions" / result.slug)
        version = spec.version
        if result.envelope_blob_sha and not result.already_recorded:
            sealed = fetch_blob(client, result.envelope_blob_sha, "predictions.csv.enc", None)
            if envelope.digest(sealed) != result.digest:
                raise ConfigError(f"blob {result.envelope_blob_sha} does not hash to the "
                                  f"scored digest {result.digest}; refusing to publish")
            row = result.row
            check_derived_fields(spec, row, Ledger(ledger_path(root)).rows(),
                                 datetime.now(UTC))
            push = commit_and_push(
                Path(root), lambda: record_submission(
                    root, row, sealed, commit_message(result, run_url),
                    boards=boards_in(Path(root) / "competitions")),
                remote=remote, branch=branch, attempts=push_attempts, sleep=sleep, env=git_env)
        rows = Ledger(ledger_path(root)).rows()
        rank, entries = standing_of(spec, rows, result.author_login, result.author_id)
        if result.duplicate:
            earlier_pr = result.row.get("pr")
        if push is not None:
            say(f"PR #{result.pr}: recorded {(result.digest or '')[:12]} "
                f"(pushed={push.pushed}, attempts={push.attempts}); rank {rank} of {entries}")

    return finish_publishing(
        client, result, pull=pull, answer=answer, bot_login=bot_login,
        render=lambda: render_answer(result, server_url=server_url, branch=branch,
                                     run_url=run_url, rank=rank, entries=entries,
                                     version=version, earlier_pr=earlier_pr),
        push=push, rank=rank, entries=entries)
