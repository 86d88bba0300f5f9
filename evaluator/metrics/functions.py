"""Metrics: thin wrappers over scikit-learn, one signature for all.

Why wrappers at all: each competition names its metric in `competition.yaml`; this table maps
those names to scikit-learn calls with the arguments fixed (average, labels, pos_label), so a
metric can never be computed two ways. The only metric scikit-learn lacks is NMAE, defined here:

    NMAE = mean over targets t of  MAE_t / (max_t - min_t)

where MAE_t is the mean absolute error on target t and max_t, min_t are the largest and smallest
TRUE values of target t in the evaluated split. A target whose true values are all equal has no
range; NMAE is then undefined and refused (a competition must not be built that way).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _skm() -> Any:
    """scikit-learn's metrics, imported on first use: it pulls in SciPy (half a second), and
    readers of the registry (the site, spec validation) never compute a metric."""
    from sklearn import metrics

    return metrics


def macro_f1(y_true: np.ndarray, y_pred: np.ndarray, labels: Sequence[object]) -> float:
    """Unweighted mean of per-class F1 over the competition's declared classes."""
    return float(_skm().f1_score(y_true, y_pred, labels=list(labels), average="macro",
                              zero_division=0))


def binary_f1(y_true: np.ndarray, y_pred: np.ndarray, positive: object) -> float:
    return float(_skm().f1_score(y_true, y_pred, pos_label=positive, average="binary",
                              zero_division=0))


def accuracy(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(_skm().accuracy_score(y_true, y_pred))


def roc_auc(y_true: np.ndarray, scores: np.ndarray, positive: object) -> float:
    """Binary ROC-AUC from scores; `positive` is the class whose score is given."""
    y = np.asarray(y_true) == positive
    if y.all() or not y.any():
        raise ValueError("ROC-AUC is undefined when the split has only one class")
    return float(_skm().roc_auc_score(y, scores))


def mae(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    return float(_skm().mean_absolute_error(y_true, y_pred))


def nmae(y_true: np.ndarray, y_pred: np.ndarray) -> float:
    """Range-normalised MAE averaged over targets; inputs are (n,) or (n, targets)."""
    true = np.asarray(y_true, dtype=float).reshape(len(y_true), -1)
    pred = np.asarray(y_pred, dtype=float).reshape(len(y_pred), -1)
    if true.shape != pred.shape:
        raise ValueError(f"shape mismatch {true.shape} vs {pred.shape}")
    spans = true.max(axis=0) - true.min(axis=0)
    if np.any(spans == 0):
        raise ValueError("NMAE is undefined for a target whose true values are all equal")
    per_target = _skm().mean_absolute_error(true, pred, multioutput="raw_values")
    return float(np.mean(per_target / spans))
