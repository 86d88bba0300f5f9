"""When a submission was made: the time of the pull-request event that triggered the run.

Why not the clock: every writing workflow queues in one concurrency group, and a code-track
judge may hold it for up to 45 minutes, so a pull request opened five minutes before the
deadline could start an hour later and be refused as `closed`; flooding the queue before a
deadline would shut out honest final submissions. The submission time is therefore the event's:
`pull_request.created_at` for `opened`, `pull_request.updated_at` for `synchronize` and
`reopened` (GitHub sets it when the head is pushed or the PR reopened), read from the payload
GitHub wrote for this run (`$GITHUB_EVENT_PATH`) and checked against GitHub's API: the run
(`GET /actions/runs/{id}`) must have been triggered by `pull_request_target` for the same head
commit, and the event cannot be later than the run's creation. A participant controls neither
(commit dates, which they do control, are never read).

The run judges the head the event names: if the PR was pushed to since, this run is skipped and
the run of the newer push judges it at the newer push's time, so a push after the deadline
cannot borrow an earlier event's time. A maintainer's `workflow_dispatch` re-run has no pull
request event; it judges at the time it runs (docs/security.md, what remains).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from evaluator.ci.github import GitHubClient, PullInfo
from evaluator.errors import ConfigError

TRIGGER = "pull_request_target"
# the payload field holding each action's time
ACTION_TIME = {"opened": "created_at", "synchronize": "updated_at", "reopened": "updated_at"}
# GitHub stamps the event and creates the run within seconds; more than this is not one event
SKEW = timedelta(minutes=2)


@dataclass(frozen=True)
class PullEvent:
    """The pull-request event a workflow run was triggered by (from its payload)."""

    number: int
    action: str
    head_sha: str
    at: datetime
    run_id: int


def _time(value: Any, where: str) -> datetime:
    try:
        at = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"{where}: {value!r} is not an ISO 8601 time") from None
    if at.tzinfo is None:
        raise ConfigError(f"{where}: {value!r} has no time zone")
    return at.astimezone(UTC)


def read_event(path: Path | None, run_id: str | None) -> PullEvent | None:
    """The pull-request event of this run, or None when the run has none (a maintainer's
    `workflow_dispatch`, or outside Actions). ConfigError for a payload that claims to be a
    pull-request event but lacks what one holds."""
    if path is None or not str(path):
        return None
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: cannot read the event payload: {err}") from None
    pull = payload.get("pull_request") if isinstance(payload, dict) else None
    if not isinstance(pull, dict):
        return None
    action = payload.get("action")
    if action not in ACTION_TIME:
        raise ConfigError(f"{path}: pull-request action {action!r} is not one this workflow "
                          f"runs on ({', '.join(ACTION_TIME)})")
    if not (run_id and str(run_id).isdigit()):
        raise ConfigError("a pull-request event needs the workflow run id ($GITHUB_RUN_ID or "
                          "--run-id) to check its time against GitHub's API")
    head = pull.get("head") if isinstance(pull.get("head"), dict) else {}
    number, sha = pull.get("number"), head.get("sha")
    if type(number) is not int or not isinstance(sha, str):
        raise ConfigError(f"{path}: the pull-request event lacks its number or head sha")
    return PullEvent(number=number, action=str(action), head_sha=sha,
                     at=_time(pull.get(ACTION_TIME[action]),
                              f"{path}: pull_request.{ACTION_TIME[action]}"),
                     run_id=int(run_id))


def event_time(client: GitHubClient, event: PullEvent, number: int) -> datetime:
    """The event's time after checking it against GitHub's record of the run (ConfigError
    when they disagree: then the payload is not this run's and no time is taken from it)."""
    if event.number != number:
        raise ConfigError(f"the event payload is for PR #{event.number}, not #{number}")
    run = client.workflow_run(event.run_id)
    if run.event != TRIGGER or run.head_sha != event.head_sha:
        raise ConfigError(f"workflow run {run.id} was triggered by {run.event} at "
                          f"{run.head_sha[:12]}, but the payload is a {TRIGGER} event at "
                          f"{event.head_sha[:12]}; refusing to take a submission time from it")
    if event.at > run.created_at + SKEW:
        raise ConfigError(f"the event time {event.at:%Y-%m-%d %H:%M:%S} UTC is after workflow "
                          f"run {run.id} was created ({run.created_at:%Y-%m-%d %H:%M:%S} UTC); "
                          "refusing to take a submission time from it")
    return event.at


def superseded(pull: PullInfo, event: PullEvent | None) -> str | None:
    """Why this run must not judge the PR: it was pushed to after the event that triggered
    the run (the newer push's run judges it, at the newer push's time), else None."""
    if event is not None and pull.head_sha != event.head_sha:
        return (f"pull request #{pull.number} was pushed to after this run's event (head "
                f"{event.head_sha[:12]}, now {pull.head_sha[:12]}); the run for the newer "
                "push evaluates it")
    return None
