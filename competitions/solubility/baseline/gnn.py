"""GNN baseline for solubility: a GINE network (bond types on the edges) + sum/mean pooling.

Run from the competition folder:  python baseline/gnn.py --data data --out predictions.csv
It trains on 85% of the training molecules on range-scaled targets with an L1 loss (that is,
on the competition's metric), keeps the epoch with the lowest validation error (the other 15%),
and predicts every test molecule. `--smoke` runs 3 epochs on 150 molecules:
useless predictions, but a valid file, for tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # run from a checkout

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch_geometric.data import Data  # noqa: E402
from torch_geometric.loader import DataLoader  # noqa: E402
from torch_geometric.nn import GINEConv, global_add_pool, global_mean_pool  # noqa: E402

from evaluator.gnn.runtime import SEED, Stopwatch, baseline_args, report, seed_everything  # noqa: E402

ID = "graph_id"
TARGETS = ["log_solubility"]
BOND_TYPES = 4  # 1 single, 2 double, 3 triple, 4 aromatic


def load_graphs(data: Path) -> dict[int, Data]:
    """One PyG `Data` per graph id: x = node features, both edge directions, one-hot bonds."""
    nodes = pd.read_csv(data / "nodes.csv").sort_values([ID, "node"])
    edges = pd.read_csv(data / "edges.csv")
    features = [c for c in nodes.columns if c not in (ID, "node")]
    edge_groups = dict(tuple(edges.groupby(ID)))
    graphs = {}
    for gid, part in nodes.groupby(ID):
        e = edge_groups.get(gid, edges.iloc[:0])
        src, dst = e["src"].to_numpy(), e["dst"].to_numpy()
        bond = np.eye(BOND_TYPES, dtype=np.float32)[e["bond_type"].to_numpy() - 1]
        graphs[int(gid)] = Data(
            x=torch.tensor(part[features].to_numpy(np.float32)),
            edge_index=torch.tensor(np.stack([np.r_[src, dst], np.r_[dst, src]]),
                                    dtype=torch.long),
            edge_attr=torch.tensor(np.r_[bond, bond]))
    return graphs


class GINE(nn.Module):
    """Node embedding -> 3 GINE layers -> [sum, mean] pooling -> MLP head."""

    def __init__(self, in_dim: int, out_dim: int, hidden: int = 64, layers: int = 3) -> None:
        super().__init__()
        self.embed = nn.Linear(in_dim, hidden)
        self.convs = nn.ModuleList(
            GINEConv(nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(),
                                   nn.Linear(hidden, hidden)), edge_dim=BOND_TYPES)
            for _ in range(layers))
        self.norms = nn.ModuleList(nn.BatchNorm1d(hidden) for _ in range(layers))
        self.head = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(),
                                  nn.Linear(hidden, out_dim))

    def forward(self, batch: Data) -> torch.Tensor:
        h = self.embed(batch.x)
        for conv, norm in zip(self.convs, self.norms, strict=True):
            h = h + torch.relu(norm(conv(h, batch.edge_index, batch.edge_attr)))
        pooled = torch.cat([global_add_pool(h, batch.batch), global_mean_pool(h, batch.batch)], 1)
        return self.head(pooled)


def predict(model: nn.Module, graphs: list[Data]) -> np.ndarray:
    model.eval()
    with torch.no_grad():
        return np.concatenate([model(b).numpy() for b in DataLoader(graphs, batch_size=256)])


def main() -> None:
    args = baseline_args(__doc__.splitlines()[0])
    seed_everything(threads=1)  # small kernels: a second thread only adds sync overhead
    graphs = load_graphs(args.data)
    train = pd.read_csv(args.data / "train_labels.csv")
    test_ids = pd.read_csv(args.data / "test_ids.csv")[ID].to_numpy()
    rng = np.random.default_rng(SEED)
    if args.smoke:
        train = train.iloc[rng.permutation(len(train))[:150]]
    epochs = 3 if args.smoke else 300

    y = train[TARGETS].to_numpy(np.float32)
    # each target divided by its training range, so that the L1 loss is the range-normalised
    # MAE (NMAE) and no target dominates when there are several
    mean, scale = y.mean(axis=0), y.max(axis=0) - y.min(axis=0) + 1e-6
    labelled = []
    for gid, target in zip(train[ID], (y - mean) / scale, strict=True):
        g = graphs[int(gid)].clone()
        g.y = torch.tensor(target).unsqueeze(0)
        labelled.append(g)
    order = rng.permutation(len(labelled))
    n_val = max(1, int(0.15 * len(labelled)))
    val = [labelled[i] for i in order[:n_val]]
    fit = [labelled[i] for i in order[n_val:]]
    y_val = np.stack([g.y.numpy()[0] for g in val]) * scale + mean

    with Stopwatch() as clock:
        model = GINE(graphs[int(test_ids[0])].num_node_features, len(TARGETS))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        loader = DataLoader(fit, batch_size=64, shuffle=True,
                            generator=torch.Generator().manual_seed(SEED))
        best, best_state, best_epoch, best_mae = np.inf, None, 0, np.zeros(len(TARGETS))
        for epoch in range(1, epochs + 1):
            model.train()
            for batch in loader:
                opt.zero_grad()
                loss = nn.functional.l1_loss(model(batch), batch.y)
                loss.backward()
                opt.step()
            val_err = np.abs(predict(model, val) * scale + mean - y_val).mean(axis=0)
            if (val_err / scale).mean() < best:
                best, best_epoch, best_mae = (val_err / scale).mean(), epoch, val_err
                best_state = {k: v.clone() for k, v in model.state_dict().items()}
        model.load_state_dict(best_state)

    pred = predict(model, [graphs[int(g)] for g in test_ids]) * scale + mean
    out = pd.DataFrame(pred, columns=TARGETS)
    out.insert(0, ID, test_ids)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(args.out, index=False, float_format="%.6g")
    report("GINE 3x64, sum+mean pooling, L1 loss, best of "
           f"{epochs} epochs on a 15% validation split", clock.minutes, gnn=True,
           smoke=args.smoke, best_epoch=best_epoch,
           val_mae={t: round(float(e), 4) for t, e in zip(TARGETS, best_mae, strict=True)})


if __name__ == "__main__":
    main()
