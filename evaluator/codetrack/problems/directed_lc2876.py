"""lc2876: how many different nodes a walk from each node visits in a functional graph."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    TYPING_IMPORT,
    is_int,
    one_arc_per_node,
    skip_subcategories,
)

STATEMENT = """\
A directed graph has `n = len(edges)` nodes `0..n-1`, and every node has exactly one outgoing
arc: node `i` points to `edges[i]` (`0 <= edges[i] < n`, `edges[i] != i`).

Start at a node and keep following the outgoing arcs until you arrive at a node you have
already visited. For every start node `i`, `answer[i]` is the number of different nodes visited,
counting `i` itself. Return `answer`.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def countVisitedNodes(self, edges: List[int]) -> List[int]:
        ...
"""
)


def count_visited_nodes(edges: list[int]) -> list[int]:
    """Nodes on a cycle visit exactly the cycle; any other node visits one more than its
    successor. Out-of-range entries (-1 in some published cells) end the walk."""
    n = len(edges)
    answer = [0] * n
    state = [0] * n  # 0 new, 1 on the current path, 2 done
    for start in range(n):
        path: list[int] = []
        u = start
        while 0 <= u < n and state[u] == 0:
            state[u] = 1
            path.append(u)
            u = edges[u]
        if 0 <= u < n and state[u] == 1:  # closed a new cycle at u
            cycle_start = path.index(u)
            cycle = path[cycle_start:]
            for v in cycle:
                answer[v] = len(cycle)
                state[v] = 2
            path = path[:cycle_start]
        after = answer[u] if 0 <= u < n else 0
        for v in reversed(path):
            after += 1
            answer[v] = after
            state[v] = 2
    return answer


def in_contract(args: Mapping[str, Any]) -> bool:
    edges = args["edges"]
    if not isinstance(edges, list) or len(edges) < 2:
        return False
    n = len(edges)
    return all(is_int(v) and 0 <= v < n and v != i for i, v in enumerate(edges))


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Each node keeps one random outgoing arc of the drawn graph; a node without one points
    back along one of its incoming arcs (or anywhere, if isolated)."""
    return {"edges": one_arc_per_node(G, rng, sinks="reverse")}


PROBLEM = register(
    Problem(
        id="lc2876",
        title="Distinct nodes visited from each start",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="countVisitedNodes",
        arg_names=("edges",),
        concept="cycle detection",
        difficulty="hard",
        directed=True,
        input_contract="edges[i] in 0..n-1, edges[i] != i, n >= 2",
        reference=count_visited_nodes,
        checker=exact,
        build_case=build_case,
        field_map={"graphs": "edges"},
        skipped_cells=skip_subcategories(
            ["acyclic"],
            "every node has exactly one outgoing arc, so the input always contains a cycle",
        ),
        label_status=(
            "label-wrong: 400 cases (planar and sparse disconnected/acyclic) contain -1, "
            "outside the contract, labelled through negative indexing; drop or regenerate"
        ),
        notes="On out-of-contract -1 entries the reference stops the walk (spec reading).",
    )
)
