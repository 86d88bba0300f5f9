"""gnn-cora non-graph baseline: logistic regression on the noisy features, graph ignored.

    python baseline/nongraph.py --data data --out predictions.csv [--smoke]

The inverse regularisation strength C is picked on the validation papers from three values;
this is the reference a GNN has to beat to show that the citations carry signal.
"""

from __future__ import annotations

from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score

from evaluator.gnn.data import load_node_task, write_predictions
from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything

C_GRID = (0.01, 0.1, 1.0)


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    x = task.x
    with Stopwatch() as clock:
        best = (-1.0, None, 0.0)
        for c in C_GRID[:1] if args.smoke else C_GRID:
            model = LogisticRegression(C=c, max_iter=50 if args.smoke else 2000,
                                       random_state=SEED)
            model.fit(x[task.train_idx], task.y_train)
            score = accuracy_score(task.y_val, model.predict(x[task.val_idx]))
            if score > best[0]:
                best = (score, model, c)
    score, model, c = best
    write_predictions(args.out, task.test_ids, task.target, model.predict(x[task.test_idx]))
    report(f"logistic regression on node features only (C={c:g}, chosen on val)",
           clock.minutes, gnn=False, smoke=args.smoke, val_accuracy=round(score, 4))


if __name__ == "__main__":
    main()
