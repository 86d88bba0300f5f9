"""Helpers shared by the directed problem modules.

Why a shared module: twenty problems turn a generated digraph into the same few input forms
(arc lists, adjacency lists, one-arc-per-node arrays, spanning trees) and need the same few
graph routines (Kahn order, strongly connected components). One implementation means every
problem applies the same rules. Nothing here registers a problem.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import CATEGORIES, cells

if TYPE_CHECKING:
    import networkx as nx

TYPING_IMPORT = "from typing import List\n\n\n"

# The published cells (Problem.published_cells) of the directed problems GraphEval36K drew from
# planar and sparse graphs only: every sub-category of both, or all but planar/connected.
PLANAR_SPARSE_CELLS = cells(
    "planar/connected planar/disconnected planar/cyclic planar/acyclic sparse/connected "
    "sparse/disconnected sparse/cyclic sparse/acyclic"
)
PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED = PLANAR_SPARSE_CELLS[1:]

# Why DAG problems re-orient instead of rejecting: "connected"/"disconnected" graphs of most
# categories (and every regular digraph) contain directed cycles, so rejecting them would leave
# those cells empty. Orienting each edge along a random node order keeps the undirected shape,
# hence the category and the (dis)connectedness, and always yields a DAG.
DAG_CELLS_NOTE = (
    "A drawn graph with a directed cycle is re-oriented along a random node order (same "
    "undirected shape, now a DAG); */cyclic cells are skipped."
)


def as_digraph(G: nx.Graph) -> nx.DiGraph:
    """Copy of `G` as a simple digraph on `0..n-1` (sorted relabelling, self-loops dropped)."""
    import networkx as nx

    if not G.is_directed():
        raise ValueError("directed problems need a directed graph (generate with directed=True)")
    nodes = sorted(G.nodes())
    index = {node: i for i, node in enumerate(nodes)}
    D = nx.DiGraph()
    D.add_nodes_from(range(len(nodes)))
    D.add_edges_from((index[u], index[v]) for u, v in G.edges() if u != v)
    return D


def arc_list(
    arcs: Iterable[tuple[int, int]], rng: random.Random, offset: int = 0, flip: bool = False
) -> list[list[int]]:
    """Arcs as shuffled `[u, v]` lists (`[v, u]` when `flip`), ids shifted by `offset`.

    Shuffling keeps solutions from relying on the generator's edge order.
    """
    out = [[v + offset, u + offset] if flip else [u + offset, v + offset] for u, v in arcs]
    rng.shuffle(out)
    return out


def adjacency_lists(n: int, arcs: Iterable[tuple[int, int]], rng: random.Random) -> list[list]:
    """`graph[u]` = heads of the arcs leaving u, each list in random order."""
    graph: list[list[int]] = [[] for _ in range(n)]
    for u, v in arcs:
        graph[u].append(v)
    for heads in graph:
        rng.shuffle(heads)
    return graph


def orient_by_random_order(D: nx.DiGraph, rng: random.Random) -> nx.DiGraph:
    """The DAG whose arcs follow a random node order, on the same undirected shape as D."""
    import networkx as nx

    rank = list(range(D.number_of_nodes()))
    rng.shuffle(rank)
    H = nx.DiGraph()
    H.add_nodes_from(D.nodes())
    H.add_edges_from((u, v) if rank[u] < rank[v] else (v, u) for u, v in D.edges())
    return H


def dag_view(G: nx.Graph, rng: random.Random) -> nx.DiGraph:
    """G itself when it is a DAG, otherwise its shape re-oriented along a random order."""
    import networkx as nx

    D = as_digraph(G)
    return D if nx.is_directed_acyclic_graph(D) else orient_by_random_order(D, rng)


def spanning_tree_arcs(G: nx.Graph, rng: random.Random) -> list[tuple[int, int]] | None:
    """A random spanning tree of G's undirected shape, each edge keeping an arc direction of G.

    None when G is not weakly connected (no spanning tree exists).
    """
    import networkx as nx

    D = as_digraph(G)
    n = D.number_of_nodes()
    if n == 0 or not nx.is_weakly_connected(D):
        return None
    arcs = sorted(D.edges())
    rng.shuffle(arcs)
    sets = nx.utils.UnionFind(range(n))
    tree = []
    for u, v in arcs:  # Kruskal over a random order; an antiparallel pair offers both
        if sets[u] != sets[v]:
            sets.union(u, v)
            tree.append((u, v))
    return tree


def one_arc_per_node(
    G: nx.Graph, rng: random.Random, *, sinks: str, keep_a_cycle: bool = True
) -> list[int]:
    """`edges[i]` = one out-neighbour of node i, drawn from G's arcs.

    A node without outgoing arcs gets -1 when `sinks == "none"`; with `sinks == "reverse"` it
    gets one of its in-neighbours (a reversed arc), or any other node if it is isolated. With
    `keep_a_cycle`, a directed cycle of G (if any) is kept, so cyclic graphs stay cyclic. Half
    of the weakly connected graphs are made connected inputs (`_point_towards`).
    """
    import networkx as nx

    D = as_digraph(G)
    n = D.number_of_nodes()
    edges = [-1] * n
    for u in range(n):
        heads = sorted(D.successors(u))
        if heads:
            edges[u] = rng.choice(heads)
        elif sinks == "reverse":
            tails = sorted(D.predecessors(u))
            edges[u] = rng.choice(tails) if tails else rng.choice([v for v in range(n) if v != u])
    cycle: list[tuple[int, int]] = []
    if keep_a_cycle and not nx.is_directed_acyclic_graph(D):
        starts = list(range(n))
        rng.shuffle(starts)
        for start in starts:
            try:
                cycle = list(nx.find_cycle(D, source=start))
            except nx.NetworkXNoCycle:
                continue
            for u, v in cycle:
                edges[u] = v
            break
    # Half the weakly connected draws become connected inputs: one arc per node rarely
    # connects a graph, so a "connected" cell would otherwise hardly ever be one.
    if n > 1 and nx.is_weakly_connected(D) and rng.random() < 0.5:
        _point_towards(D, edges, _walk_cycle(D, edges, rng) if cycle else [], sinks, rng)
    return edges


def _walk_cycle(D: nx.DiGraph, edges: list[int], rng: random.Random) -> list[int]:
    """Follow random arcs of D from a random node of a cycle-bearing graph until a node
    repeats; the loop closed (of random length, unlike `find_cycle`'s usual 2-cycles in dense
    graphs) becomes `edges` of its nodes. [] when the walk gets stuck at a sink."""
    u = rng.choice([v for v in sorted(D) if D.out_degree(v)])
    seen: dict[int, int] = {}
    path: list[int] = []
    while u not in seen:
        seen[u] = len(path)
        path.append(u)
        heads = sorted(D.successors(u))
        if not heads:
            return []
        u = rng.choice(heads)
    loop = path[seen[u]:]
    for a, b in zip(loop, loop[1:] + loop[:1], strict=True):
        edges[a] = b
    return loop


def _point_towards(D: nx.DiGraph, edges: list[int], core: list[int], sinks: str,
                   rng: random.Random) -> None:
    """Re-point every node outside `core` (a kept cycle, else one random root) at its parent
    in a breadth-first tree of D's undirected shape grown from the core, so the one-arc-per-
    node graph is weakly connected. A root without a cycle gets -1 (`sinks == "none"`) or
    points at a neighbour, closing a cycle of two."""
    shadow = D.to_undirected(as_view=True)
    roots = core or [rng.randrange(D.number_of_nodes())]
    parent = dict.fromkeys(roots, -1)
    frontier = list(roots)
    while frontier:
        following = []
        for u in frontier:
            around = sorted(shadow.neighbors(u))
            rng.shuffle(around)
            for v in around:
                if v not in parent:
                    parent[v] = u
                    edges[v] = u
                    following.append(v)
        frontier = following
    if not core:
        root = roots[0]
        around = sorted(shadow.neighbors(root))
        edges[root] = -1 if sinks == "none" else rng.choice(around)


# ----------------------------------------------------------------------------- course schedules
# lc207 and lc210 take `numCourses` and `prerequisites` pairs `[a, b]` ("b before a", any
# graph, cycles allowed); they share its contract and case builder here.

COURSE_PAIRS_CONTRACT = "ids in 0..numCourses-1; self-pairs and repeated pairs allowed"


def course_pairs_in_contract(args: Mapping[str, Any]) -> bool:
    """`numCourses >= 1` and every prerequisite pair lies in `0..numCourses-1`."""
    return args["numCourses"] >= 1 and pairs_in_range(args["numCourses"], args["prerequisites"])


def course_pairs_graph(args: Mapping[str, Any]) -> nx.DiGraph:
    """The input graph (Problem.input_graph): a pair `[a, b]` is the arc b -> a."""
    return digraph_of(args["numCourses"], ((b, a) for a, b in args["prerequisites"]))


def course_pairs_case(G: nx.Graph, rng: random.Random, dag_share: float = 0.5,
                      self_pair_share: float = 0.25) -> dict[str, Any] | None:
    """Each arc u -> v of the graph becomes the requirement "u before v", i.e. `[v, u]`.

    Drawn digraphs of most cells have a directed cycle, so `dag_share` of the inputs use the
    DAG view (same shape; the generator drops it where a cyclic cell needs a cycle). A
    self-pair `[a, a]` (a course that requires itself: never feasible) is added to
    `self_pair_share` of the acyclic inputs, where it alone decides the answer, and to one
    other input in twenty; one input in ten repeats a pair. The statement allows both."""
    import networkx as nx

    D = as_digraph(G)
    if rng.random() < dag_share:
        D = dag_view(G, rng)
    pairs = arc_list(D.edges(), rng, flip=True)
    n = D.number_of_nodes()
    if rng.random() < (self_pair_share if nx.is_directed_acyclic_graph(D) else 0.05):
        a = rng.randrange(n)
        pairs.insert(rng.randint(0, len(pairs)), [a, a])
    if pairs and rng.random() < 0.1:
        pairs.insert(rng.randint(0, len(pairs)), list(rng.choice(pairs)))
    return {"numCourses": n, "prerequisites": pairs}


# ----------------------------------------------------------------------------- plain DAG inputs
# lc1557, lc2192 and lc2924 take `n` and the arcs of a DAG on `0..n-1`; they share its contract,
# the plain case builder and the skipped cyclic cells here.

DAG_ARCS_CONTRACT = "arcs of a DAG on 0..n-1"


def dag_arcs_in_contract(args: Mapping[str, Any]) -> bool:
    """`args["n"] >= 1` and `args["edges"]` are pairs on `0..n-1` with no directed cycle."""
    n, edges = args["n"], args["edges"]
    return is_int(n) and n >= 1 and pairs_in_range(n, edges) and is_dag(n, edges)


def dag_arcs_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """`n` and the shuffled arcs of the DAG view of the drawn graph (see DAG_CELLS_NOTE)."""
    D = dag_view(G, rng)
    return {"n": D.number_of_nodes(), "edges": arc_list(D.edges(), rng)}


def dag_only_skips() -> dict[str, str]:
    """Skipped cells of a problem whose input must be a DAG: every */cyclic cell. A fresh dict
    per call so no problem can change another's entries."""
    return skip_subcategories(["cyclic"], "the input must be a DAG")


