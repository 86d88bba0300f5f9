"""The execute-and-repair loop end to end: scripted model over HTTP -> sandbox -> ledger."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from evaluator.authoring.demo import predict_logistic
from evaluator.cli import main
from evaluator.llm.prompt import get_variant, template_hash
from evaluator.pipeline.evaluate import evaluate_bytes
from evaluator.submission import envelope
from evaluator.submission.metadata import Metadata, dump_metadata
from tests.helpers.llm import (
    API_KEY,
    BROKEN,
    GOOD,
    ISOLATION,
    MAJORITY,
    MODEL,
    NO_CODE,
    PARTIAL,
    ScriptedLLM,
    answer,
    cli_args,
    ledger_of,
    read_json,
    run_cli,
)


def _run_folder(tmp_path: Path) -> Path:
    return tmp_path / "runs" / "adhoc" / "acme_coder-1.5" / "demo-cancer-knn"


def _all_files_text(folder: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*")
                     if p.is_file())


@pytest.mark.slow
def test_correct_answer_lands_a_ledger_row(keypair, demo_competition, tmp_path, httpserver,
                                           monkeypatch, capsys):
    llm = ScriptedLLM(httpserver, [GOOD])
    prices = tmp_path / "prices.yaml"
    prices.write_text(f'"{MODEL}": {{input: 2.0, output: 8.0}}\n')
    assert run_cli(keypair, demo_competition, tmp_path, llm, monkeypatch,
                   "--prices", str(prices)) == 0
    out, err = capsys.readouterr()
    assert f"isolation: {ISOLATION.level}" in err
    assert "scored acme/coder-1.5 x demo-cancer-knn" in out

    # The same predictions, submitted the human way, score identically.
    plain = predict_logistic(demo_competition).to_csv(index=False).encode()
    claims = envelope.prediction_claims("demo-cancer-knn", 1, "someone")
    human = evaluate_bytes(demo_competition, envelope.seal(plain, keypair["public"], claims),
                           dump_metadata(Metadata(participant="someone", method="lr")).encode(),
                           participant="someone", keys=keypair["private"])
    [row] = ledger_of(tmp_path)
    assert row["scores"] == human.scores
    assert (row["entrant"], row["model"], row["participant"]) == (
        "llm-api", MODEL, "llm:acme-coder-1.5")
    llm_meta = row["declared"]["llm"]
    assert llm_meta["provider"] == "openai-compatible" and llm_meta["repair_depth"] == 0
    assert llm_meta["prompt_hash"] == template_hash(get_variant("frozen"))
    assert llm_meta["prompt_variant"] == "gnn_frozen_v1" and llm_meta["campaign"] == "adhoc"
    assert llm_meta["tokens_in"] > 0 and llm_meta["tokens_out"] > 0

    run = _run_folder(tmp_path)
    summary = read_json(run / "summary.json")
    assert summary["status"] == "scored" and summary["digest"] == row["digest"]
    assert summary["isolation"]["level"] == ISOLATION.level
    attempt = run / "attempt-1"
    for name in ("prompt.md", "response.md", "plan.md", "solution.py", "stdout.txt",
                 "stderr.txt", "attempt.json", "predictions.csv"):
        assert (attempt / name).is_file(), name
    record = read_json(attempt / "attempt.json")
    assert record["exit_reason"] == "ok" and record["valid"] and record["parse_status"] == "ok"
    assert record["latency_seconds"] is not None
    expected_cost = (record["tokens_in"] * 2.0 + record["tokens_out"] * 8.0) / 1e6
    assert abs(record["cost_usd"] - expected_cost) < 1e-9
    assert (attempt / "prompt.md").read_text() == llm.requests[0]["messages"][0]["content"]
    assert not (attempt / "workspace").exists()  # data copies are not kept by default
    assert llm.headers[0]["Authorization"] == f"Bearer {API_KEY}"
    assert API_KEY not in _all_files_text(tmp_path / "runs")


@pytest.mark.slow
def test_broken_answer_is_repaired_from_its_traceback(keypair, demo_competition, tmp_path,
                                                     httpserver, monkeypatch):
    llm = ScriptedLLM(httpserver, [BROKEN, MAJORITY])
    assert run_cli(keypair, demo_competition, tmp_path, llm, monkeypatch) == 0
    first, second = llm.requests
    assert len(first["messages"]) == 1 and len(second["messages"]) == 3
    assert second["messages"][1] == {"role": "assistant", "content": BROKEN}
    feedback = second["messages"][2]["content"]
    assert "Traceback (most recent call last)" in feedback
    assert "FileNotFoundError" in feedback and "data/edge_list.csv" in feedback
    assert "attempt 1 of 6" in feedback and str(tmp_path) not in feedback
    [row] = ledger_of(tmp_path)
    assert row["declared"]["llm"]["repair_depth"] == 1
    run = _run_folder(tmp_path)
    assert (run / "attempt-1" / "feedback.md").read_text() == feedback
    log = read_json(run / "summary.json")["attempt_log"]
    assert [a["valid"] for a in log] == [False, True]
    assert log[0]["failure"]["mode"] == "indexing_data_reading"


def test_answer_without_code_is_told_so_and_fails_without_a_ledger_row(
        keypair, demo_competition, tmp_path, httpserver, monkeypatch, capsys):
    llm = ScriptedLLM(httpserver, [NO_CODE, ("<plan>p</plan><code>\nimport os\nfor", "length")])
    assert run_cli(keypair, demo_competition, tmp_path, llm, monkeypatch, "--repairs", "1") == 1
    turn = llm.requests[1]["messages"][2]["content"]
    assert "contained no runnable Python program (no <code> block" in turn
    summary = read_json(_run_folder(tmp_path) / "summary.json")
    assert summary["status"] == "failed" and summary["attempts"] == 2
    assert [a["parse_status"] for a in summary["attempt_log"]] == ["missing_code", "truncated"]
    assert summary["failure"]["mode"] == "response_format"
    assert summary["failure"]["reason"] == "no valid predictions after 2 attempt(s)"
    assert not (_run_folder(tmp_path) / "attempt-1" / "stdout.txt").exists()  # nothing ran
    assert ledger_of(tmp_path) == []
    assert "failed acme/coder-1.5" in capsys.readouterr().out


def test_partial_predictions_get_the_validation_message(keypair, demo_competition, tmp_path,
                                                        httpserver, monkeypatch):
    llm = ScriptedLLM(httpserver, [PARTIAL, MAJORITY])
    assert run_cli(keypair, demo_competition, tmp_path, llm, monkeypatch) == 0
    total = len(pd.read_csv(demo_competition / "data" / "test_ids.csv"))
    feedback = llm.requests[1]["messages"][2]["content"]
    assert "Check of predictions.csv:" in feedback
    assert f"{total - 10} of {total} test ids are missing" in feedback
    first = read_json(_run_folder(tmp_path) / "attempt-1" / "attempt.json")
    assert first["exit_reason"] == "ok" and not first["valid"]
    assert first["failure"]["mode"] == "malformed_submission"


def test_valid_file_from_a_crashing_program_does_not_count(keypair, demo_competition,
                                                           tmp_path, httpserver, monkeypatch):
    crash_after_writing = answer("write, then crash", """
        import shutil
        shutil.copy("data/sample_submission.csv", "predictions.csv")
        raise RuntimeError("plotting failed")
    """)
    llm = ScriptedLLM(httpserver, [crash_after_writing])
    assert run_cli(keypair, demo_competition, tmp_path, llm, monkeypatch, "--repairs", "0") == 1
    [attempt] = read_json(_run_folder(tmp_path) / "summary.json")["attempt_log"]
    assert attempt["exit_reason"] == "error" and not attempt["valid"]


@pytest.mark.slow
def test_repair_budget_is_at_most_five(keypair, demo_competition, tmp_path, httpserver,
                                       monkeypatch, capsys):
    # distinct programs: an answer repeating an earlier one would stop the loop early
    llm = ScriptedLLM(httpserver, [BROKEN.replace("edge_list", f"edges{i}") for i in range(7)])
    assert run_cli(keypair, demo_competition, tmp_path, llm, monkeypatch) == 1
    assert len(llm.requests) == 6  # 1 attempt + k=5 repairs
    assert sorted(p.name for p in _run_folder(tmp_path).glob("attempt-*")) == [
        f"attempt-{i}" for i in range(1, 7)]
    assert run_cli(keypair, demo_competition, tmp_path / "again", llm, monkeypatch,
                   "--repairs", "6") == 2
    assert "allows 0 to 5 repairs" in capsys.readouterr().err


@pytest.mark.slow
def test_a_finished_run_is_not_overwritten(keypair, demo_competition, tmp_path, httpserver,
                                           monkeypatch, capsys):
    llm = ScriptedLLM(httpserver, [MAJORITY, MAJORITY])
    assert run_cli(keypair, demo_competition, tmp_path, llm, monkeypatch) == 0
    assert run_cli(keypair, demo_competition, tmp_path, llm, monkeypatch) == 2
    assert "already holds a scored run" in capsys.readouterr().err
    assert len(llm.requests) == 1 and len(ledger_of(tmp_path)) == 1


def test_missing_private_key_fails_before_any_model_call(keypair, demo_competition, tmp_path,
                                                         httpserver, monkeypatch, capsys):
    llm = ScriptedLLM(httpserver, [MAJORITY])
    args = cli_args(keypair, demo_competition, tmp_path, llm.base_url, "--model", MODEL)
    args[args.index("--private-key") + 1] = str(tmp_path / "nowhere.pem")
    assert main(args) == 2
    assert "cannot read private key" in capsys.readouterr().err
    assert llm.requests == []


def test_unisolated_machine_refuses_unless_allowed_and_says_so(keypair, demo_competition,
                                                               tmp_path, httpserver,
                                                               monkeypatch, capsys):
    from evaluator.llm import session
    from evaluator.sandbox import Isolation

    none = Isolation(False, False, False, False, "none", detail="not running as root")
    monkeypatch.setattr(session, "detect_isolation", lambda: none)
    llm = ScriptedLLM(httpserver, [MAJORITY])
    args = [a for a in cli_args(keypair, demo_competition, tmp_path, llm.base_url, "--model",
                                MODEL) if a != "--allow-unsandboxed"]
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    assert main(args) == 2
    assert "refusing to run model-written code" in capsys.readouterr().err
    assert llm.requests == []  # refused before spending a token

    assert main([*args, "--allow-unsandboxed"]) == 0
    assert "NOT sandboxed" in capsys.readouterr().err
    summary = read_json(_run_folder(tmp_path) / "summary.json")
    assert summary["isolation"] == {"level": "none", "mechanism": "none", "sandboxed": False,
                                    "detail": "not running as root"}
    [row] = ledger_of(tmp_path)
    assert row["declared"]["hardware"].startswith("CPU-only, NOT sandboxed (isolation none)")
