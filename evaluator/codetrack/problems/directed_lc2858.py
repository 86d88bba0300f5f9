"""lc2858: for every node, the fewest arcs of a tree to reverse so it reaches all nodes."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import NoTrueAnswer, Problem, register
from evaluator.codetrack.problems.directed_common import (
    PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED,
    TYPING_IMPORT,
    arc_list,
    is_oriented_tree,
    min_reversals_from,
    pairs_in_range,
    skip_subcategories,
    spanning_tree_arcs,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A directed graph has `n` nodes `0..n-1` and `n-1` arcs; `edges[i] = [u, v]` is an arc
`u -> v`. Ignoring the directions, the arcs connect all nodes and contain no cycle (they form a
tree).

For every node `i`, find the smallest number of arcs whose direction must be reversed so that
every node can be reached from `i` along directed paths. Return these `n` numbers as a list,
entry `i` for node `i`.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def minEdgeReversals(self, n: int, edges: List[List[int]]) -> List[int]:
        ...
"""
)


def min_edge_reversals(n: int, edges: list[list[int]]) -> list[int]:
    """Count the arcs pointing towards node 0, then reroot: moving the root across an arc
    changes the count by +1 (arc now points towards the new root) or -1."""
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append((v, 0))  # leaving u towards v: already points away
        adj[v].append((u, 1))  # leaving v towards u: points towards v, must be reversed
    answer = [0] * n
    parent = [-1] * n
    towards_child = [0] * n  # cost of crossing the tree arc from the parent's side
    order = [0]
    seen = [False] * n
    seen[0] = True
    for u in order:  # breadth-first; `order` grows while iterating
        for v, cost in adj[u]:
            if not seen[v]:
                seen[v] = True
                parent[v] = u
                towards_child[v] = cost
                answer[0] += cost
                order.append(v)
    for u in order[1:]:
        # Arc p -> u (cost 0 from p) now points towards the new root u: one more reversal.
        answer[u] = answer[parent[u]] + (1 if towards_child[u] == 0 else -1)
    return answer


def in_contract(args: Mapping[str, Any]) -> bool:
    return is_oriented_tree(args["n"], args["edges"])


def published_truth(args: Mapping[str, Any]) -> list[int]:
    """The statement's question on any digraph (no published case is a tree): per root, a
    minimum arborescence where reversing an arc costs 1. The rerooting formula of the
    reference counts arcs of one spanning tree and is exact only on trees."""
    n, arcs = args["n"], args["edges"]
    if not pairs_in_range(n, arcs) or n < 1:
        raise NoTrueAnswer("no answer", "arc ends outside 0..n-1")
    answer = min_reversals_from(n, arcs, range(n))
    if answer[0] is None:
        raise NoTrueAnswer("no answer", "the graph is not weakly connected, so no node can "
                           "reach every other whatever is reversed")
    return answer


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """A random spanning tree of the graph's shape, each arc keeping its drawn direction.
    None when the graph is not weakly connected."""
    tree = spanning_tree_arcs(G, rng)
    if tree is None:
        return None
    return {"n": G.number_of_nodes(), "edges": arc_list(tree, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2858_counts_the_other_arcs(n: int, edges: list[list[int]]) -> list[int]:
    """Gets the orientation wrong: counts the arcs that already point away from the node."""
    return [n - 1 - a for a in min_edge_reversals(n, edges)]


def lc2858_root_zero_everywhere(n: int, edges: list[list[int]]) -> list[int]:
    """Computes node 0's count and never reroots."""
    return [min_edge_reversals(n, edges)[0]] * n


PROBLEM = register(
    Problem(
        id="lc2858",
        title="Per-node fewest reversals to reach everyone",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="minEdgeReversals",
        arg_names=("n", "edges"),
        concept="graph traversal",
        difficulty="hard",
        directed=True,
        input_contract="n-1 arcs on 0..n-1 whose undirected shape is a tree",
        reference=min_edge_reversals,
        checker=exact,
        build_case=build_case,
        mutants={
            "reversed orientation": lc2858_counts_the_other_arcs,
            "node 0's count everywhere": lc2858_root_zero_everywhere,
        },
        published_cells=PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED,
        input_graph=lambda a: digraph_of(a["n"], a["edges"]),
        in_contract=in_contract,
        published_truth=published_truth,
        slow_import=True,
        field_map={"n": "n", "graphs": "edges"},
        skipped_cells=skip_subcategories(
            ["cyclic", "disconnected"],
            "the arcs must form a tree: cases are random spanning trees of connected graphs "
            "(connected and acyclic cells only)",
        ),
        label_status=(
            "label-wrong: no published case is a tree (329 disconnected, 371 cyclic); labels "
            "apply the tree formula to arbitrary graphs; regenerate"
        ),
        notes="Generated inputs are random spanning trees of connected graphs of the category.",
    )
)
