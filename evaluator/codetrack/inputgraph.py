"""The graph a solution actually receives, rebuilt from a case's arguments.

Why: case builders reshape the drawn graph (plant a judge, keep one arc per node, take a
spanning tree, re-orient to a DAG, lay nodes out on a grid), so the drawn graph's sub-category
and statistics can be false of the input: planting a judge connects a "disconnected" graph. A
case's label and statistics are therefore measured here, on the input, and the generator rejects
a draw whose input does not have its cell's property (see `subcategory_holds`).

Each problem record's `input_graph(args)` gives a NetworkX graph on the input's nodes: a DiGraph
for the directed problems (arcs as the statement reads them), a Graph or MultiGraph for the
undirected ones. The builders here are the shapes many problems share; a problem whose input is
not a graph of the drawn nodes (a grid, a street, a parent array) builds its own in its module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import networkx as nx


def digraph_of(n: int, arcs: Iterable[Sequence[int]], offset: int = 0) -> nx.DiGraph:
    """Nodes `0..n-1` and the arcs, ids shifted down by `offset` (1 for 1-based inputs)."""
    import networkx as nx

    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_edges_from((a[0] - offset, a[1] - offset) for a in arcs)
    return D


def graph_of(n: int, edges: Iterable[Sequence[int]], offset: int = 0, multi: bool = False
             ) -> nx.Graph:
    """Nodes `0..n-1` and the edges (a MultiGraph when repeated edges mean something)."""
    import networkx as nx

    G = nx.MultiGraph() if multi else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((e[0] - offset, e[1] - offset) for e in edges)
    return G


def adjacency_digraph(graph: Sequence[Sequence[int]]) -> nx.DiGraph:
    """`graph[u]` lists the heads of the arcs leaving `u`."""
    return digraph_of(len(graph), ((u, v) for u, heads in enumerate(graph) for v in heads))


def functional_digraph(edges: Sequence[int]) -> nx.DiGraph:
    """`edges[u]` is the head of `u`'s one arc, -1 for none."""
    return digraph_of(len(edges), ((u, v) for u, v in enumerate(edges) if v != -1))


def pairs_digraph(pairs: Sequence[Sequence[int]]) -> nx.DiGraph:
    """Nodes are the ids that occur in some pair (the statement's own definition)."""
    import networkx as nx

    D = nx.DiGraph()
    D.add_edges_from((a, b) for a, b in pairs)
    return nx.convert_node_labels_to_integers(D, ordering="sorted")


def pairs_graph(pairs: Sequence[Sequence[int]]) -> nx.Graph:
    """`pairs_digraph` with unordered pairs."""
    import networkx as nx

    G = nx.Graph()
    G.add_edges_from((a, b) for a, b in pairs)
    return nx.convert_node_labels_to_integers(G, ordering="sorted")


def components(G: nx.Graph) -> int:
    import networkx as nx

    if G.number_of_nodes() == 0:
        return 0
    return (nx.number_weakly_connected_components(G) if G.is_directed()
            else nx.number_connected_components(G))


def subcategory_holds(subcategory: str, G: nx.Graph) -> bool:
    """Whether the input graph has the property its sub-category names."""
    from evaluator.codetrack.graphgen import has_cycle

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
    from evaluator.codetrack.graphgen import has_cycle

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
