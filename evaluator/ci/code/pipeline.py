"""The code track's pull-request pipeline: judge (no secrets) and publish (no participant code).

A participant adds `competitions/<board>/submissions/<login>/solutions/<problem id>.py` files
(plain source) and an optional `metadata.json`. Two phases, as in the encrypted pipeline
(evaluator/ci/predictions/score.py, publish.py), whose pieces this module reuses:

- `judge_code_pr` (read-only token, no secret): path policy on the API's file list; the files
  read at the head commit as DATA (tree walk, modes, sizes, git blob ids: evaluator/ci/fetch.py);
  metadata validated; duplicate and submission-limit checks BEFORE any code runs; then the
  solutions are written to a temporary folder and judged by `gnncb code submit-score`'s
  `score_submission` on cases seeded by their digest, inside the sandbox with
  `require_sandbox=True` (a runner that cannot isolate fails the job; nothing is recorded).
  Output: a small `CodeResult` JSON (the artifact).
- `publish_code_result` (write token, runs no participant code): validates the artifact,
  re-downloads the blobs to check they hash to the judged digest, appends the ledger row,
  re-renders every board, commits with rebase-retry (gitops), answers once (marker), labels,
  closes.

Why a separate result model: a code-track verdict carries different evidence (file blob ids,
pass counts, failing-case feedback) and its own plausibility rules (seed derived from the
digest, counts that add up, full isolation); keeping it apart means neither publisher can be fed
the other pipeline's artifact.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evaluator.ci.comment import (
    HINTS,
    _link,
    bounded,
    find_answer,
    marker,
    render_rejection,
)
from evaluator.ci.fetch import REGULAR_MODES, FetchedFile, HeadMoved, fetch_blob, folder_entries
from evaluator.ci.github import ChangedFile, GitHubClient, TreeEntry
from evaluator.ci.logs import say
from evaluator.ci.policy import (
    PLATFORM_FILES,
    PLATFORM_PREFIXES,
    PolicyRejection,
    Problem,
    second_submission_problems,
    sort_files,
)
from evaluator.ci.predictions.publish import Published, finish_publishing, start_publishing
from evaluator.ci.predictions.score import _check_author
from evaluator.ci.result import ACCEPTED, REJECTED, SKIPPED, ProblemItem, write_result
from evaluator.codetrack.board import BOARDS, CodeBoard, boards_in
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.ranking import standing_of
from evaluator.ledger.store import SUBMISSION, Ledger
from evaluator.pipeline.evaluate import check_eligibility
from evaluator.render.boards import environment
from evaluator.repo.gitops import Change, commit_and_push
from evaluator.repo.record import ledger_path, rerender
from evaluator.submission.metadata import STRICT
from evaluator.util import jsonsafe

SHA1 = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
SHA256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
PR_ENTRANTS = ("human",)  # other kinds are the platform's own runs (evaluator.submission.identity)
METADATA = "metadata.json"
CODE_PATH = re.compile(r"competitions/([^/]+)/submissions/([^/]+)/(.+)")
SOLUTION_PATH = re.compile(r"solutions/([^/]+)\.py")
FEEDBACK_ITEMS = 5
FEEDBACK_CHARS = 300

_LAYOUT = ("Open a new pull request that only adds `solutions/<problem id>.py` files (and, "
           "optionally, `metadata.json`) under `competitions/graph-coding/submissions/"
           "<your-login>/` (see competitions/graph-coding/README.md).")
CODE_HINTS = {
    **{code: _LAYOUT for code in ("unsafe-path", "outside-submission", "platform-path",
                                  "deletion", "rename", "unsupported-change", "extra-file",
                                  "missing-file")},
    **{code: HINTS[code] for code in ("other-participant", "two-submissions", "wrong-base",
                                      "invalid-author", "identity-mismatch", "over-limit")},
    "unknown-problem": "Name each file after a problem id that `gnncb code problems` lists, "
                       "e.g. `solutions/lc207.py`.",
    "symlink": "Commit the source file itself, not a symbolic link to it.",
    "not-a-file": "Commit each solution as a regular file.",
    "too-large": "Solutions are short programs: keep each file under 64 KiB and all of them "
                 "under 512 KiB (no embedded data).",
    "invalid-solution": "Save each solution as UTF-8 Python source.",
    "invalid-metadata": "Fix metadata.json: an object with `method` (and optionally `model`, "
                        "`team`, `notes`); a pull request is always entrant `human`.",
    "copied": "Submit solutions you wrote yourself; these exact files were already submitted "
              "by another participant.",
}


# -- path policy --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CodeFiles:
    """The files of one code-track submission, as the PR lists them."""

    board: CodeBoard
    folder: str  # competitions/<slug>/submissions/<login>
    login: str
    solutions: dict[str, ChangedFile]  # problem id -> file
    metadata: ChangedFile | None


def _location_problem(f: ChangedFile, author: str, problem_ids: Iterable[str]) -> Problem | None:
    path = f.filename
    if path.startswith(PLATFORM_PREFIXES) or path in PLATFORM_FILES:
        return Problem(path, "changes the platform itself (workflows, evaluator, templates, "
                             "keys, leaderboard or docs); submission PRs may not do that",
                       "platform-path")
    m = CODE_PATH.fullmatch(path)
    if not m or m.group(1) not in BOARDS:
        return Problem(path, "is outside competitions/graph-coding/submissions/"
                             f"{author}/; a code-track pull request changes nothing else",
                       "outside-submission")
    slug, login, rest = m.groups()
    if login.lower() != author.lower():
        return Problem(path, f"is in {login!r}'s folder, but this PR is by {author!r}; use "
                             f"competitions/{slug}/submissions/{author}/", "other-participant")
    if rest == METADATA:
        return None
    s = SOLUTION_PATH.fullmatch(rest)
    if s is None:
        return Problem(path, "extra file; a code-track submission holds only "
                             "solutions/<problem id>.py files and an optional metadata.json",
                       "extra-file")
    if s.group(1) not in set(problem_ids):
        return Problem(path, f"there is no problem {s.group(1)!r}; name solution files after "
                             "problem ids (`gnncb code problems`)", "unknown-problem")
    return None


def check_code_files(files: Iterable[ChangedFile], author: str, *, problem_ids: Iterable[str],
                     total_files: int | None = None) -> CodeFiles:
    """The PR's submission files, or PolicyRejection listing every offending path."""
    files = list(files)
    ids = list(problem_ids)
    good, problems = sort_files(files, lambda f: _location_problem(f, author, ids))
    if total_files is not None and total_files > len(files):
        problems.append(Problem("(more files)", f"the PR changes {total_files} files; a "
                                f"submission has at most {len(ids) + 1}", "extra-file"))
    folders = sorted({"/".join(f.filename.split("/")[:4]) for f in good})
    problems.extend(second_submission_problems(good, folders))
    if problems:
        raise PolicyRejection(problems)
    solutions = {f.filename.rsplit("/", 1)[1].removesuffix(".py"): f
                 for f in good if not f.filename.endswith("/" + METADATA)}
    if not solutions:
        where = folders[0] if folders else f"competitions/graph-coding/submissions/{author}"
        raise PolicyRejection([Problem(f"{where}/solutions/", "holds no solution; add at least "
                                       "one solutions/<problem id>.py", "missing-file")])
    folder = folders[0]
    metadata = next((f for f in good if f.filename.endswith("/" + METADATA)), None)
    return CodeFiles(board=BOARDS[folder.split("/")[1]], folder=folder,
                     login=folder.split("/")[3], solutions=solutions, metadata=metadata)


