"""Helpers for temporal signed-edge baselines (trust-temporal): rating-history features.

Why a history/fit split: a node feature such as "mean rating received" computed from ALL
training ratings contains the very rating a classifier is being fitted on, so it would learn to
read its own label. Baselines therefore compute features (and the message-passing graph) from
an earlier slice of the training ratings and fit the classifier on the later slice, exactly as
the test ratings relate to the public ones.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import f1_score

HISTORY_FEATURES = ("log_out_degree", "log_in_degree", "mean_rating_given",
                    "mean_rating_received", "share_negative_given", "share_negative_received",
                    "seen")


def read_ratings(data: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.Index]:
    """(public ratings in time order, test ratings, users). The users are everyone who rates or
    is rated in either file, sorted, so test-only users get a row (with zero history)."""
    train = pd.read_csv(Path(data) / "train_edges.csv")
    test = pd.read_csv(Path(data) / "test_edges.csv")
    users = pd.Index(np.unique(np.concatenate([train[["src", "dst"]].to_numpy().ravel(),
                                               test[["src", "dst"]].to_numpy().ravel()])))
    return train, test, users


def time_slices(frame: pd.DataFrame, *fractions: float) -> list[pd.DataFrame]:
    """Consecutive slices of a time-ordered frame at cumulative `fractions` of its rows."""
    cuts = [0] + [round(f * len(frame)) for f in fractions] + [len(frame)]
    return [frame.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def node_history(history: pd.DataFrame, users: pd.Index) -> np.ndarray:
    """Per-user features (rows follow `users`) from the ratings in `history`
    (columns src, dst, rating); users without history get zeros and seen = 0."""
    n = len(users)
    out = np.zeros((n, len(HISTORY_FEATURES)), dtype=np.float32)
    for side, cols in (("src", (0, 2, 4)), ("dst", (1, 3, 5))):
        pos = users.get_indexer(history[side])
        rating = history["rating"].to_numpy(np.float64)
        count = np.bincount(pos, minlength=n)
        total = np.bincount(pos, weights=rating, minlength=n)
        negative = np.bincount(pos, weights=(rating < 0).astype(float), minlength=n)
        has = count > 0
        out[:, cols[0]] = np.log1p(count)
        out[has, cols[1]] = total[has] / count[has] / 10.0
        out[has, cols[2]] = negative[has] / count[has]
        out[has, 6] = 1.0
    return out


def best_threshold(y_true: np.ndarray, p_trust: np.ndarray) -> tuple[float, float]:
    """Threshold on P(trust) maximising macro-F1 on validation rows: (threshold, macro-F1)."""
    best = (0.5, -1.0)
    for t in np.unique(np.quantile(p_trust, np.linspace(0.01, 0.6, 60))):
        score = f1_score(y_true, (p_trust >= t).astype(int), average="macro", zero_division=0)
        if score > best[1]:
            best = (float(t), float(score))
    return best
