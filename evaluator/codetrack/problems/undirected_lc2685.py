"""lc2685: count the connected components in which every two nodes are adjacent."""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    DisjointSets,
    carve,
    component_sizes,
    edge_list,
    ids_in_range,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
An undirected graph has nodes `0..n-1`; `edges[i] = [a, b]` joins `a` and `b`. A pair appears at
most once; an edge from a node to itself may appear and is to be ignored.

A connected component is complete when every two different nodes of it are joined by an edge. A
node without edges forms a complete component on its own. Return the number of complete
connected components.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def countCompleteComponents(self, n: int, edges: List[List[int]]) -> int:
        ...
"""
)

# components up to this size may be turned into cliques by build_case
_SMALL = 8


def count_complete_components(n: int, edges: list[list[int]]) -> int:
    """A component of k nodes is complete iff it holds k(k-1)/2 distinct non-loop edges."""
    sets = DisjointSets(n)
    pairs = {(min(a, b), max(a, b)) for a, b in edges if a != b}
    for a, b in pairs:
        sets.union(a, b)
    edge_count = [0] * n
    for a, _ in pairs:
        edge_count[sets.find(a)] += 1
    return sum(
        1
        for v in range(n)
        if sets.find(v) == v and edge_count[v] == sets.size[v] * (sets.size[v] - 1) // 2
    )


def in_contract(args: Mapping[str, Any]) -> bool:
    """Ids in `0..n-1`, no repeated pair (self-loops allowed)."""
    n, edges = args["n"], args["edges"]
    if n < 1 or not ids_in_range(n, edges):
        return False
    pairs = [(min(a, b), max(a, b)) for a, b in edges if a != b]
    return len(pairs) == len(set(pairs))


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Up to three small balls of nodes are cut off (`carve`, in three inputs of five), then
    each component of at most 8 nodes becomes a clique with probability 1/2, so that
    disconnected cells mix complete and incomplete components; generated graphs alone almost
    never contain a complete component larger than one node. One input in five gets up to three
    self-loops, which the statement says to ignore."""
    import networkx as nx

    H = relabel(G)
    if H.number_of_nodes() < 1:
        return None
    for _ in range(rng.choice((0, 0, 1, 2, 3))):  # small components outside */disconnected too
        carve(H, rng, largest=_SMALL)
    for component in sorted(nx.connected_components(H), key=min):
        if 1 < len(component) <= _SMALL and rng.random() < 0.5:
            H.add_edges_from(itertools.combinations(sorted(component), 2))
    edges = edge_list(H, rng)
    if rng.random() < 0.2:  # the statement allows self-loops (to be ignored): one input in 5
        for v in rng.sample(range(H.number_of_nodes()), min(3, H.number_of_nodes())):
            edges.insert(rng.randint(0, len(edges)), [v, v])
    return {"n": H.number_of_nodes(), "edges": edges}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2685_counts_components(n: int, edges: list[list[int]]) -> int:
    """Counts every component, complete or not."""
    return len(component_sizes(n, [e for e in edges if e[0] != e[1]]))


def lc2685_counts_self_loops(n: int, edges: list[list[int]]) -> int:
    """Counts self-loops as edges, so a complete component with a loop looks over-full."""
    sets = DisjointSets(n)
    for a, b in edges:
        sets.union(a, b)
    count = [0] * n
    for a, _ in edges:
        count[sets.find(a)] += 1
    return sum(1 for v in range(n) if sets.find(v) == v
               and count[v] == sets.size[v] * (sets.size[v] - 1) // 2)


def lc2685_skips_isolated(n: int, edges: list[list[int]]) -> int:
    """Builds components from the edge list only: a node without edges is not counted."""
    touched = {x for e in edges for x in e if e[0] != e[1]}
    return count_complete_components(n, edges) - (n - len(touched))


PROBLEM = register(
    Problem(
        id="lc2685",
        title="Count connected components that are complete",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="countCompleteComponents",
        arg_names=("n", "edges"),
        concept="graph traversal",
        difficulty="medium",
        directed=False,
        input_contract="undirected graph on 0..n-1, no repeated pair; self-loops ignored",
        reference=count_complete_components,
        checker=exact,
        build_case=build_case,
        mutants={
            "counts components": lc2685_counts_components,
            "counts self-loops": lc2685_counts_self_loops,
            "skips isolated nodes": lc2685_skips_isolated,
        },
        published_cells=cells(
            "dense_01/dense dense_02/dense dense_03/dense dense_04/dense dense_05/dense "
            "erdos/connected planar/connected planar/disconnected planar/cyclic planar/acyclic "
            "power-law/connected pseudo/connected pseudo/disconnected pseudo/cyclic "
            "regular/connected regular/disconnected regular/cyclic small-world/connected "
            "sparse/connected sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["edges"], multi=True),
        in_contract=in_contract,
        slow_import=True,
        field_map={"n": "n", "graphs": "edges"},
        label_status="constant-answer: 94 % of the published labels are 0 (17 of 21 cells "
        "constant 0)",
        notes="Labels are correct but uninformative; build_case completes small components.",
    )
)
