"""Non-graph baseline for solubility: ridge regression on pooled atom features.

Each molecule becomes one row: the sums of its node features (counts of each atom type, of
aromatic and ring atoms, of hydrogens, total degree...) and its atom count. Bonds and topology
are ignored, so the gap to baseline/gnn.py is what the graph adds.
Run from the competition folder:  python baseline/nongraph.py --data data --out predictions.csv
Features and fitting: evaluator/gnn/graphdata.py and evaluator/gnn/tabular.py.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID
from evaluator.gnn.runtime import baseline_args, report, seed_everything
from evaluator.gnn.tabular import fit_on_pooled_features

TARGETS = ["log_solubility"]
ALPHAS = np.logspace(-3, 3, 13)  # RidgeCV picks one by efficient leave-one-out CV


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    model = make_pipeline(StandardScaler(), RidgeCV(alphas=ALPHAS))
    run = fit_on_pooled_features(model, args.data, TARGETS, ["test_ids.csv"], smoke=args.smoke)
    write_predictions(args.out, run.ids, TARGETS, run.predictions, id_column=GRAPH_ID,
                      float_format="%.6g")
    report("ridge regression (alpha by leave-one-out CV) on summed atom features, no graph",
           run.training_minutes, gnn=False, smoke=args.smoke)


if __name__ == "__main__":
    main()
