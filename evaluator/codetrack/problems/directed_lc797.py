"""lc797: list every directed path from the first to the last node of a DAG."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import set_of_lists
from evaluator.codetrack.inputgraph import adjacency_digraph
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    DAG_CELLS_NOTE,
    TYPING_IMPORT,
    adjacency_lists,
    dag_only_skips,
    dag_view,
    is_dag,
    is_int,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A directed acyclic graph has `n = len(graph)` nodes `0..n-1`; `graph[u]` lists, without
repetition, the nodes `v` that have an arc `u -> v`.

Return every directed path that starts at node `0` and ends at node `n-1`, each written as the
list of its nodes (so it begins with `0` and ends with `n-1`). The paths may be returned in any
order, each exactly once. Return an empty list when there is no such path.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def allPathsSourceTarget(self, graph: List[List[int]]) -> List[List[int]]:
        ...
"""
)

# Generated cases bound the number of paths that start at node 0 (to any end), so even a
# search that does not prune dead ends stays fast, and the answer stays small.
MAX_PATHS_FROM_SOURCE = 3000


def all_paths_source_target(graph: list[list[int]]) -> list[list[int]]:
    """Depth-first enumeration restricted to nodes that can still reach the target."""
    n = len(graph)
    if n == 0:
        return []
    target = n - 1
    pred: list[list[int]] = [[] for _ in range(n)]
    for u, heads in enumerate(graph):
        for v in heads:
            pred[v].append(u)
    useful = [False] * n  # can reach the target
    useful[target] = True
    stack = [target]
    while stack:
        v = stack.pop()
        for u in pred[v]:
            if not useful[u]:
                useful[u] = True
                stack.append(u)
    if not useful[0]:
        return []
    if target == 0:
        return [[0]]
    paths: list[list[int]] = []
    path = [0]
    frames = [iter(graph[0])]  # one iterator over unexplored heads per node on the path
    while frames:
        v = next(frames[-1], None)
        if v is None:
            frames.pop()
            path.pop()
            continue
        if not useful[v]:
            continue
        if v == target:
            paths.append([*path, v])
            continue
        path.append(v)
        frames.append(iter(graph[v]))
    return paths


def in_contract(args: Mapping[str, Any]) -> bool:
    graph = args["graph"]
    if not isinstance(graph, list) or len(graph) < 2:
        return False
    n = len(graph)
    for u, heads in enumerate(graph):
        if not isinstance(heads, list) or len(set(heads)) != len(heads):
            return False
        if not all(is_int(v) and 0 <= v < n and v != u for v in heads):
            return False
    return is_dag(n, ((u, v) for u, heads in enumerate(graph) for v in heads))


def _paths_from(order: list[int], succ: list[list[int]]) -> list[int]:
    """Number of paths (of any length >= 0) starting at each node, capped to stay small."""
    cap = MAX_PATHS_FROM_SOURCE + 1
    total = [1] * len(succ)
    for u in reversed(order):
        total[u] = min(cap, 1 + sum(total[v] for v in succ[u]))
    return total


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Pick a start s with a bounded number of outgoing paths and an end t it reaches (one case
    in ten: an end it does not reach), then relabel s as 0 and t as n-1."""
    import networkx as nx

    D = dag_view(G, rng)
    n = D.number_of_nodes()
    succ = [sorted(D.successors(u)) for u in range(n)]
    order = list(nx.topological_sort(D))
    total = _paths_from(order, succ)
    starts = sorted((t, u) for u, t in enumerate(total) if 2 <= t <= MAX_PATHS_FROM_SOURCE)
    if not starts:
        return None
    s = rng.choice(starts[len(starts) * 2 // 3 :])[1]  # among the richest third
    count = [0] * n
    count[s] = 1
    for u in order:
        if count[u]:
            for v in succ[u]:
                count[v] += count[u]
    reached = [v for v in range(n) if v != s and count[v]]
    unreached = [v for v in range(n) if v != s and not count[v]]
    if unreached and rng.random() < 0.1:
        t = rng.choice(unreached)
    else:
        t = rng.choices(reached, weights=[count[v] for v in reached])[0]
    middle = [v for v in range(n) if v not in (s, t)]
    rng.shuffle(middle)
    label = {s: 0, t: n - 1} | {v: i for i, v in enumerate(middle, start=1)}
    arcs = [(label[u], label[v]) for u, v in D.edges()]
    return {"graph": adjacency_lists(n, arcs, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc797_first_path_only(graph: list[list[int]]) -> list[list[int]]:
    """Stops at the first path found (an existence search), returning it alone."""
    n = len(graph)
    stack, seen = [[0]], {0}
    while stack:
        path = stack.pop()
        if path[-1] == n - 1:
            return [path]
        for v in graph[path[-1]]:
            if v not in seen:
                seen.add(v)
                stack.append([*path, v])
    return []


def lc797_shared_visited(graph: list[list[int]]) -> list[list[int]]:
    """One visited set for the whole search: a node is expanded on the first path through it
    only, so paths sharing a middle node are lost."""
    n = len(graph)
    paths: list[list[int]] = []
    seen = {0}

    def walk(path: list[int]) -> None:
        for v in graph[path[-1]]:
            if v == n - 1:
                paths.append([*path, v])
            elif v not in seen:
                seen.add(v)
                walk([*path, v])

    if n == 1:
        return [[0]]
    walk([0])
    return paths


PROBLEM = register(
    Problem(
        id="lc797",
        title="Every path from the first to the last node of a DAG",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="allPathsSourceTarget",
        arg_names=("graph",),
        concept="path finding",
        difficulty="medium",
        directed=True,
        input_contract="adjacency lists of a DAG on 0..n-1, n >= 2, no repeated heads, no "
        "self-loops",
        reference=all_paths_source_target,
        checker=set_of_lists,
        build_case=build_case,
        mutants={
            "first path only": lc797_first_path_only,
            "shared visited set": lc797_shared_visited,
        },
        published_cells=cells("dense/acyclic planar/acyclic sparse/acyclic"),
        input_graph=lambda a: adjacency_digraph(a["graph"]),
        in_contract=in_contract,
        field_map={"graphs": "graph"},
        skipped_cells=dag_only_skips(),
        label_status=(
            "constant-answer: all 120 published labels are [] (100 in-trees without a 0 -> n-1 "
            "path, 20 empty graphs)"
        ),
        notes=(
            DAG_CELLS_NOTE + f" Start and end are chosen so at most {MAX_PATHS_FROM_SOURCE} "
            "paths leave node 0, keeping answers and naive searches small."
        ),
    )
)
