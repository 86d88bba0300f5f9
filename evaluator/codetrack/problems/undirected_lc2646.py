"""lc2646: the cheapest set of trips after halving prices of non-adjacent nodes."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    acyclic_only_skips,
    bfs_tree,
    edge_list,
    is_tree,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A tree has nodes `0..n-1`; `edges[i] = [a, b]` joins `a` and `b`, and node `i` has the
non-negative integer price `price[i]`. Each trip `trips[j] = [s, t]` travels along the unique path
from `s` to `t` and costs the sum of the prices of all nodes on that path, both ends included (if
`s == t` it costs `price[s]`).

Before any trip you may choose a set of nodes, no two of them joined by an edge, and halve their
prices. A halved price is rounded up: price `p` becomes `p - p // 2`. Return the smallest possible
total cost of all trips.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def minimumTotalPrice(self, n: int, edges: List[List[int]], price: List[int],
                          trips: List[List[int]]) -> int:
        ...
"""
)


def _trip_cost(n: int, edges: list[list[int]], price: list[int], trips: list[list[int]],
               halved: Callable[[int], int]) -> int:
    """The cheapest total with `halved(price)` as a halved node's price (the reference and
    the mutants differ only there)."""
    parent, order = bfs_tree(n, edges, 0)
    depth = [0] * n
    for u in order[1:]:
        depth[u] = depth[parent[u]] + 1
    uses = [0] * n
    for s, t in trips:
        while depth[s] > depth[t]:
            uses[s] += 1
            s = parent[s]
        while depth[t] > depth[s]:
            uses[t] += 1
            t = parent[t]
        while s != t:
            uses[s] += 1
            uses[t] += 1
            s, t = parent[s], parent[t]
        uses[s] += 1
    full = [uses[u] * price[u] for u in range(n)]
    half = [uses[u] * halved(price[u]) for u in range(n)]
    for u in reversed(order[1:]):
        p = parent[u]
        full[p] += min(full[u], half[u])
        half[p] += full[u]
    return min(full[0], half[0])


def minimum_total_price(
    n: int, edges: list[list[int]], price: list[int], trips: list[list[int]]
) -> int:
    """Count how often each node is used by the trips (walking both ends up to their meeting
    point), then choose the halved set by an independent-set DP over the rooted tree; a
    halved price rounds up."""
    return _trip_cost(n, edges, price, trips, lambda p: p - p // 2)


def in_contract(args: Mapping[str, Any]) -> bool:
    """A tree on `0..n-1`, one non-negative price per node, trips between valid nodes."""
    n, price, trips = args["n"], args["price"], args["trips"]
    return (
        n >= 1
        and is_tree(n, args["edges"])
        and len(price) == n
        and all(isinstance(p, int) and p >= 0 for p in price)
        and all(len(t) == 2 and all(isinstance(x, int) and 0 <= x < n for x in t) for t in trips)
    )


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Trees only. Prices include odd values and 0 (so rounding matters); about one trip in
    ten starts and ends at the same node."""
    import networkx as nx

    H = relabel(G)
    n = H.number_of_nodes()
    if n < 1 or not nx.is_tree(H):
        return None
    trips = []
    for _ in range(rng.randint(1, 100)):
        s = rng.randrange(n)
        trips.append([s, s if rng.random() < 0.1 else rng.randrange(n)])
    return {
        "n": n,
        "edges": edge_list(H, rng),
        "price": [rng.randint(0, 1000) for _ in range(n)],
        "trips": trips,
    }


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2646_rounds_down(n: int, edges: list[list[int]], price: list[int],
                       trips: list[list[int]]) -> int:
    """Halves prices rounding down (p // 2) instead of up."""
    return _trip_cost(n, edges, price, trips, lambda p: p // 2)


def lc2646_no_halving(n: int, edges: list[list[int]], price: list[int],
                      trips: list[list[int]]) -> int:
    """Forgets the halving: the plain cost of the trips."""
    return _trip_cost(n, edges, price, trips, lambda p: p)


PROBLEM = register(
    Problem(
        id="lc2646",
        title="Cheapest set of trips after halving non-adjacent prices",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="minimumTotalPrice",
        arg_names=("n", "edges", "price", "trips"),
        concept="path finding",
        difficulty="hard",
        directed=False,
        input_contract="tree on 0..n-1; len(price) == n, prices >= 0; trips are pairs of nodes",
        reference=minimum_total_price,
        checker=exact,
        build_case=build_case,
        mutants={
            "rounds down": lc2646_rounds_down,
            "no halving": lc2646_no_halving,
        },
        published_cells=cells("planar/connected planar/acyclic sparse/connected sparse/acyclic"),
        input_graph=lambda a: graph_of(a["n"], a["edges"]),
        in_contract=in_contract,
        field_map={"numNodes": "n", "graphs": "edges", "price": "price", "trips": "trips"},
        skipped_cells=acyclic_only_skips(forest_ok=False),
        label_status="consistent",
        notes="The labels need the round-up convention for halved prices (2/400 with round-down).",
    )
)
