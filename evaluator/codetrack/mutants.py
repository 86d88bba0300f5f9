"""Classic wrong solutions ("mutants") of the code-track problems, to measure how well a case
set tells solutions apart.

Why: a set on which a solution that forgets a rule of the statement still scores 100 % cannot
rank solutions (lc2508's third-node rule was never needed in 1,700 cases). Each mutant is what a
hurried programmer writes: a rule forgotten, an off-by-one, a directed graph read as undirected.
They take the reference's keyword arguments and are run in-process on trusted inputs by
`discrimination.py`; none of them is ever a candidate solution. Every problem has at least
two; where the statement has a special rule (self-pairs, ties, empty or -1 answers, a node
reaching itself, isolated nodes, rounding), one of them forgets it, and the tests check that
some generated case needs it (tests/test_codetrack_discrimination.py).
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from evaluator.codetrack.problems.directed_common import (
    strongly_connected_components,
    topological_order,
)
from evaluator.codetrack.problems.undirected_common import (
    DisjointSets,
    adjacency,
    bfs_tree,
    component_sizes,
)

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


def lc2360_no_cycle_is_zero(edges: list[int]) -> int:
    """Starts the best length at 0, so a graph without a cycle answers 0 instead of -1."""
    from evaluator.codetrack.problems.directed_lc2360 import longest_cycle

    return max(longest_cycle(edges), 0)


# ----------------------------------------------------------------------------------- lc2685


def lc2685_skips_isolated(n: int, edges: list[list[int]]) -> int:
    """Builds components from the edge list only: a node without edges is not counted."""
    from evaluator.codetrack.problems.undirected_lc2685 import count_complete_components

    touched = {x for e in edges for x in e if e[0] != e[1]}
    return count_complete_components(n, edges) - (n - len(touched))


# ------------------------------------------------------------------------------------ lc743


def _delays(times: list[list[int]], n: int, k: int) -> dict[int, int]:
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


def lc743_never_minus_one(times: list[list[int]], n: int, k: int) -> int:
    """Returns the latest arrival among the nodes reached, forgetting the unreached ones."""
    return max(_delays(times, n, k).values())


def lc743_ignores_lone_nodes(times: list[list[int]], n: int, k: int) -> int:
    """Counts only the nodes that appear in some link (and k): a node in no link is never
    waited for."""
    dist = _delays(times, n, k)
    seen = {k} | {x for u, v, _ in times for x in (u, v)}
    return max(dist.values()) if seen <= dist.keys() else -1


def lc743_crosses_self_links(times: list[list[int]], n: int, k: int) -> int:
    """Waits for the signal to cross every self-link of a reached node too, as if a link
    from a node to itself had to be traversed."""
    dist = _delays(times, n, k)
    if len(dist) != n:
        return -1
    return max([*dist.values(), *(dist[u] + w for u, v, w in times if u == v and u in dist)])


def lc743_two_way_links(times: list[list[int]], n: int, k: int) -> int:
    """Reads every link as two-way."""
    dist = _delays(times + [[v, u, w] for u, v, w in times], n, k)
    return max(dist.values()) if len(dist) == n else -1


# ------------------------------------------------------------------------------------ lc797


def lc797_first_path_only(graph: list[list[int]]) -> list[list[int]]:
    """Stops at the first path found (an existence search), returning it alone."""
    n = len(graph)
    stack, seen = [[0]], {0}
    while stack:
        path = stack.pop()
        if path[-1] == n - 1:
            return [path]
        for v in graph[path[-1]]:
            if v not in seen:
                seen.add(v)
                stack.append([*path, v])
    return []


def lc797_shared_visited(graph: list[list[int]]) -> list[list[int]]:
    """One visited set for the whole search: a node is expanded on the first path through it
    only, so paths sharing a middle node are lost."""
    n = len(graph)
    paths: list[list[int]] = []
    seen = {0}

    def walk(path: list[int]) -> None:
        for v in graph[path[-1]]:
            if v == n - 1:
                paths.append([*path, v])
            elif v not in seen:
                seen.add(v)
                walk([*path, v])

    if n == 1:
        return [[0]]
    walk([0])
    return paths


# ------------------------------------------------------------------------------------ lc802


def lc802_ignores_self_loops(graph: list[list[int]]) -> list[int]:
    """Drops a node's arcs to itself as noise, although a node listing itself is a cycle."""
    from evaluator.codetrack.problems.directed_lc802 import eventual_safe_nodes

    return eventual_safe_nodes([[v for v in heads if v != u] for u, heads in enumerate(graph)])


