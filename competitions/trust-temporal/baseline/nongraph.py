"""trust-temporal non-graph baseline: logistic regression on each endpoint's own history.

    python baseline/nongraph.py --data data --out predictions.csv [--smoke]

A rating u -> v is described by u's and v's own rating history (degrees, mean rating given and
received, share of negative ratings; evaluator/gnn/temporal.py), with no message passing over
neighbours. Features come from the earliest 80% of the public ratings and the model is fitted
on the next 15%; the trust threshold that maximises macro-F1 is picked on the last 5%. For the
test ratings the features are recomputed from all public ratings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from evaluator.gnn.data import write_predictions
from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything
from evaluator.gnn.temporal import best_threshold, node_history, read_ratings, time_slices


def edge_features(feats: np.ndarray, users: pd.Index, edges: pd.DataFrame) -> np.ndarray:
    return np.hstack([feats[users.get_indexer(edges["src"])],
                      feats[users.get_indexer(edges["dst"])]])


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    train, test, users = read_ratings(args.data)
    history, fit, val = time_slices(train, 0.8, 0.95)
    feats = node_history(history, users)
    with Stopwatch() as clock:
        model = LogisticRegression(class_weight="balanced", max_iter=50 if args.smoke else 2000,
                                   random_state=SEED)
        model.fit(edge_features(feats, users, fit), fit["trust"])
        threshold, val_f1 = best_threshold(
            val["trust"].to_numpy(), model.predict_proba(edge_features(feats, users, val))[:, 1])
    final = node_history(train, users)
    p_trust = model.predict_proba(edge_features(final, users, test))[:, 1]
    write_predictions(args.out, test["id"].to_numpy(), "trust",
                      (p_trust >= threshold).astype(int))
    report("logistic regression on both endpoints' own rating history (no message passing), "
           "threshold tuned for macro-F1", clock.minutes, gnn=False, smoke=args.smoke,
           val_macro_f1=round(val_f1, 4), threshold=round(threshold, 4))


if __name__ == "__main__":
    main()
