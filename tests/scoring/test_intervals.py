"""Bootstrap intervals: vectorised metrics equal scikit-learn, intervals agree with SciPy's
bootstrap, clusters are resampled whole, and every scored row carries its intervals."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics as skm

from evaluator.competition.spec import parse_spec
from evaluator.metrics import kernels
from evaluator.pipeline.evaluate import evaluate_bytes
from evaluator.scoring import bootstrap
from evaluator.scoring.score import score, score_intervals
from evaluator.submission import envelope
from evaluator.submission.metadata import Metadata, dump_metadata

labels_st = st.integers(min_value=2, max_value=5).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.tuples(st.integers(0, k - 1),
                                                       st.integers(0, k - 1)),
                                             min_size=1, max_size=60)))


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(labels_st)
def test_metrics_from_confusion_counts_equal_sklearn(data):
    k, pairs = data
    t = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    counts = kernels.confusion_counts(t, p, k)
    classes = list(range(k))
    assert kernels.macro_f1_from_counts(counts) == pytest.approx(
        skm.f1_score(t, p, labels=classes, average="macro", zero_division=0))
    assert kernels.accuracy_from_counts(counts) == pytest.approx(skm.accuracy_score(t, p))
    for pos in classes:
        assert kernels.binary_f1_from_counts(counts, pos) == pytest.approx(
            skm.f1_score(t == pos, p == pos, zero_division=0))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6), st.integers(0, 3)),
                min_size=2, max_size=50))
def test_weighted_auc_equals_sklearn_with_sample_weights(rows):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=float) / 6  # ties on purpose
    w = np.array([r[2] for r in rows])
    if not (y[w > 0].any() and (~y[w > 0]).any()):
        return
    ours = kernels.weighted_auc(y, s, w[None, :])[0]
    assert ours == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w))


def _spec(metrics: dict, targets: list, splits: tuple[str, ...] = ("test",),
          derived: dict | None = None, clusters: dict | None = None) -> object:
    text = {"slug": "tiny", "version": 1, "title": "Tiny test", "task": "node-classification",
            "category": "homogeneous", "difficulty": "easy", "domain": "test",
            "targets": targets,
            "splits": {s: {"ids": f"{s}.csv", "labels": f"{s}.jwe",
                           **({"clusters": clusters} if clusters else {})} for s in splits},
            "metrics": metrics, "derived": derived or {},
            "rank_by": [{"score": next(iter(metrics)), "order": "desc"}]}
    import yaml
    return parse_spec(yaml.safe_dump(text))


def _frame(values: dict, n: int) -> pd.DataFrame:
    return pd.DataFrame(values, index=pd.Index(np.arange(n), name="id"))


def test_accuracy_interval_agrees_with_scipy_bootstrap():
    rng = np.random.default_rng(1)
    n = 80
    truth = rng.integers(0, 3, n)
    pred = np.where(rng.random(n) < 0.7, truth, rng.integers(0, 3, n))
    spec = _spec({"accuracy": {"fn": "accuracy", "split": "test"}},
                 [{"name": "y", "type": "class", "classes": [0, 1, 2]}])
    ours = score_intervals(spec, {"test": _frame({"y": truth}, n)}, _frame({"y": pred}, n),
                           resamples=20000)["accuracy"]
    ref = stats.bootstrap(((truth == pred).astype(float),), np.mean, n_resamples=20000,
                          method="percentile", random_state=0).confidence_interval
    assert ours["low"] == pytest.approx(ref.low, abs=0.015)
    assert ours["high"] == pytest.approx(ref.high, abs=0.015)
    assert ours["method"] == "bootstrap-percentile" and ours["small"] is True


@pytest.mark.slow
def test_macro_f1_and_mae_intervals_agree_with_scipy_bootstrap():
    rng = np.random.default_rng(2)
    n = 120
    truth = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, truth, 1 - truth)
    y = rng.normal(size=n)
    yhat = y + rng.normal(scale=0.5, size=n)
    spec = _spec({"macro_f1": {"fn": "macro_f1", "split": "test", "target": "c"},
                  "mae": {"fn": "mae", "split": "test", "target": "r"}},
                 [{"name": "c", "type": "class", "classes": [0, 1]},
                  {"name": "r", "type": "real"}])
    ours = score_intervals(spec, {"test": _frame({"c": truth, "r": y}, n)},
                           _frame({"c": pred, "r": yhat}, n), resamples=20000)

    def f1(t, p, axis=-1):
        t, p = np.asarray(t), np.asarray(p)
        return np.array([skm.f1_score(a, b, average="macro", labels=[0, 1], zero_division=0)
                         for a, b in zip(t.reshape(-1, t.shape[-1]), p.reshape(-1, p.shape[-1]),
                                         strict=True)]).reshape(t.shape[:-1])

    ref = stats.bootstrap((truth, pred), f1, paired=True, vectorized=True, n_resamples=1500,
                          method="percentile", random_state=0).confidence_interval
    assert ours["macro_f1"]["low"] == pytest.approx(ref.low, abs=0.02)
    assert ours["macro_f1"]["high"] == pytest.approx(ref.high, abs=0.02)
    ref = stats.bootstrap((np.abs(y - yhat),), np.mean, n_resamples=20000,
                          method="percentile", random_state=0).confidence_interval
    assert ours["mae"]["low"] == pytest.approx(ref.low, abs=0.01)
    assert ours["mae"]["high"] == pytest.approx(ref.high, abs=0.01)


def test_roc_auc_and_nmae_intervals_cover_and_large_sets_use_a_normal_interval(monkeypatch):
    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    s = np.clip(y * 0.3 + rng.random(n) * 0.7, 0, 1)
    r = rng.random(size=(n, 2)) * [1, 100]  # bounded: the range is stable under resampling
    spec = _spec({"auc": {"fn": "roc_auc", "split": "test", "target": "p"},
                  "nmae": {"fn": "nmae", "split": "test"}},
                 [{"name": "p", "type": "probability", "positive_class": 1},
                  {"name": "a", "type": "real"}, {"name": "b", "type": "real"}])
    labels = {"test": _frame({"p": y, "a": r[:, 0], "b": r[:, 1]}, n)}
    pred = _frame({"p": s, "a": r[:, 0] + rng.normal(size=n) * 0.2,
                   "b": r[:, 1] + rng.normal(size=n) * 20}, n)
    point = score(spec, labels, pred)
    boot = score_intervals(spec, labels, pred)
    for name in ("auc", "nmae"):
        assert boot[name]["low"] < point[name] < boot[name]["high"]
        assert boot[name]["method"] == "bootstrap-percentile"
    monkeypatch.setattr(bootstrap, "ROW_BUDGET", 10)
    normal = score_intervals(spec, labels, pred)
    for name in ("auc", "nmae"):
        assert normal[name]["method"] == "normal"
        width_b = boot[name]["high"] - boot[name]["low"]
        width_n = normal[name]["high"] - normal[name]["low"]
        assert width_n == pytest.approx(width_b, rel=0.2)  # DeLong / SEM vs the bootstrap


def test_clusters_are_resampled_whole_and_shared_between_splits():
    """Two splits of twins: with a shared cluster per twin pair the derived difference is
    resampled pair by pair (far narrower when twins agree); with one row per cluster the
    interval equals the row bootstrap's."""
    rng = np.random.default_rng(4)
    n = 60
    truth = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.7, truth, 1 - truth)
    frames = {s: _frame({"y": truth, "twin": np.arange(n)}, n) for s in ("a", "b")}
    predictions = pd.concat([_frame({"y": pred}, n), _frame({"y": pred}, n)])
    predictions.index = pd.Index(np.r_[np.arange(n), np.arange(n)], name="id")
    metrics = {"acc_a": {"fn": "accuracy", "split": "a"},
               "acc_b": {"fn": "accuracy", "split": "b"}}
    derived = {"gap": {"op": "subtract", "of": ["acc_a", "acc_b"], "higher_is_better": False}}
    target = [{"name": "y", "type": "class", "classes": [0, 1]}]
    paired = _spec(metrics, target, ("a", "b"), derived, {"name": "twins", "column": "twin"})
    independent = _spec(metrics, target, ("a", "b"), derived)
    from evaluator.scoring.clusters import load_clusters
    clusters = load_clusters(None, paired, frames)
    with_twins = score_intervals(paired, frames, predictions.iloc[:n], clusters=clusters)
    without = score_intervals(independent, frames, predictions.iloc[:n])
    assert with_twins["gap"]["low"] == with_twins["gap"]["high"] == 0.0  # twins agree
    assert without["gap"]["high"] - without["gap"]["low"] > 0.1
    assert with_twins["acc_a"]["unit"] == "clusters" and with_twins["acc_a"]["clusters"] == n
    width = with_twins["acc_a"]["high"] - with_twins["acc_a"]["low"]
    assert width == pytest.approx(without["acc_a"]["high"] - without["acc_a"]["low"], abs=0.03)


