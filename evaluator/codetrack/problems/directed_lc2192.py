"""lc2192: the ancestors of every node of a DAG."""

from __future__ import annotations

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    DAG_ARCS_CONTRACT,
    DAG_CELLS_NOTE,
    TYPING_IMPORT,
    dag_arcs_case,
    dag_arcs_in_contract,
    dag_only_skips,
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


# The shared plain-DAG contract and builder, under the names the problem modules use.
in_contract = dag_arcs_in_contract
build_case = dag_arcs_case


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2192_parents_only(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Lists the direct parents, forgetting longer paths."""
    parents: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        parents[b].add(a)
    return [sorted(p) for p in parents]


def lc2192_descendants(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Gets the arc direction wrong: lists every node's descendants."""
    return get_ancestors(n, [[b, a] for a, b in edges])


def lc2192_includes_itself(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Lists every node among its own ancestors."""
    return [sorted([*above, v]) for v, above in enumerate(get_ancestors(n, edges))]


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
        input_contract=DAG_ARCS_CONTRACT,
        reference=get_ancestors,
        checker=exact,
        build_case=build_case,
        mutants={
            "parents only": lc2192_parents_only,
            "descendants (reversed)": lc2192_descendants,
            "includes itself": lc2192_includes_itself,
        },
        published_cells=cells("planar/acyclic sparse/acyclic"),
        input_graph=lambda a: digraph_of(a["n"], a["edges"]),
        in_contract=in_contract,
        field_map={"n": "n", "graphs": "edges"},
        skipped_cells=dag_only_skips(),
        label_status="consistent",
        notes=DAG_CELLS_NOTE,
    )
)
