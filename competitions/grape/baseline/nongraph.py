"""Non-graph baseline for grape: logistic regression on per-graph node statistics, no edges.

Each graph becomes one row: its number of nodes, the share of junctions and the mean, standard
deviation and quartiles of the vessel widths. Edges, lengths and positions are ignored, so the
gap to baseline/gnn.py is what the vessel structure adds. The regularisation strength C is
chosen among three values by macro-F1 on a stratified 25% validation split of the training
graphs (3 tuning runs), then the model is refitted on all training graphs.
Run from the competition folder:  python baseline/nongraph.py --data data --out predictions.csv
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID, read_graph_labels
from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation

TARGET = "label"
CANDIDATES = {"C=0.1": 0.1, "C=1": 1.0, "C=10": 10.0}
VAL_FRACTION = 0.25


def graph_statistics(data: Path) -> pd.DataFrame:
    nodes = pd.read_csv(data / "nodes.csv")
    width = nodes.groupby(GRAPH_ID)["width"]
    return pd.DataFrame({"nodes": nodes.groupby(GRAPH_ID).size(),
                         "junction_share": nodes.groupby(GRAPH_ID)["junction"].mean(),
                         "width_mean": width.mean(), "width_std": width.std(),
                         "width_q25": width.quantile(0.25), "width_median": width.median(),
                         "width_q75": width.quantile(0.75)})


def model(c: float):
    return make_pipeline(StandardScaler(), LogisticRegression(
        C=c, class_weight="balanced", max_iter=5000, random_state=SEED))


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    x = graph_statistics(args.data)
    train, test_ids = read_graph_labels(args.data, ["test_ids.csv"], smoke=args.smoke,
                                        rng=np.random.default_rng(SEED))
    x_train, y_train = x.loc[train[GRAPH_ID]].to_numpy(), train[TARGET].to_numpy()
    fit_x, val_x, fit_y, val_y = train_test_split(x_train, y_train, test_size=VAL_FRACTION,
                                                  random_state=SEED, stratify=y_train)

    def rate(c: float) -> float:
        return f1_score(val_y, model(c).fit(fit_x, fit_y).predict(val_x), average="macro")

    with Stopwatch() as clock:
        chosen = select_on_validation(CANDIDATES, rate, float)
        final = model(CANDIDATES[chosen.name]).fit(x_train, y_train)
    write_predictions(args.out, test_ids, TARGET, final.predict(x.loc[test_ids].to_numpy()),
                      id_column=GRAPH_ID)
    report(f"class-balanced logistic regression ({chosen.name}, chosen on a "
           f"{VAL_FRACTION:.0%} validation split) on per-graph width/junction statistics, no "
           "edges", clock.minutes, gnn=False, smoke=args.smoke, val_macro_f1=chosen.val_scores,
           tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
