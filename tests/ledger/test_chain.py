"""The ledger's hash chain (issue 26): every appended line links to the one before it; the
first chained line after rows written before the chain links to all of them at once (the
genesis); `check_chain` names the line whose content no longer matches."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from evaluator.ledger.chain import check_chain
from evaluator.ledger.store import Ledger

LEGACY = [{"type": "withdrawal", "digest": f"old{i}", "by": "m", "reason": "r"} for i in range(2)]


def _ledger(tmp_path: Path, legacy: bool = True) -> Ledger:
    path = tmp_path / "ledger.jsonl"
    if legacy:  # rows written before the chain: no `prev`
        path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in LEGACY))
    ledger = Ledger(path)
    for i in range(3):
        ledger.append({"type": "withdrawal", "digest": f"new{i}", "by": "m", "reason": "r"})
    return ledger


def test_appends_link_to_the_legacy_prefix_then_to_each_other(tmp_path):
    ledger = _ledger(tmp_path)
    data = ledger.path.read_bytes()
    lines = data.split(b"\n")
    assert json.loads(lines[2])["prev"] == hashlib.sha256(b"".join(
        line + b"\n" for line in lines[:2])).hexdigest()
    assert json.loads(lines[3])["prev"] == hashlib.sha256(lines[2]).hexdigest()
    report = check_chain(data)
    assert report.problem is None and report.genesis == 3 and report.lines == 5
    assert [r["digest"] for r in ledger.rows()] == ["old0", "old1", "new0", "new1", "new2"]


def test_a_new_ledger_starts_at_the_hash_of_nothing(tmp_path):
    data = _ledger(tmp_path, legacy=False).path.read_bytes()
    assert json.loads(data.split(b"\n")[0])["prev"] == hashlib.sha256(b"").hexdigest()
    assert check_chain(data).problem is None


def _edited(ledger: Ledger, index: int, **change) -> bytes:
    lines = ledger.path.read_text().splitlines()
    row = json.loads(lines[index])
    row.update(change)
    lines[index] = json.dumps(row, sort_keys=True, separators=(",", ":"))
    return ("\n".join(lines) + "\n").encode()


def test_an_edited_chained_line_is_named(tmp_path):
    ledger = _ledger(tmp_path)
    problem = check_chain(_edited(ledger, 3, reason="edited"), "ledger.jsonl").problem
    assert problem is not None
    assert problem.startswith("ledger.jsonl, line 4 was changed") and "line 5" in problem


def test_an_edited_legacy_line_breaks_the_genesis(tmp_path):
    ledger = _ledger(tmp_path)
    problem = check_chain(_edited(ledger, 0, reason="edited")).problem
    assert problem is not None and "line 3" in problem and "lines 1-2" in problem


def test_an_inserted_unlinked_line_after_the_genesis_is_named(tmp_path):
    ledger = _ledger(tmp_path)
    lines = ledger.path.read_text().splitlines()
    lines.insert(4, json.dumps({"type": "withdrawal", "digest": "forged"}))
    problem = check_chain(("\n".join(lines) + "\n").encode()).problem
    assert problem is not None and "line 5: no chain link" in problem


def test_a_torn_write_is_cut_off_and_the_chain_continues(tmp_path):
    ledger = _ledger(tmp_path)
    with ledger.path.open("ab") as fh:
        fh.write(b'{"type": "withdrawal", "dig')
    ledger.append({"type": "withdrawal", "digest": "after", "by": "m", "reason": "r"})
    assert check_chain(ledger.path.read_bytes()).problem is None
    assert ledger.rows()[-1]["digest"] == "after"


def test_a_row_cannot_bring_its_own_link(tmp_path):
    ledger = _ledger(tmp_path)
    ledger.append({"type": "withdrawal", "digest": "x", "prev": "0" * 64})
    assert check_chain(ledger.path.read_bytes()).problem is None
