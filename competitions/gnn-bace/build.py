"""Build gnn-bace (GNN-CB C05 GNN_BACE) from MoleculeNet's `bace.csv`.

What the builder does, and why (GNN-CB's anti-contamination edits for C05):
- molecules become graphs with `evaluator.build` (8 atom types one-hot + 5 atom features, bonds
  as undirected edges with a bond type); the 590 precomputed descriptor columns of `bace.csv`
  are dropped, as is pIC50, so no descriptor can stand in for the graph;
- scaffold split: molecules are grouped by Bemis-Murcko scaffold and whole groups go to test
  (about 20% of molecules), so test chemotypes are unseen in training; the group order is drawn
  from the secret seed, so the public repository cannot reproduce the split;
- severe class imbalance: in TRAIN only, inhibitors are subsampled to one per POSITIVES_PER
  negatives (1:5, about 17% positives); the test set keeps its natural ratio, so a model that
  just learns the training prior under-predicts inhibitors, and macro-F1 punishes that;
- graph ids are random and node order inside every graph is shuffled, so rows cannot be joined
  back to the published SMILES order.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import (
    featurize,
    graph_tables,
    murcko_scaffold,
    permute_nodes,
    remap_ids,
    rng_for,
    sample_submission,
    seal_labels,
    write_csv,
)
from evaluator.errors import ConfigError
from evaluator.spec import load_spec

HERE = Path(__file__).resolve().parent
RAW_FILE = "bace.csv"
DATASET = "bace"
TEST_FRACTION = 0.2
POSITIVES_PER = 5  # training set keeps 1 inhibitor per 5 non-inhibitors


def raw_file(raw: Path) -> Path:
    """Accept the file itself, its dataset folder, or the datasets root (../shared/datasets)."""
    for path in (raw, raw / RAW_FILE, raw / DATASET / RAW_FILE):
        if path.is_file() and path.name == RAW_FILE:
            return path
    raise ConfigError(f"{raw}: {RAW_FILE} not found; pass the file, its folder or the datasets "
                      f"root holding {DATASET}/{RAW_FILE}")


def scaffold_split(scaffolds: list[str], rng: np.random.Generator,
                   test_fraction: float) -> np.ndarray:
    """Boolean test mask: whole scaffold groups go to test until it holds `test_fraction`.

    Groups bigger than half the test budget always stay in train (one chemotype must not be
    half of the test set); the other groups are visited in a seed-drawn order and taken while
    they fit, as in chemprop's balanced scaffold split.
    """
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(scaffolds):
        groups.setdefault(s, []).append(i)
    budget = int(round(test_fraction * len(scaffolds)))
    keys = sorted(groups)  # sorted first: the draw must not depend on dict insertion order
    small = [k for k in keys if len(groups[k]) <= budget / 2]
    test = np.zeros(len(scaffolds), dtype=bool)
    taken = 0
    for k in (small[i] for i in rng.permutation(len(small))):
        if taken + len(groups[k]) <= budget:
            test[groups[k]] = True
            taken += len(groups[k])
    return test


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(HERE)
    table = pd.read_csv(raw_file(Path(raw)))
    smiles = table["mol"].astype(str).tolist()
    labels = table["Class"].to_numpy(dtype=np.int64)
    where = [f"{RAW_FILE} row {i + 2}" for i in range(len(table))]

    is_test = scaffold_split([murcko_scaffold(s, w) for s, w in zip(smiles, where, strict=True)],
                             rng_for(seed, spec.slug, "scaffold-split"), TEST_FRACTION)
    train_pos = np.flatnonzero(~is_test & (labels == 1))
    train_neg = np.flatnonzero(~is_test & (labels == 0))
    keep = len(train_neg) // POSITIVES_PER
    kept_pos = rng_for(seed, spec.slug, "subsample").choice(train_pos, size=keep, replace=False)
    released = np.sort(np.concatenate([train_neg, kept_pos, np.flatnonzero(is_test)]))

    ids = remap_ids(len(released), rng_for(seed, spec.slug, "ids"))
    node_rng = rng_for(seed, spec.slug, "node-order")
    graphs = [permute_nodes(featurize(smiles[i], where[i]), node_rng) for i in released]
    nodes, edges = graph_tables(graphs, ids)

    data = Path(out) / "data"
    write_csv(nodes, data / "nodes.csv")
    write_csv(edges, data / "edges.csv")
    idc = spec.id_column
    frame = pd.DataFrame({idc: ids, "label": labels[released], "test": is_test[released]})
    frame = frame.sort_values(idc, ignore_index=True)
    train, test = frame[~frame["test"]], frame[frame["test"]]
    write_csv(train[[idc, "label"]], data / "train_labels.csv")
    write_csv(test[[idc]], data / "test_ids.csv")
    write_csv(sample_submission(test[idc], spec), data / "sample_submission.csv")
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)