def lc802_cycle_members_only(graph: list[list[int]]) -> list[int]:
    """Calls unsafe only the nodes on a cycle, not the nodes that can walk into one."""
    n = len(graph)
    comps = strongly_connected_components(n, graph)
    on_cycle = set()
    for members in comps:
        if len(members) > 1 or members[0] in graph[members[0]]:
            on_cycle.update(members)
    return [u for u in range(n) if u not in on_cycle]


# ------------------------------------------------------------------------------------ lc851


def lc851_direct_richer_only(richer: list[list[int]], quiet: list[int]) -> list[int]:
    """Looks only at the people named directly richer than x, not along chains."""
    answer = list(range(len(quiet)))
    for a, b in richer:
        if quiet[a] < quiet[answer[b]]:
            answer[b] = a
    return answer


def lc851_reversed(richer: list[list[int]], quiet: list[int]) -> list[int]:
    """Reads `[a, b]` as "b is richer than a"."""
    from evaluator.codetrack.problems.directed_lc851 import loud_and_rich

    return loud_and_rich([[b, a] for a, b in richer], quiet)


def lc851_forgets_x(richer: list[list[int]], quiet: list[int]) -> list[int]:
    """Looks only at the people richer than x, falling back to x when nobody is: forgets
    that x belongs to the group, so a quieter x loses to the quietest richer person."""
    from evaluator.codetrack.problems.directed_lc851 import loud_and_rich

    n = len(quiet)
    parents: list[list[int]] = [[] for _ in range(n)]
    for a, b in richer:
        parents[b].append(a)
    best = loud_and_rich(richer, quiet)
    out = []
    for x in range(n):
        candidates = [best[a] for a in parents[x]]
        out.append(min(candidates, key=quiet.__getitem__) if candidates else x)
    return out


# ----------------------------------------------------------------------------------- lc1192


def lc1192_leaf_links(n: int, connections: list[list[int]]) -> list[list[int]]:
    """Calls critical only the links to a server with a single link."""
    degree = [0] * n
    for a, b in connections:
        degree[a] += 1
        degree[b] += 1
    return [[a, b] for a, b in connections if degree[a] == 1 or degree[b] == 1]


def lc1192_parent_link_not_skipped(n: int, connections: list[list[int]]) -> list[list[int]]:
    """Low-links that also go back through the link to the parent: no link is ever a bridge."""
    adj = adjacency(n, connections)
    disc = [-1] * n
    low = [0] * n
    bridges: list[list[int]] = []
    clock = 0
    for start in range(n):
        if disc[start] != -1:
            continue
        disc[start] = low[start] = clock
        clock += 1
        stack = [(start, -1, 0)]
        while stack:
            u, parent, i = stack[-1]
            if i < len(adj[u]):
                stack[-1] = (u, parent, i + 1)
                v = adj[u][i]
                if disc[v] == -1:
                    disc[v] = low[v] = clock
                    clock += 1
                    stack.append((v, u, 0))
                else:
                    low[u] = min(low[u], disc[v])
            else:
                stack.pop()
                if parent != -1:
                    low[parent] = min(low[parent], low[u])
                    if low[u] > disc[parent]:
                        bridges.append([parent, u])
    return bridges


# ----------------------------------------------------------------------------------- lc1462


def lc1462_self_not_prerequisite(numCourses: int, prerequisites: list[list[int]],
                                 queries: list[list[int]]) -> list[bool]:
    """Answers False for `[u, u]`: a search that only reports nodes it stepped onto."""
    from evaluator.codetrack.problems.directed_lc1462 import check_if_prerequisite

    answers = check_if_prerequisite(numCourses, prerequisites, queries)
    return [a and u != v for a, (u, v) in zip(answers, queries, strict=True)]


def lc1462_direct_only(numCourses: int, prerequisites: list[list[int]],
                       queries: list[list[int]]) -> list[bool]:
    """Looks the pair up among the entries, forgetting chains."""
    arcs = {(a, b) for a, b in prerequisites}
    return [u == v or (u, v) in arcs for u, v in queries]


# ----------------------------------------------------------------------------------- lc1466


def lc1466_counts_the_other_roads(n: int, connections: list[list[int]]) -> int:
    """Gets the orientation wrong: counts the roads already pointing towards city 0."""
    from evaluator.codetrack.problems.directed_lc1466 import min_reorder

    return n - 1 - min_reorder(n, connections)


def lc1466_capital_roads_only(n: int, connections: list[list[int]]) -> int:
    """Flips only the roads that leave city 0 itself."""
    return sum(1 for a, _ in connections if a == 0)


