"""GNN baseline for mix-props: a GINE network (bond types on the edges) + sum/mean pooling.

Run from the competition folder:  python baseline/gnn.py --data data --out predictions.csv
It trains on 85% of the training molecules on range-scaled targets with an L1 loss (that is,
on the competition's metric), keeps the epoch with the lowest validation error (the other 15%),
and predicts every test molecule. `--smoke` runs 3 epochs on 150 molecules:
useless predictions, but a valid file, for tests.
The model, the loader and the training loop are in evaluator/gnn/graphlevel.py.
"""

from __future__ import annotations

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID
from evaluator.gnn.graphlevel import GINE, fit_range_scaled_regressor, load_graph_task
from evaluator.gnn.runtime import baseline_args, report, seed_everything

TARGETS = ["log_solubility", "mol_weight", "polar_surface_area"]
HIDDEN, LAYERS = 64, 3
EPOCHS, BATCH_SIZE, LR, VAL_FRACTION = 300, 64, 1e-3, 0.15


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything(threads=1)  # small kernels: a second thread only adds sync overhead
    task = load_graph_task(args.data, smoke=args.smoke)
    model = GINE(task.num_node_features, len(TARGETS), hidden=HIDDEN, layers=LAYERS)
    epochs = 3 if args.smoke else EPOCHS
    run = fit_range_scaled_regressor(model, task, TARGETS, epochs=epochs, batch_size=BATCH_SIZE,
                                     lr=LR, val_fraction=VAL_FRACTION)
    write_predictions(args.out, task.test_ids, TARGETS, run.predictions, id_column=GRAPH_ID,
                      float_format="%.6g")
    report(f"GINE {LAYERS}x{HIDDEN}, sum+mean pooling, L1 loss, best of {epochs} epochs on a "
           f"{VAL_FRACTION:.0%} validation split", run.training_minutes, gnn=True,
           smoke=args.smoke, best_epoch=run.best_epoch, val_mae=run.val)


if __name__ == "__main__":
    main()
