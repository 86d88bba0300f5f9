"""`gnncb ledger rescore` after a label fix that touches only the private part: the audit lines
it writes must not tell whose private score moved (issue 24: it wrote lines only for those rows,
and the presence of a line leaked what the sealed scores keep secret until the reveal)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from evaluator.authoring.build import seal_labels
from evaluator.cli import main
from evaluator.competition.spec import PART_COLUMN, load_spec
from evaluator.pipeline.evaluate import load_labels
from tests.helpers.parts import SEED, build, truth

SLUG = "toy-parts"


def _submit(root: Path, keypair, login: str, guess: pd.DataFrame) -> str:
    """Encrypt and evaluate `guess` into the repository's ledger; the row's digest."""
    folder = root / "competitions" / SLUG
    csv = root.parent / f"{login}.csv"
    guess.to_csv(csv, index=False)
    out = root.parent / f"sub-{login}" / "predictions.csv.enc"
    assert main(["encrypt", "--competition", str(folder), "--participant", login,
                 "--public-key", str(keypair["public_path"]), "--method", "m",
                 "-o", str(out), str(csv)]) == 0
    ledger = root / "leaderboard" / "ledger.jsonl"
    assert main(["evaluate", "--competition", str(folder), "--submission", str(out.parent),
                 "--participant", login, "--private-key", str(keypair["private_path"]),
                 "--ledger", str(ledger)]) == 0
    return json.loads(ledger.read_text().splitlines()[-1])["digest"]


@pytest.mark.slow
def test_a_private_only_label_fix_writes_an_audit_line_for_every_row(tmp_path, keypair,
                                                                     capsys):
    root = tmp_path / "repo"
    folder = build(root / "competitions" / SLUG, keypair["public"])
    spec = load_spec(folder)
    hidden = load_labels(folder, spec, keypair["private"])["test"]
    private = hidden.index[hidden[PART_COLUMN] == "private"]
    labels = hidden["label"]
    x = next(i for i in private if labels[i] == 0)
    y = next(i for i in private if labels[i] == 1)
    # alice predicts every label; bob predicts class 2 for x and y, so swapping their labels
    # leaves his confusion matrix, and every private score of his, exactly as it was
    alice = truth()
    bob = truth()
    bob.loc[bob["id"].isin([x, y]), "label"] = 2
    digests = {"alice": _submit(root, keypair, "alice", alice),
               "bob": _submit(root, keypair, "bob", bob)}
    # the fix: x and y swap labels; the parts are kept as they were (the private part only)
    fixed = truth()
    fixed.loc[fixed["id"] == x, "label"] = 1
    fixed.loc[fixed["id"] == y, "label"] = 0
    public = pd.Series(fixed["id"].map(hidden[PART_COLUMN]).eq("public").to_numpy(),
                       index=fixed.index)
    seal_labels(fixed, spec, "test", keypair["public"], folder / "hidden" / "test_labels.jwe",
                public=public, seed=SEED)
    capsys.readouterr()
    args = ["ledger", "rescore", SLUG, "--root", str(root), "--private-key",
            str(keypair["private_path"]), "--reason", "two private labels swapped",
            "--by", "maintainer"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    ledger = root / "leaderboard" / "ledger.jsonl"
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    audits = {r["target"]: r for r in rows if r["type"] == "rescore"}
    assert set(audits) == set(digests.values()), printed  # alice's moved, bob's did not
    public_view = [{k: v for k, v in audits[d].items()
                    if k not in ("digest", "target", "participant", "at", "sealed_scores",
                                 "intervals", "prev", "paired")}  # prev: the ledger's
                   # hash chain; paired: each row's comparisons with the entries before it
                   for d in digests.values()]
    assert public_view[0] == public_view[1]  # the same reason, the same public scores
    # the recomputed comparisons are on the public part only: nothing private in them
    assert {audits[d]["paired"]["part"] for d in digests.values()} == {"public"}
    assert len(audits[digests["alice"]]["sealed_scores"]) == \
        len(audits[digests["bob"]]["sealed_scores"])
    assert "two private labels swapped" in printed and "2 changed" in printed
    before = ledger.read_bytes()
    assert main(args) == 0 and ledger.read_bytes() == before  # again: nothing moves, none


@pytest.mark.slow
def test_a_row_whose_envelope_will_not_open_is_marked_stale(tmp_path, keypair, capsys):
    """Issue 24: after a label fix, a row whose stored envelope is there but will not open
    (damaged) kept its old-label score with no mark, while a row with no envelope got one."""
    root = tmp_path / "repo"
    folder = build(root / "competitions" / SLUG, keypair["public"])
    spec = load_spec(folder)
    hidden = load_labels(folder, spec, keypair["private"])["test"]
    public_ids = hidden.index[hidden[PART_COLUMN] == "public"]
    digests = {who: _submit(root, keypair, who, truth()) for who in ("alice", "bob")}
    stored = root / "leaderboard" / "envelopes" / f"{digests['bob']}.jwe"
    stored.write_bytes(stored.read_bytes()[:-40])  # damaged: no longer its digest's bytes
    fixed = truth()
    x = public_ids[0]
    fixed.loc[fixed["id"] == x, "label"] = 1 - fixed.loc[fixed["id"] == x, "label"]
    public = pd.Series(fixed["id"].map(hidden[PART_COLUMN]).eq("public").to_numpy(),
                       index=fixed.index)
    seal_labels(fixed, spec, "test", keypair["public"], folder / "hidden" / "test_labels.jwe",
                public=public, seed=SEED)
    capsys.readouterr()
    ledger = root / "leaderboard" / "ledger.jsonl"
    assert main(["ledger", "rescore", SLUG, "--root", str(root), "--private-key",
                 str(keypair["private_path"]), "--reason", "one label fixed",
                 "--by", "maintainer"]) == 1
    out, err = capsys.readouterr()
    assert f"could not re-score {digests['bob'][:12]}" in out
    assert "(marked as scored on old labels)" in out and "1 marked as scored" in err
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    stale = [r for r in rows if r["type"] == "stale"]
    assert [r["target"] for r in stale] == [digests["bob"]]
    assert "will not open" in stale[0]["reason"]
    assert {r["target"] for r in rows if r["type"] == "rescore"} == {digests["alice"]}
    assert main(["ledger", "list", "--ledger", str(ledger), "--status", "stale"]) == 0
    listed = capsys.readouterr().out
    assert digests["bob"][:16] in listed and digests["alice"][:16] not in listed
    board = (root / "leaderboard" / f"{SLUG}.md").read_text()
    assert "‡ = scored on hidden labels that were corrected later" in board
