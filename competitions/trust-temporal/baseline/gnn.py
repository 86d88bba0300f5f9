"""trust-temporal GNN baseline: signed GraphSAGE node embeddings + an edge MLP.

    python baseline/gnn.py --data data --out predictions.csv [--smoke]

Users start from their own rating-history features (evaluator/gnn/temporal.py); one round of
mean aggregation runs separately over the trust and the distrust ratings (two SAGE convolutions
summed, so a neighbour's influence depends on the sign of the link), and an MLP classifies a
rating u -> v from [h_u, h_v, x_u, x_v]. Graph and features come from the earliest 80% of the
public ratings, the model is fitted on the next 15% (class-weighted cross-entropy, early
stopping on macro-F1 of the last 5%, where the trust threshold is also tuned). For the test
ratings, graph and features are rebuilt from all public ratings.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.nn import SAGEConv

from evaluator.gnn.data import write_predictions
from evaluator.gnn.models import edge_tensor
from evaluator.gnn.runtime import Stopwatch, baseline_args, report, seed_everything
from evaluator.gnn.temporal import best_threshold, node_history, read_ratings, time_slices
from evaluator.gnn.train import class_weights, val_score

HIDDEN, DROPOUT, LR, EPOCHS, PATIENCE = 64, 0.2, 0.01, 300, 50


class SignedSAGE(nn.Module):
    def __init__(self, in_dim: int, hidden: int, dropout: float) -> None:
        super().__init__()
        self.inp = nn.Linear(in_dim, hidden)
        self.trust = SAGEConv(hidden, hidden)
        self.distrust = SAGEConv(hidden, hidden)
        self.edge = nn.Sequential(nn.Linear(2 * hidden + 2 * in_dim, hidden), nn.ReLU(),
                                  nn.Dropout(dropout), nn.Linear(hidden, 2))
        self.dropout = dropout

    def forward(self, x: torch.Tensor, graph: tuple[torch.Tensor, torch.Tensor],
                pairs: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.inp(x))
        h = F.relu(self.trust(h, graph[0]) + self.distrust(h, graph[1]))
        h = F.dropout(h, self.dropout, self.training)
        src, dst = pairs
        return self.edge(torch.cat([h[src], h[dst], x[src], x[dst]], dim=1))


class Snapshot:
    """Node features + signed graph built from a set of ratings."""

    def __init__(self, ratings: pd.DataFrame, users: pd.Index) -> None:
        self.x = torch.from_numpy(node_history(ratings, users))
        pos = ratings["rating"].to_numpy() > 0
        self.graph = tuple(edge_tensor(self.pairs_np(ratings[mask], users), len(users))
                           for mask in (pos, ~pos))
        self.users = users

    @staticmethod
    def pairs_np(edges: pd.DataFrame, users: pd.Index) -> np.ndarray:
        return np.vstack([users.get_indexer(edges["src"]), users.get_indexer(edges["dst"])])

    def pairs(self, edges: pd.DataFrame) -> torch.Tensor:
        return torch.from_numpy(self.pairs_np(edges, self.users).astype(np.int64))


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything()
    train, test, users = read_ratings(args.data)
    history, fit, val = time_slices(train, 0.8, 0.95)
    snap = Snapshot(history, users)
    fit_pairs, val_pairs = snap.pairs(fit), snap.pairs(val)
    y_fit = torch.tensor(fit["trust"].to_numpy(), dtype=torch.long)
    y_val = val["trust"].to_numpy()
    model = SignedSAGE(snap.x.shape[1], HIDDEN, DROPOUT)
    opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=5e-4)
    weight = class_weights(fit["trust"].to_numpy(), 2)
    best, best_state, best_epoch = -1.0, copy.deepcopy(model.state_dict()), 0
    with Stopwatch() as clock:
        for epoch in range(1, (5 if args.smoke else EPOCHS) + 1):
            model.train()
            opt.zero_grad()
            loss = F.cross_entropy(model(snap.x, snap.graph, fit_pairs), y_fit, weight=weight)
            loss.backward()
            opt.step()
            model.eval()
            with torch.no_grad():
                pred = model(snap.x, snap.graph, val_pairs).argmax(dim=1).numpy()
            score = val_score("macro_f1", y_val, pred)
            if score > best:
                best, best_state, best_epoch = score, copy.deepcopy(model.state_dict()), epoch
            elif epoch - best_epoch >= PATIENCE:
                break
        model.load_state_dict(best_state)
        model.eval()
        with torch.no_grad():
            p_val = torch.softmax(model(snap.x, snap.graph, val_pairs), dim=1)[:, 1].numpy()
        threshold, val_f1 = best_threshold(y_val, p_val)
    final = Snapshot(train, users)
    with torch.no_grad():
        p_test = torch.softmax(model(final.x, final.graph, final.pairs(test)), dim=1)[:, 1]
    write_predictions(args.out, test["id"].to_numpy(), "trust",
                      (p_test.numpy() >= threshold).astype(int))
    report(f"signed GraphSAGE (trust/distrust aggregation, hidden {HIDDEN}) + edge MLP, "
           "threshold tuned for macro-F1", clock.minutes, gnn=True, smoke=args.smoke,
           best_epoch=best_epoch, val_macro_f1=round(val_f1, 4), threshold=round(threshold, 4))


if __name__ == "__main__":
    main()
