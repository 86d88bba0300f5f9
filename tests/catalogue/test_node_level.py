"""The node- and edge-level competitions (gnn-cora, park-gnn, netlinkarena, octonode,
trust-temporal) and what `gnncb competition lint` catches in a broken copy of one.

What a maintainer would check: every committed folder lints clean and its README is the current
rendering; the public tables agree with each other and with the design (split sizes, no label
for a test row, edges between known nodes, data under ~15 MB); rebuilding from ../shared with
the secret seed reproduces the committed public files byte for byte; the hidden labels open and
cover exactly the test ids; and each kind of defect makes lint fail with a message naming it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from evaluator.authoring.folders import run_build
from evaluator.authoring.lint import MAX_PUBLIC_BYTES, lint_competition
from evaluator.competition.spec import load_spec
from evaluator.pipeline.evaluate import load_labels
from evaluator.render.readme import render_readme
from evaluator.submission.commit import (
    COMMITMENTS_NAME as COMMITMENTS,  # a rebuild also writes it (issue 26)
)
from evaluator.submission.validate import all_ids, competition_ids
from tests.helpers.paths import REPO, SHARED

SLUGS = ("gnn-cora", "park-gnn", "netlinkarena", "octonode", "trust-temporal")
DATASETS = {"gnn-cora": "cora", "park-gnn": "parkinsons", "netlinkarena": "citeseer",
            "octonode": "github-musae", "trust-temporal": "bitcoin-otc"}


def folder(slug: str) -> Path:
    return REPO / "competitions" / slug


def read(slug: str, name: str) -> pd.DataFrame:
    return pd.read_csv(folder(slug) / "data" / name)


# --------------------------------------------------------------------------- committed folders
@pytest.mark.parametrize("slug", SLUGS)
def test_committed_folder_lints_clean(slug):
    assert lint_competition(folder(slug)) == []


@pytest.mark.parametrize("slug", SLUGS)
def test_readme_is_the_current_rendering(slug):
    current = (folder(slug) / "README.md").read_text(encoding="utf-8")
    assert current == render_readme(folder(slug)), (
        f"run `gnncb competition readme {slug}` and commit the result")


@pytest.mark.parametrize("slug", SLUGS)
def test_public_data_is_small_and_every_file_is_described(slug):
    spec = load_spec(folder(slug))
    files = sorted(p for p in (folder(slug) / "data").rglob("*") if p.is_file())
    assert sum(p.stat().st_size for p in files) < MAX_PUBLIC_BYTES
    assert {p.relative_to(folder(slug)).as_posix() for p in files} == set(spec.files)


@pytest.mark.parametrize("slug", ("gnn-cora", "park-gnn", "octonode"))
def test_node_tables_are_consistent(slug):
    nodes = read(slug, "nodes.csv")["id"]
    assert nodes.is_unique and nodes.is_monotonic_increasing
    edges = read(slug, "edges.csv")
    assert edges["src"].isin(nodes).all() and edges["dst"].isin(nodes).all()
    assert (edges["src"] < edges["dst"]).all()  # undirected, each once, no self-loop
    assert not edges.duplicated(["src", "dst"]).any()
    train, test = read(slug, "train_labels.csv"), read(slug, "test_ids.csv")
    assert set(test.columns) == {"id"}
    assert not set(train["id"]) & set(test["id"])
    assert set(train["id"]) | set(test["id"]) <= set(nodes)


def test_cora_has_the_standard_split_sizes_and_noisy_dense_features():
    train, val = read("gnn-cora", "train_labels.csv"), read("gnn-cora", "val_labels.csv")
    assert len(train) == 140 and (train["label"].value_counts() == 20).all()
    assert len(val) == 500 and len(read("gnn-cora", "test_ids.csv")) == 1000
    assert not set(val["id"]) & set(read("gnn-cora", "test_ids.csv")["id"])
    with np.load(folder("gnn-cora") / "data" / "features.npz") as npz:
        x = npz["features"]
    assert x.shape == (2708, 1433) and x.dtype == np.float16
    assert 0.2 < float(np.std(x.astype(np.float32) - np.round(x.astype(np.float32)))) < 0.4


def test_park_split_is_by_speaker():
    """No test recording shares a same-subject edge with a training recording."""
    edges = read("park-gnn", "edges.csv")
    test = set(read("park-gnn", "test_ids.csv")["id"])
    assert len(test) == 39 and len(read("park-gnn", "train_labels.csv")) == 156
    same = edges[edges["same_subject"] == 1]
    crossing = same["src"].isin(test) != same["dst"].isin(test)
    assert not crossing.any()
    assert set(edges["knn"]) | set(edges["same_subject"]) == {0, 1}


def test_netlinkarena_pairs_are_balanced_and_test_links_are_not_in_the_graph():
    edges = read("netlinkarena", "edges.csv")
    graph = set(zip(edges["src"], edges["dst"], strict=True))
    train, val = read("netlinkarena", "train_pairs.csv"), read("netlinkarena", "val_pairs.csv")
    test = read("netlinkarena", "test_pairs.csv")
    assert train["link"].mean() == 0.5 and val["link"].mean() == 0.5
    assert set(zip(train.loc[train["link"] == 1, "src"], train.loc[train["link"] == 1, "dst"],
                   strict=True)) == graph
    assert not graph & set(zip(test["src"], test["dst"], strict=True))
    pair_ids = pd.concat([train["id"], val["id"], test["id"]])
    assert pair_ids.is_unique
    x = sparse.load_npz(folder("netlinkarena") / "data" / "features.npz")
    assert x.shape == (3327, 3703) and set(np.unique(x.data)) == {1.0}


def test_trust_temporal_test_ratings_all_come_after_the_training_ones():
    train = read("trust-temporal", "train_edges.csv")
    test = read("trust-temporal", "test_edges.csv")
    assert train["day"].max() <= test["day"].min()
    assert (train["trust"] == (train["rating"] > 0)).all() and (train["rating"] != 0).all()
    assert set(test.columns) == {"id", "src", "dst", "day"}
    assert len(train) + len(test) == 35592


def test_octonode_sparse_features_fit_the_size_budget():
    x = sparse.load_npz(folder("octonode") / "data" / "features.npz")
    assert x.shape == (37700, 4005)
    assert x.getnnz(axis=1).min() >= 1
    assert len(read("octonode", "test_ids.csv")) == 11310


# --------------------------------------------------------------------------- ../shared


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("slug", SLUGS)
def test_rebuild_reproduces_committed_public_files(slug, build_inputs, private_keys, tmp_path):
    seed, public = build_inputs
    run_build(folder(slug), SHARED / "datasets" / DATASETS[slug], seed, public, tmp_path)
    # sealed files are randomized per seal: compare what they hold, public/private part included
    spec = load_spec(folder(slug))
    rebuilt_labels = load_labels(tmp_path, spec, private_keys)
    for split, table in load_labels(folder(slug), spec, private_keys).items():
        assert rebuilt_labels[split].equals(table), split
        assert set(table["__part__"]) == {"public", "private"}
    committed = sorted(p.relative_to(folder(slug)) for p in (folder(slug) / "data").rglob("*")
                       if p.is_file())
    rebuilt = sorted(p.relative_to(tmp_path) for p in (tmp_path / "data").rglob("*")
                     if p.is_file())
    assert rebuilt == committed
    for rel in committed:
        assert (tmp_path / rel).read_bytes() == (folder(slug) / rel).read_bytes(), rel
    rebuilt = sorted(p.name for p in (tmp_path / "hidden").iterdir() if p.name != COMMITMENTS)
    assert rebuilt == sorted(
        p.name for p in (folder(slug) / "hidden").iterdir() if p.name != COMMITMENTS)


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("slug", SLUGS)
def test_hidden_labels_open_and_cover_the_test_ids_exactly(slug, private_keys):
    spec = load_spec(folder(slug))
    labels = load_labels(folder(slug), spec, private_keys)
    ids = competition_ids(folder(slug), spec)
    for split, table in labels.items():
        assert sorted(table.index) == sorted(ids[split])
        for t in spec.targets:
            if t.classes:
                assert set(table[t.name]) <= set(t.classes)
                assert table[t.name].nunique() == len(t.classes)  # every class is tested
    assert lint_competition(folder(slug), private_keys=private_keys) == []
    assert len(all_ids(ids)) == sum(len(t) for t in labels.values())


@pytest.mark.shared
@pytest.mark.parametrize("slug", SLUGS)
def test_no_public_table_repeats_a_hidden_label(slug, private_keys):
    """Guard: no CSV in the folder pairs a test id with its target column."""
    spec = load_spec(folder(slug))
    labels = load_labels(folder(slug), spec, private_keys)
    test_ids = {str(i) for table in labels.values() for i in table.index}
    targets = {t.name for t in spec.targets}
    for path in folder(slug).rglob("*.csv"):
        table = pd.read_csv(path)
        if spec.id_column in table.columns and targets & set(table.columns):
            if path.name == "sample_submission.csv":
                continue
            assert not test_ids & set(table[spec.id_column].astype(str)), path


# --------------------------------------------------------------------------- lint defects
@pytest.fixture()
def copy(tmp_path: Path) -> Path:
    """A private copy of park-gnn (the smallest folder) to break."""
    dest = tmp_path / "park-gnn"
    shutil.copytree(folder("park-gnn"), dest, ignore=shutil.ignore_patterns("__pycache__"))
    assert lint_competition(dest) == []
    return dest


def test_lint_fails_on_a_missing_readme_section(copy):
    readme = copy / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("## Rules", "## Regeln"),
                      encoding="utf-8")
    assert any("missing section '## Rules'" in p for p in lint_competition(copy))


def test_lint_fails_on_plaintext_labels_under_data(copy):
    ids = read("park-gnn", "test_ids.csv")["id"]
    pd.DataFrame({"id": ids, "label": 1}).to_csv(copy / "data" / "leak.csv", index=False)
    problems = lint_competition(copy)
    assert any("leak.csv" in p and "hidden labels leak" in p for p in problems)


def test_lint_fails_on_plaintext_labels_under_hidden(copy):
    ids = read("park-gnn", "test_ids.csv")["id"]
    pd.DataFrame({"id": ids, "label": 1}).to_csv(copy / "hidden" / "test_labels.csv",
                                                 index=False)
    assert any("not a JWE envelope" in p for p in lint_competition(copy))


def test_lint_fails_when_a_public_training_table_holds_test_ids(copy):
    train = pd.read_csv(copy / "data" / "train_labels.csv")
    test = pd.read_csv(copy / "data" / "test_ids.csv")
    extra = pd.DataFrame({"id": test["id"].iloc[:3], "label": 0})
    pd.concat([train, extra]).to_csv(copy / "data" / "train_labels.csv", index=False)
    assert any("train_labels.csv" in p and "3 test ids" in p for p in lint_competition(copy))


def test_lint_fails_when_spec_and_data_disagree(copy):
    (copy / "data" / "test_ids.csv").unlink()
    assert any("test_ids.csv: referenced by splits.test but missing" in p
               for p in lint_competition(copy))


def test_lint_fails_when_the_sample_submission_misses_test_ids(copy):
    sample = pd.read_csv(copy / "data" / "sample_submission.csv")
    sample.iloc[:-2].to_csv(copy / "data" / "sample_submission.csv", index=False)
    assert any("sample submission does not pass" in p and "missing" in p
               for p in lint_competition(copy))


def test_lint_fails_on_oversize_public_data(copy):
    with open(copy / "data" / "huge.bin", "wb") as fh:
        fh.truncate(MAX_PUBLIC_BYTES + 1)  # sparse file: instant, no real disk use
    assert any("MB of public data" in p for p in lint_competition(copy))