# -- reading the files as data ------------------------------------------------------------------


def _checked_entry(entries: Mapping[str, TreeEntry], f: ChangedFile, head_sha: str,
                   limit: int) -> TreeEntry:
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
    if entry.size is not None and entry.size > limit:
        raise Rejection(f"{f.filename!r} is {entry.size:,} bytes; the limit is {limit:,}",
                        code="too-large")
    return entry


def fetch_code_files(client: GitHubClient, head_sha: str,
                     sub: CodeFiles) -> tuple[dict[str, FetchedFile], FetchedFile | None]:
    """(problem id -> solution, metadata) at the head commit, after mode/size/hash checks.

    Every entry is checked (one tree walk per folder) before anything is downloaded, so a
    symlink or an oversize file costs no download.
    """
    board = sub.board
    checked: list[tuple[str | None, ChangedFile, TreeEntry, int]] = []
    if sub.metadata is not None:
        entries = folder_entries(client, head_sha, sub.folder)
        checked.append((None, sub.metadata, _checked_entry(entries, sub.metadata, head_sha,
                                                           board.max_metadata_bytes),
                        board.max_metadata_bytes))
    entries = folder_entries(client, head_sha, f"{sub.folder}/solutions")
    for pid, f in sorted(sub.solutions.items()):
        checked.append((pid, f, _checked_entry(entries, f, head_sha, board.max_solution_bytes),
                        board.max_solution_bytes))
    total = sum(e.size or 0 for pid, _, e, _ in checked if pid is not None)
    if total > board.submission.max_bytes:
        raise Rejection(f"the solutions add up to {total:,} bytes; the limit is "
                        f"{board.submission.max_bytes:,}", code="too-large")
    solutions: dict[str, FetchedFile] = {}
    metadata = None
    for pid, f, entry, limit in checked:
        data = fetch_blob(client, entry.sha, f.filename, entry.size)
        if len(data) > limit:  # the tree did not report a size
            raise Rejection(f"{f.filename!r} is {len(data):,} bytes; the limit is {limit:,}",
                            code="too-large")
        fetched = FetchedFile(path=f.filename, blob_sha=entry.sha, data=data)
        if pid is None:
            metadata = fetched
        else:
            solutions[pid] = fetched
    total = sum(len(f.data) for f in solutions.values())
    if total > board.submission.max_bytes:
        raise Rejection(f"the solutions add up to {total:,} bytes; the limit is "
                        f"{board.submission.max_bytes:,}", code="too-large")
    for f in solutions.values():
        try:
            text = f.data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise Rejection(f"{f.path!r} is not UTF-8 text ({err.reason} at byte {err.start})",
                            code="invalid-solution") from None
        if "\x00" in text:
            raise Rejection(f"{f.path!r} contains NUL bytes; Python source cannot",
                            code="invalid-solution")
    return solutions, metadata


