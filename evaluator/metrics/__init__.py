"""Metrics: scikit-learn calls with their arguments fixed, one owner per metric."""

from evaluator.metrics.functions import accuracy, binary_f1, macro_f1, mae, nmae, roc_auc

__all__ = ["accuracy", "binary_f1", "macro_f1", "mae", "nmae", "roc_auc"]
