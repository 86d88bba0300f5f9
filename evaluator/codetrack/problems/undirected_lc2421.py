"""lc2421: count the paths whose two ends carry the path's largest value."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    DisjointSets,
    acyclic_only_skips,
    adjacency,
    edge_list,
    is_forest,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A forest (an undirected graph without cycles) has nodes `0..n-1`, where `n = len(vals)`; node `i`
carries the integer `vals[i]` and `edges[i] = [a, b]` joins `a` and `b`.

A good path is a path without repeated nodes whose two end nodes carry the same value and on which
no node carries a larger value than the ends. A single node is a good path, and a path and its
reverse count as one. Return the number of good paths.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def numberOfGoodPaths(self, vals: List[int], edges: List[List[int]]) -> int:
        ...
"""
)


def number_of_good_paths(vals: list[int], edges: list[list[int]]) -> int:
    """Add nodes by increasing value into a union-find, joining each to neighbours already
    added; after adding all nodes of value v, nodes of value v in one set pair up.

    On a forest this is exactly the good-path count. On other graphs it counts pairs {a, b}
    (a = b allowed) of equal value v connected through nodes of value <= v, the spec's
    generalisation; union() ignores already-joined sets, so cycles do not double count.
    """
    n = len(vals)
    adj = adjacency(n, edges)
    by_value: dict[int, list[int]] = defaultdict(list)
    for node, value in enumerate(vals):
        by_value[value].append(node)
    sets = DisjointSets(n)
    total = 0
    for value in sorted(by_value):
        group = by_value[value]
        for u in group:
            for w in adj[u]:
                if vals[w] <= value:
                    sets.union(u, w)
        for k in Counter(sets.find(u) for u in group).values():
            total += k * (k + 1) // 2
    return total


def in_contract(args: Mapping[str, Any]) -> bool:
    """A forest on `0..len(vals)-1` with integer values."""
    vals = args["vals"]
    return all(isinstance(v, int) for v in vals) and is_forest(len(vals), args["edges"])


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Forests only; values come from a small range so that equal values are common."""
    import networkx as nx

    H = relabel(G)
    n = H.number_of_nodes()
    if n < 1 or not nx.is_forest(H):
        return None
    top = rng.choice((2, 5, 10, n))
    return {"vals": [rng.randint(0, top) for _ in range(n)], "edges": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def _good_paths(vals: list[int], edges: list[list[int]], per_group: Callable[[int], int]) -> int:
    n = len(vals)
    adj = adjacency(n, edges)
    sets = DisjointSets(n)
    total = 0
    for value in sorted(set(vals)):
        group = [u for u in range(n) if vals[u] == value]
        for u in group:
            for w in adj[u]:
                if vals[w] <= value:
                    sets.union(u, w)
        for k in Counter(sets.find(u) for u in group).values():
            total += per_group(k)
    return total


def lc2421_forgets_single_nodes(vals: list[int], edges: list[list[int]]) -> int:
    """Counts the paths with two different ends only: a single node is a good path too."""
    return _good_paths(vals, edges, lambda k: k * (k - 1) // 2)


def lc2421_ordered_pairs(vals: list[int], edges: list[list[int]]) -> int:
    """Counts a path and its reverse as two."""
    return _good_paths(vals, edges, lambda k: k * k)


PROBLEM = register(
    Problem(
        id="lc2421",
        title="Count paths whose end values equal the path maximum",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="numberOfGoodPaths",
        arg_names=("vals", "edges"),
        concept="path finding",
        difficulty="hard",
        directed=False,
        input_contract="forest on 0..len(vals)-1; integer values",
        reference=number_of_good_paths,
        checker=exact,
        build_case=build_case,
        mutants={
            "forgets single nodes": lc2421_forgets_single_nodes,
            "ordered pairs": lc2421_ordered_pairs,
        },
        published_cells=cells(
            "planar/connected planar/disconnected planar/cyclic planar/acyclic sparse/connected "
            "sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(len(a["vals"]), a["edges"]),
        in_contract=in_contract,
        field_map={"values": "vals", "graphs": "edges"},
        skipped_cells=acyclic_only_skips(forest_ok=True),
        label_status=(
            "label-wrong: in the 200 cyclic planar/{connected,cyclic} cases every label exceeds "
            "the number of candidate endpoint pairs (union-find double counting)"
        ),
        notes="The 400 forest cases agree.",
    )
)