def test_speaker_clusters_widen_the_interval():
    """Six speakers of ~6 recordings each, each speaker all right or all wrong: resampling
    recordings pretends there are 36 independent samples; resampling speakers does not."""
    speakers = np.repeat(np.arange(6), 6)
    truth = np.tile([0, 1], 18)
    right = np.isin(speakers, [0, 1, 2, 3, 4])
    pred = np.where(right, truth, 1 - truth)
    n = len(truth)
    spec = _spec({"acc": {"fn": "accuracy", "split": "test"}},
                 [{"name": "y", "type": "class", "classes": [0, 1]}],
                 clusters={"name": "speakers", "column": "speaker"})
    labels = {"test": _frame({"y": truth, "speaker": speakers}, n)}
    from evaluator.scoring.clusters import load_clusters
    by_speaker = score_intervals(spec, labels, _frame({"y": pred}, n),
                                 clusters=load_clusters(None, spec, labels))["acc"]
    by_row = score_intervals(_spec({"acc": {"fn": "accuracy", "split": "test"}},
                                   [{"name": "y", "type": "class", "classes": [0, 1]}]),
                             labels, _frame({"y": pred}, n))["acc"]
    assert by_speaker["low"] <= 0.5 < by_row["low"]
    assert (by_speaker["clusters"], by_speaker["cluster_name"]) == (6, "speakers")


