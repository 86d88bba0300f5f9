"""The code track's verdict: what passes from the judge job to the publish job.

Why its own model on the shared base (`evaluator.ci.result.ResultBase`): a code-track verdict
carries different evidence (file blob ids, pass counts, failing-case feedback) and its own
plausibility rules (seed derived from the digest, or drawn under a case commitment; counts
that add up, full isolation), all
checkable without running anything; the required `kind` means neither publisher can be fed the
other pipeline's artifact.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evaluator.ci.result import ACCEPTED, SHA1, ResultBase, load_result, write_result
from evaluator.codetrack.board import BOARDS, CodeBoard

PR_ENTRANTS = ("human",)  # other kinds are the platform's own runs (evaluator.submission.identity)
FEEDBACK_ITEMS = 5
FEEDBACK_CHARS = 300


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


class CodeResult(ResultBase):
    """What passes from the judge job to the publish job (validated again on reading)."""

    JSON_ORDER = ("schema_version", "kind", "repo", "pr", "head_sha", "author_login",
                  "author_id", "status", "code", "reason", "problems", "slug", "digest", "files",
                  "row", "duplicate", "already_recorded", "remaining_version", "remaining_today",
                  "feedback")
    TAG = {"kind": "code"}

    kind: Literal["code"]  # required: an encrypted-pipeline result cannot pass for this one
    files: dict[Annotated[str, Field(pattern=r"^[a-z0-9_]{1,32}\.py$")], SHA1] = {}
    feedback: Annotated[list[FeedbackItem], Field(max_length=FEEDBACK_ITEMS)] = []

    @model_validator(mode="after")
    def _consistent(self) -> CodeResult:
        if self.status != ACCEPTED:
            if self.row or self.files or self.feedback:
                raise ValueError(f"a {self.status} result carries no row, files or feedback")
            return self
        if self.slug not in BOARDS:
            raise ValueError(f"{self.slug!r} is not a code-track competition")
        row = self.row or {}
        fresh = not (self.duplicate or self.already_recorded)  # else the row is on main
        if fresh and {f"{pid}.py" for pid in row.get("per_problem", {})} != set(self.files):
            raise ValueError("the judged problems and the submitted files differ")
        self.check_row_identity(own=fresh)
        if fresh:
            check_row(row, BOARDS[self.slug])
        return self


def check_row(row: Mapping[str, Any], board: CodeBoard) -> None:
    """Plausibility of a judged row, checkable without running anything: the seed is the
    digest's (or drawn under a case commitment, which publish compares with the
    repository's), the counts add up over the planned cases, the judge ran fully isolated."""
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
    from evaluator.codetrack.caseseed import FIELD, SOURCE

    declared = row.get("declared") or {}
    source = declared.get("seed_source")
    if source == SOURCE:  # the seed itself is checkable only after the reveal (gnncb verify)
        if type(row.get("seed")) is not int or not isinstance(row.get(FIELD), str):
            raise ValueError(f"a row seeded by the secret needs an integer seed and {FIELD}")
    elif source != "digest" or row.get("seed") != seed_from_digest(row["digest"]):
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
    write_result(result, path)
    os.chmod(path, 0o644)


def read_code_result(path: Path) -> CodeResult:
    return load_result(path, CodeResult, reading="judging result", valid="code-track result")
