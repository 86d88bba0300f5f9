"""Reading the standard public layout of a node-classification competition.

The layout (what `gnncb competition new` scaffolds and the node competitions ship):

- `nodes.csv`: `id` column (+ optional dense feature columns), one row per node;
- `features.npz` (optional): features row-aligned with `nodes.csv`, either a dense array under
  key `features` (`numpy.load`) or a SciPy sparse matrix (`scipy.sparse.save_npz`);
- `edges.csv`: `src,dst` (+ optional extra columns), each undirected edge listed once; or,
  for large graphs, `edges.npz` with arrays `src` and `dst` of node ids (`numpy.load`);
- `train_labels.csv` (+ optional `val_labels.csv`): `id,<target>`;
- `test_ids.csv`: `id`, the rows to predict.

Ids are arbitrary integers; everything here maps them to row positions and fails with a message
naming the file when an id is unknown.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

ID = "id"


@dataclass
class NodeTask:
    ids: np.ndarray  # node ids in row order
    x: np.ndarray | sparse.csr_matrix  # features, row-aligned with ids
    edges: np.ndarray  # (2, E) row positions, each undirected edge once
    target: str
    train_idx: np.ndarray
    y_train: np.ndarray
    val_idx: np.ndarray
    y_val: np.ndarray
    test_idx: np.ndarray

    @property
    def test_ids(self) -> np.ndarray:
        return self.ids[self.test_idx]


def positions(index: pd.Index, ids: np.ndarray | pd.Series, source: str) -> np.ndarray:
    """Row positions of `ids` in `index`; unknown ids are an error naming `source`."""
    pos = index.get_indexer(np.asarray(ids))
    if (pos < 0).any():
        bad = np.asarray(ids)[pos < 0][:5].tolist()
        raise ValueError(f"{source}: {int((pos < 0).sum())} ids are not in nodes.csv, e.g. {bad}")
    return pos


def load_features(data: Path, nodes: pd.DataFrame) -> np.ndarray | sparse.csr_matrix:
    """`features.npz` when present (dense or sparse), else the non-id columns of nodes.csv."""
    path = data / "features.npz"
    if not path.is_file():
        return nodes.drop(columns=[ID]).to_numpy(np.float32)
    with zipfile.ZipFile(path) as zf:
        is_sparse = "indptr.npy" in zf.namelist() or "row.npy" in zf.namelist()
    if is_sparse:
        x = sparse.load_npz(path).tocsr().astype(np.float32)
    else:
        with np.load(path) as npz:
            x = np.asarray(npz["features"], dtype=np.float32)
    if x.shape[0] != len(nodes):
        raise ValueError(f"{path}: {x.shape[0]} rows but nodes.csv has {len(nodes)} nodes")
    return x


def read_edges(data: Path) -> pd.DataFrame:
    """`src,dst` node ids from edges.csv, or from edges.npz when there is no CSV."""
    if not (data / "edges.csv").is_file() and (data / "edges.npz").is_file():
        with np.load(data / "edges.npz", allow_pickle=False) as npz:
            return pd.DataFrame({"src": npz["src"], "dst": npz["dst"]})
    return pd.read_csv(data / "edges.csv")


def load_node_task(data: Path) -> NodeTask:
    """Everything a transductive node-classification baseline needs, as arrays."""
    data = Path(data)
    nodes = pd.read_csv(data / "nodes.csv")
    index = pd.Index(nodes[ID])
    edges = read_edges(data)
    edge_pos = np.vstack([positions(index, edges["src"], "edges.csv src"),
                          positions(index, edges["dst"], "edges.csv dst")])
    train = pd.read_csv(data / "train_labels.csv")
    target = next(c for c in train.columns if c != ID)
    val_path = data / "val_labels.csv"
    val = pd.read_csv(val_path) if val_path.is_file() else train.iloc[:0]
    test = pd.read_csv(data / "test_ids.csv")
    return NodeTask(
        ids=nodes[ID].to_numpy(), x=load_features(data, nodes), edges=edge_pos, target=target,
        train_idx=positions(index, train[ID], "train_labels.csv"),
        y_train=train[target].to_numpy(),
        val_idx=positions(index, val[ID], "val_labels.csv"), y_val=val[target].to_numpy(),
        test_idx=positions(index, test[ID], "test_ids.csv"))


def holdout(idx: np.ndarray, y: np.ndarray, fraction: float,
            seed: int = 25) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A stratified validation slice of the training rows, for competitions without val labels."""
    from sklearn.model_selection import train_test_split

    a, b, ya, yb = train_test_split(idx, y, test_size=fraction, random_state=seed, stratify=y)
    return a, ya, b, yb


def write_predictions(path: Path, ids: np.ndarray, target: str | Sequence[str],
                      values: np.ndarray, *, id_column: str = ID,
                      float_format: str | None = None) -> None:
    """The submission CSV: id column + the target column(s), LF line ends. With several
    targets, `values` has one column per target, in the order of `target`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(target, str):
        columns = {target: values}
    else:
        table = np.asarray(values).reshape(len(ids), len(target))
        columns = {name: table[:, i] for i, name in enumerate(target)}
    pd.DataFrame({id_column: ids, **columns}).to_csv(
        path, index=False, lineterminator="\n", float_format=float_format)
