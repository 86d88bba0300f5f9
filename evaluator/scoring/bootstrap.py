"""95% bootstrap intervals for every score, computed where the labels are (the scoring step).

Why here and why this way: a leaderboard that ranks 1.000 above 0.954 on 39 recordings from six
speakers says more than the data does. Each metric gets B seeded resamples of the test set (of
its clusters when the spec declares them: all recordings of a speaker, both twins of a molecule,
are drawn together), and the interval is the 2.5th and 97.5th percentile of the resampled
metric (percentile bootstrap).

Vectorised without a B x n index matrix, by the kernel kind the metric's registry record names
(`evaluator.metrics.kernels`):
- `Confusion` (macro-F1, F1, accuracy) depends only on the confusion matrix, so resampling n
  rows with replacement is exactly a multinomial draw of the K x K cell counts (B x K^2
  numbers, for any n); with clusters, B x U cluster counts times the U x K^2 per-cluster
  confusion counts.
- `RowMean` (MAE), `RangeNormalised` (NMAE) and `RankAuc` (ROC-AUC) use per-row weights
  (resample counts), in chunks; NMAE's range is recomputed on each resample.
- When n x B would exceed `ROW_BUDGET` (very large test sets), these three use a normal
  interval instead (standard error of the mean; DeLong's variance for ROC-AUC), which has the
  same asymptotic coverage there; the interval says `method: normal`.

Derived scores (e.g. robustness_gap = f1_ideal - f1_perturbed) are computed per resample from
the same draws, so their intervals are right too. Draws of different splits are independent
unless clusters tie them (then both splits draw the same clusters).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from evaluator.metrics.kernels import (
    Confusion,
    Kernel,
    RangeNormalised,
    RankAuc,
    RowMean,
    confusion_counts,
    delong_se,
    weighted_auc,
)

LEVEL = 0.95
RESAMPLES = 2000
ROW_BUDGET = 40_000_000  # n x B above which per-row resampling gives way to a normal interval
CHUNK = 200  # resamples per chunk for per-row weights
SMALL_N = 100  # fewer test rows (or clusters) than this: the page says the set is small


def rng_for(slug: str, version: int, seed: int = 25) -> np.random.Generator:
    """The same competition, version and predictions always give the same interval."""
    return np.random.default_rng([seed, zlib.crc32(slug.encode()), version])


# ----------------------------------------------------------------------------- resampling
class Resampler:
    """Draws for one split: B resamples of its rows, or of its clusters."""

    def __init__(self, n: int, rng: np.random.Generator, resamples: int,
                 clusters: np.ndarray | None = None, cluster_draws: np.ndarray | None = None,
                 n_clusters: int | None = None, paired: bool = False):
        self.n, self.rng, self.b = n, rng, resamples
        # paired: every call draws the same resamples (per-row weights from one seed, confusion
        # counts from those weights), so two entries' draws differ only by their predictions
        self.paired_seed = int(rng.integers(2**63)) if paired else None
        self.clusters = clusters
        self.n_clusters = 0
        if clusters is not None:
            self.n_clusters = n_clusters or (int(clusters.max()) + 1 if n else 0)
        # (B, U) cluster counts; shared between splits that share clusters
        self.cluster_draws = cluster_draws
        if clusters is not None and cluster_draws is None:
            self.cluster_draws = rng.multinomial(self.n_clusters,
                                                 np.full(self.n_clusters, 1 / self.n_clusters),
                                                 size=resamples)

    @property
    def unit(self) -> str:
        return "clusters" if self.clusters is not None else "rows"

    def per_row_feasible(self) -> bool:
        return (self.clusters is not None or self.paired_seed is not None
                or self.n * self.b <= ROW_BUDGET)

    def confusion_draws(self, counts_total: np.ndarray, per_unit: np.ndarray | None
                        ) -> np.ndarray:
        k = counts_total.shape[-1]
        if self.clusters is None and self.paired_seed is not None:
            raise ValueError("paired resamples read confusion counts from weights")
        if self.clusters is None:
            p = counts_total.ravel() / max(self.n, 1)
            return self.rng.multinomial(self.n, p, size=self.b).reshape(self.b, k, k)
        assert per_unit is not None and self.cluster_draws is not None
        flat = self.cluster_draws @ per_unit.reshape(self.n_clusters, k * k)
        return flat.reshape(self.b, k, k)

    def weight_chunks(self) -> Iterator[np.ndarray]:
        """(R, n) resample counts per row, CHUNK resamples at a time."""
        rng = (self.rng if self.paired_seed is None
               else np.random.default_rng(self.paired_seed))
        for start in range(0, self.b, CHUNK):
            r = min(CHUNK, self.b - start)
            if self.clusters is not None:
                assert self.cluster_draws is not None
                yield self.cluster_draws[start:start + r][:, self.clusters]
            else:
                idx = rng.integers(0, self.n, size=(r, self.n))
                offsets = (np.arange(r) * self.n)[:, None]
                yield np.bincount((idx + offsets).ravel(), minlength=r * self.n).reshape(r, self.n)


def _weighted_cells(cell: np.ndarray, w: np.ndarray, cells: int) -> np.ndarray:
    """(R, cells) confusion counts of R weighted resamples: row i adds w[r, i] to its cell."""
    r = w.shape[0]
    idx = (cell[None, :] + (np.arange(r) * cells)[:, None]).ravel()
    return np.bincount(idx, weights=w.ravel(), minlength=r * cells).reshape(r, cells)


def _normal_draws(rng: np.random.Generator, point: float, se: float, b: int) -> np.ndarray:
    return point + se * rng.standard_normal(b)


def _encode(values: np.ndarray, classes: list[Any]) -> np.ndarray:
    index = pd.Index(classes)
    if pd.api.types.is_integer_dtype(index.dtype) and pd.api.types.is_integer_dtype(values.dtype):
        order = np.argsort(np.asarray(classes))
        sorted_classes = np.asarray(classes)[order]
        return order[np.searchsorted(sorted_classes, values)]
    codes = index.get_indexer(pd.Index(values))
    if (codes < 0).any():  # values as strings vs integer classes (or vice versa)
        codes = pd.Index([str(c) for c in classes]).get_indexer(pd.Index(values).astype(str))
    return codes


def metric_draws(kernel: Kernel, truth: np.ndarray, pred: np.ndarray, *, classes: list[Any],
                 positive: Any, resampler: Resampler) -> tuple[np.ndarray, str]:
    """B resampled values of one metric and the method used ("bootstrap" or "normal").

    `kernel` is the metric's registry record's; `positive` is None unless the metric is binary
    (then the kernel's function also gets the positive class, or its index among `classes`)."""
    r = resampler
    match kernel:
        case Confusion(statistic=statistic):
            k = len(classes)
            t, p = _encode(truth, classes), _encode(pred, classes)
            if r.paired_seed is not None and r.clusters is None:
                counts = np.concatenate([_weighted_cells(t * k + p, w, k * k)
                                         for w in r.weight_chunks()]).reshape(-1, k, k)
            else:
                total = confusion_counts(t, p, k)
                per_unit = (confusion_counts(t, p, k, r.clusters, r.n_clusters)
                            if r.clusters is not None else None)
                counts = r.confusion_draws(total, per_unit)
            if positive is None:
                return statistic(counts), "bootstrap"
            return statistic(counts, list(map(str, classes)).index(str(positive))), "bootstrap"
        case RankAuc():
            y = np.asarray(truth) == positive  # as metrics.roc_auc reads the positive class
            s = np.asarray(pred, dtype=float)
            if not r.per_row_feasible():
                point = float(weighted_auc(y, s, np.ones((1, len(s))))[0])
                return _normal_draws(r.rng, point, delong_se(y, s), r.b), "normal"
            draws = np.concatenate([weighted_auc(y, s, w) for w in r.weight_chunks()])
            return draws, "bootstrap"
        case RowMean(per_row=per_row):
            e = per_row(truth, pred) if positive is None else per_row(truth, pred, positive)
            if not r.per_row_feasible():
                return _normal_draws(r.rng, float(e.mean()), float(_sem(e)), r.b), "normal"
            return (np.concatenate([(w @ e) / w.sum(axis=1) for w in r.weight_chunks()]),
                    "bootstrap")
        case RangeNormalised():
            return _range_normalised_draws(truth, pred, r)
    raise TypeError(f"unknown interval kernel {kernel!r}")


def _range_normalised_draws(truth: np.ndarray, pred: np.ndarray, r: Resampler
                            ) -> tuple[np.ndarray, str]:
    """NMAE per resample: each target's MAE over the resample's own range of true values."""
    true = np.asarray(truth, dtype=float).reshape(len(truth), -1)
    est = np.asarray(pred, dtype=float).reshape(len(pred), -1)
    err = np.abs(true - est)
    spans = true.max(axis=0) - true.min(axis=0)
    if not r.per_row_feasible():
        z = (err / spans).mean(axis=1)
        return _normal_draws(r.rng, float(z.mean()), float(_sem(z)), r.b), "normal"
    orders = [np.argsort(true[:, j], kind="mergesort") for j in range(true.shape[1])]
    out = []
    for w in r.weight_chunks():
        maes = (w @ err) / w.sum(axis=1)[:, None]  # (R, targets)
        ranges = np.empty_like(maes)
        for j, order in enumerate(orders):
            present = w[:, order] > 0
            lo = true[order, j][present.argmax(axis=1)]
            hi = true[order, j][len(order) - 1 - present[:, ::-1].argmax(axis=1)]
            ranges[:, j] = hi - lo
        with np.errstate(divide="ignore", invalid="ignore"):
            out.append(np.nanmean(np.where(ranges > 0, maes / ranges, np.nan), axis=1))
    return np.concatenate(out), "bootstrap"


def percentile_interval(draws: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    finite = draws[np.isfinite(draws)]
    if not len(finite):
        return float("nan"), float("nan")
    alpha = (1 - level) / 2
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return float(low), float(high)


def describe(low: float, high: float, *, method: str, resampler: Resampler, n: int,
             cluster_name: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {"low": low, "high": high, "level": LEVEL,
                              "method": "bootstrap-percentile" if method == "bootstrap"
                              else "normal", "resamples": resampler.b, "unit": resampler.unit,
                              "n": n}
    if resampler.clusters is not None:
        record["clusters"] = resampler.n_clusters
        record["cluster_name"] = cluster_name or "clusters"
    record["small"] = (resampler.n_clusters if resampler.clusters is not None else n) < SMALL_N
    return record


def combine_derived(op: str, parts: list[np.ndarray]) -> np.ndarray:
    if op == "subtract":
        return parts[0] - np.sum(parts[1:], axis=0)
    return np.mean(parts, axis=0)


def _sem(values: Any) -> float:
    """SciPy's standard error of the mean, imported on first use: the site build reaches this
    module (tiers) and must not pay SciPy's import (tests/render/site/test_build.py)."""
    from scipy import stats

    return float(stats.sem(values))
