"""lc851: for every person, the quietest person who is at least as rich."""

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
    pairs_in_range,
    skip_subcategories,
    strongly_connected_components,
    successor_lists,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
There are `n = len(quiet)` people with ids `0..n-1`. Each entry `[a, b]` of `richer` says that
person `a` has more money than person `b`; the entries are consistent (they never imply that
someone is richer than themselves). `quiet` holds `n` distinct values; `quiet[x]` is the
quietness of person `x`, smaller meaning quieter.

For each person `x`, look at `x` together with everyone who is richer than `x` according to a
chain of one or more entries (`a` richer than `c`, `c` richer than `x`, ...). `answer[x]` is the
person in that group with the smallest `quiet` value. Return `answer` as a list of length `n`.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def loudAndRich(self, richer: List[List[int]], quiet: List[int]) -> List[int]:
        ...
"""
)


def loud_and_rich(richer: list[list[int]], quiet: list[int]) -> list[int]:
    """Quietest person among x and x's ancestors along the arcs a -> b (a richer than b).

    Strongly connected components make the result the chain reading even on (out-of-contract)
    cyclic inputs: everyone on a cycle is "richer" than everyone else on it.
    """
    n = len(quiet)
    succ = successor_lists(n, richer)
    comps = strongly_connected_components(n, succ)  # sinks first
    comp_of = [0] * n
    best: list[int] = []
    for c, members in enumerate(comps):
        for u in members:
            comp_of[u] = c
        best.append(min(members, key=quiet.__getitem__))
    # Sources of the condensation come last in `comps`; push answers downstream from them.
    for c in range(len(comps) - 1, -1, -1):
        for u in comps[c]:
            for v in succ[u]:
                d = comp_of[v]
                if d != c and quiet[best[c]] < quiet[best[d]]:
                    best[d] = best[c]
    return [best[comp_of[x]] for x in range(n)]


def in_contract(args: Mapping[str, Any]) -> bool:
    quiet, richer = args["quiet"], args["richer"]
    n = len(quiet)
    return (
        n >= 1
        and sorted(quiet) == list(range(n))
        and pairs_in_range(n, richer)
        and is_dag(n, richer)
    )


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Arcs of a DAG view of the graph are the "richer" pairs; quiet is a random permutation."""
    D = dag_view(G, rng)
    n = D.number_of_nodes()
    quiet = list(range(n))
    rng.shuffle(quiet)
    return {"richer": arc_list(D.edges(), rng), "quiet": quiet}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc851_direct_richer_only(richer: list[list[int]], quiet: list[int]) -> list[int]:
    """Looks only at the people named directly richer than x, not along chains."""
    answer = list(range(len(quiet)))
    for a, b in richer:
        if quiet[a] < quiet[answer[b]]:
            answer[b] = a
    return answer


def lc851_reversed(richer: list[list[int]], quiet: list[int]) -> list[int]:
    """Reads `[a, b]` as "b is richer than a"."""
    return loud_and_rich([[b, a] for a, b in richer], quiet)


def lc851_forgets_x(richer: list[list[int]], quiet: list[int]) -> list[int]:
    """Looks only at the people richer than x, falling back to x when nobody is: forgets
    that x belongs to the group, so a quieter x loses to the quietest richer person."""
    n = len(quiet)
    parents: list[list[int]] = [[] for _ in range(n)]
    for a, b in richer:
        parents[b].append(a)
    best = loud_and_rich(richer, quiet)
    out = []
    for x in range(n):
        candidates = [best[a] for a in parents[x]]
        out.append(min(candidates, key=quiet.__getitem__) if candidates else x)
    return out


PROBLEM = register(
    Problem(
        id="lc851",
        title="Quietest person at least as rich",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="loudAndRich",
        arg_names=("richer", "quiet"),
        concept="DAG-related calculation",
        difficulty="medium",
        directed=True,
        input_contract="richer pairs on 0..n-1 form a DAG; quiet is a permutation of 0..n-1",
        reference=loud_and_rich,
        checker=exact,
        build_case=build_case,
        mutants={
            "direct richer only": lc851_direct_richer_only,
            "reversed pairs": lc851_reversed,
            "forgets x itself": lc851_forgets_x,
        },
        published_cells=PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED,
        input_graph=lambda a: digraph_of(len(a["quiet"]), a["richer"]),
        in_contract=in_contract,
        field_map={"graphs": "richer", "quiet": "quiet"},
        skipped_cells=skip_subcategories(["cyclic"], "the richer relation must be acyclic"),
        label_status=(
            "label-wrong: 441 of the 494 cyclic (out-of-contract) cases carry partial "
            "memoised-DFS answers; all 206 DAG cases agree"
        ),
        notes=DAG_CELLS_NOTE,
    )
)
