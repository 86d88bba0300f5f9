"""Build diagraph (GNN-CB C06 DiaGraph) from the Kaggle diabetes table it was made from.

What the builder does, and why (see ../shared/datasets/diagraph/SOURCE.md):
- rows as DiaGraph made its nodes: the Kaggle table without exact duplicate rows (first kept)
  and without gender "Other", 96,128 patients (checked against `derived/node_id_map.csv`);
- 13 features: female, age, hypertension, heart disease, smoking history (6-way one-hot), BMI,
  HbA1c, blood glucose. The original competition's noisy features are lost, so the noise is
  made here: Gaussian noise of 0.2 standard deviations on the four continuous features and 2%
  of the binary flags flipped. Besides making the task the noisy one of the original, this
  breaks the known leak: the original test labels are the public Kaggle labels at those rows,
  and exact feature values would join every row back to the public table;
- the original edges are lost too: the graph is the 12-nearest-neighbour graph of the public
  (noisy, standardised) features, symmetrised, each undirected pair once (the paper's
  E = 1.2M is about 96K x 12);
- our own stratified split with the secret seed, of the original's sizes: 67,289 train, 9,613
  validation (public, clean labels), 19,226 test; 5% of the TRAINING labels are flipped, as in
  the original (whose train labels disagree with the clean ones on 5.0% of the rows);
- ids are random; the public files are compact: features and edges in `.npz`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.errors import ConfigError
from evaluator.spec import load_spec

HERE = Path(__file__).resolve().parent
DATASET = "diagraph"
N_TRAIN, N_VAL, N_TEST = 67_289, 9_613, 19_226
K = 12
FEATURE_NOISE = 0.2  # standard deviations, continuous features
FLAG_FLIP = 0.02  # binary features
LABEL_FLIP = 0.05  # training labels only
SMOKING = ("No Info", "current", "ever", "former", "never", "not current")
CONTINUOUS = ("age", "bmi", "HbA1c_level", "blood_glucose_level")
COLUMNS = ("female", "age", "hypertension", "heart_disease",
           *(f"smoking_{s.replace(' ', '_').lower()}" for s in SMOKING), "bmi", "hba1c",
           "blood_glucose")


def raw_folder(raw: Path) -> Path:
    for path in (raw, raw / DATASET):
        if (path / "raw" / "diabetes_prediction_dataset.csv").is_file():
            return path
    raise ConfigError(f"{raw}: raw/diabetes_prediction_dataset.csv not found; pass "
                      f"../shared/datasets/{DATASET} or ../shared/datasets")


def patients(raw: Path) -> pd.DataFrame:
    """DiaGraph's node table: dedup (keep first), drop gender 'Other', reset the index."""
    src = raw_folder(Path(raw))
    table = pd.read_csv(src / "raw" / "diabetes_prediction_dataset.csv")
    table = table.drop_duplicates(keep="first")
    table = table[table["gender"] != "Other"].reset_index(drop=True)
    check = src / "derived" / "node_id_map.csv"
    if check.is_file() and not pd.read_csv(check)["diabetes"].equals(table["diabetes"]):
        raise ConfigError(f"{check}: the node order differs from DiaGraph's rule")
    unknown = set(table["smoking_history"]) - set(SMOKING)
    if unknown:
        raise ConfigError(f"{src}: unknown smoking_history values {sorted(unknown)}")
    return table


def noisy_features(table: pd.DataFrame, rng: np.random.Generator) -> np.ndarray:
    flags = np.column_stack([
        (table["gender"] == "Female").to_numpy(), table["hypertension"].to_numpy() == 1,
        table["heart_disease"].to_numpy() == 1])
    flags = flags ^ (rng.random(flags.shape) < FLAG_FLIP)
    smoking = np.column_stack([(table["smoking_history"] == s).to_numpy() for s in SMOKING])
    cont = table[list(CONTINUOUS)].to_numpy(np.float64)
    cont = cont + rng.normal(0.0, 1.0, cont.shape) * FEATURE_NOISE * cont.std(axis=0)
    out = np.column_stack([flags[:, 0], cont[:, 0], flags[:, 1], flags[:, 2], smoking,
                           cont[:, 1:]]).astype(np.float64)
    return np.round(out, 3).astype(np.float32)


