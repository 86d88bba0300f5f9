"""lc1466: flip the fewest one-way roads of a tree so every city can reach city 0."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import NoTrueAnswer, Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    TYPING_IMPORT,
    arc_list,
    is_oriented_tree,
    min_reversals_from,
    pairs_in_range,
    skip_subcategories,
    spanning_tree_arcs,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
There are `n` cities with ids `0..n-1` and `n-1` one-way roads; `connections[i] = [a, b]` is a
road that can only be driven from `a` to `b`. Ignoring the directions, the roads connect all
cities and contain no cycle (they form a tree).

Return the smallest number of roads whose direction must be reversed so that every city can
reach city `0`.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def minReorder(self, n: int, connections: List[List[int]]) -> int:
        ...
"""
)


def min_reorder(n: int, connections: list[list[int]]) -> int:
    """Walk the tree from city 0; every road crossed in its own direction points away from 0
    and must be flipped."""
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for a, b in connections:
        adj[a].append((b, 1))  # driving a -> b from the 0 side: flip needed
        adj[b].append((a, 0))
    seen = [False] * n
    seen[0] = True
    stack = [0]
    flips = 0
    while stack:
        u = stack.pop()
        for v, cost in adj[u]:
            if not seen[v]:
                seen[v] = True
                flips += cost
                stack.append(v)
    return flips


def in_contract(args: Mapping[str, Any]) -> bool:
    return is_oriented_tree(args["n"], args["connections"])


def published_truth(args: Mapping[str, Any]) -> int:
    """The statement's question on any road network (no published case is a tree): the fewest
    flips so every city reaches 0, i.e. so city 0 reaches every city once all roads are
    reversed. The tree walk of the reference is exact only on trees."""
    n, roads = args["n"], args["connections"]
    if not pairs_in_range(n, roads) or n < 1:
        raise NoTrueAnswer("no answer", "road ends outside 0..n-1")
    (flips,) = min_reversals_from(n, [(b, a) for a, b in roads], [0])
    if flips is None:
        raise NoTrueAnswer("no answer", "the roads do not connect all cities, so some city "
                           "cannot reach city 0 whatever is flipped")
    return flips


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """A random spanning tree of the graph's shape, each road keeping its arc's direction.
    None when the graph is not weakly connected."""
    tree = spanning_tree_arcs(G, rng)
    if tree is None:
        return None
    return {"n": G.number_of_nodes(), "connections": arc_list(tree, rng)}


TREE_ONLY = (
    "the roads must form a tree: cases are random spanning trees of connected graphs "
    "(connected and acyclic cells only)"
)


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1466_counts_the_other_roads(n: int, connections: list[list[int]]) -> int:
    """Gets the orientation wrong: counts the roads already pointing towards city 0."""
    return n - 1 - min_reorder(n, connections)


def lc1466_capital_roads_only(n: int, connections: list[list[int]]) -> int:
    """Flips only the roads that leave city 0 itself."""
    return sum(1 for a, _ in connections if a == 0)


PROBLEM = register(
    Problem(
        id="lc1466",
        title="Fewest road reversals so all cities reach city 0",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="minReorder",
        arg_names=("n", "connections"),
        concept="graph traversal",
        difficulty="medium",
        directed=True,
        input_contract="n-1 arcs on 0..n-1 whose undirected shape is a tree",
        reference=min_reorder,
        checker=exact,
        build_case=build_case,
        mutants={
            "reversed orientation": lc1466_counts_the_other_roads,
            "roads at city 0 only": lc1466_capital_roads_only,
        },
        published_cells=cells(
            "planar/cyclic sparse/connected sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: digraph_of(a["n"], a["connections"]),
        in_contract=in_contract,
        published_truth=published_truth,
        field_map={"n": "n", "graphs": "connections"},
        skipped_cells=skip_subcategories(["cyclic", "disconnected"], TREE_ONLY),
        label_status=(
            "label-wrong: no published case is a tree; labels come from an order-dependent "
            "queue procedure (1/140 equal the true minimum); regenerate"
        ),
        notes=(
            "Generated inputs are random spanning trees of connected graphs of the category, "
            "keeping the drawn arc directions (DAG orientation in acyclic cells)."
        ),
    )
)
