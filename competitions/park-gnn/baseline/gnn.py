"""park-gnn GNN baseline: a 2-layer GCN, full batch on CPU, seed 25.

    python baseline/gnn.py --data data --out predictions.csv [--smoke]

Reads the standard node layout (evaluator/gnn/data.py). Early stopping on data/val_labels.csv
when the competition has one, else on a stratified 20% of the training nodes.
Class-weighted loss (the metric is macro-F1); the loop is evaluator/gnn/nodelevel.py.
"""

from __future__ import annotations

from evaluator.gnn.data import load_node_task, write_predictions
from evaluator.gnn.models import GCN
from evaluator.gnn.nodelevel import fit_node_classifier, node_tensors
from evaluator.gnn.runtime import baseline_args, report, seed_everything

HIDDEN, DROPOUT, LR, WEIGHT_DECAY, EPOCHS, PATIENCE = 64, 0.5, 0.01, 5e-4, 300, 50
METRIC = "macro_f1"


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    data = node_tensors(task, holdout_fraction=0.2)
    model = GCN(data.num_features, HIDDEN, data.n_classes, DROPOUT)
    run = fit_node_classifier(model, data, epochs=5 if args.smoke else EPOCHS, lr=LR,
                              weight_decay=WEIGHT_DECAY, patience=PATIENCE, metric=METRIC,
                              class_weighted=True)
    write_predictions(args.out, task.test_ids, task.target, run.predictions)
    report(f"2-layer GCN (hidden {HIDDEN}), full batch, early stopping on val {METRIC}",
           run.training_minutes, gnn=True, smoke=args.smoke, best_epoch=run.best_epoch)


if __name__ == "__main__":
    main()
