"""lc1761: the least-connected triangle (minimum trio degree)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    degrees,
    edge_list,
    ids_in_range,
    is_simple,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
An undirected graph has `n` nodes and the edge list `edges`, where `edges[i] = [u, v]` joins `u`
and `v`; there is at most one edge per pair and no edge from a node to itself. Node ids are only
names: they are either `0..n-1` or `1..n`, so do not rely on either.

A trio is a set of three nodes that are pairwise joined by edges. The degree of a trio is the
number of edges with exactly one endpoint inside the trio. Return the smallest degree of any trio,
or `-1` if the graph has no trio.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def minTrioDegree(self, n: int, edges: List[List[int]]) -> int:
        ...
"""
)


def min_trio_degree(n: int, edges: list[list[int]]) -> int:
    """Each triangle is found once by orienting every edge towards the node of higher
    (degree, id) rank; out-neighbourhoods then have O(sqrt m) size. Ids are used as dict keys,
    so 0- and 1-based inputs both work."""
    degree: dict[int, int] = {}
    for u, v in edges:
        degree[u] = degree.get(u, 0) + 1
        degree[v] = degree.get(v, 0) + 1
    out: dict[int, set[int]] = {u: set() for u in degree}
    for u, v in edges:
        if (degree[u], u) < (degree[v], v):
            out[u].add(v)
        else:
            out[v].add(u)
    best = -1
    for u, higher in out.items():
        for v in higher:
            common = higher & out[v]
            if common:
                trio = degree[u] + degree[v] + min(degree[w] for w in common) - 6
                if best == -1 or trio < best:
                    best = trio
    return best


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph whose ids are all in `0..n-1` or all in `1..n`."""
    n, edges = args["n"], args["edges"]
    if is_simple(n, edges):
        return True
    if not ids_in_range(n, edges, low=1):
        return False
    return is_simple(n, [[u - 1, v - 1] for u, v in edges])


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Half of the cases use ids `1..n` so that solutions must treat ids as names."""
    H = relabel(G)
    if H.number_of_nodes() < 1:
        return None
    offset = rng.choice((0, 1))
    return {"n": H.number_of_nodes(), "edges": edge_list(H, rng, offset=offset)}


# The graph the solution receives (inputgraph.py), as this problem reads its input.


def one_or_zero_based(n: int, edges: Sequence[Sequence[int]]) -> int:
    ids = [x for e in edges for x in e]
    return 1 if ids and min(ids) >= 1 and max(ids) == n else 0


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1761_zero_based(n: int, edges: list[list[int]]) -> int:
    """Indexes arrays of size n by node id, as if ids were always 0..n-1 (id n crashes)."""
    degrees(n, edges)  # raises IndexError on id n, as the 0-based arrays would
    return min_trio_degree(n, edges)


def lc1761_no_trio_is_zero(n: int, edges: list[list[int]]) -> int:
    """Starts the minimum at 0 instead of reporting -1 when there is no trio."""
    return max(min_trio_degree(n, edges), 0)


PROBLEM = register(
    Problem(
        id="lc1761",
        title="Least-connected triangle",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="minTrioDegree",
        arg_names=("n", "edges"),
        concept="cycle detection",
        difficulty="hard",
        directed=False,
        input_contract="simple undirected graph; ids all in 0..n-1 or all in 1..n",
        reference=min_trio_degree,
        checker=exact,
        build_case=build_case,
        mutants={
            "0-based ids": lc1761_zero_based,
            "no trio is 0": lc1761_no_trio_is_zero,
        },
        published_cells=cells(
            "complete/connected erdos/connected planar/connected planar/disconnected "
            "planar/cyclic planar/acyclic power-law/connected regular/connected "
            "regular/disconnected regular/cyclic small-world/connected sparse/connected "
            "sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["edges"], one_or_zero_based(a["n"], a["edges"])),
        in_contract=in_contract,
        slow_import=True,
        field_map={"n_list": "n", "graphs": "edges"},
        label_status="consistent",
        notes="Published planar/* and sparse/* cells use ids 1..n and are triangle-free (-1).",
    )
)
