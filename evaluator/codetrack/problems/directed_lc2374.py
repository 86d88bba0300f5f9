"""lc2374: the node whose incoming arcs come from the largest sum of indices."""

from __future__ import annotations

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    FUNCTIONAL_GRAPH_CONTRACT,
    TYPING_IMPORT,
    functional_graph_case,
    functional_graph_in_contract,
    functional_graph_skips,
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


# The shared functional-graph contract and builder, under the names the problem modules use.
in_contract = functional_graph_in_contract
build_case = functional_graph_case


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
        input_contract=FUNCTIONAL_GRAPH_CONTRACT,
        reference=edge_score,
        checker=exact,
        build_case=build_case,
        field_map={"graphs": "edges"},
        skipped_cells=functional_graph_skips(),
        label_status="too-few-cases: only 10 published cases (regular/connected); all agree",
    )
)
