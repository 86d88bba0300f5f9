"""GNN baseline for gta: a GINE network (bond types on the edges) + sum/mean pooling.

Run from the competition folder:  python baseline/gnn.py --data data --out predictions.csv
It trains on 85% of the (clean) training graphs with a class-weighted loss, keeps the epoch with
the best validation macro-F1 (the other 15%, stratified), and predicts every graph of both test
splits, ideal and perturbed. Nothing in it is robustness-specific: it shows the gap a plain GNN
suffers under the feature shift. `--smoke` runs 3 epochs: useless predictions, but a valid file.
The model, the loader and the training loop are in evaluator/gnn/graphlevel.py.
"""

from __future__ import annotations

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID
from evaluator.gnn.graphlevel import GINE, fit_binary_classifier, load_graph_task
from evaluator.gnn.runtime import baseline_args, report, seed_everything

TARGET = "label"
TEST_FILES = ["test_ideal_ids.csv", "test_perturbed_ids.csv"]
HIDDEN, LAYERS, DROPOUT = 64, 3, 0.3
EPOCHS, BATCH_SIZE, LR, WEIGHT_DECAY, VAL_FRACTION = 300, 32, 1e-3, 1e-4, 0.15


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything(threads=1)  # small kernels: a second thread only adds sync overhead
    task = load_graph_task(args.data, TEST_FILES, smoke=args.smoke)
    model = GINE(task.num_node_features, 1, hidden=HIDDEN, layers=LAYERS, dropout=DROPOUT)
    epochs = 3 if args.smoke else EPOCHS
    run = fit_binary_classifier(model, task, TARGET, epochs=epochs, batch_size=BATCH_SIZE, lr=LR,
                                weight_decay=WEIGHT_DECAY, val_fraction=VAL_FRACTION)
    write_predictions(args.out, task.test_ids, TARGET, run.predictions, id_column=GRAPH_ID)
    report(f"GINE {LAYERS}x{HIDDEN}, sum+mean pooling, class-weighted BCE, best of "
           f"{epochs} epochs by macro-F1 on a {VAL_FRACTION:.0%} validation split",
           run.training_minutes, gnn=True, smoke=args.smoke, best_epoch=run.best_epoch,
           val_macro_f1=run.val["macro_f1"])


if __name__ == "__main__":
    main()
