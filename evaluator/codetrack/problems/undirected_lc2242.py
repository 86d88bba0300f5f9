"""lc2242: the heaviest simple path with exactly three edges (four distinct nodes)."""

from __future__ import annotations

import heapq
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    EVERY_CATEGORY_CELLS,
    TYPING_IMPORT,
    adjacency,
    edge_list,
    is_simple,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
An undirected graph has nodes `0..n-1`, where `n = len(scores)` and node `i` has score
`scores[i]`. `edges[i] = [u, v]` joins `u` and `v`; there is at most one edge per pair and no edge
from a node to itself.

Pick four different nodes `a, b, c, d` such that the edges `a-b`, `b-c` and `c-d` all exist. The
value of that choice is `scores[a] + scores[b] + scores[c] + scores[d]`. Return the largest value
of any such choice, or `-1` if there is none.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def maximumScore(self, scores: List[int], edges: List[List[int]]) -> int:
        ...
"""
)


def _best_quad(scores: list[int], edges: list[list[int]], keep: int, distinct: bool) -> int:
    """Fix the middle edge b-c. The best end a is among b's three highest-scored neighbours
    (at most two of them are c or d), likewise for d; so 9 combinations per edge suffice.
    `keep` neighbours per node and `distinct` ends: the reference keeps 3 with distinct ends,
    the mutants slip on one of the two."""
    adj = adjacency(len(scores), edges)
    top = [heapq.nlargest(keep, nbrs, key=scores.__getitem__) for nbrs in adj]
    best = -1
    for b, c in edges:
        for a in top[b]:
            if a == c:
                continue
            for d in top[c]:
                if d != b and (d != a or not distinct):
                    best = max(best, scores[a] + scores[b] + scores[c] + scores[d])
    return best


def maximum_score(scores: list[int], edges: list[list[int]]) -> int:
    """The best path a-b-c-d of four distinct nodes (`_best_quad`), -1 without one."""
    return _best_quad(scores, edges, 3, True)


def in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph on `0..len(scores)-1`, at least four nodes, integer scores."""
    scores = args["scores"]
    return (
        len(scores) >= 4
        and all(isinstance(s, int) for s in scores)
        and is_simple(len(scores), args["edges"])
    )


def _star_forest(H: nx.Graph, rng: random.Random) -> nx.Graph:
    """The stars left of forest H when nodes, in random order, keep the edges to their
    still-free neighbours as the centre of a star: a subgraph of H with no path of three
    edges, so the answer is -1."""
    import networkx as nx

    order = list(H.nodes())
    rng.shuffle(order)
    taken: set[int] = set()
    stars = nx.Graph()
    stars.add_nodes_from(range(H.number_of_nodes()))
    for centre in order:
        if centre in taken:
            continue
        leaves = [v for v in sorted(H[centre]) if v not in taken]
        if leaves:
            taken.update([centre, *leaves])
            stars.add_edges_from((centre, v) for v in leaves)
    return stars


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Scores up to 10^8 (LeetCode's bound): with 1..100 the best sums of dense graphs all
    land near 400, so one constant answered 2.5 % of the cases. One forest in ten is cut
    down to a forest of stars (a subgraph, so still a sparse planar forest) that has no path
    of three edges: the statement's -1, which no drawn graph needed. In three cases in ten that
    have a triangle, its three nodes get the three highest scores. Why: the best choice then
    runs through the triangle, whose nodes fill each other's two best neighbour slots, so it
    needs the third-best neighbour; otherwise keeping two neighbours per node passed 98 % of
    the cases."""
    import networkx as nx

    H = relabel(G)
    n = H.number_of_nodes()
    if n < 4:
        return None
    if nx.is_forest(H) and rng.random() < 0.1:
        H = _star_forest(H, rng)
    scores = [rng.randint(1, 10**8) for _ in range(n)]
    if rng.random() < 0.3:
        edges = sorted(H.edges())
        rng.shuffle(edges)
        for u, v in edges:
            common = sorted(set(H[u]) & set(H[v]))
            if common:
                trio = [u, v, rng.choice(common)]
                top = sorted(range(n), key=scores.__getitem__, reverse=True)[:3]
                best = [scores[x] for x in top]
                freed = [scores[x] for x in trio if x not in top]
                for x, value in zip([x for x in top if x not in trio], freed, strict=True):
                    scores[x] = value  # a permutation: displaced top nodes take trio scores
                for x, value in zip(trio, rng.sample(best, 3), strict=True):
                    scores[x] = value
                break
    return {"scores": scores, "edges": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2242_none_is_zero(scores: list[int], edges: list[list[int]]) -> int:
    """Starts the best value at 0, so a graph without such a choice answers 0, not -1."""
    return max(_best_quad(scores, edges, 3, True), 0)


def lc2242_top_two_neighbours(scores: list[int], edges: list[list[int]]) -> int:
    """Keeps each node's two best neighbours, one too few when both ends collide."""
    return _best_quad(scores, edges, 2, True)


def lc2242_ends_may_coincide(scores: list[int], edges: list[list[int]]) -> int:
    """Forgets that the two ends a and d must differ (a triangle is not a path)."""
    return _best_quad(scores, edges, 3, False)


PROBLEM = register(
    Problem(
        id="lc2242",
        title="Heaviest path on four distinct nodes",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="maximumScore",
        arg_names=("scores", "edges"),
        concept="general graph",
        difficulty="hard",
        directed=False,
        input_contract="simple undirected graph on 0..len(scores)-1, len(scores) >= 4; "
        "integer scores",
        reference=maximum_score,
        checker=exact,
        build_case=build_case,
        mutants={
            "top two neighbours": lc2242_top_two_neighbours,
            "ends may coincide": lc2242_ends_may_coincide,
            "none is 0": lc2242_none_is_zero,
        },
        published_cells=EVERY_CATEGORY_CELLS,
        input_graph=lambda a: graph_of(len(a["scores"]), a["edges"]),
        in_contract=in_contract,
        slow_import=True,
        field_map={"scores": "scores", "graphs": "edges"},
        label_status="consistent",
    )
)
