"""netlinkarena non-graph baseline: logistic regression on the two papers' shared words.

    python baseline/nongraph.py --data data --out predictions.csv [--smoke]

A pair (u, v) is described by the element-wise product x_u * x_v of the (perturbed) binary
word vectors, i.e. the words both papers contain; no citation is used. Trained on
train_pairs.csv; C picked on val_pairs.csv.
"""

from __future__ import annotations

import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from evaluator.gnn.data import load_features, positions, write_predictions
from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything

C_GRID = (0.1, 1.0, 10.0)


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    nodes = pd.read_csv(args.data / "nodes.csv")
    index = pd.Index(nodes["id"])
    x = load_features(args.data, nodes).tocsr()

    def pair_features(frame: pd.DataFrame, name: str):
        return x[positions(index, frame["src"], name)].multiply(
            x[positions(index, frame["dst"], name)]).tocsr()

    train = pd.read_csv(args.data / "train_pairs.csv")
    val = pd.read_csv(args.data / "val_pairs.csv")
    test = pd.read_csv(args.data / "test_pairs.csv")
    xt, xv = pair_features(train, "train_pairs.csv"), pair_features(val, "val_pairs.csv")
    with Stopwatch() as clock:
        best = (-1.0, None, 0.0)
        for c in C_GRID[:1] if args.smoke else C_GRID:
            model = LogisticRegression(C=c, max_iter=2000, random_state=SEED)
            model.fit(xt, train["link"])
            auc = roc_auc_score(val["link"], model.predict_proba(xv)[:, 1])
            if auc > best[0]:
                best = (auc, model, c)
    auc, model, c = best
    prob = model.predict_proba(pair_features(test, "test_pairs.csv"))[:, 1]
    write_predictions(args.out, test["id"].to_numpy(), "link", prob, float_format="%.6f")
    report(f"logistic regression on shared words of the pair (C={c:g}), no graph",
           clock.minutes, gnn=False, smoke=args.smoke, val_roc_auc=round(auc, 4))


if __name__ == "__main__":
    main()
