"""LLM runs check eligibility before calling the model: a run over its quota (or into a closed
competition) makes no request to the (local, real-HTTP) model server; LLM runs have a quota of
their own, apart from the human limits; local runs go to a scratch ledger by default."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
import yaml

from evaluator.cli import main
from tests.helpers.llm import API_KEY, GOOD, ScriptedLLM, cli_args

MODEL = "quota-model"


def _set(competition, **fields) -> None:
    path = competition / "competition.yaml"
    data = yaml.safe_load(path.read_text())
    for key, value in fields.items():
        if key == "llm_limits":
            data["submission"]["llm_limits"] = value
        else:
            data[key] = value
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
def test_a_run_over_its_llm_quota_makes_no_model_call(keypair, demo_competition, tmp_path,
                                                      httpserver, monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    # humans may submit 5 times; the LLM track once
    _set(demo_competition, llm_limits={"per_version": 1, "per_day": 1})
    llm = ScriptedLLM(httpserver, [GOOD, GOOD, GOOD])
    args = cli_args(keypair, demo_competition, tmp_path, llm.base_url, "--model", MODEL)
    assert main(args) == 0
    assert len(llm.requests) == 1
    rows = _rows(tmp_path / "ledger.jsonl")
    assert len(rows) == 1 and rows[0]["participant"].endswith("quota-model")
    capsys.readouterr()

    # a second run in another campaign folder: refused before the model is asked anything
    again = [*args, "--campaign", "second"]
    assert main(again) == 1
    out = capsys.readouterr()
    assert len(llm.requests) == 1  # not one more request reached the server
    assert "used all 1 submissions" in out.out and "LLM-track quota" in out.out
    assert "nothing was spent" in out.out
    assert len(_rows(tmp_path / "ledger.jsonl")) == 1

    # the human quota is separate: a human row does not use the LLM quota and vice versa
    human = dict(rows[0], participant="alice", entrant="human", digest="f" * 64)
    with (tmp_path / "ledger.jsonl").open("a") as fh:
        fh.write(json.dumps(human) + "\n")
    assert main([*args, "--model", "other-model", "--campaign", "third"]) == 0
    assert len(llm.requests) == 2


def test_a_closed_competition_makes_no_model_call(keypair, demo_competition, tmp_path,
                                                  httpserver, monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    past = datetime.now(UTC) - timedelta(days=3)
    _set(demo_competition, phases=[{
        "name": "development", "start": (past - timedelta(days=30)).isoformat(),
        "end": past.isoformat(), "limits": {"per_version": 5, "per_day": 5}}])
    llm = ScriptedLLM(httpserver, [GOOD])
    assert main(cli_args(keypair, demo_competition, tmp_path, llm.base_url,
                         "--model", MODEL)) == 1
    assert llm.requests == []
    assert "submissions are no longer accepted" in capsys.readouterr().out


@pytest.mark.slow
def test_local_runs_default_to_a_scratch_ledger(keypair, demo_competition, tmp_path,
                                                httpserver, monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, [GOOD])
    args = cli_args(keypair, demo_competition, tmp_path, llm.base_url, "--model", MODEL)
    i = args.index("--ledger")
    del args[i:i + 2]  # no --ledger: the scratch ledger beside the runs
    assert main(args) == 0
    scratch = tmp_path / "runs" / "adhoc" / "ledger.jsonl"
    assert [r["entrant"] for r in _rows(scratch)] == ["llm-api"]
    assert str(scratch) in capsys.readouterr().out
