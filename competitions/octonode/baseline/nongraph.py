"""octonode non-graph baseline: logistic regression on node features, graph ignored.

    python baseline/nongraph.py --data data --out predictions.csv [--smoke]

Features are standardised (unit variance, not centred, so sparse stays sparse).
"""

from __future__ import annotations

from sklearn.linear_model import LogisticRegression

from evaluator.gnn.data import load_node_task, write_predictions
from evaluator.gnn.runtime import SEED, baseline_args, report, seed_everything
from evaluator.gnn.tabular import fit_on_node_features


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    model = LogisticRegression(max_iter=50 if args.smoke else 2000, class_weight="balanced",
                               random_state=SEED)
    run = fit_on_node_features(model, task, standardise=True)
    write_predictions(args.out, run.ids, task.target, run.predictions)
    report("logistic regression on node features only (balanced classes)",
           run.training_minutes, gnn=False, smoke=args.smoke)


if __name__ == "__main__":
    main()
