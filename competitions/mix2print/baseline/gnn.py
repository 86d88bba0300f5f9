"""GNN baseline for mix2print: GINE over the material cliques, one output per target.

Run from the competition folder:  python baseline/gnn.py --data data --out predictions.csv
Nodes carry the material one-hot and the concentration (standardised); edges have no
attributes. The loss is the L1 error of range-scaled targets, i.e. the NMAE the competition
scores. Two depths (1 and 2 GINE layers) are trained from seed 25 on the same 80% of the
training formulations and the one with the lower NMAE on the other 20% (never the test
formulations) makes the predictions: 2 tuning runs, declared on the row.
`--smoke` runs 3 epochs: useless predictions, but a valid file.
"""

from __future__ import annotations

import copy

import pandas as pd

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID
from evaluator.gnn.graphlevel import GINE, fit_range_scaled_regressor, load_graph_task
from evaluator.gnn.runtime import baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation

TARGETS = ["pressure", "temperature", "speed"]
CANDIDATES = {"1 layer": 1, "2 layers": 2}  # chosen on validation NMAE
HIDDEN, DROPOUT = 64, 0.2
EPOCHS, BATCH_SIZE, LR, VAL_FRACTION = 300, 16, 1e-3, 0.2


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything(threads=1)
    columns = [c for c in pd.read_csv(args.data / "nodes.csv", nrows=0).columns
               if c not in (GRAPH_ID, "node")]
    task = load_graph_task(args.data, smoke=args.smoke, node_features=columns, edge_features=[])
    epochs = 3 if args.smoke else EPOCHS
    rng = copy.deepcopy(task.rng)  # every candidate draws the same validation split
    spans = task.train[TARGETS].max() - task.train[TARGETS].min()

    def run(layers: int):
        task.rng = copy.deepcopy(rng)
        model = GINE(len(columns), len(TARGETS), hidden=HIDDEN, layers=layers, dropout=DROPOUT,
                     edge_dim=1)
        return fit_range_scaled_regressor(model, task, TARGETS, epochs=epochs,
                                          batch_size=BATCH_SIZE, lr=LR,
                                          val_fraction=VAL_FRACTION)

    def val_nmae(result) -> float:
        return float(sum(result.val[t] / spans[t] for t in TARGETS) / len(TARGETS))

    chosen = select_on_validation(CANDIDATES, run, val_nmae, higher_is_better=False)
    best = chosen.result
    write_predictions(args.out, task.test_ids, TARGETS, best.predictions, id_column=GRAPH_ID,
                      float_format="%.6g")
    report(f"GINE {chosen.name} x{HIDDEN} (chosen on a {VAL_FRACTION:.0%} validation split), "
           "material one-hot + concentration, sum+mean pooling, L1 on range-scaled targets, "
           f"best of {epochs} epochs", sum(r.training_minutes for r in chosen.results.values()),
           gnn=True, smoke=args.smoke, best_epoch=best.best_epoch,
           val_nmae_by_training_range=chosen.val_scores, tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
