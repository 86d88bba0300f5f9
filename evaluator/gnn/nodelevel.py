"""Transductive node classification, end to end: tensors from a `NodeTask`, full-batch training
with early stopping (`train.fit`), test-node classes out.

Shared by the node competitions' GNN baselines (gnn-cora, octonode, park-gnn), which differ
only in the model and its hyper-parameters. Any model called as `model(x, edge_index)` that
returns one logit per class works (`models.GCN`, `models.SAGE`, `models.MLP`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from evaluator.gnn.data import NodeTask, holdout
from evaluator.gnn.models import edge_tensor, to_tensor
from evaluator.gnn.runtime import Stopwatch
from evaluator.gnn.train import class_weights, fit, label_vector, predict


@dataclass
class NodeTensors:
    x: torch.Tensor  # features, dense or sparse COO
    edges: torch.Tensor  # (2, 2E), both directions
    y: torch.Tensor  # label of every node, -1 where unknown
    train_idx: torch.Tensor
    val_idx: torch.Tensor
    test_idx: torch.Tensor
    y_train: np.ndarray  # labels of `train_idx` (for class weights)
    n_classes: int

    @property
    def num_features(self) -> int:
        return int(self.x.shape[1])


def node_tensors(task: NodeTask, holdout_fraction: float = 0.2) -> NodeTensors:
    """Tensors for full-batch training. Validation nodes are `val_labels.csv` when the
    competition has one, else a stratified `holdout_fraction` of the training nodes."""
    train_idx, y_train, val_idx, y_val = task.train_idx, task.y_train, task.val_idx, task.y_val
    if len(val_idx) == 0:
        train_idx, y_train, val_idx, y_val = holdout(train_idx, y_train, holdout_fraction)
    return NodeTensors(
        x=to_tensor(task.x), edges=edge_tensor(task.edges, len(task.ids)),
        y=label_vector(len(task.ids), (train_idx, y_train), (val_idx, y_val)),
        train_idx=torch.from_numpy(train_idx), val_idx=torch.from_numpy(val_idx),
        test_idx=torch.from_numpy(task.test_idx), y_train=y_train,
        n_classes=int(max(y_train.max(), y_val.max())) + 1)


@dataclass
class NodeRun:
    predictions: np.ndarray  # a class per test node, in `NodeTask.test_ids` order
    best_epoch: int
    best_val: float  # validation metric of the kept epoch
    training_minutes: float


def fit_node_classifier(model: nn.Module, data: NodeTensors, *, epochs: int, lr: float,
                        weight_decay: float, patience: int, metric: str,
                        class_weighted: bool) -> NodeRun:
    """Train `model` full batch (Adam, cross-entropy, early stopping on validation `metric`),
    then classify the test nodes. `class_weighted` weighs classes by inverse frequency, which
    suits a macro-F1 metric."""
    def forward() -> torch.Tensor:
        return model(data.x, data.edges)

    weight = class_weights(data.y_train, data.n_classes) if class_weighted else None
    with Stopwatch() as clock:
        result = fit(model, forward, data.y, data.train_idx, data.val_idx, epochs=epochs, lr=lr,
                     weight_decay=weight_decay, patience=patience, metric=metric, weight=weight)
    classes = predict(model, forward, data.test_idx).argmax(dim=1).numpy()
    return NodeRun(classes, result.best_epoch, result.best_val, clock.minutes)
