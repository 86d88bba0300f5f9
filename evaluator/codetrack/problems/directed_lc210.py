"""lc210: produce an order of all courses that respects every prerequisite."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from evaluator.codetrack.checkers import Verdict
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    COURSE_PAIRS_CONTRACT,
    PLANAR_SPARSE_CELLS,
    TYPING_IMPORT,
    course_pairs_case,
    course_pairs_graph,
    course_pairs_in_contract,
    is_int,
    topological_order,
)

if TYPE_CHECKING:
    import networkx as nx

STATEMENT = """\
There are `numCourses` courses with ids `0..numCourses-1`. Each entry `[a, b]` of
`prerequisites` says that course `b` has to be completed before course `a` may be started.

Return a list that contains every course id exactly once and in which, for every entry
`[a, b]`, course `b` appears before course `a`. If several such lists exist, return any one of
them. If none exists (the requirements are circular, including a course that requires itself),
return an empty list.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def findOrder(self, numCourses: int, prerequisites: List[List[int]]) -> List[int]:
        ...
"""
)


def find_order(numCourses: int, prerequisites: list[list[int]]) -> list[int]:
    """Kahn's algorithm on the arcs b -> a; [] when a cycle blocks some course."""
    order = topological_order(numCourses, ((b, a) for a, b in prerequisites))
    return [] if order is None else order


def check_order(args: Mapping[str, Any], expected: Any, actual: Any) -> Verdict:
    """Validity from the inputs alone: [] iff circular, else a permutation respecting all pairs.

    `expected` is ignored: any valid order is correct, and whether one exists follows from the
    inputs.
    """
    n, pairs = args["numCourses"], args["prerequisites"]
    if not isinstance(actual, list | tuple) or not all(is_int(x) for x in actual):
        return Verdict(False, "expected a list of integer course ids")
    feasible = topological_order(n, ((b, a) for a, b in pairs)) is not None
    if not feasible:
        if len(actual) == 0:
            return Verdict(True)
        return Verdict(False, "the requirements are circular, so the answer must be []")
    if sorted(actual) != list(range(n)):
        return Verdict(False, f"the answer must list each of the {n} course ids exactly once")
    position = {course: i for i, course in enumerate(actual)}
    for a, b in pairs:
        if position[b] > position[a]:
            return Verdict(False, f"course {b} must come before course {a} (pair [{a}, {b}])")
    return Verdict(True)


# The shared course-schedule contract and builder, under the names the problem modules use.
in_contract = course_pairs_in_contract


def build_case(G: nx.Graph, rng: random.Random) -> dict[str, Any] | None:
    """lc207's inputs, but nine in ten drawn graphs become DAGs and one DAG in ten gets a
    self-pair: an impossible schedule's answer is the constant [], so most inputs must be
    feasible for the cases to tell orders apart (the published set: 62.5 % feasible)."""
    return course_pairs_case(G, rng, dag_share=0.9, self_pair_share=0.1)


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def lc210_reversed(numCourses: int, prerequisites: list[list[int]]) -> list[int]:
    """Gets the pair orientation wrong: orders `a` before `b` for `[a, b]`."""
    order = topological_order(numCourses, prerequisites)
    return [] if order is None else order


def lc210_ignores_self_pairs(numCourses: int, prerequisites: list[list[int]]) -> list[int]:
    order = topological_order(numCourses, ((b, a) for a, b in prerequisites if a != b))
    return [] if order is None else order


PROBLEM = register(
    Problem(
        id="lc210",
        title="Order all courses so every prerequisite comes first",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="findOrder",
        arg_names=("numCourses", "prerequisites"),
        concept="topological sort",
        difficulty="medium",
        directed=True,
        input_contract=COURSE_PAIRS_CONTRACT,
        reference=find_order,
        checker=check_order,
        build_case=build_case,
        mutants={
            "reversed pairs": lc210_reversed,
            "ignores self-pairs": lc210_ignores_self_pairs,
        },
        published_cells=PLANAR_SPARSE_CELLS,
        input_graph=course_pairs_graph,
        in_contract=in_contract,
        field_map={"numCourse": "numCourses", "graphs": "prerequisites"},
        label_status="consistent",
        notes=(
            "Judged by a validator: any order that respects every pair is correct, [] exactly "
            "when the pairs are circular. Exact match with the upstream label would reject "
            "most valid orders. Published cells planar/cyclic, sparse/connected and "
            "sparse/cyclic are constant []."
        ),
    )
)
