"""Non-graph baseline for thinc: a random forest on each cell's own position and size.

Every cell is classified from its x, y, width and height alone; neighbours are ignored, so the
gap to baseline/gnn.py is what the tissue context adds. The leaf size is chosen among three
values by macro-F1 on a fifth of the training images (whole images, never test cells; 3
tuning runs), then the forest is refitted on all training cells.
Run from the competition folder:  python baseline/nongraph.py --data data --out predictions.csv
"""

from __future__ import annotations

import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score
from sklearn.model_selection import GroupShuffleSplit

from evaluator.gnn.data import load_node_task, write_predictions
from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation

CANDIDATES = {"min leaf 1": 1, "min leaf 5": 5, "min leaf 20": 20}
VAL_FRACTION = 0.2


def model(leaf: int, smoke: bool) -> RandomForestClassifier:
    return RandomForestClassifier(n_estimators=10 if smoke else 200, min_samples_leaf=leaf,
                                  class_weight="balanced", random_state=SEED, n_jobs=1)


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    images = pd.read_csv(args.data / "images.csv").set_index("id")["image"]
    x_train, y_train = task.x[task.train_idx], task.y_train
    fit, val = next(GroupShuffleSplit(n_splits=1, test_size=VAL_FRACTION, random_state=SEED)
                    .split(x_train, groups=images.loc[task.ids[task.train_idx]].to_numpy()))

    def rate(leaf: int) -> float:
        forest = model(leaf, args.smoke).fit(x_train[fit], y_train[fit])
        return f1_score(y_train[val], forest.predict(x_train[val]), average="macro")

    with Stopwatch() as clock:
        chosen = select_on_validation(CANDIDATES, rate, float)
        final = model(CANDIDATES[chosen.name], args.smoke).fit(x_train, y_train)
    write_predictions(args.out, task.test_ids, "label", final.predict(task.x[task.test_idx]))
    report(f"class-balanced random forest ({chosen.name}, chosen on validation images) on "
           "each cell's x, y, width, height; no graph", clock.minutes, gnn=False,
           smoke=args.smoke, val_macro_f1=chosen.val_scores, tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
