"""Generated cases tell right from wrong: every classic wrong solution (mutants.py) fails some
case, every rule of the statements we target is needed by some case, and no problem is more
constant-dominated than the published GraphEval36K set (that last check needs ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.cases import CaseSet, generate_case_set
from evaluator.codetrack.discrimination import measure
from evaluator.codetrack.importer import import_grapheval
from evaluator.codetrack.mutants import MUTANTS
from evaluator.codetrack.problems.undirected_lc2508 import is_possible

REPO = Path(__file__).resolve().parent.parent
GRAPHEVAL = REPO.parent / "shared" / "datasets" / "grapheval36k" / "data"
TARGETED = sorted(MUTANTS)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> CaseSet:
    return generate_case_set(tmp_path_factory.mktemp("disc") / "set", per_cell=3,
                             problems=TARGETED)


def test_every_mutant_fails_some_case_and_the_reference_none(generated: CaseSet) -> None:
    figures = measure(generated)
    for pid in TARGETED:
        assert figures[pid]["cases"] > 0
        for name, share in figures[pid]["mutants"].items():
            assert share < 1.0, f"{pid}: the mutant '{name}' passes every case"


def test_the_rules_a_hurried_solution_forgets_are_exercised(generated: CaseSet) -> None:
    # lc2508: two odd nodes already joined, fixable only through a third node
    third_node = false_with_few_odd = 0
    for case in generated.iter_cases("lc2508"):
        args = json.loads(case.args_json())
        n, edges = args["n"], args["edges"]
        degree = [0] * n
        joined = set()
        for a, b in edges:
            degree[a] += 1
            degree[b] += 1
            joined.add(frozenset((a, b)))
        odd = [v for v in range(n) if degree[v] % 2]
        if len(odd) == 2 and frozenset(odd) in joined and case.expected is True:
            third_node += 1
        if len(odd) in (0, 2, 4) and case.expected is False:
            false_with_few_odd += 1
        assert case.expected == is_possible(n, edges)
    assert third_node and false_with_few_odd
    # lc207 and lc210: courses that require themselves (the statement allows self-pairs)
    for pid in ("lc207", "lc210"):
        selfish = [c for c in generated.iter_cases(pid)
                   if any(a == b for a, b in json.loads(c.args_json())["prerequisites"])]
        assert selfish and all(c.expected in (False, []) for c in selfish)
    # lc1971: a node asked about itself, and ends in different components outside the
    # disconnected cells
    ends = [(c.cell, json.loads(c.args_json())) for c in generated.iter_cases("lc1971")]
    assert any(a["source"] == a["destination"] for _, a in ends)
    apart = [cell for cell, a in ends if a["source"] != a["destination"]]
    assert apart
    unreachable = [c.cell for c in generated.iter_cases("lc1971") if c.expected is False]
    assert any(not cell.endswith("disconnected") for cell in unreachable)


def test_the_cli_prints_the_table(generated: CaseSet, capsys: pytest.CaptureFixture) -> None:
    assert main(["code", "discrimination", "--cases", str(generated.path), "--problems",
                 "lc2508,lc207"]) == 0
    out = capsys.readouterr().out
    assert "| problem | cases | constant before | constant now |" in out
    assert "forgets the third node" in out and "| lc207 |" in out


@pytest.mark.shared
@pytest.mark.slow
def test_no_problem_is_more_constant_than_the_published_set(generated: CaseSet,
                                                            tmp_path: Path) -> None:
    if not GRAPHEVAL.is_dir():
        pytest.skip("../shared/datasets/grapheval36k is absent (fresh clone)")
    problems = [p for p in TARGETED if p != "lc2328"]
    published = measure(import_grapheval(GRAPHEVAL, tmp_path / "pub", problems=problems),
                        field="label")
    ours = measure(generated)
    for pid in problems:
        assert ours[pid]["constant"] <= published[pid]["constant"], pid
