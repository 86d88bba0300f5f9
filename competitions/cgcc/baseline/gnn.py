"""GNN baseline for cgcc: GINE on street counts, segment length / road class / one-way on edges.

Run from the competition folder:  python baseline/gnn.py --data data --out predictions.csv
Positions are not used (each city was rotated, scaled and moved at random); every input column
is standardised. Two widths (32 and 64 hidden units) are trained from seed 25 on the same 75%
of the training cities and the one with the better macro-F1 on the other 25% (stratified, never
the test cities) makes the predictions: 2 tuning runs, declared on the row.
`--smoke` runs 3 epochs: useless predictions, but a valid file.
"""

from __future__ import annotations

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID
from evaluator.gnn.graphlevel import GINE, fit_multiclass_classifier, load_graph_task
from evaluator.gnn.runtime import baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation

TARGET, N_CLASSES = "label", 3
NODE_FEATURES, EDGE_FEATURES = ["street_count"], ["length", "road_class", "oneway"]
CANDIDATES = {"hidden 32": 32, "hidden 64": 64}  # chosen on validation macro-F1
LAYERS, DROPOUT = 3, 0.3
EPOCHS, BATCH_SIZE, LR, WEIGHT_DECAY, VAL_FRACTION = 150, 8, 1e-3, 1e-4, 0.25


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything(threads=1)
    task = load_graph_task(args.data, smoke=args.smoke, node_features=NODE_FEATURES,
                           edge_features=EDGE_FEATURES)
    epochs = 3 if args.smoke else EPOCHS

    def run(hidden: int):
        model = GINE(len(NODE_FEATURES), N_CLASSES, hidden=hidden, layers=LAYERS,
                     dropout=DROPOUT, edge_dim=len(EDGE_FEATURES))
        return fit_multiclass_classifier(model, task, TARGET, N_CLASSES, epochs=epochs,
                                         batch_size=BATCH_SIZE, lr=LR,
                                         weight_decay=WEIGHT_DECAY, val_fraction=VAL_FRACTION)

    chosen = select_on_validation(CANDIDATES, run, lambda r: r.val["macro_f1"])
    best = chosen.result
    write_predictions(args.out, task.test_ids, TARGET, best.predictions, id_column=GRAPH_ID)
    report(f"GINE {LAYERS} layers, {chosen.name} (chosen on a {VAL_FRACTION:.0%} validation "
           f"split), street counts + edge length/class/one-way, sum+mean pooling, "
           f"class-weighted cross-entropy, best of {epochs} epochs",
           sum(r.training_minutes for r in chosen.results.values()), gnn=True,
           smoke=args.smoke, best_epoch=best.best_epoch, val_macro_f1=chosen.val_scores,
           tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
