"""Publish a scored campaign: ledger rows + stored envelopes + leaderboards, one commit.

Why a rows file instead of the run summaries: in the GitHub workflow the runs folder comes from
matrix jobs that executed model-written code, so nothing in it is trusted except the sealed
envelopes (which the scoring job re-opened with the private key). The scoring job writes the
rows the pipeline produced to a file of its own (`gnncb llm score --rows-out`); this step
publishes exactly those rows, each with the envelope whose SHA-256 is the row's digest, through
the same record/commit/push code as pull-request submissions (evaluator.ci).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluator.competition.boards import Board
from evaluator.errors import ConfigError
from evaluator.ledger.store import SUBMISSION
from evaluator.llm.runlog import find_runs
from evaluator.llm.submit import SUBMISSION_DIR
from evaluator.repo.gitops import Change, PushReport, commit_and_push
from evaluator.repo.record import record_submission
from evaluator.submission import envelope
from evaluator.submission.files import ENVELOPE_NAME

LLM_ENTRANTS = ("llm-api", "llm-agent")


def read_rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read rows: {err.strerror}") from None
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            raise ConfigError(f"{path}, line {lineno}: not JSON: {err}") from None
        if not isinstance(row, dict) or row.get("type") != SUBMISSION or "digest" not in row:
            raise ConfigError(f"{path}, line {lineno}: not a ledger submission row")
        if row.get("entrant") not in LLM_ENTRANTS:
            raise ConfigError(f"{path}, line {lineno}: entrant {row.get('entrant')!r} is not an "
                              "LLM entrant; this command publishes LLM-track rows only")
        rows.append(row)
    return rows


def envelopes_by_digest(runs: Path) -> dict[str, bytes]:
    found = {}
    for run in find_runs(runs):
        path = run / SUBMISSION_DIR / ENVELOPE_NAME
        if path.is_file() and not path.is_symlink():
            sealed = path.read_bytes()
            found[envelope.digest(sealed)] = sealed
    return found


def publish_rows(root: Path, runs: Path, rows: list[dict[str, Any]], *, campaign: str,
                 remote: str = "origin", branch: str = "main",
                 git_env: Mapping[str, str] | None = None,
                 boards: Sequence[Board] = ()) -> PushReport | None:
    """Record every row with its envelope and push one commit; None when there are no rows."""
    if not rows:
        return None
    sealed = envelopes_by_digest(runs)
    missing = [r["digest"][:12] for r in rows if r["digest"] not in sealed]
    if missing:
        raise ConfigError(f"{runs}: no sealed envelope for row digest(s) {', '.join(missing)}; "
                          "pass the runs folder that was scored")
    message = (f"leaderboard: record {len(rows)} LLM run(s) of campaign {campaign}\n\n"
               + "\n".join(f"{r['participant']} on {r['slug']}: {r['digest']}" for r in rows)
               + "\n")

    def mutate() -> Change | None:
        paths: set[str] = set()
        for row in rows:
            change = record_submission(root, row, sealed[row["digest"]], message, boards=boards)
            if change is not None:
                paths.update(change.paths)
        return Change(sorted(paths), message) if paths else None

    return commit_and_push(Path(root), mutate, remote=remote, branch=branch, env=git_env)
