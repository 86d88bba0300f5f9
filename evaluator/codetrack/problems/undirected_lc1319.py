"""lc1319: cable moves needed to connect every computer (components minus one)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    carve,
    component_sizes,
    edge_list,
    is_simple,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

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


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1319_forgets_the_cable_count(n: int, connections: list[list[int]]) -> int:
    """Components minus one, never -1 (forgets that there may be too few cables)."""
    return len(component_sizes(n, connections)) - 1


def lc1319_components(n: int, connections: list[list[int]]) -> int:
    """Off by one: the number of components instead of the moves between them."""
    if len(connections) < n - 1:
        return -1
    return len(component_sizes(n, connections))


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
        mutants={
            "forgets the cable count": lc1319_forgets_the_cable_count,
            "components (off by one)": lc1319_components,
        },
        published_cells=cells(
            "erdos/connected planar/disconnected planar/cyclic planar/acyclic power-law/connected "
            "small-world/connected sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["connections"]),
        in_contract=in_contract,
        field_map={"numCourse": "n", "graphs": "connections"},
        label_status="consistent",
        notes="Published forest cells are constant -1 and connected cells constant 0; "
        "generated inputs cut a ball of nodes off half the time, so answers vary.",
    )
)
