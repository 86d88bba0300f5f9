"""Resampling clusters of a split (see `spec.Clusters`), one label per hidden-label row.

Why a separate step: clusters come from the hidden labels (a column the maintainer sealed with
them, e.g. a molecule id shared by twin graphs) or from public files (same-speaker edges), so
they are resolved where the labels are decrypted, and scoring stays a pure function of tables.
Edge clusters are connected components computed with NetworkX over the split's own ids.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evaluator.competition.spec import Clusters, CompetitionSpec
from evaluator.errors import ConfigError


def _from_edges(folder: Path, spec: CompetitionSpec, c: Clusters, ids: pd.Index) -> np.ndarray:
    import networkx as nx  # only competitions that declare edge clusters pay the import

    path = folder / str(c.edges)
    try:
        edges = pd.read_csv(path)
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: cannot read the cluster edges: {err}") from None
    need = [c.src, c.dst] + ([c.where] if c.where else [])
    missing = [n for n in need if n not in edges.columns]
    if missing:
        raise ConfigError(f"{path}: no column(s) {missing} for clusters of {spec.slug}")
    if c.where:
        edges = edges[edges[c.where] == 1]
    key = ids.astype(str)
    inside = set(key)
    src, dst = edges[c.src].astype(str), edges[c.dst].astype(str)
    keep = src.isin(inside) & dst.isin(inside)
    graph = nx.Graph()
    graph.add_nodes_from(key)
    graph.add_edges_from(zip(src[keep], dst[keep], strict=True))
    label = {}
    for component in nx.connected_components(graph):
        first = min(component)
        for node in component:
            label[node] = first
    return np.asarray([label[k] for k in key], dtype=str)


def load_clusters(folder: Path, spec: CompetitionSpec, labels: dict[str, pd.DataFrame]
                  ) -> dict[str, tuple[str, np.ndarray]]:
    """split -> (cluster name, cluster label per row of labels[split], in its order)."""
    out = {}
    for name, split in spec.splits.items():
        c = split.clusters
        if c is None or name not in labels:
            continue
        table = labels[name]
        if c.edges is not None:
            out[name] = (c.name, _from_edges(Path(folder), spec, c, table.index))
            continue
        if c.column in table.columns:
            out[name] = (c.name, table[c.column].astype(str).to_numpy())
            continue
        ids_path = Path(folder) / split.ids
        public = pd.read_csv(ids_path, dtype=str)
        if c.column not in public.columns:
            raise ConfigError(f"{spec.slug}: splits.{name}.clusters.column {c.column!r} is "
                              f"neither in the hidden labels nor in {ids_path}")
        mapping = public.set_index(spec.id_column)[c.column]
        values = mapping.reindex(table.index.astype(str))
        if values.isna().any():
            raise ConfigError(f"{ids_path}: {int(values.isna().sum())} test ids have no "
                              f"{c.column!r}")
        out[name] = (c.name, values.to_numpy(dtype=str))
    return out
