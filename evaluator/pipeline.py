"""One submission's life, locally: envelope + metadata -> checks -> score -> ledger row.

Why one function for every caller: the PR workflow, `gnncb evaluate`, the demo, baselines and
the LLM track all go through `evaluate_bytes`, so there is no second scoring path to drift.
Order matters: identity and eligibility are checked BEFORE anything is scored, so a participant
over the limit learns nothing about the hidden labels; nothing decrypted touches the disk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator import envelope
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger import (
    SUBMISSION,
    Ledger,
    active_submissions,
    count_accepted,
    envelopes_beside,
    store_envelope,
)
from evaluator.metadata import Metadata, parse_metadata
from evaluator.scoring import score
from evaluator.spec import CompetitionSpec, load_spec
from evaluator.validate import all_ids, competition_ids, read_table, validate_predictions

ENVELOPE_NAME = "predictions.csv.enc"
METADATA_NAME = "metadata.json"
# base64url grows data by 4/3; the header, key wrap and IV add a few kilobytes at most.
ENVELOPE_OVERHEAD = 8192


@dataclass
class Outcome:
    accepted: bool
    slug: str
    participant: str
    scores: dict[str, float] = field(default_factory=dict)
    row: dict[str, Any] | None = None
    duplicate: bool = False  # the same envelope was already scored: nothing new recorded
    remaining_version: int | None = None
    remaining_today: int | None = None


def max_envelope_bytes(spec: CompetitionSpec) -> int:
    return spec.submission.max_bytes * 4 // 3 + ENVELOPE_OVERHEAD


def load_labels(competition_dir: Path, spec: CompetitionSpec,
                keys: Mapping[str, rsa.RSAPrivateKey]) -> dict[str, pd.DataFrame]:
    """Decrypt every split's hidden labels in memory, indexed by id."""
    labels = {}
    for name, split in spec.splits.items():
        path = Path(competition_dir) / split.labels
        try:
            compact = path.read_bytes()
        except OSError as err:
            raise ConfigError(f"{path}: cannot read hidden labels: {err}") from None
        plain = envelope.open_labels(compact, keys, spec.slug, spec.version, name,
                                     source=str(path))
        try:
            table = read_table(plain, f"{split.labels} (decrypted)")
        except Rejection as err:
            raise ConfigError(str(err)) from None
        missing = {spec.id_column, *(t.name for t in spec.targets)} - set(table.columns)
        if missing:
            raise ConfigError(f"{path}: hidden labels lack columns {sorted(missing)}")
        labels[name] = table.set_index(spec.id_column)
    return labels


def check_eligibility(spec: CompetitionSpec, rows: list[dict[str, Any]], participant: str,
                      now: datetime) -> tuple[int, int]:
    """Raise a Rejection when the participant is over a limit; else the submissions left
    (for this version, in the next 24 hours) after this one."""
    limits = spec.submission.limits
    used = count_accepted(rows, spec.slug, spec.version, participant)
    if used >= limits.per_version:
        raise Rejection(f"{participant} has used all {limits.per_version} submissions for "
                        f"{spec.slug} version {spec.version}", code="over-limit")
    since = (now - timedelta(days=1)).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    today = count_accepted(rows, spec.slug, spec.version, participant, since=since)
    if today >= limits.per_day:
        window = sorted(r["scored_at"] for r in active_submissions(rows)
                        if r["slug"] == spec.slug and r["version"] == spec.version
                        and r["participant"].lower() == participant.lower()
                        and r["scored_at"] >= since)
        reopens = (datetime.fromisoformat(window[-limits.per_day].replace("Z", "+00:00"))
                   + timedelta(days=1)).strftime("%Y-%m-%d %H:%M UTC")
        raise Rejection(f"{participant} has made {today} submissions to {spec.slug} in the last "
                        f"24 hours (limit {limits.per_day}); the window reopens at {reopens}",
                        code="over-limit")
    return limits.per_version - used - 1, limits.per_day - today - 1


