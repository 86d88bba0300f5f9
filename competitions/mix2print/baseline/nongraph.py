"""Non-graph baseline for mix2print: a random forest on the bag of materials.

Each formulation becomes one row: which materials it contains (the summed one-hot codes), the
summed concentration and the number of materials; how they are combined is ignored. The leaf
size is chosen among three values by NMAE on a random 20% validation split of the training
formulations (3 tuning runs), then the forest is refitted on all training formulations.
Run from the competition folder:  python baseline/nongraph.py --data data --out predictions.csv
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID, pooled_features, read_graph_labels
from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation
from evaluator.metrics import nmae

TARGETS = ["pressure", "temperature", "speed"]
CANDIDATES = {"min leaf 1": 1, "min leaf 3": 3, "min leaf 10": 10}
VAL_FRACTION = 0.2


def model(leaf: int, smoke: bool) -> RandomForestRegressor:
    return RandomForestRegressor(n_estimators=20 if smoke else 300, min_samples_leaf=leaf,
                                 random_state=SEED, n_jobs=1)


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    x = pooled_features(args.data)
    train, test_ids = read_graph_labels(args.data, ["test_ids.csv"], smoke=args.smoke,
                                        rng=np.random.default_rng(SEED))
    x_train, y_train = x.loc[train[GRAPH_ID]].to_numpy(), train[TARGETS].to_numpy()
    fit_x, val_x, fit_y, val_y = train_test_split(x_train, y_train, test_size=VAL_FRACTION,
                                                  random_state=SEED)

    def rate(leaf: int) -> float:
        return nmae(val_y, model(leaf, args.smoke).fit(fit_x, fit_y).predict(val_x))

    with Stopwatch() as clock:
        chosen = select_on_validation(CANDIDATES, rate, float, higher_is_better=False)
        final = model(CANDIDATES[chosen.name], args.smoke).fit(x_train, y_train)
    write_predictions(args.out, test_ids, TARGETS, final.predict(x.loc[test_ids].to_numpy()),
                      id_column=GRAPH_ID, float_format="%.6g")
    report(f"random forest ({chosen.name}, chosen on a {VAL_FRACTION:.0%} validation split) on "
           "the bag of materials and summed concentration, no graph", clock.minutes, gnn=False,
           smoke=args.smoke, val_nmae=chosen.val_scores, tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
