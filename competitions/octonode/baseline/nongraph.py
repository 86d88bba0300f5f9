"""octonode non-graph baseline: logistic regression on node features, graph ignored.

    python baseline/nongraph.py --data data --out predictions.csv [--smoke]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # run from a checkout

from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from evaluator.gnn.data import load_node_task, write_predictions  # noqa: E402
from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything  # noqa: E402


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    x = StandardScaler(with_mean=False).fit_transform(task.x)
    with Stopwatch() as clock:
        model = LogisticRegression(max_iter=50 if args.smoke else 2000, class_weight="balanced",
                                   random_state=SEED)
        model.fit(x[task.train_idx], task.y_train)
    write_predictions(args.out, task.test_ids, task.target, model.predict(x[task.test_idx]))
    report("logistic regression on node features only (balanced classes)", clock.minutes,
           gnn=False, smoke=args.smoke)


if __name__ == "__main__":
    main()
