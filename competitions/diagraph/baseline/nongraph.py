"""Non-graph baseline for diagraph: logistic regression on each patient's own features.

The graph is ignored, so the gap to baseline/gnn.py is what the similarity graph adds. The
regularisation strength C is chosen among three values by macro-F1 on the clean validation
labels (3 tuning runs); the model is fitted on the (noisy) training labels only.
Run from the competition folder:  python baseline/nongraph.py --data data --out predictions.csv
"""

from __future__ import annotations

from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from evaluator.gnn.data import load_node_task, write_predictions
from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation

CANDIDATES = {"C=0.01": 0.01, "C=1": 1.0, "C=100": 100.0}


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    x_fit, y_fit = task.x[task.train_idx], task.y_train
    x_val, y_val = task.x[task.val_idx], task.y_val

    def model(c: float):
        return make_pipeline(StandardScaler(), LogisticRegression(
            C=c, class_weight="balanced", max_iter=50 if args.smoke else 2000,
            random_state=SEED))

    def rate(c: float) -> float:
        return f1_score(y_val, model(c).fit(x_fit, y_fit).predict(x_val), average="macro")

    with Stopwatch() as clock:
        chosen = select_on_validation(CANDIDATES, rate, float)
        final = model(CANDIDATES[chosen.name]).fit(x_fit, y_fit)
    write_predictions(args.out, task.test_ids, task.target, final.predict(task.x[task.test_idx]))
    report(f"class-balanced logistic regression ({chosen.name}, chosen on the clean validation "
           "labels) on each patient's features; no graph", clock.minutes, gnn=False,
           smoke=args.smoke, val_macro_f1=chosen.val_scores, tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
