"""GNN baseline for thinc: GraphSAGE or GCN on the cell graph, chosen on held-out images.

Run from the competition folder:  python baseline/gnn.py --data data --out predictions.csv
Full batch on CPU, seed 25, class-weighted cross-entropy (macro-F1 weighs the four cell types
equally), early stopping on validation macro-F1. Validation is a fifth of the *training
images* (whole images, as the test set is), never test cells. Both models are trained on the
same rows and the better one on validation predicts: 2 tuning runs, declared on the row.
Training and test images are disconnected, so the test cells are classified inductively.
`--smoke` runs 5 epochs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import torch
from sklearn.model_selection import GroupShuffleSplit
from sklearn.preprocessing import StandardScaler

from evaluator.gnn.data import load_node_task, write_predictions
from evaluator.gnn.models import GCN, SAGE, edge_tensor, to_tensor
from evaluator.gnn.nodelevel import NodeTensors, fit_node_classifier
from evaluator.gnn.runtime import SEED, baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation
from evaluator.gnn.train import label_vector

CANDIDATES = {"GraphSAGE": SAGE, "GCN": GCN}
N_CLASSES, HIDDEN, DROPOUT, LR, WEIGHT_DECAY = 4, 64, 0.3, 0.01, 5e-4
EPOCHS, PATIENCE, VAL_FRACTION = 300, 50, 0.2


def tensors(data: Path) -> tuple[NodeTensors, np.ndarray]:
    task = load_node_task(data)
    images = pd.read_csv(data / "images.csv").set_index("id")["image"]
    groups = images.loc[task.ids[task.train_idx]].to_numpy()
    fit, val = next(GroupShuffleSplit(n_splits=1, test_size=VAL_FRACTION, random_state=SEED)
                    .split(task.train_idx, groups=groups))
    train_idx, val_idx = task.train_idx[fit], task.train_idx[val]
    y_train, y_val = task.y_train[fit], task.y_train[val]
    x = StandardScaler().fit_transform(task.x)
    return NodeTensors(
        x=to_tensor(x), edges=edge_tensor(task.edges, len(task.ids)),
        y=label_vector(len(task.ids), (train_idx, y_train), (val_idx, y_val)),
        train_idx=torch.from_numpy(train_idx), val_idx=torch.from_numpy(val_idx),
        test_idx=torch.from_numpy(task.test_idx), y_train=y_train,
        n_classes=N_CLASSES), task.test_ids


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything(threads=1)
    data, test_ids = tensors(args.data)
    epochs = 5 if args.smoke else EPOCHS

    def run(model_class):
        model = model_class(data.num_features, HIDDEN, N_CLASSES, DROPOUT)
        return fit_node_classifier(model, data, epochs=epochs, lr=LR, weight_decay=WEIGHT_DECAY,
                                   patience=PATIENCE, metric="macro_f1", class_weighted=True)

    chosen = select_on_validation(CANDIDATES, run, lambda r: r.best_val)
    best = chosen.result
    write_predictions(args.out, test_ids, "label", best.predictions)
    report(f"{chosen.name} (chosen over {'/'.join(CANDIDATES)} on validation images), 2 layers "
           f"x{HIDDEN}, full batch, class-weighted, early stopping on macro-F1 of "
           f"{VAL_FRACTION:.0%} of the training images",
           sum(r.training_minutes for r in chosen.results.values()), gnn=True,
           smoke=args.smoke, best_epoch=best.best_epoch, val_macro_f1=chosen.val_scores,
           tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