def evaluate_bytes(competition_dir: Path, sealed: bytes, metadata_bytes: bytes, *,
                   participant: str, keys: Mapping[str, rsa.RSAPrivateKey],
                   ledger: Ledger | None = None, pr: int | None = None,
                   participant_id: int | None = None,
                   now: datetime | None = None) -> Outcome:
    """Evaluate one submission given as bytes. Raises Rejection (participant's fault) or
    ConfigError (platform's fault); on any exception the ledger is untouched."""
    competition_dir = Path(competition_dir)
    spec = load_spec(competition_dir)
    login = participant.lower()
    now = now or datetime.now(UTC)
    if len(sealed) > max_envelope_bytes(spec):
        raise Rejection(f"{ENVELOPE_NAME} is {len(sealed):,} bytes; the limit for "
                        f"{spec.slug} is {max_envelope_bytes(spec):,}", code="too-large")
    meta: Metadata = parse_metadata(metadata_bytes)
    if meta.participant.lower() != login:
        raise Rejection(f"{METADATA_NAME} names participant {meta.participant!r} but the "
                        f"submission is by {participant!r}", code="claim-mismatch")
    opened = envelope.open_envelope(
        sealed, keys, envelope.prediction_claims(spec.slug, spec.version, login))
    rows = ledger.rows() if ledger else []
    for row in rows:
        if row["type"] == SUBMISSION and row["digest"] == opened.digest:
            if row["participant"].lower() != login:
                raise Rejection("this envelope was already submitted by another participant",
                                code="copied")
            return Outcome(True, spec.slug, login, scores=row["scores"], row=row,
                           duplicate=True)
    remaining = check_eligibility(spec, rows, login, now) if ledger else (None, None)
    ids = competition_ids(competition_dir, spec)
    predictions = validate_predictions(opened.plaintext, spec, all_ids(ids),
                                       filename=spec.submission.file)
    labels = load_labels(competition_dir, spec, keys)
    scores = score(spec, labels, predictions)
    stamp = now.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    row = {
        "type": SUBMISSION,
        "digest": opened.digest,
        "slug": spec.slug,
        "version": spec.version,
        "participant": login,
        "participant_id": participant_id,
        "entrant": meta.entrant,
        "method": meta.method,
        "model": meta.model,
        "team": meta.team,
        "scores": scores,
        "declared": meta.model_dump(exclude_none=True,
                                    exclude={"participant", "entrant", "method", "model",
                                             "team"}),
        "kid": opened.header["kid"],
        "pr": pr,
        "submitted_at": stamp,
        "scored_at": stamp,
    }
    if ledger:
        ledger.append(row)
    return Outcome(True, spec.slug, login, scores=scores, row=row,
                   remaining_version=remaining[0], remaining_today=remaining[1])


def evaluate_dir(competition_dir: Path, submission_dir: Path, **kwargs: Any) -> Outcome:
    """`gnncb evaluate`: the two files of a submission folder."""
    submission_dir = Path(submission_dir)
    spec = load_spec(competition_dir)
    env_path, meta_path = submission_dir / ENVELOPE_NAME, submission_dir / METADATA_NAME
    for path in (env_path, meta_path):
        if not path.is_file():
            raise Rejection(f"{path} not found; a submission folder holds {ENVELOPE_NAME} and "
                            f"{METADATA_NAME}", code="missing-file")
    size = env_path.stat().st_size
    if size > max_envelope_bytes(spec):
        raise Rejection(f"{env_path} is {size:,} bytes; the limit for {spec.slug} is "
                        f"{max_envelope_bytes(spec):,}", code="too-large")
    sealed = env_path.read_bytes()
    outcome = evaluate_bytes(competition_dir, sealed, meta_path.read_bytes(), **kwargs)
    ledger = kwargs.get("ledger")
    if ledger is not None and outcome.row is not None:
        store_envelope(envelopes_beside(ledger.path), sealed)  # so `ledger rescore` can re-open it
    return outcome