# -- metadata -----------------------------------------------------------------------------------

Text = Annotated[str, Field(max_length=200)]


class CodeMetadata(BaseModel):
    """What a code-track submission may declare about itself (identity comes from the PR)."""

    model_config = STRICT
    participant: Text | None = None
    entrant: str = "human"
    method: Text = ""
    model: Text = ""
    team: Text = ""
    notes: Annotated[str, Field(max_length=2000)] = ""

    @model_validator(mode="after")
    def _human_only(self) -> CodeMetadata:
        """A pull request is a human's: LLM and baseline rows come from the platform's own
        runs only, so nobody can pose as an LLM and taint the human-vs-LLM comparison."""
        if self.entrant != "human":
            raise ValueError(f"entrant {self.entrant[:40]!r} is reserved for the platform's own "
                             "runs; a pull request always submits as 'human' (describe any "
                             "LLM help in 'method' or 'notes')")
        return self


def parse_code_metadata(data: bytes | None, author: str,
                        filename: str = METADATA) -> CodeMetadata:
    if data is None:
        return CodeMetadata()
    try:
        raw = jsonsafe.loads_bytes(data)
    except jsonsafe.UntrustedJSON as err:
        raise Rejection(f"{filename} is not acceptable JSON: {err}",
                        code="invalid-metadata") from None
    if not isinstance(raw, dict):
        raise Rejection(f"{filename} must hold a JSON object", code="invalid-metadata")
    try:
        meta = CodeMetadata.model_validate(raw)
    except ValidationError as err:
        lines = "\n".join(f"  - {'.'.join(map(str, e['loc'])) or '(top level)'}: "
                          f"{e['msg'].removeprefix('Value error, ')}" for e in err.errors())
        raise Rejection(f"{filename} does not match the code-track metadata schema:\n{lines}",
                        code="invalid-metadata") from None
    if meta.participant is not None and meta.participant.lower() != author.lower():
        raise Rejection(f"{filename} names participant {meta.participant!r} but the pull "
                        f"request is by {author!r}", code="invalid-metadata")
    return meta


