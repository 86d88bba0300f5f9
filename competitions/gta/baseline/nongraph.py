"""Non-graph baseline for gta: logistic regression on pooled atom features.

Each molecule becomes one row: the sums of its node features (counts of each atom type) and
its atom count. Bonds and topology are ignored, so the gap to baseline/gnn.py is what the graph
adds.
Run from the competition folder:  python baseline/nongraph.py --data data --out predictions.csv
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # run from a checkout

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything  # noqa: E402

ID = "graph_id"
TARGET = "label"
TEST_FILES = ["test_ideal_ids.csv", "test_perturbed_ids.csv"]


def pooled_features(data: Path) -> pd.DataFrame:
    """Per graph: sum of every node feature + number of atoms (a bag of atoms)."""
    nodes = pd.read_csv(data / "nodes.csv")
    features = nodes.drop(columns=["node"]).groupby(ID).sum()
    features["num_atoms"] = nodes.groupby(ID).size()
    return features


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    x = pooled_features(args.data)
    train = pd.read_csv(args.data / "train_labels.csv")
    test_ids = np.concatenate([pd.read_csv(args.data / f)[ID].to_numpy() for f in TEST_FILES])
    if args.smoke:
        train = train.iloc[np.random.default_rng(SEED).permutation(len(train))[:150]]
    with Stopwatch() as clock:
        # balanced class weights, as in the GNN: the training prior is not the test prior
        model = make_pipeline(StandardScaler(), LogisticRegression(
            class_weight="balanced", max_iter=5000, random_state=SEED))
        model.fit(x.loc[train[ID]].to_numpy(), train[TARGET].to_numpy())
    pred = model.predict(x.loc[test_ids].to_numpy())
    out = pd.DataFrame({ID: test_ids, TARGET: pred.astype(int)})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(args.out, index=False)
    report("class-balanced logistic regression on summed atom features, no graph",
           clock.minutes, gnn=False, smoke=args.smoke)


if __name__ == "__main__":
    main()
