"""Correct hidden labels without moving any id between the public and the private part.

Why not re-run the build with its seed: the public part is drawn stratified by label
(`build.draw_public_part`), so one corrected label re-drew it; a fix of one label once moved 38
of 60 public ids, whose labels participants had already probed through the public score, into
the private part that ranks. Once drawn, an id's part is stored in the sealed labels
(`__part__`); this is the one way to change labels of a version after that: the current labels
are opened with the platform key, the corrected targets replace theirs id by id, and each id
keeps the part it was sealed with. Same version, same ids, same parts; only targets change.

The correction is a new *label version* with its own commitment (`hidden/commitments.json`:
`label_version`; the earlier label version's commitments kept unchanged under `superseded`),
never an edit of a promise already made: rows scored on the earlier labels still name the
commitment they were scored against, and `gnncb ledger rescore` scores them against the new
one with an audit line each (lint fails until it has). Why not a new competition `version`:
the version is bound into every participant's sealed envelope, the submission limits, the
windows and the reveal; a label fix must re-score the same submissions, not start a new round.
New parts come only with a new version built from a new seed (`gnncb keys reseal` refuses to
carry a revealed version's parts into the next one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.authoring.build import seal_labels
from evaluator.competition.spec import PART_COLUMN, load_spec
from evaluator.errors import ConfigError, Rejection
from evaluator.pipeline.evaluate import load_labels
from evaluator.scoring.score import PUBLIC
from evaluator.submission.validate import read_table


@dataclass(frozen=True)
class Relabelled:
    path: Path
    changed: int  # ids whose targets changed
    public: int  # ids in the public part (unchanged)
    private: int


def relabel(folder: Path, split: str, corrected: bytes, keys: Mapping[str, rsa.RSAPrivateKey],
            public_key: rsa.RSAPublicKey, *, source: str, dry_run: bool = False,
            reason: str = "hidden labels corrected") -> Relabelled:
    """Re-seal split `split` of the competition in `folder` with the targets of `corrected`
    (CSV: the id column and every target), keeping each id's sealed part."""
    folder = Path(folder)
    spec = load_spec(folder)
    if split not in spec.splits:
        raise ConfigError(f"{spec.slug} has no split {split!r} (splits: "
                          f"{', '.join(spec.splits)})")
    current = load_labels(folder, spec, keys)[split]
    try:
        table = read_table(corrected, source)
    except Rejection as err:
        raise ConfigError(str(err)) from None
    need = [spec.id_column, *(t.name for t in spec.targets)]
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise ConfigError(f"{source}: lacks column(s) {missing}; give {', '.join(need)}")
    table = table[need]
    ids = table[spec.id_column].astype(str)
    known = current.index.astype(str)
    if ids.duplicated().any():
        raise ConfigError(f"{source}: id {ids[ids.duplicated()].iloc[0]!r} appears twice")
    extra, absent = set(ids) - set(known), set(known) - set(ids)
    if extra or absent:
        example = sorted(extra or absent)[0]
        raise ConfigError(f"{source}: the ids must be exactly split {split!r}'s: "
                          f"{len(extra)} unknown, {len(absent)} missing (e.g. {example!r}); a "
                          "label fix changes targets only, never which ids are scored")
    by_id = current.set_axis(known)
    old = by_id.loc[ids.to_numpy(), [t.name for t in spec.targets]].reset_index(drop=True)
    new = table[[t.name for t in spec.targets]].reset_index(drop=True)
    changed = int((old.astype(str) != new.astype(str)).any(axis=1).sum())
    frame = table
    public = None
    if spec.has_parts:  # the sealed part of each id, never a new draw
        public = pd.Series((by_id.loc[ids.to_numpy(), PART_COLUMN] == PUBLIC).to_numpy(),
                           index=frame.index)
    path = folder / spec.splits[split].labels
    if not dry_run:
        seal_labels(frame, spec, split, public_key, path, public=public,
                    correction=f"{reason} (split {split!r}, {changed} label(s))")
    n_public = int(public.sum()) if public is not None else 0
    return Relabelled(path, changed, n_public, len(frame) - n_public)
