"""`metadata.json`: what a submission declares about itself.

Why validated: GNN-CB asked participants to document runtime, hardware and tuning runs, but
nothing checked the file, so reports could not rely on it. Identity is never taken from here:
the participant field must equal the authenticated identity (PR author / envelope claim).
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from evaluator.errors import Rejection
from evaluator.submission import identity
from evaluator.util import jsonsafe

# GitHub login rules: alphanumerics and single hyphens, not at the ends, at most 39 characters.
LOGIN_RE = identity.LOGIN_RE
ENTRANTS = identity.ENTRANTS
MAX_METADATA_BYTES = 64 * 1024

Text = Annotated[str, Field(max_length=200)]
# JSON types exactly as written (no `true` or `1.0` for an integer), finite numbers only, and
# bounds that keep every declared number meaningful and JSON-portable (64-bit).
STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
Count = Annotated[int, Field(ge=0, le=10**12)]


def check_login(value: str) -> str:
    """GitHub's login rules (pydantic's Rust regex has no look-ahead, so `re` does it)."""
    if not re.fullmatch(LOGIN_RE, value):
        raise ValueError(f"{value!r} is not a GitHub login (letters, digits, single inner "
                         "hyphens, at most 39 characters)")
    return value


Login = Annotated[str, AfterValidator(check_login)]


def check_visible(value: str) -> str:
    """A method must show something: spaces, zero-width and control characters render blank."""
    if not any(not ch.isspace() and unicodedata.category(ch)[0] not in "CZ" for ch in value):
        raise ValueError("must contain a visible character (it is shown on the leaderboard)")
    return value


class LLMRun(BaseModel):
    """Facts recorded by the LLM track about how the predictions were produced."""

    model_config = STRICT
    provider: Text = ""
    repair_depth: Annotated[int, Field(ge=0, le=100)] = 0
    tokens_in: Count = 0
    tokens_out: Count = 0
    prompt_hash: Annotated[str, Field(max_length=128)] = ""
    prompt_variant: Text = ""
    campaign: Text = ""
    # Protocol facts (GNN-CB Protocol 3), read by evaluator.render.results.conformance: decoding as
    # requested/applied (temperature, max_tokens, max_tokens_applied, seed, seed_sent), the
    # repair budget, model calls made, execution-limit overrides, and isolation.
    decoding: dict[str, float | int | bool | str | None] | None = None
    repairs_allowed: Annotated[int, Field(ge=0, le=100)] | None = None
    calls: Annotated[int, Field(ge=0, le=1000)] | None = None
    limit_overrides: dict[str, float] | None = None
    isolation: Text = ""
    sandboxed: bool | None = None
    caveats: list[Text] | None = None
    # False: the endpoint's GET /models listed other models (run with --allow-unlisted-model)
    model_listed: bool | None = None
    # True: the loop ended at a repeated answer (--stop-on-repeat), not after k repairs
    stop_on_repeat: bool | None = None


class Metadata(BaseModel):
    model_config = STRICT

    participant: Annotated[str, Field(max_length=80)]  # a login, or a platform name
    team: Text = ""
    entrant: Literal["human", "llm-api", "llm-agent", "baseline"] = "human"
    method: Annotated[str, Field(min_length=1, max_length=200), AfterValidator(check_visible)]
    model: Text = ""  # LLM model id when the entrant is an LLM
    hardware: Text = ""
    # at most ten years of training: a larger value is a unit mistake, not a measurement
    training_time_minutes: Annotated[float, Field(ge=0, le=6e6)] | None = None
    tuning_runs: Count | None = None
    seed: Annotated[int, Field(ge=-(2**63), lt=2**64)] | None = None
    gnn_only: bool | None = None
    notes: Annotated[str, Field(max_length=2000)] = ""
    llm: LLMRun | None = None
    # Digests (>= 8 hex characters, as the bot's answer shows them) of the submissions that
    # count as this participant's final ones; this submission's own digest may be listed.
    final: Annotated[list[Annotated[str, Field(pattern=r"^[0-9a-fA-F]{8,64}$")]],
                     Field(min_length=1, max_length=20)] | None = None

    @model_validator(mode="after")
    def _kind_matches_name(self) -> Metadata:
        """A login is always a human; only platform names (`baseline:`, `llm:`, `agent:`)
        carry other kinds, and only the platform's commands write them."""
        try:
            identity.check_participant(self.participant, self.entrant)
        except ValueError as err:
            raise ValueError(f"participant/entrant: {err}") from None
        return self

    @model_validator(mode="after")
    def _llm_needs_model(self) -> Metadata:
        if self.entrant.startswith("llm") and not self.model:
            raise ValueError(f"entrant {self.entrant!r} needs 'model' (the LLM model id)")
        return self


def parse_metadata(data: bytes, *, filename: str = "metadata.json") -> Metadata:
    if not data.strip():
        raise Rejection(f"{filename} is empty; `gnncb encrypt` writes it for you",
                        code="invalid-metadata")
    if len(data) > MAX_METADATA_BYTES:
        raise Rejection(f"{filename} is larger than {MAX_METADATA_BYTES} bytes",
                        code="invalid-metadata")
    return _validated(json_object(data, filename),
                      f"{filename} does not match the metadata schema")


def json_object(data: bytes, filename: str) -> dict[str, Any]:
    """A participant's metadata file as one JSON object, or a rejection saying what is wrong
    (shared by both tracks' metadata: the same hostile-JSON rules apply to each)."""
    try:
        raw = jsonsafe.loads_bytes(data)
    except jsonsafe.UntrustedJSON as err:
        raise Rejection(f"{filename} is not acceptable JSON: {err}",
                        code="invalid-metadata") from None
    if not isinstance(raw, dict):
        raise Rejection(f"{filename} must hold a JSON object", code="invalid-metadata")
    return raw


def schema_problems(err: ValidationError) -> str:
    """One indented line per field a metadata file gets wrong, in the participant's words."""
    return "\n".join(f"  - {'.'.join(map(str, e['loc'])) or '(top level)'}: "
                     f"{e['msg'].removeprefix('Value error, ')}" for e in err.errors())


def _validated(raw: dict[str, Any], headline: str) -> Metadata:
    try:
        return Metadata.model_validate(raw)
    except ValidationError as err:
        raise Rejection(f"{headline}:\n{schema_problems(err)}",
                        code="invalid-metadata") from None


def dump_metadata(meta: Metadata) -> str:
    return json.dumps(meta.model_dump(exclude_none=True), indent=2, sort_keys=True) + "\n"
