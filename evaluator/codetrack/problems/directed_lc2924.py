"""lc2924: the unique team that no other team beats."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.inputgraph import digraph_of
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.directed_common import (
    DAG_ARCS_CONTRACT,
    DAG_CELLS_NOTE,
    TYPING_IMPORT,
    arc_list,
    dag_arcs_in_contract,
    dag_only_skips,
    dag_view,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
There are `n` teams with ids `0..n-1`. Each entry `[a, b]` of `edges` says that team `a` is
stronger than team `b`; the entries contain no circular claim (they form a directed acyclic
graph). A team is a champion when no team is stronger than it; a team that appears in no entry
is a champion too.

Return the champion if there is exactly one, otherwise `-1`.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def findChampion(self, n: int, edges: List[List[int]]) -> int:
        ...
"""
)


def find_champion(n: int, edges: list[list[int]]) -> int:
    beaten = [False] * n
    for _, b in edges:
        beaten[b] = True
    unbeaten = [t for t in range(n) if not beaten[t]]
    return unbeaten[0] if len(unbeaten) == 1 else -1


# The shared plain-DAG contract, under the name the problem modules use.
in_contract = dag_arcs_in_contract


LONER_SHARE = 0.3  # cases with a team in no entry (see build_case)


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Arcs of a DAG view. In 30 % of the cases (n > 2) one team loses all its entries: a team
    in no entry is a champion too (the statement's rule), so the answer is -1. Why: generated
    DAGs are weakly connected, so otherwise no case has such a team and a solution that only
    looks at the teams named in `edges` passes them all. In such a case a champion is always
    planted among the named teams (after the loner left: teams only it beat are unbeaten now),
    so that solution answers that champion and fails; 30 % makes a loner case likely in the
    six cases of a --per-cell 3 set (0.7^6: 12 % have none; the per-cell-3 practice set had
    none at 15 %). In 90 % of the other cases one unbeaten team is made stronger than every
    other unbeaten team (arcs between sources keep the graph acyclic), so a champion exists."""
    D = dag_view(G, rng)
    n = D.number_of_nodes()
    loner_case = n > 2 and rng.random() < LONER_SHARE
    if loner_case:
        loner = rng.randrange(n)
        D.remove_edges_from([*D.in_edges(loner), *D.out_edges(loner)])
    arcs = set(D.edges())
    named = {x for arc in arcs for x in arc}
    sources = [u for u in D if D.in_degree(u) == 0 and (u in named or not loner_case)]
    if len(sources) > 1 and (loner_case or rng.random() < 0.9):
        champion = rng.choice(sources)
        arcs |= {(champion, s) for s in sources if s != champion}
    return {"n": n, "edges": arc_list(sorted(arcs), rng)}


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


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


PROBLEM = register(
    Problem(
        id="lc2924",
        title="The unique unbeaten team",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="findChampion",
        arg_names=("n", "edges"),
        concept="parent-child relations",
        difficulty="medium",
        directed=True,
        input_contract=DAG_ARCS_CONTRACT,
        reference=find_champion,
        checker=exact,
        build_case=build_case,
        mutants={
            "ignores absent teams": lc2924_ignores_absent_teams,
            "first unbeaten": lc2924_first_unbeaten,
        },
        published_cells=cells("planar/acyclic sparse/acyclic"),
        input_graph=lambda a: digraph_of(a["n"], a["edges"]),
        in_contract=in_contract,
        field_map={"n": "n", "graphs": "edges"},
        skipped_cells=dag_only_skips(),
        label_status="constant-answer: every published label is -1 (several sources always)",
        notes=DAG_CELLS_NOTE + " 30 % of the cases have a team in no entry (answer -1) and a "
        "unique champion among the named teams; a unique champion is planted in 90 % of the "
        "others.",
    )
)
