"""Maintainer corrections to the ledger: re-score a competition, withdraw a submission.

Why audit lines instead of edits: the ledger is append-only, so every correction is a new row
that says who, when and why, and the leaderboard (a pure function of the ledger) follows. A
re-score re-opens each active submission's stored envelope (`leaderboard/envelopes/<digest>.jwe`,
ciphertext committed at publish time) with the platform key and scores it on the current hidden
labels; the rescore row's digest is derived from the target and the labels' bytes, so running it
twice with the same labels adds nothing.

A re-score also recomputes the paired comparisons behind the board's tiers (`paired`, on the
re-scored board: comparisons on corrected labels are the only ones that mean anything) and
records the label commitments (and label version) it scored against, which is the audit trail
of a label correction (`gnncb competition relabel`; lint checks it, docs/results.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.boards import Board
from evaluator.competition.spec import load_spec
from evaluator.errors import ConfigError, Rejection
from evaluator.ledger.ranking import paired_outcome, standings
from evaluator.ledger.store import (
    RESCORE,
    STALE,
    SUBMISSION,
    WITHDRAWAL,
    Ledger,
    active_submissions,
    now_iso,
)
from evaluator.pipeline.evaluate import label_commitments, label_version, load_labels
from evaluator.pipeline.paired import compare_board
from evaluator.repo.keyuse import needs_key, sealed_kid
from evaluator.repo.record import envelopes_dir, ledger_path
from evaluator.scoring.clusters import load_clusters
from evaluator.scoring.score import ALL, PRIVATE, PUBLIC, interval_parts, score_parts
from evaluator.submission import envelope
from evaluator.submission.validate import all_ids, competition_ids, validate_predictions

MIN_PREFIX = 8


@dataclass
class RescoreReport:
    slug: str
    version: int
    checked: int = 0
    changed: list[dict[str, Any]] = field(default_factory=list)  # the rescore rows
    missing: list[str] = field(default_factory=list)  # digests without a stored envelope
    failed: list[tuple[str, str]] = field(default_factory=list)  # (digest, reason)
    # failed digests whose stored envelope no key opens (damaged, not the predictions of this
    # competition): unlike a missing key, nothing the maintainer passes fixes them
    unopenable: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # digests marked as scored on old labels
    written: int = 0


def labels_fingerprint(competition: Path, split_paths: list[str]) -> str:
    """SHA-256 over the sealed label files: changes exactly when the labels are re-sealed."""
    h = hashlib.sha256()
    for rel in sorted(split_paths):
        h.update(rel.encode() + b"\x00" + (competition / rel).read_bytes() + b"\x00")
    return h.hexdigest()


def rescore(root: Path, slug: str, keys: Mapping[str, rsa.RSAPrivateKey], *,
            reason: str = "hidden labels corrected", by: str = "",
            skip_missing: bool = False, dry_run: bool = False) -> RescoreReport:
    """Re-score every active submission of the competition's current version."""
    root = Path(root)
    competition = root / "competitions" / slug
    if not (competition / "competition.yaml").is_file():
        raise ConfigError(f"{competition}: no competition.yaml; is {slug!r} the folder name?")
    spec = load_spec(competition)
    ledger = Ledger(ledger_path(root))
    rows = [r for r in active_submissions(ledger.rows())
            if r["slug"] == spec.slug and r["version"] == spec.version]
    report = RescoreReport(spec.slug, spec.version)
    stored = {r["digest"]: envelopes_dir(root) / f"{r['digest']}.jwe" for r in rows}
    report.missing = [d for d, p in stored.items() if not p.is_file()]
    if report.missing and not skip_missing:
        raise ConfigError(f"{len(report.missing)} active submission(s) of {slug} have no stored "
                          f"envelope in {envelopes_dir(root)} (e.g. {report.missing[0][:12]}); "
                          "pass --skip-missing to re-score the others")
    labels = load_labels(competition, spec, keys)
    fingerprint = labels_fingerprint(competition, [s.labels for s in spec.splits.values()])
    expected = all_ids(competition_ids(competition, spec))
    scored_on = PUBLIC if spec.has_parts else ALL
    checked = []  # (row, its predictions, the key id that opened it, scores by part, same?)
    for r in rows:
        path = stored[r["digest"]]
        if r["digest"] in report.missing:
            continue
        sealed = path.read_bytes()
        if envelope.digest(sealed) != r["digest"]:
            report.failed.append((r["digest"], f"{path} does not hash to its name"))
            report.unopenable.append(r["digest"])
            continue
        try:
            # a row named before identity namespaces was sealed for its legacy name
            sealed_for = r.get("legacy_participant") or r["participant"]
            opened = envelope.open_envelope(sealed, keys, envelope.prediction_claims(
                spec.slug, spec.version, sealed_for.lower()))
            table = validate_predictions(opened.plaintext, spec, expected,
                                         filename=spec.submission.file)
        except Rejection as err:
            why = (f"stored envelope {needs_key(sealed_kid(sealed), keys)}"
                   if err.code == "wrong-key" else str(err).splitlines()[0])
            report.failed.append((r["digest"], why))
            kid = sealed_kid(sealed)
            if kid is None or kid in keys:  # no other key would help: the file is at fault
                report.unopenable.append(r["digest"])
            continue
        parts = score_parts(spec, labels, table)
        scores = parts.get(PUBLIC, parts.get(ALL, {}))
        same_private = True
        if spec.has_parts:
            sealed_scores = r.get("sealed_scores")
            if sealed_scores and sealed_kid(sealed_scores) not in keys:
                report.failed.append((r["digest"], "sealed scores "
                                      + needs_key(sealed_kid(sealed_scores), keys)))
                continue
            same_private = bool(sealed_scores and envelope.open_scores(
                sealed_scores, keys, spec.slug, spec.version, r["digest"]).get(PRIVATE) ==
                parts[PRIVATE])
        report.checked += 1
        unchanged = scores == r["scores"] and r.get("scored_on", ALL) == scored_on and \
            same_private
        checked.append((r, table, opened.header["kid"], parts, unchanged))
    # All or none: when any score moved, every re-scored row gets an audit line (and a fresh
    # sealed private score). Why: a line only for the rows whose *private* score moved would
    # publish which participants' private scores a private-only label fix changed, which is
    # what the sealed scores keep secret until the reveal. When nothing moved, only rows
    # without intervals, without the board's paired comparisons, or scored on an earlier
    # label version get one, which depends on nothing secret.
    moved = any(not unchanged for *_, unchanged in checked)
    committed = label_commitments(competition, spec)
    current = label_version(competition, spec)
    pairs = _paired(competition, spec, labels, rows, checked)
    for r, table, kid, parts, _ in checked:
        behind = committed is not None and r.get("label_version", 1) != current
        missing_pairs = pairs[r["digest"]]["missing"]
        if not moved and r.get("intervals") and not behind and not missing_pairs:
            continue
        part_intervals = interval_parts(
            spec, labels, table, clusters_for=lambda t: load_clusters(competition, spec, t))
        scores = parts.get(PUBLIC, parts.get(ALL, {}))
        basis = f"rescore\x00{r['digest']}\x00{fingerprint}"
        if not moved and r.get("intervals") and not behind:  # only comparisons to add
            basis += "\x00paired\x00" + ",".join(sorted(pairs[r["digest"]]["record"]["vs"]))
        adds = [what for what, lacking in (("the 95% score intervals", not r.get("intervals")),
                                           ("the paired comparisons of the tiers",
                                            missing_pairs)) if lacking]
        audit = {
            "type": RESCORE,
            "digest": hashlib.sha256(basis.encode()).hexdigest(),
            "target": r["digest"], "slug": spec.slug, "version": spec.version,
            "participant": r["participant"], "scores": scores, "previous": r["scores"],
            "scored_on": scored_on,
            "intervals": part_intervals.get(PUBLIC, part_intervals.get(ALL, {})),
            "paired": pairs[r["digest"]]["record"],
            "labels": fingerprint, "by": by, "at": now_iso(),
            "reason": reason if moved else (
                f"re-scored on label version {current} (scores unchanged)" if behind
                else f"adds {' and '.join(adds)} (scores unchanged)"),
        }
        if committed is not None:  # the audit trail of a label correction
            audit["label_commitments"] = committed
            audit["label_version"] = current
        if spec.has_parts:
            audit["sealed_scores"] = envelope.seal_scores(
                {PRIVATE: parts[PRIVATE], "intervals": {PRIVATE: part_intervals[PRIVATE]}},
                keys[kid].public_key(), spec.slug, spec.version, r["digest"],
                size=envelope.scores_size(spec))
        report.changed.append(audit)
    # Rows without a stored envelope, or whose stored envelope no key opens, cannot be
    # re-scored. They are marked as scored on old labels when the labels evidently changed
    # (some re-scored row moved) or when no row could be checked at all; a re-score that
    # confirms every reachable score marks nothing. (A row that only needs another key is
    # not marked: passing the key re-scores it.)
    labels_moved = moved or report.checked == 0
    why_not = dict.fromkeys(report.missing, "no stored envelope") | {
        d: f"its stored envelope will not open: {why}" for d, why in report.failed
        if d in report.unopenable}
    stale = [] if not labels_moved else [{
        "type": STALE,
        "digest": hashlib.sha256(f"stale\x00{d}\x00{fingerprint}".encode()).hexdigest(),
        "target": d, "slug": spec.slug, "version": spec.version, "labels": fingerprint,
        "reason": f"not re-scored ({reason}): {because}", "by": by, "at": now_iso(),
    } for d, because in why_not.items()]
    report.stale = list(why_not) if labels_moved else []
    if (report.changed or stale) and not dry_run:
        report.written = ledger.append_many(report.changed + stale)
    return report


