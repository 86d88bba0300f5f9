"""lc2374: the node whose incoming arcs come from the largest sum of indices."""

from __future__ import annotations

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import functional_digraph
from evaluator.codetrack.problem import Problem, cells, register
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


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2374_largest_on_ties(edges: list[int]) -> int:
    """Keeps the last node with the highest score instead of the smallest one."""
    score = [0] * len(edges)
    for i, v in enumerate(edges):
        score[v] += i
    best = max(score)
    return max(v for v, s in enumerate(score) if s == best)


def lc2374_in_degree(edges: list[int]) -> int:
    """Counts the arcs into a node instead of adding their indices."""
    score = [0] * len(edges)
    for v in edges:
        score[v] += 1
    return score.index(max(score))


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
        mutants={
            "largest on ties": lc2374_largest_on_ties,
            "in-degree": lc2374_in_degree,
        },
        published_cells=cells("regular/connected"),
        input_graph=lambda a: functional_digraph(a["edges"]),
        in_contract=in_contract,
        field_map={"graphs": "edges"},
        skipped_cells=functional_graph_skips(),
        label_status="too-few-cases: only 10 published cases (regular/connected); all agree",
    )
)
