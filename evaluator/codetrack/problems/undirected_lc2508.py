"""lc2508: can at most two new edges make every degree even?"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    edge_list,
    relabel,
    simple_graph_in_contract,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
An undirected graph has nodes `0..n-1`; `edges[i] = [a, b]` joins `a` and `b`, with at most one
edge per pair and no edge from a node to itself. The graph may be disconnected.

You may add at most two new edges. A new edge must join two different nodes that are not already
joined by an edge (so the graph stays without repeated edges and self-loops). Return `True` if
you can make the degree of every node even this way, and `False` otherwise.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def isPossible(self, n: int, edges: List[List[int]]) -> bool:
        ...
"""
)


def is_possible(n: int, edges: list[list[int]]) -> bool:
    """A new edge flips the parity of its two ends, so only 0, 2 or 4 odd nodes can be
    fixed: 2 by joining them or by routing both through a third node adjacent to neither,
    4 by splitting them into two non-adjacent pairs. Self-loops are ignored."""
    adj: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    odd = [v for v in range(n) if len(adj[v]) % 2 == 1]
    if not odd:
        return True
    if len(odd) == 2:
        a, b = odd
        if b not in adj[a]:
            return True
        return any(c != a and c != b and c not in adj[a] and c not in adj[b] for c in range(n))
    if len(odd) == 4:
        a, b, c, d = odd
        pairings = (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c)))
        return any(y not in adj[x] and w not in adj[z] for (x, y), (z, w) in pairings)
    return False


# The shared simple-graph contract and builder, under the names the problem modules use.
in_contract = simple_graph_in_contract
def _toggle(H: nx.Graph, u: int, v: int) -> None:
    """Add the edge u-v if absent, remove it if present: both ends change parity."""
    if H.has_edge(u, v):
        H.remove_edge(u, v)
    else:
        H.add_edge(u, v)


def _odd_clique(H: nx.Graph, four: list[int], rng: random.Random) -> None:
    """Join the four nodes pairwise and make them the only odd nodes: every way to pair them
    up needs an existing edge, so the answer is False. Parities are fixed with edges from a
    node of the four to an outside node, and between outside nodes."""
    H.add_edges_from((u, v) for i, u in enumerate(four) for v in four[i + 1:])
    inside = set(four)
    outside = [v for v in sorted(H) if v not in inside]
    wrong = [v for v in sorted(H) if (H.degree(v) % 2 == 1) != (v in inside)]
    for v in [w for w in wrong if w in inside]:
        _toggle(H, v, rng.choice(outside))
    loose = [v for v in outside if H.degree(v) % 2]
    rng.shuffle(loose)
    for u, v in zip(loose[::2], loose[1::2], strict=True):
        _toggle(H, u, v)


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Drawn graphs have dozens of odd nodes (answer False), so the parities are set: a fifth
    of the inputs keep the drawn graph; the others first get every degree even (odd nodes
    paired up and the edge between each pair toggled), then 0, 2 or 4 odd nodes again: two
    non-adjacent ones (an edge removed: True), two adjacent ones (an edge added: True only
    through a third node adjacent to neither, the rule a hurried solution forgets), or four."""
    H = relabel(G)
    n = H.number_of_nodes()
    if n < 1:
        return None
    roll = rng.random()
    if roll >= 0.2 and n >= 5:
        odd = [v for v in sorted(H) if H.degree(v) % 2]
        rng.shuffle(odd)
        for a, b in zip(odd[::2], odd[1::2], strict=True):
            _toggle(H, a, b)
        nodes = list(range(n))
        present = sorted(H.edges())
        absent = [p for p in (tuple(rng.sample(nodes, 2)) for _ in range(50))
                  if not H.has_edge(*p)]
        if roll < 0.35:
            pass  # every degree even: True
        elif roll < 0.5 and present:
            H.remove_edge(*rng.choice(present))  # two odd nodes, not joined: True
        elif roll < 0.8 and absent:
            H.add_edge(*absent[0])  # two odd nodes, joined: only a third node can help
        elif roll < 0.9 or n < 6:
            a, b, c, d = rng.sample(nodes, 4)  # four odd nodes
            _toggle(H, a, b)
            _toggle(H, c, d)
        else:
            _odd_clique(H, rng.sample(nodes, 4), rng)  # four odd nodes, all joined: False
    return {"n": n, "edges": edge_list(H, rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def _odd_nodes(n: int, edges: list[list[int]]) -> tuple[list[set[int]], list[int]]:
    adj: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    return adj, [v for v in range(n) if len(adj[v]) % 2]


def lc2508_forgets_third_node(n: int, edges: list[list[int]]) -> bool:
    """Two odd nodes that are already joined: answers False without trying a third node."""
    adj, odd = _odd_nodes(n, edges)
    if not odd:
        return True
    if len(odd) == 2:
        return odd[1] not in adj[odd[0]]
    if len(odd) == 4:
        a, b, c, d = odd
        return any(y not in adj[x] and w not in adj[z]
                   for (x, y), (z, w) in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))))
    return False


def lc2508_counts_only(n: int, edges: list[list[int]]) -> bool:
    """Looks only at how many nodes are odd (0, 2 or 4), never at which edges exist."""
    _, odd = _odd_nodes(n, edges)
    return len(odd) in (0, 2, 4)


PROBLEM = register(
    Problem(
        id="lc2508",
        title="Make all degrees even by adding at most two edges",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="isPossible",
        arg_names=("n", "edges"),
        concept="graph construction",
        difficulty="hard",
        directed=False,
        input_contract="simple undirected graph on 0..n-1 without self-loops, n >= 1",
        reference=is_possible,
        checker=exact,
        build_case=build_case,
        mutants={
            "forgets the third node": lc2508_forgets_third_node,
            "odd count only": lc2508_counts_only,
        },
        published_cells=cells(
            "erdos/connected planar/connected planar/disconnected planar/cyclic planar/acyclic "
            "power-law/connected pseudo/connected pseudo/disconnected pseudo/cyclic "
            "regular/connected regular/disconnected regular/cyclic small-world/connected "
            "sparse/connected sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: graph_of(a["n"], a["edges"]),
        cost_rate=2e-6,
        in_contract=in_contract,
        field_map={"n": "n", "graphs": "edges"},
        label_status=(
            "label-wrong: in 20 of the 30 pseudo cases a self-loop is counted as one neighbour, "
            "flipping the node's parity"
        ),
        notes="Self-loop inputs are out of contract; the 1400 simple graphs agree. "
        "77 % of the labels are False.",
    )
)
