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
from evaluator.submission.commit import COMMITMENTS_NAME, file_sha256, read_commitments

FIELD = "label_commitments"  # the ledger row's record of the commitments it was scored against


def commitment_problems(folder: Path, spec: CompetitionSpec,
                        rows: list[dict[str, Any]]) -> list[str]:
    """What breaks the label commitments of `folder` (empty = kept), given the ledger rows."""
    folder = Path(folder)
    path = folder / "hidden" / COMMITMENTS_NAME
    scored = [(n, r) for n, r in enumerate(rows, 1)
              if r.get("type") == "submission" and r.get("slug") == spec.slug
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
                            f"within a version: restore it from git, or raise `version` in "
                            "competition.yaml and rebuild")
        for lineno, row in scored:
            promised = row[FIELD].get(name)
            if promised is not None and promised != entry["commitment"]:
                problems.append(
                    f"{path}: the label table of split {name!r} changed after launch: its "
                    f"commitment {entry['commitment'][:16]}... differs from the one ledger "
                    f"line {lineno} (submission {row['digest'][:12]}) was scored against "
                    f"({promised[:16]}...); restore the competition from git, or raise "
                    "`version` in competition.yaml and rebuild")
                break
    return problems
