"""Small helpers shared by the undirected problem modules.

Why a shared module: twenty problems turn a generated NetworkX graph into the same few input
forms (edge lists, rooted parent arrays) and check the same few contract properties (simple
graph, forest, tree). Keeping those in one place means every problem applies the same rules.
Nothing here registers a problem.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.problem import CATEGORIES, cells

if TYPE_CHECKING:
    import networkx as nx

TYPING_IMPORT = "from typing import List\n\n\n"

# The published cells (Problem.published_cells) shared by the undirected problems GraphEval36K
# drew from every category: sixteen cells, in the dataset's order.
EVERY_CATEGORY_CELLS = cells(
    "complete/connected dense/dense erdos/connected planar/connected planar/disconnected "
    "planar/cyclic planar/acyclic power-law/connected regular/connected regular/disconnected "
    "regular/cyclic small-world/connected sparse/connected sparse/disconnected sparse/cyclic "
    "sparse/acyclic"
)


def relabel(G: nx.Graph) -> nx.Graph:
    """Copy of `G` as a simple undirected graph on `0..n-1`, without self-loops.

    Generated graphs may carry arbitrary hashable node names; problems speak of `0..n-1`.
    """
    import networkx as nx

    try:
        nodes = sorted(G.nodes())
    except TypeError:  # mixed node types: any fixed order will do
        nodes = sorted(G.nodes(), key=repr)
    mapping = {node: i for i, node in enumerate(nodes)}
    H = nx.Graph()
    H.add_nodes_from(range(len(mapping)))
    H.add_edges_from((mapping[u], mapping[v]) for u, v in G.edges() if u != v)
    return H


def edge_list(G: nx.Graph, rng: random.Random, offset: int = 0) -> list[list[int]]:
    """The edges of `G` as `[u, v]` lists, shuffled and randomly oriented.

    Shuffling keeps solutions from relying on the generator's edge order.
    """
    edges = [
        [u + offset, v + offset] if rng.random() < 0.5 else [v + offset, u + offset]
        for u, v in G.edges()
    ]
    rng.shuffle(edges)
    return edges


def adjacency(n: int, edges: Iterable[Sequence[int]]) -> list[list[int]]:
    """Neighbour lists of the undirected graph on `0..n-1` (multi-edges kept, loops once)."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        if u != v:
            adj[v].append(u)
    return adj


def degrees(n: int, edges: Iterable[Sequence[int]]) -> list[int]:
    """Each node's degree: every edge counts at both ends (a self-loop twice, a repeated edge
    each time); an id outside `0..n-1` raises IndexError."""
    degree = [0] * n
    for a, b in edges:
        degree[a] += 1
        degree[b] += 1
    return degree


class DisjointSets:
    """Union-find with path halving and union by size."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))
        self.size = [1] * n

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> bool:
        """Merge the sets of `a` and `b`; False when they were already one set."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]
        return True


def component_sizes(n: int, edges: Iterable[Sequence[int]]) -> list[int]:
    """Sizes of the connected components of the graph on `0..n-1`."""
    sets = DisjointSets(n)
    for u, v in edges:
        sets.union(u, v)
    return [sets.size[x] for x in range(n) if sets.find(x) == x]


def bfs_tree(n: int, edges: Iterable[Sequence[int]], root: int) -> tuple[list[int], list[int]]:
    """(parent, order) of a BFS from `root`; parent[root] = -1, unreached nodes get -2."""
    adj = adjacency(n, edges)
    parent = [-2] * n
    parent[root] = -1
    order = [root]
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if parent[v] == -2:
                parent[v] = u
                order.append(v)
                queue.append(v)
    return parent, order


# ----------------------------------------------------------------------------- contract checks


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def ids_in_range(n: Any, edges: Any, low: int = 0) -> bool:
    """Every edge is a pair of integers (not bools) in `low..low+n-1`."""
    if not _is_int(n) or n < 0 or not isinstance(edges, list):
        return False
    if not all(isinstance(e, list | tuple) and len(e) == 2 for e in edges):
        return False
    ids = [x for e in edges for x in e]
    if not all(type(x) is int for x in ids):
        return False
    return not ids or (min(ids) >= low and max(ids) < low + n)


