"""Paired comparisons between entries, computed where the key is (the keyed scoring job).

Why here and not when a board is rendered: a paired test needs both entries' predictions and
the hidden labels, item by item. Boards and the site are rendered from the ledger by a job
without the key, so the comparison is made when a submission is scored (against every entry
on its board at that moment) and at the reveal (between neighbours of the final standings), and
only its outcome is recorded: the point difference and the 95% paired-bootstrap interval of
the difference, on the part of the labels the board shows. Nothing per item is stored, and the
live board's comparisons use only the public part, whose scores are public already; the
private part is compared only at the reveal. The earlier entries' predictions are re-opened
from their stored ciphertexts (`leaderboard/envelopes/`) in memory; nothing decrypted is
written anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.spec import CompetitionSpec
from evaluator.errors import Rejection
from evaluator.ledger.ranking import PAIRED_TEST, standings
from evaluator.scoring import bootstrap
from evaluator.scoring.clusters import load_clusters
from evaluator.scoring.score import ALL, PUBLIC, paired_difference, part_labels
from evaluator.submission import envelope
from evaluator.submission.validate import all_ids, competition_ids, validate_predictions


def stored_predictions(spec: CompetitionSpec, row: Mapping[str, Any],
                       keys: Mapping[str, rsa.RSAPrivateKey], envelopes: Path,
                       expected: pd.Series) -> pd.DataFrame | None:
    """The validated predictions of a recorded row, re-opened from its stored envelope in
    memory; None when the envelope is not stored, does not hash to the row's digest, or no
    longer opens or validates (that pair is then left without a paired comparison)."""
    path = Path(envelopes) / f"{row['digest']}.jwe"
    if not path.is_file():
        return None
    sealed = path.read_bytes()
    if envelope.digest(sealed) != row["digest"]:
        return None
    sealed_for = str(row.get("legacy_participant") or row["participant"]).lower()
    try:
        opened = envelope.open_envelope(sealed, keys, envelope.prediction_claims(
            spec.slug, spec.version, sealed_for))
        return validate_predictions(opened.plaintext, spec, expected,
                                    filename=spec.submission.file)
    except Rejection:
        return None


def _record(part: str, spec: CompetitionSpec, clusters: Mapping[str, Any]) -> dict[str, Any]:
    return {"score": spec.primary_score, "part": part, "test": PAIRED_TEST,
            "level": bootstrap.LEVEL, "resamples": bootstrap.RESAMPLES,
            "unit": "clusters" if clusters else "rows"}


def _outcome(found: dict[str, Any]) -> dict[str, float]:
    return {"diff": found["diff"], "low": found["low"], "high": found["high"]}


def compare_with_board(competition_dir: Path, spec: CompetitionSpec,
                       labels: dict[str, pd.DataFrame], predictions: pd.DataFrame,
                       rows: list[dict[str, Any]], keys: Mapping[str, rsa.RSAPrivateKey],
                       envelopes: Path, *, participant: str) -> dict[str, Any]:
    """The `paired` record of a new row: its paired comparison with every other participant's
    entry on the live board (`vs`: digest -> diff, low, high of new minus that entry's score),
    on the part the board shows (public, or the whole split without parts)."""
    part = PUBLIC if spec.has_parts else ALL
    table = part_labels(labels, PUBLIC) if spec.has_parts else labels
    clusters = load_clusters(competition_dir, spec, table)
    record = _record(part, spec, clusters)
    vs: dict[str, dict[str, float]] = {}
    expected = all_ids(competition_ids(competition_dir, spec))
    for entry in standings(spec, rows):
        other = entry.row
        if other["participant"].lower() == participant.lower():
            continue
        theirs = stored_predictions(spec, other, keys, envelopes, expected)
        if theirs is None:
            continue
        found = paired_difference(spec, table, predictions, theirs, clusters=clusters)
        record["resamples"] = found["resamples"]
        vs[other["digest"]] = _outcome(found)
    record["vs"] = vs
    return record


def compare_neighbours(competition_dir: Path, spec: CompetitionSpec,
                       labels: dict[str, pd.DataFrame], ranked: Sequence[Mapping[str, Any]],
                       keys: Mapping[str, rsa.RSAPrivateKey], envelopes: Path, *, part: str
                       ) -> dict[str, Any]:
    """Paired comparisons of each pair of neighbours in `ranked` (rows in rank order) on
    `part` of the labels (`pairs`: "upper digest:lower digest" -> diff, low, high of upper
    minus lower); used at the reveal for the final standings."""
    table = part_labels(labels, part) if spec.has_parts else labels
    clusters = load_clusters(competition_dir, spec, table)
    record = _record(part, spec, clusters)
    opened: dict[str, pd.DataFrame | None] = {}
    pairs: dict[str, dict[str, float]] = {}
    expected = all_ids(competition_ids(competition_dir, spec))
    for upper, lower in zip(ranked, ranked[1:], strict=False):
        for row in (upper, lower):
            if row["digest"] not in opened:
                opened[row["digest"]] = stored_predictions(spec, row, keys, envelopes,
                                                           expected)
        a, b = opened[upper["digest"]], opened[lower["digest"]]
        if a is None or b is None:
            continue
        found = paired_difference(spec, table, a, b, clusters=clusters)
        record["resamples"] = found["resamples"]
        pairs[f"{upper['digest']}:{lower['digest']}"] = _outcome(found)
    record["pairs"] = pairs
    return record


def compare_board(competition_dir: Path, spec: CompetitionSpec,
                  labels: dict[str, pd.DataFrame], board: Sequence[Mapping[str, Any]],
                  tables: Mapping[str, pd.DataFrame], *, others: Sequence[str] = ()
                  ) -> dict[str, dict[str, Any]]:
    """The `paired` record of every entry of a board recomputed at once (a re-score: the labels
    changed, or rows predate comparisons): `board` is the board's rows in ledger order and
    `tables` their predictions by digest (re-opened by the caller). Each entry is compared
    with every other participant's entry recorded before it, as the live scoring step does
    when that row arrives, so every pair of entries (neighbours included) has one comparison;
    digest -> record, on the part the live board shows; the digests in `others` (rows off the
    board) get a record with no comparison, so none on earlier labels outlives a re-score."""
    part = PUBLIC if spec.has_parts else ALL
    table = part_labels(labels, PUBLIC) if spec.has_parts else labels
    clusters = load_clusters(competition_dir, spec, table)
    out: dict[str, dict[str, Any]] = {}
    for i, row in enumerate(board):
        record = _record(part, spec, clusters)
        vs: dict[str, dict[str, float]] = {}
        mine = tables.get(row["digest"])
        for other in board[:i]:
            theirs = tables.get(other["digest"])
            if mine is None or theirs is None \
                    or other["participant"].lower() == row["participant"].lower():
                continue
            found = paired_difference(spec, table, mine, theirs, clusters=clusters)
            record["resamples"] = found["resamples"]
            vs[other["digest"]] = _outcome(found)
        record["vs"] = vs
        out[row["digest"]] = record
    for digest in others:
        out.setdefault(digest, {**_record(part, spec, clusters), "vs": {}})
    return out
