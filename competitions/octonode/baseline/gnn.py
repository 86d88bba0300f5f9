"""octonode GNN baseline: a 2-layer GCN, full batch on CPU, seed 25.

    python baseline/gnn.py --data data --out predictions.csv [--smoke]

Reads the standard node layout (evaluator/gnn/data.py). Early stopping on data/val_labels.csv
when the competition has one, else on a stratified 20% of the training nodes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # run from a checkout

import torch  # noqa: E402

from evaluator.gnn.data import holdout, load_node_task, write_predictions  # noqa: E402
from evaluator.gnn.models import GCN, edge_tensor, to_tensor  # noqa: E402
from evaluator.gnn.runtime import Stopwatch, baseline_args, report, seed_everything  # noqa: E402
from evaluator.gnn.train import class_weights, fit, label_vector, predict  # noqa: E402

HIDDEN, DROPOUT, LR, WEIGHT_DECAY, EPOCHS, PATIENCE = 64, 0.5, 0.01, 5e-4, 300, 50
METRIC = "macro_f1"


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    train_idx, y_train, val_idx, y_val = task.train_idx, task.y_train, task.val_idx, task.y_val
    if len(val_idx) == 0:
        train_idx, y_train, val_idx, y_val = holdout(train_idx, y_train, 0.2)
    n_classes = int(max(y_train.max(), y_val.max())) + 1
    x, edges = to_tensor(task.x), edge_tensor(task.edges, len(task.ids))
    y = label_vector(len(task.ids), (train_idx, y_train), (val_idx, y_val))
    model = GCN(x.shape[1], HIDDEN, n_classes, DROPOUT)
    with Stopwatch() as clock:
        result = fit(model, lambda: model(x, edges), y, torch.from_numpy(train_idx),
                     torch.from_numpy(val_idx), epochs=5 if args.smoke else EPOCHS, lr=LR,
                     weight_decay=WEIGHT_DECAY, patience=PATIENCE, metric=METRIC,
                     weight=class_weights(y_train, n_classes))
    probs = predict(model, lambda: model(x, edges), torch.from_numpy(task.test_idx))
    write_predictions(args.out, task.test_ids, task.target, probs.argmax(dim=1).numpy())
    report(f"2-layer GCN (hidden {HIDDEN}), full batch, early stopping on val {METRIC}",
           clock.minutes, gnn=True, smoke=args.smoke, best_epoch=result.best_epoch)


if __name__ == "__main__":
    main()
