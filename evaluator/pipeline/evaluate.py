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
from typing import Any, Protocol

import pandas as pd
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.schedule import Window, revealed, window_for
from evaluator.competition.spec import (
    PART_COLUMN,
    CompetitionSpec,
    Submission,
    SubmissionLimits,
    load_spec,
)
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.store import (
    SUBMISSION,
    Ledger,
    active_submissions,
    belongs,
    envelopes_beside,
    store_envelope,
)
from evaluator.pipeline.paired import compare_with_board
from evaluator.scoring.clusters import load_clusters
from evaluator.scoring.score import ALL, PRIVATE, PUBLIC, interval_parts, score_parts
from evaluator.submission import commit, envelope
from evaluator.submission.files import ENVELOPE_NAME, METADATA_NAME, read_limited
from evaluator.submission.metadata import MAX_METADATA_BYTES, Metadata, parse_metadata
from evaluator.submission.validate import all_ids, competition_ids, read_table, validate_predictions

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


@dataclass(frozen=True)
class Admission:
    """What the eligibility checks decided for one submission."""

    window: Window
    remaining: tuple[int | None, int | None]
    final_choice: list[str] | None


def max_envelope_bytes(spec: CompetitionSpec) -> int:
    return spec.submission.max_bytes * 4 // 3 + ENVELOPE_OVERHEAD


def load_labels(competition_dir: Path, spec: CompetitionSpec,
                keys: Mapping[str, rsa.RSAPrivateKey]) -> dict[str, pd.DataFrame]:
    """Decrypt every split's hidden labels in memory, indexed by id; with label commitments
    (`hidden/commitments.json`), each table must be the one committed to, or nothing is
    scored on it."""
    labels = {}
    committed = commit.read_commitments(commit.commitments_path(Path(competition_dir) / "hidden"))
    if committed is not None and committed.get("version") != spec.version:
        committed = None  # another version's promises (lint reports it); nothing to check
    for name, split in spec.splits.items():
        path = Path(competition_dir) / split.labels
        try:
            compact = path.read_bytes()
        except OSError as err:
            raise ConfigError(f"{path}: cannot read hidden labels: {err}") from None
        plain = envelope.open_labels(compact, keys, spec.slug, spec.version, name,
                                     source=str(path))
        if committed is not None and name in committed["labels"]:
            _check_committed(path, plain, committed["labels"][name], keys, spec, name)
        labels[name] = label_table(spec, plain, path, f"{split.labels} (decrypted)")
    return labels


def label_table(spec: CompetitionSpec, plain: bytes, path: Path | str,
                shown: str) -> pd.DataFrame:
    """One split's label table from its plaintext bytes, indexed by id (the decrypted hidden
    labels, or the ones a reveal published)."""
    try:
        table = read_table(plain, shown)
    except Rejection as err:
        raise ConfigError(str(err)) from None
    need = {spec.id_column, *(t.name for t in spec.targets)}
    if spec.has_parts:
        need.add(PART_COLUMN)
    missing = need - set(table.columns)
    if missing:
        raise ConfigError(f"{path}: hidden labels lack columns {sorted(missing)}"
                          + ("; public_fraction is set: rebuild the competition so the "
                             "labels name each id's part" if PART_COLUMN in missing else ""))
    if PART_COLUMN in need and not set(table[PART_COLUMN]) <= {PUBLIC, PRIVATE}:
        raise ConfigError(f"{path}: column {PART_COLUMN} holds values other than "
                          f"{PUBLIC!r} and {PRIVATE!r}")
    return table.set_index(spec.id_column)


def _check_committed(path: Path, plain: bytes, entry: Mapping[str, Any],
                     keys: Mapping[str, rsa.RSAPrivateKey], spec: CompetitionSpec,
                     split: str) -> None:
    salt = commit.open_salt(entry["sealed_salt"], keys, spec.slug, spec.version,
                            f"labels:{split}")
    if commit.commit(salt, plain) != entry["commitment"]:
        raise ConfigError(f"{path}: the decrypted labels do not match their commitment in "
                          f"hidden/{commit.COMMITMENTS_NAME}; the table changed after it was "
                          "committed: restore both files from git, or rebuild the competition "
                          "under a new version")


def label_commitments(competition_dir: Path, spec: CompetitionSpec) -> dict[str, str] | None:
    """split -> the commitment of its label table for the current version, or None (built
    before commitments). What a ledger row records it was scored against."""
    committed = commit.read_commitments(commit.commitments_path(Path(competition_dir) / "hidden"))
    if committed is None or committed.get("version") != spec.version:
        return None
    return {name: entry["commitment"] for name, entry in sorted(committed["labels"].items())}


