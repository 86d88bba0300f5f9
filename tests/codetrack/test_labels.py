"""Every generated case's sub-category and statistics are true of the input the solution gets.

Why: builders reshape the drawn graph (plant a judge, keep one arc per node, cut a grid), so a
label computed on the drawn graph can be false of the input ("disconnected" lc997 inputs were
connected in 176 of 200 cases). These tests rebuild each input's graph from the stored
arguments and re-measure it: the sub-category and the statistics stored with the set (nodes,
edges, components, average degree and degree variance).
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from evaluator.codetrack.cases import CaseSet, make_plan
from evaluator.codetrack.problem import all_problems
from tests.helpers.codetrack import FULL_ONE, PAPER_THREE, shared_case_set

# the problems whose builders reshape the drawn graph the most, plus one of each input form
RESHAPING = ["lc997", "lc2360", "lc2374", "lc2876", "lc2924", "lc2097", "lc2328", "lc1719",
             "lc3017", "lc1782", "lc1971", "lc207", "lc2246", "lc797", "lc802", "lc1557",
             "lc2242", "lc2368"]


def sub_categories(G: nx.Graph) -> dict[str, bool]:
    """Each sub-category's meaning, straight from NetworkX (weak connectivity and directed
    cycles for digraphs; any cycle, self-loops and parallel edges included, otherwise)."""
    if G.is_directed():
        connected = nx.is_weakly_connected(G)
        cyclic = not nx.is_directed_acyclic_graph(G)
    else:
        connected = nx.is_connected(G)
        simple = nx.Graph(G)
        cyclic = (nx.number_of_selfloops(G) > 0 or simple.number_of_edges() != G.number_of_edges()
                  or not nx.is_forest(simple))
    return {"connected": connected, "disconnected": not connected, "cyclic": cyclic,
            "acyclic": not cyclic}


def check_every_case(case_set: CaseSet, problems: list[str] | None = None) -> int:
    checked = 0
    registry = all_problems()
    for pid in problems or case_set.problem_ids():
        for case in case_set.iter_cases(pid):
            G = registry[pid].input_graph(json.loads(case.args_json()))
            truth = sub_categories(G)
            assert truth[case.subcategory], (case.id, case.subcategory)
            stats = case.stats or {}
            # every figure stored is checked below (test_graphgen.py relies on it: the
            # statistics are a function of the pinned arguments)
            assert set(stats) == {"nodes", "edges", "avg_degree", "degree_variance", "density",
                                  "components", "connected", "has_cycle"}, case.id
            assert stats["connected"] is truth["connected"], case.id
            assert stats["has_cycle"] is truth["cyclic"], case.id
            assert stats["density"] == pytest.approx(nx.density(G), abs=1e-9), case.id
            assert stats["nodes"] == G.number_of_nodes(), case.id
            assert stats["edges"] == G.number_of_edges(), case.id
            weak = (nx.number_weakly_connected_components(G) if G.is_directed()
                    else nx.number_connected_components(G))
            assert stats["components"] == weak, case.id
            # the degree figures stored with the set: mean and population variance of the
            # out-degrees (digraphs) or degrees (self-loops count twice, copies of an edge
            # each once), recomputed here with NumPy
            degrees = np.array([d for _, d in (G.out_degree() if G.is_directed()
                                               else G.degree())], dtype=float)
            assert stats["avg_degree"] == pytest.approx(degrees.mean(), abs=1e-9), case.id
            assert stats["degree_variance"] == pytest.approx(degrees.var(), abs=1e-9), case.id
            per_edge = 1 if G.is_directed() else 2
            assert stats["avg_degree"] == pytest.approx(
                per_edge * G.number_of_edges() / G.number_of_nodes(), abs=1e-9), case.id
            checked += 1
    return checked


@pytest.mark.slow
def test_labels_and_statistics_hold_on_every_problem(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every case of the two shared sets, every problem: the full plan at --per-cell 1 (each
    valid cell of every problem once) and the paper plan at --per-cell 3 (the paper's cells
    three times; a cell's first case is the full plan's, so 1,501 distinct inputs). Why
    shared sets: they are made once per CI run for the byte-identity, errata, discrimination
    and shrink tests; a set of its own (the full plan at --per-cell 2) cost two minutes."""
    full = shared_case_set(tmp_path_factory, **FULL_ONE)
    paper = shared_case_set(tmp_path_factory, **PAPER_THREE)
    assert set(full.problem_ids()) == set(paper.problem_ids()) == set(all_problems())
    # the reshaping builders keep every cell of the plan (none is short)
    plan = make_plan("full", [all_problems()[p] for p in RESHAPING], 1)
    reshaped = check_every_case(full, RESHAPING)
    assert reshaped == sum(sum(c.values()) for c in plan.values())
    rest = [p for p in full.problem_ids() if p not in RESHAPING]
    assert reshaped + check_every_case(full, rest) == full.manifest["total"]
    assert check_every_case(paper) == paper.manifest["total"]


def test_cells_no_input_can_have_are_skipped_with_a_reason() -> None:
    problems = all_problems()
    for pid, cell in (("lc2097", "sparse/disconnected"), ("lc3017", "planar/disconnected"),
                      ("lc2328", "sparse/cyclic"), ("lc1719", "planar/acyclic")):
        assert problems[pid].skipped_cells[cell], (pid, cell)
    plan = make_plan("paper", [problems["lc2097"]])["lc2097"]
    assert not any(cell.endswith("/disconnected") for cell in plan)
    assert sum(plan.values()) == 700  # the published size is kept: cases move to valid cells


@pytest.mark.slow
def test_lc2097_inputs_have_20_to_200_nodes_in_every_cell(tmp_path: Path) -> None:
    """GraphEval36K's inputs have 20-200 nodes; lc2097's random walks used to stop after 3-19
    in planar, sparse and acyclic draws (22 of 46 cases of a full plan), testing almost
    nothing. Every valid cell keeps its cases (none is short) and every input is in range."""
    from evaluator.cli import main

    assert main(["code", "generate", "--plan", "full", "--per-cell", "3", "--problems",
                 "lc2097", "--out", str(tmp_path / "set")]) == 0
    case_set = CaseSet(tmp_path / "set")
    plan = make_plan("full", [all_problems()["lc2097"]], 3)["lc2097"]
    sizes: dict[str, list[int]] = {}
    for case in case_set.iter_cases("lc2097"):
        sizes.setdefault(case.cell, []).append(all_problems()["lc2097"].input_graph(
            json.loads(case.args_json())).number_of_nodes())
    assert {cell: len(v) for cell, v in sizes.items()} == plan
    assert all(20 <= n <= 200 for v in sizes.values() for n in v), sizes
