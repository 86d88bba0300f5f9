"""lc2316: count the pairs of nodes that no path joins."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    component_sizes,
    edge_list,
    is_simple,
    relabel,
)

STATEMENT = """\
An undirected graph has nodes `0..n-1`; `edges[i] = [a, b]` joins `a` and `b`, with at most one
edge per pair and no edge from a node to itself.

Return the number of unordered pairs of different nodes that are not joined by any path. A node
with no edges is joined by a path to no other node.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def countPairs(self, n: int, edges: List[List[int]]) -> int:
        ...
"""
)


def count_unreachable_pairs(n: int, edges: list[list[int]]) -> int:
    """All pairs minus the pairs inside each connected component."""
    inside = sum(k * (k - 1) // 2 for k in component_sizes(n, edges))
    return n * (n - 1) // 2 - inside


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph on `0..n-1`, n >= 1."""
    return args["n"] >= 1 and is_simple(args["n"], args["edges"])


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    H = relabel(G)
    if H.number_of_nodes() < 1:
        return None
    return {"n": H.number_of_nodes(), "edges": edge_list(H, rng)}


PROBLEM = register(
    Problem(
        id="lc2316",
        title="Count pairs of nodes with no path between them",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="countPairs",
        arg_names=("n", "edges"),
        concept="graph traversal",
        difficulty="medium",
        directed=False,
        input_contract="simple undirected graph on 0..n-1, n >= 1",
        reference=count_unreachable_pairs,
        checker=exact,
        build_case=build_case,
        field_map={"numNodes": "n", "graphs": "edges"},
        label_status="consistent",
        notes="80 % of the published labels are 0 (connected graphs); only disconnected cells "
        "are informative.",
    )
)
