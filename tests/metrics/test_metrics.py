"""Metrics equal scikit-learn on random inputs; NMAE matches its documented formula; the
registry's records are consistent, and a new metric is one registry entry."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from evaluator.competition.spec import CompetitionSpec, parse_spec
from evaluator.errors import ConfigError
from evaluator.metrics import functions as metrics
from evaluator.metrics import registry
from evaluator.metrics.kernels import RowMean
from evaluator.metrics.registry import MetricRecord
from evaluator.scoring import bootstrap
from evaluator.scoring.score import score, score_intervals

labels = st.lists(st.integers(0, 4), min_size=2, max_size=200)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_classification_metrics_equal_sklearn(data):
    y_true = np.array(data.draw(labels))
    y_pred = np.array(data.draw(st.lists(st.integers(0, 4), min_size=len(y_true),
                                         max_size=len(y_true))))
    classes = [0, 1, 2, 3, 4]
    assert metrics.macro_f1(y_true, y_pred, classes) == skm.f1_score(
        y_true, y_pred, labels=classes, average="macro", zero_division=0)
    assert metrics.accuracy(y_true, y_pred) == skm.accuracy_score(y_true, y_pred)
    yb, pb = y_true % 2, y_pred % 2
    assert metrics.binary_f1(yb, pb, 1) == skm.f1_score(yb, pb, zero_division=0)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_roc_auc_equals_sklearn(data):
    n = data.draw(st.integers(2, 200))
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    s = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    if len(set(y)) < 2:
        with pytest.raises(ValueError):
            metrics.roc_auc(y, s, 1)
        return
    assert metrics.roc_auc(y, s, 1) == skm.roc_auc_score(y, s)
    # the positive class may be 0: then higher scores mean class 0
    assert metrics.roc_auc(y, s, 0) == skm.roc_auc_score(1 - y, s)


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_mae_and_nmae(data):
    n = data.draw(st.integers(2, 100))
    k = data.draw(st.integers(1, 4))
    true = np.array(data.draw(st.lists(st.lists(finite, min_size=k, max_size=k), min_size=n,
                                       max_size=n)))
    pred = np.array(data.draw(st.lists(st.lists(finite, min_size=k, max_size=k), min_size=n,
                                       max_size=n)))
    assert metrics.mae(true[:, 0], pred[:, 0]) == skm.mean_absolute_error(true[:, 0], pred[:, 0])
    spans = true.max(axis=0) - true.min(axis=0)
    if np.any(spans == 0):
        with pytest.raises(ValueError):
            metrics.nmae(true, pred)
        return
    # the documented formula, written out: mean over targets of MAE_t / (max_t - min_t)
    expected = np.mean([np.mean(np.abs(true[:, t] - pred[:, t])) / spans[t] for t in range(k)])
    assert metrics.nmae(true, pred) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_nmae_hand_example():
    true = np.array([[0.0, 100.0], [10.0, 300.0]])
    pred = np.array([[1.0, 120.0], [9.0, 280.0]])
    # target 0: MAE 1 / range 10 = 0.1; target 1: MAE 20 / range 200 = 0.1
    assert metrics.nmae(true, pred) == pytest.approx(0.1)


# ----------------------------------------------------------------------------- the registry
def _sample(record: MetricRecord, n: int, rng: np.random.Generator
            ) -> tuple[np.ndarray, np.ndarray, list[object], object]:
    """Truth, predictions, classes and positive class of the kind the record reads."""
    if record.target == "class":
        classes: list[object] = [0, 1] if record.binary else [0, 1, 2]
        truth = rng.integers(0, len(classes), n)
        pred = np.where(rng.random(n) < 0.6, truth, rng.integers(0, len(classes), n))
        return truth, pred, classes, 1 if record.binary else None
    if record.target == "probability":
        truth = np.r_[0, 1, rng.integers(0, 2, n - 2)]
        return truth, np.clip(0.3 + 0.4 * truth + rng.normal(0, 0.3, n), 0, 1), [], 1
    shape = (n, 2) if record.multi_target else (n,)
    values = rng.normal(0, 10, shape)
    return values, values + rng.normal(0, 5, shape), [], None


@pytest.mark.parametrize("name", list(registry.METRICS))
def test_interval_kernel_at_unit_weights_is_the_scikit_learn_value(name):
    """Every resample of a kernel whose draws are all ones is the whole test set: the kernel's
    value must then be the metric's own (scikit-learn) value, for every registered metric."""
    record = registry.METRICS[name]
    for seed in range(5):
        rng = np.random.default_rng(seed)
        truth, pred, classes, positive = _sample(record, 60, rng)
        ones = bootstrap.Resampler(60, rng, 3, clusters=np.arange(60),
                                   cluster_draws=np.ones((3, 60), dtype=np.int64), n_clusters=60)
        draws, method = bootstrap.metric_draws(record.kernel, truth, pred, classes=classes,
                                               positive=positive, resampler=ones)
        point = record.score(truth, pred, classes=classes, positive=positive)
        assert method == "bootstrap" and draws == pytest.approx(np.full(3, point)), seed


