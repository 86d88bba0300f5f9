"""lc2328: count the strictly increasing walks in a grid of numbers."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    PLANAR_SPARSE_CELLS,
    TYPING_IMPORT,
    as_digraph,
    is_int,
    skip_subcategories,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
`grid` is a rectangular grid of positive integers with `m` rows and `k` columns. A walk is a
sequence of one or more cells in which each cell shares a side with the previous one (up, down,
left or right) and holds a strictly larger value than the previous one. A single cell is a walk.

Return the number of walks in the grid, modulo `1_000_000_007`. Two walks are different when
their sequences of cells differ.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def countPaths(self, grid: List[List[int]]) -> int:
        ...
"""
)

MOD = 1_000_000_007


def count_paths(grid: list[list[int]]) -> int:
    """Walks ending at a cell = 1 + walks ending at smaller neighbours; cells by value."""
    m, k = len(grid), len(grid[0])
    ends = [[1] * k for _ in range(m)]
    cells = sorted((grid[r][c], r, c) for r in range(m) for c in range(k))
    for value, r, c in cells:
        total = 1
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < m and 0 <= cc < k and grid[rr][cc] < value:
                total += ends[rr][cc]
        ends[r][c] = total % MOD
    return sum(map(sum, ends)) % MOD


def in_contract(args: Mapping[str, Any]) -> bool:
    grid = args["grid"]
    if not isinstance(grid, list) or not grid or not isinstance(grid[0], list) or not grid[0]:
        return False
    width = len(grid[0])
    return all(
        isinstance(row, list) and len(row) == width and all(is_int(x) and x >= 1 for x in row)
        for row in grid
    )


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """Cells are the graph's nodes, laid out in random order on an m x k grid (m*k <= n, m
    between 2 and sqrt(n)). A node's value is 1 + its in-degree + the number of other nodes
    with a directed path to it, so nodes deep in the graph get large values. None when all
    values are equal (complete or regular digraphs), which would make the answer just m*k.
    A disconnected drawn graph cuts the grid's corner off (see below)."""
    import networkx as nx

    D = as_digraph(G)
    n = D.number_of_nodes()
    if n < 4:
        return None
    condensed = nx.condensation(D)
    above = dict.fromkeys(condensed, 0)  # bit c set: component c has a path into this one
    for c in nx.topological_sort(condensed):
        for d in condensed.successors(c):
            above[d] |= above[c] | 1 << c
    size = {c: len(condensed.nodes[c]["members"]) for c in condensed}
    value = [0] * n
    for c in condensed:
        reach = size[c] - 1 + sum(size[a] for a in condensed if above[c] >> a & 1)
        for u in condensed.nodes[c]["members"]:
            value[u] = 1 + D.in_degree(u) + reach
    if len(set(value)) == 1:
        return None
    rows = rng.randint(2, math.isqrt(n))
    cols = n // rows
    nodes = list(range(n))
    rng.shuffle(nodes)
    grid = [[value[nodes[r * cols + c]] for c in range(cols)] for r in range(rows)]
    if not nx.is_weakly_connected(D):
        # a disconnected drawn graph gives a disconnected grid: the corner and its two side
        # neighbours hold one value, and no move joins equal values, so the corner is cut off
        grid[0][0] = grid[1][0] = grid[0][1]
    return {"grid": grid}


# The graph the solution receives (inputgraph.py), as this problem reads its input.


def grid_arcs(grid: Sequence[Sequence[int]]) -> nx.DiGraph:
    """lc2328: one node per cell, an arc from each cell to every side neighbour holding a
    larger value (the moves of a strictly increasing path)."""
    import networkx as nx

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


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


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


PROBLEM = register(
    Problem(
        id="lc2328",
        title="Strictly increasing walks in a grid",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="countPaths",
        arg_names=("grid",),
        concept="path finding",
        difficulty="hard",
        directed=True,
        input_contract="non-empty rectangular grid of positive integers",
        reference=count_paths,
        checker=exact,
        build_case=build_case,
        mutants={
            "right and down only": lc2328_right_and_down_only,
            "<= instead of <": lc2328_equal_steps,
        },
        # no published data (all files >= 4 MiB upstream): the usual directed layout, 8 cells
        published_cells=PLANAR_SPARSE_CELLS,
        input_graph=lambda a: grid_arcs(a["grid"]),
        in_contract=in_contract,
        field_map={"graphs": "grid"},
        skipped_cells={
            **skip_subcategories(
                ["cyclic"], "the solution's graph is the grid's moves towards larger values, "
                "which never form a cycle (sub-categories are measured on that graph)"),
            **{f"{cat}/connected": "every node has the same in-degree and reaches every other "
               "node, so every cell would hold the same value"
               for cat in ("complete", "regular")},
        },
        label_status="no-data: every upstream file was >= 4 MiB and is not in shared/",
        notes=(
            "The graph of this problem is implicit (grid cells, arcs towards larger values). "
            "Generated grid values come from in-degrees and reachability in the drawn graph."
        ),
    )
)
