"""A seeded full-batch training loop with early stopping on a validation metric.

Full batch because every competition graph here fits in memory on a laptop CPU; early stopping
on the public validation rows (never on test rows) because that is what the rules allow.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from sklearn.metrics import accuracy_score, f1_score
from torch import nn

Forward = Callable[[], torch.Tensor]


@dataclass
class FitResult:
    best_epoch: int
    best_val: float
    epochs_run: int


def val_score(metric: str, y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """The competition's own metric on validation rows (macro-F1 or accuracy)."""
    if metric == "accuracy":
        return float(accuracy_score(y_true, y_pred))
    return float(f1_score(y_true, y_pred, average="macro", zero_division=0))


def class_weights(y: np.ndarray, n_classes: int) -> torch.Tensor:
    """Inverse-frequency weights: macro-F1 rewards the rare class as much as the common one."""
    counts = np.bincount(y, minlength=n_classes).astype(np.float64)
    weights = counts.sum() / np.maximum(counts, 1) / n_classes
    return torch.tensor(weights, dtype=torch.float32)


def label_vector(n: int, *parts: tuple[np.ndarray, np.ndarray]) -> torch.Tensor:
    """Labels of all n rows for (positions, labels) parts; -1 marks rows without a label."""
    y = torch.full((n,), -1, dtype=torch.long)
    for idx, labels in parts:
        y[torch.tensor(np.asarray(idx, dtype=np.int64))] = torch.tensor(
            np.asarray(labels, dtype=np.int64))
    return y


def fit(model: nn.Module, forward: Forward, y: torch.Tensor, train_idx: torch.Tensor,
        val_idx: torch.Tensor, *, epochs: int, lr: float = 0.01, weight_decay: float = 5e-4,
        patience: int = 50, metric: str = "accuracy",
        weight: torch.Tensor | None = None) -> FitResult:
    """Train with Adam on cross-entropy over `train_idx`; keep the weights of the epoch with the
    best validation score (ties keep the earlier epoch). `forward()` returns logits for all rows.
    """
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    best = (-np.inf, 0)
    best_state = copy.deepcopy(model.state_dict())
    y_val = y[val_idx].numpy()
    epoch = 0
    for epoch in range(1, epochs + 1):
        model.train()
        opt.zero_grad()
        logits = forward()
        loss = F.cross_entropy(logits[train_idx], y[train_idx], weight=weight)
        loss.backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            pred = forward()[val_idx].argmax(dim=1).numpy()
        score = val_score(metric, y_val, pred) if len(val_idx) else -float(loss)
        if score > best[0]:
            best = (score, epoch)
            best_state = copy.deepcopy(model.state_dict())
        elif epoch - best[1] >= patience:
            break
    model.load_state_dict(best_state)
    model.eval()
    return FitResult(best_epoch=best[1], best_val=float(best[0]), epochs_run=epoch)


def predict(model: nn.Module, forward: Forward, idx: torch.Tensor) -> torch.Tensor:
    """Class probabilities for rows `idx` in eval mode."""
    model.eval()
    with torch.no_grad():
        return torch.softmax(forward()[idx], dim=1)