def test_registry_refuses_a_taken_name_or_alias_and_contradictory_facts():
    mae = registry.METRICS["mae"]
    with pytest.raises(ValueError, match="already names 'mae'"):
        registry.register(replace(mae, aliases=()))
    with pytest.raises(ValueError, match="'auc' already names 'roc_auc'"):
        registry.register(replace(mae, name="mse", aliases=("auc",)))
    with pytest.raises(ValueError, match="confusion-count kernel reads class labels"):
        registry.register(replace(registry.METRICS["accuracy"], name="acc2", aliases=(),
                                  target="real"))
    assert registry.by_printed_name(" Mac-F1 ").name == "macro_f1"
    assert registry.by_printed_name("AUC").name == "roc_auc"
    assert registry.by_printed_name("speed") is None


def _squared_error(truth: np.ndarray, pred: np.ndarray) -> np.ndarray:
    return (np.asarray(truth, dtype=float) - np.asarray(pred, dtype=float)) ** 2


def _brier_per_row(truth: np.ndarray, scores: np.ndarray, positive: object) -> np.ndarray:
    return (np.asarray(scores, dtype=float) - (np.asarray(truth) == positive)) ** 2


def _brier(truth: np.ndarray, scores: np.ndarray, positive: object) -> float:
    return float(skm.brier_score_loss(np.asarray(truth) == positive, scores))


MSE = MetricRecord("mse", lambda t, p: float(skm.mean_squared_error(t, p)), "real",
                   higher_is_better=False, kernel=RowMean(_squared_error),
                   formula="MSE = (1/n) Σᵢ (ŷᵢ − yᵢ)².", aliases=("mean squared error",))
BRIER = MetricRecord("brier", _brier, "probability", higher_is_better=False, binary=True,
                     bounded=True, kernel=RowMean(_brier_per_row),
                     formula="Brier = (1/n) Σᵢ (sᵢ − 1[yᵢ = {positive}])².")


@pytest.fixture
def new_metrics():
    """MSE and the Brier score, registered for one test: one entry each, no other edit."""
    for record in (MSE, BRIER):
        registry.register(record)
    yield
    for record in (MSE, BRIER):
        registry.METRICS.pop(record.name)


def _spec_with(fn: str, target: dict, **metric: object) -> CompetitionSpec:
    return parse_spec(yaml.safe_dump({
        "slug": "new-metric", "version": 1, "title": "A new metric", "task": "node-regression",
        "category": "homogeneous", "difficulty": "easy", "domain": "test", "targets": [target],
        "splits": {"test": {"ids": "test.csv", "labels": "test.jwe"}},
        "metrics": {fn: {"fn": fn, "split": "test", **metric}},
        "rank_by": [{"score": fn, "order": "asc"}]}))


def test_a_new_metric_is_one_registry_entry(new_metrics, monkeypatch):
    """Spec validation, scoring and the bootstrap accept a registered metric with no other edit:
    its target kind is checked, its direction ranks, scikit-learn scores it, a kernel kind that
    already exists gives its interval (per-row weights, and normal on very large sets)."""
    with pytest.raises(ConfigError, match="mse needs a 'real' target, 'y' is 'class'"):
        _spec_with("mse", {"name": "y", "type": "class", "classes": [0, 1]})
    spec = _spec_with("mse", {"name": "y", "type": "real"})
    assert spec.higher_is_better("mse") is False
    rng = np.random.default_rng(3)
    index = pd.Index(np.arange(300), name="id")
    truth = pd.DataFrame({"y": rng.normal(0, 2, 300)}, index=index)
    pred = pd.DataFrame({"y": truth["y"] + rng.normal(0, 1, 300)}, index=index)
    value = score(spec, {"test": truth}, pred)["mse"]
    assert value == skm.mean_squared_error(truth["y"], pred["y"])
    interval = score_intervals(spec, {"test": truth}, pred)["mse"]
    assert interval["method"] == "bootstrap-percentile"
    assert interval["low"] < value < interval["high"]
    monkeypatch.setattr(bootstrap, "ROW_BUDGET", 1000)  # as if the test set were very large
    huge = score_intervals(spec, {"test": truth}, pred)["mse"]
    assert huge["method"] == "normal" and huge["low"] < value < huge["high"]
    monkeypatch.undo()

    # a binary metric: exactly two classes on a class target, the positive class passed on
    with pytest.raises(ConfigError, match="brier needs a 'probability' target"):
        _spec_with("brier", {"name": "y", "type": "real"})
    spec = _spec_with("brier", {"name": "y", "type": "probability", "positive_class": "yes"})
    labels = pd.DataFrame({"y": np.where(rng.random(300) < 0.4, "yes", "no")}, index=index)
    scores = pd.DataFrame({"y": np.clip((labels["y"] == "yes") * 0.5 + rng.random(300) * 0.5,
                                        0, 1)}, index=index)
    value = score(spec, {"test": labels}, scores)["brier"]
    assert value == pytest.approx(skm.brier_score_loss(labels["y"] == "yes", scores["y"]))
    interval = score_intervals(spec, {"test": labels}, scores)["brier"]
    assert interval["low"] < value < interval["high"]


def test_an_unregistered_metric_is_refused_again_after_the_fixture():
    with pytest.raises(ConfigError, match="Input should be 'macro_f1', 'f1', 'accuracy', "
                                          "'roc_auc', 'mae' or 'nmae'"):
        _spec_with("mse", {"name": "y", "type": "real"})
