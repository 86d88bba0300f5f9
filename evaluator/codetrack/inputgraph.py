"""The graph a solution actually receives, rebuilt from a case's arguments.

Why: case builders reshape the drawn graph (plant a judge, keep one arc per node, take a
spanning tree, re-orient to a DAG, lay nodes out on a grid), so the drawn graph's sub-category
and statistics can be false of the input: planting a judge connects a "disconnected" graph. A
case's label and statistics are therefore measured here, on the input, and the generator rejects
a draw whose input does not have its cell's property (see `subcategory_holds`).

`input_graph(problem_id, args)` gives a NetworkX graph on the input's nodes: a DiGraph for the
directed problems (arcs as the statement reads them), a Graph or MultiGraph for the undirected
ones. Problems whose input is not a graph of the drawn nodes say what graph they measure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import networkx as nx


def _digraph(n: int, arcs: Iterable[Sequence[int]], offset: int = 0) -> nx.DiGraph:
    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_edges_from((a[0] - offset, a[1] - offset) for a in arcs)
    return D


def _graph(n: int, edges: Iterable[Sequence[int]], offset: int = 0, multi: bool = False
           ) -> nx.Graph:
    G = nx.MultiGraph() if multi else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((e[0] - offset, e[1] - offset) for e in edges)
    return G


def _adjacency(graph: Sequence[Sequence[int]]) -> nx.DiGraph:
    return _digraph(len(graph), ((u, v) for u, heads in enumerate(graph) for v in heads))


def _functional(edges: Sequence[int]) -> nx.DiGraph:
    return _digraph(len(edges), ((u, v) for u, v in enumerate(edges) if v != -1))


def _pairs_digraph(pairs: Sequence[Sequence[int]]) -> nx.DiGraph:
    """Nodes are the ids that occur in some pair (the statement's own definition)."""
    D = nx.DiGraph()
    D.add_edges_from((a, b) for a, b in pairs)
    return nx.convert_node_labels_to_integers(D, ordering="sorted")


def _pairs_graph(pairs: Sequence[Sequence[int]]) -> nx.Graph:
    G = nx.Graph()
    G.add_edges_from((a, b) for a, b in pairs)
    return nx.convert_node_labels_to_integers(G, ordering="sorted")


def _one_or_zero_based(n: int, edges: Sequence[Sequence[int]]) -> int:
    ids = [x for e in edges for x in e]
    return 1 if ids and min(ids) >= 1 and max(ids) == n else 0


def _parent_tree(parent: Sequence[int]) -> nx.Graph:
    return _graph(len(parent), ((p, u) for u, p in enumerate(parent) if p >= 0))


def _grid_arcs(grid: Sequence[Sequence[int]]) -> nx.DiGraph:
    """lc2328: one node per cell, an arc from each cell to every side neighbour holding a
    larger value (the moves of a strictly increasing path)."""
    rows, cols = len(grid), len(grid[0])
    D = nx.DiGraph()
    D.add_nodes_from(range(rows * cols))
    for r in range(rows):
        for c in range(cols):
            for dr, dc in ((0, 1), (1, 0)):
                rr, cc = r + dr, c + dc
                if rr < rows and cc < cols and grid[r][c] != grid[rr][cc]:
                    a, b = r * cols + c, rr * cols + cc
                    D.add_edge(*((a, b) if grid[r][c] < grid[rr][cc] else (b, a)))
    return D


def _street(n: int, x: int, y: int) -> nx.Graph:
    """lc3017: houses 1..n on a line plus the road x - y, as a simple graph (x == y adds
    nothing and a road beside an existing one, |x - y| = 1, changes no distance), so the
    street has a cycle exactly when |x - y| >= 2."""
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((i, i + 1) for i in range(n - 1))
    if abs(x - y) >= 2:
        G.add_edge(x - 1, y - 1)
    return G


Builder = Callable[[Mapping[str, Any]], nx.Graph]

INPUT_GRAPHS: dict[str, Builder] = {
    # directed: arcs as the statement reads them
    "lc207": lambda a: _digraph(a["numCourses"], ((b, c) for c, b in a["prerequisites"])),
    "lc210": lambda a: _digraph(a["numCourses"], ((b, c) for c, b in a["prerequisites"])),
    "lc743": lambda a: _digraph(a["n"], ((u, v) for u, v, _ in a["times"]), offset=1),
    "lc797": lambda a: _adjacency(a["graph"]),
    "lc802": lambda a: _adjacency(a["graph"]),
    "lc851": lambda a: _digraph(len(a["quiet"]), a["richer"]),
    "lc997": lambda a: _digraph(a["n"], a["trust"]),
    "lc1462": lambda a: _digraph(a["numCourses"], a["prerequisites"]),
    "lc1466": lambda a: _digraph(a["n"], a["connections"]),
    "lc1557": lambda a: _digraph(a["n"], a["edges"]),
    "lc1719": lambda a: _pairs_graph(a["pairs"]),  # pairs are unordered (the statement)
    "lc2050": lambda a: _digraph(a["n"], a["relations"], offset=1),
    "lc2097": lambda a: _pairs_digraph(a["pairs"]),
    "lc2192": lambda a: _digraph(a["n"], a["edges"]),
    "lc2328": lambda a: _grid_arcs(a["grid"]),
    "lc2360": lambda a: _functional(a["edges"]),
    "lc2374": lambda a: _functional(a["edges"]),
    "lc2858": lambda a: _digraph(a["n"], a["edges"]),
    "lc2876": lambda a: _functional(a["edges"]),
    "lc2924": lambda a: _digraph(a["n"], a["edges"]),
    # undirected
    "lc1192": lambda a: _graph(a["n"], a["connections"]),
    "lc1319": lambda a: _graph(a["n"], a["connections"]),
    "lc1615": lambda a: _graph(a["n"], a["roads"]),
    "lc1761": lambda a: _graph(a["n"], a["edges"], _one_or_zero_based(a["n"], a["edges"])),
    "lc1782": lambda a: _graph(a["n"], a["edges"], multi=True),
    "lc1971": lambda a: _graph(a["n"], a["edges"], multi=True),
    "lc2242": lambda a: _graph(len(a["scores"]), a["edges"]),
    "lc2246": lambda a: _parent_tree(a["parent"]),
    "lc2285": lambda a: _graph(a["n"], a["roads"]),
    "lc2316": lambda a: _graph(a["n"], a["edges"]),
    "lc2368": lambda a: _graph(a["n"], a["edges"]),
    "lc2421": lambda a: _graph(len(a["vals"]), a["edges"]),
    "lc2467": lambda a: _graph(len(a["amount"]), a["edges"]),
    "lc2477": lambda a: _graph(len(a["roads"]) + 1, a["roads"]),
    "lc2493": lambda a: _graph(a["n"], a["edges"]),
    "lc2508": lambda a: _graph(a["n"], a["edges"]),
    "lc2603": lambda a: _graph(len(a["coins"]), a["edges"]),
    "lc2646": lambda a: _graph(a["n"], a["edges"]),
    "lc2685": lambda a: _graph(a["n"], a["edges"], multi=True),
    "lc3017": lambda a: _street(a["n"], a["x"], a["y"]),
}


def input_graph(problem_id: str, args: Mapping[str, Any]) -> nx.Graph:
    """The graph of a case's input (module docstring)."""
    try:
        build = INPUT_GRAPHS[problem_id]
    except KeyError:
        raise KeyError(f"{problem_id} has no input-graph reader; add one to "
                       "evaluator/codetrack/inputgraph.py") from None
    return build(args)


def components(G: nx.Graph) -> int:
    if G.number_of_nodes() == 0:
        return 0
    return (nx.number_weakly_connected_components(G) if G.is_directed()
            else nx.number_connected_components(G))


def has_cycle(G: nx.Graph) -> bool:
    """A directed cycle for digraphs; any cycle for undirected graphs, where a self-loop and a
    repeated edge (a multigraph's two parallel edges) are cycles too."""
    if G.is_directed():
        return not nx.is_directed_acyclic_graph(G)
    if nx.number_of_selfloops(G):
        return True
    if G.is_multigraph() and G.number_of_edges() != nx.Graph(G).number_of_edges():
        return True
    return not nx.is_forest(nx.Graph(G)) if G.number_of_nodes() else False


def subcategory_holds(subcategory: str, G: nx.Graph) -> bool:
    """Whether the input graph has the property its sub-category names."""
    if subcategory == "connected":
        return components(G) == 1
    if subcategory == "disconnected":
        return components(G) >= 2
    if subcategory == "cyclic":
        return has_cycle(G)
    if subcategory == "acyclic":
        return not has_cycle(G)
    raise ValueError(f"unknown sub-category {subcategory!r}")


def input_stats(G: nx.Graph) -> dict[str, Any]:
    """`graph_stats`' figures (the paper's Table 4 terms) measured on the input graph, with
    this module's cycle rule (self-loops and repeated edges count)."""
    n = G.number_of_nodes()
    m = G.number_of_edges()
    directed = G.is_directed()
    degrees = [d for _, d in (G.out_degree() if directed else G.degree())]
    mean = sum(degrees) / n if n else 0.0
    variance = sum((d - mean) ** 2 for d in degrees) / n if n else 0.0
    count = components(G)
    pairs = n * (n - 1) if directed else n * (n - 1) / 2
    return {
        "nodes": n,
        "edges": m,
        "avg_degree": m / n if directed else 2 * m / n,
        "degree_variance": variance,
        "density": m / pairs if pairs else 0.0,
        "components": count,
        "connected": count == 1,
        "has_cycle": has_cycle(G),
    }
