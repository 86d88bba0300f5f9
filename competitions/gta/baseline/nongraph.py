"""Non-graph baseline for gta: logistic regression on pooled atom features.

Each molecule becomes one row: the sums of its node features (counts of each atom type) and
its atom count. Bonds and topology are ignored, so the gap to baseline/gnn.py is what the graph
adds.
Run from the competition folder:  python baseline/nongraph.py --data data --out predictions.csv
Features and fitting: evaluator/gnn/graphdata.py and evaluator/gnn/tabular.py.
"""

from __future__ import annotations

from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID
from evaluator.gnn.runtime import SEED, baseline_args, report, seed_everything
from evaluator.gnn.tabular import fit_on_pooled_features

TARGET = "label"
TEST_FILES = ["test_ideal_ids.csv", "test_perturbed_ids.csv"]


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    # balanced class weights, as in the GNN: the training prior is not the test prior
    model = make_pipeline(StandardScaler(), LogisticRegression(
        class_weight="balanced", max_iter=5000, random_state=SEED))
    run = fit_on_pooled_features(model, args.data, TARGET, TEST_FILES, smoke=args.smoke)
    write_predictions(args.out, run.ids, TARGET, run.predictions.astype(int), id_column=GRAPH_ID)
    report("class-balanced logistic regression on summed atom features, no graph",
           run.training_minutes, gnn=False, smoke=args.smoke)


if __name__ == "__main__":
    main()