def knn_edges(x: np.ndarray) -> np.ndarray:
    """Undirected k-NN pairs (row positions, i < j, sorted) on standardised features."""
    from sklearn.neighbors import NearestNeighbors

    z = (x - x.mean(axis=0)) / x.std(axis=0)
    _, nbr = NearestNeighbors(n_neighbors=K + 1, algorithm="kd_tree").fit(z).kneighbors(z)
    src = np.repeat(np.arange(len(x)), K)
    dst = nbr[:, 1:].ravel()
    pairs = np.unique(np.sort(np.column_stack([src, dst]), axis=1), axis=0)
    return pairs[pairs[:, 0] != pairs[:, 1]]


def split(labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """0 train / 1 validation / 2 test, stratified, of the original's sizes."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(labels))
    rest, test = train_test_split(rows, test_size=N_TEST, stratify=labels,
                                  random_state=int(rng.integers(2**31 - 1)))
    train, val = train_test_split(rest, test_size=N_VAL, stratify=labels[rest],
                                  random_state=int(rng.integers(2**31 - 1)))
    part = np.zeros(len(labels), dtype=np.int64)
    part[val], part[test] = 1, 2
    return part


def plan(raw: Path, seed: str, slug: str = DATASET) -> tuple[pd.DataFrame, np.ndarray]:
    """Rows in public order: Kaggle-derived `row` (DiaGraph's node id), new `id`, `part`
    (0 train, 1 validation, 2 test), clean `label`, published `noisy` label; and the noisy
    features in the same order."""
    table = patients(raw)
    labels = table["diabetes"].to_numpy(np.int64)
    if len(table) != N_TRAIN + N_VAL + N_TEST:
        raise ConfigError(f"{raw}: {len(table)} patients, expected {N_TRAIN + N_VAL + N_TEST}")
    x = noisy_features(table, rng_for(seed, slug, "feature-noise"))
    part = split(labels, rng_for(seed, slug, "split"))
    ids = remap_ids(len(table), rng_for(seed, slug, "ids"), high=10_000_000)
    order = np.argsort(ids)  # public row order: by id, not the Kaggle order
    x, labels, part, ids = x[order], labels[order], part[order], ids[order]
    noisy = labels.copy()
    flip = (part == 0) & (rng_for(seed, slug, "label-noise").random(len(labels)) < LABEL_FLIP)
    noisy[flip] = 1 - noisy[flip]
    return pd.DataFrame({"row": order, "id": ids, "part": part, "label": labels,
                         "noisy": noisy}), x


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(HERE)
    frame, x = plan(raw, seed, spec.slug)
    ids, part = frame["id"].to_numpy(), frame["part"].to_numpy()
    pairs = knn_edges(x)

    data = Path(out) / "data"
    data.mkdir(parents=True, exist_ok=True)
    write_csv(pd.DataFrame({"id": ids}), data / "nodes.csv")
    with open(data / "features.npz", "wb") as fh:
        np.savez_compressed(fh, features=x, columns=np.array(COLUMNS))
    with open(data / "edges.npz", "wb") as fh:
        np.savez_compressed(fh, src=ids[pairs[:, 0]].astype(np.int32),
                            dst=ids[pairs[:, 1]].astype(np.int32))
    write_csv(frame.loc[part == 0, ["id", "noisy"]].rename(columns={"noisy": "label"}),
              data / "train_labels.csv")
    write_csv(frame.loc[part == 1, ["id", "label"]], data / "val_labels.csv")
    test = frame[part == 2]
    write_csv(test[["id"]], data / "test_ids.csv")
    write_csv(sample_submission(test["id"], spec), data / "sample_submission.csv")
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)
