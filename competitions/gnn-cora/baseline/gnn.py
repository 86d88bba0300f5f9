"""gnn-cora GNN baseline: a 2-layer GCN, full batch on CPU, seed 25.

    python baseline/gnn.py --data data --out predictions.csv [--smoke]

Input layer -> GCN propagation x2 (Kipf & Welling 2017), hidden 64, dropout 0.5, Adam lr 0.01,
weight decay 5e-4; early stopping on validation accuracy (patience 100). The noise on the
features averages out over a node's neighbourhood, which is why the graph matters here.
The training loop is evaluator/gnn/nodelevel.py.
"""

from __future__ import annotations

from evaluator.gnn.data import load_node_task, write_predictions
from evaluator.gnn.models import GCN
from evaluator.gnn.nodelevel import fit_node_classifier, node_tensors
from evaluator.gnn.runtime import baseline_args, report, seed_everything

HIDDEN, DROPOUT, LR, WEIGHT_DECAY, EPOCHS, PATIENCE = 64, 0.5, 0.01, 5e-4, 400, 100


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    data = node_tensors(task)  # gnn-cora ships val_labels.csv: no holdout needed
    model = GCN(data.num_features, HIDDEN, data.n_classes, DROPOUT)
    run = fit_node_classifier(model, data, epochs=5 if args.smoke else EPOCHS, lr=LR,
                              weight_decay=WEIGHT_DECAY, patience=PATIENCE, metric="accuracy",
                              class_weighted=False)
    write_predictions(args.out, task.test_ids, task.target, run.predictions)
    report(f"2-layer GCN (hidden {HIDDEN}, dropout {DROPOUT}), full batch, early stopping on "
           "val accuracy", run.training_minutes, gnn=True, smoke=args.smoke,
           best_epoch=run.best_epoch, val_accuracy=round(run.best_val, 4))


if __name__ == "__main__":
    main()
