"""lc1971: is there a path between two nodes of an undirected graph?"""

from __future__ import annotations

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
    edge_list,
    ids_in_range,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
An undirected graph has nodes `0..n-1`; `edges[i] = [u, v]` joins `u` and `v` (an edge may also
join a node to itself). Return `True` if some path of edges leads from `source` to
`destination`, and `False` otherwise. Every node reaches itself.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def validPath(self, n: int, edges: List[List[int]], source: int, destination: int) -> bool:
        ...
"""
)


def valid_path(n: int, edges: list[list[int]], source: int, destination: int) -> bool:
    sets = DisjointSets(n)
    for u, v in edges:
        sets.union(u, v)
    return sets.find(source) == sets.find(destination)


def in_contract(args: Mapping[str, Any]) -> bool:
    """Ids in `0..n-1` (self-loops allowed, they change nothing); both ends are valid ids."""
    n = args["n"]
    return (
        n >= 1
        and ids_in_range(n, args["edges"])
        and all(isinstance(args[k], int) and 0 <= args[k] < n for k in ("source", "destination"))
    )


def adapt_published(args: dict[str, Any]) -> dict[str, Any]:
    """The published cases ask whether node n-1 is reachable from node 0 (confirmed on every
    case); the two ends are not stored, so they are added here."""
    return {**args, "source": 0, "destination": args["n"] - 1}


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Half the inputs get a ball of nodes cut off (`carve`), so ends can be apart outside
    the disconnected cells too. On a disconnected input the destination lies in another
    component half the time; one case in ten asks about a node and itself."""
    import networkx as nx

    H = relabel(G)
    n = H.number_of_nodes()
    if n < 1:
        return None
    if rng.random() < 0.5:
        carve(H, rng)
    source = rng.randrange(n)
    apart = sorted(set(range(n)) - nx.node_connected_component(H, source))
    if n == 1 or rng.random() < 0.1:
        destination = source
    elif apart and rng.random() < 0.5:
        destination = rng.choice(apart)
    else:
        destination = rng.randrange(n)
    return {"n": n, "edges": edge_list(H, rng), "source": source, "destination": destination}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1971_adjacent_only(n: int, edges: list[list[int]], source: int, destination: int) -> bool:
    """Answers whether the two ends are joined by one edge, not by a path."""
    return source == destination or any({u, v} == {source, destination} for u, v in edges)


def lc1971_self_is_unreachable(n: int, edges: list[list[int]], source: int,
                               destination: int) -> bool:
    """A search that only reports nodes it stepped onto: a node does not reach itself."""
    if source == destination:
        return False
    sets = DisjointSets(n)
    for u, v in edges:
        sets.union(u, v)
    return sets.find(source) == sets.find(destination)


PROBLEM = register(
    Problem(
        id="lc1971",
        title="Is there a path between two nodes?",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="validPath",
        arg_names=("n", "edges", "source", "destination"),
        concept="path finding",
        difficulty="easy",
        directed=False,
        input_contract="undirected graph on 0..n-1 (self-loops allowed); source, destination "
        "in 0..n-1",
        reference=valid_path,
        checker=exact,
        build_case=build_case,
        mutants={
            "adjacent only": lc1971_adjacent_only,
            "self is unreachable": lc1971_self_is_unreachable,
        },
        published_cells=cells(
            "erdos/connected planar/connected planar/disconnected planar/cyclic planar/acyclic "
            "power-law/connected pseudo/connected pseudo/disconnected pseudo/cyclic "
            "regular/connected regular/disconnected regular/cyclic sparse/connected "
            "sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["edges"], multi=True),
        in_contract=in_contract,
        adapt_published=adapt_published,
        field_map={"n_list": "n", "graphs": "edges"},
        label_status="consistent",
        notes=(
            "Published cases always ask 0 -> n-1 (added on load). 77 % of their labels are True. "
            "The folder directed/lc1971 is an upstream artifact and is not used."
        ),
    )
)