def digest_of(sources: Mapping[str, bytes]) -> str:
    """The submission's identity and seed source; byte-for-byte the same function as
    `codetrack.submission.submission_digest` (which reads files), over `<pid>.py` names."""
    h = hashlib.sha256()
    for name in sorted(sources):
        h.update(name.encode() + b"\0" + sources[name] + b"\0")
    return h.hexdigest()


# -- the verdict --------------------------------------------------------------------------------


class FeedbackItem(BaseModel):
    """One failing case shown on the PR (inputs of this submission's own cases only)."""

    model_config = ConfigDict(extra="forbid")
    problem: Annotated[str, Field(max_length=32)]
    cell: Annotated[str, Field(max_length=64)] = ""
    verdict: Annotated[str, Field(max_length=32)]
    detail: Annotated[str, Field(max_length=FEEDBACK_CHARS + 20)] = ""
    input: Annotated[str, Field(max_length=FEEDBACK_CHARS + 20)] = ""
    expected: Annotated[str, Field(max_length=FEEDBACK_CHARS + 20)] = ""
    actual: Annotated[str, Field(max_length=FEEDBACK_CHARS + 20)] | None = None


class CodeResult(BaseModel):
    """What passes from the judge job to the publish job (validated again on reading)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
    kind: Literal["code"]  # required: an encrypted-pipeline result cannot pass for this one
    repo: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")]
    pr: Annotated[int, Field(ge=1)]
    head_sha: SHA1 | None = None
    author_login: Annotated[str, Field(max_length=100)]
    author_id: int | None = None
    status: Literal["accepted", "rejected", "skipped"]
    code: Annotated[str, Field(max_length=64)] = ""
    reason: Annotated[str, Field(max_length=20000)] = ""
    problems: list[ProblemItem] = []
    slug: str | None = None
    digest: SHA256 | None = None
    files: dict[Annotated[str, Field(pattern=r"^[a-z0-9_]{1,32}\.py$")], SHA1] = {}
    row: dict[str, Any] | None = None
    duplicate: bool = False  # the same files were recorded from an earlier PR of this author
    already_recorded: bool = False  # this PR's row is on the base branch; only answer it
    remaining_version: int | None = None
    remaining_today: int | None = None
    feedback: Annotated[list[FeedbackItem], Field(max_length=FEEDBACK_ITEMS)] = []

    @model_validator(mode="after")
    def _consistent(self) -> CodeResult:
        if self.status != ACCEPTED:
            if self.row or self.files or self.feedback:
                raise ValueError(f"a {self.status} result carries no row, files or feedback")
            return self
        if not (self.row and self.slug and self.digest):
            raise ValueError("an accepted result needs row, slug and digest")
        if self.slug not in BOARDS:
            raise ValueError(f"{self.slug!r} is not a code-track competition")
        row = self.row
        want: dict[str, Any] = {"type": SUBMISSION, "digest": self.digest, "slug": self.slug,
                                "participant": self.author_login.lower()}
        fresh = not (self.duplicate or self.already_recorded)  # else the row is on main
        if fresh:
            want |= {"pr": self.pr, "participant_id": self.author_id}
            if {f"{pid}.py" for pid in row.get("per_problem", {})} != set(self.files):
                raise ValueError("the judged problems and the submitted files differ")
        wrong = sorted(k for k, v in want.items() if row.get(k) != v)
        if wrong:
            raise ValueError(f"row fields {wrong} disagree with the result")
        if fresh:
            check_row(row, BOARDS[self.slug])
        return self


def check_row(row: Mapping[str, Any], board: CodeBoard) -> None:
    """Plausibility of a judged row, checkable without running anything: the seed is the
    digest's, the counts add up over the planned cases, the judge ran fully isolated."""
    try:
        _check_row(row, board)
    except (KeyError, TypeError, AttributeError) as err:  # a malformed (forged) row
        raise ValueError(f"malformed row: {type(err).__name__}: {err}") from None


