"""lc1557: the smallest set of nodes from which every node of a DAG can be reached."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import networkx as nx

from evaluator.codetrack.checkers import order_insensitive
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
)

STATEMENT = """\
A directed acyclic graph has `n` nodes `0..n-1`; each entry `[a, b]` of `edges` is an arc
`a -> b`.

Return the smallest set of nodes such that every node of the graph can be reached from at
least one node of the set (a node reaches itself). This set is unique. Return its nodes as a
list in any order, each once.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def findSmallestSetOfVertices(self, n: int, edges: List[List[int]]) -> List[int]:
        ...
"""
)


def find_smallest_set_of_vertices(n: int, edges: list[list[int]]) -> list[int]:
    """In a DAG the nodes without incoming arcs reach everything and must all be chosen."""
    has_incoming = [False] * n
    for _, b in edges:
        has_incoming[b] = True
    return [u for u in range(n) if not has_incoming[u]]


def in_contract(args: Mapping[str, Any]) -> bool:
    n, edges = args["n"], args["edges"]
    return is_int(n) and n >= 1 and pairs_in_range(n, edges) and is_dag(n, edges)


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    D = dag_view(G, rng)
    return {"n": D.number_of_nodes(), "edges": arc_list(D.edges(), rng)}


PROBLEM = register(
    Problem(
        id="lc1557",
        title="Smallest set of start nodes reaching everything",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="findSmallestSetOfVertices",
        arg_names=("n", "edges"),
        concept="parent-child relations",
        difficulty="medium",
        directed=True,
        input_contract="arcs of a DAG on 0..n-1",
        reference=find_smallest_set_of_vertices,
        checker=order_insensitive,
        build_case=build_case,
        field_map={"n": "n", "graphs": "edges"},
        skipped_cells=skip_subcategories(["cyclic"], "the input must be a DAG"),
        label_status="consistent",
        notes=DAG_CELLS_NOTE,
    )
)
