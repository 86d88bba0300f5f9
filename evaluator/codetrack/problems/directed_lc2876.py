"""lc2876: how many different nodes a walk from each node visits in a functional graph."""

from __future__ import annotations

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import functional_digraph
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    FUNCTIONAL_GRAPH_CONTRACT,
    TYPING_IMPORT,
    functional_graph_case,
    functional_graph_in_contract,
    functional_graph_skips,
)

STATEMENT = """\
A directed graph has `n = len(edges)` nodes `0..n-1`, and every node has exactly one outgoing
arc: node `i` points to `edges[i]` (`0 <= edges[i] < n`, `edges[i] != i`).

Start at a node and keep following the outgoing arcs until you arrive at a node you have
already visited. For every start node `i`, `answer[i]` is the number of different nodes visited,
counting `i` itself. Return `answer`.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def countVisitedNodes(self, edges: List[int]) -> List[int]:
        ...
"""
)


def count_visited_nodes(edges: list[int]) -> list[int]:
    """Nodes on a cycle visit exactly the cycle; any other node visits one more than its
    successor. Out-of-range entries (-1 in some published cells) end the walk."""
    n = len(edges)
    answer = [0] * n
    state = [0] * n  # 0 new, 1 on the current path, 2 done
    for start in range(n):
        path: list[int] = []
        u = start
        while 0 <= u < n and state[u] == 0:
            state[u] = 1
            path.append(u)
            u = edges[u]
        if 0 <= u < n and state[u] == 1:  # closed a new cycle at u
            cycle_start = path.index(u)
            cycle = path[cycle_start:]
            for v in cycle:
                answer[v] = len(cycle)
                state[v] = 2
            path = path[:cycle_start]
        after = answer[u] if 0 <= u < n else 0
        for v in reversed(path):
            after += 1
            answer[v] = after
            state[v] = 2
    return answer


# The shared functional-graph contract and builder, under the names the problem modules use.
in_contract = functional_graph_in_contract
build_case = functional_graph_case


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc2876_forgets_the_cycle(edges: list[int]) -> list[int]:
    """A node off the cycle counts its way to the cycle but not the cycle's own nodes."""
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
    return [a - 1 for a in count_visited_nodes(edges)]


PROBLEM = register(
    Problem(
        id="lc2876",
        title="Distinct nodes visited from each start",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="countVisitedNodes",
        arg_names=("edges",),
        concept="cycle detection",
        difficulty="hard",
        directed=True,
        input_contract=FUNCTIONAL_GRAPH_CONTRACT,
        reference=count_visited_nodes,
        checker=exact,
        build_case=build_case,
        mutants={
            "forgets the cycle": lc2876_forgets_the_cycle,
            "steps (off by one)": lc2876_counts_steps,
        },
        published_cells=cells(
            "dense/dense planar/disconnected planar/cyclic planar/acyclic sparse/connected "
            "sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: functional_digraph(a["edges"]),
        in_contract=in_contract,
        field_map={"graphs": "edges"},
        skipped_cells=functional_graph_skips(),
        label_status=(
            "label-wrong: 400 cases (planar and sparse disconnected/acyclic) contain -1, "
            "outside the contract, labelled through negative indexing; drop or regenerate"
        ),
        notes="On out-of-contract -1 entries the reference stops the walk (spec reading).",
    )
)
