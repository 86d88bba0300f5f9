"""Classic wrong solutions ("mutants") of the code-track problems, to measure how well a case
set tells solutions apart.

Why: a set on which a solution that forgets a rule of the statement still scores 100 % cannot
rank solutions (lc2508's third-node rule was never needed in 1,700 cases). Each mutant is what a
hurried programmer writes: a rule forgotten, an off-by-one, a directed graph read as undirected.
They take the reference's keyword arguments and are run in-process on trusted inputs by
`discrimination.py`; none of them is ever a candidate solution.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evaluator.codetrack.problems.directed_common import topological_order
from evaluator.codetrack.problems.undirected_common import DisjointSets, adjacency, component_sizes

Mutant = Callable[..., Any]


def _undirected_cycle(n: int, pairs: list[list[int]]) -> bool:
    sets = DisjointSets(n)
    return any(not sets.union(a, b) for a, b in pairs if a != b)


# ------------------------------------------------------------------------------- lc207 / lc210


def lc207_ignores_self_pairs(numCourses: int, prerequisites: list[list[int]]) -> bool:
    """Drops [a, a] pairs as noise, although a course that requires itself can never start."""
    kept = [(b, a) for a, b in prerequisites if a != b]
    return topological_order(numCourses, kept) is not None


def lc207_undirected(numCourses: int, prerequisites: list[list[int]]) -> bool:
    """Reads the prerequisites as undirected edges: any cycle of the shape means 'cannot'."""
    return not _undirected_cycle(numCourses, prerequisites) and all(
        a != b for a, b in prerequisites)


def lc210_reversed(numCourses: int, prerequisites: list[list[int]]) -> list[int]:
    """Gets the pair orientation wrong: orders `a` before `b` for `[a, b]`."""
    order = topological_order(numCourses, prerequisites)
    return [] if order is None else order


def lc210_ignores_self_pairs(numCourses: int, prerequisites: list[list[int]]) -> list[int]:
    order = topological_order(numCourses, ((b, a) for a, b in prerequisites if a != b))
    return [] if order is None else order


# ------------------------------------------------------------------------------------ lc997


def lc997_in_degree_only(n: int, trust: list[list[int]]) -> int:
    """Checks that everybody trusts the candidate but not that the candidate trusts nobody."""
    trusted = [0] * n
    for _, b in trust:
        trusted[b] += 1
    return next((x for x in range(n) if trusted[x] == n - 1), -1)


def lc997_net_score_off_by_one(n: int, trust: list[list[int]]) -> int:
    """The in-minus-out score, compared with n instead of n - 1."""
    score = [0] * n
    for a, b in trust:
        score[a] -= 1
        score[b] += 1
    return next((x for x in range(n) if score[x] == n), -1)


# ----------------------------------------------------------------------------------- lc1971


def lc1971_adjacent_only(n: int, edges: list[list[int]], source: int, destination: int) -> bool:
    """Answers whether the two ends are joined by one edge, not by a path."""
    return source == destination or any({u, v} == {source, destination} for u, v in edges)


def lc1971_self_is_unreachable(n: int, edges: list[list[int]], source: int,
                               destination: int) -> bool:
    """A search that only reports nodes it stepped onto: a node does not reach itself."""
    if source == destination:
        return False
    sets = DisjointSets(n)
    for u, v in edges:
        sets.union(u, v)
    return sets.find(source) == sets.find(destination)


# --------------------------------------------------------------------------- lc1319 / lc2316


def lc1319_forgets_the_cable_count(n: int, connections: list[list[int]]) -> int:
    """Components minus one, never -1 (forgets that there may be too few cables)."""
    return len(component_sizes(n, connections)) - 1


def lc1319_components(n: int, connections: list[list[int]]) -> int:
    """Off by one: the number of components instead of the moves between them."""
    if len(connections) < n - 1:
        return -1
    return len(component_sizes(n, connections))


def lc2316_ordered_pairs(n: int, edges: list[list[int]]) -> int:
    """Counts ordered pairs (every pair twice)."""
    inside = sum(k * (k - 1) for k in component_sizes(n, edges))
    return n * (n - 1) - inside


def lc2316_skips_isolated(n: int, edges: list[list[int]]) -> int:
    """Builds components from the edge list only: nodes without edges are forgotten."""
    touched = sorted({x for e in edges for x in e})
    index = {v: i for i, v in enumerate(touched)}
    sizes = component_sizes(len(touched), [[index[a], index[b]] for a, b in edges])
    m = len(touched)
    return m * (m - 1) // 2 - sum(k * (k - 1) // 2 for k in sizes)


# ----------------------------------------------------------------------------------- lc2493


def lc2493_first_start_only(n: int, edges: list[list[int]]) -> int:
    """Takes the BFS layering from the smallest node of each component instead of the best
    start node."""
    from evaluator.codetrack.problems.undirected_lc2493 import _eccentricity_layers

    adj = adjacency(n, edges)
    sets = DisjointSets(n)
    for u, v in edges:
        sets.union(u, v)
    total, seen = 0, set()
    for start in range(n):
        root = sets.find(start)
        if root in seen:
            continue
        seen.add(root)
        layers = _eccentricity_layers(adj, start)
        if layers == -1:
            return -1
        total += layers
    return total


def lc2493_ignores_odd_cycles(n: int, edges: list[list[int]]) -> int:
    """Never answers -1: forgets that an odd cycle makes every split impossible."""
    from collections import deque

    adj = adjacency(n, edges)
    sets = DisjointSets(n)
    for u, v in edges:
        sets.union(u, v)
    best: dict[int, int] = {}
    for start in range(n):
        dist = {start: 0}
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        root = sets.find(start)
        best[root] = max(best.get(root, 0), max(dist.values()) + 1)
    return sum(best.values())


# ----------------------------------------------------------------------------------- lc2508


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


# ----------------------------------------------------------------------------------- lc2685


def lc2685_counts_components(n: int, edges: list[list[int]]) -> int:
    """Counts every component, complete or not."""
    return len(component_sizes(n, [e for e in edges if e[0] != e[1]]))


def lc2685_counts_self_loops(n: int, edges: list[list[int]]) -> int:
    """Counts self-loops as edges, so a complete component with a loop looks over-full."""
    sets = DisjointSets(n)
    for a, b in edges:
        sets.union(a, b)
    count = [0] * n
    for a, _ in edges:
        count[sets.find(a)] += 1
    return sum(1 for v in range(n) if sets.find(v) == v
               and count[v] == sets.size[v] * (sets.size[v] - 1) // 2)


# ----------------------------------------------------------------------------------- lc2360


def lc2360_first_cycle(edges: list[int]) -> int:
    """Returns the length of the first cycle found instead of the longest."""
    n = len(edges)
    owner = [-1] * n
    step = [0] * n
    for start in range(n):
        u, t = start, 0
        while 0 <= u < n and owner[u] == -1:
            owner[u], step[u] = start, t
            u, t = edges[u], t + 1
        if 0 <= u < n and owner[u] == start:
            return t - step[u]
    return -1


MUTANTS: dict[str, dict[str, Mutant]] = {
    "lc207": {"ignores self-pairs": lc207_ignores_self_pairs,
              "undirected cycle": lc207_undirected},
    "lc210": {"reversed pairs": lc210_reversed, "ignores self-pairs": lc210_ignores_self_pairs},
    "lc997": {"in-degree only": lc997_in_degree_only,
              "score == n (off by one)": lc997_net_score_off_by_one},
    "lc1319": {"forgets the cable count": lc1319_forgets_the_cable_count,
               "components (off by one)": lc1319_components},
    "lc1971": {"adjacent only": lc1971_adjacent_only,
               "self is unreachable": lc1971_self_is_unreachable},
    "lc2316": {"ordered pairs": lc2316_ordered_pairs,
               "skips isolated nodes": lc2316_skips_isolated},
    "lc2360": {"first cycle": lc2360_first_cycle},
    "lc2493": {"first start only": lc2493_first_start_only,
               "ignores odd cycles": lc2493_ignores_odd_cycles},
    "lc2508": {"forgets the third node": lc2508_forgets_third_node,
               "odd count only": lc2508_counts_only},
    "lc2685": {"counts components": lc2685_counts_components,
               "counts self-loops": lc2685_counts_self_loops},
}
