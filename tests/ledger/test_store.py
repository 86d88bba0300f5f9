"""The ledger: idempotent appends, concurrent writers, audit lines."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

import pytest

from evaluator.errors import ConfigError
from evaluator.ledger.store import Ledger, active_submissions, count_accepted


def row(digest: str, participant: str = "alice", **scores) -> dict:
    return {"type": "submission", "digest": digest, "slug": "c", "version": 1,
            "participant": participant, "entrant": "human", "method": "m",
            "scores": scores or {"acc": 0.5}, "scored_at": "2026-01-01T00:00:00Z"}


def test_same_digest_twice_is_a_no_op(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    assert ledger.append(row("a")) is True
    before = ledger.path.read_bytes()
    assert ledger.append(row("a")) is False
    assert ledger.path.read_bytes() == before


def _writer(path: str, worker: int, n: int) -> None:
    ledger = Ledger(Path(path))
    for i in range(n):
        ledger.append(row(f"w{worker}-{i}", participant=f"p{worker}"))
        ledger.append(row(f"shared-{i}"))  # every worker races on the same digests too


def test_concurrent_writers_lose_and_duplicate_nothing(tmp_path):
    path = tmp_path / "ledger.jsonl"
    ctx = mp.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(path), w, 25)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    digests = [json.loads(line)["digest"] for line in path.read_text().splitlines()]
    assert len(digests) == len(set(digests)) == 4 * 25 + 25


def test_withdrawal_and_rescore_are_audit_lines(tmp_path):
    ledger = Ledger(tmp_path / "ledger.jsonl")
    ledger.append_many([row("a", acc=0.5), row("b", participant="bob", acc=0.7)])
    ledger.append({"type": "withdrawal", "digest": "b", "reason": "cheating", "by": "maint"})
    ledger.append({"type": "rescore", "digest": "r1", "target": "a", "scores": {"acc": 0.6},
                   "at": "2026-02-01T00:00:00Z"})
    active = active_submissions(ledger.rows())
    assert [r["digest"] for r in active] == ["a"]
    assert active[0]["scores"] == {"acc": 0.6}
    assert len(ledger.rows()) == 4  # nothing was deleted or rewritten
    assert count_accepted(ledger.rows(), "c", 1, "bob") == 0


def test_corrupt_line_is_reported_with_its_number(tmp_path):
    path = tmp_path / "ledger.jsonl"
    path.write_text(json.dumps(row("a")) + "\n{not json\n")
    with pytest.raises(ConfigError, match="line 2"):
        Ledger(path).rows()


def _ledger(tmp_path: Path, text: str) -> Ledger:
    path = tmp_path / "ledger.jsonl"
    path.write_text(text, encoding="utf-8")
    return Ledger(path)


def _line(digest: str, **extra) -> str:
    return json.dumps({**row(digest), **extra}, sort_keys=True)


@pytest.mark.parametrize("lines, bad", [
    # a row split over two lines, made up for by two rows on one line: the same number of
    # objects as lines, none of them alone on its line
    ([_line("a")[:-1] + ', "x": [{"k": 1}', '{"k": 2}]}',
      _line("b") + "], [" + _line("c")], 1),
    ([_line("a")[:-1] + ', "x": [[1', '2]]}', _line("b") + "],[0," + _line("c")], 1),
    ([_line("a"), _line("b")[:-2], _line("c")[-2:]], 2),  # a string run on into a line
    ([_line("a"), _line("b") + " " + _line("c")], 2),  # two rows on one line
    ([_line("a"), "[" + _line("b") + "]"], 2),  # a row that is not an object
    ([_line("a"), '{"digest": "x"}'], 2),  # no type
])
def test_every_line_must_be_one_row_whatever_its_neighbours(tmp_path, lines, bad):
    """Each line must be one row on its own: lines that only make JSON together are refused,
    with the number of the first line at fault."""
    ledger = _ledger(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match=f"line {bad}:"):
        ledger.rows()


def test_blank_lines_and_crlf_read_as_before(tmp_path):
    ledger = _ledger(tmp_path, f"\n{_line('a')}\r\n   \n{_line('b')}\n\n")
    assert [r["digest"] for r in ledger.rows()] == ["a", "b"]
    ledger = _ledger(tmp_path, f"{_line('a')}\r\n{_line('b')}\r\n")
    assert [r["digest"] for r in ledger.rows()] == ["a", "b"]


def test_the_scanner_path_gives_the_rows_json_loads_gives(tmp_path):
    lines = [_line(f"{i:04x}", pr=None if i % 3 == 1 else i,
                   entrant="llm-api" if i % 3 else "human",
                   participant="llm-gpt-4o" if i % 3 else "alice") for i in range(40)]
    ledger = _ledger(tmp_path, "\n".join(lines) + "\n")
    assert ledger.rows() == [ledger._parse(line, i) for i, line in enumerate(lines, 1)]
    assert any("legacy_participant" in r for r in ledger.rows())  # old names migrated
    assert any("declared_entrant" in r for r in ledger.rows())  # a pull request is human
