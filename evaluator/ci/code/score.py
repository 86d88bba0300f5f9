"""Phase 1 of a code-track pull request: judge the solutions in the sandbox (no secret held).

Runs with a read-only token and no secret. After the guards both pipelines share
(`evaluator.ci.guards`: already handled, author, base branch, stable head; the ledger
read-only): the track's path policy on the API's file list, the files read at the head commit
as DATA, metadata validated, duplicate and submission-limit checks BEFORE any code runs; then
the solutions are written to a temporary folder and judged by the code track's scorer
(`codetrack.submission.score_submission`) on cases seeded by the keyed seed job's seed for
their digest (`ci.code.seed`; by the digest alone on a board with no committed secret),
inside the sandbox with `require_sandbox=True` (a runner that cannot isolate fails the job;
nothing is recorded).
Output: a small `CodeResult` (the artifact).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaluator.ci.code.fetch import CodeMetadata, digest_of, fetch_code_files, parse_code_metadata
from evaluator.ci.code.policy import check_code_files
from evaluator.ci.code.result import FEEDBACK_CHARS, FEEDBACK_ITEMS, CodeResult, FeedbackItem
from evaluator.ci.event import PullEvent, event_time, superseded
from evaluator.ci.github import GitHubClient
from evaluator.ci.guards import Admission, decide_pr
from evaluator.ci.logs import say
from evaluator.ci.result import ACCEPTED, SKIPPED
from evaluator.codetrack.board import CodeBoard
from evaluator.competition.schedule import stamp
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.store import SUBMISSION, belongs
from evaluator.pipeline.evaluate import check_eligibility

Judge = Callable[..., tuple[dict[str, Any], list[dict[str, Any]]]]


def sandbox_judge(sources: Mapping[str, bytes], *, participant: str, meta: CodeMetadata,
                  pr: int, per_cell: int, jobs: int, case_seed: dict[str, Any] | None = None
                  ) -> tuple[dict[str, Any], list[dict]]:
    """(ledger row, failing-case feedback): the code track's scorer on a temporary copy of the
    solutions, only inside the sandbox (refuses to run without full isolation)."""
    from evaluator import sandbox
    from evaluator.codetrack.judge import JudgeConfig
    from evaluator.codetrack.submission import score_submission

    isolation = sandbox.detect_isolation()
    if not isolation.sandboxed:
        raise sandbox.SandboxUnavailable(
            "refusing to run participant code without full isolation "
            f"({isolation.level}: {isolation.detail}); the judge job runs `gnncb ci code "
            "score` as root (sudo) on Linux with util-linux `unshare` (docs/maintainers.md)")
    with tempfile.TemporaryDirectory(prefix="gnncb-code-pr-") as tmp:
        folder = Path(tmp) / "solutions"
        folder.mkdir()
        for name, data in sources.items():
            (folder / name).write_bytes(data)
        scored = score_submission(
            folder, participant=participant, entrant=meta.entrant, method=meta.method,
            model=meta.model, pr=pr, per_cell=per_cell, jobs=jobs, out=Path(tmp) / "run",
            config=JudgeConfig(measure_memory=False, require_sandbox=True),
            case_seed=case_seed)
    return scored.row, [{"problem": pid, **item} for pid, items in scored.feedback.items()
                        for item in items[:1]]


def _clip(value: Any) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= FEEDBACK_CHARS else text[:FEEDBACK_CHARS] + "…"


def _feedback(items: list[dict[str, Any]]) -> list[FeedbackItem]:
    return [FeedbackItem(problem=_clip(i["problem"])[:32], cell=_clip(i.get("cell"))[:64],
                         verdict=_clip(i.get("verdict"))[:32],
                         detail=_clip(str(i.get("detail", ""))[-FEEDBACK_CHARS:]),
                         input=_clip(i.get("input")), expected=_clip(i.get("expected")),
                         actual=_clip(i["actual"]) if "actual" in i else None)
            for i in items[:FEEDBACK_ITEMS]]


def judge_code_pr(client: GitHubClient, number: int, *, root: Path, bot_login: str,
                  per_cell: int | None = None, jobs: int = 2, judge: Judge = sandbox_judge,
                  now: datetime | None = None, event: PullEvent | None = None,
                  case_seed: dict[str, Any] | None = None) -> CodeResult:
    """The verdict for code-track PR `number`. ConfigError/GitHubError: platform failures.

    `event`: the pull-request event of this run; its time (checked against GitHub's API,
    `evaluator.ci.event`) is the submission's time for the limits and the row.
    `case_seed`: the keyed seed job's answer (`evaluator.ci.code.seed`), required when the
    board's version commits to secret cases (`codetrack.caseseed`)."""
    at = now or datetime.now(UTC)
    return decide_pr(client, number, CodeResult, root=root, bot_login=bot_login, verb="judge",
                     code_track=True,
                     decide=lambda admission: _decide(admission, Path(root), per_cell, jobs,
                                                      judge, at, event, case_seed))