def is_simple(n: Any, edges: Any) -> bool:
    """Node ids in `0..n-1`, no self-loops and no repeated edge in either orientation."""
    if not ids_in_range(n, edges) or any(u == v for u, v in edges):
        return False
    return len({(u, v) if u < v else (v, u) for u, v in edges}) == len(edges)


def is_forest(n: Any, edges: Any) -> bool:
    """A simple graph on `0..n-1` without cycles."""
    if not is_simple(n, edges):
        return False
    sets = DisjointSets(n)
    return all(sets.union(u, v) for u, v in edges)


def is_tree(n: Any, edges: Any) -> bool:
    """A forest on `0..n-1` with exactly one component (n >= 1)."""
    return n >= 1 and len(edges) == n - 1 and is_forest(n, edges)


def skip_subcategories(subcategories: Iterable[str], reason: str) -> dict[str, str]:
    """`skipped_cells` entries `"<category>/<subcategory>" -> reason` for every category."""
    return {f"{cat}/{sub}": reason for sub in subcategories for cat in CATEGORIES}


# Categories whose generated acyclic graphs are spanning trees (graphgen builds them connected);
# regular/acyclic is a perfect matching and the other three categories have no acyclic cell.
TREE_CATEGORIES = ("sparse", "planar", "erdos-renyi", "power-law")


def acyclic_only_skips(forest_ok: bool) -> dict[str, str]:
    """`skipped_cells` of a problem whose input must be a tree (or a forest, `forest_ok`).

    Only the acyclic cells yield such graphs; connected cells of the tree categories almost
    always contain a cycle, so drawing until one is a tree would only duplicate */acyclic.
    """
    shape = "forest" if forest_ok else "tree"
    skips = skip_subcategories(["cyclic"], f"the input must be a {shape}; these graphs have cycles")
    skips |= skip_subcategories(
        ["connected", "disconnected"],
        f"the input must be a {shape}; graphs of this cell (almost) always have a cycle, "
        f"and the {shape}s come from the acyclic cells",
    )
    if not forest_ok:
        skips |= skip_subcategories(["disconnected"], "the input must be a single tree")
        skips["regular/acyclic"] = "the input must be a single tree; this cell is a matching"
    for cat in CATEGORIES:
        if cat not in TREE_CATEGORIES and cat != "regular":
            skips[f"{cat}/acyclic"] = "the generator has no acyclic graphs of this category"
    return dict(sorted(skips.items()))


# ----------------------------------------------------------------------------- simple-graph inputs
# lc2316, lc2493 and lc2508 take `n` and the `edges` of a simple graph on `0..n-1`; they share
# its contract check and case builder here.

SIMPLE_GRAPH_CONTRACT = "simple undirected graph on 0..n-1, n >= 1"


def simple_graph_in_contract(args: Mapping[str, Any]) -> bool:
    """A simple graph on `0..n-1` (no self-loops, no repeated edges), n >= 1."""
    return args["n"] >= 1 and is_simple(args["n"], args["edges"])


def carve(H: nx.Graph, rng: random.Random, largest: int | None = None) -> list[int]:
    """Cut a breadth-first ball of 1..`largest` (default n/2) nodes off the rest of `H` by
    removing every edge that crosses it; returns the ball. Cycles and forests inside either
    side survive, so cyclic and acyclic inputs usually keep their sub-category."""
    import networkx as nx

    n = H.number_of_nodes()
    if n < 2:
        return []
    size = rng.randint(1, max(1, min(largest or n // 2, n - 1)))
    start = rng.randrange(n)
    ball = [start, *(v for _, v in nx.bfs_edges(H, start))][:size]
    inside = set(ball)
    H.remove_edges_from([(u, v) for u, v in list(H.edges()) if (u in inside) != (v in inside)])
    return ball


def make_bipartite(H: nx.Graph) -> None:
    """Remove every edge inside a breadth-first layer parity class: the BFS forest's edges
    always join the two classes, so connectivity is kept and the graph becomes bipartite."""
    import networkx as nx

    colour: dict[int, int] = {}
    for root in sorted(H.nodes()):
        if root in colour:
            continue
        colour[root] = 0
        for u, v in nx.bfs_edges(H, root):
            colour[v] = 1 - colour[u]
    H.remove_edges_from([(u, v) for u, v in list(H.edges()) if colour[u] == colour[v]])
