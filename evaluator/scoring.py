"""Spec + hidden labels + validated predictions -> every configured score.

Why a pure function: the PR workflow, `gnncb evaluate`, re-scoring after a label fix and the
LLM track all call this one function, so a score means the same thing everywhere. Rows are
matched by id, never by position.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from evaluator import metrics
from evaluator.errors import ConfigError
from evaluator.spec import PART_COLUMN, CompetitionSpec, Metric

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


def _metric(spec: CompetitionSpec, metric: Metric, truth: pd.DataFrame,
            pred: pd.DataFrame) -> float:
    if metric.fn == "nmae":
        names = [metric.target] if metric.target else [t.name for t in spec.targets
                                                       if t.type == "real"]
        return metrics.nmae(truth[names].to_numpy(float), pred[names].to_numpy(float))
    target = spec.target_for(metric)
    y_true = truth[target.name].to_numpy()
    y_pred = pred[target.name].to_numpy()
    if metric.fn == "macro_f1":
        return metrics.macro_f1(y_true, y_pred, target.classes or [])
    if metric.fn == "accuracy":
        return metrics.accuracy(y_true, y_pred)
    if metric.fn == "mae":
        return metrics.mae(y_true.astype(float), y_pred.astype(float))
    positive = target.positive_class
    if metric.fn == "f1":
        if positive is None:
            positive = (target.classes or [])[-1]
        return metrics.binary_f1(y_true, y_pred, positive)
    if positive is None:
        positive = 1
    return metrics.roc_auc(y_true, y_pred.astype(float), positive)


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
