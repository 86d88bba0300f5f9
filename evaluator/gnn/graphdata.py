"""Reading the public layout of a graph-level competition (molecules), without torch.

The layout (gnn-bace, gta, solubility, mix-props):

- `nodes.csv`: `graph_id,node` + numeric node-feature columns, one row per atom;
- `edges.csv`: `graph_id,src,dst,bond_type` (bond_type 1 single .. 4 aromatic), each bond once;
- `train_labels.csv`: `graph_id` + the target column(s);
- one or more test id files: `test_ids.csv`, or e.g. `test_ideal_ids.csv` and
  `test_perturbed_ids.csv`.

Why torch-free: the non-graph baselines (pooled features + scikit-learn) read the same files and
must run where torch is not installed; `graphlevel` builds the PyG graphs on top of this.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

GRAPH_ID = "graph_id"
SMOKE_GRAPHS = 150  # training graphs kept by --smoke: enough for every class, seconds to run


def read_graph_labels(data: Path, test_files: Sequence[str], *, smoke: bool,
                      rng: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray]:
    """(training labels, test graph ids in file order). `--smoke` keeps a random
    `SMOKE_GRAPHS` training graphs drawn with `rng` (the caller's generator, so that any later
    draw, e.g. a validation split, continues the same stream)."""
    data = Path(data)
    train = pd.read_csv(data / "train_labels.csv")
    test_ids = np.concatenate([pd.read_csv(data / f)[GRAPH_ID].to_numpy() for f in test_files])
    if smoke:
        train = train.iloc[rng.permutation(len(train))[:SMOKE_GRAPHS]]
    return train, test_ids


def pooled_features(data: Path) -> pd.DataFrame:
    """Per graph (index `graph_id`): sum of every node feature + number of atoms, a bag of atoms.

    Bonds and topology are ignored on purpose: this is the non-graph reference, so the gap to a
    GNN is what the graph adds."""
    nodes = pd.read_csv(Path(data) / "nodes.csv")
    features = nodes.drop(columns=["node"]).groupby(GRAPH_ID).sum()
    features["num_atoms"] = nodes.groupby(GRAPH_ID).size()
    return features
