"""lc2360: the longest cycle when every node has at most one outgoing arc."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import functional_digraph
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import TYPING_IMPORT, is_int, one_arc_per_node

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A directed graph has `n = len(edges)` nodes `0..n-1`, and every node has at most one outgoing
arc: `edges[i]` is the node that `i` points to, or `-1` when `i` has no outgoing arc
(`edges[i] != i`).

Return the number of nodes on the longest directed cycle of the graph, or `-1` if the graph has
no cycle.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def longestCycle(self, edges: List[int]) -> int:
        ...
"""
)


def _cycle_lengths(edges: list[int]) -> Iterator[int]:
    """Follow arcs from each unvisited node, stamping nodes with the walk's start; meeting a
    node stamped by the current walk closes a cycle whose length the step counters give.
    Yields each cycle's length in the order the walks find them."""
    n = len(edges)
    owner = [-1] * n
    step = [0] * n
    for start in range(n):
        u, t = start, 0
        while 0 <= u < n and owner[u] == -1:
            owner[u], step[u] = start, t
            u, t = edges[u], t + 1
        if 0 <= u < n and owner[u] == start:
            yield t - step[u]


def longest_cycle(edges: list[int]) -> int:
    """The longest of the cycles (`_cycle_lengths`); -1 without one."""
    return max(_cycle_lengths(edges), default=-1)


def in_contract(args: Mapping[str, Any]) -> bool:
    edges = args["edges"]
    if not isinstance(edges, list) or not edges:
        return False
    n = len(edges)
    return all(is_int(v) and (v == -1 or 0 <= v < n) and v != i for i, v in enumerate(edges))


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Each node keeps one random outgoing arc of the drawn graph (-1 for nodes without one);
    a directed cycle of the graph, if it has one, is kept whole."""
    return {"edges": one_arc_per_node(G, rng, sinks="none")}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2360_first_cycle(edges: list[int]) -> int:
    """Returns the length of the first cycle found instead of the longest."""
    return next(_cycle_lengths(edges), -1)


def lc2360_no_cycle_is_zero(edges: list[int]) -> int:
    """Starts the best length at 0, so a graph without a cycle answers 0 instead of -1."""
    return max(longest_cycle(edges), 0)


PROBLEM = register(
    Problem(
        id="lc2360",
        title="Longest cycle with out-degree at most one",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="longestCycle",
        arg_names=("edges",),
        concept="cycle detection",
        difficulty="hard",
        directed=True,
        input_contract="edges[i] in 0..n-1 or -1, edges[i] != i",
        reference=longest_cycle,
        checker=exact,
        build_case=build_case,
        mutants={
            "first cycle": lc2360_first_cycle,
            "no cycle is 0": lc2360_no_cycle_is_zero,
        },
        published_cells=cells(
            "dense/dense dense_01/dense dense_02/dense dense_03/dense dense_04/dense "
            "dense_05/dense dense_09/dense planar/disconnected planar/cyclic planar/acyclic "
            "sparse/connected sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: functional_digraph(a["edges"]),
        in_contract=in_contract,
        field_map={"graphs": "edges"},
        label_status="consistent",
        notes=(
            "Published planar/acyclic and sparse/acyclic are constant -1; the dense cells are "
            "dominated by 2-cycles (dense_09: 92 % answer 2)."
        ),
    )
)
