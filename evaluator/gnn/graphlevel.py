"""Graph-level GNN baselines (molecules): PyG graphs, a GINE network with pooling, mini-batch
training that keeps the best validation epoch, and the two recipes the competitions use.

- `fit_binary_classifier`: class-weighted BCE, best epoch by macro-F1 on a stratified split
  (gnn-bace, gta, grape);
- `fit_multiclass_classifier`: the same with class-weighted cross-entropy (cgcc);
- `fit_range_scaled_regressor`: L1 loss on range-scaled targets, i.e. on the range-normalised
  MAE the competitions score, best epoch by that error on a random split (solubility, mix-props).

Everything is seeded from `runtime.SEED`: torch's global generator (model initialisation,
dropout) by `seed_everything`, the batch order by its own generator, the smoke subsample and the
regression split by `GraphTask.rng`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from torch import nn
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GINEConv, global_add_pool, global_mean_pool

from evaluator.gnn.graphdata import GRAPH_ID, read_graph_labels
from evaluator.gnn.runtime import SEED, Stopwatch
from evaluator.gnn.train import FitResult

BOND_TYPES = 4  # 1 single, 2 double, 3 triple, 4 aromatic
PREDICT_BATCH = 256


def _standardised(frame: pd.DataFrame) -> np.ndarray:
    """Columns scaled to zero mean and unit variance over all rows (constant columns kept)."""
    values = frame.to_numpy(np.float64)
    std = values.std(axis=0)
    return ((values - values.mean(axis=0)) / np.where(std > 0, std, 1.0)).astype(np.float32)


def load_graphs(data: Path, node_features: Sequence[str] | None = None,
                edge_features: Sequence[str] | None = None) -> dict[int, Data]:
    """One PyG `Data` per graph id: x = node features, both edge directions, edge features.

    Default (molecules): every node column as it is and one-hot `bond_type`s. Named
    `node_features` / `edge_features` (spatial graphs: widths, lengths) are standardised over
    the whole file instead, so raw pixel or metre scales do not swamp the other inputs; an
    empty `edge_features` gives every edge the constant feature 1."""
    nodes = pd.read_csv(Path(data) / "nodes.csv").sort_values([GRAPH_ID, "node"])
    edges = pd.read_csv(Path(data) / "edges.csv")
    if node_features is None:
        x_all = nodes[[c for c in nodes.columns if c not in (GRAPH_ID, "node")]].to_numpy(
            np.float32)
    else:
        x_all = _standardised(nodes[list(node_features)])
    if edge_features is None:
        attr_all = np.eye(BOND_TYPES, dtype=np.float32)[edges["bond_type"].to_numpy() - 1]
    elif not edge_features:  # edges without attributes: one constant feature
        attr_all = np.ones((len(edges), 1), dtype=np.float32)
    else:
        attr_all = _standardised(edges[list(edge_features)])
    node_rows = dict(tuple(pd.Series(np.arange(len(nodes))).groupby(nodes[GRAPH_ID].to_numpy())))
    edge_rows = dict(tuple(pd.Series(np.arange(len(edges))).groupby(edges[GRAPH_ID].to_numpy())))
    graphs = {}
    for gid, rows in node_rows.items():
        e = edge_rows.get(gid, pd.Series([], dtype=np.int64)).to_numpy()
        src, dst = edges["src"].to_numpy()[e], edges["dst"].to_numpy()[e]
        attr = attr_all[e]
        graphs[int(gid)] = Data(
            x=torch.tensor(x_all[rows.to_numpy()]),
            edge_index=torch.tensor(np.stack([np.r_[src, dst], np.r_[dst, src]]),
                                    dtype=torch.long),
            edge_attr=torch.tensor(np.r_[attr, attr]))
    return graphs


@dataclass
class GraphTask:
    graphs: dict[int, Data]  # every graph of the competition, by graph id
    train: pd.DataFrame  # graph_id + target column(s); a subsample under --smoke
    test_ids: np.ndarray  # graphs to predict, in submission order
    rng: np.random.Generator  # seeded SEED; already drew the smoke subsample

    @property
    def num_node_features(self) -> int:
        return self.graphs[int(self.test_ids[0])].num_node_features

    def test_graphs(self) -> list[Data]:
        return [self.graphs[int(g)] for g in self.test_ids]

    def training_graphs(self, targets: Iterable[torch.Tensor]) -> list[Data]:
        """Copies of the training graphs with `y` set, one target tensor per training row."""
        labelled = []
        for gid, target in zip(self.train[GRAPH_ID], targets, strict=True):
            g = self.graphs[int(gid)].clone()
            g.y = target
            labelled.append(g)
        return labelled


def load_graph_task(data: Path, test_files: Sequence[str] = ("test_ids.csv",), *,
                    smoke: bool, node_features: Sequence[str] | None = None,
                    edge_features: Sequence[str] | None = None) -> GraphTask:
    """Graphs, training labels and test ids of a graph-level competition folder."""
    graphs = load_graphs(data, node_features, edge_features)
    rng = np.random.default_rng(SEED)
    train, test_ids = read_graph_labels(data, test_files, smoke=smoke, rng=rng)
    return GraphTask(graphs, train, test_ids, rng)


class GINE(nn.Module):
    """Node embedding -> `layers` residual GINE layers (bond types as edge features) ->
    [sum, mean] pooling -> MLP head (with dropout before its last layer when `dropout` > 0)."""

    def __init__(self, in_dim: int, out_dim: int, hidden: int = 64, layers: int = 3,
                 dropout: float = 0.0, edge_dim: int = BOND_TYPES) -> None:
        super().__init__()
        self.embed = nn.Linear(in_dim, hidden)
        self.convs = nn.ModuleList(
            GINEConv(nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU(),
                                   nn.Linear(hidden, hidden)), edge_dim=edge_dim)
            for _ in range(layers))
        self.norms = nn.ModuleList(nn.BatchNorm1d(hidden) for _ in range(layers))
        head: list[nn.Module] = [nn.Linear(2 * hidden, hidden), nn.ReLU()]
        if dropout > 0:
            head.append(nn.Dropout(dropout))
        self.head = nn.Sequential(*head, nn.Linear(hidden, out_dim))

    def forward(self, batch: Data) -> torch.Tensor:
        h = self.embed(batch.x)
        for conv, norm in zip(self.convs, self.norms, strict=True):
            h = h + torch.relu(norm(conv(h, batch.edge_index, batch.edge_attr)))
        pooled = torch.cat([global_add_pool(h, batch.batch), global_mean_pool(h, batch.batch)], 1)
        return self.head(pooled)


def predict_graphs(model: nn.Module, graphs: list[Data]) -> np.ndarray:
    """Model outputs, one row per graph, in eval mode."""
    model.eval()
    with torch.no_grad():
        return np.concatenate([model(b).numpy()
                               for b in DataLoader(graphs, batch_size=PREDICT_BATCH)])


Loss = Callable[[torch.Tensor, Data], torch.Tensor]  # (model output, batch) -> loss


def fit_graphs(model: nn.Module, fit: list[Data], *, epochs: int, batch_size: int, lr: float,
               weight_decay: float, loss: Loss,
               score: Callable[[nn.Module], float]) -> FitResult:
    """Adam on shuffled mini-batches for `epochs` epochs; after each epoch `score(model)` rates
    it on validation graphs (higher is better) and the weights of the best epoch are restored at
    the end (ties keep the earlier epoch). No early stop: the epochs are few and cheap."""
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    loader = DataLoader(fit, batch_size=batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(SEED))
    best, best_state, best_epoch = -np.inf, None, 0
    for epoch in range(1, epochs + 1):
        model.train()
        for batch in loader:
            opt.zero_grad()
            loss(model(batch), batch).backward()
            opt.step()
        value = score(model)
        if value > best:
            best, best_epoch = value, epoch
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(best_state)
    return FitResult(best_epoch=best_epoch, best_val=float(best), epochs_run=epochs)


@dataclass
class GraphRun:
    predictions: np.ndarray  # test graphs, in `GraphTask.test_ids` order
    best_epoch: int
    val: dict[str, float]  # validation metric(s) of the kept epoch, rounded to 4 digits
    training_minutes: float


def fit_binary_classifier(model: nn.Module, task: GraphTask, target: str, *, epochs: int,
                          batch_size: int, lr: float, weight_decay: float,
                          val_fraction: float) -> GraphRun:
    """0/1 labels from one output logit. The loss weighs the positive class by the negative /
    positive ratio of the fitted graphs, so both classes count equally, as macro-F1 does; the
    kept epoch is the one with the best macro-F1 on a stratified `val_fraction` split."""
    labelled = task.training_graphs(torch.tensor([float(label)]) for label in task.train[target])
    fit, val = train_test_split(labelled, test_size=val_fraction, random_state=SEED,
                                stratify=task.train[target].to_numpy())
    y_fit = np.array([int(g.y) for g in fit])
    y_val = np.array([int(g.y) for g in val])
    pos_weight = torch.tensor((y_fit == 0).sum() / max((y_fit == 1).sum(), 1))

    def bce(out: torch.Tensor, batch: Data) -> torch.Tensor:
        return nn.functional.binary_cross_entropy_with_logits(out[:, 0], batch.y,
                                                              pos_weight=pos_weight)

    def macro_f1(m: nn.Module) -> float:
        return f1_score(y_val, predict_graphs(m, val)[:, 0] > 0, average="macro")

    with Stopwatch() as clock:
        result = fit_graphs(model, fit, epochs=epochs, batch_size=batch_size, lr=lr,
                            weight_decay=weight_decay, loss=bce, score=macro_f1)
    logits = predict_graphs(model, task.test_graphs())[:, 0]
    return GraphRun((logits > 0).astype(int), result.best_epoch,
                    {"macro_f1": round(result.best_val, 4)}, clock.minutes)


def fit_multiclass_classifier(model: nn.Module, task: GraphTask, target: str, n_classes: int,
                              *, epochs: int, batch_size: int, lr: float, weight_decay: float,
                              val_fraction: float) -> GraphRun:
    """One logit per class, cross-entropy weighted by inverse class frequency (macro-F1 weighs
    every class the same); the kept epoch has the best macro-F1 on a stratified `val_fraction`
    split of the training graphs."""
    labels = task.train[target].to_numpy()
    labelled = task.training_graphs(torch.tensor([int(label)]) for label in labels)
    fit, val = train_test_split(labelled, test_size=val_fraction, random_state=SEED,
                                stratify=labels)
    y_fit = np.array([int(g.y) for g in fit])
    y_val = np.array([int(g.y) for g in val])
    counts = np.bincount(y_fit, minlength=n_classes).astype(np.float64)
    weight = torch.tensor(counts.sum() / np.maximum(counts, 1) / n_classes, dtype=torch.float32)

    def cross_entropy(out: torch.Tensor, batch: Data) -> torch.Tensor:
        return nn.functional.cross_entropy(out, batch.y, weight=weight)

    def macro_f1(m: nn.Module) -> float:
        return f1_score(y_val, predict_graphs(m, val).argmax(axis=1), average="macro",
                        labels=list(range(n_classes)), zero_division=0)

    with Stopwatch() as clock:
        result = fit_graphs(model, fit, epochs=epochs, batch_size=batch_size, lr=lr,
                            weight_decay=weight_decay, loss=cross_entropy, score=macro_f1)
    classes = predict_graphs(model, task.test_graphs()).argmax(axis=1)
    return GraphRun(classes.astype(int), result.best_epoch,
                    {"macro_f1": round(result.best_val, 4)}, clock.minutes)


def fit_range_scaled_regressor(model: nn.Module, task: GraphTask, targets: Sequence[str], *,
                               epochs: int, batch_size: int, lr: float,
                               val_fraction: float) -> GraphRun:
    """One output per target. Each target is centred and divided by its training range, so the
    L1 loss is the range-normalised MAE (NMAE) and no target dominates when there are several;
    the kept epoch has the lowest mean NMAE on a random `val_fraction` split (drawn with
    `task.rng`). `GraphRun.val` holds the per-target MAE, in target units."""
    y = task.train[list(targets)].to_numpy(np.float32)
    mean, scale = y.mean(axis=0), y.max(axis=0) - y.min(axis=0) + 1e-6
    labelled = task.training_graphs(torch.tensor(t).unsqueeze(0) for t in (y - mean) / scale)
    order = task.rng.permutation(len(labelled))
    n_val = max(1, int(val_fraction * len(labelled)))
    val = [labelled[i] for i in order[:n_val]]
    fit = [labelled[i] for i in order[n_val:]]
    y_val = np.stack([g.y.numpy()[0] for g in val]) * scale + mean

    def l1(out: torch.Tensor, batch: Data) -> torch.Tensor:
        return nn.functional.l1_loss(out, batch.y)

    def val_mae(m: nn.Module) -> np.ndarray:
        return np.abs(predict_graphs(m, val) * scale + mean - y_val).mean(axis=0)

    with Stopwatch() as clock:
        result = fit_graphs(model, fit, epochs=epochs, batch_size=batch_size, lr=lr,
                            weight_decay=0.0, loss=l1,
                            score=lambda m: -(val_mae(m) / scale).mean())
    best_mae = val_mae(model)  # the restored best epoch: eval mode is deterministic
    pred = predict_graphs(model, task.test_graphs()) * scale + mean
    return GraphRun(pred, result.best_epoch,
                    {t: round(float(e), 4) for t, e in zip(targets, best_mae, strict=True)},
                    clock.minutes)
