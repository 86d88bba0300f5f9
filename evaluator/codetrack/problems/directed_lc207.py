"""lc207: can every course be taken when some courses require others first?"""

from __future__ import annotations

from evaluator.codetrack.checkers import exact
from evaluator.codetrack.problem import Problem, register
from evaluator.codetrack.problems.directed_common import (
    COURSE_PAIRS_CONTRACT,
    PLANAR_SPARSE_CELLS,
    TYPING_IMPORT,
    course_pairs_case,
    course_pairs_graph,
    course_pairs_in_contract,
    topological_order,
)
from evaluator.codetrack.problems.undirected_common import DisjointSets

STATEMENT = """\
There are `numCourses` courses with ids `0..numCourses-1`. Each entry `[a, b]` of
`prerequisites` says that course `b` has to be completed before course `a` may be started.

Return `True` if there is an order in which all courses can be completed while every such
requirement is respected, and `False` otherwise. A course that requires itself (`[a, a]`) can
never be taken. Courses that appear in no entry have no requirements, and a repeated entry
means the same as a single one.
"""

SIGNATURE = (
    TYPING_IMPORT
    + """\
class Solution:
    def canFinish(self, numCourses: int, prerequisites: List[List[int]]) -> bool:
        ...
"""
)


def can_finish(numCourses: int, prerequisites: list[list[int]]) -> bool:
    """Kahn's algorithm on the arcs b -> a: all courses get ordered iff there is no cycle."""
    return topological_order(numCourses, ((b, a) for a, b in prerequisites)) is not None


# The shared course-schedule contract and builder, under the names the problem modules use.
in_contract = course_pairs_in_contract
build_case = course_pairs_case


# Classic wrong solutions (the record's `mutants`), run by discrimination.py.


def _undirected_cycle(n: int, pairs: list[list[int]]) -> bool:
    sets = DisjointSets(n)
    return any(not sets.union(a, b) for a, b in pairs if a != b)


def lc207_ignores_self_pairs(numCourses: int, prerequisites: list[list[int]]) -> bool:
    """Drops [a, a] pairs as noise, although a course that requires itself can never start."""
    kept = [(b, a) for a, b in prerequisites if a != b]
    return topological_order(numCourses, kept) is not None


def lc207_undirected(numCourses: int, prerequisites: list[list[int]]) -> bool:
    """Reads the prerequisites as undirected edges: any cycle of the shape means 'cannot'."""
    return not _undirected_cycle(numCourses, prerequisites) and all(
        a != b for a, b in prerequisites)


PROBLEM = register(
    Problem(
        id="lc207",
        title="Can every course be completed?",
        statement=STATEMENT,
        signature=SIGNATURE,
        method="canFinish",
        arg_names=("numCourses", "prerequisites"),
        concept="topological sort",
        difficulty="medium",
        directed=True,
        input_contract=COURSE_PAIRS_CONTRACT,
        reference=can_finish,
        checker=exact,
        build_case=build_case,
        mutants={
            "ignores self-pairs": lc207_ignores_self_pairs,
            "undirected cycle": lc207_undirected,
        },
        published_cells=PLANAR_SPARSE_CELLS,
        input_graph=course_pairs_graph,
        in_contract=in_contract,
        field_map={"numCourse": "numCourses", "graphs": "prerequisites"},
        label_status=(
            "constant-answer: every published cell holds a single answer (acyclic/disconnected "
            "True, cyclic False, planar/connected True, sparse/connected False)"
        ),
        notes=(
            "Labels agree with the reference (800/800), but a per-cell constant scores 100 %. "
            "On generated cases the answer is False exactly for the */cyclic cells' graphs and "
            "for connected/disconnected graphs that happen to contain a cycle."
        ),
    )
)
