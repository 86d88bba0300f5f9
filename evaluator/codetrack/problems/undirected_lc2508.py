"""lc2508: can at most two new edges make every degree even?"""

from __future__ import annotations

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    simple_graph_case,
    simple_graph_in_contract,
)

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
build_case = simple_graph_case


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
        field_map={"n": "n", "graphs": "edges"},
        label_status=(
            "label-wrong: in 20 of the 30 pseudo cases a self-loop is counted as one neighbour, "
            "flipping the node's parity"
        ),
        notes="Self-loop inputs are out of contract; the 1400 simple graphs agree. "
        "77 % of the labels are False.",
    )
)
