"""lc2374: the node whose incoming arcs come from the largest sum of indices."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    TYPING_IMPORT,
    is_int,
    one_arc_per_node,
    skip_subcategories,
)

STATEMENT = """\
A directed graph has `n = len(edges)` nodes `0..n-1`, and every node has exactly one outgoing
arc: node `i` points to `edges[i]` (`0 <= edges[i] < n`, `edges[i] != i`).

The score of a node `v` is the sum of the indices `i` of all nodes that point to `v`. Return the
node with the highest score; if several nodes share the highest score, return the smallest of
them.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def edgeScore(self, edges: List[int]) -> int:
        ...
"""
)


def edge_score(edges: list[int]) -> int:
    score = [0] * len(edges)
    for i, v in enumerate(edges):
        score[v] += i
    best = max(score)
    return score.index(best)


def in_contract(args: Mapping[str, Any]) -> bool:
    edges = args["edges"]
    if not isinstance(edges, list) or len(edges) < 2:
        return False
    n = len(edges)
    return all(is_int(v) and 0 <= v < n and v != i for i, v in enumerate(edges))


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Each node keeps one random outgoing arc of the drawn graph; a node without one points
    back along one of its incoming arcs (or anywhere, if isolated)."""
    return {"edges": one_arc_per_node(G, rng, sinks="reverse")}


PROBLEM = register(
    Problem(
        id="lc2374",
        title="Node with the largest incoming-index sum",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="edgeScore",
        arg_names=("edges",),
        concept="general graph",
        difficulty="medium",
        directed=True,
        input_contract="edges[i] in 0..n-1, edges[i] != i, n >= 2",
        reference=edge_score,
        checker=exact,
        build_case=build_case,
        field_map={"graphs": "edges"},
        skipped_cells=skip_subcategories(
            ["acyclic"],
            "every node has exactly one outgoing arc, so the input always contains a cycle",
        ),
        label_status="too-few-cases: only 10 published cases (regular/connected); all agree",
    )
)
