"""lc1192: every bridge of a connected network (Tarjan's low-link, iterative)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import set_of_unordered_pairs
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    adjacency,
    carve,
    component_sizes,
    degrees,
    edge_list,
    is_simple,
    relabel,
    skip_subcategories,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A network has `n` servers numbered `0` to `n - 1`. `connections[i] = [a, b]` is an undirected
link between servers `a` and `b`; there is at most one link per pair and no link from a server to
itself, and every server can reach every other one.

A link is critical when removing it leaves some pair of servers unable to reach each other.
Return all critical links. Each link may be written as `[a, b]` or `[b, a]`, and the links may be
listed in any order. Return an empty list when no link is critical.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def criticalConnections(self, n: int, connections: List[List[int]]) -> List[List[int]]:
        ...
"""
)


def _bridges(n: int, connections: list[list[int]], skip_parent: bool) -> list[list[int]]:
    """Bridges via discovery times and low-links; an explicit stack avoids recursion limits.
    `skip_parent=False` is the classic slip of letting the link to the parent lower a low-link
    (then no link is ever a bridge)."""
    adj = adjacency(n, connections)
    disc = [-1] * n
    low = [0] * n
    bridges: list[list[int]] = []
    clock = 0
    for start in range(n):
        if disc[start] != -1:
            continue
        disc[start] = low[start] = clock
        clock += 1
        # frame: (node, parent, iterator position); the parent edge is skipped once
        stack = [(start, -1, 0)]
        while stack:
            u, parent, i = stack[-1]
            if i < len(adj[u]):
                stack[-1] = (u, parent, i + 1)
                v = adj[u][i]
                if skip_parent and v == parent:
                    continue
                if disc[v] == -1:
                    disc[v] = low[v] = clock
                    clock += 1
                    stack.append((v, u, 0))
                else:
                    low[u] = min(low[u], disc[v])
            else:
                stack.pop()
                if parent != -1:
                    low[parent] = min(low[parent], low[u])
                    if low[u] > disc[parent]:
                        bridges.append([parent, u])
    return bridges


def critical_connections(n: int, connections: list[list[int]]) -> list[list[int]]:
    """Bridges (`_bridges`).

    Works on disconnected graphs too (every component is searched), although the contract
    promises a connected one.
    """
    return _bridges(n, connections, skip_parent=True)


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple connected graph on `0..n-1`."""
    n, edges = args["n"], args["connections"]
    return is_simple(n, edges) and n >= 1 and len(component_sizes(n, edges)) == 1


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Connected graphs only. Dense, complete and regular graphs have no bridge (answer []),
    so two inputs in five get some planted: a ball of nodes is cut off (`carve`) and the
    pieces are joined back in a chain of single edges, each then a bridge."""
    import networkx as nx

    H = relabel(G)
    if H.number_of_nodes() < 2 or not nx.is_connected(H):
        return None
    if rng.random() < 0.4:
        carve(H, rng)
        parts = [sorted(c) for c in sorted(nx.connected_components(H), key=min)]
        for a, b in zip(parts, parts[1:], strict=False):  # rejoin: one bridge per cut
            H.add_edge(rng.choice(a), rng.choice(b))
    return {"n": H.number_of_nodes(), "connections": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1192_parent_link_not_skipped(n: int, connections: list[list[int]]) -> list[list[int]]:
    """Low-links that also go back through the link to the parent: no link is ever a bridge."""
    return _bridges(n, connections, skip_parent=False)


def lc1192_leaf_links(n: int, connections: list[list[int]]) -> list[list[int]]:
    """Calls critical only the links to a server with a single link."""
    degree = degrees(n, connections)
    return [[a, b] for a, b in connections if degree[a] == 1 or degree[b] == 1]


PROBLEM = register(
    Problem(
        id="lc1192",
        title="All bridges of a network",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="criticalConnections",
        arg_names=("n", "connections"),
        concept="graph traversal",
        difficulty="hard",
        directed=False,
        input_contract="simple connected undirected graph on 0..n-1, n >= 2",
        reference=critical_connections,
        checker=set_of_unordered_pairs,
        build_case=build_case,
        mutants={
            "leaf links only": lc1192_leaf_links,
            "parent link not skipped": lc1192_parent_link_not_skipped,
        },
        published_cells=cells(
            "erdos/connected planar/connected planar/cyclic planar/acyclic power-law/connected "
            "regular/connected regular/cyclic small-world/connected sparse/connected "
            "sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["connections"]),
        in_contract=in_contract,
        field_map={"n_list": "n", "numCourse": "n", "graphs": "connections"},
        skipped_cells={
            **skip_subcategories(["disconnected"], "the statement promises a connected network"),
            "regular/acyclic": "the statement promises a connected network; this cell is a "
            "perfect matching",
        },
        label_status=(
            "label-wrong: on 104 disconnected graphs the labels list only the bridges of node "
            "n-1's component"
        ),
        notes="Disconnected published cases are out of contract; the 887 connected ones agree.",
    )
)
