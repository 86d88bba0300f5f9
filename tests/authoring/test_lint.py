"""`gnncb competition lint` on small broken competitions: every defect named, and every
committed competition clean.

Each test starts from a lint-clean copy of the demo competition (real breast-cancer data,
labels sealed to a key made for the test, so the checks that need the key run without
../shared), breaks one thing the way a maintainer could, and runs the real CLI verb: the
exit code is 1 and the message names the file and the defect.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from evaluator.authoring.build import seal_labels
from evaluator.authoring.lint import lint_competition
from evaluator.cli import main as gnncb
from evaluator.competition.spec import load_spec
from evaluator.pipeline.evaluate import load_labels
from evaluator.render.readme import render_readme
from tests.helpers.paths import REPO, SHARED

FILES = {
    "data/nodes.csv": "id + 30 standardised features",
    "data/edges.csv": "src,dst: 5-NN edges",
    "data/train_labels.csv": "id,label: training nodes",
    "data/test_ids.csv": "id: nodes to predict",
    "data/sample_submission.csv": "a valid submission",
}


def edit_spec(folder: Path, change) -> None:
    path = folder / "competition.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(yaml.safe_dump(raw, sort_keys=False, allow_unicode=True), encoding="utf-8")


def render(folder: Path, capsys) -> None:
    """The README from the ledger of the folder's own (temporary) repository."""
    assert gnncb(["competition", "readme", str(folder), "--root", str(folder.parent.parent)]) == 0
    capsys.readouterr()


def lint(folder: Path, capsys, keypair: dict | None = None) -> tuple[int, str]:
    argv = ["competition", "lint", str(folder)]
    if keypair is not None:
        argv += ["--private-key", str(keypair["private_path"])]
    code = gnncb(argv)
    return code, capsys.readouterr().out


def hidden(folder: Path, keypair: dict) -> pd.DataFrame:
    spec = load_spec(folder)
    return load_labels(folder, spec, keypair["private"])["test"].reset_index()


def reseal(folder: Path, keypair: dict, table: pd.DataFrame) -> None:
    seal_labels(table, load_spec(folder), "test", keypair["public"],
                folder / "hidden" / "test_labels.jwe")


@pytest.fixture()
def clean(demo_competition: Path, keypair: dict, capsys) -> Path:
    """The demo competition with its public files described and its README rendered."""
    edit_spec(demo_competition, lambda raw: raw.update(files=FILES))
    render(demo_competition, capsys)
    assert lint_competition(demo_competition, private_keys=keypair["private"],
                            render_readme=render_readme) == []
    return demo_competition


# --------------------------------------------------------------------------- spec vs labels
@pytest.mark.slow
def test_training_labels_with_a_class_the_spec_does_not_declare(clean, capsys):
    train = pd.read_csv(clean / "data" / "train_labels.csv")
    train.loc[:4, "label"] = 2
    train.to_csv(clean / "data" / "train_labels.csv", index=False, lineterminator="\n")
    code, out = lint(clean, capsys)
    assert code == 1
    assert "train_labels.csv: 'label' holds classes ['2']" in out
    assert "classes: [0, 1]" in out


@pytest.mark.slow
def test_hidden_labels_with_an_undeclared_class_need_the_key(clean, keypair, capsys):
    table = hidden(clean, keypair)
    table.loc[:2, "label"] = 2
    reseal(clean, keypair, table)
    assert lint(clean, capsys)[0] == 0  # without the key nothing can see it
    code, out = lint(clean, capsys, keypair)
    assert code == 1 and "test_labels.jwe (decrypted): 'label' holds classes ['2']" in out


@pytest.mark.slow
def test_labels_outside_the_declared_range_of_a_real_target(clean, keypair, capsys):
    def to_regression(raw):
        raw["targets"] = [{"name": "label", "type": "real", "range": [0, 0.5]}]
        raw["metrics"] = {"mae": {"fn": "mae", "split": "test"}}
        raw["rank_by"] = [{"score": "mae", "order": "asc"}]

    edit_spec(clean, to_regression)
    render(clean, capsys)
    code, out = lint(clean, capsys, keypair)
    assert code == 1
    assert "train_labels.csv: 'label' spans [0, 1], outside the spec's range [0, 0.5]" in out
    assert "test_labels.jwe (decrypted): 'label' spans [0, 1]" in out


# --------------------------------------------------------------------------- left-overs
@pytest.mark.slow
def test_scaffold_placeholders_are_reported(clean, capsys, tmp_path):
    scratch = tmp_path / "scratch"  # another repository: the demo's holds demo-cancer-knn
    scratch.mkdir()
    assert gnncb(["competition", "new", "demo-cancer-knn", "--root", str(scratch)]) == 0
    scaffolded = scratch / "competitions" / "demo-cancer-knn"
    capsys.readouterr()
    scaffold = yaml.safe_load((scaffolded / "competition.yaml").read_text())

    def keep_placeholders(raw):
        raw["title"] = scaffold["title"]
        raw["description"] = scaffold["description"]
        raw["source"] = scaffold["source"]

    edit_spec(clean, keep_placeholders)
    (clean / "build.py").write_text((scaffolded / "build.py").read_text())
    render(clean, capsys)
    code, out = lint(clean, capsys)
    assert code == 1
    for field in ("title", "description", "source.name", "source.license", "source.citation"):
        assert f"`{field}` is still the scaffold's placeholder" in out, field
    assert "build.py: still the scaffold" in out


