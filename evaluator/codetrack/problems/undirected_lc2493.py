"""lc2493: the most groups such that every edge joins consecutive groups."""

from __future__ import annotations

import random
from collections import deque
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    SIMPLE_GRAPH_CONTRACT,
    TYPING_IMPORT,
    DisjointSets,
    adjacency,
    carve,
    edge_list,
    make_bipartite,
    relabel,
    simple_graph_in_contract,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
An undirected graph has nodes `0..n-1`; `edges[i] = [a, b]` joins `a` and `b`, with at most one
edge per pair and no edge from a node to itself. The graph may be disconnected.

Split all nodes into groups numbered `1, 2, ..., m` (every node in exactly one group, every group
non-empty) so that the two ends of every edge lie in groups whose numbers differ by exactly 1.
Return the largest `m` for which such a split exists, or `-1` if there is no such split at all.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def magnificentSets(self, n: int, edges: List[List[int]]) -> int:
        ...
"""
)


def _graph_and_components(n: int, edges: list[list[int]]) -> tuple[list[list[int]], DisjointSets]:
    """The adjacency lists and the components (as disjoint sets) of the graph."""
    adj = adjacency(n, edges)
    sets = DisjointSets(n)
    for u, v in edges:
        sets.union(u, v)
    return adj, sets


def _eccentricity_layers(adj: list[list[int]], start: int) -> int:
    """Number of BFS layers from `start`, or -1 if an edge joins two nodes of one layer
    (an odd cycle)."""
    dist = {start: 0}
    queue = deque([start])
    deepest = 0
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if v not in dist:
                dist[v] = dist[u] + 1
                deepest = max(deepest, dist[v])
                queue.append(v)
            elif dist[v] == dist[u]:
                return -1
    return deepest + 1


def magnificent_sets(n: int, edges: list[list[int]]) -> int:
    """Components are independent. A split exists iff the component is bipartite; then the
    best split of a component is the BFS layering from some node, so the component adds its
    largest layer count over all start nodes (an isolated node adds 1)."""
    adj, sets = _graph_and_components(n, edges)
    best: dict[int, int] = {}
    for start in range(n):
        layers = _eccentricity_layers(adj, start)
        if layers == -1:
            return -1
        root = sets.find(start)
        best[root] = max(best.get(root, 0), layers)
    return sum(best.values())


# The shared simple-graph contract and builder, under the names the problem modules use.
in_contract = simple_graph_in_contract
def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """`n` and the drawn graph's edges; half the inputs are made bipartite (most drawn graphs
    have an odd cycle, which makes the answer -1), and a third get a ball cut off."""
    H = relabel(G)
    if H.number_of_nodes() < 1:
        return None
    if rng.random() < 0.5:
        make_bipartite(H)
    if rng.random() < 0.3:
        carve(H, rng)
    return {"n": H.number_of_nodes(), "edges": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2493_first_start_only(n: int, edges: list[list[int]]) -> int:
    """Takes the BFS layering from the smallest node of each component instead of the best
    start node."""
    adj, sets = _graph_and_components(n, edges)
    total, seen = 0, set()
    for start in range(n):
        root = sets.find(start)
        if root in seen:
            continue
        seen.add(root)
        layers = _eccentricity_layers(adj, start)
        if layers == -1:
            return -1
        total += layers
    return total


def lc2493_ignores_odd_cycles(n: int, edges: list[list[int]]) -> int:
    """Never answers -1: forgets that an odd cycle makes every split impossible."""
    adj, sets = _graph_and_components(n, edges)
    best: dict[int, int] = {}
    for start in range(n):
        dist = {start: 0}
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        root = sets.find(start)
        best[root] = max(best.get(root, 0), max(dist.values()) + 1)
    return sum(best.values())


PROBLEM = register(
    Problem(
        id="lc2493",
        title="Most groups such that every edge joins consecutive groups",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="magnificentSets",
        arg_names=("n", "edges"),
        concept="graph traversal",
        difficulty="hard",
        directed=False,
        input_contract=SIMPLE_GRAPH_CONTRACT,
        reference=magnificent_sets,
        checker=exact,
        build_case=build_case,
        mutants={
            "first start only": lc2493_first_start_only,
            "ignores odd cycles": lc2493_ignores_odd_cycles,
        },
        published_cells=cells(
            "erdos/connected planar/connected planar/disconnected planar/cyclic planar/acyclic "
            "power-law/connected regular/connected regular/disconnected regular/cyclic "
            "small-world/connected sparse/connected sparse/disconnected sparse/cyclic "
            "sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["edges"]),
        cost_rate=16e-6,  # a BFS from every node of every component: O(n (n + m))
        in_contract=in_contract,
        field_map={"n": "n", "graphs": "edges"},
        label_status=(
            "label-wrong: a 1-based solution on 0-based ids adds a phantom group (label = "
            "answer + 1) in 284 bipartite cases where node 0 has an edge"
        ),
        notes="Relabel with the 0-based semantics; 67 % of the labels are -1.",
    )
)
