"""Small full-batch GNN and MLP models on torch-geometric layers (no C++ extensions needed).

Inputs may be dense or sparse (`torch.sparse_coo_tensor`): the first layer is `InputLinear`,
which multiplies sparse features without densifying them, so a 37,700 x 4,005 bag-of-features
matrix costs its non-zeros, not 600 MB.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from scipy import sparse
from torch import nn
from torch_geometric.nn import GCNConv, SAGEConv
from torch_geometric.utils import to_undirected


def to_tensor(x: np.ndarray | sparse.spmatrix) -> torch.Tensor:
    """Features as float32: dense stays dense, SciPy sparse becomes a coalesced COO tensor."""
    if sparse.issparse(x):
        coo = sparse.coo_matrix(x)
        index = torch.from_numpy(np.vstack([coo.row, coo.col]).astype(np.int64))
        return torch.sparse_coo_tensor(index, torch.from_numpy(coo.data.astype(np.float32)),
                                       coo.shape, check_invariants=True).coalesce()
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))


def edge_tensor(edges: np.ndarray, num_nodes: int) -> torch.Tensor:
    """(2, E) positions, each undirected edge once -> both directions, as PyG expects."""
    return to_undirected(torch.from_numpy(np.asarray(edges, dtype=np.int64)),
                         num_nodes=num_nodes)


class InputLinear(nn.Module):
    """Linear layer that accepts dense or sparse input."""

    def __init__(self, in_dim: int, out_dim: int) -> None:
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.is_sparse:
            return torch.sparse.mm(x, self.lin.weight.t()) + self.lin.bias
        return self.lin(x)


class MLP(nn.Module):
    """Features only: the graph is ignored (the non-graph reference)."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int, dropout: float = 0.5) -> None:
        super().__init__()
        self.inp, self.out, self.dropout = InputLinear(in_dim, hidden), nn.Linear(hidden,
                                                                                 out_dim), dropout

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor | None = None) -> torch.Tensor:
        h = F.dropout(F.relu(self.inp(x)), self.dropout, self.training)
        return self.out(h)


class GCN(nn.Module):
    """Kipf & Welling (2017): features projected, then symmetric-normalised propagation."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int, dropout: float = 0.5) -> None:
        super().__init__()
        self.inp = InputLinear(in_dim, hidden)
        self.conv1 = GCNConv(hidden, hidden, cached=True)
        self.conv2 = GCNConv(hidden, out_dim, cached=True)
        self.dropout = dropout

    def embed(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        h = F.dropout(self.inp(x), self.dropout, self.training)
        return F.relu(self.conv1(h, edge_index))

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        h = F.dropout(self.embed(x, edge_index), self.dropout, self.training)
        return self.conv2(h, edge_index)


class SAGE(nn.Module):
    """GraphSAGE (mean aggregator, Hamilton et al. 2017), two layers after the input layer."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int, dropout: float = 0.5) -> None:
        super().__init__()
        self.inp = InputLinear(in_dim, hidden)
        self.conv1 = SAGEConv(hidden, hidden)
        self.conv2 = SAGEConv(hidden, out_dim)
        self.dropout = dropout

    def embed(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        h = F.dropout(F.relu(self.inp(x)), self.dropout, self.training)
        return F.relu(self.conv1(h, edge_index))

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        h = F.dropout(self.embed(x, edge_index), self.dropout, self.training)
        return self.conv2(h, edge_index)
