"""lc1719: how many rooted trees have exactly the given ancestor pairs?"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import pairs_graph
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    TYPING_IMPORT,
    as_digraph,
    is_int,
    skip_subcategories,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
`pairs` is a list of pairs `[x, y]` of two different positive integers. A pair says only that
`x` and `y` belong together: `[x, y]` and `[y, x]` mean the same, and the list may hold both or
repeat a pair. The nodes are the integers that occur in some pair.

Count the rooted trees whose node set is exactly these nodes and in which two different nodes
appear together in a pair if and only if one of them is an ancestor of the other (the root is
an ancestor of every other node, a parent of its children, and so on). Two trees are different
when some node has a different parent.

Return `0` if no such tree exists, `1` if exactly one exists, and `2` if more than one exists.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def checkWays(self, pairs: List[List[int]]) -> int:
        ...
"""
)


def check_ways(pairs: list[list[int]]) -> int:
    """Each non-root node's parent must be its neighbour with the smallest degree that is still
    >= its own, and the node's other neighbours must all be neighbours of that parent. Equal
    degrees mean parent and child could swap places (more than one tree)."""
    adj: dict[int, set[int]] = {}
    for x, y in pairs:
        adj.setdefault(x, set()).add(y)
        adj.setdefault(y, set()).add(x)
    size = len(adj)
    root = next((node for node, near in adj.items() if len(near) == size - 1), None)
    if root is None:
        return 0
    ways = 1
    for node, near in adj.items():
        if node == root:
            continue
        degree = len(near)
        parent, parent_degree = None, size + 1
        for other in near:
            d = len(adj[other])
            if degree <= d < parent_degree:
                parent, parent_degree = other, d
        if parent is None:
            return 0
        parent_near = adj[parent]
        if any(other != parent and other not in parent_near for other in near):
            return 0
        if parent_degree == degree:
            ways = 2
    return ways


def in_contract(args: Mapping[str, Any]) -> bool:
    """Non-empty pairs of two different positive integers, in either order (the spec's
    semantics: the published */cyclic cells list some pairs both ways round)."""
    pairs = args["pairs"]
    if not isinstance(pairs, list) or not pairs:
        return False
    return all(
        isinstance(p, list) and len(p) == 2 and all(is_int(x) and x >= 1 for x in p)
        and p[0] != p[1]
        for p in pairs
    )


def _rooted_tree(D: nx.DiGraph, rng: random.Random) -> dict[int, int]:
    """Parent map of a breadth-first spanning forest of D's shape from random roots."""
    shadow = D.to_undirected(as_view=True)
    parent: dict[int, int] = {}
    nodes = list(D.nodes())
    rng.shuffle(nodes)
    for root in nodes:
        if root in parent:
            continue
        parent[root] = -1
        queue = deque([root])
        while queue:
            u = queue.popleft()
            around = sorted(shadow.neighbors(u))
            rng.shuffle(around)
            for v in around:
                if v not in parent:
                    parent[v] = u
                    queue.append(v)
    return parent


def _no_lone_children(parent: dict[int, int]) -> dict[int, int]:
    """The parent map spliced so that no node has exactly one child: a lone child's children
    move up to its parent, and a lone leaf child moves up beside its parent (a root keeps
    it). Each move only adds children to other nodes, so one pass suffices.

    Why: a parent with a single child c has exactly as many pairs as c (c's ancestors are the
    parent's plus the parent; the parent's descendants are c's plus c), so the two can swap
    and the answer is 2. Random BFS trees nearly always have such a node, so no generated
    case answered 1; without lone children a parent always has more pairs than its child and
    exactly one tree fits."""
    parent = dict(parent)
    children: dict[int, list[int]] = {u: [] for u in parent}
    for v in sorted(parent):
        if parent[v] != -1:
            children[parent[v]].append(v)
    for p in sorted(parent):
        if len(children[p]) != 1:
            continue
        (c,) = children[p]
        if children[c]:
            for g in children[c]:
                parent[g] = p
            children[p] += children[c]
            children[c] = []
        elif parent[p] != -1:
            parent[c] = parent[p]
            children[parent[p]].append(c)
            children[p] = []
    return parent


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Ancestor pairs of a random BFS spanning tree (a forest for disconnected graphs, which
    has no tree: answer 0); in a third of the cases the tree is first spliced so that no node
    has a lone child (`_no_lone_children`: exactly one tree fits, answer 1). One case in four
    drops a pair and one in eight adds a non-ancestor pair, which usually makes the answer 0.
    Ids are shifted to 1..n."""
    D = as_digraph(G)
    parent = _rooted_tree(D, rng)
    if rng.random() < 1 / 3:
        parent = _no_lone_children(parent)
    pairs: set[tuple[int, int]] = set()
    for node in parent:
        up = parent[node]
        while up != -1:
            pairs.add((min(node, up) + 1, max(node, up) + 1))
            up = parent[up]
    roll = rng.random()
    if roll < 0.25 and len(pairs) > 1:
        pairs.discard(rng.choice(sorted(pairs)))
    elif roll < 0.375:
        n = D.number_of_nodes()
        outside = [(x, y) for x in range(1, n + 1) for y in range(x + 1, n + 1)]
        rng.shuffle(outside)
        extra = next((p for p in outside if p not in pairs), None)
        if extra is not None:
            pairs.add(extra)
    if not pairs:
        return None
    out = [list(p) for p in sorted(pairs)]
    rng.shuffle(out)
    return {"pairs": out}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc1719_never_two(pairs: list[list[int]]) -> int:
    """Answers 1 whenever a tree exists: forgets that equal degrees let parent and child swap."""
    return min(check_ways(pairs), 1)


def lc1719_root_only(pairs: list[list[int]]) -> int:
    """Checks only that some node is paired with every other node (a possible root)."""
    adj: dict[int, set[int]] = {}
    for x, y in pairs:
        adj.setdefault(x, set()).add(y)
        adj.setdefault(y, set()).add(x)
    return int(any(len(near) == len(adj) - 1 for near in adj.values()))


PROBLEM = register(
    Problem(
        id="lc1719",
        title="Rooted trees matching a list of ancestor pairs",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="checkWays",
        arg_names=("pairs",),
        concept="graph construction",
        difficulty="hard",
        directed=True,
        input_contract="pairs [x, y] of two different positive integers, in either order",
        reference=check_ways,
        checker=exact,
        build_case=build_case,
        mutants={
            "never 2": lc1719_never_two,
            "root check only": lc1719_root_only,
        },
        published_cells=cells(
            "planar/acyclic planar/cyclic planar/connected planar/disconnected sparse/acyclic "
            "sparse/cyclic sparse/connected sparse/disconnected"
        ),
        input_graph=lambda a: pairs_graph(a["pairs"]),  # pairs are unordered (the statement)
        in_contract=in_contract,
        field_map={"graphs": "pairs"},
        skipped_cells=skip_subcategories(
            ["acyclic"],
            "sub-categories are measured on the graph of the pairs, and the ancestor pairs of "
            "a rooted tree more than one level deep contain a triangle (a node, its parent "
            "and its grandparent): acyclic inputs would all be stars",
        ),
        label_status=(
            "constant-answer: every published label is 0 (no node is paired with all others)"
        ),
        notes=(
            "Generated pairs are the ancestor relation of a random BFS spanning tree of the "
            "drawn graph, sometimes perturbed, so answers 0, 1 and 2 all occur; disconnected "
            "cells always give 0."
        ),
    )
)
