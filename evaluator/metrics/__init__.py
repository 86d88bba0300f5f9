"""Metrics: scikit-learn calls with their arguments fixed, and the registry of one record per
metric (`registry.METRICS`) that spec validation, scoring, the bootstrap and rendering read."""

from evaluator.metrics.functions import accuracy, binary_f1, macro_f1, mae, nmae, roc_auc
from evaluator.metrics.registry import METRICS, MetricRecord, TargetKind, register

__all__ = ["METRICS", "MetricRecord", "TargetKind", "accuracy", "binary_f1", "macro_f1", "mae",
           "nmae", "register", "roc_auc"]
