"""Deterministic graph generators for the code track: 8 categories x 4 sub-categories.

Why our own generator: GraphEval36K recorded no seeds, so its cases cannot be regenerated, and
several of its cells do not have the property their name promises. Here every graph comes from
`generate_graph(category, subcategory, directed, n, seed)` with all randomness drawn from one
`random.Random(seed)` (NetworkX generators and NumPy get integer seeds taken from it), so the
same arguments always give the same graph, and the tests check every sub-category property.

Sub-category meanings (for digraphs "connected" means weakly connected and a cycle means a
directed cycle):
- connected: one (weak) component;
- disconnected: at least two (weak) components;
- cyclic: contains a cycle (it may or may not be connected);
- acyclic: a forest / a DAG. Acyclic graphs are generated (weakly) connected, i.e. trees and
  weakly connected DAGs, whenever the category allows it, so tree problems can use them.

Category meanings and how each is built (statistics follow the paper's Table 4 where it gives
them: average degree ~2 for sparse and planar graphs, ~5 for regular ones, Watts-Strogatz k in
[2, n/2] with p in [0.1, 0.3], Barabasi-Albert m in [1, 10], density 0.7 for dense graphs):
- sparse: a random spanning tree plus a few extra edges (undirected ~1.1 n edges; directed
  ~2.5 n arcs, matching the paper's directed sparse graphs);
- planar: a random spanning tree of the Delaunay triangulation of n random points plus a few
  more triangulation edges; every subgraph of a triangulation is planar;
- regular: every node has degree d (undirected, d in 3..6) or in- and out-degree d (directed,
  d in 2..5, an Eulerian orientation of a random 2d-regular graph);
- dense: 70 % of all possible edges; a disconnected dense graph is one dense block plus a few
  small dense blocks; a dense DAG keeps 70 % of the n(n-1)/2 pairs a DAG can have at most;
- complete: every pair joined (both arcs for digraphs). "disconnected" is a disjoint union of
  complete graphs; directed "acyclic" is the transitive tournament (one arc per pair);
- small-world: Watts-Strogatz; digraphs orient each edge;
- erdos-renyi: G(n, p); the undirected acyclic cell is a uniform random labelled tree, which is
  exactly G(n, n-1) conditioned on being a tree; digraphs use the ordered-pair G(n, p) model
  and, for DAGs, the forward pairs of a random order;
- power-law: Barabasi-Albert; m = 1 gives the undirected trees; the directed acyclic cell
  orients every edge from the newer node to the older one (a citation graph).

Every graph is finally relabelled by a random permutation of 0..n-1, so node ids carry no
structure (no "sorted ids are a topological order" shortcut), and stored with sorted nodes and
edges so iteration order is deterministic. Graphs never contain self-loops.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import random
from collections.abc import Callable, Iterable

import networkx as nx
import numpy as np

from evaluator.codetrack.problem import CATEGORIES, SUBCATEGORIES

N_MIN, N_MAX = 20, 200

# (category, subcategory, directed) -> why no graph of that kind is generated. Entries with a
# condition on n say so; `is_possible` applies the condition.
IMPOSSIBLE: dict[tuple[str, str, bool], str] = {
    ("regular", "acyclic", False): (
        "only odd n: a d-regular graph with d >= 2 always has a cycle, so the only non-empty "
        "acyclic regular graphs are perfect matchings (1-regular), which need an even n"
    ),
    ("regular", "acyclic", True): (
        "a DAG has a node with in-degree 0, so no digraph whose in- and out-degrees all equal "
        "d >= 1 is acyclic"
    ),
    ("dense", "acyclic", False): (
        "a forest has at most n-1 edges, i.e. density <= 2/n <= 0.1 for n >= 20, never dense"
    ),
    ("complete", "acyclic", False): "a complete graph on n > 2 nodes contains a triangle",
    ("small-world", "acyclic", False): (
        "a Watts-Strogatz graph has n*floor(k/2) >= n edges, so it always contains a cycle; a "
        "forest has no clustering, the property that defines the category"
    ),
}


def is_possible(category: str, subcategory: str, directed: bool, n: int) -> bool:
    """Whether `generate_graph` returns a graph (not None) for these arguments."""
    key = (category, subcategory, directed)
    if key == ("regular", "acyclic", False):
        return n % 2 == 0
    return key not in IMPOSSIBLE


def case_seed(base_seed: int, problem_id: str, category: str, subcategory: str, index: int) -> int:
    """A stable 63-bit seed per case; sha256 so it is the same across runs and Python versions."""
    text = f"{base_seed}|{problem_id}|{category}|{subcategory}|{index}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def sample_n(seed: int, low: int = N_MIN, high: int = N_MAX) -> int:
    """A node count in [low, high] derived from `seed` (independent of the graph's own draws)."""
    return random.Random(f"n|{seed}").randint(low, high)


def generate_graph(
    category: str, subcategory: str, directed: bool, n: int, seed: int
) -> nx.Graph | nx.DiGraph | None:
    """A graph of the given kind on nodes 0..n-1, or None if the kind cannot exist (IMPOSSIBLE)."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown category {category!r}; choose one of {', '.join(CATEGORIES)}")
    if subcategory not in SUBCATEGORIES:
        raise ValueError(
            f"unknown sub-category {subcategory!r}; choose one of {', '.join(SUBCATEGORIES)}"
        )
    if n < 4:
        raise ValueError(f"n={n} is too small: generators need at least 4 nodes (paper: 20-200)")
    if not is_possible(category, subcategory, directed, n):
        return None
    rng = random.Random(seed)
    build = _BUILDERS[category]
    edges = build(subcategory, directed, n, rng)
    return _finalize(n, edges, directed, rng)


def graph_stats(G: nx.Graph) -> dict[str, object]:
    """Size, degree and structure figures in the paper's Table 4 terms.

    avg_degree follows the paper's formulas (2E/N undirected, E/N directed); for digraphs the
    degree variance is over out-degrees, whose mean is that E/N.
    """
    n = G.number_of_nodes()
    m = G.number_of_edges()
    directed = G.is_directed()
    degrees = [d for _, d in (G.out_degree() if directed else G.degree())]
    mean = sum(degrees) / n if n else 0.0
    variance = sum((d - mean) ** 2 for d in degrees) / n if n else 0.0
    components = (
        nx.number_weakly_connected_components(G) if directed else nx.number_connected_components(G)
    )
    pairs = n * (n - 1) if directed else n * (n - 1) / 2
    return {
        "nodes": n,
        "edges": m,
        "directed": directed,
        "avg_degree": m / n if directed else 2 * m / n,
        "degree_variance": variance,
        "density": m / pairs if pairs else 0.0,
        "components": components,
        "connected": components == 1,
        "has_cycle": has_cycle(G),
    }


def has_cycle(G: nx.Graph) -> bool:
    """A directed cycle for digraphs; any cycle for undirected graphs, where a self-loop and a
    repeated edge (a multigraph's two parallel edges) are cycles too. One definition for the
    generator's statistics and the input-graph checks (`inputgraph`)."""
    if G.is_directed():
        return not nx.is_directed_acyclic_graph(G)
    if nx.number_of_selfloops(G):
        return True
    if G.is_multigraph() and G.number_of_edges() != nx.Graph(G).number_of_edges():
        return True
    return not nx.is_forest(nx.Graph(G)) if G.number_of_nodes() else False


# ---------------------------------------------------------------- shared building blocks

Edges = set[tuple[int, int]]


def _finalize(n: int, edges: Iterable[tuple[int, int]], directed: bool, rng: random.Random):
    """Relabel by a random permutation and store nodes and edges sorted."""
    perm = list(range(n))
    rng.shuffle(perm)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    relabelled = []
    for u, v in edges:
        a, b = perm[u], perm[v]
        if a == b:
            raise AssertionError("generator produced a self-loop")
        relabelled.append((a, b) if directed or a < b else (b, a))
    G.add_edges_from(sorted(set(relabelled)))
    return G


def _key(u: int, v: int) -> tuple[int, int]:
    return (u, v) if u < v else (v, u)


def _split_sizes(n: int, k: int, rng: random.Random, min_size: int, even: bool = False) -> list:
    """k part sizes >= min_size summing to n (all even when `even`)."""
    unit = 2 if even else 1
    units, base = n // unit, -(-min_size // unit)
    spare = units - k * base
    if spare < 0 or (even and n % 2):
        raise ValueError(f"cannot split {n} nodes into {k} parts of >= {min_size}")
    cuts = sorted(rng.randint(0, spare) for _ in range(k - 1))
    extra = [b - a for a, b in zip([0, *cuts], [*cuts, spare], strict=True)]
    return [(base + e) * unit for e in extra]


def _parts(n: int, rng: random.Random, min_size: int, max_parts: int = 4, even: bool = False):
    """Node ranges of a random split into 2..max_parts blocks for disconnected graphs."""
    # With even parts the smallest block is min_size rounded up to even; counting parts with
    # the unrounded size once asked for 3 blocks of >= 7 (really 8) nodes out of 22.
    smallest = -(-min_size // 2) * 2 if even else min_size
    k = rng.randint(2, max(2, min(max_parts, n // smallest)))
    sizes = _split_sizes(n, k, rng, min_size, even)
    start, blocks = 0, []
    for size in sizes:
        blocks.append(list(range(start, start + size)))
        start += size
    return blocks


def _random_tree(nodes: list[int], rng: random.Random) -> Edges:
    """A uniform random labelled tree on `nodes` (Pruefer decoding)."""
    size = len(nodes)
    if size < 2:
        return set()
    if size == 2:
        return {_key(nodes[0], nodes[1])}
    code = [rng.randrange(size) for _ in range(size - 2)]
    degree = [1] * size
    for x in code:
        degree[x] += 1
    leaves = [i for i in range(size) if degree[i] == 1]
    heapq.heapify(leaves)
    edges: Edges = set()
    for x in code:
        leaf = heapq.heappop(leaves)
        edges.add(_key(nodes[leaf], nodes[x]))
        degree[x] -= 1
        if degree[x] == 1:
            heapq.heappush(leaves, x)
    u, v = heapq.heappop(leaves), heapq.heappop(leaves)
    edges.add(_key(nodes[u], nodes[v]))
    return edges


def _add_random_edges(edges: Edges, nodes: list[int], count: int, rng: random.Random) -> Edges:
    """Add up to `count` new undirected edges between random distinct nodes of `nodes`."""
    possible = len(nodes) * (len(nodes) - 1) // 2
    target = min(possible, len(edges) + count)
    while len(edges) < target:
        u, v = rng.sample(nodes, 2)
        edges.add(_key(u, v))
    return edges


def _sample_pairs(nodes: list[int], fraction: float, rng: random.Random, ordered: bool) -> Edges:
    """A uniformly random `fraction` of all (ordered or unordered) pairs of distinct nodes."""
    if ordered:
        pairs = [(u, v) for u in nodes for v in nodes if u != v]
    else:
        pairs = [(u, v) for i, u in enumerate(nodes) for v in nodes[i + 1 :]]
    return set(rng.sample(pairs, round(fraction * len(pairs))))


def _orient_random(edges: Iterable[tuple[int, int]], rng: random.Random) -> Edges:
    return {(u, v) if rng.random() < 0.5 else (v, u) for u, v in sorted(edges)}


def _orient_by_order(edges: Iterable[tuple[int, int]], n: int, rng: random.Random) -> Edges:
    """Orient every edge along a random order of the nodes: always a DAG."""
    rank = list(range(n))
    rng.shuffle(rank)
    return {(u, v) if rank[u] < rank[v] else (v, u) for u, v in edges}


def _ensure_directed_cycle(arcs: Edges, n: int, rng: random.Random) -> Edges:
    """Reorient one undirected cycle of the arcs' shadow if the digraph is acyclic."""
    D = nx.DiGraph(arcs)
    if arcs and not nx.is_directed_acyclic_graph(D):
        return arcs
    shadow = nx.Graph(D.to_undirected())
    starts = list(shadow.nodes)
    rng.shuffle(starts)
    for start in starts:
        try:
            cycle = nx.find_cycle(shadow, source=start)
        except nx.NetworkXNoCycle:
            continue
        for u, v in cycle:
            arcs.discard((v, u))
            arcs.add((u, v))
        return arcs
    # The shadow is a forest: plant a short cycle on random nodes instead.
    ring = rng.sample(range(n), rng.randint(2, min(n, 6)))
    for u, v in zip(ring, ring[1:] + ring[:1], strict=True):
        arcs.add((u, v))
    return arcs


def _connect_by_order(arcs: Edges, n: int, rank: list[int], rng: random.Random) -> Edges:
    """Join the weak components of a DAG with forward arcs (keeps it acyclic)."""
    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_edges_from(arcs)
    comps = [sorted(c) for c in nx.weakly_connected_components(D)]
    comps.sort()
    for a, b in zip(comps, comps[1:], strict=False):
        u, v = rng.choice(a), rng.choice(b)
        arcs.add((u, v) if rank[u] < rank[v] else (v, u))
    return arcs


def _directed_from_shadow(
    sub: str, shadow: Callable[[str], Edges], n: int, rng: random.Random
) -> Edges:
    """Digraph built by orienting an undirected graph of the same category."""
    if sub == "acyclic":
        return _orient_by_order(shadow("connected"), n, rng)
    arcs = _orient_random(shadow(sub), rng)
    if sub == "cyclic":
        arcs = _ensure_directed_cycle(arcs, n, rng)
    return arcs


# ---------------------------------------------------------------- categories


def _sparse(sub: str, directed: bool, n: int, rng: random.Random) -> Edges:
    # Undirected sparse graphs have ~1.1 n edges, directed ones ~2.5 n arcs (paper, Table 4).
    def block(nodes: list[int], extra_lo: float, extra_hi: float) -> Edges:
        count = round(len(nodes) * rng.uniform(extra_lo, extra_hi))
        return _add_random_edges(_random_tree(nodes, rng), nodes, count, rng)

    lo, hi = (0.0, 0.2) if not directed else (0.0, 0.0)
    if sub == "disconnected":
        edges: Edges = set()
        for part in _parts(n, rng, min_size=3):
            edges |= block(part, lo, hi)
    elif sub == "cyclic":
        edges = block(list(range(n)), max(lo, 2 / n), max(hi, 2 / n))
    else:
        edges = block(list(range(n)), lo, hi if sub == "connected" else 0.0)
    if not directed:
        return edges
    # Directed: orient, then add ~1-2 n extra arcs (forward-only for DAGs).
    extra = round(n * rng.uniform(1.0, 2.0))
    if sub == "acyclic":
        rank = list(range(n))
        rng.shuffle(rank)
        arcs = {(u, v) if rank[u] < rank[v] else (v, u) for u, v in edges}
        target = min(n * (n - 1) // 2, len(arcs) + extra)
        while len(arcs) < target:
            u, v = rng.sample(range(n), 2)
            arcs.add((u, v) if rank[u] < rank[v] else (v, u))
        return arcs
    arcs = _orient_random(edges, rng)
    groups = _components_of(edges, n)
    target = len(arcs) + extra
    while len(arcs) < target:
        group = rng.choice(groups)
        if len(group) < 2:
            continue
        u, v = rng.sample(group, 2)
        arcs.add((u, v))
    if sub == "cyclic":
        arcs = _ensure_directed_cycle(arcs, n, rng)
    return arcs


def _components_of(edges: Edges, n: int) -> list[list[int]]:
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    return sorted(sorted(c) for c in nx.connected_components(G))


def _planar_triangulation(n: int, rng: random.Random) -> list[tuple[int, int]]:
    """Edges of the Delaunay triangulation of n random points (a maximal planar graph)."""
    from scipy.spatial import Delaunay

    points = np.random.default_rng(rng.getrandbits(64)).random((n, 2))
    edges: set[tuple[int, int]] = set()
    for a, b, c in Delaunay(points).simplices.tolist():
        edges |= {_key(a, b), _key(b, c), _key(a, c)}
    return sorted(edges)


def _planar_undirected(sub: str, n: int, rng: random.Random) -> Edges:
    tri = _planar_triangulation(n, rng)
    order = list(tri)
    rng.shuffle(order)
    # Kruskal over a random edge order = a random spanning tree of the triangulation.
    T = nx.utils.UnionFind(range(n))
    tree: Edges = set()
    for u, v in order:
        if T[u] != T[v]:
            T.union(u, v)
            tree.add((u, v))
    spare = [e for e in order if e not in tree]
    if sub == "acyclic":
        return tree
    if sub == "disconnected":
        cut = rng.sample(sorted(tree), rng.randint(1, 3))
        edges = tree - set(cut)
        comp = nx.utils.UnionFind(range(n))
        for u, v in edges:
            comp.union(u, v)
        inside = [e for e in spare if comp[e[0]] == comp[e[1]]]
        return edges | set(inside[: round(n * rng.uniform(0.0, 0.15))])
    low = 1 if sub == "cyclic" else 0
    return tree | set(spare[: max(low, round(n * rng.uniform(0.0, 0.15)))])


def _planar(sub: str, directed: bool, n: int, rng: random.Random) -> Edges:
    if not directed:
        return _planar_undirected(sub, n, rng)
    return _directed_from_shadow(sub, lambda s: _planar_undirected(s, n, rng), n, rng)


def _regular_undirected(nodes: list[int], d: int, rng: random.Random, connected: bool) -> Edges:
    size = len(nodes)
    for _ in range(100):
        H = nx.random_regular_graph(d, size, seed=rng.getrandbits(32))
        if not connected or nx.is_connected(H):
            return {_key(nodes[u], nodes[v]) for u, v in H.edges()}
    raise RuntimeError(f"no connected {d}-regular graph on {size} nodes after 100 draws")


def _eulerian_orientation(edges: Edges) -> Edges:
    """Orient each component along an Euler circuit: in-degree = out-degree everywhere."""
    G = nx.Graph(sorted(edges))
    arcs: Edges = set()
    for comp in sorted(nx.connected_components(G), key=min):
        arcs |= set(nx.eulerian_circuit(G.subgraph(comp), source=min(comp)))
    return arcs


def _regular(sub: str, directed: bool, n: int, rng: random.Random) -> Edges:
    if sub == "acyclic":  # undirected only (see IMPOSSIBLE): a perfect matching
        nodes = list(range(n))
        rng.shuffle(nodes)
        return {_key(nodes[i], nodes[i + 1]) for i in range(0, n, 2)}
    # Directed: an Eulerian orientation of a 2d-regular graph has in = out = d.
    d = 2 * rng.randint(2, 5) if directed else rng.randint(3, 6)
    if sub == "disconnected":
        # Two blocks of >= d + 2 nodes must fit.
        while 2 * (d + 2) > n:
            d -= 2
        even = d % 2 == 1
        if even and n % 2:
            d += 1
            even = False
        edges: Edges = set()
        for part in _parts(n, rng, min_size=d + 1 + (d % 2), max_parts=3, even=even):
            edges |= _regular_undirected(part, d, rng, connected=True)
    else:
        if (n * d) % 2:
            d += 1
        edges = _regular_undirected(list(range(n)), d, rng, connected=True)
    return _eulerian_orientation(edges) if directed else edges


DENSITY = 0.7


def _dense(sub: str, directed: bool, n: int, rng: random.Random) -> Edges:
    nodes = list(range(n))
    if sub == "acyclic":  # directed only: 70 % of the forward pairs of a random order
        rank = list(range(n))
        rng.shuffle(rank)
        by_rank = sorted(nodes, key=rank.__getitem__)
        arcs = _sample_pairs(by_rank, DENSITY, rng, ordered=False)
        return _connect_by_order(arcs, n, rank, rng)
    if sub == "disconnected":
        # One dense block with >= 90 % of the nodes plus one or two small dense blocks.
        small = rng.randint(1, max(1, n // 10))
        k = 1 if small < 2 else rng.randint(1, 2)
        sizes = [n - small, *_split_sizes(small, k, rng, 1)]
        edges: Edges = set()
        start = 0
        for size in sizes:
            block = nodes[start : start + size]
            edges |= _sample_pairs(block, DENSITY, rng, ordered=directed)
            start += size
        return edges
    for _ in range(100):
        edges = _sample_pairs(nodes, DENSITY, rng, ordered=directed)
        G = nx.DiGraph(edges) if directed else nx.Graph(edges)
        if G.number_of_nodes() == n and (
            nx.is_weakly_connected(G) if directed else nx.is_connected(G)
        ):
            return edges
    raise RuntimeError(f"no connected dense graph on {n} nodes after 100 draws")


def _complete(sub: str, directed: bool, n: int, rng: random.Random) -> Edges:
    nodes = list(range(n))
    if sub == "acyclic":  # directed only: the transitive tournament
        return {(u, v) for u in nodes for v in nodes if u < v}
    blocks = _parts(n, rng, min_size=3) if sub == "disconnected" else [nodes]
    edges: Edges = set()
    for block in blocks:
        edges |= _sample_pairs(block, 1.0, rng, ordered=directed)
    return edges


def _small_world_undirected(nodes: list[int], rng: random.Random, connected: bool) -> Edges:
    size = len(nodes)
    k = rng.randint(2, max(2, size // 2))
    p = rng.uniform(0.1, 0.3)
    seed = rng.getrandbits(32)
    if connected:
        H = nx.connected_watts_strogatz_graph(size, k, p, tries=1000, seed=seed)
    else:
        H = nx.watts_strogatz_graph(size, k, p, seed=seed)
    return {_key(nodes[u], nodes[v]) for u, v in H.edges()}


def _small_world(sub: str, directed: bool, n: int, rng: random.Random) -> Edges:
    def shadow(s: str) -> Edges:
        if s == "disconnected":
            edges: Edges = set()
            for part in _parts(n, rng, min_size=10, max_parts=3):
                edges |= _small_world_undirected(part, rng, connected=False)
            return edges
        return _small_world_undirected(list(range(n)), rng, connected=s != "cyclic")

    return _directed_from_shadow(sub, shadow, n, rng) if directed else shadow(sub)


def _er_probability(size: int, rng: random.Random) -> float:
    """p in [0.05, 0.2], raised above the connectivity threshold ln(n)/n for small n."""
    low = max(0.05, 1.2 * math.log(size) / size)
    return rng.uniform(low, max(0.2, low + 0.05))


def _gnp(nodes: list[int], p: float, rng: random.Random, directed: bool) -> Edges:
    H = nx.gnp_random_graph(len(nodes), p, seed=rng.getrandbits(32), directed=directed)
    if directed:
        return {(nodes[u], nodes[v]) for u, v in H.edges()}
    return {_key(nodes[u], nodes[v]) for u, v in H.edges()}


def _erdos_renyi(sub: str, directed: bool, n: int, rng: random.Random) -> Edges:
    nodes = list(range(n))
    if sub == "acyclic":
        if not directed:
            return _random_tree(nodes, rng)
        rank = list(range(n))
        rng.shuffle(rank)
        p = _er_probability(n, rng)
        arcs = {
            (u, v) if rank[u] < rank[v] else (v, u) for u, v in _gnp(nodes, p, rng, directed=False)
        }
        return _connect_by_order(arcs, n, rank, rng)
    if sub == "disconnected":
        edges: Edges = set()
        for part in _parts(n, rng, min_size=5, max_parts=3):
            edges |= _gnp(part, _er_probability(len(part), rng), rng, directed)
        return edges
    for _ in range(1000):
        edges = _gnp(nodes, _er_probability(n, rng), rng, directed)
        G = (nx.DiGraph if directed else nx.Graph)()
        G.add_nodes_from(nodes)
        G.add_edges_from(edges)
        ok = (
            has_cycle(G)
            if sub == "cyclic"
            else (nx.is_weakly_connected(G) if directed else nx.is_connected(G))
        )
        if ok:
            return edges
    raise RuntimeError(f"no {sub} Erdos-Renyi graph on {n} nodes after 1000 draws")


def _barabasi_albert(nodes: list[int], m: int, rng: random.Random) -> list[tuple[int, int]]:
    """BA edges as (newer, older) pairs on `nodes`."""
    m = min(m, len(nodes) - 1)
    H = nx.barabasi_albert_graph(len(nodes), m, seed=rng.getrandbits(32))
    return [(nodes[max(u, v)], nodes[min(u, v)]) for u, v in H.edges()]


def _power_law(sub: str, directed: bool, n: int, rng: random.Random) -> Edges:
    nodes = list(range(n))
    if sub == "disconnected":
        pairs: list[tuple[int, int]] = []
        for part in _parts(n, rng, min_size=3, max_parts=3):
            pairs += _barabasi_albert(part, rng.randint(1, 10), rng)
        return _orient_random(pairs, rng) if directed else {_key(u, v) for u, v in pairs}
    if sub == "acyclic":
        if directed:  # citation-style: every arc from the newer node to the older one
            return set(_barabasi_albert(nodes, rng.randint(1, 10), rng))
        return {_key(u, v) for u, v in _barabasi_albert(nodes, 1, rng)}
    m = rng.randint(2 if sub == "cyclic" else 1, 10)
    pairs = _barabasi_albert(nodes, m, rng)
    if not directed:
        return {_key(u, v) for u, v in pairs}
    arcs = _orient_random(pairs, rng)
    return _ensure_directed_cycle(arcs, n, rng) if sub == "cyclic" else arcs


_BUILDERS: dict[str, Callable[[str, bool, int, random.Random], Edges]] = {
    "sparse": _sparse,
    "planar": _planar,
    "regular": _regular,
    "dense": _dense,
    "complete": _complete,
    "small-world": _small_world,
    "erdos-renyi": _erdos_renyi,
    "power-law": _power_law,
}
