"""Campaigns: models x competitions, resume, record -> replay, the score (merge) step, report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.llm.report import build_report
from tests.helpers.llm import (
    API_KEY,
    BROKEN,
    GOOD,
    MAJORITY,
    NO_CODE,
    UNSANDBOXED_FLAGS,
    ScriptedLLM,
    read_json,
)


def _campaign(keypair, competition: Path, tmp_path: Path, campaign: str, *extra: str):
    return ["llm", "campaign", "--competitions", str(competition), "--campaign", campaign,
            "--public-key", str(keypair["public_path"]),
            "--private-key", str(keypair["private_path"]), "--runs", str(tmp_path / "runs"),
            "--wall-seconds", "60", "--retries", "0", "--api-key-env", "GNNCB_TEST_LLM_KEY",
            *UNSANDBOXED_FLAGS, *extra]


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _comparable(rows: list[dict]) -> list[tuple]:
    return sorted((r["participant"], r["model"], r["entrant"], json.dumps(r["scores"]),
                   r["declared"]["llm"]["repair_depth"]) for r in rows)


@pytest.mark.slow
def test_recorded_campaign_resumes_and_replays_to_the_same_ledger_rows(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, {"model-a": [GOOD], "model-b": [BROKEN, MAJORITY]})
    recordings = tmp_path / "recordings"
    live = _campaign(keypair, demo_competition, tmp_path, "live", "--models", "model-a,model-b",
                     "--base-url", llm.base_url, "--record", str(recordings),
                     "--ledger", str(tmp_path / "live.jsonl"))
    assert main(live) == 0
    rows = _rows(tmp_path / "live.jsonl")
    assert sorted(r["participant"] for r in rows) == ["llm:model-a", "llm:model-b"]
    assert len(llm.requests) == 3
    assert API_KEY not in "".join(p.read_text() for p in recordings.iterdir())
    err = capsys.readouterr().err
    assert "2/2" in err and "model-b x demo-cancer-knn: scored macro_f1=" in err

    # Resume: the same command finds both pairs finished and asks the model nothing.
    assert main(live) == 0
    assert len(llm.requests) == 3 and len(_rows(tmp_path / "live.jsonl")) == 2
    assert "2 already done, 0 to run" in capsys.readouterr().err

    # Replay into a fresh ledger: same participants, models, scores and repair depths.
    replay = _campaign(keypair, demo_competition, tmp_path, "replayed", "--models",
                       "model-a,model-b", "--provider", "replay", "--recordings",
                       str(recordings), "--ledger", str(tmp_path / "replay.jsonl"))
    assert main(replay) == 0
    assert len(llm.requests) == 3  # offline
    assert _comparable(_rows(tmp_path / "replay.jsonl")) == _comparable(rows)
    summary = read_json(tmp_path / "runs" / "replayed" / "model-b" / "demo-cancer-knn"
                        / "summary.json")
    assert [a["replay_match"] for a in summary["attempt_log"]] == ["exact", "exact"]

    # The report counts outcomes and failure modes per model.
    assert main(["llm", "report", "--runs", str(tmp_path / "runs" / "live"),
                 "--json", str(tmp_path / "report.json")]) == 0
    markdown = capsys.readouterr().out
    assert "| model-b | 1 | 1 | 0 | 0 | 1.0000 |" in markdown  # names are escaped only where needed
    report = read_json(tmp_path / "report.json")
    assert report["models"]["model-b"]["attempt_failure_modes"] == {"indexing_data_reading": 1}
    # model-b's final answer (majority class) is >= 30 points below model-a: severe, and its
    # code never opened the edge list.
    assert report["models"]["model-b"]["run_failure_modes"] == {"graph_construction": 1}
    assert report["models"]["model-a"]["mean_repair_depth"] == 0
    assert len(report["template_hashes"]) == 1


@pytest.mark.slow
def test_sealed_without_key_then_scored_by_the_merge_step(keypair, demo_competition, tmp_path,
                                                         httpserver, monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, {"good": [MAJORITY], "silent": [NO_CODE, NO_CODE]})
    args = _campaign(keypair, demo_competition, tmp_path, "matrix", "--models", "good",
                     "--models", "silent", "--base-url", llm.base_url, "--no-score",
                     "--repairs", "1", "--workers", "2")
    args.remove("--private-key")
    args.remove(str(keypair["private_path"]))
    assert main(args) == 0
    runs = tmp_path / "runs" / "matrix"
    assert read_json(runs / "good" / "demo-cancer-knn" / "summary.json")["status"] == "sealed"
    assert read_json(runs / "silent" / "demo-cancer-knn" / "summary.json")["status"] == "failed"
    ledger = tmp_path / "merged.jsonl"
    assert main(["llm", "score", "--runs", str(runs), "--private-key",
                 str(keypair["private_path"]), "--ledger", str(ledger),
                 "--competitions", str(demo_competition.parent)]) == 0
    [row] = _rows(ledger)
    assert row["participant"] == "llm:good"
    assert "2 run(s): 1 failed, 1 scored" in capsys.readouterr().out
    report = build_report(runs)
    assert report["models"]["silent"]["run_failure_modes"] == {"response_format": 1}


@pytest.mark.slow
def test_a_campaign_cannot_change_its_protocol(keypair, demo_competition, tmp_path, httpserver,
                                               monkeypatch, capsys):
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, [MAJORITY])
    base = _campaign(keypair, demo_competition, tmp_path, "pinned", "--models", "m",
                     "--base-url", llm.base_url, "--ledger", str(tmp_path / "l.jsonl"))
    assert main(base) == 0
    assert main([*base, "--prompt", "ssd"]) == 2
    assert "pins protocol" in capsys.readouterr().err