# ----------------------------------------------------------------------------- functional graphs
# lc2374 and lc2876 take the same input, `edges[i]` = the one successor of node i, so they share
# its contract, case builder and skipped cells here.

FUNCTIONAL_GRAPH_CONTRACT = "edges[i] in 0..n-1, edges[i] != i, n >= 2"


def functional_graph_in_contract(args: Mapping[str, Any]) -> bool:
    """`args["edges"]` is a list of n >= 2 successors, each in `0..n-1` and never the node
    itself (FUNCTIONAL_GRAPH_CONTRACT)."""
    edges = args["edges"]
    if not isinstance(edges, list) or len(edges) < 2:
        return False
    n = len(edges)
    return all(is_int(v) and 0 <= v < n and v != i for i, v in enumerate(edges))


def functional_graph_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Each node keeps one random outgoing arc of the drawn graph; a node without one points
    back along one of its incoming arcs (or anywhere, if isolated)."""
    return {"edges": one_arc_per_node(G, rng, sinks="reverse")}


def functional_graph_skips() -> dict[str, str]:
    """Skipped cells of a functional-graph problem: every node has an outgoing arc, so no input
    is acyclic. A fresh dict per call so no problem can change another's entries."""
    return skip_subcategories(
        ["acyclic"],
        "every node has exactly one outgoing arc, so the input always contains a cycle",
    )


