"""Spec + hidden labels + validated predictions -> every configured score.

Why a pure function: the PR workflow, `gnncb evaluate`, re-scoring after a label fix and the
LLM track all call this one function, so a score means the same thing everywhere. Rows are
matched by id, never by position.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from evaluator.competition.spec import PART_COLUMN, CompetitionSpec, Metric
from evaluator.errors import ConfigError
from evaluator.metrics.registry import METRICS
from evaluator.scoring import bootstrap

ALL, PUBLIC, PRIVATE = "all", "public", "private"


def _key_index(index: pd.Index) -> pd.Index:
    if pd.api.types.is_integer_dtype(index.dtype):
        return index
    return pd.Index(index.astype(str).str.strip(), name=index.name)


def align(predictions: pd.DataFrame, labels: pd.DataFrame) -> pd.DataFrame:
    """Predictions in the order of `labels`' ids; every label id must be predicted."""
    if predictions.index.equals(labels.index):  # same ids, same order: nothing to do
        return predictions
    pred_index, label_index = _key_index(predictions.index), _key_index(labels.index)
    if pred_index.dtype != label_index.dtype:
        pred_index = pd.Index(pred_index.astype(str))
        label_index = pd.Index(label_index.astype(str))
    pred = predictions.set_axis(pred_index, axis=0)
    positions = pred.index.get_indexer(label_index)
    if (positions < 0).any():
        # validation guarantees coverage of the public ids; reaching this means the public ids
        # and the hidden labels disagree, which is a competition build error.
        raise ConfigError(f"{int((positions < 0).sum())} hidden-label ids have no prediction; "
                          "the public id files and the hidden labels disagree")
    return pred.iloc[positions]


def _inputs(spec: CompetitionSpec, metric: Metric, truth: pd.DataFrame, pred: pd.DataFrame
            ) -> tuple[np.ndarray, np.ndarray, list[object], object]:
    """(truth, predictions, classes, positive) as the metric's registry record reads them: one
    column, or (a multi-target metric) a 2-d block of every target it reads; real values and
    scores as floats; `positive` only for a binary metric, else None."""
    record = METRICS[metric.fn]
    targets = spec.targets_for(metric)
    if record.multi_target:
        names = [t.name for t in targets]
        return truth[names].to_numpy(float), pred[names].to_numpy(float), [], None
    target = targets[0]
    y_true, y_pred = truth[target.name].to_numpy(), pred[target.name].to_numpy()
    if record.target == "real":
        y_true = y_true.astype(float)
    if record.target != "class":
        y_pred = y_pred.astype(float)
    positive = target.positive if record.binary else None
    return y_true, y_pred, list(target.classes or []), positive


def _metric(spec: CompetitionSpec, metric: Metric, truth: pd.DataFrame,
            pred: pd.DataFrame) -> float:
    y_true, y_pred, classes, positive = _inputs(spec, metric, truth, pred)
    return METRICS[metric.fn].score(y_true, y_pred, classes=classes, positive=positive)


def metric_value(spec: CompetitionSpec, metric: Metric, truth: pd.DataFrame,
                 pred: pd.DataFrame) -> float:
    """One metric on aligned truth and predictions (raises ValueError when undefined)."""
    return _metric(spec, metric, truth, pred)


def part_labels(labels: dict[str, pd.DataFrame], part: str) -> dict[str, pd.DataFrame]:
    """The rows of one part (public / private) of every split, without the part column."""
    out = {}
    for name, frame in labels.items():
        if PART_COLUMN not in frame.columns:
            raise ConfigError(f"hidden labels of split {name!r} name no public/private part; "
                              "rebuild the competition (public_fraction is set)")
        out[name] = frame[frame[PART_COLUMN] == part].drop(columns=[PART_COLUMN])
    return out


