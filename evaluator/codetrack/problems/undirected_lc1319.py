"""lc1319: cable moves needed to connect every computer (components minus one)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    carve,
    component_sizes,
    edge_list,
    is_simple,
    relabel,
)

STATEMENT = """\
There are `n` computers numbered `0` to `n - 1`. `connections[i] = [a, b]` is a cable joining
computers `a` and `b` directly; there is at most one cable per pair and none from a computer to
itself. Two computers can talk when a chain of cables joins them.

In one move you may unplug any existing cable and plug it in between any two computers. Return
the smallest number of moves after which every computer can talk to every other one, or `-1` when
that is impossible because there are fewer than `n - 1` cables.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def makeConnected(self, n: int, connections: List[List[int]]) -> int:
        ...
"""
)


def make_connected(n: int, connections: list[list[int]]) -> int:
    """With at least n-1 cables a spare cable always exists to join two components."""
    if len(connections) < n - 1:
        return -1
    return len(component_sizes(n, connections)) - 1


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph on `0..n-1`, n >= 1."""
    return args["n"] >= 1 and is_simple(args["n"], args["connections"])


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Seven inputs in ten get a ball of nodes cut off (`carve`): connected drawn graphs would
    otherwise always answer 0 and forests -1."""
    H = relabel(G)
    if H.number_of_nodes() < 1:
        return None
    if rng.random() < 0.7:
        carve(H, rng)
    return {"n": H.number_of_nodes(), "connections": edge_list(H, rng)}


PROBLEM = register(
    Problem(
        id="lc1319",
        title="Cable moves needed to connect every computer",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="makeConnected",
        arg_names=("n", "connections"),
        concept="graph traversal",
        difficulty="medium",
        directed=False,
        input_contract="simple undirected graph on 0..n-1, n >= 1",
        reference=make_connected,
        checker=exact,
        build_case=build_case,
        field_map={"numCourse": "n", "graphs": "connections"},
        label_status="consistent",
        notes="Published forest cells are constant -1 and connected cells constant 0; "
        "generated inputs cut a ball of nodes off half the time, so answers vary.",
    )
)