def _check_row(row: Mapping[str, Any], board: CodeBoard) -> None:
    from evaluator.codetrack.cases import make_plan, seed_from_digest
    from evaluator.codetrack.problem import all_problems

    if row.get("version") != board.version:
        raise ValueError(f"row version {row.get('version')} is not {board.version}")
    if row.get("entrant") not in PR_ENTRANTS:
        raise ValueError(f"entrant {row.get('entrant')!r} is not one of {PR_ENTRANTS}")
    declared = row.get("declared") or {}
    if declared.get("seed_source") != "digest" or row.get("seed") != seed_from_digest(
            row["digest"]):
        raise ValueError("the row's cases are not seeded by its digest")
    if declared.get("isolation") != ["full"]:
        raise ValueError(f"the row was judged with isolation {declared.get('isolation')}, "
                         "not fully sandboxed")
    scores, per = row.get("scores") or {}, row.get("per_problem") or {}
    registry = all_problems()
    if not per or set(per) - set(registry):
        raise ValueError("per_problem must name known problems")
    plan = make_plan("paper", registry.values(), int(declared.get("per_cell", 0)) or None)
    cases = sum(int(per[p]["cases"]) if p in per else sum(plan[p].values()) for p in registry)
    passed = sum(int(v["passed"]) for v in per.values())
    if any(not 0 <= int(v["passed"]) <= int(v["cases"]) for v in per.values()):
        raise ValueError("per_problem passes out of range")
    if (scores.get("cases"), scores.get("passed"), scores.get("problems")) != (
            cases, passed, len(registry)):
        raise ValueError("the row's case counts do not add up")
    if not math.isclose(float(scores.get("pass_rate", -1)), passed / cases, abs_tol=1e-12):
        raise ValueError("pass_rate is not passed / cases")
    solved = sum(1 for v in per.values() if int(v["passed"]) == int(v["cases"]) > 0)
    if scores.get("problems_solved") != solved:
        raise ValueError("problems_solved does not match per_problem")
    # the interval is a function of the counts just checked: recompute it, believe nothing
    from evaluator.codetrack.intervals import row_interval

    if (row.get("intervals") or {}).get("pass_rate") != row_interval(
            row, slug=board.slug, version=board.version):
        raise ValueError("the row's pass-rate interval is not the one its counts give")


def write_code_result(result: CodeResult, path: Path) -> None:
    """Atomic write, readable by the (unprivileged) artifact upload after a root judge."""
    write_result(result, path)  # type: ignore[arg-type] - any pydantic model serialises
    os.chmod(path, 0o644)


def read_code_result(path: Path) -> CodeResult:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: cannot read the judging result: {err}") from None
    try:
        return CodeResult.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(f"{path}: not a valid code-track result: {err}") from None


# -- phase 1: judge -----------------------------------------------------------------------------

Judge = Callable[..., tuple[dict[str, Any], list[dict[str, Any]]]]


def sandbox_judge(sources: Mapping[str, bytes], *, participant: str, meta: CodeMetadata,
                  pr: int, per_cell: int, jobs: int) -> tuple[dict[str, Any], list[dict]]:
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
            config=JudgeConfig(measure_memory=False, require_sandbox=True))
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
                  now: datetime | None = None) -> CodeResult:
    """The verdict for code-track PR `number`. ConfigError/GitHubError: platform failures."""
    try:
        return _decide(client, number, Path(root), bot_login, per_cell, jobs, judge,
                       now or datetime.now(UTC))
    except ValidationError as err:  # a verdict that fails its own schema is our bug
        raise ConfigError(f"PR #{number}: refusing to write an inconsistent verdict: "
                          f"{err}") from None


