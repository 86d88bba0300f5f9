"""lc2368: how many nodes node 0 reaches without entering a blocked node."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    adjacency,
    edge_list,
    is_simple,
    relabel,
)

STATEMENT = """\
An undirected graph has nodes `0..n-1`; `edges[i] = [a, b]` joins `a` and `b`, with at most one
edge per pair and no edge from a node to itself. `restricted` lists distinct blocked nodes; node
`0` is never blocked.

Start at node `0` and move along edges, never stepping onto a blocked node. Return the number of
nodes you can reach, node `0` included.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def reachableNodes(self, n: int, edges: List[List[int]], restricted: List[int]) -> int:
        ...
"""
)


def reachable_nodes(n: int, edges: list[list[int]], restricted: list[int]) -> int:
    """Depth-first search from 0 with blocked nodes pre-marked as visited."""
    adj = adjacency(n, edges)
    seen = [False] * n
    for r in restricted:
        seen[r] = True
    seen[0] = True
    stack, count = [0], 1
    while stack:
        for v in adj[stack.pop()]:
            if not seen[v]:
                seen[v] = True
                count += 1
                stack.append(v)
    return count


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph on `0..n-1`; distinct blocked ids in `1..n-1`."""
    n, restricted = args["n"], args["restricted"]
    return (
        n >= 1
        and is_simple(n, args["edges"])
        and len(set(restricted)) == len(restricted)
        and all(isinstance(r, int) and 1 <= r < n for r in restricted)
    )


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Block a random share (up to a third) of the nodes other than 0, but never every
    neighbour of node 0 (which would make the answer 1)."""
    H = relabel(G)
    n = H.number_of_nodes()
    if n < 2:
        return None
    restricted = rng.sample(range(1, n), rng.randint(1, max(1, (n - 1) // 3)))
    near = sorted(H.neighbors(0))
    if near and set(near) <= set(restricted):  # node 0 walled in: answer 1 far too often
        restricted.remove(rng.choice(near))
        if not restricted:
            restricted = [v for v in range(1, n) if v not in near][:1] or restricted
    return {"n": n, "edges": edge_list(H, rng), "restricted": restricted}


PROBLEM = register(
    Problem(
        id="lc2368",
        title="Nodes reachable from 0 while avoiding blocked nodes",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="reachableNodes",
        arg_names=("n", "edges", "restricted"),
        concept="graph traversal",
        difficulty="medium",
        directed=False,
        input_contract="simple undirected graph on 0..n-1 (any shape, not only trees); "
        "restricted: distinct ids in 1..n-1",
        reference=reachable_nodes,
        checker=exact,
        build_case=build_case,
        field_map={"numNodes": "n", "graphs": "edges", "restricted": "restricted"},
        label_status="consistent",
    )
)