# ----------------------------------------------------------------------------------- lc1557


def lc1557_sinks(n: int, edges: list[list[int]]) -> list[int]:
    """Reads the arcs backwards: returns the nodes without outgoing arcs."""
    has_outgoing = [False] * n
    for a, _ in edges:
        has_outgoing[a] = True
    return [u for u in range(n) if not has_outgoing[u]]


def lc1557_skips_isolated(n: int, edges: list[list[int]]) -> list[int]:
    """Looks only at nodes named in `edges`: a node without arcs, which only it reaches, is
    left out."""
    heads = {b for _, b in edges}
    return sorted({a for a, _ in edges} - heads)


# ----------------------------------------------------------------------------------- lc1615


def lc1615_joining_road_twice(n: int, roads: list[list[int]]) -> int:
    """Adds the two degrees, counting a road between the two cities twice."""
    degree = [0] * n
    for a, b in roads:
        degree[a] += 1
        degree[b] += 1
    top = sorted(degree, reverse=True)
    return top[0] + top[1] if n >= 2 else 0


def lc1615_first_two_cities(n: int, roads: list[list[int]]) -> int:
    """Takes the first two cities by degree and subtracts their road, without trying the other
    cities of the same degree (which may not be joined)."""
    degree = [0] * n
    adjacent = set()
    for a, b in roads:
        degree[a] += 1
        degree[b] += 1
        adjacent.add(frozenset((a, b)))
    if n < 2:
        return 0
    a, b = sorted(range(n), key=lambda v: -degree[v])[:2]
    return degree[a] + degree[b] - (frozenset((a, b)) in adjacent)


# ----------------------------------------------------------------------------------- lc1719


def lc1719_never_two(pairs: list[list[int]]) -> int:
    """Answers 1 whenever a tree exists: forgets that equal degrees let parent and child swap."""
    from evaluator.codetrack.problems.directed_lc1719 import check_ways

    return min(check_ways(pairs), 1)


def lc1719_root_only(pairs: list[list[int]]) -> int:
    """Checks only that some node is paired with every other node (a possible root)."""
    adj: dict[int, set[int]] = {}
    for x, y in pairs:
        adj.setdefault(x, set()).add(y)
        adj.setdefault(y, set()).add(x)
    return int(any(len(near) == len(adj) - 1 for near in adj.values()))


# ----------------------------------------------------------------------------------- lc1761


def lc1761_zero_based(n: int, edges: list[list[int]]) -> int:
    """Indexes arrays of size n by node id, as if ids were always 0..n-1 (id n crashes)."""
    from evaluator.codetrack.problems.undirected_lc1761 import min_trio_degree

    degree = [0] * n
    for u, v in edges:
        degree[u] += 1
        degree[v] += 1
    return min_trio_degree(n, edges)


def lc1761_no_trio_is_zero(n: int, edges: list[list[int]]) -> int:
    """Starts the minimum at 0 instead of reporting -1 when there is no trio."""
    from evaluator.codetrack.problems.undirected_lc1761 import min_trio_degree

    return max(min_trio_degree(n, edges), 0)


# ----------------------------------------------------------------------------------- lc1782


def lc1782_forgets_shared_edges(n: int, edges: list[list[int]], queries: list[int]) -> list[int]:
    """incident(a, b) = deg(a) + deg(b): the edges between a and b are counted twice."""
    degree = [0] * n
    for u, v in edges:
        degree[u] += 1
        degree[v] += 1
    ordered = sorted(degree)
    out = []
    for q in queries:
        total = 0
        for i, d in enumerate(ordered):
            total += n - max(i + 1, bisect_right(ordered, q - d))
        out.append(total)
    return out


def lc1782_dedups_edges(n: int, edges: list[list[int]], queries: list[int]) -> list[int]:
    """Removes repeated edges first, although each copy is a separate edge."""
    from evaluator.codetrack.problems.undirected_lc1782 import count_pairs

    unique = sorted({(min(u, v), max(u, v)) for u, v in edges})
    return count_pairs(n, [list(e) for e in unique], queries)


# ----------------------------------------------------------------------------------- lc2050


def lc2050_id_order(n: int, relations: list[list[int]], time: list[int]) -> int:
    """One pass in id order instead of a topological order: a course's finish uses its
    prerequisites' finishes before they are final."""
    pred: list[list[int]] = [[] for _ in range(n + 1)]
    for p, q in relations:
        pred[q].append(p)
    finish = [0] * (n + 1)
    for u in range(1, n + 1):
        finish[u] = max((finish[p] for p in pred[u]), default=0) + time[u - 1]
    return max(finish)


