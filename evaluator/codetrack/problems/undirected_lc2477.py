"""lc2477: fuel needed to bring one representative per city to the capital."""

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
A country has `n = len(roads) + 1` cities numbered `0..n-1` joined by two-way roads
`roads[i] = [a, b]` that form a tree; city `0` is the capital.

Every city other than the capital sends one representative to the capital. Each representative
owns a car with `seats` seats, and representatives may leave their car and ride in another one
anywhere along the way. A car uses one litre of fuel for every road it crosses. Return the
minimum total fuel needed to bring all representatives to the capital.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def minimumFuelCost(self, roads: List[List[int]], seats: int) -> int:
        ...
"""
)


def _fuel(roads: list[list[int]], cars: Callable[[int], int]) -> int:
    """Litres to bring everyone to city 0 with `cars(size)` cars on the road above a subtree
    of `size` people (the reference and the mutants differ only there)."""
    n = len(roads) + 1
    parent, order = bfs_tree(n, roads, 0)
    size = [1] * n
    fuel = 0
    for v in reversed(order):
        if v != 0:
            size[parent[v]] += size[v]
            fuel += cars(size[v])
    return fuel


def minimum_fuel_cost(roads: list[list[int]], seats: int) -> int:
    """The road above city v must carry everyone of v's subtree, which takes
    ceil(size / seats) cars and no fewer; gathering greedily achieves that on every road."""
    return _fuel(roads, lambda size: -(-size // seats))


def in_contract(args: Mapping[str, Any]) -> bool:
    """A tree on `0..len(roads)`; at least one seat per car."""
    roads, seats = args["roads"], args["seats"]
    return isinstance(seats, int) and seats >= 1 and is_tree(len(roads) + 1, roads)


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Trees only; seats 1-10 so that car sharing matters (the published seats never did)."""
    import networkx as nx

    H = relabel(G)
    if H.number_of_nodes() < 1 or not nx.is_tree(H):
        return None
    return {"roads": edge_list(H, rng), "seats": rng.randint(1, 10)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2477_rounds_down(roads: list[list[int]], seats: int) -> int:
    """size // seats cars on a road instead of rounding up (a half-full car still drives)."""
    return _fuel(roads, lambda size: size // seats)


def lc2477_one_car_per_road(roads: list[list[int]], seats: int) -> int:
    """Assumes one car always suffices: one litre per road."""
    return len(roads)


PROBLEM = register(
    Problem(
        id="lc2477",
        title="Fuel to bring every representative to the capital",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="minimumFuelCost",
        arg_names=("roads", "seats"),
        concept="graph traversal",
        difficulty="medium",
        directed=False,
        input_contract="tree on 0..len(roads); seats >= 1",
        reference=minimum_fuel_cost,
        checker=exact,
        build_case=build_case,
        mutants={
            "rounds down": lc2477_rounds_down,
            "one car per road": lc2477_one_car_per_road,
        },
        published_cells=cells("planar/connected planar/acyclic sparse/connected sparse/acyclic"),
        input_graph=lambda a: graph_of(len(a["roads"]) + 1, a["roads"]),
        in_contract=in_contract,
        field_map={"graphs": "roads", "seats": "seats"},
        skipped_cells=acyclic_only_skips(forest_ok=False),
        label_status=(
            "constant-answer: published seats are 152-99,916, so the label equals len(roads) "
            "in 399 of 400 cases"
        ),
        notes="Labels are correct; the cases just do not exercise car sharing.",
    )
)
