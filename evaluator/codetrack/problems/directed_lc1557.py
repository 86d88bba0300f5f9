"""lc1557: the smallest set of nodes from which every node of a DAG can be reached."""

from __future__ import annotations

from evaluator.codetrack.checkers import order_insensitive
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    DAG_ARCS_CONTRACT,
    DAG_CELLS_NOTE,
    TYPING_IMPORT,
    dag_arcs_case,
    dag_arcs_in_contract,
    dag_only_skips,
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


# The shared plain-DAG contract and builder, under the names the problem modules use.
in_contract = dag_arcs_in_contract
build_case = dag_arcs_case


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
        input_contract=DAG_ARCS_CONTRACT,
        reference=find_smallest_set_of_vertices,
        checker=order_insensitive,
        build_case=build_case,
        field_map={"n": "n", "graphs": "edges"},
        skipped_cells=dag_only_skips(),
        label_status="consistent",
        notes=DAG_CELLS_NOTE,
    )
)
