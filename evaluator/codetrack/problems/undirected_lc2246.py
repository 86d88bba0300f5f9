"""lc2246: the longest tree path on which neighbouring nodes carry different letters."""

from __future__ import annotations

import random
import string
from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import graph_of
from evaluator.codetrack.problem import NoTrueAnswer, Problem, cells, register
from evaluator.codetrack.problems.undirected_common import (
    TYPING_IMPORT,
    acyclic_only_skips,
    bfs_tree,
    relabel,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A tree has nodes `0..n-1` and is rooted at node `0`. It is given as `parent`, a list of length
`n` where `parent[0] = -1` and, for `i >= 1`, `parent[i]` is the parent of node `i`. Node `i`
carries the lowercase letter `s[i]`.

Return the number of nodes on the longest path in the tree (no node visited twice) on which every
two consecutive nodes carry different letters. A single node is such a path, of length 1.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def longestPath(self, parent: List[int], s: str) -> int:
        ...
"""
)


def longest_path(parent: list[int], s: str) -> int:
    """Post-order over the tree: each node keeps its longest downward chain through children
    with a different letter, and the best path bends at the node with its two longest chains.
    Only nodes reachable from the root through child links are visited."""
    n = len(parent)
    children: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        if 0 <= parent[i] < n:
            children[parent[i]].append(i)
    order, seen, stack = [], {0}, [0]
    while stack:
        u = stack.pop()
        order.append(u)
        for c in children[u]:
            if c not in seen:
                seen.add(c)
                stack.append(c)
    chain = [1] * n
    best = 1
    for u in reversed(order):
        first = second = 0
        for c in children[u]:
            if c in seen and s[c] != s[u]:
                if chain[c] > first:
                    first, second = chain[c], first
                elif chain[c] > second:
                    second = chain[c]
        chain[u] = 1 + first
        best = max(best, 1 + first + second)
    return best


def in_contract(args: Mapping[str, Any]) -> bool:
    """`parent` is a tree rooted at 0 (every parent chain ends at 0) and `s` has one lowercase
    letter per node."""
    parent, s = args["parent"], args["s"]
    n = len(parent)
    if n < 1 or len(s) != n or parent[0] != -1 or not all(c in string.ascii_lowercase for c in s):
        return False
    if not all(isinstance(p, int) and 0 <= p < n for p in parent[1:]):
        return False
    # depth-by-memo walk; a chain longer than n nodes means a cycle
    state = [0] * n  # 0 unknown, 1 reaches the root
    state[0] = 1
    for i in range(1, n):
        path = []
        u = i
        while state[u] == 0 and len(path) <= n:
            path.append(u)
            u = parent[u]
        if state[u] != 1:
            return False
        for v in path:
            state[v] = 1
    return True


def published_truth(args: Mapping[str, Any]) -> int:
    """The statement's question on the graph the parent links form (702 published arrays are
    not trees: most nodes point into cycles, some cells hold extra -1 roots).

    Only links between different letters can be walked, so keep those. Every node adds at most
    one link, so each component is a tree or has exactly one cycle; a simple path uses at most
    all but one cycle link, which gives the longest path in closed form per component.
    """
    parent, s = args["parent"], args["s"]
    n = len(parent)
    if len(s) != n or not all(type(p) is int for p in parent):
        raise NoTrueAnswer("no answer", "parent and s differ in length or hold non-integers")
    adj: list[set[int]] = [set() for _ in range(n)]
    for i, p in enumerate(parent):
        if 0 <= p < n and p != i and s[p] != s[i]:
            adj[i].add(p)
            adj[p].add(i)
    best, seen = 1 if n else 0, [False] * n
    for start in range(n):
        if not seen[start]:
            best = max(best, _longest_in_component(adj, start, seen))
    return best


def _longest_in_component(adj: list[set[int]], start: int, seen: list[bool]) -> int:
    """Nodes on the longest simple path of the component of `start` (a tree or unicyclic)."""
    members, queue = [start], deque([start])
    seen[start] = True
    while queue:
        for v in adj[queue.popleft()]:
            if not seen[v]:
                seen[v] = True
                members.append(v)
                queue.append(v)
    cycle = _cycle(adj, members)
    on_cycle = set(cycle)
    # depth (nodes) of the tree hanging from each cycle node, and the best path inside it
    best, depth = 1, {}
    roots = cycle or [members[0]]
    for root in roots:
        down, inner = _hanging(adj, root, on_cycle)
        depth[root] = down
        best = max(best, inner)
    k = len(cycle)
    for i in range(k):
        for j in range(i + 1, k):
            around = max(j - i, k - (j - i))  # the longer way round: cycle links used
            best = max(best, depth[cycle[i]] + depth[cycle[j]] + around - 1)
    return best


def _cycle(adj: list[set[int]], members: list[int]) -> list[int]:
    """The cycle of a unicyclic component, in order ([] for a tree): strip leaves repeatedly."""
    links = sum(len(adj[u]) for u in members) // 2
    if links < len(members):
        return []
    degree = {u: len(adj[u]) for u in members}
    leaves = deque(u for u in members if degree[u] <= 1)
    while leaves:
        u = leaves.popleft()
        degree[u] = 0
        for v in adj[u]:
            if degree[v] > 1:
                degree[v] -= 1
                if degree[v] == 1:
                    leaves.append(v)
    ring = {u for u in members if degree[u] >= 2}
    first = min(ring)
    order, prev, u = [first], None, first
    while True:
        nxt = next(v for v in sorted(adj[u]) if v in ring and v != prev)
        if nxt == first:
            return order
        order.append(nxt)
        prev, u = u, nxt


def _hanging(adj: list[set[int]], root: int, blocked: set[int]) -> tuple[int, int]:
    """(longest downward chain from `root`, longest path) in nodes, within the tree hanging
    from `root` when the nodes of `blocked` other than `root` are cut off."""
    parent, order = {root: -1}, [root]
    for u in order:  # breadth-first; `order` grows while iterating
        for v in adj[u]:
            if v not in parent and v not in blocked:
                parent[v] = u
                order.append(v)
    chain = dict.fromkeys(order, 1)
    top2: dict[int, list[int]] = {u: [0, 0] for u in order}
    for u in reversed(order):
        first, second = top2[u]
        chain[u] = 1 + first
        p = parent[u]
        if p != -1:
            pair = top2[p]
            if chain[u] > pair[0]:
                pair[0], pair[1] = chain[u], pair[0]
            elif chain[u] > pair[1]:
                pair[1] = chain[u]
    best = max(1 + a + b for a, b in top2.values())
    return chain[root], best


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Trees only. Small alphabets are common so that equal neighbours actually occur."""
    import networkx as nx

    H = relabel(G)
    n = H.number_of_nodes()
    if n < 1 or not nx.is_tree(H):
        return None
    parent, _ = bfs_tree(n, H.edges(), 0)
    letters = string.ascii_lowercase[: rng.choice((2, 3, 4, 26))]
    return {"parent": parent, "s": "".join(rng.choice(letters) for _ in range(n))}


