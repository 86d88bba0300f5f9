"""Frozen prompt: slots filled from the folder, template hash shared by every competition."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from evaluator.authoring.build import seal_labels, write_csv
from evaluator.competition.spec import load_spec
from evaluator.errors import ConfigError
from evaluator.llm.execute import LimitOverrides, public_sources, run_limits_for
from evaluator.llm.prompt import get_variant, render_feedback, render_prompt, template_hash
from evaluator.llm.slots import SLOT_NAMES, fill_slots
from tests.helpers.paths import REPO

LIBS = [("numpy", "1.0"), ("torch", "2.0")]


def build_regression_competition(folder: Path, public_key) -> Path:
    """A second, different competition: graph regression with a NumPy feature file."""
    rng = np.random.default_rng(0)
    spec = {
        "slug": folder.name, "version": 2, "title": "Toy molecules: graph regression",
        "task": "graph-regression", "category": "molecular", "difficulty": "hard",
        "domain": "chemistry", "id_column": "graph_id",
        "targets": [{"name": "energy", "type": "real"}],
        "splits": {"test": {"ids": "data/test_graphs.csv", "labels": "hidden/test.jwe"}},
        "metrics": {"mae": {"fn": "mae", "split": "test"}},
        "rank_by": [{"score": "mae", "order": "asc"}],
        "rules": {"cpu_hours": 1, "seed": 7, "gnn_only": False},
        "files": {"data/atoms.npy": "one-hot atom types, one row per node"},
    }
    (folder / "data").mkdir(parents=True)
    (folder / "competition.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    (folder / "README.md").write_text("# Toy molecules\n\nPredict the energy of each graph.\n")
    nodes = pd.DataFrame({"graph_id": np.repeat(np.arange(40), 5), "node": np.tile(range(5), 40)})
    write_csv(nodes, folder / "data" / "nodes.csv")
    np.save(folder / "data" / "atoms.npy", rng.random((200, 4)).astype(np.float32))
    energy = rng.normal(size=40)
    write_csv(pd.DataFrame({"graph_id": range(30), "energy": energy[:30]}),
              folder / "data" / "train.csv")
    write_csv(pd.DataFrame({"graph_id": range(30, 40)}), folder / "data" / "test_graphs.csv")
    seal_labels(pd.DataFrame({"graph_id": range(30, 40), "energy": energy[30:]}),
                load_spec(folder), "test", public_key, folder / "hidden" / "test.jwe")
    return folder


@pytest.fixture()
def second_competition(tmp_path: Path, keypair: dict) -> Path:
    return build_regression_competition(tmp_path / "other" / "toy-molecules", keypair["public"])


def _prompt(folder: Path, variant: str = "frozen"):
    spec = load_spec(folder)
    slots = fill_slots(folder, spec, run_limits_for(spec), LIBS)
    return slots, render_prompt(get_variant(variant), slots)


def _skeleton(text: str, slots) -> str:
    values = sorted(((slots.as_dict()[n], n) for n in SLOT_NAMES), key=lambda v: -len(v[0]))
    for value, name in values:
        text = text.replace(value, f"<<{name}>>")
    return text


@pytest.mark.parametrize("variant", ["frozen", "ssd"])
def test_template_hash_identical_across_competitions(demo_competition, second_competition,
                                                     variant):
    slots_a, a = _prompt(demo_competition, variant)
    slots_b, b = _prompt(second_competition, variant)
    assert a.template_hash == b.template_hash == template_hash(get_variant(variant))
    assert a.prompt_hash != b.prompt_hash
    for name in SLOT_NAMES:  # every slot really differs between the two competitions
        assert slots_a.as_dict()[name] != slots_b.as_dict()[name], name
    # Slots aside, the two prompts are the same text, byte for byte.
    assert _skeleton(a.text, slots_a) == _skeleton(b.text, slots_b)


def test_variants_differ_and_ssd_has_its_four_parts(demo_competition):
    _, frozen = _prompt(demo_competition, "frozen")
    _, ssd = _prompt(demo_competition, "ssd")
    assert frozen.template_hash != ssd.template_hash
    assert (frozen.variant, ssd.variant) == ("gnn_frozen_v1", "gnn_ssd_v1")
    for part in ("Problem clarification", "Problem breakdown", "Solution formulation",
                 "Program implementation"):
        assert part in ssd.text and part not in frozen.text
    assert ssd.text.count("Cognitive step") == 4 and ssd.text.count("Action step") == 4
    for text in (frozen.text, ssd.text):  # Listing 1's constraints are in both
        assert "runnable as `python solution.py`" in text
        assert "CPU-only execution" in text and "no external downloads" in text
        assert "must generate predictions.csv" in text
        assert "<plan>" in text and "<code>" in text


def test_unknown_variant_names_the_choices():
    with pytest.raises(ConfigError, match="frozen.*ssd"):
        get_variant("cot")


def test_dataset_summary_is_generated_from_the_files(demo_competition):
    spec = load_spec(demo_competition)
    slots = fill_slots(demo_competition, spec, run_limits_for(spec), LIBS)
    data = slots.dataset
    assert "### data/nodes.csv" in data and "569 rows x 31 columns" in data
    assert "id (int64), f0 (float64)" in data and "float64 x 30, int64 x 1" in data
    train = pd.read_csv(demo_competition / "data" / "train_labels.csv")
    counts = train["label"].value_counts()
    assert (f"class balance of `label` ({len(train)} labelled rows): "
            f"0: {counts[0]} ({100 * counts[0] / len(train):.1f}%), "
            f"1: {counts[1]} ({100 * counts[1] / len(train):.1f}%)") in data
    first_edge = (demo_competition / "data" / "edges.csv").read_text().splitlines()[1]
    assert first_edge in data  # a few rows verbatim
    # Class balance is reported for training labels only, not the sample submission.
    assert data.count("class balance") == 1


def test_slots_show_public_files_only_and_the_rules(demo_competition, second_competition):
    for folder in (demo_competition, second_competition):
        spec = load_spec(folder)
        slots = fill_slots(folder, spec, run_limits_for(spec), LIBS)
        assert "hidden" not in slots.tree
        assert sorted(public_sources(folder)) == sorted(
            n for n in ("README.md", "competition.yaml", "data") if (folder / n).exists())
    spec = load_spec(second_competition)
    slots = fill_slots(second_competition, spec, run_limits_for(spec), LIBS)
    assert slots.readme.startswith("# Toy molecules")
    assert "atoms.npy" in slots.tree and "one-hot atom types" in slots.dataset
    assert "NumPy array: shape (200, 4), dtype float32" in slots.dataset
    assert "distribution of `energy` (30 rows)" in slots.dataset
    assert "`graph_id`: every id listed in data/test_graphs.csv (10 ids)" in slots.submission
    assert "mae: mae on split 'test', lower is better (ranking score)" in slots.submission
    assert "seed: 7" in slots.environment and "GNN only" not in slots.environment
    assert "- torch 2.0" in slots.environment
    assert "CPU time: 1 hours (competition rule: 1 CPU hours)" in slots.environment


def test_limits_come_from_the_rules_unless_overridden(demo_competition):
    spec = load_spec(demo_competition)
    assert (run_limits_for(spec).wall_seconds, run_limits_for(spec).cpu_seconds) == (10800, 10800)
    custom = run_limits_for(spec, LimitOverrides(wall_seconds=5, memory_bytes=2**28))
    assert (custom.wall_seconds, custom.cpu_seconds, custom.memory_bytes) == (5, 10800, 2**28)
    with pytest.raises(ConfigError, match="must be positive"):
        run_limits_for(spec, LimitOverrides(wall_seconds=0))


def test_feedback_carries_traceback_and_validation():
    text = render_feedback(get_variant("frozen"), attempt=2, max_attempts=6,
                           outcome="exited with code 1", validation="3 ids missing",
                           stderr="Traceback ...\nKeyError: 'x'", stdout="")
    assert "attempt 2 of 6" in text and "KeyError: 'x'" in text and "3 ids missing" in text
    assert "stdout" not in text  # empty sections are left out


def test_solver_readme_variant_keeps_only_task_data_evaluation_rules():
    """`frozen-solver`: the same frozen template, the README slot without the maintainer
    sections (how to submit, `gnncb encrypt`, baselines in files the sandbox lacks)."""
    folder = REPO / "competitions" / "gnn-cora"
    spec = load_spec(folder)
    verbatim = fill_slots(folder, spec, run_limits_for(spec), LIBS)
    solver_variant = get_variant("frozen-solver")
    assert solver_variant.name == "gnn_frozen_v1_solver"
    solver = fill_slots(folder, spec, run_limits_for(spec), LIBS, readme=solver_variant.readme)
    for heading in ("## Task", "## Data", "## Evaluation", "## Rules"):
        assert heading in solver.readme and heading in verbatim.readme
    for gone in ("## How to submit", "gnncb encrypt", "### Baselines", "baseline/gnn.py",
                 "## Source and licence", "Do not edit by hand"):
        assert gone in verbatim.readme and gone not in solver.readme
    assert solver.readme.endswith("(README abridged by gnncb to the sections a solver needs: "
                                  "Task, Data, Evaluation, Rules.)")
    # the other slots are untouched; the wording is the frozen one, the hash names the filling
    assert (solver.tree, solver.dataset, solver.submission) == (
        verbatim.tree, verbatim.dataset, verbatim.submission)
    assert render_prompt(solver_variant, solver).text.replace(solver.readme, "<r>") == \
        render_prompt(get_variant("frozen"), verbatim).text.replace(verbatim.readme, "<r>")
    assert template_hash(solver_variant) != template_hash(get_variant("frozen"))
    assert template_hash(get_variant("frozen")) == template_hash(get_variant("gnn_frozen_v1"))