@dataclass
class Admitted:
    """A code-track PR that passed every check made before any code runs (or derives a seed):
    its files, digest, metadata, time and remaining limits."""

    sources: dict[str, bytes]
    blobs: dict[str, str]
    digest: str
    meta: CodeMetadata
    now: datetime
    remaining: tuple[int, int]
    folder: Path
    board: CodeBoard


def admit_code_pr(admission: Admission, root: Path, now: datetime, event: PullEvent | None
                  ) -> CodeResult | Admitted:
    """Policy, files as data, metadata, duplicate and limits: shared by the keyed seed job
    and the judge, so neither does anything for a PR the other would refuse. A CodeResult is
    the answer without judging (superseded, or a re-run of recorded files)."""
    from evaluator.codetrack.problem import all_problems

    pull, rows = admission.pull, admission.rows
    moved = superseded(pull, event)
    if moved is not None:
        return CodeResult(**admission.base, status=SKIPPED, code="superseded", reason=moved)
    login = pull.author_login.lower()
    sub = check_code_files(admission.files, pull.author_login, problem_ids=all_problems(),
                           total_files=pull.changed_files)
    board = sub.board
    admission.slug = slug = board.slug
    solutions, meta_file = fetch_code_files(admission.client, pull.head_sha, sub)
    meta = parse_code_metadata(meta_file.data if meta_file else None, pull.author_login)
    sources = {f"{pid}.py": f.data for pid, f in solutions.items()}
    digest = digest_of(sources)
    earlier = next((r for r in rows if r["type"] == SUBMISSION and r["digest"] == digest), None)
    if earlier is not None:
        if not belongs(earlier, login, pull.author_id):
            raise Rejection("these exact solution files were already submitted by another "
                            "participant", code="copied")
        return CodeResult(**admission.base, status=ACCEPTED, slug=slug, row=earlier,
                          digest=digest, duplicate=True)
    if event is not None:
        now = event_time(admission.client, event, pull.number)
    remaining = check_eligibility(board, rows, login, now,  # type: ignore[arg-type]
                                  participant_id=pull.author_id)
    return Admitted(sources=sources, blobs={f"{pid}.py": f.blob_sha
                                            for pid, f in solutions.items()},
                    digest=digest, meta=meta, now=now, remaining=remaining,
                    folder=Path(root) / "competitions" / slug, board=board)


def _decide(admission: Admission, root: Path, per_cell: int | None, jobs: int, judge: Judge,
            now: datetime, event: PullEvent | None,
            case_seed: dict[str, Any] | None = None) -> CodeResult:
    from evaluator.codetrack.caseseed import commitment_path, current_commitment

    admitted = admit_code_pr(admission, root, now, event)
    if isinstance(admitted, CodeResult):
        return admitted
    pull, board, digest = admission.pull, admitted.board, admitted.digest
    slug = board.slug
    committed = current_commitment(admitted.folder, slug, board.version)
    if committed is not None and case_seed is None:
        raise ConfigError(f"{commitment_path(admitted.folder)} commits {slug} version "
                          f"{board.version} to secret cases, but no case seed was given: the "
                          "judge runs after the keyed seed job (`gnncb ci code seed`) and "
                          "takes its --case-seed file")
    if case_seed is not None and (case_seed.get("digest") != digest
                                  or case_seed.get("case_commitment") != committed):
        raise ConfigError(f"the case seed is for digest {str(case_seed.get('digest'))[:12]} "
                          f"under commitment {str(case_seed.get('case_commitment'))[:12]}, the "
                          f"PR's files hash to {digest[:12]} and the repository commits to "
                          f"{str(committed)[:12]}; re-run the workflow (the head or the "
                          "commitment moved between its jobs)")
    say(f"PR #{pull.number}: judging {len(admitted.sources)} solution(s) of "
        f"{pull.author_login.lower()}, digest {digest[:12]}, in the sandbox")
    row, feedback = judge(admitted.sources, participant=pull.author_login.lower(),
                          meta=admitted.meta, pr=pull.number,
                          per_cell=per_cell or board.per_cell, jobs=jobs,
                          **({"case_seed": case_seed} if case_seed is not None else {}))
    if row.get("digest") != digest:
        raise ConfigError(f"the judge scored digest {row.get('digest')}, the PR's files hash to "
                          f"{digest}; refusing to record")
    row = {**row, "participant_id": pull.author_id, "team": admitted.meta.team}
    if event is not None:
        row["submitted_at"] = stamp(admitted.now)
    return CodeResult(**admission.base, status=ACCEPTED, slug=slug, row=row, digest=digest,
                      files=admitted.blobs, remaining_version=admitted.remaining[0],
                      remaining_today=admitted.remaining[1], feedback=_feedback(feedback))
