"""Helpers for competition builders (`competitions/<slug>/build.py`) and the demo.

Why shared: every builder must do the same anti-contamination steps (ids remapped, splits and
perturbations drawn from the secret seed), write public files byte-for-byte reproducibly, and
seal hidden labels with the platform key. Doing that once here keeps builders short and makes
"rebuild reproduces the committed files" true for all of them.
"""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.spec import PART_COLUMN, CompetitionSpec
from evaluator.errors import ConfigError
from evaluator.submission import envelope
from evaluator.submission.commit import record_label_commitment

PUBLIC, PRIVATE = "public", "private"
MAX_CLASS_STRATA = 20  # a target with more distinct values is stratified by quantile bins


def read_seed(path: Path) -> str:
    """The secret build seed (never printed, never committed)."""
    try:
        seed = Path(path).read_text(encoding="utf-8").strip()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the build seed: {err.strerror}") from None
    if len(seed) < 16:
        raise ConfigError(f"{path}: the build seed is too short to be secret")
    return seed


def rng_for(seed: str, slug: str, purpose: str) -> np.random.Generator:
    """An independent generator per (competition, purpose), derived from the secret seed."""
    material = hashlib.sha256(f"{seed}\x00{slug}\x00{purpose}".encode()).digest()
    return np.random.default_rng(int.from_bytes(material[:16], "big"))


def remap_ids(n: int, rng: np.random.Generator, *, low: int = 10_000,
              high: int = 1_000_000) -> np.ndarray:
    """n distinct random ids, so public files cannot be joined back to the original dataset."""
    return rng.choice(np.arange(low, high), size=n, replace=False)


def write_csv(frame: pd.DataFrame, path: Path, *, float_format: str = "%.6g") -> None:
    """Deterministic CSV: LF line ends, no index, fixed float format."""
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False, lineterminator="\n", float_format=float_format)


