"""lc802: the nodes from which every walk eventually stops."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import adjacency_digraph
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    TYPING_IMPORT,
    adjacency_lists,
    as_digraph,
    is_int,
    strongly_connected_components,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A directed graph has `n = len(graph)` nodes `0..n-1`; `graph[u]` lists the nodes `v` that
have an arc `u -> v` (an entry may repeat, and `u` may list itself).

A node without outgoing arcs is terminal. A node is safe when every walk that starts at it,
whichever arcs it takes, reaches a terminal node; equivalently, no directed cycle can be reached
from it (a node listing itself is a cycle). Terminal nodes are safe.

Return all safe nodes in increasing order.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def eventualSafeNodes(self, graph: List[List[int]]) -> List[int]:
        ...
"""
)


def eventual_safe_nodes(graph: list[list[int]]) -> list[int]:
    """Peel terminal nodes backwards: a node is safe once all its out-arcs lead to safe nodes."""
    n = len(graph)
    pred: list[list[int]] = [[] for _ in range(n)]
    remaining = [len(heads) for heads in graph]
    for u, heads in enumerate(graph):
        for v in heads:
            pred[v].append(u)
    stack = [u for u in range(n) if remaining[u] == 0]
    safe = [False] * n
    while stack:
        v = stack.pop()
        safe[v] = True
        for u in pred[v]:
            remaining[u] -= 1
            if remaining[u] == 0:
                stack.append(u)
    return [u for u in range(n) if safe[u]]


def in_contract(args: Mapping[str, Any]) -> bool:
    graph = args["graph"]
    if not isinstance(graph, list) or not graph:
        return False
    n = len(graph)
    return all(
        isinstance(heads, list) and all(is_int(v) and 0 <= v < n for v in heads) for heads in graph
    )


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """The drawn digraph's adjacency lists. When it already has a directed cycle, two cases
    in five also give one safe node an arc to itself, which makes that node and every node
    that can reach it unsafe; one case in five repeats an arc. Why: the statement allows
    both and a node listing itself is a cycle, but drawn graphs have neither, so a solution
    that drops self-loops passed every case. Acyclic draws get no loop (their cell would be
    lost)."""
    import networkx as nx

    D = as_digraph(G)
    n = D.number_of_nodes()
    arcs = list(D.edges())
    if not nx.is_directed_acyclic_graph(D) and rng.random() < 0.4:
        safe = eventual_safe_nodes([sorted(D.successors(u)) for u in range(n)])
        if safe:
            v = rng.choice(safe)
            arcs.append((v, v))
    if arcs and rng.random() < 0.2:
        arcs.append(rng.choice(arcs))
    return {"graph": adjacency_lists(n, arcs, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc802_ignores_self_loops(graph: list[list[int]]) -> list[int]:
    """Drops a node's arcs to itself as noise, although a node listing itself is a cycle."""
    return eventual_safe_nodes([[v for v in heads if v != u] for u, heads in enumerate(graph)])


def lc802_cycle_members_only(graph: list[list[int]]) -> list[int]:
    """Calls unsafe only the nodes on a cycle, not the nodes that can walk into one."""
    n = len(graph)
    comps = strongly_connected_components(n, graph)
    on_cycle = set()
    for members in comps:
        if len(members) > 1 or members[0] in graph[members[0]]:
            on_cycle.update(members)
    return [u for u in range(n) if u not in on_cycle]


PROBLEM = register(
    Problem(
        id="lc802",
        title="Nodes from which every walk terminates",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="eventualSafeNodes",
        arg_names=("graph",),
        concept="cycle detection",
        difficulty="medium",
        directed=True,
        input_contract="adjacency lists on 0..n-1, n >= 1; repeated heads and self-loops allowed",
        reference=eventual_safe_nodes,
        checker=exact,
        build_case=build_case,
        mutants={
            "ignores self-loops": lc802_ignores_self_loops,
            "cycle members only": lc802_cycle_members_only,
        },
        published_cells=cells(
            "planar/disconnected pseudo/connected pseudo/disconnected pseudo/cyclic "
            "pseudo/acyclic sparse/connected sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: adjacency_digraph(a["graph"]),
        in_contract=in_contract,
        field_map={"graphs": "graph"},
        label_status="consistent",
        notes=(
            "The answer's ascending order is part of the statement, so exact match is right. "
            "Published cells pseudo/connected, pseudo/cyclic, sparse/connected, sparse/cyclic "
            "are constant []. Generated: a safe node of a cyclic draw lists itself in 40 % of "
            "those cases, and one case in five repeats an arc."
        ),
    )
)
