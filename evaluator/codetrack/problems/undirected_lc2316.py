"""lc2316: count the pairs of nodes that no path joins."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    EVERY_CATEGORY_CELLS,
    SIMPLE_GRAPH_CONTRACT,
    TYPING_IMPORT,
    carve,
    component_sizes,
    edge_list,
    relabel,
    simple_graph_in_contract,
)

if TYPE_CHECKING:
    import networkx as nx

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


# The shared simple-graph contract and builder, under the names the problem modules use.
in_contract = simple_graph_in_contract
def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """`n` and the drawn graph's edges; half the inputs get a ball of nodes cut off (see
    `carve`), so unreachable pairs occur outside the disconnected cells too."""
    H = relabel(G)
    if H.number_of_nodes() < 1:
        return None
    if rng.random() < 0.5:
        carve(H, rng)
    return {"n": H.number_of_nodes(), "edges": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2316_ordered_pairs(n: int, edges: list[list[int]]) -> int:
    """Counts ordered pairs (every pair twice)."""
    inside = sum(k * (k - 1) for k in component_sizes(n, edges))
    return n * (n - 1) - inside


def lc2316_skips_isolated(n: int, edges: list[list[int]]) -> int:
    """Builds components from the edge list only: nodes without edges are forgotten."""
    touched = sorted({x for e in edges for x in e})
    index = {v: i for i, v in enumerate(touched)}
    sizes = component_sizes(len(touched), [[index[a], index[b]] for a, b in edges])
    m = len(touched)
    return m * (m - 1) // 2 - sum(k * (k - 1) // 2 for k in sizes)


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
        input_contract=SIMPLE_GRAPH_CONTRACT,
        reference=count_unreachable_pairs,
        checker=exact,
        build_case=build_case,
        mutants={
            "ordered pairs": lc2316_ordered_pairs,
            "skips isolated nodes": lc2316_skips_isolated,
        },
        published_cells=EVERY_CATEGORY_CELLS,
        input_graph=lambda a: graph_of(a["n"], a["edges"]),
        cost_rate=2e-6,
        in_contract=in_contract,
        field_map={"numNodes": "n", "graphs": "edges"},
        label_status="consistent",
        notes="80 % of the published labels are 0 (connected graphs); only disconnected cells "
        "are informative.",
    )
)
