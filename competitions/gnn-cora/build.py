"""Build gnn-cora (GNN-CB C12 GNN-CoRA) from the Planetoid Cora files.

Raw input: `../shared/datasets/cora` (its pickle-free `derived/` CSV exports of the Planetoid
pickles: edges, labels, binary bag-of-words features). What the build changes, all drawn from
the secret seed so the public repository alone cannot undo it:

- node ids are remapped to random integers and rows reordered by the new id;
- feature columns are permuted and every entry gets Gaussian noise N(0, SIGMA^2) (GNN-CB's
  "Gaussian noise is injected into the node-feature representations"), then rounded to
  multiples of 1/16 and stored as float16 so the dense matrix stays a few MB;
- a new split of the standard size: 20 training nodes per class (140), 500 validation and
  1,000 test nodes, drawn at random (not the Planetoid split, whose labels are public).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.spec import load_spec

SLUG = "gnn-cora"
SIGMA = 0.3  # noise std on binary features: a feature-only model drops to ~25% accuracy
QUANT = 16  # store features rounded to multiples of 1/QUANT (exact in float16)
PER_CLASS_TRAIN, N_VAL, N_TEST = 20, 500, 1000


def load_raw(raw: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Binary features (n x 1433), labels (n,), undirected edges (E x 2, each once)."""
    derived = Path(raw) / "derived"
    labels = pd.read_csv(derived / "labels.csv").sort_values("node")
    n = len(labels)
    if not np.array_equal(labels["node"].to_numpy(), np.arange(n)):
        raise ValueError(f"{derived / 'labels.csv'}: nodes are not 0..{n - 1}")
    feats = pd.read_csv(derived / "features.csv")
    x = np.zeros((n, int(feats["feature"].max()) + 1), dtype=np.float32)
    x[feats["node"].to_numpy(), feats["feature"].to_numpy()] = 1.0
    edges = pd.read_csv(derived / "edges.csv")[["source", "target"]].to_numpy()
    return x, labels["label"].to_numpy(), edges


def split(y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """20 per class for training, then 500 validation and 1,000 test nodes at random."""
    train = np.concatenate([rng.choice(np.flatnonzero(y == c), PER_CLASS_TRAIN, replace=False)
                            for c in np.unique(y)])
    rest = rng.permutation(np.setdiff1d(np.arange(len(y)), train))
    return np.sort(train), np.sort(rest[:N_VAL]), np.sort(rest[N_VAL:N_VAL + N_TEST])


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(Path(__file__).parent)
    x, y, edges = load_raw(raw)
    n = len(y)
    ids = remap_ids(n, rng_for(seed, SLUG, "ids"))
    train, val, test = split(y, rng_for(seed, SLUG, "split"))

    noise_rng = rng_for(seed, SLUG, "noise")
    x = x[:, noise_rng.permutation(x.shape[1])]
    x = x + noise_rng.normal(0.0, SIGMA, size=x.shape)
    x = (np.round(x * QUANT) / QUANT).astype(np.float16)

    order = np.argsort(ids)  # public row order: by new id, unrelated to the original order
    data = Path(out) / "data"
    data.mkdir(parents=True, exist_ok=True)
    write_csv(pd.DataFrame({"id": ids[order]}), data / "nodes.csv")
    np.savez_compressed(data / "features.npz", features=x[order])
    a, b = ids[edges[:, 0]], ids[edges[:, 1]]
    edge_frame = pd.DataFrame({"src": np.minimum(a, b), "dst": np.maximum(a, b)})
    write_csv(edge_frame.drop_duplicates().sort_values(["src", "dst"]), data / "edges.csv")

    def table(rows: np.ndarray, with_label: bool) -> pd.DataFrame:
        frame = pd.DataFrame({"id": ids[rows], "label": y[rows]}).sort_values("id")
        return frame if with_label else frame[["id"]]

    write_csv(table(train, True), data / "train_labels.csv")
    write_csv(table(val, True), data / "val_labels.csv")
    write_csv(table(test, False), data / "test_ids.csv")
    write_csv(sample_submission(table(test, False)["id"], spec), data / "sample_submission.csv")
    seal_labels(table(test, True), spec, "test", public_key,
                Path(out) / "hidden" / "test_labels.jwe", seed=seed)
