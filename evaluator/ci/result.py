"""The only thing that passes from the scoring job to the publishing job: a small JSON verdict.

Why a strict schema: the publishing job holds a write token, so it treats the artifact as input
to validate, not as trusted state. It holds nothing secret (no key, no labels, no plaintext
predictions): accepted/rejected/skipped, the reason, the scores (only when eligible and scored)
and the ledger row to append, plus the envelope's blob id so the publisher can store the
ciphertext for later re-scoring.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evaluator.errors import ConfigError

SHA1 = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
SHA256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
ACCEPTED, REJECTED, SKIPPED = "accepted", "rejected", "skipped"


class ProblemItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: Annotated[str, Field(max_length=1000)]
    reason: Annotated[str, Field(max_length=1000)]


class Result(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = 1
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
    scores: dict[str, float] = {}
    duplicate: bool = False  # the same envelope was recorded from an earlier PR
    already_recorded: bool = False  # this PR's row is on the base branch; only answer it
    remaining_version: int | None = None
    remaining_today: int | None = None
    row: dict[str, Any] | None = None
    envelope_blob_sha: SHA1 | None = None
    digest: SHA256 | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Result:
        if self.status == ACCEPTED:
            if not (self.row and self.slug and self.digest):
                raise ValueError("an accepted result needs row, slug and digest")
            if not (self.envelope_blob_sha or self.already_recorded or self.duplicate):
                raise ValueError("a new accepted result needs envelope_blob_sha")
            row = self.row
            want = {"type": "submission", "digest": self.digest, "slug": self.slug,
                    "participant": self.author_login.lower()}
            if not self.duplicate:  # a duplicate carries the earlier PR's row
                want |= {"pr": self.pr, "participant_id": self.author_id}
            wrong = sorted(k for k, v in want.items() if row.get(k) != v)
            if wrong:
                raise ValueError(f"row fields {wrong} disagree with the result")
            if row.get("scores") != self.scores:
                raise ValueError("row scores disagree with the result")
        elif self.scores or self.row:
            raise ValueError(f"a {self.status} result carries no scores and no row")
        return self


def write_result(result: Result, path: Path) -> None:
    """Atomic write, so a half-written file never reaches the publisher."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".result-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(result.model_dump_json(indent=2) + "\n")
    os.replace(tmp, path)


def read_result(path: Path) -> Result:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: cannot read the scoring result: {err}") from None
    try:
        return Result.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(f"{path}: not a valid scoring result: {err}") from None
