"""GNN baseline for diagraph: GCN or GraphSAGE on the patient graph, chosen on validation.

Run from the competition folder:  python baseline/gnn.py --data data --out predictions.csv
Full batch on CPU, seed 25, features standardised, class-weighted cross-entropy on the (noisy)
training labels, early stopping on macro-F1 of the clean validation labels
(`val_labels.csv`, never test labels). Both models are trained and the better one on
validation predicts: 2 tuning runs, declared on the row. `--smoke` runs 3 epochs.
"""

from __future__ import annotations

from sklearn.preprocessing import StandardScaler

from evaluator.gnn.data import load_node_task, write_predictions
from evaluator.gnn.models import GCN, SAGE
from evaluator.gnn.nodelevel import fit_node_classifier, node_tensors
from evaluator.gnn.runtime import baseline_args, report, seed_everything
from evaluator.gnn.selection import select_on_validation

CANDIDATES = {"GCN": GCN, "GraphSAGE": SAGE}
HIDDEN, DROPOUT, LR, WEIGHT_DECAY, EPOCHS, PATIENCE = 32, 0.3, 0.01, 5e-4, 200, 30


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything(threads=1)
    task = load_node_task(args.data)
    task.x = StandardScaler().fit_transform(task.x)
    data = node_tensors(task)
    epochs = 3 if args.smoke else EPOCHS

    def run(model_class):
        model = model_class(data.num_features, HIDDEN, data.n_classes, DROPOUT)
        return fit_node_classifier(model, data, epochs=epochs, lr=LR, weight_decay=WEIGHT_DECAY,
                                   patience=PATIENCE, metric="macro_f1", class_weighted=True)

    chosen = select_on_validation(CANDIDATES, run, lambda r: r.best_val)
    best = chosen.result
    write_predictions(args.out, task.test_ids, task.target, best.predictions)
    report(f"{chosen.name} (chosen over {'/'.join(CANDIDATES)} on the clean validation "
           f"labels), 2 layers x{HIDDEN}, full batch, class-weighted, early stopping on "
           "validation macro-F1", sum(r.training_minutes for r in chosen.results.values()),
           gnn=True, smoke=args.smoke, best_epoch=best.best_epoch,
           val_macro_f1=chosen.val_scores, tuning_runs=chosen.tuning_runs)


if __name__ == "__main__":
    main()
