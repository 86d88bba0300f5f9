"""lc2368: how many nodes node 0 reaches without entering a blocked node."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    adjacency,
    edge_list,
    is_simple,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

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
    """Choose the answer first, then block nodes to make it true: grow a random connected
    region of `size` nodes around node 0 inside its component and block every node just
    outside it (plus a few far-away nodes), so exactly the region is reachable.

    Why: blocking random nodes walls node 0 in after a few steps, so small answers repeated
    (33, 2 and 4 each answered 6 of 140 cases). Here one case in ten asks for a region of
    1..19 nodes and the others for all but up to 10 nodes of the component (at most n - 1,
    so some node is left to block); as node counts are spread evenly over 20..200, the
    answers are then spread about evenly over 1..200. At least one node is always blocked."""
    import networkx as nx

    H = relabel(G)
    n = H.number_of_nodes()
    if n < 2:
        return None
    largest = min(len(nx.node_connected_component(H, 0)), n - 1)
    if rng.random() < 0.1:
        size = rng.randint(1, min(19, largest))
    else:
        size = largest - rng.randint(0, min(largest - 1, 10))
    region, frontier = {0}, sorted(H.neighbors(0))
    while len(region) < size:
        v = frontier.pop(rng.randrange(len(frontier)))
        if v in region:
            continue
        region.add(v)
        frontier.extend(w for w in sorted(H.neighbors(v)) if w not in region)
    walls = sorted({w for v in region for w in H.neighbors(v)} - region)
    others = [v for v in range(1, n) if v not in region and v not in walls]
    extra = rng.sample(others, rng.randint(0, min(len(others), max(0, (n - 1) // 3 - len(walls)))))
    restricted = walls + extra
    if not restricted:  # the region is node 0's whole component: block one node elsewhere
        restricted = [rng.choice(others)]
    rng.shuffle(restricted)
    return {"n": n, "edges": edge_list(H, rng), "restricted": restricted}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def _reach_from_zero(n: int, edges: list[list[int]], blocked: set[int],
                     count_blocked: bool) -> int:
    adj = adjacency(n, edges)
    seen = {0}
    stack, count = [0], 1
    while stack:
        for v in adj[stack.pop()]:
            if v in seen:
                continue
            seen.add(v)
            if v in blocked:
                count += count_blocked
                continue
            count += 1
            stack.append(v)
    return count


def lc2368_counts_blocked_neighbours(n: int, edges: list[list[int]],
                                     restricted: list[int]) -> int:
    """Counts a blocked node when it is reached, then stops there."""
    return _reach_from_zero(n, edges, set(restricted), count_blocked=True)


def lc2368_ignores_restricted(n: int, edges: list[list[int]], restricted: list[int]) -> int:
    """Forgets the blocked nodes: the size of node 0's component."""
    return _reach_from_zero(n, edges, set(), count_blocked=False)


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
        mutants={
            "counts blocked neighbours": lc2368_counts_blocked_neighbours,
            "ignores restricted": lc2368_ignores_restricted,
        },
        published_cells=cells(
            "erdos/connected planar/connected planar/acyclic power-law/connected "
            "small-world/connected sparse/connected sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["edges"]),
        in_contract=in_contract,
        field_map={"numNodes": "n", "graphs": "edges", "restricted": "restricted"},
        label_status="consistent",
    )
)
