"""`gnncb ledger rescore` gives rows scored before intervals existed their intervals."""

from __future__ import annotations

import json

import pytest

from evaluator.cli import main
from evaluator.ledger.store import active_submissions
from tests.helpers.arena import git, ledger_rows, published_two


@pytest.fixture
def env(monkeypatch, arena):
    monkeypatch.delenv("GNNCB_PRIVATE_KEY_PREVIOUS", raising=False)
    monkeypatch.setenv("GNNCB_PRIVATE_KEY", arena.keypair.pem)
    return monkeypatch


@pytest.mark.slow
def test_rescore_adds_intervals_to_old_rows_without_marking_anything(arena, fake, env,
                                                                     tmp_path):
    before = published_two(arena, fake)
    root = arena.clone()
    ledger = root / "leaderboard" / "ledger.jsonl"
    old = []
    for line in ledger.read_text().splitlines():  # rows as scored before intervals existed
        row = json.loads(line)
        row.pop("intervals", None)
        old.append(json.dumps(row, sort_keys=True))
    ledger.write_text("\n".join(old) + "\n")
    git(root, "commit", "-q", "-am", "rows from before intervals")
    key_file = tmp_path / "private.pem"
    key_file.write_text(arena.keypair.pem)
    args = ["ledger", "rescore", "toy-nodes", "--private-key", str(key_file), "--root",
            str(root), "--by", "maintainer"]
    assert main(args) == 0
    rows = ledger_rows(root)
    audits = [r for r in rows if r["type"] == "rescore"]
    assert {a["target"] for a in audits} == {r["digest"] for r in before}
    assert all(a["scores"] == a["previous"] for a in audits)  # nothing moved
    assert all("adds the 95% score intervals" in a["reason"] for a in audits)
    assert not [r for r in rows if r["type"] == "stale"]
    for r in active_submissions(rows):
        iv = r["intervals"]["accuracy"]
        assert iv["low"] <= r["scores"]["accuracy"] <= iv["high"]
    assert main(args) == 0 and len(ledger_rows(root)) == len(rows)  # idempotent
