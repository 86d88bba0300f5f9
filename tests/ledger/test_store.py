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


# Hand-edited lines (issue 24): each used to end in a traceback (KeyError, AttributeError,
# TypeError) in whichever command met it first; now every command that reads the ledger stops
# with the file, the line and what is wrong.
HAND_EDITS = {
    "withdrawal without its digest": (
        {"type": "withdrawal", "slug": "c", "version": 1, "reason": "r"},
        "withdrawal row without 'digest'"),
    "version as a string": ({**row("e"), "version": "1"},
                            "submission row: 'version' is \"1\" (a string), must be an integer"),
    "a score as a string": ({**row("e"), "scores": {"acc": "0.9"}},
                            "submission row: scores['acc'] is \"0.9\" (a string), must be a "
                            "number"),
    "participant as a number": ({**row("e"), "participant": 7},
                                "submission row: 'participant' is 7 (an integer), must be a "
                                "string"),
    "a re-score without its target": (
        {"type": "rescore", "digest": "r", "scores": {"acc": 1.0}, "at": "2026-01-02T00:00:00Z"},
        "rescore row without 'target'"),
    "chosen as one string": (
        {"type": "final-choice", "digest": "f", "slug": "c", "version": 1,
         "participant": "alice", "chosen": "abc"},
        "final-choice row: 'chosen' is \"abc\" (a string), must be a list"),
}


def _hand_edited(tmp_path: Path, edit: dict, *, newline: bool = True) -> Path:
    path = tmp_path / "ledger.jsonl"
    path.write_text(_line("a") + "\n" + json.dumps(edit) + ("\n" if newline else ""))
    return path


@pytest.mark.parametrize("name", list(HAND_EDITS))
def test_ledger_list_names_the_file_and_line_of_a_hand_edit(name, tmp_path, capsys):
    from tests.cli.helpers import run

    edit, problem = HAND_EDITS[name]
    path = _hand_edited(tmp_path, edit)
    code, out, err = run(["ledger", "list", "--ledger", path], capsys)
    assert code == 2, out + err
    assert f"error: {path}, line 2: {problem}; " in err, err
    assert "restore the line from git" in err and "Traceback" not in err


def test_a_hand_edited_last_line_without_newline_is_not_taken_for_a_torn_write(tmp_path,
                                                                               capsys):
    """An unterminated last line that is whole JSON is a row: checked, never cut off."""
    from tests.cli.helpers import run

    edit, problem = HAND_EDITS["version as a string"]
    path = _hand_edited(tmp_path, edit, newline=False)
    before = path.read_bytes()
    code, _, err = run(["ledger", "list", "--ledger", path], capsys)
    assert code == 2 and f"{path}, line 2: {problem}" in err, err
    assert "incomplete last line" not in err and path.read_bytes() == before


def test_evaluate_names_the_line_of_a_hand_edit(demo_competition, keypair, tmp_path, capsys):
    from tests.cli.helpers import encrypt, run

    out = tmp_path / "sub" / "predictions.csv.enc"
    assert encrypt(demo_competition, keypair, tmp_path, capsys, out)[0] == 0
    edit, problem = HAND_EDITS["withdrawal without its digest"]
    ledger = _hand_edited(tmp_path, edit)
    before = ledger.read_bytes()
    code, stdout, err = run(["evaluate", "--competition", demo_competition, "--submission",
                             out.parent, "--participant", "alice", "--private-key",
                             keypair["private_path"], "--ledger", ledger], capsys)
    assert code == 2, stdout + err
    assert f"error: {ledger}, line 2: {problem}" in err and "Traceback" not in err
    assert ledger.read_bytes() == before  # nothing appended past a line it cannot read
