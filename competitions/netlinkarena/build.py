"""Build netlinkarena (GNN-CB C10 NetLinkArena) from the Planetoid CiteSeer files.

Raw input: `../shared/datasets/citeseer/derived/` (edges, binary bag-of-words features). What
the build changes, all from the secret seed:

- node ids remapped, rows reordered by the new id;
- features (GNN-CB: "feature permutation and noise injection"): columns permuted, then
  FLIP_FRACTION of the present words removed and as many absent words switched on at random
  positions, so the matrix stays sparse and binary;
- the 4,552 undirected citation links are split 85 / 5 / 10 % into train / validation / test
  positives; only train positives form the public graph. Every split gets as many negative
  pairs (two papers that do not cite each other, uniformly sampled, never a real link, never
  repeated) as positives. Pair ids are random integers shared by no other pair.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.spec import load_spec

SLUG = "netlinkarena"
FLIP_FRACTION = 0.1
VAL_FRACTION, TEST_FRACTION = 0.05, 0.10


def load_raw(raw: Path) -> tuple[sparse.csr_matrix, np.ndarray]:
    derived = Path(raw) / "derived"
    n = len(pd.read_csv(derived / "labels.csv"))
    feats = pd.read_csv(derived / "features.csv")
    x = sparse.csr_matrix((np.ones(len(feats), dtype=np.float32),
                           (feats["node"].to_numpy(), feats["feature"].to_numpy())),
                          shape=(n, int(feats["feature"].max()) + 1))
    edges = pd.read_csv(derived / "edges.csv")[["source", "target"]].to_numpy()
    return x, edges


def perturb(x: sparse.csr_matrix, rng: np.random.Generator) -> sparse.csr_matrix:
    """Permute columns, drop FLIP_FRACTION of the ones, add as many ones elsewhere."""
    x = x[:, rng.permutation(x.shape[1])].tocoo()
    keep = rng.random(x.nnz) >= FLIP_FRACTION
    rows, cols = x.row[keep], x.col[keep]
    n_add = int((~keep).sum())
    present = set(zip(x.row.tolist(), x.col.tolist(), strict=True))
    add: set[tuple[int, int]] = set()
    while len(add) < n_add:
        r, c = int(rng.integers(x.shape[0])), int(rng.integers(x.shape[1]))
        if (r, c) not in present:
            add.add((r, c))
    extra = np.array(sorted(add), dtype=np.int64).reshape(-1, 2)
    rows, cols = np.concatenate([rows, extra[:, 0]]), np.concatenate([cols, extra[:, 1]])
    out = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=x.shape)
    out.sort_indices()
    return out


def negatives(n: int, count: int, forbidden: set[tuple[int, int]],
              rng: np.random.Generator) -> np.ndarray:
    """`count` distinct unordered non-edges (u < v) not in `forbidden` (which grows)."""
    found = []
    while len(found) < count:
        u, v = (int(a) for a in rng.integers(n, size=2))
        pair = (min(u, v), max(u, v))
        if u != v and pair not in forbidden:
            forbidden.add(pair)
            found.append(pair)
    return np.array(found, dtype=np.int64)


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(Path(__file__).parent)
    x, edges = load_raw(raw)
    n = x.shape[0]
    ids = remap_ids(n, rng_for(seed, SLUG, "ids"))
    x = perturb(x, rng_for(seed, SLUG, "noise"))

    edges = np.sort(edges, axis=1)
    rng = rng_for(seed, SLUG, "split")
    order = rng.permutation(len(edges))
    n_test, n_val = round(TEST_FRACTION * len(edges)), round(VAL_FRACTION * len(edges))
    test_pos, val_pos = edges[order[:n_test]], edges[order[n_test:n_test + n_val]]
    train_pos = edges[order[n_test + n_val:]]
    forbidden = {tuple(e) for e in edges.tolist()}
    parts = {}
    for name, pos in (("train", train_pos), ("val", val_pos), ("test", test_pos)):
        neg = negatives(n, len(pos), forbidden, rng)
        pairs = np.vstack([pos, neg])
        parts[name] = (pairs, np.r_[np.ones(len(pos), int), np.zeros(len(neg), int)])
    total = sum(len(p) for p, _ in parts.values())
    pair_ids = remap_ids(total, rng_for(seed, SLUG, "pair-ids"))

    data = Path(out) / "data"
    order_nodes = np.argsort(ids)
    write_csv(pd.DataFrame({"id": ids[order_nodes]}), data / "nodes.csv")
    sparse.save_npz(data / "features.npz", x[order_nodes], compressed=True)
    graph = pd.DataFrame({"src": ids[train_pos[:, 0]], "dst": ids[train_pos[:, 1]]})
    graph[["src", "dst"]] = np.sort(graph.to_numpy(), axis=1)
    write_csv(graph.sort_values(["src", "dst"]), data / "edges.csv")
    start = 0
    tables = {}
    for name, (pairs, labels) in parts.items():
        a, b = ids[pairs[:, 0]], ids[pairs[:, 1]]
        tables[name] = pd.DataFrame({
            "id": pair_ids[start:start + len(pairs)], "src": np.minimum(a, b),
            "dst": np.maximum(a, b), "link": labels}).sort_values("id")
        start += len(pairs)
    write_csv(tables["train"], data / "train_pairs.csv")
    write_csv(tables["val"], data / "val_pairs.csv")
    write_csv(tables["test"][["id", "src", "dst"]], data / "test_pairs.csv")
    write_csv(sample_submission(tables["test"]["id"], spec), data / "sample_submission.csv")
    seal_labels(tables["test"][["id", "link"]], spec, "test", public_key,
                Path(out) / "hidden" / "test_labels.jwe", seed=seed)
