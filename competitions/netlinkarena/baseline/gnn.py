"""netlinkarena GNN baseline: GCN encoder + dot-product decoder (graph auto-encoder style).

    python baseline/gnn.py --data data --out predictions.csv [--smoke]

Node embeddings come from a 2-layer GCN over the observed graph (sparse features go through a
sparse input layer); a pair's score is sigmoid(<h_u, h_v>). Each epoch trains on the observed
links against freshly sampled random pairs; early stopping on validation ROC-AUC. For the final
scores the validation links are added to the graph, as the README allows.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from sklearn.metrics import roc_auc_score

from evaluator.gnn.data import load_features, positions, write_predictions
from evaluator.gnn.models import GCN, edge_tensor, to_tensor
from evaluator.gnn.runtime import Stopwatch, baseline_args, report, seed_everything

HIDDEN, OUT, DROPOUT, LR, EPOCHS, PATIENCE = 128, 64, 0.2, 0.01, 300, 40


def pair_tensor(frame: pd.DataFrame, index: pd.Index, source: str) -> torch.Tensor:
    return torch.from_numpy(np.vstack([positions(index, frame["src"], source),
                                       positions(index, frame["dst"], source)]))


def scores(model: GCN, x: torch.Tensor, graph: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
    h = model(x, graph)
    return (h[pairs[0]] * h[pairs[1]]).sum(dim=1)


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    nodes = pd.read_csv(args.data / "nodes.csv")
    index = pd.Index(nodes["id"])
    n = len(index)
    x = to_tensor(load_features(args.data, nodes))
    edges = pd.read_csv(args.data / "edges.csv")
    val = pd.read_csv(args.data / "val_pairs.csv")
    test = pd.read_csv(args.data / "test_pairs.csv")
    observed = pair_tensor(edges, index, "edges.csv")
    graph = edge_tensor(observed.numpy(), n)
    val_pairs, val_y = pair_tensor(val, index, "val_pairs.csv"), val["link"].to_numpy()
    model = GCN(x.shape[1], HIDDEN, OUT, DROPOUT)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    best, best_state, best_epoch = -1.0, copy.deepcopy(model.state_dict()), 0
    with Stopwatch() as clock:
        for epoch in range(1, (3 if args.smoke else EPOCHS) + 1):
            model.train()
            opt.zero_grad()
            neg = torch.randint(0, n, observed.shape)
            logits = scores(model, x, graph, torch.cat([observed, neg], dim=1))
            target = torch.cat([torch.ones(observed.shape[1]), torch.zeros(neg.shape[1])])
            F.binary_cross_entropy_with_logits(logits, target).backward()
            opt.step()
            model.eval()
            with torch.no_grad():
                auc = roc_auc_score(val_y, scores(model, x, graph, val_pairs).numpy())
            if auc > best:
                best, best_state, best_epoch = auc, copy.deepcopy(model.state_dict()), epoch
            elif epoch - best_epoch >= PATIENCE:
                break
    model.load_state_dict(best_state)
    model.eval()
    val_links = val_pairs[:, torch.from_numpy(val_y == 1)]
    full = edge_tensor(torch.cat([observed, val_links], dim=1).numpy(), n)
    with torch.no_grad():
        prob = torch.sigmoid(scores(model, x, full, pair_tensor(test, index, "test_pairs.csv")))
    write_predictions(args.out, test["id"].to_numpy(), "link", prob.numpy(), float_format="%.6f")
    report(f"2-layer GCN encoder (hidden {HIDDEN}, out {OUT}) + dot-product decoder, random "
           "negatives, early stopping on val ROC-AUC", clock.minutes, gnn=True,
           smoke=args.smoke, best_epoch=best_epoch, val_roc_auc=round(best, 4))


if __name__ == "__main__":
    main()
