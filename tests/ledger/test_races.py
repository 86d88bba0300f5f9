"""The ledger under concurrent submissions and crashes, through `gnncb evaluate --ledger`.

Earlier, eligibility and the duplicate check read the ledger before scoring and the append
happened later under the lock: one login sending many envelopes at once got 3 rows under a
limit of 2, and 5 of 50 processes submitting the same envelope said "recorded". A crash in the
middle of an append left a torn last line that made every command exit 2 until someone edited
the file. Now the checks are repeated under the same lock as the append, and a torn line is
reported, ignored and cut off by the next append.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evaluator.cli import main
from evaluator.ledger.store import Ledger
from tests.helpers.arena import Arena

WORKERS = 12  # 2 cores: enough processes to interleave, few enough to finish quickly


def _folder(arena: Arena, tmp: Path, name: str, login: str, wrong: int) -> Path:
    folder = tmp / name
    folder.mkdir()
    files = arena.files("toy-nodes", login, wrong)
    for path, data in files.items():
        (folder / path.rsplit("/", 1)[1]).write_bytes(data)
    return folder


def _evaluate(args: list[str], barrier: Any, out: str) -> None:
    barrier.wait()
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(args)
    Path(out).write_text(json.dumps({"code": code, "out": stdout.getvalue(),
                                     "err": stderr.getvalue()}))
    os._exit(0)


def _race(commands: list[list[str]], tmp: Path) -> list[dict[str, Any]]:
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(len(commands))
    outs = [tmp / f"out{i}.json" for i in range(len(commands))]
    procs = [ctx.Process(target=_evaluate, args=(c, barrier, str(o)))
             for c, o in zip(commands, outs, strict=True)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(600)
        assert p.exitcode == 0
    return [json.loads(o.read_text()) for o in outs]


@pytest.fixture
def setup(arena: Arena, tmp_path: Path) -> dict[str, Any]:
    key = tmp_path / "private.pem"
    key.write_text(arena.keypair.pem)
    root = arena.clone()
    return {"competition": root / "competitions" / "toy-nodes", "key": key,
            "ledger": tmp_path / "ledger.jsonl"}


def _cmd(setup: dict[str, Any], folder: Path, login: str = "alice") -> list[str]:
    return ["evaluate", "--competition", str(setup["competition"]), "--submission",
            str(folder), "--participant", login, "--private-key", str(setup["key"]),
            "--ledger", str(setup["ledger"])]


@pytest.mark.slow
def test_one_envelope_from_many_processes_is_recorded_once(arena: Arena, tmp_path: Path,
                                                           setup: dict[str, Any]) -> None:
    folder = _folder(arena, tmp_path, "sub", "alice", 0)
    results = _race([_cmd(setup, folder)] * WORKERS, tmp_path)
    assert all(r["code"] == 0 for r in results), results
    recorded = [r for r in results if "recorded in" in r["out"]]
    assert len(recorded) == 1, [r["out"] for r in results]
    assert sum("nothing new recorded" in r["out"] for r in results) == WORKERS - 1
    assert len(Ledger(setup["ledger"]).rows()) == 1


@pytest.mark.slow
def test_limit_holds_when_one_login_submits_many_envelopes_at_once(
        arena: Arena, tmp_path: Path, setup: dict[str, Any]) -> None:
    """toy-nodes allows 2 submissions per 24 hours."""
    folders = [_folder(arena, tmp_path, f"sub{i}", "alice", i) for i in range(WORKERS)]
    results = _race([_cmd(setup, f) for f in folders], tmp_path)
    accepted = [r for r in results if r["code"] == 0]
    refused = [r for r in results if r["code"] == 1]
    assert len(accepted) == 2 and len(refused) == WORKERS - 2, results
    assert all("in the last 24 hours" in r["err"] or "submit again" in r["err"]
               for r in refused), [r["err"] for r in refused]
    assert all("accuracy" not in r["err"] for r in refused)  # no score for a refused one
    assert len(Ledger(setup["ledger"]).rows()) == 2


def _torn(setup: dict[str, Any], arena: Arena, tmp_path: Path) -> tuple[bytes, bytes]:
    """Record one submission, then leave half of a second row, as a crash mid-write would."""
    first = _folder(arena, tmp_path, "first", "alice", 0)
    assert main(_cmd(setup, first)) == 0
    committed = setup["ledger"].read_bytes()
    line = committed.splitlines()[0]
    partial = line[: len(line) // 2]
    setup["ledger"].write_bytes(committed + partial)
    return committed, partial


@pytest.mark.slow
def test_torn_last_line_is_reported_and_recovered(arena: Arena, tmp_path: Path,
                                                  setup: dict[str, Any], capsys: Any) -> None:
    committed, partial = _torn(setup, arena, tmp_path)
    capsys.readouterr()
    out = tmp_path / "boards"
    assert main(["leaderboard", "render", "--ledger", str(setup["ledger"]), "--out", str(out),
                 "--competitions", str(setup["competition"].parent)]) == 0
    err = capsys.readouterr().err
    assert "incomplete last line" in err and "never recorded" in err
    assert "alice" in (out / "toy-nodes.md").read_text()  # the committed row still counts
    assert setup["ledger"].read_bytes() == committed + partial  # reading never writes
    second = _folder(arena, tmp_path, "second", "bob", 3)
    assert main(_cmd(setup, second, "bob")) == 0
    assert "recorded in" in capsys.readouterr().out
    data = setup["ledger"].read_bytes()
    assert data.startswith(committed) and data.endswith(b"\n")
    rows = [json.loads(line) for line in data.splitlines()]  # the torn half is gone
    assert [r["participant"] for r in rows] == ["alice", "bob"]
    assert main(["leaderboard", "render", "--ledger", str(setup["ledger"]), "--out", str(out),
                 "--competitions", str(setup["competition"].parent)]) == 0
    assert "incomplete" not in capsys.readouterr().err


@pytest.mark.slow
def test_kill_during_append_leaves_a_recoverable_ledger(arena: Arena, tmp_path: Path,
                                                        setup: dict[str, Any]) -> None:
    """A writer killed with SIGKILL between two halves of one row (a big row, written in two
    syscalls) leaves a torn line; every command still works and the next append repairs it."""
    script = (
        "import os, sys, json\n"
        "path = sys.argv[1]\n"
        "line = json.dumps({'type': 'submission', 'digest': 'd' * 64, 'x': 'y' * 100000})\n"
        "with open(path, 'ab', buffering=0) as fh:\n"
        "    fh.write(line[:50000].encode())\n"
        "    os.kill(os.getpid(), 9)\n"
        "    fh.write(line[50000:].encode() + b'\\n')\n")
    first = _folder(arena, tmp_path, "first", "alice", 0)
    assert main(_cmd(setup, first)) == 0
    committed = setup["ledger"].read_bytes()
    proc = subprocess.run([sys.executable, "-c", script, str(setup["ledger"])], check=False)
    assert proc.returncode == -signal.SIGKILL
    assert len(setup["ledger"].read_bytes()) == len(committed) + 50000
    assert [r["participant"] for r in Ledger(setup["ledger"]).rows()] == ["alice"]
    second = _folder(arena, tmp_path, "second", "bob", 3)
    assert main(_cmd(setup, second, "bob")) == 0
    rows = [json.loads(line) for line in setup["ledger"].read_bytes().splitlines()]
    assert [r["participant"] for r in rows] == ["alice", "bob"]


def test_corruption_before_the_last_line_still_stops_everything(
        arena: Arena, tmp_path: Path, setup: dict[str, Any], capsys: Any) -> None:
    committed, _ = _torn(setup, arena, tmp_path)
    setup["ledger"].write_bytes(b"{broken\n" + committed)
    assert main(["leaderboard", "render", "--ledger", str(setup["ledger"]), "--out",
                 str(tmp_path / "b"), "--competitions", str(setup["competition"].parent)]) == 2
    assert "line 1: corrupt ledger row" in capsys.readouterr().err
