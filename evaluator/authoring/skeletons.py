"""Skeletons: a graph's bonds without atom or bond types, and which graphs share one.

Why: a competition that hides labels, or corrupts node features, leaves the topology in the
clear. Two molecules with the same skeleton (isomers, substituent swaps) almost always share
their label in MUTAG (135 of its 139 skeleton classes are pure), so a released graph whose
skeleton matches a training graph is answered by lookup, and one matching another test graph
is answered together with it. gta v2 had 4 of 38 perturbed test graphs matching an ideal test
graph by skeleton and bonds, and a matching attack with no learning ranked above the
features-only baseline; builders use these classes to keep test graphs apart, and the tests
use them to check the published tables.

Matching is NetworkX's: the Weisfeiler-Lehman hash only buckets candidates (equal hashes are
necessary for isomorphism, not sufficient), `nx.is_isomorphic` decides. The classes depend on
the graphs alone, never on the hash's value, so NetworkX releases that change the hash (3.5
did, for unlabelled graphs) change nothing here.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Mapping, Sequence

import networkx as nx
import numpy as np


def skeleton(num_nodes: int, edges: Iterable[Sequence[int]] | np.ndarray) -> nx.Graph:
    """The unlabelled simple graph on nodes 0..num_nodes-1 with these undirected edges."""
    graph = nx.Graph()
    graph.add_nodes_from(range(int(num_nodes)))
    graph.add_edges_from((int(u), int(v)) for u, v in edges)
    return graph


def _bucket_key(graph: nx.Graph) -> tuple[int, int, str]:
    with warnings.catch_warnings():  # the 3.5 hash-change notice: the value is only a bucket
        warnings.simplefilter("ignore", UserWarning)
        digest = nx.weisfeiler_lehman_graph_hash(graph)
    return graph.number_of_nodes(), graph.number_of_edges(), digest


def skeleton_classes(graphs: Mapping[Hashable, nx.Graph]) -> list[list[Hashable]]:
    """The keys of `graphs` grouped by isomorphism of the unlabelled graphs.

    Each class lists its keys in the mapping's order; classes are ordered by their first key.
    Node and edge attributes are ignored (the skeleton, not the molecule)."""
    buckets: dict[tuple[int, int, str], list[list[Hashable]]] = {}
    classes: list[list[Hashable]] = []
    for key, graph in graphs.items():
        bucket = buckets.setdefault(_bucket_key(graph), [])
        for members in bucket:
            if nx.is_isomorphic(graphs[members[0]], graph):
                members.append(key)
                break
        else:
            members = [key]
            bucket.append(members)
            classes.append(members)
    return classes


def shared_skeletons(graphs: Mapping[Hashable, nx.Graph]) -> dict[Hashable, list[Hashable]]:
    """For every key whose skeleton another graph shares: the other keys with that skeleton."""
    return {key: [other for other in members if other != key]
            for members in skeleton_classes(graphs) if len(members) > 1 for key in members}
