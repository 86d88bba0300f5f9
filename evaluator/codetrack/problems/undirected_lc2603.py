"""lc2603: the shortest closed walk that collects every coin within distance two."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    acyclic_only_skips,
    adjacency,
    edge_list,
    is_tree,
    relabel,
)

STATEMENT = """\
A tree has nodes `0..n-1`, where `n = len(coins)`; `edges[i] = [a, b]` joins `a` and `b`, and
`coins[i]` is `1` if node `i` holds a coin and `0` otherwise.

Start at any node you like. At any moment you collect every coin at distance at most 2 (counted
in edges) from the node you stand on, and you may move along one edge at a time. Return the
minimum number of edge moves (each traversal counts, repeats included) needed to collect every
coin and come back to the starting node.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def collectTheCoins(self, coins: List[int], edges: List[List[int]]) -> int:
        ...
"""
)


def collect_the_coins(coins: list[int], edges: list[list[int]]) -> int:
    """Leaves without coins never need visiting, so prune them repeatedly; then every remaining
    leaf holds a coin that is collected from two edges inward, so strip two more leaf layers.
    The walk covers each surviving edge twice."""
    n = len(coins)
    adj = adjacency(n, edges)
    degree = [len(nbrs) for nbrs in adj]
    removed = [False] * n
    edges_left = len(edges)

    def remove(u: int) -> list[int]:
        """Delete leaf `u`; return its neighbours that just became leaves."""
        nonlocal edges_left
        removed[u] = True
        freed = []
        for v in adj[u]:
            if not removed[v]:
                edges_left -= 1
                degree[v] -= 1
                if degree[v] == 1:
                    freed.append(v)
        return freed

    queue = deque(u for u in range(n) if degree[u] == 1 and coins[u] == 0)
    while queue:
        u = queue.popleft()
        if removed[u] or degree[u] != 1:
            continue
        queue.extend(v for v in remove(u) if coins[v] == 0)
    for _ in range(2):
        leaves = [u for u in range(n) if not removed[u] and degree[u] == 1]
        for u in leaves:
            if degree[u] == 1:
                remove(u)
    return 2 * max(edges_left, 0)


def in_contract(args: Mapping[str, Any]) -> bool:
    """A tree on `0..len(coins)-1` with 0/1 coins."""
    coins = args["coins"]
    return all(c in (0, 1) for c in coins) and is_tree(len(coins), args["edges"])


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Trees only; the coin density varies so that both pruning phases matter."""
    H = relabel(G)
    n = H.number_of_nodes()
    if n < 1 or not nx.is_tree(H):
        return None
    density = rng.choice((0.05, 0.2, 0.5))
    coins = [1 if rng.random() < density else 0 for _ in range(n)]
    return {"coins": coins, "edges": edge_list(H, rng)}


PROBLEM = register(
    Problem(
        id="lc2603",
        title="Shortest closed walk that collects every coin within distance two",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="collectTheCoins",
        arg_names=("coins", "edges"),
        concept="graph traversal",
        difficulty="hard",
        directed=False,
        input_contract="tree on 0..len(coins)-1; coins are 0 or 1",
        reference=collect_the_coins,
        checker=exact,
        build_case=build_case,
        field_map={"coins": "coins", "graphs": "edges"},
        skipped_cells=acyclic_only_skips(forest_ok=False),
        label_status=(
            "label-wrong: 586 published inputs are not trees; the tree pruning formula gives "
            "476 non-minimal labels and 110 labels for inputs with no closed walk at all"
        ),
        notes="Only the 314 tree inputs are in contract; regenerate with trees.",
    )
)
