"""lc3017: distance histogram of a row of houses with one extra road."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, cells, register
from evaluator.codetrack.problems.undirected_common import TYPING_IMPORT, skip_subcategories

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
Houses numbered `1` to `n` stand in a row; for every `i < n` a two-way road of length 1 joins
house `i` and house `i + 1`. One more two-way road of length 1 joins house `x` and house `y`
(if `x == y` it changes nothing).

Return a list `result` of length `n` where `result[k - 1]` is the number of ordered pairs
`(i, j)` of different houses whose shortest road distance is exactly `k`.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def countOfPairs(self, n: int, x: int, y: int) -> List[int]:
        ...
"""
)

MAX_N = 1000


def count_of_pairs(n: int, x: int, y: int) -> list[int]:
    """A shortest route either ignores the extra road or uses it once, in one of two
    directions; the distance is the minimum of those three. O(n^2), vectorised per row."""
    result = np.zeros(n + 1, dtype=np.int64)
    houses = np.arange(1, n + 1)
    for i in range(1, n):
        j = houses[i:]  # houses after i
        d = np.minimum(
            j - i, np.minimum(abs(i - x) + 1 + np.abs(j - y), abs(i - y) + 1 + np.abs(j - x))
        )
        result += np.bincount(d, minlength=n + 1)[: n + 1]
    return [int(2 * c) for c in result[1:]]


def in_contract(args: Mapping[str, Any]) -> bool:
    """2 <= n <= 1000 and 1 <= x, y <= n."""
    n, x, y = args["n"], args["x"], args["y"]
    if not all(isinstance(v, int) for v in (n, x, y)):
        return False
    return 2 <= n <= MAX_N and 1 <= x <= n and 1 <= y <= n


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """The street is an implicit graph: the drawn graph gives the number of houses, and
    whether it has a cycle decides whether the street has one (the extra road closes a cycle
    exactly when |x - y| >= 2; x == y adds nothing and |x - y| = 1 doubles a road).

    A street without a cycle is a plain row whose answer depends on `n` alone, so its length
    is drawn from N_MIN..MAX_N instead. Why: with the drawn graph's 20..200 houses the 200
    acyclic cases of the paper plan had at most 181 different answers, and one constant
    answered 5 of 900 cases (the published set: 3)."""
    from evaluator.codetrack.graphgen import N_MIN, has_cycle

    n = G.number_of_nodes()
    if not 2 <= n <= MAX_N:
        return None
    cyclic = has_cycle(G)
    if not cyclic:
        n = rng.randint(N_MIN, MAX_N)
    x = rng.randint(1, n)
    if cyclic:
        y = rng.choice([v for v in range(1, n + 1) if abs(v - x) >= 2])
    else:
        y = rng.choice([v for v in (x - 1, x, x + 1) if 1 <= v <= n])
    if rng.random() < 0.5:
        x, y = y, x
    return {"n": n, "x": x, "y": y}


# The graph the solution receives (inputgraph.py), as this problem reads its input.


def street_graph(n: int, x: int, y: int) -> nx.Graph:
    """lc3017: houses 1..n on a line plus the road x - y, as a simple graph (x == y adds
    nothing and a road beside an existing one, |x - y| = 1, changes no distance), so the
    street has a cycle exactly when |x - y| >= 2."""
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((i, i + 1) for i in range(n - 1))
    if abs(x - y) >= 2:
        G.add_edge(x - 1, y - 1)
    return G


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


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


PROBLEM = register(
    Problem(
        id="lc3017",
        title="Distance histogram of a street with one shortcut",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="countOfPairs",
        arg_names=("n", "x", "y"),
        concept="shortest path",
        difficulty="hard",
        directed=False,
        input_contract="2 <= n <= 1000; 1 <= x, y <= n (1-based house numbers)",
        reference=count_of_pairs,
        checker=exact,
        build_case=build_case,
        mutants={
            "assumes x <= y": lc3017_assumes_x_before_y,
            "ignores the shortcut": lc3017_ignores_the_shortcut,
        },
        published_cells=cells(
            "dense/dense planar/connected planar/disconnected planar/cyclic planar/acyclic "
            "sparse/connected sparse/disconnected sparse/cyclic sparse/acyclic"
        ),
        input_graph=lambda a: street_graph(a["n"], a["x"], a["y"]),
        in_contract=in_contract,
        field_map={"n": "n", "x": "x", "y": "y"},
        skipped_cells=skip_subcategories(
            ["disconnected"], "the street joins every house to the next, so it is always "
            "connected"),
        label_status="consistent",
        notes=(
            "No graph is stored; the published categories are just different parameter draws. "
            "Generated: the drawn graph's size is the street's length and its cycle decides "
            "whether the extra road closes one (|x - y| >= 2), so */acyclic streets have "
            "|x - y| <= 1; their length is drawn from 20..1000, since it alone decides their "
            "answer."
        ),
    )
)