def test_intervals_are_deterministic():
    spec = _spec({"acc": {"fn": "accuracy", "split": "test"}},
                 [{"name": "y", "type": "class", "classes": [0, 1]}])
    labels = {"test": _frame({"y": np.tile([0, 1], 20)}, 40)}
    pred = _frame({"y": np.tile([0, 1, 1, 0], 10)}, 40)
    assert score_intervals(spec, labels, pred) == score_intervals(spec, labels, pred)


@pytest.mark.slow
def test_every_scored_row_carries_its_intervals(demo_competition, keypair):
    from evaluator.competition.spec import load_spec
    from evaluator.submission.validate import all_ids, competition_ids

    spec = load_spec(demo_competition)
    ids = sorted(all_ids(competition_ids(demo_competition, spec)))
    plain = pd.DataFrame({spec.id_column: ids, spec.targets[0].name: spec.targets[0].classes[0]}
                         ).to_csv(index=False).encode()
    claims = envelope.prediction_claims(spec.slug, spec.version, "someone")
    outcome = evaluate_bytes(demo_competition, envelope.seal(plain, keypair["public"], claims),
                             dump_metadata(Metadata(participant="someone", method="c")).encode(),
                             participant="someone", keys=keypair["private"])
    intervals = outcome.row["intervals"]
    assert set(intervals) == set(outcome.scores)
    for name, value in outcome.scores.items():
        iv = intervals[name]
        assert iv["low"] <= value + 1e-12 and value - 1e-12 <= iv["high"]
        assert iv["level"] == 0.95 and iv["resamples"] >= 1000


def test_parts_get_their_own_intervals_and_the_private_ones_stay_sealed(tmp_path, keypair):
    from evaluator.competition.spec import load_spec
    from evaluator.submission.validate import all_ids, competition_ids
    from tests.helpers.parts import build

    folder = build(tmp_path / "toy-parts", keypair["public"])
    spec = load_spec(folder)
    ids = sorted(all_ids(competition_ids(folder, spec)))
    plain = pd.DataFrame({"id": ids, "label": [i % 3 for i in range(len(ids))]}
                         ).to_csv(index=False).encode()
    claims = envelope.prediction_claims(spec.slug, spec.version, "someone")
    outcome = evaluate_bytes(folder, envelope.seal(plain, keypair["public"], claims),
                             dump_metadata(Metadata(participant="someone", method="c")).encode(),
                             participant="someone", keys=keypair["private"])
    row = outcome.row
    assert row["scored_on"] == "public"
    assert row["intervals"]["accuracy"]["n"] == 18  # the public 30% of 60 rows
    sealed = envelope.open_scores(row["sealed_scores"], keypair["private"], spec.slug,
                                  spec.version, row["digest"])
    private = sealed["intervals"]["private"]["accuracy"]
    assert private["n"] == 42
    assert private["low"] <= sealed["private"]["accuracy"] <= private["high"]
    assert "private" not in json.dumps(row["intervals"])