# The graph the solution receives (inputgraph.py), as this problem reads its input.


def parent_tree(parent: Sequence[int]) -> nx.Graph:
    return graph_of(len(parent), ((p, u) for u, p in enumerate(parent) if p >= 0))


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def _letter_chains(parent: list[int], s: str, bend: bool, letters: bool) -> int:
    n = len(parent)
    children: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        children[parent[i]].append(i)
    order, stack = [], [0]
    while stack:
        u = stack.pop()
        order.append(u)
        stack.extend(children[u])
    chain = [1] * n
    best = 1
    for u in reversed(order):
        lengths = sorted((chain[c] for c in children[u] if s[c] != s[u] or not letters),
                         reverse=True) + [0, 0]
        chain[u] = 1 + lengths[0]
        best = max(best, 1 + lengths[0] + (lengths[1] if bend else 0))
    return best


def lc2246_downward_only(parent: list[int], s: str) -> int:
    """Only paths going down from a node; forgets paths that bend at their top node."""
    return _letter_chains(parent, s, bend=False, letters=True)


def lc2246_ignores_letters(parent: list[int], s: str) -> int:
    """The tree's longest path, forgetting the different-letters rule."""
    return _letter_chains(parent, s, bend=True, letters=False)


PROBLEM = register(
    Problem(
        id="lc2246",
        title="Longest path in a tree where neighbours carry different letters",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="longestPath",
        arg_names=("parent", "s"),
        concept="parent-child relations",
        difficulty="hard",
        directed=False,
        input_contract="parent array of a tree on 0..n-1 rooted at 0 (parent[0] = -1); "
        "len(s) == n, lowercase letters",
        reference=longest_path,
        checker=exact,
        build_case=build_case,
        mutants={
            "downward only": lc2246_downward_only,
            "ignores letters": lc2246_ignores_letters,
        },
        published_cells=cells(
            "dense/dense planar/connected planar/disconnected planar/cyclic planar/acyclic "
            "sparse/connected sparse/disconnected sparse/cyclic"
        ),
        input_graph=lambda a: parent_tree(a["parent"]),
        in_contract=in_contract,
        published_truth=published_truth,
        field_map={"graphs": "parent", "s": "s"},
        label_field="label",
        skipped_cells=acyclic_only_skips(forest_ok=False),
        label_status=(
            "label-wrong: 702 published parent arrays are not trees; their labels consider only "
            "node 0's component"
        ),
        notes="Only the 98 valid trees (all in dense) are in contract; regenerate the rest.",
    )
)
