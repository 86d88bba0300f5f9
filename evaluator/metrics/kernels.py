"""Interval kernels: how the bootstrap recomputes a metric on thousands of resamples at once.

Why not call the scikit-learn function once per resample: 2,000 calls per metric per
submission is slow, and most metrics have a vectorised form over resample counts. A metric's
registry record names one kernel *kind*; `evaluator.scoring.bootstrap` draws the resamples and
runs it. A new metric of an existing kind (another confusion-count statistic, another mean of a
per-row value such as MSE or a reciprocal rank) is a registry entry and nothing else.

Every statistic here equals the scikit-learn wrapper in `functions.py` at unit weights
(`tests/scoring/test_intervals.py` checks this against scikit-learn itself).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


def _stats() -> Any:
    """SciPy's stats, imported on first use (see `functions._skm`: the site imports the
    registry, never a kernel's computation)."""
    from scipy import stats

    return stats


# ----------------------------------------------------------------------------- kernel kinds
@dataclass(frozen=True)
class Confusion:
    """A function of the K x K confusion counts alone (macro-F1, F1, accuracy): resampling n
    rows is then a multinomial draw of the K^2 cells, for any n.

    `statistic(counts)` maps (..., K, K) counts [true, predicted] to (...) values; a binary
    metric's statistic also gets the index of the positive class: `statistic(counts, pos)`."""

    statistic: Callable[..., np.ndarray]


@dataclass(frozen=True)
class RowMean:
    """The mean over rows of a per-row value (MAE: |y - ŷ|): resampled with per-row weights,
    or a normal interval (standard error of the mean) on very large test sets.

    `per_row(truth, predictions)` returns (n,) floats; a binary metric's also gets the positive
    class: `per_row(truth, predictions, positive)`."""

    per_row: Callable[..., np.ndarray]


@dataclass(frozen=True)
class RankAuc:
    """ROC-AUC: the weighted Mann-Whitney statistic per resample; DeLong's normal interval on
    very large test sets."""


@dataclass(frozen=True)
class RangeNormalised:
    """NMAE: per-target MAE divided by the range of the true values *in the resample*."""


Kernel = Confusion | RowMean | RankAuc | RangeNormalised


# ----------------------------------------------------------------------------- on counts
def confusion_counts(true_codes: np.ndarray, pred_codes: np.ndarray, k: int,
                     units: np.ndarray | None = None, n_units: int = 0) -> np.ndarray:
    """(K, K) counts [true, pred], or (U, K, K) per unit when `units` is given."""
    cell = true_codes.astype(np.int64) * k + pred_codes
    if units is None:
        return np.bincount(cell, minlength=k * k).reshape(k, k)
    flat = np.bincount(units.astype(np.int64) * k * k + cell, minlength=n_units * k * k)
    return flat.reshape(n_units, k, k)


def f1_from_counts(counts: np.ndarray) -> np.ndarray:
    """Per-class F1 from (..., K, K) confusion counts; 0 where a class has no support and no
    prediction (scikit-learn's zero_division=0)."""
    tp = np.diagonal(counts, axis1=-2, axis2=-1).astype(float)
    true = counts.sum(axis=-1)
    pred = counts.sum(axis=-2)
    denom = (true + pred).astype(float)
    return np.divide(2 * tp, denom, out=np.zeros_like(denom), where=denom > 0)


def macro_f1_from_counts(counts: np.ndarray) -> np.ndarray:
    return f1_from_counts(counts).mean(axis=-1)


def binary_f1_from_counts(counts: np.ndarray, positive: int) -> np.ndarray:
    return f1_from_counts(counts)[..., positive]


def accuracy_from_counts(counts: np.ndarray) -> np.ndarray:
    total = counts.sum(axis=(-2, -1)).astype(float)
    return np.diagonal(counts, axis1=-2, axis2=-1).sum(axis=-1) / total


# ----------------------------------------------------------------------------- on rows
def absolute_error(truth: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """|y - ŷ| per row: MAE's per-row value."""
    return np.abs(np.asarray(truth, dtype=float) - np.asarray(pred, dtype=float))


def weighted_auc(y: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """ROC-AUC (ties count 1/2) of each row of `weights` (R, n) over the same (y, scores)."""
    order = np.argsort(scores, kind="mergesort")
    s, yy = scores[order], y[order]
    w = weights[:, order].astype(float)
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    pos = np.add.reduceat(w * yy, starts, axis=1)
    neg = np.add.reduceat(w * (~yy), starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg
    num = (pos * (below + 0.5 * neg)).sum(axis=1)
    den = pos.sum(axis=1) * neg.sum(axis=1)
    return np.divide(num, den, out=np.full(len(num), np.nan), where=den > 0)


def delong_se(y: np.ndarray, scores: np.ndarray) -> float:
    """DeLong's standard error of the ROC-AUC (midranks via scipy.stats.rankdata)."""
    pos, neg = scores[y], scores[~y]
    m, n = len(pos), len(neg)
    all_ranks = _stats().rankdata(np.r_[pos, neg])
    v10 = (all_ranks[:m] - _stats().rankdata(pos)) / n
    v01 = 1.0 - (all_ranks[m:] - _stats().rankdata(neg)) / m
    return float(np.sqrt(np.var(v10, ddof=1) / m + np.var(v01, ddof=1) / n))