def topological_order(n: int, arcs: Iterable[Sequence[int]]) -> list[int] | None:
    """Kahn's order of the digraph on `0..n-1`, or None if it has a directed cycle."""
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for u, v in arcs:
        succ[u].append(v)
        indeg[v] += 1
    queue = deque(u for u in range(n) if indeg[u] == 0)
    order = []
    while queue:
        u = queue.popleft()
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    return order if len(order) == n else None


def strongly_connected_components(n: int, succ: Sequence[Sequence[int]]) -> list[list[int]]:
    """Tarjan's SCCs (iterative), sinks of the condensation first."""
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    comps: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            u, i = work[-1]
            if i < len(succ[u]):
                work[-1] = (u, i + 1)
                v = succ[u][i]
                if index[v] == -1:
                    index[v] = low[v] = counter
                    counter += 1
                    stack.append(v)
                    on_stack[v] = True
                    work.append((v, 0))
                elif on_stack[v]:
                    low[u] = min(low[u], index[v])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[u])
            if low[u] == index[u]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == u:
                        break
                comps.append(comp)
    return comps


def min_arborescence_cost(n: int, arcs: Iterable[tuple[int, int, int]], root: int) -> int | None:
    """Chu-Liu/Edmonds: the cheapest set of weighted arcs `(u, v, w)` that gives every node of
    `0..n-1` a path from `root`, or None when some node cannot be reached at all.

    Why our own: NetworkX 3.6's `minimum_spanning_arborescence` misses arborescences on some
    inputs (e.g. a directed path with back arcs). The tests check it against brute force.
    """
    inf = float("inf")
    total = 0
    edges = [(u, v, w) for u, v, w in arcs if u != v and v != root]
    while True:
        best_in, pre = [inf] * n, [-1] * n
        for u, v, w in edges:
            if w < best_in[v]:
                best_in[v], pre[v] = w, u
        if any(v != root and best_in[v] == inf for v in range(n)):
            return None
        best_in[root] = 0
        comp, mark, count = [-1] * n, [-1] * n, 0
        for v in range(n):
            total += best_in[v]
            x = v
            while mark[x] != v and comp[x] == -1 and x != root:
                mark[x] = v
                x = pre[x]
            if x != root and comp[x] == -1:  # closed a cycle at x: contract it
                y = pre[x]
                while y != x:
                    comp[y] = count
                    y = pre[y]
                comp[x] = count
                count += 1
        if count == 0:
            return int(total)
        for v in range(n):
            if comp[v] == -1:
                comp[v] = count
                count += 1
        edges = [(comp[u], comp[v], w - best_in[v]) for u, v, w in edges if comp[u] != comp[v]]
        n, root = count, comp[root]