def _paired(competition: Path, spec: Any, labels: dict[str, Any], rows: list[dict[str, Any]],
            checked: list[tuple[dict[str, Any], Any, str, dict[str, Any], bool]]
            ) -> dict[str, dict[str, Any]]:
    """Per re-scored row: the `paired` record it gets on the re-scored board (`record`) and
    whether its current rows lack a comparison with an entry recorded before it (`missing`).
    The board is the one the re-scored scores give (rows that could not be re-opened stay
    with their recorded scores, and are left out of the comparisons)."""
    new = {r["digest"]: parts.get(PUBLIC, parts.get(ALL, {})) for r, _, _, parts, _ in checked}
    tables = {r["digest"]: table for r, table, *_ in checked}
    view = [{**r, "scores": new.get(r["digest"], r["scores"])} for r in rows]
    order = {r["digest"]: i for i, r in enumerate(rows)}
    board = sorted((e.row for e in standings(spec, view)), key=lambda r: order[r["digest"]])
    on_board = {r["digest"] for r in board}
    records = compare_board(competition, spec, labels, board, tables,
                            others=[d for d in tables if d not in on_board])
    part = PUBLIC if spec.has_parts else ALL
    position = {row["digest"]: i for i, row in enumerate(board)}
    out = {}
    for r, *_ in checked:
        digest = r["digest"]
        earlier = [o for o in board[:position[digest]] if o["digest"] in tables] \
            if digest in on_board else []
        missing = any(paired_outcome(o, r, score=spec.primary_score, part=part) is None
                      for o in earlier if o["participant"].lower() != r["participant"].lower())
        out[digest] = {"record": records[digest], "missing": missing}
    return out


