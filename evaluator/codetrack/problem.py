"""The `Problem` record and the registry of all code-track problems.

Why a registry of plain records: the judge, the generator, the importer of the published
GraphEval36K cases, the reports and the LLM prompts all need the same facts about a problem;
keeping them in one immutable record per problem means there is exactly one place to fix. The
record holds every fact: the reference, the checker, the case builder, the classic wrong
solutions, the published cells, how the input reads as a graph, the cost rate and the hooks,
each passed to it by the problem's module (nothing is looked up by module-level name, and no
table elsewhere is keyed by problem id; tests/codetrack/test_records.py checks both).
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from evaluator.codetrack.checkers import Checker
from evaluator.codetrack.costmodel import DEFAULT_RATE

if TYPE_CHECKING:
    import networkx as nx

CONCEPTS = (
    "topological sort",
    "shortest path",
    "path finding",
    "cycle detection",
    "graph traversal",
    "parent-child relations",
    "graph construction",
    "DAG-related calculation",
    "general graph",
)
CATEGORIES = (
    "sparse",
    "planar",
    "regular",
    "dense",
    "complete",
    "small-world",
    "erdos-renyi",
    "power-law",
)
SUBCATEGORIES = ("connected", "disconnected", "cyclic", "acyclic")

Difficulty = Literal["easy", "medium", "hard"]
# Build the method's keyword arguments from a generated graph; None = this graph does not fit
# the problem's input contract (the generator then tries another draw or skips the cell).
CaseBuilder = Callable[["nx.Graph", random.Random], "dict[str, Any] | None"]
# The graph a solution receives, rebuilt from a case's arguments (inputgraph.py).
InputGraph = Callable[[Mapping[str, Any]], "nx.Graph"]
# A classic wrong solution: takes the reference's keyword arguments (discrimination.py).
Mutant = Callable[..., Any]


def cells(text: str) -> tuple[str, ...]:
    """Published cells written as one space-separated string, `<file>/<sub-category key>`."""
    return tuple(text.split())


class NoTrueAnswer(ValueError):
    """Raised by a problem's `published_truth` when an input has no true answer to judge by.

    `kind` names why, for the importer's per-class counts: "no answer" (none exists, e.g. a
    disconnected graph for a reachability minimum), "infeasible", or "not computed" (an answer
    exists but no exact method is known here). `upper_bound`, for minimisation problems, is the
    value of some valid answer: a label above it is provably not the minimum.
    """

    def __init__(self, kind: str, reason: str, upper_bound: int | None = None) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason
        self.upper_bound = upper_bound


@dataclass(frozen=True)
class Problem:
    """Everything the platform knows about one coding problem."""

    id: str  # upstream folder name, e.g. "lc207"; kept for traceability only
    title: str
    statement: str  # our own words, from the spec's Semantics paragraph
    signature: str  # Python source of the `class Solution` stub
    method: str  # method name on `Solution`
    arg_names: tuple[str, ...]
    concept: str
    difficulty: Difficulty
    directed: bool
    input_contract: str
    reference: Callable[..., Any]  # pure function taking the method's kwargs
    checker: Checker
    build_case: CaseBuilder
    # Classic wrong solutions, by name: what a hurried programmer writes (a rule of the
    # statement forgotten, an off-by-one, a directed graph read as undirected). They measure
    # how well a case set tells solutions apart (discrimination.py) and run in-process on
    # trusted inputs only; none of them is ever a candidate solution. Where the statement has
    # a special rule (self-pairs, ties, empty or -1 answers, a node reaching itself, isolated
    # nodes, rounding), one of them forgets it, and the tests check that some generated case
    # needs it (tests/codetrack/test_discrimination.py).
    mutants: Mapping[str, Mutant]
    # The cells GraphEval36K published (`<file>/<sub-category key>`, one entry per published
    # line-cell, in the dataset's order): the paper plan of cases.py mirrors them, so a fresh
    # clone needs no ../shared.
    published_cells: tuple[str, ...]
    # The graph of a case's input, as the statement reads it (inputgraph.py: a DiGraph for
    # directed problems, a Graph or MultiGraph for undirected ones); the generator measures a
    # case's sub-category and statistics on it.
    input_graph: InputGraph
    # seconds per input byte of the reference (costmodel.py); above the default only for
    # references that do more than linear work, from the calibration pass
    cost_rate: float = DEFAULT_RATE
    # the importer starts these first in a parallel run (their published cases take longest)
    slow_import: bool = False
    # dataset field -> argument name, for importing the published cases
    field_map: Mapping[str, str] = field(default_factory=dict)
    label_field: str = "labels"
    # (category, subcategory) cells the generator skips, with the reason, for the docs
    skipped_cells: Mapping[str, str] = field(default_factory=dict)
    # "consistent" or the spec's section-3 class for problems whose published labels are wrong
    label_status: str = "consistent"
    notes: str = ""
    # True when the arguments satisfy the statement's input contract (None = always)
    in_contract: Callable[[Mapping[str, Any]], bool] | None = None
    # reads a published case's fields into our arguments (implicit arguments, index base);
    # includes repair_published when the problem has one
    adapt_published: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # the part of adapt_published that undoes a known upstream defect of the stored input
    # (the repaired input is the one upstream labelled); cases it fixes count as repaired
    repair_published: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # the true answer on an out-of-contract published input where the statement defines none
    # (e.g. the true minimum on a non-tree); raises NoTrueAnswer when there is none to give
    published_truth: Callable[[Mapping[str, Any]], Any] | None = None

    def __post_init__(self) -> None:
        if self.concept not in CONCEPTS:
            raise ValueError(f"{self.id}: concept {self.concept!r} not in {CONCEPTS}")
        if self.difficulty not in ("easy", "medium", "hard"):
            raise ValueError(f"{self.id}: difficulty {self.difficulty!r}")


_REGISTRY: dict[str, Problem] = {}


def register(problem: Problem) -> Problem:
    """Add a problem to the registry; each problem module calls this once at import."""
    if problem.id in _REGISTRY and _REGISTRY[problem.id] is not problem:
        raise ValueError(f"duplicate problem id {problem.id}")
    _REGISTRY[problem.id] = problem
    return problem


def all_problems() -> dict[str, Problem]:
    """Every registered problem, importing all modules under `evaluator.codetrack.problems`."""
    import evaluator.codetrack.problems as pkg

    for info in pkgutil.walk_packages(pkg.__path__, prefix=pkg.__name__ + "."):
        importlib.import_module(info.name)  # each problem module registers its record

    def numeric(problem_id: str) -> int:
        return int(problem_id[2:]) if problem_id[2:].isdigit() else 0

    return dict(sorted(_REGISTRY.items(), key=lambda kv: numeric(kv[0])))


def get_problem(problem_id: str) -> Problem:
    problems = all_problems()
    if problem_id not in problems:
        raise KeyError(f"unknown problem {problem_id!r}; known: {', '.join(problems)}")
    return problems[problem_id]