def _decide(client: GitHubClient, number: int, root: Path, bot_login: str,
            per_cell: int | None, jobs: int, judge: Judge, now: datetime) -> CodeResult:
    from evaluator.codetrack.problem import all_problems

    pull = client.pull(number)
    base: dict[str, Any] = {"kind": "code", "repo": client.repo_name, "pr": number,
                            "head_sha": pull.head_sha, "author_login": pull.author_login,
                            "author_id": pull.author_id}
    if pull.state != "open":
        return CodeResult(**base, status=SKIPPED, code="closed",
                          reason=f"pull request #{number} is {pull.state}; nothing to judge")
    if find_answer(client.comments(number), bot_login) is not None:
        return CodeResult(**base, status=SKIPPED, code="already-answered",
                          reason=f"pull request #{number} already has the bot's answer")
    rows = Ledger(ledger_path(root)).rows()
    login = pull.author_login.lower()
    recorded = next((r for r in rows if r["type"] == SUBMISSION and r["slug"] in BOARDS
                     and r.get("pr") == number and r["participant"].lower() == login
                     and r.get("participant_id") == pull.author_id), None)
    if recorded is not None:  # an earlier run committed the row but did not get to answer
        return CodeResult(**base, status=ACCEPTED, slug=recorded["slug"], row=recorded,
                          digest=recorded["digest"], already_recorded=True)
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
                            "run for the new commit judges it")
        sub = check_code_files(files, pull.author_login, problem_ids=all_problems(),
                               total_files=pull.changed_files)
        board, slug = sub.board, sub.board.slug
        solutions, meta_file = fetch_code_files(client, pull.head_sha, sub)
        meta = parse_code_metadata(meta_file.data if meta_file else None, pull.author_login)
        sources = {f"{pid}.py": f.data for pid, f in solutions.items()}
        digest = digest_of(sources)
        earlier = next((r for r in rows if r["type"] == SUBMISSION and r["digest"] == digest),
                       None)
        if earlier is not None:
            if earlier["participant"].lower() != login:
                raise Rejection("these exact solution files were already submitted by another "
                                "participant", code="copied")
            return CodeResult(**base, status=ACCEPTED, slug=slug, row=earlier, digest=digest,
                              duplicate=True)
        remaining = check_eligibility(board, rows, login, now)  # type: ignore[arg-type]
        say(f"PR #{number}: judging {len(sources)} solution(s) of {login}, digest "
            f"{digest[:12]}, in the sandbox")
        row, feedback = judge(sources, participant=login, meta=meta, pr=number,
                              per_cell=per_cell or board.per_cell, jobs=jobs)
    except PolicyRejection as err:
        return CodeResult(**base, status=REJECTED, code=err.code,
                          reason=str(err).splitlines()[0],
                          problems=[ProblemItem(path=p.path[:1000], reason=p.reason[:1000])
                                    for p in err.problems])
    except Rejection as err:
        return CodeResult(**base, status=REJECTED, code=err.code, reason=str(err)[:20000],
                          slug=slug)
    if row.get("digest") != digest:
        raise ConfigError(f"the judge scored digest {row.get('digest')}, the PR's files hash to "
                          f"{digest}; refusing to record")
    row = {**row, "participant_id": pull.author_id, "team": meta.team}
    return CodeResult(**base, status=ACCEPTED, slug=slug, row=row, digest=digest,
                      files={f"{pid}.py": f.blob_sha for pid, f in solutions.items()},
                      remaining_version=remaining[0], remaining_today=remaining[1],
                      feedback=_feedback(feedback))


# -- phase 2: publish ---------------------------------------------------------------------------


def record_code_row(root: Path, row: dict[str, Any], message: str) -> Change | None:
    """Append `row` (idempotent by digest) and re-render; None when it is already recorded."""
    root = Path(root)
    ledger = Ledger(ledger_path(root))
    if any(r["type"] == SUBMISSION and r["digest"] == row["digest"] for r in ledger.rows()):
        return None
    ledger.append(row)
    pages = rerender(root, changed=[row["slug"]],
                     boards=boards_in(Path(root) / "competitions"))
    return Change(paths=[str(p.relative_to(root)) for p in [ledger.path, *pages]],
                  message=message)


def commit_message(result: CodeResult, run_url: str | None) -> str:
    s = (result.row or {}).get("scores", {})
    lines = [f"leaderboard: record {result.author_login.lower()} on {result.slug} "
             f"(PR #{result.pr})", "",
             f"Solutions {result.digest}",
             f"Pass rate: {100 * float(s.get('pass_rate', 0)):.2f} % "
             f"({s.get('passed')}/{s.get('cases')} cases)"]
    if run_url:
        lines.append(f"Workflow run: {run_url}")
    return "\n".join(lines) + "\n"