def label_version(competition_dir: Path, spec: CompetitionSpec) -> int:
    """The label version the competition's hidden labels are committed at (1 until a label
    correction, `gnncb competition relabel`); what a row scored after a correction records."""
    committed = commit.read_commitments(commit.commitments_path(Path(competition_dir) / "hidden"))
    if committed is None or committed.get("version") != spec.version:
        return 1
    return commit.label_version(committed)


LLM_ENTRANTS = ("llm-api", "llm-agent")


def is_llm(entrant: str | None) -> bool:
    return entrant in LLM_ENTRANTS


class Quota(Protocol):
    """What the quota checks read: a competition.yaml's spec, or a track board whose
    `submission` bounds have the same shape (the code track's `CodeBoard`)."""

    @property
    def slug(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def submission(self) -> Submission: ...


def window_limits(spec: Quota, window: Window, entrant: str | None) -> SubmissionLimits:
    """The quota this submission counts against: the window's (phase or competition) limits
    for humans and baselines; `submission.llm_limits` (else the same numbers) for LLM runs."""
    if is_llm(entrant):
        llm = spec.submission.llm_limits
        if llm is not None:
            return llm
    return window.limits


def check_eligibility(spec: Quota, rows: list[dict[str, Any]], participant: str,
                      now: datetime, *, entrant: str | None = None,
                      window: Window | None = None,
                      participant_id: int | None = None) -> tuple[int, int]:
    """Raise a Rejection when the participant is over a limit; else the submissions left
    (for this version or phase, in the next 24 hours) after this one.

    Counted: accepted, not withdrawn rows of the same version, the same window (phase, or the
    late window) and the same track (LLM runs have their own quota, apart from human ones);
    `entrant=None` counts every track together (the code track's boards). `now` is the
    submission's time and rows are counted by theirs (`submitted_at`). With a
    `participant_id` (a pull request's author account) the account's rows count whatever
    login they carry: renaming the account gives no fresh quota.
    """
    if window is None:
        window = Window(None, spec.submission.limits)
    limits = window_limits(spec, window, entrant)
    login = participant.lower()
    since = (now - timedelta(days=1)).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    mine = [r for r in active_submissions(rows)
            if r["slug"] == spec.slug and r["version"] == spec.version
            and belongs(r, login, participant_id)
            and r.get("phase") == window.phase and bool(r.get("late")) == window.late
            and (entrant is None or is_llm(r.get("entrant")) == is_llm(entrant))]
    used = len(mine)
    where = (f"phase {window.phase!r} of " if window.phase else
             "late submissions to " if window.late else "")
    if used >= limits.per_version:
        raise Rejection(f"{participant} has used all {limits.per_version} submissions for "
                        f"{where}{spec.slug} version {spec.version}"
                        + (" (LLM-track quota)" if is_llm(entrant) else ""), code="over-limit")
    made = [r.get("submitted_at") or r["scored_at"] for r in mine]
    today = sum(1 for at in made if at >= since)
    if today >= limits.per_day:
        recent = sorted(at for at in made if at >= since)
        reopens = (datetime.fromisoformat(recent[-limits.per_day].replace("Z", "+00:00"))
                   + timedelta(days=1)).strftime("%Y-%m-%d %H:%M UTC")
        raise Rejection(f"{participant} has made {today} submissions to {spec.slug} in the last "
                        f"24 hours (limit {limits.per_day}); the window reopens at {reopens}",
                        code="over-limit")
    return limits.per_version - used - 1, limits.per_day - today - 1


def submission_window(spec: CompetitionSpec, rows: list[dict[str, Any]],
                      now: datetime) -> Window:
    """The window of a submission made `now` (Rejection when closed or not open yet)."""
    return window_for(spec, now,
                      is_revealed=revealed(rows, spec.slug, spec.version) is not None)


def preflight(competition_dir: Path, rows: list[dict[str, Any]], participant: str, *,
              entrant: str, now: datetime | None = None) -> tuple[int, int]:
    """Eligibility of a submission not made yet (the LLM track asks before calling a model):
    the same window and quota checks `evaluate_bytes` makes, without any envelope."""
    spec = load_spec(Path(competition_dir))
    now = now or datetime.now(UTC)
    window = submission_window(spec, rows, now)
    return check_eligibility(spec, rows, participant, now, entrant=entrant, window=window)


def resolve_final_choice(spec: CompetitionSpec, rows: list[dict[str, Any]], participant: str,
                         chosen: list[str], current: str, *,
                         participant_id: int | None = None) -> list[str]:
    """Full digests of the submissions a participant marks as final (`final` in
    metadata.json): each prefix must name exactly one of their accepted, on-time submissions
    of this version, or this submission itself."""
    limit = spec.rules.final_submissions_per_version
    if len(chosen) > limit:
        raise Rejection(f"metadata.json 'final' lists {len(chosen)} submissions; "
                        f"{spec.slug} counts at most {limit} per participant",
                        code="invalid-final-choice")
    mine = [r["digest"] for r in active_submissions(rows)
            if r["slug"] == spec.slug and r["version"] == spec.version
            and belongs(r, participant, participant_id) and not r.get("late")]
    out: list[str] = []
    for prefix in chosen:
        found = [d for d in dict.fromkeys([*mine, current]) if d.startswith(prefix.lower())]
        if len(found) != 1:
            raise Rejection(f"metadata.json 'final': {prefix!r} matches "
                            f"{'none' if not found else len(found)} of your accepted "
                            f"submissions to {spec.slug} version {spec.version}; use the "
                            "digest shown in the bot's answer (at least 8 characters)",
                            code="invalid-final-choice")
        if found[0] not in out:
            out.append(found[0])
    return out


def evaluate_bytes(competition_dir: Path, sealed: bytes, metadata_bytes: bytes, *,
                   participant: str, keys: Mapping[str, rsa.RSAPrivateKey],
                   ledger: Ledger | None = None, pr: int | None = None,
                   participant_id: int | None = None,
                   now: datetime | None = None,
                   submitted_at: datetime | None = None) -> Outcome:
    """Evaluate one submission given as bytes. Raises Rejection (participant's fault) or
    ConfigError (platform's fault); on any exception the ledger is untouched.

    `submitted_at`: when the submission was made (a pull request's event time,
    `evaluator.ci.event`), which decides its window and limits; `now` (default: the clock)
    is when it is scored. They differ when the run waited in the queue: waiting never makes a
    timely submission late."""
    competition_dir = Path(competition_dir)
    spec = load_spec(competition_dir)
    login = participant.lower()
    scored = now or datetime.now(UTC)
    now = submitted_at or scored
    if len(sealed) > max_envelope_bytes(spec):
        raise Rejection(f"{ENVELOPE_NAME} is {len(sealed):,} bytes; the limit for "
                        f"{spec.slug} is {max_envelope_bytes(spec):,}", code="too-large")
    meta: Metadata = parse_metadata(metadata_bytes)
    if meta.participant.lower() != login:
        raise Rejection(f"{METADATA_NAME} names participant {meta.participant!r} but the "
                        f"submission is by {participant!r}", code="claim-mismatch")
    opened = envelope.open_envelope(
        sealed, keys, envelope.prediction_claims(spec.slug, spec.version, login))
    def admit(rows: list[dict[str, Any]]) -> dict[str, Any] | Admission:
        """Duplicate, window, limits and final choice on `rows`; run before scoring (so an
        ineligible submission learns nothing) and again under the ledger lock before the
        append (so concurrent submissions cannot both pass on the same stale rows). The row
        that recorded this envelope already, if any; else the admission."""
        for row in rows:
            if row["type"] == SUBMISSION and row["digest"] == opened.digest:
                if not belongs(row, login, participant_id):
                    raise Rejection("this envelope was already submitted by another "
                                    "participant", code="copied")
                return row
        window = submission_window(spec, rows, now)
        remaining = (check_eligibility(spec, rows, login, now, entrant=meta.entrant,
                                       window=window, participant_id=participant_id)
                     if ledger else (None, None))
        final_choice = (resolve_final_choice(spec, rows, login, meta.final, opened.digest,
                                             participant_id=participant_id)
                        if meta.final is not None and not window.late else None)
        return Admission(window, remaining, final_choice)

    before = ledger.rows() if ledger else []
    admission = admit(before)
    if not isinstance(admission, Admission):
        earlier = admission
        return Outcome(True, spec.slug, login, scores=earlier["scores"], row=earlier,
                       duplicate=True)
    window, final_choice = admission.window, admission.final_choice
    ids = competition_ids(competition_dir, spec, check_unique=False)  # validation checks it
    predictions = validate_predictions(opened.plaintext, spec, all_ids(ids),
                                       filename=spec.submission.file)
    labels = load_labels(competition_dir, spec, keys)
    parts = score_parts(spec, labels, predictions)
    scores = parts.get(PUBLIC, parts.get(ALL, {}))
    part_intervals = interval_parts(spec, labels, predictions,
                                    clusters_for=lambda t: load_clusters(competition_dir, spec, t))
    intervals = part_intervals.get(PUBLIC, part_intervals.get(ALL, {}))
    stamp = now.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    scored_stamp = scored.replace(microsecond=0).isoformat().replace("+00:00", "Z")
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
        "intervals": intervals,
        "declared": meta.model_dump(exclude_none=True,
                                    exclude={"participant", "entrant", "method", "model",
                                             "team", "final"}),
        "kid": opened.header["kid"],
        "pr": pr,
        "submitted_at": stamp,
        "scored_at": scored_stamp,
        "scored_on": PUBLIC if spec.has_parts else ALL,
    }
    if ledger:  # tiers: paired comparisons with the board's entries (evaluator.pipeline.paired)
        row["paired"] = compare_with_board(competition_dir, spec, labels, predictions, before,
                                           keys, envelopes_beside(ledger.path),
                                           participant=login)
    if spec.has_parts:  # readable only with the platform key: the publish job cannot open it
        kid = opened.header["kid"]
        row["sealed_scores"] = envelope.seal_scores(
            {PRIVATE: parts[PRIVATE], "intervals": {PRIVATE: part_intervals[PRIVATE]}},
            keys[kid].public_key(), spec.slug, spec.version, opened.digest,
            size=envelope.scores_size(spec))
    # the salted commitment to the exact bytes scored: checkable by anyone once the reveal
    # publishes the predictions and the salt (sealed here to the platform key, bound to the row)
    salt = commit.new_salt()
    row["commitment"] = commit.commit(salt, opened.plaintext)
    row["sealed_salt"] = commit.seal_salt(salt, keys[opened.header["kid"]].public_key(),
                                          spec.slug, spec.version, opened.digest)
    committed = label_commitments(competition_dir, spec)
    if committed is not None:
        row["label_commitments"] = committed
        if (found := label_version(competition_dir, spec)) > 1:  # after a label correction
            row["label_version"] = found
    if window.phase is not None:
        row["phase"] = window.phase
    if window.late:
        row["late"] = True
    if final_choice is not None:
        row["final_choice"] = final_choice
    remaining = admission.remaining
    if ledger:
        def recheck(current: list[dict[str, Any]]) -> dict[str, Any] | None:
            nonlocal remaining
            again = admit(current)
            if not isinstance(again, Admission):
                return again  # the row that recorded this envelope meanwhile
            if again.final_choice != final_choice or again.window != window:
                raise Rejection("the ledger changed while this submission was scored (a "
                                "concurrent submission); submit again", code="retry")
            remaining = again.remaining
            return None
        existing = ledger.append_checked(row, recheck)
        if existing is not None:  # the same envelope was recorded meanwhile, by another run
            return Outcome(True, spec.slug, login, scores=existing["scores"], row=existing,
                           duplicate=True)
    return Outcome(True, spec.slug, login, scores=scores, row=row,
                   remaining_version=remaining[0], remaining_today=remaining[1])


def evaluate_dir(competition_dir: Path, submission_dir: Path, **kwargs: Any) -> Outcome:
    """`gnncb evaluate`: the two files of a submission folder."""
    submission_dir = Path(submission_dir)
    spec = load_spec(competition_dir)
    env_path, meta_path = submission_dir / ENVELOPE_NAME, submission_dir / METADATA_NAME
    for path in (env_path, meta_path):
        if not path.exists():
            raise Rejection(f"{path} not found; a submission folder holds {ENVELOPE_NAME} and "
                            f"{METADATA_NAME}", code="missing-file")
    sealed = read_limited(env_path, max_envelope_bytes(spec), what=f"{spec.slug} envelope")
    meta = read_limited(meta_path, MAX_METADATA_BYTES, what=METADATA_NAME)
    outcome = evaluate_bytes(competition_dir, sealed, meta, **kwargs)
    ledger = kwargs.get("ledger")
    if ledger is not None and outcome.row is not None:
        store_envelope(envelopes_beside(ledger.path), sealed)  # so `ledger rescore` can re-open it
    return outcome
