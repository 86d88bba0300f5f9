"""Label commitments never change within a version: the check lint and `gnncb verify` share.

Why a check of its own: the commitment in `hidden/commitments.json` is the public promise that
the hidden labels are fixed for the whole version. Two things can break it without anybody
holding the key noticing: the sealed table swapped or re-sealed without its commitment (the
file's SHA-256 no longer matches the one recorded beside it), or the competition rebuilt with
other labels after submissions were scored (every ledger row records the label commitments it
was scored against, so the first scored submission fixes them: "launch"). Both are found
from public files alone, so CI fails on them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluator.competition.spec import CompetitionSpec
from evaluator.errors import ConfigError
from evaluator.ledger.store import RESCORE, SUBMISSION, active_submissions
from evaluator.submission.commit import (
    COMMITMENTS_NAME,
    file_sha256,
    label_version,
    label_versions,
    read_commitments,
)

FIELD = "label_commitments"  # the ledger row's record of the commitments it was scored against
VERSION_FIELD = "label_version"  # ... and of the label version they belong to (absent: 1)
FIX = ("a label correction goes through `gnncb competition relabel` (a new label version) and "
       "`gnncb ledger rescore`; otherwise restore the competition from git, or raise `version` "
       "in competition.yaml and rebuild")


def commitment_problems(folder: Path, spec: CompetitionSpec,
                        rows: list[dict[str, Any]]) -> list[str]:
    """What breaks the label commitments of `folder` (empty = kept), given the ledger rows."""
    folder = Path(folder)
    path = folder / "hidden" / COMMITMENTS_NAME
    scored = [(n, r) for n, r in enumerate(rows, 1)
              if r.get("type") in (SUBMISSION, RESCORE) and r.get("slug") == spec.slug
              and r.get("version") == spec.version and isinstance(r.get(FIELD), dict)]
    try:
        data = read_commitments(path)
    except ConfigError as err:
        return [str(err)]
    if data is None:
        if scored:
            return [f"{path}: missing, but {len(scored)} submission(s) of {spec.slug} version "
                    f"{spec.version} were scored against committed labels; restore it from git"]
        return []  # built before commitments existed: nothing was promised
    problems = []
    if data.get("slug") != spec.slug or data.get("version") != spec.version:
        return [f"{path}: commits to {data.get('slug')} version {data.get('version')}, but "
                f"competition.yaml is {spec.slug} version {spec.version}; rebuild the "
                "competition (gnncb competition build) or re-seal it (gnncb keys reseal)"]
    labels = data["labels"]
    versions = label_versions(data)
    for name, split in spec.splits.items():
        entry = labels.get(name)
        if entry is None:
            problems.append(f"{path}: no commitment for split {name!r}; rebuild the "
                            "competition so every sealed table is committed")
            continue
        table = folder / split.labels
        if table.is_file() and file_sha256(table) != entry["envelope_sha256"]:
            problems.append(f"{table}: changed after its commitment was recorded in {path} "
                            f"(SHA-256 of the file differs); a label table never changes "
                            f"within a version but by a correction: {FIX}")
        for lineno, row in scored:
            promised = row[FIELD].get(name)
            n = row.get(VERSION_FIELD, 1)
            what = (f"ledger line {lineno} ({row['type']} of "
                    f"{str(row.get('target') or row['digest'])[:12]})")
            held = (versions.get(n) or {}).get(name) if type(n) is int else None
            if promised is None:
                continue
            if held is None:
                problems.append(f"{path}: {what} was scored against label version {n} of "
                                f"split {name!r}, which this file no longer holds (a label "
                                "version's commitment never changes nor goes away); restore "
                                "it from git")
                break
            if promised != held["commitment"]:
                current = n == label_version(data)
                problems.append(
                    f"{path}: the label table of split {name!r} changed after launch: its "
                    f"commitment {held['commitment'][:16]}... "
                    + ("" if current else f"(label version {n}) ")
                    + f"differs from the one {what} was scored against ({promised[:16]}...); "
                    + FIX)
                break
    return problems + _behind(path, data, spec, rows)


def _behind(path: Path, data: dict[str, Any], spec: CompetitionSpec,
            rows: list[dict[str, Any]]) -> list[str]:
    """After a label correction, every active row not marked stale must be scored on the
    current label version: a correction is complete only with its re-score's audit lines."""
    current = label_version(data)
    if current == 1:
        return []
    behind = [r for r in active_submissions(rows)
              if r.get("slug") == spec.slug and r.get("version") == spec.version
              and not r.get("stale_since") and r.get(VERSION_FIELD, 1) != current]
    if not behind:
        return []
    return [f"{path}: label version {current} ({data.get('correction') or 'a correction'}) "
            f"replaced the hidden labels, but {len(behind)} active submission(s) are still "
            f"scored on an earlier label version (e.g. {behind[0]['digest'][:12]}, label "
            f"version {behind[0].get(VERSION_FIELD, 1)}); run `gnncb ledger rescore "
            f"{spec.slug} --private-key PEM --reason ...` and commit its audit lines with "
            "the correction"]
