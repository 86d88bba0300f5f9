"""A label correction (issues 24.3 and 26): one rule, through the CLI on a scratch repository.

`gnncb competition relabel` makes a new label version of the same competition version: every id
keeps its part, the new labels get their own commitment, the old label version's commitment is
kept unchanged; `gnncb ledger rescore` scores every row against it with audit lines that record
it and recomputes the paired comparisons behind the tiers. Then lint and `gnncb verify` pass.
Editing a label table without relabel, or rewriting a superseded commitment, still fails lint.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from evaluator.cli import main
from evaluator.competition.spec import PART_COLUMN, load_spec
from evaluator.ledger.ranking import BY_PAIRED, board_tiers, standings
from evaluator.ledger.store import Ledger, active_submissions
from evaluator.pipeline.evaluate import load_labels
from tests.helpers.parts import truth
from tests.repo.helpers import keyless_copy, scratch_competition

SLUG = "toy-relabel"
WRONG = {"alice": 0, "bob": 7, "carol": 15}  # how many leading rows each gets wrong


def _run(capsys, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def _guess(login: str) -> pd.DataFrame:
    guess = truth()
    wrong = WRONG[login]
    guess.loc[: wrong - 1, "label"] = (guess.loc[: wrong - 1, "label"] + 1) % 3
    return guess


@pytest.fixture(scope="module")
def launched(tmp_path_factory, keypair) -> Path:
    """A repository after build and three submissions (stored envelopes), boards rendered."""
    base = tmp_path_factory.mktemp("relabel")
    root, raw, folder = scratch_competition(base, SLUG)
    assert main(["competition", "build", SLUG, "--root", str(root), "--raw", str(raw),
                 "--seed-file", str(raw / "seed"),
                 "--public-key", str(keypair["public_path"])]) == 0
    for login in WRONG:
        csv = base / f"{login}.csv"
        _guess(login).to_csv(csv, index=False)
        out = base / f"sub-{login}" / "predictions.csv.enc"
        assert main(["encrypt", "--competition", str(folder), "--participant", login,
                     "--public-key", str(keypair["public_path"]), "--method", "m",
                     "-o", str(out), str(csv)]) == 0
        assert main(["evaluate", "--competition", str(folder), "--submission",
                     str(out.parent), "--participant", login, "--private-key",
                     str(keypair["private_path"]), "--ledger",
                     str(root / "leaderboard" / "ledger.jsonl")]) == 0
    assert main(["leaderboard", "render", "--root", str(root)]) == 0
    return root


@pytest.fixture()
def repo(launched: Path, tmp_path: Path, monkeypatch) -> Path:
    return keyless_copy(launched, tmp_path / "repo", monkeypatch)


def _commitments(root: Path) -> dict:
    return json.loads((root / "competitions" / SLUG / "hidden" / "commitments.json").read_text())


def _relabel(root: Path, keypair, capsys) -> tuple[int, str]:
    """Correct the labels to carol's guesses: carol becomes perfect (her wrong rows include
    public ones), alice and bob lose those rows."""
    csv = root.parent / "fixed.csv"
    _guess("carol").to_csv(csv, index=False)
    return _run(capsys, "competition", "relabel", SLUG, "--split", "test", "--labels", str(csv),
                "--reason", "fifteen labels were shifted", "--private-key",
                str(keypair["private_path"]), "--public-key", str(keypair["public_path"]),
                "--root", str(root))


def _rescore(root: Path, keypair, capsys) -> tuple[int, str]:
    return _run(capsys, "ledger", "rescore", SLUG, "--private-key", str(keypair["private_path"]),
                "--reason", "fifteen labels were shifted", "--by", "maintainer",
                "--root", str(root))


def _board(root: Path) -> tuple[list, list]:
    spec = load_spec(root / "competitions" / SLUG)
    rows = active_submissions(Ledger(root / "leaderboard" / "ledger.jsonl").rows())
    table = standings(spec, rows)
    return table, board_tiers(spec, table)


def _commitments_kept(root: Path, capsys) -> bool:
    """Lint finds nothing wrong with the label commitments (the toy competition lacks a README
    and file descriptions, which lint reports too and this test does not care about)."""
    code, out = _run(capsys, "competition", "lint", SLUG, "--root", str(root))
    assert "README.md: missing" in out  # lint did run on the competition
    return not any(word in out for word in ("commitment", "label version", "changed after"))


@pytest.mark.slow
def test_relabel_then_rescore_passes_lint_and_verify(repo, keypair, capsys):
    before = _commitments(repo)
    spec = load_spec(repo / "competitions" / SLUG)
    parts = load_labels(repo / "competitions" / SLUG, spec, keypair["private"])["test"]
    code, out = _relabel(repo, keypair, capsys)
    assert code == 0, out
    assert "new label version" in out
    after = _commitments(repo)
    # a new label version with its own commitment; the old one kept, unchanged
    assert after["label_version"] == 2
    assert after["labels"]["test"]["commitment"] != before["labels"]["test"]["commitment"]
    assert after["superseded"] == [{"label_version": 1, "labels": before["labels"]}]
    assert "fifteen labels were shifted" in after["correction"]
    relabelled = load_labels(repo / "competitions" / SLUG, spec, keypair["private"])["test"]
    assert relabelled[PART_COLUMN].equals(parts[PART_COLUMN])  # no id moved between parts
    # a correction is incomplete until the rows are re-scored on it: lint says what to run
    code, out = _run(capsys, "competition", "lint", SLUG, "--root", str(repo))
    assert code == 1
    assert "label version 2" in out and "gnncb ledger rescore toy-relabel" in out
    code, out = _rescore(repo, keypair, capsys)
    assert code == 0, out
    rows = Ledger(repo / "leaderboard" / "ledger.jsonl").rows()
    audits = [r for r in rows if r["type"] == "rescore"]
    assert len(audits) == 3
    assert all(a["label_version"] == 2 and a["label_commitments"] == {
        "test": after["labels"]["test"]["commitment"]} for a in audits)
    # the submission rows still name the label version 1 commitment they were scored against
    assert {json.dumps(r["label_commitments"]) for r in rows if r["type"] == "submission"} == {
        json.dumps({"test": before["labels"]["test"]["commitment"]})}
    assert _commitments_kept(repo, capsys)
    code, out = _run(capsys, "verify", "--root", str(repo))
    assert code == 0, out


@pytest.mark.slow
def test_rescore_recomputes_the_comparisons_behind_the_tiers(repo, keypair, capsys):
    table, _ = _board(repo)
    assert [e.row["participant"] for e in table] == ["alice", "bob", "carol"]
    assert _relabel(repo, keypair, capsys)[0] == 0
    assert _rescore(repo, keypair, capsys)[0] == 0
    table, found = _board(repo)
    assert table[0].row["participant"] == "carol"  # perfect on the corrected labels
    assert table[0].row["scores"]["accuracy"] == 1.0 > table[1].row["scores"]["accuracy"]
    score = "accuracy"
    for upper, lower, tier in zip(table, table[1:], found[1:], strict=False):
        if upper.rank == lower.rank:
            continue
        assert tier.by == BY_PAIRED
        assert tier.outcome is not None  # the paired difference on the corrected labels
        assert tier.outcome["diff"] == pytest.approx(
            upper.row["scores"][score] - lower.row["scores"][score])
    # a second re-score on the same labels adds nothing
    lines = (repo / "leaderboard" / "ledger.jsonl").read_text()
    assert _rescore(repo, keypair, capsys)[0] == 0
    assert (repo / "leaderboard" / "ledger.jsonl").read_text() == lines


@pytest.mark.slow
def test_label_edits_outside_a_correction_still_fail_lint(repo, keypair, capsys):
    folder = repo / "competitions" / SLUG
    original = (folder / "hidden" / "test_labels.jwe").read_bytes()
    assert _relabel(repo, keypair, capsys)[0] == 0
    assert _rescore(repo, keypair, capsys)[0] == 0
    assert _commitments_kept(repo, capsys)
    # the label table swapped back by hand, without a correction
    corrected = (folder / "hidden" / "test_labels.jwe").read_bytes()
    (folder / "hidden" / "test_labels.jwe").write_bytes(original)
    code, out = _run(capsys, "competition", "lint", SLUG, "--root", str(repo))
    assert code == 1 and "changed after its commitment was recorded" in out
    assert "gnncb competition relabel" in out
    (folder / "hidden" / "test_labels.jwe").write_bytes(corrected)
    # the superseded label version's commitment rewritten: the rows scored on it say so
    data = _commitments(repo)
    data["superseded"][0]["labels"]["test"]["commitment"] = "0" * 64
    (folder / "hidden" / "commitments.json").write_text(json.dumps(data))
    code, out = _run(capsys, "competition", "lint", SLUG, "--root", str(repo))
    assert code == 1 and "(label version 1) differs from the one ledger line 1" in out
    code, out = _run(capsys, "verify", "--root", str(repo))
    assert code == 1 and "label version 1" in out
