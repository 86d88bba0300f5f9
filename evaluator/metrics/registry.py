"""The metric registry: one record per metric, holding every fact the platform knows about it.

Why one record: a metric's facts used to live in six places (the spec's allowed names and its
direction table, the scorer's if-chain, the bootstrap's second dispatch, the leak lint, the
results' printed-name aliases, the README formulas), so adding one meant finding them all. As in
scikit-learn's `metrics/_scorer.py` (a name -> scorer table), every reader looks the name up
here: `competition.yaml` validation (names allowed, target kind, binary-only), scoring (the
scikit-learn wrapper), the bootstrap (the interval kernel), the leak lint, the README and the
results pages (direction, bounds, formula, printed names). Adding a metric (MRR, Hits@K, MSE)
is one `register(MetricRecord(...))` call, provided its interval fits an existing kernel kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from evaluator.metrics import functions, kernels
from evaluator.metrics.kernels import Confusion, Kernel, RangeNormalised, RankAuc, RowMean

# What a `competition.yaml` target holds: a label from `classes`, a score in [0, 1] of the
# positive class, or any finite number.
TargetKind = Literal["class", "probability", "real"]
NAME_RE = re.compile(r"^[a-z][a-z0-9_@]{0,31}$")


@dataclass(frozen=True)
class MetricRecord:
    """Everything about one metric; `name` is what `competition.yaml` writes as `fn:`.

    The scikit-learn wrapper is called `function(y_true, y_pred[, classes][, positive])`: the
    declared classes when `per_class`, the positive class when `binary`."""

    name: str
    function: Callable[..., float]  # the point value, from scikit-learn (functions.py)
    target: TargetKind  # the kind of target it reads
    higher_is_better: bool
    kernel: Kernel  # how the bootstrap recomputes it per resample (kernels.py)
    formula: str  # participant-facing definition for the README; `{positive}` is filled in
    binary: bool = False  # scores one positive class; a class target needs exactly 2 classes
    per_class: bool = False  # averages over the declared classes (gets them as an argument)
    multi_target: bool = False  # naming no target, it reads every target of its kind (NMAE)
    bounded: bool = False  # a share in [0, 1] (papers print it in percent)
    aliases: tuple[str, ...] = ()  # printed names (lower case) in papers and result tables

    def score(self, y_true: np.ndarray, y_pred: np.ndarray, *, classes: Sequence[object] = (),
              positive: object = None) -> float:
        """The metric on aligned arrays (raises ValueError when it is undefined there)."""
        extra: list[object] = []
        if self.per_class:
            extra.append(classes)
        if self.binary:
            extra.append(positive)
        return self.function(y_true, y_pred, *extra)


METRICS: dict[str, MetricRecord] = {}


def register(record: MetricRecord) -> MetricRecord:
    """Add a metric; refuses a record whose name or printed names are taken, or whose facts
    contradict each other (a kernel that cannot read its target kind)."""
    if not NAME_RE.match(record.name):
        raise ValueError(f"metric name {record.name!r}: lower-case letters, digits, '_' or '@'")
    taken = {n: r.name for r in METRICS.values() for n in (r.name, *r.aliases)}
    for name in (record.name, *record.aliases):
        if name != name.lower():
            raise ValueError(f"metric {record.name!r}: alias {name!r} must be lower case")
        if name in taken:
            raise ValueError(f"metric {record.name!r}: {name!r} already names {taken[name]!r}")
    if isinstance(record.kernel, Confusion) and record.target != "class":
        raise ValueError(f"metric {record.name!r}: a confusion-count kernel reads class labels")
    if isinstance(record.kernel, RankAuc) and not (record.binary
                                                    and record.target == "probability"):
        raise ValueError(f"metric {record.name!r}: a rank kernel reads binary scores")
    if isinstance(record.kernel, RangeNormalised) and record.target != "real":
        raise ValueError(f"metric {record.name!r}: a range-normalised kernel reads real values")
    if record.per_class and record.target != "class":
        raise ValueError(f"metric {record.name!r}: per-class metrics read class labels")
    if record.binary and record.target == "real":
        raise ValueError(f"metric {record.name!r}: a binary metric reads classes or scores")
    METRICS[record.name] = record
    return record


def by_printed_name(printed: str) -> MetricRecord | None:
    """The metric a paper or table prints as `printed` ("Mac-F1", "AUC"), or None."""
    text = printed.strip().lower()
    for record in METRICS.values():
        if text == record.name or text in record.aliases:
            return record
    return None


register(MetricRecord(
    "macro_f1", functions.macro_f1, "class", higher_is_better=True, per_class=True,
    bounded=True, kernel=Confusion(kernels.macro_f1_from_counts),
    aliases=("macro-f1", "mac-f1", "mf1"),
    formula=("macro-F1 = (1/|C|) Σ_c F1_c with F1_c = 2·P_c·R_c / (P_c + R_c), the "
             "unweighted mean over the declared classes C of each class's F1 (precision "
             "P_c, recall R_c); a class with no true and no predicted rows counts as 0. Rare "
             "classes weigh as much as common ones.")))
register(MetricRecord(
    "f1", functions.binary_f1, "class", higher_is_better=True, binary=True, bounded=True,
    kernel=Confusion(kernels.binary_f1_from_counts), aliases=("binary f1",),
    formula="F1 = 2·P·R / (P + R) of the positive class {positive} (precision P, recall R)."))
register(MetricRecord(
    "accuracy", functions.accuracy, "class", higher_is_better=True, bounded=True,
    kernel=Confusion(kernels.accuracy_from_counts), aliases=("acc", "acc."),
    formula="accuracy = (1/n) Σᵢ 1[ŷᵢ = yᵢ], the share of test rows predicted correctly."))
register(MetricRecord(
    "roc_auc", functions.roc_auc, "probability", higher_is_better=True, binary=True,
    bounded=True, kernel=RankAuc(), aliases=("auc",),
    formula=("ROC-AUC of the submitted scores for the positive class {positive}: the "
             "probability that a random positive row gets a higher score than a random "
             "negative row (ties count ½). Only the order of the scores matters.")))
register(MetricRecord(
    "mae", functions.mae, "real", higher_is_better=False,
    kernel=RowMean(kernels.absolute_error),
    formula="MAE = (1/n) Σᵢ |ŷᵢ − yᵢ|."))
register(MetricRecord(
    "nmae", functions.nmae, "real", higher_is_better=False, multi_target=True,
    kernel=RangeNormalised(), aliases=("normalized-mae",),
    formula=("NMAE = (1/T) Σ_t MAE_t / (max_t − min_t), the mean over the T targets of each "
             "target's mean absolute error divided by the range of its true values in the "
             "evaluated split, so targets with very different scales weigh the same.")))
