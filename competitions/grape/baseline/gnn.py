"""GNN baseline for grape: GINE on vessel width and junction flags, segment lengths on edges.

Run from the competition folder:  python baseline/gnn.py --data data --out predictions.csv
Absolute coordinates are not used (each graph was rotated and moved at random); widths and
lengths are standardised. Two depths (2 and 3 GINE layers) are trained from seed 25 on the same
75% of the training graphs and the one with the better macro-F1 on the other 25% (stratified,
never the test graphs) makes the predictions: 2 tuning runs, declared on the row.
`--smoke` runs 3 epochs on at most 150 graphs: useless predictions, but a valid file.
"""

from __future__ import annotations

from evaluator.gnn.data import write_predictions
from evaluator.gnn.graphdata import GRAPH_ID
from evaluator.gnn.graphlevel import GINE, fit_binary_classifier, load_graph_task
from evaluator.gnn.runtime import baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation

TARGET = "label"
NODE_FEATURES, EDGE_FEATURES = ["width", "junction"], ["length"]
CANDIDATES = {"2 layers": 2, "3 layers": 3}  # GINE depth, chosen on validation macro-F1
HIDDEN, DROPOUT = 32, 0.3
EPOCHS, BATCH_SIZE, LR, WEIGHT_DECAY, VAL_FRACTION = 150, 8, 1e-3, 1e-4, 0.25


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything(threads=1)
    task = load_graph_task(args.data, smoke=args.smoke, node_features=NODE_FEATURES,
                           edge_features=EDGE_FEATURES)
    epochs = 3 if args.smoke else EPOCHS

    def run(layers: int):
        model = GINE(len(NODE_FEATURES), 1, hidden=HIDDEN, layers=layers, dropout=DROPOUT,
                     edge_dim=len(EDGE_FEATURES))
        return fit_binary_classifier(model, task, TARGET, epochs=epochs, batch_size=BATCH_SIZE,
                                     lr=LR, weight_decay=WEIGHT_DECAY, val_fraction=VAL_FRACTION)

    chosen = select_on_validation(CANDIDATES, run, lambda r: r.val["macro_f1"])
    best = chosen.result
    write_predictions(args.out, task.test_ids, TARGET, best.predictions, id_column=GRAPH_ID)
    minutes = sum(r.training_minutes for r in chosen.results.values())  # all candidates
    report(f"GINE {chosen.name} x{HIDDEN} on width+junction, edge length, sum+mean pooling, "
           f"class-weighted BCE, best of {epochs} epochs; depth chosen on a "
           f"{VAL_FRACTION:.0%} validation split", minutes, gnn=True, smoke=args.smoke,
           best_epoch=best.best_epoch, val_macro_f1=chosen.val_scores,
           tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