def min_reversals_from(n: int, arcs: Sequence[Sequence[int]], roots: Iterable[int]) -> list:
    """For each root, the fewest arcs to reverse so that the root reaches every node of
    `0..n-1` along directed paths (None when the graph is not weakly connected).

    That is a minimum arborescence from the root where an arc costs 0 as it is and 1 reversed.
    Nodes of one strongly connected component reach each other for free, so the arborescence
    is computed on the condensation (one Edmonds run per component holding a root, on a graph
    usually far smaller than the input): cheap enough for every root of a 200-node graph.
    """
    succ = successor_lists(n, ((u, v) for u, v in arcs if u != v))
    comps = strongly_connected_components(n, succ)
    comp_of = [0] * n
    for i, members in enumerate(comps):
        for v in members:
            comp_of[v] = i
    cheapest: dict[tuple[int, int], int] = {}
    for u, v in arcs:
        a, b = comp_of[u], comp_of[v]
        if a != b:
            cheapest[(a, b)] = 0
            cheapest.setdefault((b, a), 1)
    weighted = [(a, b, w) for (a, b), w in cheapest.items()]
    per_comp: dict[int, int | None] = {}
    out = []
    for root in roots:
        c = comp_of[root]
        if c not in per_comp:
            per_comp[c] = min_arborescence_cost(len(comps), weighted, c)
        out.append(per_comp[c])
    return out


def successor_lists(n: int, arcs: Iterable[Sequence[int]]) -> list[list[int]]:
    succ: list[list[int]] = [[] for _ in range(n)]
    for u, v in arcs:
        succ[u].append(v)
    return succ


# ----------------------------------------------------------------------------- contract checks


def is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def pairs_in_range(n: Any, pairs: Any, low: int = 0, width: int = 2) -> bool:
    """Every item is a list of `width` integers; the first two lie in `low..low+n-1`."""
    if not is_int(n) or n < 0 or not isinstance(pairs, list):
        return False
    return all(
        isinstance(p, list | tuple)
        and len(p) == width
        and all(is_int(x) for x in p)
        and low <= p[0] < low + n
        and low <= p[1] < low + n
        for p in pairs
    )


def is_dag(n: int, arcs: Iterable[Sequence[int]]) -> bool:
    return topological_order(n, arcs) is not None


def is_oriented_tree(n: Any, arcs: Any) -> bool:
    """n-1 arcs on `0..n-1` whose undirected shape is a tree (connected, no cycle)."""
    import networkx as nx

    if not pairs_in_range(n, arcs) or n < 1 or len(arcs) != n - 1:
        return False
    sets = nx.utils.UnionFind(range(n))
    for u, v in arcs:
        if sets[u] == sets[v]:
            return False
        sets.union(u, v)
    return True


def skip_subcategories(subcategories: Iterable[str], reason: str) -> dict[str, str]:
    """`skipped_cells` entries `"<category>/<subcategory>" -> reason` for every category."""
    return {f"{cat}/{sub}": reason for sub in subcategories for cat in CATEGORIES}