def rescore_board(root: Path, board: Board, *, by: str = "", dry_run: bool = False
                  ) -> RescoreReport:
    """Re-score the active rows of a track board (no competition.yaml, no envelopes): the board
    says what changes in each row (`board.rescore_row(row)`, None for nothing) and why; the
    audit line has the same shape as a competition's, and its digest is derived from the target
    and the board's basis, so running it twice adds nothing."""
    ledger = Ledger(ledger_path(Path(root)))
    rows = [r for r in active_submissions(ledger.rows())
            if r["slug"] == board.slug and r["version"] == board.version]
    report = RescoreReport(board.slug, board.version)
    for r in rows:
        try:
            change = board.rescore_row(r)
        except (KeyError, TypeError, ValueError) as err:
            report.failed.append((r["digest"], f"cannot re-score: {err}"))
            continue
        report.checked += 1
        if change is None:
            continue
        basis = change.pop("basis")
        report.changed.append({
            "type": RESCORE,
            "digest": hashlib.sha256(f"rescore\x00{r['digest']}\x00{basis}".encode()
                                     ).hexdigest(),
            "target": r["digest"], "slug": board.slug, "version": board.version,
            "participant": r["participant"], "previous": r["scores"], "labels": basis,
            "by": by, "at": now_iso(), **change})
    if report.changed and not dry_run:
        report.written = ledger.append_many(report.changed)
    return report


def find_submission(rows: list[dict[str, Any]], digest: str) -> dict[str, Any]:
    """The submission row whose digest is `digest` or starts with it (>= 8 hex characters)."""
    digest = digest.strip().lower()
    if not re.fullmatch(rf"[0-9a-f]{{{MIN_PREFIX},64}}", digest):
        raise ConfigError(f"{digest!r} is not a submission digest (at least {MIN_PREFIX} "
                          "hexadecimal characters, as shown on the PR and in the ledger)")
    found = [r for r in rows if r["type"] == SUBMISSION and r["digest"].startswith(digest)]
    if not found:
        raise ConfigError(f"no submission with digest {digest} in the ledger")
    if len(found) > 1:
        raise ConfigError(f"digest prefix {digest} matches {len(found)} submissions; give more "
                          "characters")
    return found[0]


def withdraw(root: Path, digest: str, *, reason: str, by: str = "") -> tuple[dict[str, Any], bool]:
    """Append a withdrawal row; returns (row, written). Withdrawing twice writes nothing."""
    if not reason.strip():
        raise ConfigError("--reason is required: the audit line says why")
    ledger = Ledger(ledger_path(root))
    target = find_submission(ledger.rows(), digest)
    row = {"type": WITHDRAWAL, "digest": target["digest"], "slug": target["slug"],
           "version": target["version"], "participant": target["participant"],
           "reason": reason.strip(), "by": by, "at": now_iso()}
    return row, ledger.append(row)


def describe(row: Mapping[str, Any]) -> str:
    return json.dumps(dict(row), sort_keys=True, ensure_ascii=True)
