"""Build park-gnn (GNN-CB C11 PARK-GNN) from the UCI Parkinson's voice recordings.

Raw input: `../shared/datasets/parkinsons/parkinsons.data` (195 recordings x 22 acoustic
measures, 32 subjects). GNN-CB turned this table into a graph; so does this build:

- features are z-scored over all recordings and get Gaussian noise N(0, NOISE^2) (in standard
  deviations), so rows cannot be joined exactly to the public UCI file;
- edges: the k=5 nearest neighbours of every recording in the (noisy, standardised) feature
  space, symmetrised, plus an edge between every two recordings of the same subject;
- the 156/39 split is by SUBJECT (all recordings of a subject on one side), drawn from the
  secret seed. A recording-level split would let the same-subject edges copy a test subject's
  diagnosis from its own training recordings; 39 test recordings = the three 7-recording
  subjects + three 6-recording subjects, with one or two healthy subjects among the six;
- recording names (which carry the subject id) are dropped and ids remapped;
- the public part of the test split (the 30 % scored in PR answers) is two whole test
  subjects, so no feedback ever depends on a private subject's recordings.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.neighbors import kneighbors_graph

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.spec import load_spec

SLUG = "park-gnn"
K = 5
NOISE = 0.1
N_TEST = 39


def load_raw(raw: Path) -> pd.DataFrame:
    frame = pd.read_csv(Path(raw) / "parkinsons.data")
    frame["subject"] = frame["name"].str.extract(r"_S(\d+)_", expand=False).astype(int)
    return frame


def test_subjects(frame: pd.DataFrame, rng: np.random.Generator) -> np.ndarray:
    """Subjects whose recordings (39 in all) form the test set; see the module docstring."""
    per = frame.groupby("subject").agg(n=("status", "size"), pd_=("status", "max"))
    sevens = per.index[per["n"] == 7].to_numpy()
    sixes = per.index[per["n"] == 6].to_numpy()
    if len(sevens) * 7 + 3 * 6 != N_TEST:
        raise ValueError(f"expected three 7-recording subjects, found {len(sevens)}")
    healthy = set(per.index[per["pd_"] == 0])
    for _ in range(1000):
        chosen = np.concatenate([sevens, rng.choice(sixes, 3, replace=False)])
        if 1 <= len(healthy & set(chosen.tolist())) <= 2:
            return np.sort(chosen)
    raise ValueError("no subject split with 1-2 healthy test subjects found")


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(Path(__file__).parent)
    frame = load_raw(raw)
    n = len(frame)
    feature_cols = [c for c in frame.columns if c not in ("name", "status", "subject")]
    x = frame[feature_cols].to_numpy(float)
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    x = np.round(x + rng_for(seed, SLUG, "noise").normal(0.0, NOISE, size=x.shape), 4)

    ids = remap_ids(n, rng_for(seed, SLUG, "ids"))
    is_test = frame["subject"].isin(test_subjects(frame, rng_for(seed, SLUG, "split"))).to_numpy()

    knn = kneighbors_graph(x, n_neighbors=K, include_self=False).tocoo()
    pairs = {}
    for i, j in zip(knn.row.tolist(), knn.col.tolist(), strict=True):
        pairs.setdefault((min(i, j), max(i, j)), [0, 0])[0] = 1
    subject = frame["subject"].to_numpy()
    for s in np.unique(subject):
        members = np.flatnonzero(subject == s)
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                pairs.setdefault((members[a], members[b]), [0, 0])[1] = 1
    src = np.array([ids[i] for i, _ in pairs])
    dst = np.array([ids[j] for _, j in pairs])
    flags = np.array(list(pairs.values()))
    edges = pd.DataFrame({"src": np.minimum(src, dst), "dst": np.maximum(src, dst),
                          "knn": flags[:, 0], "same_subject": flags[:, 1]})

    data = Path(out) / "data"
    nodes = pd.DataFrame(x, columns=feature_cols)
    nodes.insert(0, "id", ids)
    write_csv(nodes.sort_values("id"), data / "nodes.csv", float_format="%.4f")
    write_csv(edges.sort_values(["src", "dst"]), data / "edges.csv")
    labels = pd.DataFrame({"id": ids, "label": frame["status"].to_numpy()})
    write_csv(labels[~is_test].sort_values("id"), data / "train_labels.csv")
    test = labels[is_test].sort_values("id")
    write_csv(test[["id"]], data / "test_ids.csv")
    write_csv(sample_submission(test["id"], spec), data / "sample_submission.csv")
    # the public part (feedback) is whole speakers: the same-speaker edges would otherwise map
    # every public recording to the private recordings of its speaker, one label each
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed, groups=pd.Series(subject, index=labels.index))
