"""lc2603: the shortest closed walk that collects every coin within distance two."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import NoTrueAnswer, Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    acyclic_only_skips,
    adjacency,
    bfs_tree,
    edge_list,
    ids_in_range,
    is_tree,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

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


def _coin_walk(coins: list[int], edges: list[list[int]], prune_empty: bool, layers: int) -> int:
    """Leaves without coins never need visiting, so prune them repeatedly (`prune_empty`);
    then every remaining leaf holds a coin that is collected from `layers` edges inward, so
    strip that many more leaf layers. The walk covers each surviving edge twice. The reference
    prunes and strips 2; the mutants forget one or the other."""
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

    queue = deque(u for u in range(n) if degree[u] == 1 and coins[u] == 0 and prune_empty)
    while queue:
        u = queue.popleft()
        if removed[u] or degree[u] != 1:
            continue
        queue.extend(v for v in remove(u) if coins[v] == 0)
    for _ in range(layers):
        leaves = [u for u in range(n) if not removed[u] and degree[u] == 1]
        for u in leaves:
            if degree[u] == 1:
                remove(u)
    return 2 * max(edges_left, 0)


def collect_the_coins(coins: list[int], edges: list[list[int]]) -> int:
    """The pruning walk (`_coin_walk`) with coins collected from two edges away."""
    return _coin_walk(coins, edges, prune_empty=True, layers=2)


def in_contract(args: Mapping[str, Any]) -> bool:
    """A tree on `0..len(coins)-1` with 0/1 coins."""
    coins = args["coins"]
    return all(c in (0, 1) for c in coins) and is_tree(len(coins), args["edges"])


TREE_ROOTS = 8  # spanning trees tried per graph for the upper bound (highest degrees first)


def published_truth(args: Mapping[str, Any]) -> int:
    """The statement's question on a graph with cycles (586 published inputs are not trees).

    Coins in two components: no closed walk collects them (infeasible). Otherwise the exact
    minimum is known here only when the coins' component is a tree (the reference's method),
    or the minimum is 0 (one node sees every coin) or 2 (no node does, and some walk of 2
    moves collects them all); for the rest, the shortest closed walk on a graph
    is a travelling-salesman-like search, so NoTrueAnswer carries the best walk found as an
    upper bound: a label above it is provably not the minimum.
    """
    coins, edges = args["coins"], args["edges"]
    n = len(coins)
    if not ids_in_range(n, edges) or any(c not in (0, 1) for c in coins):
        raise NoTrueAnswer("no answer", "edge ends outside 0..n-1 or coins other than 0/1")
    adj = [sorted(set(nbrs) - {u}) for u, nbrs in enumerate(adjacency(n, edges))]
    holders = [u for u in range(n) if coins[u]]
    if not holders:
        return 0
    _, component = bfs_tree(n, [[u, v] for u in range(n) for v in adj[u] if u < v], holders[0])
    inside = set(component)
    if not all(u in inside for u in holders):
        raise NoTrueAnswer("infeasible", "the coins lie in more than one connected component, "
                           "so no closed walk collects them all")
    seen_by = [0] * n  # how many coins each node sees within distance 2
    for c in holders:
        for u in {c, *adj[c], *(w for v in adj[c] for w in adj[v])}:
            seen_by[u] += 1
    if max(seen_by) == len(holders):
        return 0
    inner = [[u, v] for u in component for v in adj[u] if u < v]
    if len(inner) == len(component) - 1:  # the coins' component is a tree: the tree method
        return collect_the_coins(coins, inner)
    bound = _walk_bound(coins, adj, component)
    if bound == 2:
        return 2
    raise NoTrueAnswer(
        "not computed",
        f"the graph has cycles and no exact method is used; a closed walk of {bound} moves "
        "collects every coin",
        upper_bound=bound,
    )


def _walk_bound(coins: list[int], adj: list[list[int]], component: list[int]) -> int:
    """Length of a valid closed walk: the tree method on a few spanning trees of the coins'
    component (any spanning tree's walk is a walk of the graph), at best."""
    n = len(coins)
    edges = [[u, v] for u in component for v in adj[u] if u < v]
    roots = sorted(component, key=lambda u: (-len(adj[u]), u))[:TREE_ROOTS]
    best = None
    for root in roots:
        parent, order = bfs_tree(n, edges, root)
        tree = [[parent[u], u] for u in order[1:]]
        walk = collect_the_coins(coins, tree)
        best = walk if best is None else min(best, walk)
    return int(best or 0)


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Trees only; the coin density varies so that both pruning phases matter."""
    import networkx as nx

    H = relabel(G)
    n = H.number_of_nodes()
    if n < 1 or not nx.is_tree(H):
        return None
    density = rng.choice((0.05, 0.2, 0.5))
    coins = [1 if rng.random() < density else 0 for _ in range(n)]
    return {"coins": coins, "edges": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2603_reach_one(coins: list[int], edges: list[list[int]]) -> int:
    """Collects coins at distance 1 only: strips one leaf layer instead of two."""
    return _coin_walk(coins, edges, prune_empty=True, layers=1)


def lc2603_keeps_empty_branches(coins: list[int], edges: list[list[int]]) -> int:
    """Strips two leaf layers without first pruning the branches that hold no coin."""
    return _coin_walk(coins, edges, prune_empty=False, layers=2)


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
        mutants={
            "distance 1 only": lc2603_reach_one,
            "keeps empty branches": lc2603_keeps_empty_branches,
        },
        published_cells=cells(
            "erdos/connected planar/connected planar/disconnected planar/cyclic planar/acyclic "
            "power-law/connected small-world/connected sparse/connected sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(len(a["coins"]), a["edges"]),
        in_contract=in_contract,
        published_truth=published_truth,
        field_map={"coins": "coins", "graphs": "edges"},
        skipped_cells=acyclic_only_skips(forest_ok=False),
        label_status=(
            "label-wrong: 586 published inputs are not trees; the tree pruning formula gives "
            "476 non-minimal labels and 110 labels for inputs with no closed walk at all"
        ),
        notes="Only the 314 tree inputs are in contract; regenerate with trees.",
    )
)
