"""lc2285: assign the values 1..n to nodes to maximise the total road importance."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    edge_list,
    is_simple,
    relabel,
)

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
    degree = [0] * n
    for a, b in roads:
        degree[a] += 1
        degree[b] += 1
    return sum(rank * d for rank, d in enumerate(sorted(degree), start=1))


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph on `0..n-1`, n >= 2."""
    return args["n"] >= 2 and is_simple(args["n"], args["roads"])


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    H = relabel(G)
    if H.number_of_nodes() < 2:
        return None
    return {"n": H.number_of_nodes(), "roads": edge_list(H, rng)}


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
        field_map={"numNodes": "n", "graphs": "roads"},
        label_status="consistent",
    )
)
