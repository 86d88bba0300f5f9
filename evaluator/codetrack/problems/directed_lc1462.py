"""lc1462: answer "must course u come (directly or indirectly) before course v?" queries."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    DAG_CELLS_NOTE,
    PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED,
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

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
There are `numCourses` courses with ids `0..numCourses-1`. Each entry `[a, b]` of
`prerequisites` says that course `a` has to be taken before course `b` (note the order: the
first course comes first). The entries contain no circular requirement.

Course `u` is a prerequisite of course `v` when `u` has to be taken before `v` directly or
through a chain of entries (`u` before `w`, `w` before `v`, ...). By convention every course is
a prerequisite of itself.

For each query `[u, v]` in `queries`, answer whether `u` is a prerequisite of `v`. Return the
answers as a list of booleans in query order (an empty list for no queries).
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def checkIfPrerequisite(
        self, numCourses: int, prerequisites: List[List[int]], queries: List[List[int]]
    ) -> List[bool]:
        ...
"""
)

MAX_QUERIES = 100


def check_if_prerequisite(
    numCourses: int, prerequisites: list[list[int]], queries: list[list[int]]
) -> list[bool]:
    """Reflexive reachability u ->* v, via bitsets over the strongly connected components
    (exact chain semantics even on out-of-contract cyclic inputs)."""
    n = numCourses
    succ = successor_lists(n, prerequisites)
    comps = strongly_connected_components(n, succ)  # sinks first
    comp_of = [0] * n
    for c, members in enumerate(comps):
        for u in members:
            comp_of[u] = c
    reach = [0] * len(comps)  # bit v set: v reachable from the component
    for c, members in enumerate(comps):  # successors' components come earlier
        bits = 0
        for u in members:
            bits |= 1 << u
            for v in succ[u]:
                if comp_of[v] != c:
                    bits |= reach[comp_of[v]]
        reach[c] = bits
    return [bool(reach[comp_of[u]] >> v & 1) for u, v in queries]


def in_contract(args: Mapping[str, Any]) -> bool:
    n, pairs, queries = args["numCourses"], args["prerequisites"], args["queries"]
    return (
        is_int(n)
        and n >= 1
        and pairs_in_range(n, pairs)
        and pairs_in_range(n, queries)
        and is_dag(n, pairs)
    )


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Arcs of a DAG view are the entries. Queries: ~45 % ask about a reachable pair, ~5 % ask
    about a course and itself, the rest are random pairs (mostly unreachable)."""
    import networkx as nx

    D = dag_view(G, rng)
    n = D.number_of_nodes()
    queries = []
    for _ in range(rng.randint(1, MAX_QUERIES)):
        u = rng.randrange(n)
        roll = rng.random()
        below = sorted(nx.descendants(D, u)) if roll < 0.45 else []
        if below:
            v = rng.choice(below)
        elif roll < 0.5:
            v = u
        else:
            v = rng.randrange(n)
        queries.append([u, v])
    return {"numCourses": n, "prerequisites": arc_list(D.edges(), rng), "queries": queries}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1462_self_not_prerequisite(numCourses: int, prerequisites: list[list[int]],
                                 queries: list[list[int]]) -> list[bool]:
    """Answers False for `[u, u]`: a search that only reports nodes it stepped onto."""
    answers = check_if_prerequisite(numCourses, prerequisites, queries)
    return [a and u != v for a, (u, v) in zip(answers, queries, strict=True)]


def lc1462_direct_only(numCourses: int, prerequisites: list[list[int]],
                       queries: list[list[int]]) -> list[bool]:
    """Looks the pair up among the entries, forgetting chains."""
    arcs = {(a, b) for a, b in prerequisites}
    return [u == v or (u, v) in arcs for u, v in queries]


PROBLEM = register(
    Problem(
        id="lc1462",
        title="Transitive prerequisite queries",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="checkIfPrerequisite",
        arg_names=("numCourses", "prerequisites", "queries"),
        concept="DAG-related calculation",
        difficulty="medium",
        directed=True,
        input_contract="prerequisites form a DAG on 0..numCourses-1 (arc a -> b); query ids in "
        "range; [u, u] queries are True",
        reference=check_if_prerequisite,
        checker=exact,
        build_case=build_case,
        mutants={
            "self is no prerequisite": lc1462_self_not_prerequisite,
            "direct entries only": lc1462_direct_only,
        },
        published_cells=PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED,
        input_graph=lambda a: digraph_of(a["numCourses"], a["prerequisites"]),
        in_contract=in_contract,
        field_map={"n": "numCourses", "graphs": "prerequisites", "query": "queries"},
        skipped_cells=skip_subcategories(["cyclic"], "the prerequisites must be acyclic"),
        label_status=(
            "label-wrong: 401 of the 491 cyclic (out-of-contract) cases miss real paths "
            "(memoised partial ancestor sets); all 209 DAG cases agree"
        ),
        notes=DAG_CELLS_NOTE + " Orientation is the reverse of lc207's.",
    )
)