def _strata(values: pd.Series, discrete: bool) -> np.ndarray:
    """Stratum per row: the class (or value) for discrete targets, a quantile bin otherwise;
    strata with a single member are pooled so that every stratum can be split."""
    if discrete or values.nunique() <= MAX_CLASS_STRATA:
        strata = values.astype(str).to_numpy()
    else:
        bins = max(2, min(10, len(values) // 10))
        strata = pd.qcut(values.rank(method="first"), q=bins, labels=False).astype(str)
        strata = strata.to_numpy()
    names, counts = np.unique(strata, return_counts=True)
    rare = set(names[counts < 2].tolist())
    if rare:
        strata = np.where(np.isin(strata, list(rare)), "\x00rare", strata)
        if (strata == "\x00rare").sum() < 2:  # one lone row: join the largest stratum
            names, counts = np.unique(strata[strata != "\x00rare"], return_counts=True)
            strata = np.where(strata == "\x00rare", names[np.argmax(counts)], strata)
    return strata


def draw_public_part(frame: pd.DataFrame, spec: CompetitionSpec, split: str,
                     seed: str, groups: pd.Series | None = None) -> pd.Series:
    """True for the rows of the public part of one hidden split, False for the private part.

    Why stratified and seeded: both parts must have the class balance (or value range) of the
    split so their scores estimate the same quantity, and nobody without the secret seed may
    be able to tell which ids are public. Rows are ordered by id first, so the draw depends
    only on the split's content, not on how a builder happened to order it.

    With `groups` (one label per row, aligned with `frame`'s index: the speaker of a
    recording, the molecule of two twin graphs) the public part is made of whole groups. Why:
    when public data ties the rows of a group together (same-speaker edges) and a group shares
    one label, a random row-level part puts every group in both parts, so probing the public
    score decodes each group's label and with it the private rows. Whole groups keep the
    private groups out of all feedback.
    """
    from sklearn.model_selection import train_test_split

    if spec.public_fraction is None:
        raise ConfigError(f"{spec.slug}: public_fraction is not set; nothing to draw")
    ordered = frame.sort_values(spec.id_column, kind="stable")
    n = len(ordered)
    n_public = int(np.floor(spec.public_fraction * n))
    if n_public < 1 or n_public >= n:
        raise ConfigError(f"{spec.slug}: split {split!r} has {n} rows; public_fraction "
                          f"{spec.public_fraction} leaves a part empty")
    target = spec.targets[0]
    strata = _strata(ordered[target.name], target.type == "class")
    state = int(rng_for(seed, spec.slug, f"public-part\x00{split}").integers(0, 2**32 - 1))
    if groups is not None:
        return _draw_groups(ordered, frame, spec, split, groups, strata, n_public, state)
    stratify: np.ndarray | None = strata
    if min(n_public, n - n_public) < len(set(strata.tolist())):
        stratify = None  # fewer rows in a part than strata: no stratified draw exists
    public_pos, _ = train_test_split(np.arange(n), train_size=n_public, random_state=state,
                                     stratify=stratify)
    flags = np.zeros(n, dtype=bool)
    flags[public_pos] = True
    return pd.Series(flags, index=ordered.index).reindex(frame.index)


def _draw_groups(ordered: pd.DataFrame, frame: pd.DataFrame, spec: CompetitionSpec,
                 split: str, groups: pd.Series, strata: np.ndarray, n_public: int,
                 state: int) -> pd.Series:
    """Public part = one fold of whole groups (scikit-learn's StratifiedGroupKFold, shuffled
    from the seed, folds of about `public_fraction` of the rows): a fold that leaves every
    stratum in the private part, then the one whose row count is nearest to `n_public`; groups
    are never split between the parts. With few groups a part can lack a class (one healthy
    speaker among six): it is then the public part, never the private one."""
    from sklearn.model_selection import StratifiedGroupKFold

    labels = groups.reindex(ordered.index)
    if labels.isna().any():
        raise ConfigError(f"{spec.slug}: `groups` does not cover every row of split {split!r}")
    labels = labels.astype(str).to_numpy()
    n_groups = len(set(labels.tolist()))
    folds = min(n_groups, max(2, round(1 / float(spec.public_fraction or 0.5))))
    if n_groups < 2:
        raise ConfigError(f"{spec.slug}: split {split!r} has {n_groups} group; a public part "
                          "of whole groups needs at least two")
    splitter = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=state)
    with warnings.catch_warnings():  # "least populated class < n_splits": expected, few groups
        warnings.simplefilter("ignore", UserWarning)
        candidates = [f for _, f in splitter.split(np.zeros(len(labels)), strata, labels)]
    every = set(strata.tolist())

    def rank(fold: np.ndarray) -> tuple[bool, int]:
        # the private part decides the final standings: keep every class (stratum) in it
        private = np.setdiff1d(np.arange(len(labels)), fold)
        return set(strata[private].tolist()) != every, abs(len(fold) - n_public)

    public_pos = min(candidates, key=rank)
    flags = np.zeros(len(labels), dtype=bool)
    flags[public_pos] = True
    return pd.Series(flags, index=ordered.index).reindex(frame.index)


def _check_parts(frame: pd.DataFrame, spec: CompetitionSpec, split: str) -> None:
    """Every metric on this split must be computable on each part alone (e.g. ROC-AUC needs
    both classes, NMAE a value range); a build that breaks this fails now, not at scoring."""
    from evaluator.scoring.score import metric_value

    for part in (PUBLIC, PRIVATE):
        truth = frame[frame[PART_COLUMN] == part].set_index(spec.id_column)
        for name, metric in spec.metrics.items():
            if metric.split != split:
                continue
            try:
                metric_value(spec, metric, truth, truth)
            except ValueError as err:
                raise ConfigError(f"{spec.slug}: metric {name!r} cannot be computed on the "
                                  f"{part} part of split {split!r}: {err}; change "
                                  "public_fraction") from None


def seal_labels(frame: pd.DataFrame, spec: CompetitionSpec, split: str,
                public_key: rsa.RSAPublicKey, path: Path, *, seed: str | None = None,
                public: pd.Series | None = None, groups: pd.Series | None = None,
                correction: str | None = None) -> None:
    """Encrypt one split's labels (id column + targets) to the platform key.

    With `public_fraction` in the spec, the sealed table also names each id's part (column
    `__part__`: public / private), drawn from the secret `seed` by `draw_public_part`, or
    given as `public` (True per public row, aligned with `frame`'s index) when two splits hold
    the same items and must share their parts (e.g. clean and perturbed copies of a molecule),
    or when a label fix keeps the parts already sealed (`authoring.relabel`; no seed needed).
    A split that declares `clusters` (rows that are not independent) needs `groups` (see
    `draw_public_part`) or an explicit `public`, so its public part is drawn as whole clusters.

    Also records the table's salted commitment in `commitments.json` beside it (the salt
    derived from `seed` when given, so a rebuild of the same labels keeps its commitment).
    `correction` (a label fix: what it corrects) makes that commitment a new label version and
    keeps the earlier one (`submission.commit.record_label_commitment`).
    """
    columns = [spec.id_column] + [t.name for t in spec.targets]
    missing = set(columns) - set(frame.columns)
    if missing:
        raise ConfigError(f"labels for split {split!r} lack columns {sorted(missing)}")
    frame = frame[columns]
    if spec.has_parts:
        if seed is None and public is None:
            raise ConfigError(f"{spec.slug}: public_fraction is set, so seal_labels(..., "
                              f"seed=seed) needs the build seed to draw split {split!r}'s "
                              "public part")
        declared = spec.splits[split].clusters if split in spec.splits else None
        if public is None and groups is None and declared is not None:
            raise ConfigError(f"{spec.slug}: split {split!r} declares clusters "
                              f"({declared.name!r}), so seal_labels(..., groups=...) needs "
                              "the cluster of every row: a public part that splits clusters "
                              "lets probes of the public score decode the private labels")
        if public is None:
            assert seed is not None  # refused above when neither is given
            public = draw_public_part(frame, spec, split, seed, groups)
        else:
            public = public.reindex(frame.index)
            if public.isna().any():
                raise ConfigError(f"{spec.slug}: `public` does not cover every row of split "
                                  f"{split!r}")
            public = public.astype(bool)
        frame = frame.assign(**{PART_COLUMN: np.where(public.to_numpy(), PUBLIC, PRIVATE)})
        _check_parts(frame, spec, split)
    data = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(envelope.seal(data, public_key,
                                   envelope.label_claims(spec.slug, spec.version, split)) + b"\n")
    # the public promise that these labels never change within this version (docs/results.md)
    record_label_commitment(path, spec.slug, spec.version, split, data, public_key, seed=seed,
                            correction=correction)


def sample_submission(ids: pd.Series, spec: CompetitionSpec) -> pd.DataFrame:
    """Every test id once with a valid default value (first class / 0.5 / 0.0)."""
    frame = pd.DataFrame({spec.id_column: ids.to_numpy()})
    for t in spec.targets:
        frame[t.name] = (t.classes or [0])[0] if t.type == "class" else (
            0.5 if t.type == "probability" else 0.0)
    return frame
