"""lc997: find the person trusted by everybody else who trusts nobody."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED,
    TYPING_IMPORT,
    arc_list,
    as_digraph,
    is_int,
    pairs_in_range,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
There are `n` people with ids `0..n-1`. Each entry `[a, b]` of `trust` says that person `a`
trusts person `b` (`a != b`, and no entry repeats).

The judge is a person who trusts nobody and is trusted by every one of the other `n-1` people.
At most one person can be the judge. Return the judge's id, or `-1` if there is no judge.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def findJudge(self, n: int, trust: List[List[int]]) -> int:
        ...
"""
)


def find_judge(n: int, trust: list[list[int]]) -> int:
    """The unique person with no outgoing trust and n-1 distinct trusters, else -1."""
    trusters: list[set[int]] = [set() for _ in range(n)]
    trusts_someone = [False] * n
    for a, b in trust:
        if a != b:
            trusts_someone[a] = True
            trusters[b].add(a)
    for x in range(n):
        if not trusts_someone[x] and len(trusters[x]) == n - 1:
            return x
    return -1


def in_contract(args: Mapping[str, Any]) -> bool:
    n, trust = args["n"], args["trust"]
    return (
        is_int(n)
        and n >= 1
        and pairs_in_range(n, trust)
        and all(a != b for a, b in trust)
        and len({(a, b) for a, b in trust}) == len(trust)
    )


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Starting from the graph's arcs, plant a judge in 50 % of the cases, a candidate trusted
    by everyone who trusts someone in 25 %, a candidate with one truster missing in 10 %; 15 %
    stay as drawn.

    A judge is trusted by everyone, so it would connect a disconnected graph: on one, the
    candidate is planted inside one weak component only (a judge of its component, not of
    everyone), which keeps the input disconnected and the answer -1 as it must be."""
    import networkx as nx

    D = as_digraph(G)
    n = D.number_of_nodes()
    arcs = set(D.edges())
    roll = rng.random()
    if roll < 0.85:
        parts = sorted((sorted(c) for c in nx.weakly_connected_components(D)), key=len)
        people = parts[-1] if len(parts) > 1 and len(parts[-1]) > 1 else list(range(n))
        judge = rng.choice(people)
        arcs = {(a, b) for a, b in arcs if a != judge}
        arcs |= {(a, judge) for a in people if a != judge}
        if roll >= 0.75:  # one truster missing
            arcs.discard((rng.choice([a for a in people if a != judge]), judge))
        elif roll >= 0.5:  # trusted by all, but trusts someone (a cycle: not in acyclic cells)
            arcs.add((judge, rng.choice([x for x in people if x != judge])))
    return {"n": n, "trust": arc_list(sorted(arcs), rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


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


PROBLEM = register(
    Problem(
        id="lc997",
        title="The person everybody trusts",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="findJudge",
        arg_names=("n", "trust"),
        concept="general graph",
        difficulty="medium",
        directed=True,
        input_contract="ids in 0..n-1 (0-based, unlike LeetCode's 1..n); no self-trust, no "
        "repeated pair",
        reference=find_judge,
        checker=exact,
        build_case=build_case,
        mutants={
            "in-degree only": lc997_in_degree_only,
            "score == n (off by one)": lc997_net_score_off_by_one,
        },
        published_cells=PLANAR_SPARSE_CELLS_BUT_PLANAR_CONNECTED,
        input_graph=lambda a: digraph_of(a["n"], a["trust"]),
        in_contract=in_contract,
        field_map={"n": "n", "graphs": "trust"},
        label_status="constant-answer: every published label is -1 (return -1 scores 100 %)",
        notes=(
            "Ids are 0-based as in the data; every published label is the same under both "
            "readings. Generated cases plant a judge (or a near-judge) on top of the drawn "
            "graph, so the answer is not constant."
        ),
    )
)
