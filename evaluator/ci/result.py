"""The only thing that passes from the scoring job to the publishing job: a small JSON verdict.

Why a strict schema: the publishing job holds a write token, so it treats the artifact as input
to validate, not as trusted state. It holds nothing secret (no key, no labels, no plaintext
predictions): accepted/rejected/skipped, the reason, the scores (only when eligible and scored)
and the ledger row to append, plus the envelope's blob id so the publisher can store the
ciphertext for later re-scoring.

Why a base model: both pull-request pipelines (predictions here, the code track in
`evaluator.ci.code.result`) hand over the same verdict fields under the same rules;
`ResultBase` holds them once, so neither a field nor a check can drift between the two.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any, ClassVar, Final, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from evaluator.errors import ConfigError

SHA1 = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
SHA256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
ACCEPTED: Final = "accepted"
REJECTED: Final = "rejected"
SKIPPED: Final = "skipped"


class ProblemItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: Annotated[str, Field(max_length=1000)]
    reason: Annotated[str, Field(max_length=1000)]


class ResultBase(BaseModel):
    """The fields and checks every pull-request verdict has, whichever pipeline wrote it.

    `JSON_ORDER` is a model's key order in its artifact: pydantic would put inherited fields
    first, but each pipeline's artifacts (and what reads them) had their own order before this
    base existed, so the order is stated, checked to name every field once, and kept byte for
    byte. `TAG` holds the fields that name the pipeline: required on reading, so one
    pipeline's artifact never validates as the other's.
    """

    model_config = ConfigDict(extra="forbid")
    JSON_ORDER: ClassVar[tuple[str, ...]] = ()
    TAG: ClassVar[dict[str, str]] = {}

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
    digest: SHA256 | None = None
    row: dict[str, Any] | None = None
    duplicate: bool = False  # the same submission was recorded from an earlier PR
    already_recorded: bool = False  # this PR's row is on the base branch; only answer it
    remaining_version: int | None = None
    remaining_today: int | None = None

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if sorted(cls.JSON_ORDER) != sorted(cls.model_fields):
            raise TypeError(f"{cls.__name__}.JSON_ORDER must name each of its fields once")

    @model_serializer(mode="wrap")
    def _in_json_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        return {key: data[key] for key in self.JSON_ORDER if key in data}

    @classmethod
    def recorded_fields(cls, row: dict[str, Any]) -> dict[str, Any]:
        """What a verdict for an already-recorded row repeats of it beyond slug and digest."""
        return {}

    @model_validator(mode="after")
    def _accepted_names_its_row(self) -> ResultBase:
        """Runs before each model's own checks (pydantic runs a base's validators first)."""
        if self.status == ACCEPTED and not (self.row and self.slug and self.digest):
            raise ValueError("an accepted result needs row, slug and digest")
        return self

    def check_row_identity(self, *, own: bool) -> None:
        """The row is a submission by this author with this digest on this competition and,
        when it is this PR's `own` row, from this PR and this GitHub account."""
        row = self.row or {}
        want: dict[str, Any] = {"type": "submission", "digest": self.digest, "slug": self.slug}
        if own:
            want |= {"pr": self.pr, "participant_id": self.author_id}
        wrong = sorted(k for k, v in want.items() if row.get(k) != v)
        # a row scored in this run carries the login it was scored under; a row already on
        # the default branch may carry the login the same account had then (a rename is the
        # same person)
        recorded_earlier = self.duplicate or self.already_recorded
        if (row.get("participant") != self.author_login.lower()
                and not (recorded_earlier and row.get("participant_id") == self.author_id)):
            wrong = sorted([*wrong, "participant"])
        if wrong:
            raise ValueError(f"row fields {wrong} disagree with the result")


class Result(ResultBase):
    """The predictions pipeline's verdict."""

    JSON_ORDER = ("schema_version", "repo", "pr", "head_sha", "author_login", "author_id",
                  "status", "code", "reason", "problems", "slug", "scores", "duplicate",
                  "already_recorded", "remaining_version", "remaining_today", "row",
                  "envelope_blob_sha", "digest")

    scores: dict[str, float] = {}
    envelope_blob_sha: SHA1 | None = None

    @classmethod
    def recorded_fields(cls, row: dict[str, Any]) -> dict[str, Any]:
        return {"scores": row["scores"]}

    @model_validator(mode="after")
    def _consistent(self) -> Result:
        if self.status == ACCEPTED:
            if not (self.envelope_blob_sha or self.already_recorded or self.duplicate):
                raise ValueError("a new accepted result needs envelope_blob_sha")
            self.check_row_identity(own=not self.duplicate)  # a duplicate: the earlier PR's row
            if (self.row or {}).get("scores") != self.scores:
                raise ValueError("row scores disagree with the result")
        elif self.scores or self.row:
            raise ValueError(f"a {self.status} result carries no scores and no row")
        return self


V = TypeVar("V", bound=ResultBase)


def write_result(result: ResultBase, path: Path) -> None:
    """Atomic write, so a half-written file never reaches the publisher."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".result-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(result.model_dump_json(indent=2) + "\n")
    os.replace(tmp, path)


def load_result(path: Path, model: type[V], *, reading: str, valid: str) -> V:
    """`model` read from `path`; ConfigError naming what was being read when it is not one."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: cannot read the {reading}: {err}") from None
    try:
        return model.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(f"{path}: not a valid {valid}: {err}") from None


def read_result(path: Path) -> Result:
    return load_result(path, Result, reading="scoring result", valid="scoring result")
