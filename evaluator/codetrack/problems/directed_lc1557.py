"""lc1557: the smallest set of nodes from which every node of a DAG can be reached."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import order_insensitive
from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    DAG_ARCS_CONTRACT,
    DAG_CELLS_NOTE,
    TYPING_IMPORT,
    dag_arcs_case,
    dag_arcs_in_contract,
    dag_only_skips,
)

if TYPE_CHECKING:
    import networkx as nx

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


# The shared plain-DAG contract, under the name the problem modules use.
in_contract = dag_arcs_in_contract


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """The shared plain-DAG case; in a third of the cases one to three nodes lose all their
    arcs. Why: a node without arcs is reached only from itself, so it belongs to the set (the
    statement's "a node reaches itself"); generated DAGs are weakly connected, so without this
    no case needed the rule and a solution that looks only at the nodes named in `edges`
    passed them all."""
    args = dag_arcs_case(G, rng)
    n = args["n"]
    if n > 3 and rng.random() < 1 / 3:
        loners = set(rng.sample(range(n), rng.randint(1, 3)))
        args["edges"] = [e for e in args["edges"] if e[0] not in loners and e[1] not in loners]
    return args


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1557_sinks(n: int, edges: list[list[int]]) -> list[int]:
    """Reads the arcs backwards: returns the nodes without outgoing arcs."""
    has_outgoing = [False] * n
    for a, _ in edges:
        has_outgoing[a] = True
    return [u for u in range(n) if not has_outgoing[u]]


def lc1557_skips_isolated(n: int, edges: list[list[int]]) -> list[int]:
    """Looks only at nodes named in `edges`: a node without arcs, which only it reaches, is
    left out."""
    heads = {b for _, b in edges}
    return sorted({a for a, _ in edges} - heads)


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
        mutants={
            "sinks (reversed arcs)": lc1557_sinks,
            "skips isolated nodes": lc1557_skips_isolated,
        },
        published_cells=cells("planar/acyclic sparse/acyclic"),
        input_graph=lambda a: digraph_of(a["n"], a["edges"]),
        in_contract=in_contract,
        field_map={"n": "n", "graphs": "edges"},
        skipped_cells=dag_only_skips(),
        label_status="consistent",
        notes=DAG_CELLS_NOTE + " A third of the cases isolate one to three nodes (they join "
        "the answer).",
    )
)