@pytest.mark.slow
def test_a_readme_older_than_its_spec(clean, capsys):
    edit_spec(clean, lambda raw: raw.update(summary="Now with a different summary."))
    code, out = lint(clean, capsys)
    assert code == 1 and "README.md: older than competition.yaml" in out
    render(clean, capsys)
    assert lint(clean, capsys)[0] == 0


@pytest.mark.slow
def test_public_files_not_described_under_files(clean, capsys):
    (clean / "data" / "notes.csv").write_text("id,comment\n1,x\n")
    code, out = lint(clean, capsys)
    assert code == 1
    assert "data/notes.csv: public file not described under `files:`" in out


# --------------------------------------------------------------------------- leaks
@pytest.mark.slow
def test_a_public_column_that_encodes_the_hidden_labels(clean, keypair, capsys):
    labels = hidden(clean, keypair).set_index("id")["label"]
    nodes = pd.read_csv(clean / "data" / "nodes.csv")
    known = pd.read_csv(clean / "data" / "train_labels.csv").set_index("id")["label"]
    every = pd.concat([known, labels])
    nodes["f_hint"] = 10 * nodes["id"].map(every) + 3  # the example
    nodes.to_csv(clean / "data" / "nodes.csv", index=False, lineterminator="\n")
    render(clean, capsys)
    assert lint(clean, capsys)[0] == 0  # the column looks like any other without the key
    code, out = lint(clean, capsys, keypair)
    assert code == 1
    assert "nodes.csv: column 'f_hint' alone predicts the hidden test labels" in out
    assert "macro_f1 1.000" in out


@pytest.mark.slow
def test_an_ordinary_feature_is_not_called_a_leak(clean, keypair):
    """The demo's 30 real features each predict the labels somewhat: none is flagged."""
    assert lint_competition(clean, private_keys=keypair["private"],
                            render_readme=render_readme) == []


@pytest.mark.slow
def test_test_ids_that_also_carry_training_labels(clean, capsys):
    test = pd.read_csv(clean / "data" / "test_ids.csv")
    rows = pd.DataFrame({"id": test["id"].iloc[:4], "diagnosis": 1})
    rows.to_csv(clean / "data" / "train_extra_labels.csv", index=False)
    edit_spec(clean, lambda raw: raw["files"].update(
        {"data/train_extra_labels.csv": "more training rows"}))
    render(clean, capsys)
    code, out = lint(clean, capsys)
    assert code == 1
    assert "train_extra_labels.csv: 4 test ids also appear here with training rows" in out


@pytest.mark.slow
def test_a_split_whose_size_differs_from_the_spec(clean, keypair, capsys):
    n = len(pd.read_csv(clean / "data" / "test_ids.csv"))
    edit_spec(clean, lambda raw: raw["splits"]["test"].update(rows=n + 5))
    render(clean, capsys)
    code, out = lint(clean, capsys, keypair)
    assert code == 1
    assert f"test_ids.csv: {n} ids, but splits.test.rows says {n + 5}" in out
    assert f"test_labels.jwe: {n} hidden labels, but splits.test.rows says {n + 5}" in out
    edit_spec(clean, lambda raw: raw["splits"]["test"].update(rows=n))
    render(clean, capsys)
    assert lint(clean, capsys, keypair)[0] == 0


@pytest.mark.slow
def test_oversize_public_data(clean):
    problems = lint_competition(clean, max_public_bytes=50_000)
    assert any("MB of public data; the limit is" in p for p in problems)


# --------------------------------------------------------------------------- committed
COMPETITIONS = sorted(p.parent.name for p in (REPO / "competitions").glob("*/competition.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize("slug", COMPETITIONS)
def test_every_committed_competition_lints_clean(slug):
    from evaluator.render.readme import render_readme

    assert lint_competition(REPO / "competitions" / slug, render_readme=render_readme) == []


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("slug", COMPETITIONS)
def test_every_committed_competition_lints_clean_with_the_key(slug):
    path = SHARED / "secrets" / "deploy-private.pem"
    if not path.is_file():
        pytest.skip("../shared/secrets is absent (fresh clone)")
    from evaluator.render.readme import render_readme
    from evaluator.submission import keys

    private = keys.load_private_keys(path.read_text())
    assert lint_competition(REPO / "competitions" / slug, private_keys=private,
                            render_readme=render_readme) == []