def lc2050_longest_chain_by_count(n: int, relations: list[list[int]], time: list[int]) -> int:
    """Takes the chain with the most courses and adds up its durations."""
    order = topological_order(n, [(p - 1, q - 1) for p, q in relations]) or list(range(n))
    pred: list[list[int]] = [[] for _ in range(n)]
    for p, q in relations:
        pred[q - 1].append(p - 1)
    best: list[tuple[int, int]] = [(0, 0)] * n  # (courses, months) of the longest chain
    for u in order:
        courses, months = max((best[p] for p in pred[u]), default=(0, 0))
        best[u] = (courses + 1, months + time[u])
    return max(best)[1]


# ----------------------------------------------------------------------------------- lc2097


def lc2097_starts_at_first_pair(pairs: list[list[int]]) -> list[list[int]]:
    """Hierholzer's algorithm from the first pair's start, not from the node with one more
    outgoing than incoming pair."""
    out: dict[int, list[int]] = {}
    for s, e in pairs:
        out.setdefault(s, []).append(e)
    stack, nodes = [pairs[0][0]], []
    while stack:
        heads = out.get(stack[-1])
        if heads:
            stack.append(heads.pop())
        else:
            nodes.append(stack.pop())
    nodes.reverse()
    return [[a, b] for a, b in zip(nodes, nodes[1:], strict=False)]


def lc2097_greedy_walk(pairs: list[list[int]]) -> list[list[int]]:
    """Walks from the right start along unused pairs until stuck, never splicing in the
    detours it skipped."""
    out: dict[int, list[int]] = {}
    balance: Counter[int] = Counter()
    for s, e in pairs:
        out.setdefault(s, []).append(e)
        balance[s] += 1
        balance[e] -= 1
    u = next((v for v, b in balance.items() if b == 1), pairs[0][0])
    walk = []
    while out.get(u):
        v = out[u].pop()
        walk.append([u, v])
        u = v
    return walk


# ----------------------------------------------------------------------------------- lc2192


