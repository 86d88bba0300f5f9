"""lc1615: the best pair of cities by combined road count (maximal network rank)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    EVERY_CATEGORY_CELLS,
    TYPING_IMPORT,
    degrees,
    edge_list,
    is_simple,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
There are `n` cities numbered `0` to `n - 1` and `roads[i] = [a, b]` is a two-way road between
cities `a` and `b`; there is at most one road per pair and none from a city to itself.

The rank of two different cities is the number of roads that touch at least one of them: a road
joining the two cities themselves counts once. Return the largest rank over all pairs of
different cities, whether or not they are joined by a road.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def maximalNetworkRank(self, n: int, roads: List[List[int]]) -> int:
        ...
"""
)


def maximal_network_rank(n: int, roads: list[list[int]]) -> int:
    """Only the two highest degree values can form the best pair, so only nodes having one of
    them are compared: O(n + m) plus the pairs among those candidates."""
    if n < 2:
        return 0
    degree = [0] * n
    adjacent: set[tuple[int, int]] = set()
    for a, b in roads:
        degree[a] += 1
        degree[b] += 1
        adjacent.add((min(a, b), max(a, b)))
    top = sorted(set(degree), reverse=True)[:2]
    candidates = [v for v in range(n) if degree[v] in top]
    best = 0
    for i, a in enumerate(candidates):
        for b in candidates[i + 1 :]:
            rank = degree[a] + degree[b] - ((min(a, b), max(a, b)) in adjacent)
            best = max(best, rank)
    return best


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph on `0..n-1` with at least two cities."""
    return args["n"] >= 2 and is_simple(args["n"], args["roads"])


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Drawn graphs of one category have nearly the same best rank (planar ones about 10), so
    seven inputs in ten get a hub: one city gains roads to 1..n/5 random others, which moves
    the best pair and its rank."""
    H = relabel(G)
    n = H.number_of_nodes()
    if n < 2:
        return None
    if rng.random() < 0.7:
        hub = rng.randrange(n)
        others = [v for v in range(n) if v != hub]
        H.add_edges_from((hub, v) for v in rng.sample(others, rng.randint(1, max(1, n // 5))))
    return {"n": H.number_of_nodes(), "roads": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1615_joining_road_twice(n: int, roads: list[list[int]]) -> int:
    """Adds the two degrees, counting a road between the two cities twice."""
    degree = degrees(n, roads)
    top = sorted(degree, reverse=True)
    return top[0] + top[1] if n >= 2 else 0


def lc1615_first_two_cities(n: int, roads: list[list[int]]) -> int:
    """Takes the first two cities by degree and subtracts their road, without trying the other
    cities of the same degree (which may not be joined)."""
    degree = [0] * n
    adjacent = set()
    for a, b in roads:
        degree[a] += 1
        degree[b] += 1
        adjacent.add(frozenset((a, b)))
    if n < 2:
        return 0
    a, b = sorted(range(n), key=lambda v: -degree[v])[:2]
    return degree[a] + degree[b] - (frozenset((a, b)) in adjacent)


PROBLEM = register(
    Problem(
        id="lc1615",
        title="Best pair of cities by combined road count",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="maximalNetworkRank",
        arg_names=("n", "roads"),
        concept="general graph",
        difficulty="medium",
        directed=False,
        input_contract="simple undirected graph on 0..n-1, n >= 2",
        reference=maximal_network_rank,
        checker=exact,
        build_case=build_case,
        mutants={
            "joining road twice": lc1615_joining_road_twice,
            "first two cities only": lc1615_first_two_cities,
        },
        published_cells=EVERY_CATEGORY_CELLS,
        input_graph=lambda a: graph_of(a["n"], a["roads"]),
        cost_rate=8e-6,  # every pair of cities: O(n^2 + m)
        in_contract=in_contract,
        field_map={"numCourse": "n", "graphs": "roads"},
        label_status="consistent",
    )
)
