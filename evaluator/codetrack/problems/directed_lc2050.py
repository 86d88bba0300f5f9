"""lc2050: shortest total time when any number of courses can run in parallel."""

from __future__ import annotations

import random
from collections import deque
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
    topological_order,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
There are `n` courses numbered `1..n` (one-based). Each entry `[p, q]` of `relations` says that
course `p` has to be finished before course `q` can start; the entries contain no circular
requirement. Course `i` takes `time[i-1]` months. Any number of courses may be taken at the
same time, and a course can start as soon as all courses it requires are finished.

Return the smallest number of months needed to finish every course.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def minimumTime(self, n: int, relations: List[List[int]], time: List[int]) -> int:
        ...
"""
)


def minimum_time(n: int, relations: list[list[int]], time: list[int]) -> int:
    """Longest duration-weighted chain, by Kahn's order over 1-based ids.

    On (out-of-contract) cyclic inputs courses blocked by a cycle never finish and the result
    is the latest finish among the others (0 if none can start).
    """
    succ: list[list[int]] = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    for p, q in relations:
        succ[p].append(q)
        indeg[q] += 1
    start = [0] * (n + 1)
    queue = deque(i for i in range(1, n + 1) if indeg[i] == 0)
    latest = 0
    while queue:
        u = queue.popleft()
        finish = start[u] + time[u - 1]
        latest = max(latest, finish)
        for v in succ[u]:
            start[v] = max(start[v], finish)
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    return latest


def in_contract(args: Mapping[str, Any]) -> bool:
    n, relations, time = args["n"], args["relations"], args["time"]
    return (
        is_int(n)
        and n >= 1
        and isinstance(time, list)
        and len(time) == n
        and all(is_int(t) and t >= 1 for t in time)
        and pairs_in_range(n, relations, low=1)
        and is_dag(n, [[p - 1, q - 1] for p, q in relations])
    )


def adapt_published(args: dict[str, Any]) -> dict[str, Any]:
    """The published cells mix 1-based and 0-based ids (the spec's sensible reading): a case
    that uses id 0 is 0-based and is shifted to 1..n; any other case is read as 1-based.

    This is a reading, not a repair: upstream labelled the 0-based cases with a 1-based
    solution (id 0 aliased course n), so their labels stay wrong under it, and a shifted case
    does not count as in contract (the importer checks the contract on the ids as published).
    """
    relations = args["relations"]
    if any(0 in pair for pair in relations):
        return {**args, "relations": [[p + 1, q + 1] for p, q in relations]}
    return args


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Arcs of a DAG view, ids shifted to 1..n; durations 1..1000 months."""
    D = dag_view(G, rng)
    n = D.number_of_nodes()
    return {
        "n": n,
        "relations": arc_list(D.edges(), rng, offset=1),
        "time": [rng.randint(1, 1000) for _ in range(n)],
    }


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2050_id_order(n: int, relations: list[list[int]], time: list[int]) -> int:
    """One pass in id order instead of a topological order: a course's finish uses its
    prerequisites' finishes before they are final."""
    pred: list[list[int]] = [[] for _ in range(n + 1)]
    for p, q in relations:
        pred[q].append(p)
    finish = [0] * (n + 1)
    for u in range(1, n + 1):
        finish[u] = max((finish[p] for p in pred[u]), default=0) + time[u - 1]
    return max(finish)


def lc2050_longest_chain_by_count(n: int, relations: list[list[int]], time: list[int]) -> int:
    """Takes the chain with the most courses and adds up its durations."""
    order = topological_order(n, [(p - 1, q - 1) for p, q in relations]) or list(range(n))
    pred: list[list[int]] = [[] for _ in range(n)]
    for p, q in relations:
        pred[q - 1].append(p - 1)
    best: list[tuple[int, int]] = [(0, 0)] * n  # (courses, months) of the longest chain
    for u in order:
        courses, months = max((best[p] for p in pred[u]), default=(0, 0))
        best[u] = (courses + 1, months + time[u])
    return max(best)[1]


PROBLEM = register(
    Problem(
        id="lc2050",
        title="Parallel courses: shortest completion time",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="minimumTime",
        arg_names=("n", "relations", "time"),
        concept="DAG-related calculation",
        difficulty="hard",
        directed=True,
        input_contract="relations form a DAG on 1..n (one-based); len(time) == n, time >= 1",
        reference=minimum_time,
        checker=exact,
        build_case=build_case,
        mutants={
            "id order, not topological": lc2050_id_order,
            "most courses chain": lc2050_longest_chain_by_count,
        },
        published_cells=PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED,
        input_graph=lambda a: digraph_of(a["n"], a["relations"], offset=1),
        cost_rate=2e-6,
        in_contract=in_contract,
        adapt_published=adapt_published,
        field_map={"n": "n", "graphs": "relations", "time": "time"},
        skipped_cells=skip_subcategories(["cyclic"], "the relations must be acyclic"),
        label_status=(
            "label-wrong: 0-based cells (planar/disconnected, sparse/*) were labelled by a "
            "1-based solution, so id 0 aliases course n; relabel"
        ),
        notes=DAG_CELLS_NOTE,
    )
)
