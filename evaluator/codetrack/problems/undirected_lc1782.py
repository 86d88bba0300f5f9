"""lc1782: for each threshold, count node pairs whose incident edge count exceeds it."""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    degrees,
    edge_list,
    ids_in_range,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
An undirected multigraph has nodes `0..n-1`; `edges[i] = [u, v]` is an edge between two different
nodes `u` and `v`, and the same pair may appear several times (each copy is a separate edge).

For two different nodes `a` and `b`, let `incident(a, b)` be the number of edges with at least one
endpoint equal to `a` or `b`. For each value `queries[j]`, count the unordered pairs `{a, b}` of
different nodes with `incident(a, b) > queries[j]`. Return these counts as a list, in the order of
`queries`.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def countPairs(self, n: int, edges: List[List[int]], queries: List[int]) -> List[int]:
        ...
"""
)


def count_pairs(n: int, edges: list[list[int]], queries: list[int]) -> list[int]:
    """incident(a, b) = deg(a) + deg(b) - shared(a, b). Count pairs by degree sum with a sorted
    degree list, then correct the few pairs that share edges; O((n + m) log n) per query."""
    degree = [0] * n
    shared: Counter[tuple[int, int]] = Counter()
    for u, v in edges:
        degree[u] += 1
        degree[v] += 1
        shared[(min(u, v), max(u, v))] += 1
    ordered = sorted(degree)
    answers = []
    for q in queries:
        total = 0
        for i, d in enumerate(ordered):
            # partners after position i whose degree sum exceeds q
            j = max(i + 1, bisect_right(ordered, q - d))
            total += n - j
        for (a, b), count in shared.items():
            s = degree[a] + degree[b]
            if s > q >= s - count:
                total -= 1
        answers.append(total)
    return answers


def in_contract(args: Mapping[str, Any]) -> bool:
    """Ids in `0..n-1`, no self-loops, integer queries."""
    n, edges = args["n"], args["edges"]
    return (
        n >= 2
        and ids_in_range(n, edges)
        and all(u != v for u, v in edges)
        and all(isinstance(q, int) for q in args["queries"])
    )


def repair_published(args: dict[str, Any]) -> dict[str, Any]:
    """Upstream labelled 0-based data with a 1-based solution, which counted one extra isolated
    node; `n = numNodes + 1` reproduces exactly that instance."""
    return {**args, "n": args["n"] + 1}


def adapt_published(args: dict[str, Any]) -> dict[str, Any]:
    """The published reading is the repair alone."""
    return repair_published(args)


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Half of the cases repeat some edges, since the statement counts copies separately."""
    H = relabel(G)
    n = H.number_of_nodes()
    if n < 2:
        return None
    edges = edge_list(H, rng)
    if edges and rng.random() < 0.5:
        extra = [list(e) for e in rng.choices(edges, k=max(1, len(edges) // 10))]
        edges += extra
        rng.shuffle(edges)
    top = max(1, 2 * max((d for _, d in H.degree()), default=0) + 1)
    queries = [rng.randrange(top) for _ in range(rng.randint(1, 20))]
    return {"n": n, "edges": edges, "queries": queries}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1782_forgets_shared_edges(n: int, edges: list[list[int]], queries: list[int]) -> list[int]:
    """incident(a, b) = deg(a) + deg(b): the edges between a and b are counted twice."""
    degree = degrees(n, edges)
    ordered = sorted(degree)
    out = []
    for q in queries:
        total = 0
        for i, d in enumerate(ordered):
            total += n - max(i + 1, bisect_right(ordered, q - d))
        out.append(total)
    return out


def lc1782_dedups_edges(n: int, edges: list[list[int]], queries: list[int]) -> list[int]:
    """Removes repeated edges first, although each copy is a separate edge."""
    unique = sorted({(min(u, v), max(u, v)) for u, v in edges})
    return count_pairs(n, [list(e) for e in unique], queries)


PROBLEM = register(
    Problem(
        id="lc1782",
        title="Count node pairs whose shared edge count beats each threshold",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="countPairs",
        arg_names=("n", "edges", "queries"),
        concept="general graph",
        difficulty="hard",
        directed=False,
        input_contract="undirected multigraph on 0..n-1 (n >= 2), no self-loops; 1-20 queries",
        reference=count_pairs,
        checker=exact,
        build_case=build_case,
        mutants={
            "forgets shared edges": lc1782_forgets_shared_edges,
            "dedups edges": lc1782_dedups_edges,
        },
        published_cells=cells(
            "planar/connected planar/disconnected planar/cyclic planar/acyclic pseudo/connected "
            "pseudo/disconnected pseudo/cyclic regular/connected regular/disconnected "
            "regular/cyclic sparse/connected sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["edges"], multi=True),
        in_contract=in_contract,
        adapt_published=adapt_published,
        repair_published=repair_published,
        slow_import=True,
        field_map={"numNodes": "n", "graphs": "edges", "queries": "queries"},
        label_status=(
            "input-repaired: labels come from a 1-based solution on 0-based ids; loading with "
            "n = numNodes + 1 (one harmless isolated node) matches all of them"
        ),
        notes="With n = numNodes the labels disagree on 407 of 1130 cases.",
    )
)
