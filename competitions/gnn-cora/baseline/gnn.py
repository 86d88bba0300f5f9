"""gnn-cora GNN baseline: a 2-layer GCN, full batch on CPU, seed 25.

    python baseline/gnn.py --data data --out predictions.csv [--smoke]

Input layer -> GCN propagation x2 (Kipf & Welling 2017), hidden 64, dropout 0.5, Adam lr 0.01,
weight decay 5e-4; early stopping on validation accuracy (patience 100). The noise on the
features averages out over a node's neighbourhood, which is why the graph matters here.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # run from a checkout

import torch  # noqa: E402

from evaluator.gnn.data import load_node_task, write_predictions  # noqa: E402
from evaluator.gnn.models import GCN, edge_tensor, to_tensor  # noqa: E402
from evaluator.gnn.runtime import Stopwatch, baseline_args, report, seed_everything  # noqa: E402
from evaluator.gnn.train import fit, label_vector, predict  # noqa: E402

HIDDEN, DROPOUT, LR, WEIGHT_DECAY, EPOCHS, PATIENCE = 64, 0.5, 0.01, 5e-4, 400, 100


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    task = load_node_task(args.data)
    n_classes = int(max(task.y_train.max(), task.y_val.max())) + 1
    x, edges = to_tensor(task.x), edge_tensor(task.edges, len(task.ids))
    y = label_vector(len(task.ids), (task.train_idx, task.y_train), (task.val_idx, task.y_val))
    model = GCN(x.shape[1], HIDDEN, n_classes, DROPOUT)
    with Stopwatch() as clock:
        result = fit(model, lambda: model(x, edges), y, torch.from_numpy(task.train_idx),
                     torch.from_numpy(task.val_idx), epochs=5 if args.smoke else EPOCHS,
                     lr=LR, weight_decay=WEIGHT_DECAY, patience=PATIENCE, metric="accuracy")
    probs = predict(model, lambda: model(x, edges), torch.from_numpy(task.test_idx))
    write_predictions(args.out, task.test_ids, task.target, probs.argmax(dim=1).numpy())
    report(f"2-layer GCN (hidden {HIDDEN}, dropout {DROPOUT}), full batch, early stopping on "
           "val accuracy", clock.minutes, gnn=True, smoke=args.smoke,
           best_epoch=result.best_epoch, val_accuracy=round(result.best_val, 4))


if __name__ == "__main__":
    main()