def verify_files(client: GitHubClient, result: CodeResult) -> None:
    """The blobs named in the artifact hash to the digest that was judged (read as data)."""
    sources = {name: fetch_blob(client, sha, name, None) for name, sha in result.files.items()}
    if digest_of(sources) != result.digest:
        raise ConfigError(f"the submitted files do not hash to the judged digest "
                          f"{result.digest}; refusing to publish")


def render_code_answer(result: CodeResult, *, server_url: str, branch: str,
                       run_url: str | None, rank: int | None = None,
                       entries: int | None = None) -> str:
    """Markdown body of the answer (escaped by the environment's finalize)."""
    env = environment()
    base = f"{server_url.rstrip('/')}/{result.repo}"
    slug = result.slug or "graph-coding"
    context: dict[str, Any] = {
        "marker": marker(result.status, result.pr), "login": result.author_login,
        "slug": result.slug, "run_url": _link(run_url) if run_url else None,
        "participants_doc": _link(f"{base}/blob/{branch}/competitions/{slug}/README.md"),
    }
    if result.status == ACCEPTED:
        row = result.row or {}
        s = row.get("scores", {})
        per = row.get("per_problem", {})
        context |= {
            "pass_rate": Markup(f"{100 * float(s.get('pass_rate', 0)):.2f} %"),  # noqa: S704
            "passed": int(s.get("passed", 0)), "cases": int(s.get("cases", 0)),
            "solved": int(s.get("problems_solved", 0)), "problems": int(s.get("problems", 0)),
            "per_problem": [{"id": pid, "passed": int(v["passed"]), "cases": int(v["cases"])}
                            for pid, v in sorted(per.items())],
            "unsolved": int(s.get("problems", 0)) - len(per),
            "feedback": [f.model_dump() for f in result.feedback],
            "duplicate": result.duplicate, "earlier_pr": row.get("pr"),
            "rank": rank, "entries": entries, "version": row.get("version"),
            "remaining_version": result.remaining_version,
            "remaining_today": result.remaining_today,
            "digest": (result.digest or "")[:12], "entrant": row.get("entrant", ""),
            "scored_at": row.get("scored_at", ""),
            "leaderboard": _link(f"{base}/blob/{branch}/leaderboard/{slug}.md"),
        }
        body = env.get_template("pr_comment_code_accepted.md.j2").render(**context)
    else:
        body = render_rejection(env, context, result, CODE_HINTS)
    return bounded(body, context["marker"])


def publish_code_result(client: GitHubClient, result: CodeResult, *, root: Path,
                        remote: str = "origin", branch: str = "main", bot_login: str,
                        server_url: str = "https://github.com", run_url: str | None = None,
                        git_env: Mapping[str, str] | None = None, push_attempts: int = 5,
                        sleep: Callable[[float], None] = time.sleep) -> Published:
    """Record, render, commit, answer, label, close; every step idempotent (see publish.py)."""
    pull, answer, skipped = start_publishing(client, result, bot_login)
    if skipped is not None:
        return skipped

    push = rank = entries = None
    if result.status == ACCEPTED:
        assert result.row is not None and result.slug
        board = BOARDS[result.slug]
        if not (result.duplicate or result.already_recorded):
            verify_files(client, result)
            row = result.row
            push = commit_and_push(
                Path(root), lambda: record_code_row(root, row, commit_message(result, run_url)),
                remote=remote, branch=branch, attempts=push_attempts, sleep=sleep, env=git_env)
            say(f"PR #{result.pr}: recorded {(result.digest or '')[:12]} "
                f"(pushed={push.pushed}, attempts={push.attempts})")
        rows = Ledger(ledger_path(root)).rows()
        rank, entries = standing_of(board, rows, result.author_login)  # type: ignore[arg-type]

    return finish_publishing(
        client, result, pull=pull, answer=answer, bot_login=bot_login,
        render=lambda: render_code_answer(result, server_url=server_url, branch=branch,
                                          run_url=run_url, rank=rank, entries=entries),
        push=push, rank=rank, entries=entries)
