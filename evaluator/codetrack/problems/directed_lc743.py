"""lc743: how long until a signal sent from one node reaches every node?"""

from __future__ import annotations

import heapq
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    TYPING_IMPORT,
    as_digraph,
    is_int,
    pairs_in_range,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
A network has `n` nodes numbered `1..n`. Each entry `[u, v, w]` of `times` is a one-way link
from node `u` to node `v` that a signal needs `w` time units to cross (`w >= 1`).

A signal leaves node `k` at time 0 and spreads along the links. Return the earliest time at
which every one of the `n` nodes has received it, that is, the largest shortest travel time
from `k` to any node. Return `-1` if some node can never receive it. A node that appears in no
link is still one of the `n` nodes; a link from a node to itself never helps.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def networkDelayTime(self, times: List[List[int]], n: int, k: int) -> int:
        ...
"""
)

MAX_WEIGHT = 100


def _arrivals(times: list[list[int]], n: int, k: int) -> dict[int, int]:
    """Dijkstra from k over 1-based ids: the arrival time of every reached node."""
    succ: list[list[tuple[int, int]]] = [[] for _ in range(n + 1)]
    for u, v, w in times:
        succ[u].append((v, w))
    dist: dict[int, int] = {}
    heap = [(0, k)]
    while heap:
        d, u = heapq.heappop(heap)
        if u in dist:
            continue
        dist[u] = d
        for v, w in succ[u]:
            if v not in dist:
                heapq.heappush(heap, (d + w, v))
    return dist


def network_delay_time(times: list[list[int]], n: int, k: int) -> int:
    """Dijkstra from k over 1-based ids; -1 if a node stays unreached."""
    dist = _arrivals(times, n, k)
    return max(dist.values()) if len(dist) == n else -1


def in_contract(args: Mapping[str, Any]) -> bool:
    n, k, times = args["n"], args["k"], args["times"]
    return (
        is_int(n)
        and n >= 1
        and is_int(k)
        and 1 <= k <= n
        and pairs_in_range(n, times, low=1, width=3)
        and all(w >= 1 for _, _, w in times)
    )


def _reach_all(D: nx.DiGraph, rng: random.Random) -> tuple[int, set[tuple[int, int]]]:
    """A start in a source component of D's condensation, and arcs from it to one node of
    each other source component, so the start reaches every node of D. (Arcs between source
    components never close a cycle, so DAGs stay DAGs.)"""
    import networkx as nx

    C = nx.condensation(D)
    sources = [sorted(C.nodes[c]["members"]) for c in C if C.in_degree(c) == 0]
    rng.shuffle(sources)
    k = rng.choice(sources[0])
    return k, {(k, rng.choice(members)) for members in sources[1:]}


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Weights 1..100, ids shifted to 1..n. In three weakly connected cases out of four the
    start reaches every node (a few arcs are added when needed), so answers are not mostly -1.
    Disconnected graphs always give -1; in half of them the start reaches every node that
    appears in a link and only nodes in no link stay unreached (the statement's "a node that
    appears in no link is still one of the n nodes"): if no node is in no link, the node with
    the fewest arcs loses its arcs. Half the inputs that have a directed cycle get one to
    four self-links (the statement allows them; they never help; a self-loop is a cycle, so no
    label changes), one of them on a node the signal reaches last when it reaches all."""
    import networkx as nx

    D = as_digraph(G)
    n = D.number_of_nodes()
    arcs = set(D.edges())
    k = rng.randrange(n)
    if nx.is_weakly_connected(D):
        if rng.random() < 0.75:
            k, extra = _reach_all(D, rng)
            arcs |= extra
    elif rng.random() < 0.5:
        lone = [v for v in D if D.degree(v) == 0]
        if not lone:
            fewest = min(D.degree(v) for v in D)
            v = rng.choice([u for u in D if D.degree(u) == fewest])
            arcs = {(a, b) for a, b in arcs if v not in (a, b)}
        linked = D.edge_subgraph(arcs).copy()
        if linked.number_of_nodes():
            k, extra = _reach_all(linked, rng)
            arcs |= extra
    times = [[u + 1, v + 1, rng.randint(1, MAX_WEIGHT)] for u, v in sorted(arcs)]
    if rng.random() < 0.5 and not nx.is_directed_acyclic_graph(nx.DiGraph(list(arcs))):
        # one self-link on a node the signal reaches last (when all are reached), so a
        # solution that lets self-links count is caught; the others anywhere
        loops = set(rng.sample(range(1, n + 1), rng.randint(1, 3)))
        dist = _arrivals(times, n, k + 1)
        if len(dist) == n:
            latest = max(dist.values())
            loops.add(rng.choice(sorted(v for v, d in dist.items() if d == latest)))
        times += [[v, v, rng.randint(1, MAX_WEIGHT)] for v in sorted(loops)]
    rng.shuffle(times)
    return {"times": times, "n": n, "k": k + 1}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc743_never_minus_one(times: list[list[int]], n: int, k: int) -> int:
    """Returns the latest arrival among the nodes reached, forgetting the unreached ones."""
    return max(_arrivals(times, n, k).values())


def lc743_ignores_lone_nodes(times: list[list[int]], n: int, k: int) -> int:
    """Counts only the nodes that appear in some link (and k): a node in no link is never
    waited for."""
    dist = _arrivals(times, n, k)
    seen = {k} | {x for u, v, _ in times for x in (u, v)}
    return max(dist.values()) if seen <= dist.keys() else -1


def lc743_crosses_self_links(times: list[list[int]], n: int, k: int) -> int:
    """Waits for the signal to cross every self-link of a reached node too, as if a link
    from a node to itself had to be traversed."""
    dist = _arrivals(times, n, k)
    if len(dist) != n:
        return -1
    return max([*dist.values(), *(dist[u] + w for u, v, w in times if u == v and u in dist)])


def lc743_two_way_links(times: list[list[int]], n: int, k: int) -> int:
    """Reads every link as two-way."""
    dist = _arrivals(times + [[v, u, w] for u, v, w in times], n, k)
    return max(dist.values()) if len(dist) == n else -1


PROBLEM = register(
    Problem(
        id="lc743",
        title="Time for a signal to reach every node",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="networkDelayTime",
        arg_names=("times", "n", "k"),
        concept="shortest path",
        difficulty="medium",
        directed=True,
        input_contract="ids 1..n (1-based); 1 <= k <= n; weights w >= 1; self-links allowed",
        reference=network_delay_time,
        checker=exact,
        build_case=build_case,
        mutants={
            "never -1": lc743_never_minus_one,
            "two-way links": lc743_two_way_links,
            "ignores nodes in no link": lc743_ignores_lone_nodes,
            "crosses self-links": lc743_crosses_self_links,
        },
        published_cells=cells(
            "planar/connected planar/disconnected planar/cyclic sparse/connected "
            "sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: digraph_of(a["n"], ((u, v) for u, v, _ in a["times"]), offset=1),
        in_contract=in_contract,
        field_map={"graphs": "times", "n": "n", "k": "k"},
        label_status="consistent",
        notes=(
            "Published labels agree 700/700 but 71 % are -1 (planar/disconnected, "
            "sparse/connected, sparse/disconnected, sparse/acyclic are constant -1); only the "
            "*/cyclic cells are informative. Generated cases prefer a start that reaches all; "
            "half the disconnected ones are -1 only through nodes in no link, and half the "
            "cyclic inputs carry self-links, one of them on a node reached last."
        ),
    )
)
