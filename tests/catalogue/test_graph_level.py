"""The graph-level competitions (gta, gnn-bace, solubility, mix-props) and the RDKit featuriser.

What a maintainer or participant would check: the featuriser turns known molecules into the
documented tables; every committed folder lints clean and its public tables are internally
consistent (edges point at existing nodes, every id to predict has a graph); the design promises
hold (BACE's imbalanced train set, two disjoint GTA test splits, the ESOL test molecules shared
by solubility and mix-props); rebuilding from ../shared with the secret seed reproduces the
committed public files byte for byte; the hidden labels open and cover the public test ids; the
baselines in smoke mode write files `gnncb check` accepts.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evaluator.authoring.lint import lint_competition
from evaluator.cli import main as gnncb
from evaluator.competition.spec import load_spec
from evaluator.submission.commit import COMMITMENTS_NAME as COMMITMENTS  # rebuilds write it
from evaluator.submission.validate import all_ids, competition_ids
from tests.helpers.paths import REPO, SHARED

SLUGS = ("gta", "gnn-bace", "solubility", "mix-props")
MOLECULAR = ("gnn-bace", "solubility", "mix-props")  # built with RDKit
DATASETS = {"gta": "mutag", "gnn-bace": "bace", "solubility": "esol", "mix-props": "esol"}
ID = "graph_id"


def folder(slug: str) -> Path:
    return REPO / "competitions" / slug


def read(slug: str, name: str) -> pd.DataFrame:
    return pd.read_csv(folder(slug) / "data" / name)


# --------------------------------------------------------------------------- featurisation
@pytest.fixture(scope="module")
def chem():
    pytest.importorskip("rdkit")
    from evaluator.authoring import chem

    return chem


def features(chem, graph, column: str) -> np.ndarray:
    return graph.x[:, chem.NODE_COLUMNS.index(column)]


@pytest.mark.chem
def test_benzene_is_six_aromatic_carbons_in_a_ring_of_six_undirected_bonds(chem):
    g = chem.featurize("c1ccccc1")
    assert g.num_nodes == 6
    assert len(g.edges) == 6  # each bond once, not once per direction
    assert (g.edges[:, 0] < g.edges[:, 1]).all()
    assert (g.bond_type == chem.BOND_CODES["AROMATIC"]).all()
    assert (features(chem, g, "atom_C") == 1).all()
    assert g.x[:, : len(chem.ATOM_COLUMNS)].sum(axis=1).tolist() == [1] * 6  # one-hot
    for column, value in (("degree", 2), ("num_hs", 1), ("aromatic", 1), ("in_ring", 1)):
        assert (features(chem, g, column) == value).all(), column
    degree = np.bincount(g.edges.ravel(), minlength=6)
    assert degree.tolist() == [2] * 6


@pytest.mark.chem
def test_bond_types_charges_and_rare_elements(chem):
    acetic = chem.featurize("CC(=O)O")
    assert sorted(acetic.bond_type.tolist()) == [1, 1, 2]
    assert features(chem, acetic, "atom_O").sum() == 2
    assert features(chem, chem.featurize("C#N"), "num_hs").tolist() == [1, 0]
    assert chem.featurize("C#N").bond_type.tolist() == [3]
    phosphate = chem.featurize("OP(=O)(O)O")  # P is not among the seven named types
    assert features(chem, phosphate, "atom_other").tolist().count(1) == 1
    ammonium = chem.featurize("[NH4+]")
    assert features(chem, ammonium, "formal_charge").tolist() == [1]
    assert features(chem, ammonium, "num_hs").tolist() == [4]
    assert len(ammonium.edges) == 0


@pytest.mark.chem
def test_unparsable_smiles_names_the_row(chem):
    from evaluator.errors import ConfigError

    with pytest.raises(ConfigError, match="bace.csv row 7.*cannot parse 'C1CC'"):
        chem.featurize(" C1CC ", "bace.csv row 7")


@pytest.mark.chem
def test_scaffold_groups_molecules_by_ring_system(chem):
    toluene, ethylbenzene = chem.murcko_scaffold("Cc1ccccc1"), chem.murcko_scaffold("CCc1ccccc1")
    assert toluene == ethylbenzene == "c1ccccc1"
    assert chem.murcko_scaffold("CCO") == ""  # acyclic molecules share the empty scaffold
    assert chem.murcko_scaffold("c1ccc2ccccc2c1") != toluene


@pytest.mark.chem
def test_node_permutation_gives_an_isomorphic_graph_in_another_order(chem):
    import networkx as nx

    def as_nx(g):
        graph = nx.Graph()
        for i, row in enumerate(g.x):
            graph.add_node(i, f=tuple(row))
        for (a, b), t in zip(g.edges, g.bond_type, strict=True):
            graph.add_edge(int(a), int(b), t=int(t))
        return graph

    g = chem.featurize("CC(=O)Nc1ccc(O)cc1")  # paracetamol
    p = chem.permute_nodes(g, np.random.default_rng(3))
    assert not np.array_equal(p.x, g.x)
    assert (p.edges[:, 0] < p.edges[:, 1]).all()
    assert nx.is_isomorphic(as_nx(g), as_nx(p), node_match=lambda a, b: a["f"] == b["f"],
                            edge_match=lambda a, b: a["t"] == b["t"])


@pytest.mark.chem
def test_graph_tables_are_sorted_by_graph_id_with_local_node_indices(chem):
    nodes, edges = chem.graph_tables([chem.featurize("CCO"), chem.featurize("c1ccccc1")],
                                     [500, 20])
    assert list(nodes.columns) == [ID, "node", *chem.NODE_COLUMNS]
    assert list(edges.columns) == [ID, "src", "dst", "bond_type"]
    assert nodes[ID].tolist() == [20] * 6 + [500] * 3
    assert nodes["node"].tolist() == [0, 1, 2, 3, 4, 5, 0, 1, 2]
    assert edges.groupby(ID).size().to_dict() == {20: 6, 500: 2}


# --------------------------------------------------------------------------- committed folders
@pytest.mark.parametrize("slug", SLUGS)
def test_committed_folder_lints_clean(slug):
    assert lint_competition(folder(slug)) == []


@pytest.mark.parametrize("slug", SLUGS)
def test_public_graph_tables_are_consistent(slug):
    spec = load_spec(folder(slug))
    nodes, edges = read(slug, "nodes.csv"), read(slug, "edges.csv")
    train = read(slug, "train_labels.csv")
    test = all_ids(competition_ids(folder(slug), spec))
    graphs = set(nodes[ID])
    assert graphs == set(train[ID]) | set(test)  # every graph is either trained on or predicted
    assert not set(train[ID]) & set(test)
    size = nodes.groupby(ID)["node"].agg(["min", "max", "count"])
    assert (size["min"] == 0).all() and (size["max"] == size["count"] - 1).all()
    merged = edges.join(size["count"], on=ID)
    assert (edges["src"] < edges["dst"]).all()
    assert (merged["dst"] < merged["count"]).all()
    assert set(edges["bond_type"]) <= {1, 2, 3, 4}
    assert not edges.duplicated([ID, "src", "dst"]).any()


def test_bace_has_no_descriptors_and_an_imbalanced_training_set():
    nodes = read("gnn-bace", "nodes.csv")
    assert not {"MW", "AlogP", "PSA", "pIC50", "mol", "smiles"} & set(nodes.columns)
    assert len(nodes.columns) == 2 + 13  # graph_id, node, 8 atom types, 5 atom features
    train = read("gnn-bace", "train_labels.csv")
    share = train["label"].mean()
    assert 0.15 < share < 0.18  # one inhibitor per five non-inhibitors, as documented


def test_gta_has_two_disjoint_test_splits_of_equal_size_and_perturbed_features():
    ideal = set(read("gta", "test_ideal_ids.csv")[ID])
    perturbed = set(read("gta", "test_perturbed_ids.csv")[ID])
    assert len(ideal) == len(perturbed) == 38 and not ideal & perturbed
    nodes = read("gta", "nodes.csv").set_index(ID)
    atoms = [c for c in nodes.columns if c.startswith("atom_")]
    clean = nodes.loc[~nodes.index.isin(perturbed), atoms].to_numpy()
    assert set(np.unique(clean)) == {0.0, 1.0} and (clean.sum(axis=1) == 1).all()
    noisy = nodes.loc[nodes.index.isin(perturbed), atoms].to_numpy()
    assert len(np.unique(noisy)) > 100  # real-valued: shifted and noisy
    assert 0.1 < noisy.std() < 1.0


def test_esol_competitions_hold_out_the_same_molecules():
    sol, mix = read("solubility", "train_labels.csv"), read("mix-props", "train_labels.csv")
    assert len(sol) == len(mix) == 902
    assert sorted(sol["log_solubility"]) == sorted(mix["log_solubility"])
    spans = mix.drop(columns=ID).agg(lambda c: c.max() - c.min())
    assert spans["mol_weight"] > 10 * spans["log_solubility"]  # very different ranges


# --------------------------------------------------------------------------- with ../shared
def load_builder(slug: str):
    path = folder(slug) / "build.py"
    spec = importlib.util.spec_from_file_location(f"test_build_{slug.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("slug", [
    pytest.param(s, marks=pytest.mark.chem) if s in MOLECULAR else s for s in SLUGS])
def test_rebuild_reproduces_committed_public_files(slug, build_inputs, tmp_path):
    if slug in MOLECULAR:
        pytest.importorskip("rdkit")
    seed, public = build_inputs
    load_builder(slug).build(SHARED / "datasets" / DATASETS[slug], seed, tmp_path, public)
    committed = sorted(p.name for p in (folder(slug) / "data").iterdir())
    rebuilt = sorted(p.name for p in (tmp_path / "data").iterdir())
    assert rebuilt == committed
    for name in committed:
        assert (tmp_path / "data" / name).read_bytes() == (
            folder(slug) / "data" / name).read_bytes(), name
    spec = load_spec(folder(slug))
    rebuilt = sorted(p.name for p in (tmp_path / "hidden").iterdir() if p.name != COMMITMENTS)
    assert rebuilt == sorted(Path(s.labels).name for s in spec.splits.values())
    # sealed files are randomized per seal: compare what they hold, public/private part included
    from evaluator.pipeline.evaluate import load_labels

    keys_path = SHARED / "secrets" / "deploy-private.pem"
    if keys_path.is_file():
        from evaluator.submission import keys

        private = keys.private_keys_from([keys_path])
        rebuilt = load_labels(tmp_path, spec, private)
        for split, table in load_labels(folder(slug), spec, private).items():
            assert rebuilt[split].equals(table), split
            assert set(table["__part__"]) == {"public", "private"}


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("slug", SLUGS)
def test_hidden_labels_open_and_cover_the_test_ids_exactly(slug, private_keys):
    from evaluator.pipeline.evaluate import load_labels

    spec = load_spec(folder(slug))
    labels = load_labels(folder(slug), spec, private_keys)
    ids = competition_ids(folder(slug), spec)
    assert set(labels) == set(spec.splits)
    for split, table in labels.items():
        assert sorted(table.index) == sorted(ids[split]), split
        for target in spec.targets:
            values = table[target.name]
            assert values.notna().all()
            if target.type == "class":
                assert set(values) == set(target.classes), (split, target.name)
    assert lint_competition(folder(slug), private_keys=private_keys) == []


@pytest.mark.shared
def test_hidden_design_promises(private_keys):
    """BACE's test set keeps the natural ratio; GTA's two halves hold the same class counts;
    the ESOL competitions hold out the same molecules."""
    from evaluator.pipeline.evaluate import load_labels

    def labels(slug):
        return load_labels(folder(slug), load_spec(folder(slug)), private_keys)

    assert 0.4 < labels("gnn-bace")["test"]["label"].mean() < 0.6
    gta = labels("gta")
    assert sorted(gta["ideal"]["label"]) == sorted(gta["perturbed"]["label"])
    sol, mix = labels("solubility")["test"], labels("mix-props")["test"]
    assert sorted(sol["log_solubility"]) == sorted(mix["log_solubility"])


# --------------------------------------------------------------------------- baselines
def run_smoke(slug: str, kind: str, tmp_path: Path) -> Path:
    out = tmp_path / "predictions.csv"
    script = folder(slug) / "baseline" / f"{kind}.py"
    done = subprocess.run([sys.executable, str(script), "--data", str(folder(slug) / "data"),
                           "--out", str(out), "--smoke"], capture_output=True, text=True,
                          check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"training_time_minutes"' in done.stdout.strip().splitlines()[-1]
    return out


@pytest.mark.gnn
@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_gnn_baseline_smoke_run_writes_a_valid_submission(slug, tmp_path, capsys):
    pytest.importorskip("torch_geometric")
    out = run_smoke(slug, "gnn", tmp_path)
    assert gnncb(["check", "--competition", str(folder(slug)), str(out)]) == 0
    assert "OK:" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_nongraph_baseline_smoke_run_writes_a_valid_submission(slug, tmp_path, capsys):
    """scikit-learn only: runs without torch."""
    out = run_smoke(slug, "nongraph", tmp_path)
    assert gnncb(["check", "--competition", str(folder(slug)), str(out)]) == 0
    assert "OK:" in capsys.readouterr().out
