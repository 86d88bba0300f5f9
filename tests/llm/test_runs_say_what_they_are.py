"""LLM runs that say what they are (issue 25, point 6), through `gnncb llm run`: a model the
endpoint does not list is refused unless allowed, and an allowed run is marked outside the
protocol in its ledger row; the scripted provider runs the whole loop from a file of answers.
The endpoint is the real-HTTP stand-in server of tests/llm/test_recorded_servers.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evaluator.cli import main
from evaluator.competition.spec import load_spec
from evaluator.render.results.conformance import OUT, check_row
from tests.helpers.llm import BROKEN, MAJORITY, UNSANDBOXED_FLAGS, read_json
from tests.llm.test_recorded_servers import MODEL, FakeServer, ledger_rows, run


def test_a_model_the_endpoint_does_not_list_is_refused(keypair, demo_competition, tmp_path,
                                                      httpserver, monkeypatch, capsys):
    server = FakeServer(httpserver, [{"text": MAJORITY}], models=["/models/gemma-3-270m.gguf"])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"model '{MODEL}' is not among the models" in err and "gemma-3-270m" in err
    assert "--allow-unlisted-model" in err
    assert server.requests == []  # no answer was asked for, none recorded under MODEL
    assert ledger_rows(tmp_path) == []


def test_an_allowed_unlisted_model_is_marked_outside_the_protocol(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    server = FakeServer(httpserver, [{"text": MAJORITY}], models=["/models/gemma-3-270m.gguf"])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch,
               "--allow-unlisted-model") == 0
    [row] = [json.loads(line) for line in ledger_rows(tmp_path)]
    assert row["declared"]["llm"]["model_listed"] is False
    verdict = check_row(load_spec(demo_competition), row)
    assert verdict["status"] == OUT
    assert any("model not verified" in d for d in verdict["deviations"])


def test_a_listed_model_runs_and_is_not_marked(keypair, demo_competition, tmp_path,
                                               httpserver, monkeypatch):
    server = FakeServer(httpserver, [{"text": MAJORITY}], models=[MODEL])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch) == 0
    [row] = [json.loads(line) for line in ledger_rows(tmp_path)]
    assert row["declared"]["llm"]["model_listed"] is True
    assert not any("model not verified" in d
                   for d in check_row(load_spec(demo_competition), row)["deviations"])


def scripted(keypair, competition: Path, tmp_path: Path, script: Path, *extra: str) -> int:
    return main(["llm", "run", "--competition", str(competition), "--provider", "scripted",
                 "--script", str(script), "--model", "dry-run",
                 "--public-key", str(keypair["public_path"]),
                 "--private-key", str(keypair["private_path"]),
                 "--ledger", str(tmp_path / "ledger.jsonl"), "--runs", str(tmp_path / "runs"),
                 "--wall-seconds", "60", *UNSANDBOXED_FLAGS, *extra])


def test_the_scripted_provider_runs_the_loop_from_a_file(keypair, demo_competition, tmp_path):
    script = tmp_path / "answers.yaml"
    script.write_text(yaml.safe_dump({"answers": [BROKEN, MAJORITY]}), encoding="utf-8")
    assert scripted(keypair, demo_competition, tmp_path, script) == 0
    run_dir = tmp_path / "runs" / "adhoc" / "dry-run" / demo_competition.name
    summary = read_json(run_dir / "summary.json")
    assert summary["status"] == "scored" and summary["provider"] == "scripted"
    assert (run_dir / "attempt-2" / "response.md").read_text(encoding="utf-8") == MAJORITY
    [row] = [json.loads(line) for line in ledger_rows(tmp_path)]
    assert row["declared"]["llm"]["provider"] == "scripted"


def test_a_script_that_runs_out_says_so(keypair, demo_competition, tmp_path, capsys):
    script = tmp_path / "answers.json"
    script.write_text(json.dumps([BROKEN]), encoding="utf-8")
    assert scripted(keypair, demo_competition, tmp_path, script) == 2
    assert f"--script {script}: holds 1 answer(s); call 2 asked for one more" in \
        capsys.readouterr().err



@pytest.mark.slow
def test_a_repeated_answer_does_not_stop_the_loop_by_default(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    """GNN-CB runs up to k = 5 repairs; the conversation has grown by the time an answer
    repeats, so gnncb asks again unless --stop-on-repeat says otherwise."""
    server = FakeServer(httpserver, [{"text": BROKEN}] * 6, models=[MODEL])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch) == 1
    assert len(server.requests) == 6  # one answer + five repairs, as the protocol runs
    summary = read_json(tmp_path / "runs" / "adhoc" / MODEL / demo_competition.name
                        / "summary.json")
    assert summary["stop_reason"] == "budget" and summary["stop_on_repeat"] is False


def test_stop_on_repeat_is_recorded_in_the_protocol_and_marked(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch):
    server = FakeServer(httpserver, [{"text": MAJORITY}], models=[MODEL])
    assert run(keypair, demo_competition, tmp_path, server, monkeypatch,
               "--stop-on-repeat") == 0
    [row] = [json.loads(line) for line in ledger_rows(tmp_path)]
    assert row["declared"]["llm"]["stop_on_repeat"] is True
    verdict = check_row(load_spec(demo_competition), row)
    assert any("stops at a repeated answer" in d for d in verdict["deviations"])