def lc2192_parents_only(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Lists the direct parents, forgetting longer paths."""
    parents: list[set[int]] = [set() for _ in range(n)]
    for a, b in edges:
        parents[b].add(a)
    return [sorted(p) for p in parents]


def lc2192_descendants(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Gets the arc direction wrong: lists every node's descendants."""
    from evaluator.codetrack.problems.directed_lc2192 import get_ancestors

    return get_ancestors(n, [[b, a] for a, b in edges])


def lc2192_includes_itself(n: int, edges: list[list[int]]) -> list[list[int]]:
    """Lists every node among its own ancestors."""
    from evaluator.codetrack.problems.directed_lc2192 import get_ancestors

    return [sorted([*above, v]) for v, above in enumerate(get_ancestors(n, edges))]


# ----------------------------------------------------------------------------------- lc2242


def _best_quad(scores: list[int], edges: list[list[int]], keep: int, distinct: bool) -> int:
    adj = adjacency(len(scores), edges)
    top = [heapq.nlargest(keep, nbrs, key=scores.__getitem__) for nbrs in adj]
    best = -1
    for b, c in edges:
        for a in top[b]:
            if a == c:
                continue
            for d in top[c]:
                if d != b and (d != a or not distinct):
                    best = max(best, scores[a] + scores[b] + scores[c] + scores[d])
    return best


def lc2242_none_is_zero(scores: list[int], edges: list[list[int]]) -> int:
    """Starts the best value at 0, so a graph without such a choice answers 0, not -1."""
    return max(_best_quad(scores, edges, 3, True), 0)


def lc2242_top_two_neighbours(scores: list[int], edges: list[list[int]]) -> int:
    """Keeps each node's two best neighbours, one too few when both ends collide."""
    return _best_quad(scores, edges, 2, True)


def lc2242_ends_may_coincide(scores: list[int], edges: list[list[int]]) -> int:
    """Forgets that the two ends a and d must differ (a triangle is not a path)."""
    return _best_quad(scores, edges, 3, False)


# ----------------------------------------------------------------------------------- lc2246


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


# ----------------------------------------------------------------------------------- lc2285


def lc2285_values_by_id(n: int, roads: list[list[int]]) -> int:
    """Gives city i the value i + 1 instead of ranking cities by degree."""
    degree = [0] * n
    for a, b in roads:
        degree[a] += 1
        degree[b] += 1
    return sum((i + 1) * d for i, d in enumerate(degree))


def lc2285_descending(n: int, roads: list[list[int]]) -> int:
    """Sorts the degrees the wrong way: the busiest city gets value 1."""
    degree = [0] * n
    for a, b in roads:
        degree[a] += 1
        degree[b] += 1
    return sum(rank * d for rank, d in enumerate(sorted(degree, reverse=True), start=1))


# ----------------------------------------------------------------------------------- lc2328


def _walks(grid: list[list[int]], moves: tuple[tuple[int, int], ...], strict: bool) -> int:
    m, k = len(grid), len(grid[0])
    ends = [[1] * k for _ in range(m)]
    for value, r, c in sorted((grid[r][c], r, c) for r in range(m) for c in range(k)):
        total = 1
        for dr, dc in moves:
            rr, cc = r + dr, c + dc
            if 0 <= rr < m and 0 <= cc < k and (grid[rr][cc] < value or (
                    not strict and grid[rr][cc] == value and (rr, cc) < (r, c))):
                total += ends[rr][cc]
        ends[r][c] = total % 1_000_000_007
    return sum(map(sum, ends)) % 1_000_000_007


def lc2328_right_and_down_only(grid: list[list[int]]) -> int:
    """Considers moves to the right and downwards only."""
    return _walks(grid, ((-1, 0), (0, -1)), strict=True)


def lc2328_equal_steps(grid: list[list[int]]) -> int:
    """Compares with <= instead of <: steps between equal values count as increasing."""
    return _walks(grid, ((1, 0), (-1, 0), (0, 1), (0, -1)), strict=False)


# ----------------------------------------------------------------------------------- lc2368


def _reach_from_zero(n: int, edges: list[list[int]], blocked: set[int],
                     count_blocked: bool) -> int:
    adj = adjacency(n, edges)
    seen = {0}
    stack, count = [0], 1
    while stack:
        for v in adj[stack.pop()]:
            if v in seen:
                continue
            seen.add(v)
            if v in blocked:
                count += count_blocked
                continue
            count += 1
            stack.append(v)
    return count


def lc2368_counts_blocked_neighbours(n: int, edges: list[list[int]],
                                     restricted: list[int]) -> int:
    """Counts a blocked node when it is reached, then stops there."""
    return _reach_from_zero(n, edges, set(restricted), count_blocked=True)


def lc2368_ignores_restricted(n: int, edges: list[list[int]], restricted: list[int]) -> int:
    """Forgets the blocked nodes: the size of node 0's component."""
    return _reach_from_zero(n, edges, set(), count_blocked=False)


# ----------------------------------------------------------------------------------- lc2374


def lc2374_largest_on_ties(edges: list[int]) -> int:
    """Keeps the last node with the highest score instead of the smallest one."""
    score = [0] * len(edges)
    for i, v in enumerate(edges):
        score[v] += i
    best = max(score)
    return max(v for v, s in enumerate(score) if s == best)


def lc2374_in_degree(edges: list[int]) -> int:
    """Counts the arcs into a node instead of adding their indices."""
    score = [0] * len(edges)
    for v in edges:
        score[v] += 1
    return score.index(max(score))


# ----------------------------------------------------------------------------------- lc2421


def _good_paths(vals: list[int], edges: list[list[int]], per_group: Callable[[int], int]) -> int:
    n = len(vals)
    adj = adjacency(n, edges)
    sets = DisjointSets(n)
    total = 0
    for value in sorted(set(vals)):
        group = [u for u in range(n) if vals[u] == value]
        for u in group:
            for w in adj[u]:
                if vals[w] <= value:
                    sets.union(u, w)
        for k in Counter(sets.find(u) for u in group).values():
            total += per_group(k)
    return total


def lc2421_forgets_single_nodes(vals: list[int], edges: list[list[int]]) -> int:
    """Counts the paths with two different ends only: a single node is a good path too."""
    return _good_paths(vals, edges, lambda k: k * (k - 1) // 2)


def lc2421_ordered_pairs(vals: list[int], edges: list[list[int]]) -> int:
    """Counts a path and its reverse as two."""
    return _good_paths(vals, edges, lambda k: k * k)


# ----------------------------------------------------------------------------------- lc2467


def _alice(edges: list[list[int]], bob: int, amount: list[int], halve: bool,
           bob_opens: bool) -> int:
    n = len(amount)
    parent, order = bfs_tree(n, edges, 0)
    path = [bob]
    while parent[path[-1]] != -1:
        path.append(parent[path[-1]])
    bob_time = {node: t for t, node in enumerate(path)} if bob_opens else {}
    degree = [len(a) for a in adjacency(n, edges)]
    depth, total = [0] * n, [0] * n
    best = None
    for u in order:
        if u != 0:
            depth[u] = depth[parent[u]] + 1
        t = bob_time.get(u)
        if t is None or depth[u] < t:
            gain = amount[u]
        elif depth[u] == t:
            gain = amount[u] // 2 if halve else amount[u]
        else:
            gain = 0
        total[u] = gain + (total[parent[u]] if u != 0 else 0)
        if u != 0 and degree[u] == 1 and (best is None or total[u] > best):
            best = total[u]
    return total[0] if best is None else best


def lc2467_no_halving(edges: list[list[int]], bob: int, amount: list[int]) -> int:
    """Forgets the shared gate: arriving together gives Alice the whole amount."""
    return _alice(edges, bob, amount, halve=False, bob_opens=True)


def lc2467_ignores_bob(edges: list[list[int]], bob: int, amount: list[int]) -> int:
    """Forgets Bob: the best root-to-leaf sum of the amounts."""
    return _alice(edges, bob, amount, halve=True, bob_opens=False)


# ----------------------------------------------------------------------------------- lc2477


def _fuel(roads: list[list[int]], cars: Callable[[int], int]) -> int:
    n = len(roads) + 1
    parent, order = bfs_tree(n, roads, 0)
    size = [1] * n
    fuel = 0
    for v in reversed(order):
        if v != 0:
            size[parent[v]] += size[v]
            fuel += cars(size[v])
    return fuel


def lc2477_rounds_down(roads: list[list[int]], seats: int) -> int:
    """size // seats cars on a road instead of rounding up (a half-full car still drives)."""
    return _fuel(roads, lambda size: size // seats)


def lc2477_one_car_per_road(roads: list[list[int]], seats: int) -> int:
    """Assumes one car always suffices: one litre per road."""
    return len(roads)


# ----------------------------------------------------------------------------------- lc2603


def _coin_walk(coins: list[int], edges: list[list[int]], prune_empty: bool, layers: int) -> int:
    n = len(coins)
    adj = adjacency(n, edges)
    degree = [len(a) for a in adj]
    removed = [False] * n
    left = len(edges)

    def remove(u: int) -> list[int]:
        nonlocal left
        removed[u] = True
        freed = []
        for v in adj[u]:
            if not removed[v]:
                left -= 1
                degree[v] -= 1
                if degree[v] == 1:
                    freed.append(v)
        return freed

    queue = deque(u for u in range(n) if degree[u] == 1 and coins[u] == 0) if prune_empty \
        else deque()
    while queue:
        u = queue.popleft()
        if not removed[u] and degree[u] == 1:
            queue.extend(v for v in remove(u) if coins[v] == 0)
    for _ in range(layers):
        for u in [u for u in range(n) if not removed[u] and degree[u] == 1]:
            if degree[u] == 1:
                remove(u)
    return 2 * max(left, 0)


def lc2603_reach_one(coins: list[int], edges: list[list[int]]) -> int:
    """Collects coins at distance 1 only: strips one leaf layer instead of two."""
    return _coin_walk(coins, edges, prune_empty=True, layers=1)


def lc2603_keeps_empty_branches(coins: list[int], edges: list[list[int]]) -> int:
    """Strips two leaf layers without first pruning the branches that hold no coin."""
    return _coin_walk(coins, edges, prune_empty=False, layers=2)


# ----------------------------------------------------------------------------------- lc2646


def _trip_cost(n: int, edges: list[list[int]], price: list[int], trips: list[list[int]],
               halved: Callable[[int], int]) -> int:
    parent, order = bfs_tree(n, edges, 0)
    depth = [0] * n
    for u in order[1:]:
        depth[u] = depth[parent[u]] + 1
    uses = [0] * n
    for s, t in trips:
        while depth[s] > depth[t]:
            uses[s] += 1
            s = parent[s]
        while depth[t] > depth[s]:
            uses[t] += 1
            t = parent[t]
        while s != t:
            uses[s] += 1
            uses[t] += 1
            s, t = parent[s], parent[t]
        uses[s] += 1
    full = [uses[u] * price[u] for u in range(n)]
    half = [uses[u] * halved(price[u]) for u in range(n)]
    for u in reversed(order[1:]):
        p = parent[u]
        full[p] += min(full[u], half[u])
        half[p] += full[u]
    return min(full[0], half[0])


def lc2646_rounds_down(n: int, edges: list[list[int]], price: list[int],
                       trips: list[list[int]]) -> int:
    """Halves prices rounding down (p // 2) instead of up."""
    return _trip_cost(n, edges, price, trips, lambda p: p // 2)


def lc2646_no_halving(n: int, edges: list[list[int]], price: list[int],
                      trips: list[list[int]]) -> int:
    """Forgets the halving: the plain cost of the trips."""
    return _trip_cost(n, edges, price, trips, lambda p: p)


# ----------------------------------------------------------------------------------- lc2858


def lc2858_counts_the_other_arcs(n: int, edges: list[list[int]]) -> list[int]:
    """Gets the orientation wrong: counts the arcs that already point away from the node."""
    from evaluator.codetrack.problems.directed_lc2858 import min_edge_reversals

    return [n - 1 - a for a in min_edge_reversals(n, edges)]


def lc2858_root_zero_everywhere(n: int, edges: list[list[int]]) -> list[int]:
    """Computes node 0's count and never reroots."""
    from evaluator.codetrack.problems.directed_lc2858 import min_edge_reversals

    return [min_edge_reversals(n, edges)[0]] * n


# ----------------------------------------------------------------------------------- lc2876


def lc2876_forgets_the_cycle(edges: list[int]) -> list[int]:
    """A node off the cycle counts its way to the cycle but not the cycle's own nodes."""
    from evaluator.codetrack.problems.directed_lc2876 import count_visited_nodes

    visits = count_visited_nodes(edges)
    out = []
    for v, count in enumerate(visits):
        u = v
        for _ in range(count):  # on a cycle exactly when `count` steps lead back to v
            u = edges[u]
        if u == v:
            out.append(count)
            continue
        u = v
        while True:  # first node of the cycle the walk ends in
            w = u
            for _ in range(visits[u]):
                w = edges[w]
            if w == u:
                break
            u = edges[u]
        out.append(count - visits[u])
    return out


def lc2876_counts_steps(edges: list[int]) -> list[int]:
    """Counts the steps taken before a repeat, one less than the nodes visited."""
    from evaluator.codetrack.problems.directed_lc2876 import count_visited_nodes

    return [a - 1 for a in count_visited_nodes(edges)]


# ----------------------------------------------------------------------------------- lc2924


def lc2924_ignores_absent_teams(n: int, edges: list[list[int]]) -> int:
    """Looks only at the teams named in `edges`: a team in no entry is not a champion."""
    named = {x for e in edges for x in e}
    beaten = {b for _, b in edges}
    unbeaten = sorted(named - beaten)
    return unbeaten[0] if len(unbeaten) == 1 else -1


def lc2924_first_unbeaten(n: int, edges: list[list[int]]) -> int:
    """Returns the first unbeaten team even when there are several."""
    beaten = {b for _, b in edges}
    return next((t for t in range(n) if t not in beaten), -1)


# ----------------------------------------------------------------------------------- lc3017


def _street(n: int, x: int, y: int, both_ways: bool) -> list[int]:
    result = [0] * (n + 1)
    for i in range(1, n + 1):
        for j in range(i + 1, n + 1):
            d = min(j - i, abs(i - x) + 1 + abs(j - y))
            if both_ways:
                d = min(d, abs(i - y) + 1 + abs(j - x))
            result[d] += 2
    return result[1:]


def lc3017_assumes_x_before_y(n: int, x: int, y: int) -> list[int]:
    """Uses the shortcut only from x's side, as if x <= y always held."""
    return _street(n, x, y, both_ways=False)


def lc3017_ignores_the_shortcut(n: int, x: int, y: int) -> list[int]:
    """Forgets the extra road: the distances of a plain row of houses."""
    return [2 * (n - k) for k in range(1, n + 1)]


MUTANTS: dict[str, dict[str, Mutant]] = {
    # directed
    "lc207": {"ignores self-pairs": lc207_ignores_self_pairs,
              "undirected cycle": lc207_undirected},
    "lc210": {"reversed pairs": lc210_reversed, "ignores self-pairs": lc210_ignores_self_pairs},
    "lc743": {"never -1": lc743_never_minus_one, "two-way links": lc743_two_way_links,
              "ignores nodes in no link": lc743_ignores_lone_nodes,
              "crosses self-links": lc743_crosses_self_links},
    "lc797": {"first path only": lc797_first_path_only,
              "shared visited set": lc797_shared_visited},
    "lc802": {"ignores self-loops": lc802_ignores_self_loops,
              "cycle members only": lc802_cycle_members_only},
    "lc851": {"direct richer only": lc851_direct_richer_only, "reversed pairs": lc851_reversed,
              "forgets x itself": lc851_forgets_x},
    "lc997": {"in-degree only": lc997_in_degree_only,
              "score == n (off by one)": lc997_net_score_off_by_one},
    "lc1462": {"self is no prerequisite": lc1462_self_not_prerequisite,
               "direct entries only": lc1462_direct_only},
    "lc1466": {"reversed orientation": lc1466_counts_the_other_roads,
               "roads at city 0 only": lc1466_capital_roads_only},
    "lc1557": {"sinks (reversed arcs)": lc1557_sinks,
               "skips isolated nodes": lc1557_skips_isolated},
    "lc1719": {"never 2": lc1719_never_two, "root check only": lc1719_root_only},
    "lc2050": {"id order, not topological": lc2050_id_order,
               "most courses chain": lc2050_longest_chain_by_count},
    "lc2097": {"starts at the first pair": lc2097_starts_at_first_pair,
               "greedy walk, no splicing": lc2097_greedy_walk},
    "lc2192": {"parents only": lc2192_parents_only, "descendants (reversed)": lc2192_descendants,
               "includes itself": lc2192_includes_itself},
    "lc2328": {"right and down only": lc2328_right_and_down_only,
               "<= instead of <": lc2328_equal_steps},
    "lc2360": {"first cycle": lc2360_first_cycle, "no cycle is 0": lc2360_no_cycle_is_zero},
    "lc2374": {"largest on ties": lc2374_largest_on_ties, "in-degree": lc2374_in_degree},
    "lc2858": {"reversed orientation": lc2858_counts_the_other_arcs,
               "node 0's count everywhere": lc2858_root_zero_everywhere},
    "lc2876": {"forgets the cycle": lc2876_forgets_the_cycle,
               "steps (off by one)": lc2876_counts_steps},
    "lc2924": {"ignores absent teams": lc2924_ignores_absent_teams,
               "first unbeaten": lc2924_first_unbeaten},
    # undirected
    "lc1192": {"leaf links only": lc1192_leaf_links,
               "parent link not skipped": lc1192_parent_link_not_skipped},
    "lc1319": {"forgets the cable count": lc1319_forgets_the_cable_count,
               "components (off by one)": lc1319_components},
    "lc1615": {"joining road twice": lc1615_joining_road_twice,
               "first two cities only": lc1615_first_two_cities},
    "lc1761": {"0-based ids": lc1761_zero_based, "no trio is 0": lc1761_no_trio_is_zero},
    "lc1782": {"forgets shared edges": lc1782_forgets_shared_edges,
               "dedups edges": lc1782_dedups_edges},
    "lc1971": {"adjacent only": lc1971_adjacent_only,
               "self is unreachable": lc1971_self_is_unreachable},
    "lc2242": {"top two neighbours": lc2242_top_two_neighbours,
               "ends may coincide": lc2242_ends_may_coincide, "none is 0": lc2242_none_is_zero},
    "lc2246": {"downward only": lc2246_downward_only, "ignores letters": lc2246_ignores_letters},
    "lc2285": {"values by id": lc2285_values_by_id, "descending degrees": lc2285_descending},
    "lc2316": {"ordered pairs": lc2316_ordered_pairs,
               "skips isolated nodes": lc2316_skips_isolated},
    "lc2368": {"counts blocked neighbours": lc2368_counts_blocked_neighbours,
               "ignores restricted": lc2368_ignores_restricted},
    "lc2421": {"forgets single nodes": lc2421_forgets_single_nodes,
               "ordered pairs": lc2421_ordered_pairs},
    "lc2467": {"no halving": lc2467_no_halving, "ignores Bob": lc2467_ignores_bob},
    "lc2477": {"rounds down": lc2477_rounds_down, "one car per road": lc2477_one_car_per_road},
    "lc2493": {"first start only": lc2493_first_start_only,
               "ignores odd cycles": lc2493_ignores_odd_cycles},
    "lc2508": {"forgets the third node": lc2508_forgets_third_node,
               "odd count only": lc2508_counts_only},
    "lc2603": {"distance 1 only": lc2603_reach_one,
               "keeps empty branches": lc2603_keeps_empty_branches},
    "lc2646": {"rounds down": lc2646_rounds_down, "no halving": lc2646_no_halving},
    "lc2685": {"counts components": lc2685_counts_components,
               "counts self-loops": lc2685_counts_self_loops,
               "skips isolated nodes": lc2685_skips_isolated},
    "lc3017": {"assumes x <= y": lc3017_assumes_x_before_y,
               "ignores the shortcut": lc3017_ignores_the_shortcut},
}
