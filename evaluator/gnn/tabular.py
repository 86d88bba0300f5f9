"""Non-graph references: a scikit-learn model on features alone, the graph ignored.

Every competition ships such a baseline next to its GNN so that the leaderboard shows what the
graph adds. These helpers do the part all of them share (features in, fit on the training rows,
predict the test rows, time the fit); the script picks the model. No torch import: the
non-graph baselines must run where only NumPy/pandas/scikit-learn are installed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.preprocessing import StandardScaler

from evaluator.gnn.data import NodeTask
from evaluator.gnn.graphdata import GRAPH_ID, pooled_features, read_graph_labels
from evaluator.gnn.runtime import SEED, Stopwatch


@dataclass
class TabularRun:
    ids: np.ndarray  # the test rows' ids, in the order of `predictions`
    predictions: np.ndarray
    training_minutes: float


def fit_on_pooled_features(model: BaseEstimator, data: Path, targets: str | Sequence[str],
                           test_files: Sequence[str], *, smoke: bool) -> TabularRun:
    """Graph-level: `model` on `pooled_features` (one row per molecule), fitted on the training
    graphs' `targets` (a column name, or a list of them for a multi-output model)."""
    x = pooled_features(data)
    targets = targets if isinstance(targets, str) else list(targets)
    train, test_ids = read_graph_labels(data, test_files, smoke=smoke,
                                        rng=np.random.default_rng(SEED))
    with Stopwatch() as clock:
        model.fit(x.loc[train[GRAPH_ID]].to_numpy(), train[targets].to_numpy())
    return TabularRun(test_ids, model.predict(x.loc[test_ids].to_numpy()), clock.minutes)


def fit_on_node_features(model: BaseEstimator, task: NodeTask, *,
                         standardise: bool) -> TabularRun:
    """Node-level: `model` on each node's own features, fitted on the training nodes.
    `standardise` scales every column to unit variance (without centring, so sparse features
    stay sparse) before fitting."""
    x = StandardScaler(with_mean=False).fit_transform(task.x) if standardise else task.x
    with Stopwatch() as clock:
        model.fit(x[task.train_idx], task.y_train)
    return TabularRun(task.test_ids, model.predict(x[task.test_idx]), clock.minutes)
