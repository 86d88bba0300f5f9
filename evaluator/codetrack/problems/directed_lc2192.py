"""lc2192: the ancestors of every node of a DAG."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    DAG_CELLS_NOTE,
    TYPING_IMPORT,
    arc_list,
    dag_view,
    is_dag,
    is_int,
    pairs_in_range,
    skip_subcategories,
    strongly_connected_components,
    successor_lists,
)

STATEMENT = """\
A directed acyclic graph has `n` nodes `0..n-1`; each entry `[a, b]` of `edges` is an arc
`a -> b`. Node `u` is an ancestor of node `v` when a directed path of one or more arcs leads
from `u` to `v`; a node is not its own ancestor.

Return a list of length `n` whose entry `i` lists all ancestors of node `i` in increasing order.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def getAncestors(self, n: int, edges: List[List[int]]) -> List[List[int]]:
        ...
"""
)


def get_ancestors(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Ancestor bitsets pushed along the condensation from its sources downwards."""
    succ = successor_lists(n, edges)
    comps = strongly_connected_components(n, succ)  # sinks first
    comp_of = [0] * n
    for c, members in enumerate(comps):
        for u in members:
            comp_of[u] = c
    above = [0] * len(comps)  # bits of nodes with a path into the component
    for c in range(len(comps) - 1, -1, -1):  # sources first
        members = comps[c]
        if len(members) > 1:  # on a cycle, members are ancestors of each other
            for u in members:
                above[c] |= 1 << u
        here = above[c] | sum(1 << u for u in members)
        for u in members:
            for v in succ[u]:
                if comp_of[v] != c:
                    above[comp_of[v]] |= here
    result = []
    for v in range(n):
        bits = above[comp_of[v]] & ~(1 << v)
        result.append([u for u in range(n) if bits >> u & 1])
    return result


def in_contract(args: Mapping[str, Any]) -> bool:
    n, edges = args["n"], args["edges"]
    return is_int(n) and n >= 1 and pairs_in_range(n, edges) and is_dag(n, edges)


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    D = dag_view(G, rng)
    return {"n": D.number_of_nodes(), "edges": arc_list(D.edges(), rng)}


PROBLEM = register(
    Problem(
        id="lc2192",
        title="All ancestors of every node in a DAG",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="getAncestors",
        arg_names=("n", "edges"),
        concept="parent-child relations",
        difficulty="medium",
        directed=True,
        input_contract="arcs of a DAG on 0..n-1",
        reference=get_ancestors,
        checker=exact,
        build_case=build_case,
        field_map={"n": "n", "graphs": "edges"},
        skipped_cells=skip_subcategories(["cyclic"], "the input must be a DAG"),
        label_status="consistent",
        notes=DAG_CELLS_NOTE,
    )
)
