"""Build octonode (GNN-CB C15 OctoNode Cup) from the MUSAE GitHub social network.

Raw input: `../shared/datasets/github-musae` (SNAP "GitHub Social Network": 37,700 developers,
289,003 mutual-follower edges, sparse binary features, label 1 = machine-learning developer,
0 = web developer). What the build changes, all from the secret seed:

- node ids remapped and GitHub logins dropped, rows reordered by the new id;
- the 4,005 feature columns permuted (the feature ids carry no public meaning either way);
- a new stratified 70/30 split of the nodes into training and test.

SNAP's README.txt and citing.txt are copied unchanged into data/ (GPL-3.0 attribution).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.spec import load_spec

SLUG = "octonode"
TEST_FRACTION = 0.3
N_FEATURES = 4005


def load_raw(raw: Path) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
    raw = Path(raw)
    target = pd.read_csv(raw / "musae_git_target.csv").sort_values("id")
    n = len(target)
    if not np.array_equal(target["id"].to_numpy(), np.arange(n)):
        raise ValueError(f"{raw / 'musae_git_target.csv'}: ids are not 0..{n - 1}")
    feats = json.loads((raw / "musae_git_features.json").read_text(encoding="utf-8"))
    rows = np.concatenate([np.full(len(v), int(k)) for k, v in feats.items()])
    cols = np.concatenate([np.asarray(v, dtype=np.int64) for v in feats.values()])
    x = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                          shape=(n, N_FEATURES))
    x.sum_duplicates()
    x.data[:] = 1.0
    edges = pd.read_csv(raw / "musae_git_edges.csv")[["id_1", "id_2"]].to_numpy()
    return x, target["ml_target"].to_numpy(), edges


def stratified_test(y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask: TEST_FRACTION of each class, at random."""
    mask = np.zeros(len(y), dtype=bool)
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        mask[rng.choice(members, round(TEST_FRACTION * len(members)), replace=False)] = True
    return mask


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(Path(__file__).parent)
    x, y, edges = load_raw(raw)
    n = len(y)
    ids = remap_ids(n, rng_for(seed, SLUG, "ids"))
    x = x[:, rng_for(seed, SLUG, "features").permutation(N_FEATURES)].tocsr()
    x.sort_indices()
    is_test = stratified_test(y, rng_for(seed, SLUG, "split"))

    data = Path(out) / "data"
    order = np.argsort(ids)
    write_csv(pd.DataFrame({"id": ids[order]}), data / "nodes.csv")
    sparse.save_npz(data / "features.npz", x[order], compressed=True)
    a, b = ids[edges[:, 0]], ids[edges[:, 1]]
    graph = pd.DataFrame({"src": np.minimum(a, b), "dst": np.maximum(a, b)})
    write_csv(graph.sort_values(["src", "dst"]), data / "edges.csv")
    labels = pd.DataFrame({"id": ids, "label": y})
    write_csv(labels[~is_test].sort_values("id"), data / "train_labels.csv")
    test = labels[is_test].sort_values("id")
    write_csv(test[["id"]], data / "test_ids.csv")
    write_csv(sample_submission(test["id"], spec), data / "sample_submission.csv")
    for name, dest in (("README.txt", "SNAP_README.txt"), ("citing.txt", "SNAP_citing.txt")):
        shutil.copyfile(Path(raw) / name, data / dest)
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)
