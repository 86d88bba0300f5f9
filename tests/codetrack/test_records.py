"""Every code-track problem is one record that holds every fact about it, and nothing else in
the package holds a fact keyed by problem id.

Why: the judge, the generator, the importer, the reports and the discrimination table read a
problem's facts from its `Problem` record only. A fact kept in a side table (a dict keyed by
"lc207", a hook found by its module-level name) can be forgotten when a problem is added or
drift from the record; these tests make the record complete and the side tables impossible.
"""

from __future__ import annotations

import ast
import importlib
import json
import re

import networkx as nx
import pytest

from evaluator.codetrack.cases import PRACTICE_SEED, generate_case, make_plan
from evaluator.codetrack.discrimination import mutant_shares
from evaluator.codetrack.problem import Problem, all_problems
from tests.helpers.paths import REPO

PACKAGE = REPO / "evaluator"
PROBLEMS = all_problems()
# the optional hooks a problem module may define; each must be passed to the record
HOOKS = ("in_contract", "adapt_published", "repair_published", "published_truth")
# the practice set's size per cell in docs/codetrack.md: a mutant no case of it kills is a
# mutant the judged sets cannot tell from the reference
PER_CELL = 20
PROBLEM_ID = re.compile(r"lc\d+")


def module_of(problem: Problem) -> object:
    direction = "directed" if problem.directed else "undirected"
    return importlib.import_module(f"evaluator.codetrack.problems.{direction}_{problem.id}")


@pytest.mark.parametrize("pid", list(PROBLEMS))
def test_every_record_holds_every_fact(pid: str) -> None:
    problem = PROBLEMS[pid]
    for fact in ("reference", "checker", "build_case", "input_graph", "in_contract"):
        assert callable(getattr(problem, fact)), (pid, fact)
    assert len(problem.mutants) >= 2, pid
    for name, mutant in problem.mutants.items():
        assert name and callable(mutant), (pid, name)
        assert mutant is not problem.reference, (pid, name)
        assert getattr(mutant, "__code__", None) is not problem.reference.__code__, (pid, name)
    assert problem.published_cells, pid
    for cell in problem.published_cells:
        stem, _, key = cell.partition("/")
        assert stem and key and "/" not in key, (pid, cell)
    assert len(set(problem.published_cells)) == len(problem.published_cells), pid
    assert isinstance(problem.cost_rate, float) and problem.cost_rate > 0, pid
    # the record is the module's own, and every hook the module defines was passed to it
    module = module_of(problem)
    assert getattr(module, "PROBLEM") is problem, pid
    for hook in HOOKS:
        defined = getattr(module, hook, None)
        if callable(defined):
            assert getattr(problem, hook) is defined, (pid, hook)


@pytest.mark.slow
@pytest.mark.parametrize("pid", list(PROBLEMS))
def test_every_mutant_is_killed_by_the_problems_cases(pid: str) -> None:
    """The practice seed's paper-plan cases, drawn a cell round at a time until every mutant
    has failed one (at most PER_CELL per cell, the practice set's size): each case's input
    graph is a graph, and the discrimination table's own measure (`mutant_shares`) counts a
    mutant as killed when it fails the case."""
    problem = PROBLEMS[pid]
    cells = make_plan("paper", [problem], PER_CELL)[pid]
    alive = set(problem.mutants)
    drawn = 0
    for index in range(PER_CELL):
        for cell, count in cells.items():
            if index >= count or not alive:
                continue
            case, _ = generate_case(problem, *cell.split("/"), index, PRACTICE_SEED)
            if case is None:
                continue
            drawn += 1
            assert isinstance(problem.input_graph(json.loads(case.args_json())), nx.Graph)
            shares = mutant_shares(problem, [case])
            alive -= {name for name, share in shares.items() if share < 1.0}
        if not alive:
            break
    assert drawn, pid
    assert not alive, f"{pid}: no case kills {sorted(alive)}"


def literal_ids(node: ast.AST) -> list[str]:
    """The problem ids among a literal container's keys or elements."""
    if isinstance(node, ast.Dict):
        items = node.keys
    elif isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        items = node.elts
    else:
        return []
    return [item.value for item in items if isinstance(item, ast.Constant)
            and isinstance(item.value, str) and PROBLEM_ID.fullmatch(item.value)]


def test_no_side_table_is_keyed_by_problem_id() -> None:
    """No dict, set, list or tuple literal anywhere in the package names two problem ids: a
    per-problem fact belongs in the problem's record."""
    tables = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            ids = literal_ids(node)
            if len(ids) >= 2:
                tables.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {ids[:3]}")
    assert not tables, "per-problem tables outside the records:\n" + "\n".join(tables)


def test_the_side_table_check_finds_a_table() -> None:
    tree = ast.parse('RATES = {"lc1": 1.0, "lc2": 2.0}\nSLOW = frozenset({"lc3", "lc4"})')
    found = [literal_ids(node) for node in ast.walk(tree) if len(literal_ids(node)) >= 2]
    assert found == [["lc1", "lc2"], ["lc3", "lc4"]]
