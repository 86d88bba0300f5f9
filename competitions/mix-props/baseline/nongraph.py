"""Non-graph baseline for mix-props: ridge regression on pooled atom features.

Each molecule becomes one row: the sums of its node features (counts of each atom type, of
aromatic and ring atoms, of hydrogens, total degree...) and its atom count. Bonds and topology
are ignored, so the gap to baseline/gnn.py is what the graph adds.
Run from the competition folder:  python baseline/nongraph.py --data data --out predictions.csv
Features and fitting: evaluator/gnn/graphdata.py and evaluator/gnn/tabular.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # run from a checkout

import numpy as np  # noqa: E402
from sklearn.linear_model import RidgeCV  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from evaluator.gnn.data import write_predictions  # noqa: E402
from evaluator.gnn.graphdata import GRAPH_ID  # noqa: E402
from evaluator.gnn.runtime import baseline_args, report, seed_everything  # noqa: E402
from evaluator.gnn.tabular import fit_on_pooled_features  # noqa: E402

TARGETS = ["log_solubility", "mol_weight", "polar_surface_area"]
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
