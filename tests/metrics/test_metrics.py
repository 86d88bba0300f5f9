"""Metrics equal scikit-learn on random inputs; NMAE matches its documented formula."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from evaluator.metrics import functions as metrics

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