def score_parts(spec: CompetitionSpec, labels: dict[str, pd.DataFrame],
                predictions: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Scores per part: {"public": ..., "private": ...} when the spec splits the hidden sets,
    else {"all": ...}. The whole-split score of a split competition is never computed, so it
    can never be recorded next to the public one (the two together would give the private)."""
    if not spec.has_parts:
        return {ALL: score(spec, labels, predictions)}
    return {part: score(spec, part_labels(labels, part), predictions)
            for part in (PUBLIC, PRIVATE)}


def score(spec: CompetitionSpec, labels: dict[str, pd.DataFrame],
          predictions: pd.DataFrame) -> dict[str, float]:
    """All metrics, then derived scores, in spec order. Scores are full precision floats."""
    scores: dict[str, float] = {}
    for name, metric in spec.metrics.items():
        truth = labels[metric.split]
        pred = align(predictions, truth)
        try:
            value = _metric(spec, metric, truth, pred)
        except ValueError as err:
            raise ConfigError(f"metric {name!r} on split {metric.split!r}: {err}") from None
        scores[name] = value
    for name, derived in spec.derived.items():
        values = [scores[ref] for ref in derived.of]
        if derived.op == "subtract":
            scores[name] = values[0] - sum(values[1:])
        else:
            scores[name] = float(np.mean(values))
    for name, value in scores.items():
        if not math.isfinite(value):
            raise ConfigError(f"score {name!r} is not finite ({value})")
    return scores


def score_intervals(spec: CompetitionSpec, labels: dict[str, pd.DataFrame],
                    predictions: pd.DataFrame, *,
                    clusters: dict[str, tuple[str, np.ndarray]] | None = None,
                    resamples: int = bootstrap.RESAMPLES) -> dict[str, dict[str, Any]]:
    """A 95% interval for every metric and derived score (see `evaluator.scoring.bootstrap`).

    `clusters`: split -> (cluster name, one cluster label per hidden-label row, in label order);
    splits whose clusters share a name draw the same clusters (e.g. twin graphs)."""
    clusters = clusters or {}
    resamplers = _resamplers(spec, labels, clusters, resamples)
    draws: dict[str, np.ndarray] = {}
    out: dict[str, dict[str, Any]] = {}
    for name, metric in spec.metrics.items():
        truth = labels[metric.split]
        y_true, y_pred, classes, positive = _inputs(spec, metric, truth,
                                                    align(predictions, truth))
        r = resamplers[metric.split]
        values, method = bootstrap.metric_draws(METRICS[metric.fn].kernel, y_true, y_pred,
                                                classes=classes, positive=positive, resampler=r)
        draws[name] = values
        low, high = bootstrap.percentile_interval(values)
        out[name] = bootstrap.describe(low, high, method=method, resampler=r, n=len(truth),
                                       cluster_name=clusters.get(metric.split, (None,))[0])
    for name, derived in spec.derived.items():
        parts = [draws[ref] for ref in derived.of]
        draws[name] = bootstrap.combine_derived(derived.op, parts)
        low, high = bootstrap.percentile_interval(draws[name])
        first = out[derived.of[0]]
        out[name] = {**first, "low": low, "high": high,
                     "method": "bootstrap-percentile" if all(
                         out[ref]["method"] == "bootstrap-percentile" for ref in derived.of)
                     else "normal", "of": list(derived.of)}
    return out


def _resamplers(spec: CompetitionSpec, labels: dict[str, pd.DataFrame],
                clusters: dict[str, tuple[str, np.ndarray]], resamples: int, *,
                paired: bool = False) -> dict[str, bootstrap.Resampler]:
    """One resampler per split, from the competition's own seed: splits whose clusters share a
    name draw the same clusters. The same arguments always give the same draws (with `paired`,
    every call of a resampler's weights too), which is what makes a comparison paired."""
    rng = bootstrap.rng_for(spec.slug, spec.version, spec.rules.seed)
    shared: dict[str, tuple[pd.Index, np.ndarray]] = {}
    for name in sorted({c[0] for c in clusters.values()}):
        values = pd.Index(np.unique(np.concatenate(
            [np.asarray(v, dtype=str) for n, v in clusters.values() if n == name])))
        shared[name] = (values, rng.multinomial(len(values), np.full(len(values), 1 / len(values)),
                                                size=resamples))
    resamplers: dict[str, bootstrap.Resampler] = {}
    for split, table in labels.items():
        if split in clusters:
            name, values = clusters[split]
            universe, unit_draws = shared[name]
            codes = universe.get_indexer(pd.Index(np.asarray(values, dtype=str)))
            resamplers[split] = bootstrap.Resampler(len(table), rng, resamples, clusters=codes,
                                                    cluster_draws=unit_draws,
                                                    n_clusters=len(universe), paired=paired)
        else:
            resamplers[split] = bootstrap.Resampler(len(table), rng, resamples, paired=paired)
    return resamplers


def _score_draws(spec: CompetitionSpec, labels: dict[str, pd.DataFrame],
                 predictions: pd.DataFrame, resamplers: dict[str, bootstrap.Resampler],
                 score_name: str) -> np.ndarray:
    """The resampled values of one score (a metric, or a derived score from its metrics)."""
    if score_name in spec.derived:
        derived = spec.derived[score_name]
        return bootstrap.combine_derived(derived.op, [
            _score_draws(spec, labels, predictions, resamplers, ref) for ref in derived.of])
    metric = spec.metrics[score_name]
    truth = labels[metric.split]
    y_true, y_pred, classes, positive = _inputs(spec, metric, truth, align(predictions, truth))
    values, _ = bootstrap.metric_draws(METRICS[metric.fn].kernel, y_true, y_pred,
                                       classes=classes, positive=positive,
                                       resampler=resamplers[metric.split])
    return values


PAIRED_MIN_RESAMPLES = 200  # very large test sets: fewer paired resamples, never a normal guess


def paired_difference(spec: CompetitionSpec, labels: dict[str, pd.DataFrame],
                      first: pd.DataFrame, second: pd.DataFrame, *,
                      clusters: dict[str, tuple[str, np.ndarray]] | None = None,
                      score_name: str | None = None,
                      resamples: int = bootstrap.RESAMPLES) -> dict[str, Any]:
    """Paired bootstrap of score(first) - score(second) over the test items both predict.

    Why paired: both entries are scored on the same resamples (the same rows, or the same
    clusters where the split declares them), so what the two get right together cancels and
    the interval of the difference is much narrower than two overlapping intervals suggest.
    The difference is significant at `bootstrap.LEVEL` when its percentile interval excludes 0.
    Scores are compared as they are (higher-is-better or not): `diff` is first minus second."""
    clusters = clusters or {}
    name = score_name or spec.primary_score
    n = max(len(t) for t in labels.values())
    b = resamples
    if not clusters and n * b > bootstrap.ROW_BUDGET:
        b = max(PAIRED_MIN_RESAMPLES, bootstrap.ROW_BUDGET // max(n, 1))
    draws = [_score_draws(spec, labels, pred, _resamplers(spec, labels, clusters, b, paired=True),
                          name) for pred in (first, second)]
    low, high = bootstrap.percentile_interval(draws[0] - draws[1])
    diff = score(spec, labels, first)[name] - score(spec, labels, second)[name]
    return {"diff": float(diff), "low": low, "high": high,
            "significant": bool(not (low <= 0.0 <= high)), "resamples": b,
            "unit": "clusters" if clusters else "rows"}


def interval_parts(spec: CompetitionSpec, labels: dict[str, pd.DataFrame],
                   predictions: pd.DataFrame, *,
                   clusters_for: Callable[[dict[str, pd.DataFrame]],
                                          dict[str, tuple[str, np.ndarray]]] | None = None,
                   resamples: int = bootstrap.RESAMPLES) -> dict[str, dict[str, dict[str, Any]]]:
    """Intervals per part, mirroring `score_parts` ({"public", "private"} or {"all"}).
    `clusters_for(labels)` resolves the resampling clusters of (a part of) the labels."""
    def one(table: dict[str, pd.DataFrame]) -> dict[str, dict[str, Any]]:
        clusters = clusters_for(table) if clusters_for else None
        return score_intervals(spec, table, predictions, clusters=clusters, resamples=resamples)

    if not spec.has_parts:
        return {ALL: one(labels)}
    return {part: one(part_labels(labels, part)) for part in (PUBLIC, PRIVATE)}
