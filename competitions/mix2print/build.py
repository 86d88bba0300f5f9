"""Build mix2print (GNN-CB C17 Mix2Print) from the competition's own formulation graphs.

What the builder does, and why (see ../shared/datasets/mix2print/SOURCE.md):
- only the 303 formulations with published targets are used (the original test targets were
  never public); they are split again with the secret seed, **grouped by DOI** (all
  formulations of one paper land on the same side, as in the original), about 30% to test;
- the public files hold no DOI, no component text, no notes, needle or cell descriptions: the
  source database is public, and any of those is a lookup key into it. Each formulation is a
  fully connected graph of its materials: a material one-hot (36 materials) plus the
  concentration on every node, as in the original graphs;
- graph ids are random integers (the original ids follow the database's row order, which
  groups papers), and node order inside every graph is shuffled.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.build import remap_ids, rng_for, sample_submission, seal_labels, write_csv
from evaluator.errors import ConfigError
from evaluator.spec import load_spec

HERE = Path(__file__).resolve().parent
DATASET = "mix2print"
TEST_FRACTION = 0.3
TARGETS = ("pressure", "temperature", "speed")


def raw_folder(raw: Path) -> Path:
    for path in (raw, raw / DATASET):
        if (path / "raw" / "train.csv").is_file() and (path / "raw" / "train_graphs").is_dir():
            return path / "raw"
    raise ConfigError(f"{raw}: raw/train.csv and raw/train_graphs/ not found; pass "
                      f"../shared/datasets/{DATASET} or ../shared/datasets")


def plan(raw: Path, seed: str, slug: str = DATASET) -> pd.DataFrame:
    """One row per released formulation: original `id`, `DOI`, the new `graph_id`, `test`."""
    table = pd.read_csv(raw_folder(Path(raw)) / "train.csv").sort_values("id", ignore_index=True)
    from sklearn.model_selection import GroupShuffleSplit

    state = int(rng_for(seed, slug, "split").integers(2**31 - 1))
    _, test = next(GroupShuffleSplit(n_splits=1, test_size=TEST_FRACTION,
                                     random_state=state).split(table, groups=table["DOI"]))
    is_test = np.zeros(len(table), dtype=bool)
    is_test[test] = True
    return pd.DataFrame({"id": table["id"], "DOI": table["DOI"],
                         "graph_id": remap_ids(len(table), rng_for(seed, slug, "ids")),
                         "test": is_test, **{t: table[t] for t in TARGETS}})


def build(raw: Path, seed: str, out: Path, public_key) -> None:
    spec = load_spec(HERE)
    src = raw_folder(Path(raw))
    vocabulary = pd.read_csv(src / "node_vocabulary.txt", header=None, names=["code", "name"])
    material_columns = [f"mat_{c:02d}" for c in vocabulary["code"]]
    rows = plan(raw, seed, spec.slug)
    order_rng = rng_for(seed, spec.slug, "node-order")
    node_parts, edge_parts = {}, {}
    for original, gid in zip(rows["id"], rows["graph_id"], strict=True):
        x = np.load(src / "train_graphs" / f"graph_{original}_X.npy", allow_pickle=False)
        a = np.load(src / "train_graphs" / f"graph_{original}_A.npy", allow_pickle=False)
        n = len(x)
        if x.shape[1] != len(vocabulary) + 1 or not (a == 1).all():
            raise ConfigError(f"{src}/train_graphs/graph_{original}: expected a clique with "
                              f"{len(vocabulary)} one-hot columns + concentration")
        perm = order_rng.permutation(n)
        frame = pd.DataFrame(x[:, :-1].astype(int), columns=material_columns)
        frame.insert(0, "concentration", x[:, -1].astype(np.float64))
        frame.insert(0, "node", perm)
        frame.insert(0, "graph_id", gid)
        node_parts[gid] = frame.sort_values("node")
        src_idx, dst_idx = np.triu_indices(n, k=1)
        edge_parts[gid] = pd.DataFrame({"graph_id": gid, "src": src_idx, "dst": dst_idx})
    data = Path(out) / "data"
    ids = sorted(node_parts)
    write_csv(pd.concat([node_parts[g] for g in ids], ignore_index=True), data / "nodes.csv")
    write_csv(pd.concat([edge_parts[g] for g in ids], ignore_index=True), data / "edges.csv")
    write_csv(pd.DataFrame({"column": material_columns, "material": vocabulary["name"]}),
              data / "materials.csv")
    rows = rows.sort_values("graph_id", ignore_index=True)
    train, test = rows[~rows["test"]], rows[rows["test"]]
    write_csv(train[["graph_id", *TARGETS]], data / "train_labels.csv")
    write_csv(test[["graph_id"]], data / "test_ids.csv")
    write_csv(sample_submission(test["graph_id"], spec), data / "sample_submission.csv")
    seal_labels(test, spec, "test", public_key, Path(out) / "hidden" / "test_labels.jwe",
                seed=seed)
