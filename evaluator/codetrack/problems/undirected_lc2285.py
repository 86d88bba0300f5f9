"""lc2285: assign the values 1..n to nodes to maximise the total road importance."""

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

Give every city a different integer from `1` to `n`. The importance of a road is the sum of the
integers given to its two cities. Return the largest possible sum of the importances of all roads.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def maximumImportance(self, n: int, roads: List[List[int]]) -> int:
        ...
"""
)


def maximum_importance(n: int, roads: list[list[int]]) -> int:
    """A city's value is counted once per road at it, so the total is sum(value * degree);
    pairing sorted degrees with 1..n maximises it (rearrangement inequality)."""
    degree = degrees(n, roads)
    return sum(rank * d for rank, d in enumerate(sorted(degree), start=1))


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph on `0..n-1`, n >= 2."""
    return args["n"] >= 2 and is_simple(args["n"], args["roads"])


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    H = relabel(G)
    if H.number_of_nodes() < 2:
        return None
    return {"n": H.number_of_nodes(), "roads": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2285_values_by_id(n: int, roads: list[list[int]]) -> int:
    """Gives city i the value i + 1 instead of ranking cities by degree."""
    degree = degrees(n, roads)
    return sum((i + 1) * d for i, d in enumerate(degree))


def lc2285_descending(n: int, roads: list[list[int]]) -> int:
    """Sorts the degrees the wrong way: the busiest city gets value 1."""
    degree = degrees(n, roads)
    return sum(rank * d for rank, d in enumerate(sorted(degree, reverse=True), start=1))


PROBLEM = register(
    Problem(
        id="lc2285",
        title="Assign values 1..n to maximise total road importance",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="maximumImportance",
        arg_names=("n", "roads"),
        concept="general graph",
        difficulty="medium",
        directed=False,
        input_contract="simple undirected graph on 0..n-1, n >= 2",
        reference=maximum_importance,
        checker=exact,
        build_case=build_case,
        mutants={
            "values by id": lc2285_values_by_id,
            "descending degrees": lc2285_descending,
        },
        published_cells=EVERY_CATEGORY_CELLS,
        input_graph=lambda a: graph_of(a["n"], a["roads"]),
        cost_rate=2e-6,
        in_contract=in_contract,
        field_map={"numNodes": "n", "graphs": "roads"},
        label_status="consistent",
    )
)
