"""The deployed case secret (issue 24, point 4) on the repository's own graph-coding board.

`competitions/graph-coding/case-seed.json` commits version 1 to a secret, so every submission
to that board, a model's included, is judged on cases drawn from `seed_for(secret, digest)`.
For the LLM code track the PR flow's split holds: the process that runs model-written code
(`gnncb code llm run|score`) never holds GNNCB_CODE_SEED; a separate step (`gnncb code llm
seed`) reads the final solutions as data and hands on only their seed. Copies of the real
board are re-committed to throwaway masters (no row is judged under the copy's deployed
commitment, and a fresh clone has no deployed master); one scripted model, one problem, one
hidden case per published cell.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.cases import seed_from_digest
from evaluator.codetrack.caseseed import version_secret
from evaluator.ledger.store import Ledger
from tests.codetrack.test_llm import CORRECT, MODEL, run_args
from tests.helpers.codetrack import BOARD, copy_board, stand_in_code_seed
from tests.helpers.llm import UNSANDBOXED_FLAGS, ScriptedLLM

MASTER_A = "throwaway-master-a-" + "a1" * 16
MASTER_B = "throwaway-master-b-" + "b2" * 16
SCORE = ["--per-cell", "1", "--timeout-floor", "0.3", "--no-memory", "--jobs", "1"]


def _run(capsys, *argv: object) -> tuple[int, str]:
    capsys.readouterr()
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture(autouse=True)
def no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GNNCB_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("GNNCB_CODE_SEED", raising=False)
    monkeypatch.delenv("GNNCB_ROOT", raising=False)


def test_the_deployed_commitment_is_opened_by_the_documented_stand_in_master(
        tmp_path: Path, monkeypatch, capsys) -> None:
    """docs/maintainers.md's derivation of GNNCB_CODE_SEED from the build seed is the one the
    committed file was made with: `commit-seed` with it accepts the file and rewrites it
    byte for byte (with another secret it refuses: a commitment never changes in a version)."""
    master = stand_in_code_seed()
    if master is None:
        pytest.skip("../shared/secrets/build-seed.txt is absent (fresh clone): the deployed "
                    "master cannot be derived here")
    root = tmp_path / "repo"
    folder = copy_board(root)
    before = (folder / "case-seed.json").read_bytes()
    assert before == (BOARD / "case-seed.json").read_bytes()
    monkeypatch.setenv("GNNCB_CODE_SEED", MASTER_A)
    code, out = _run(capsys, "code", "commit-seed", "--root", root)
    assert code == 2 and "already commits graph-coding version 1 to another secret" in out
    monkeypatch.setenv("GNNCB_CODE_SEED", master)
    code, out = _run(capsys, "code", "commit-seed", "--root", root)
    assert code == 0, out
    assert (folder / "case-seed.json").read_bytes() == before
    assert master not in before.decode()


def test_the_real_board_judges_no_model_without_the_keyed_seed(tmp_path: Path, monkeypatch,
                                                               capsys) -> None:
    """On the repository's board as committed (no secret anywhere in this test), `code llm
    score` refuses to judge on predictable cases, and refuses to run while holding the
    secret."""
    root = tmp_path / "repo"
    copy_board(root)
    runs = tmp_path / "runs" / "adhoc" / "m"
    runs.mkdir(parents=True)
    code, out = _run(capsys, "code", "llm", "score", "--runs", runs, "--root", root)
    assert code == 2
    assert "commits graph-coding version 1 to secret cases" in out
    assert "gnncb code llm seed" in out and "--case-seed" in out
    monkeypatch.setenv("GNNCB_CODE_SEED", MASTER_A)
    for verb in (["score", "--runs", runs], ["run", "--model", "m", "--problems", "lc207",
                                             "--runs", tmp_path / "runs"]):
        code, out = _run(capsys, "code", "llm", *verb, "--root", root)
        assert code == 2 and "must not hold the case secret" in out, verb


@pytest.mark.slow
def test_a_model_on_the_real_board_is_judged_on_secret_cases_verify_checks_them(
        tmp_path: Path, httpserver, monkeypatch, capsys) -> None:
    root_a, root_b = tmp_path / "a", tmp_path / "b"
    folder_a, _ = copy_board(root_a, MASTER_A), copy_board(root_b, MASTER_B)
    ledger_a = root_a / "leaderboard" / "ledger.jsonl"
    llm = ScriptedLLM(httpserver, [CORRECT])

    # the run (model code on visible cases) stops before the hidden judge: it has no seed
    code, out = _run(capsys, *run_args(tmp_path, "--provider", "openai", "--base-url",
                                       llm.base_url, "--repairs", "0"), "--root", root_a)
    assert code == 0, out
    assert "judges on secret cases" in out and "gnncb code llm seed" in out
    assert not (tmp_path / "ledger.jsonl").exists()
    model_dir = tmp_path / "runs" / "adhoc" / "acme_coder-1.5"
    assert json.loads((model_dir / "code-lc207" / "summary.json").read_text())["status"] == \
        "sealed"

    # the keyed step: reads the final solution as data, writes its seed, never the secret
    seeds = {}
    for name, root, master in (("a", root_a, MASTER_A), ("b", root_b, MASTER_B)):
        monkeypatch.setenv("GNNCB_CODE_SEED", master)
        seeds[name] = tmp_path / f"seed-{name}.json"
        code, out = _run(capsys, "code", "llm", "seed", "--runs", model_dir, "--out",
                         seeds[name], "--root", root)
        assert code == 0, out
        secret = version_secret(master.encode(), "graph-coding", 1).hex()
        for text in (out, seeds[name].read_text()):
            assert master not in text and secret not in text
    code, out = _run(capsys, "code", "llm", "seed", "--runs", model_dir, "--out",
                     tmp_path / "wrong.json", "--root", root_a)  # B's master, A's board
    assert code == 2 and "does not match the committed commitment" in out
    monkeypatch.delenv("GNNCB_CODE_SEED")

    # the judge, without the secret: a seed drawn under the other board's commitment is refused
    code, out = _run(capsys, "code", "llm", "score", "--runs", model_dir, "--root", root_a,
                     "--case-seed", seeds["b"], *SCORE)
    assert code == 2 and "not a case seed drawn under the commitment" in out
    rows = {}
    for name, root in (("a", root_a), ("b", root_b)):
        ledger = root / "leaderboard" / "ledger.jsonl"
        code, out = _run(capsys, "code", "llm", "score", "--runs", model_dir, "--root", root,
                         "--case-seed", seeds[name], "--ledger", ledger, *SCORE,
                         *UNSANDBOXED_FLAGS)
        assert code == 0, out
        [rows[name]] = Ledger(ledger).rows()
    a, b = rows["a"], rows["b"]
    committed = json.loads((folder_a / "case-seed.json").read_text())["commitment"]
    assert (a["entrant"], a["model"]) == ("llm-api", MODEL)
    assert a["declared"]["seed_source"] == "secret+digest" and a["case_commitment"] == committed
    assert a["seed"] == json.loads(seeds["a"].read_text())["seed"]
    # the same files: a seed nobody computes from the digest, other cases under another master
    assert a["digest"] == b["digest"] and a["seed"] != seed_from_digest(a["digest"])
    assert a["seed"] != b["seed"] and a["cases_sha256"] != b["cases_sha256"]
    assert a["case_commitment"] != b["case_commitment"]

    # after the reveal anyone regenerates the judged cases with no secret
    assert main(["leaderboard", "render", "--root", str(root_a)]) == 0
    code, out = _run(capsys, "verify", "--root", root_a)
    assert code == 0 and "case secret not revealed yet" in out, out
    monkeypatch.setenv("GNNCB_CODE_SEED", MASTER_A)
    code, out = _run(capsys, "code", "reveal-seed", "--root", root_a, "--version", "1",
                     "--closed")
    assert code == 0, out
    monkeypatch.delenv("GNNCB_CODE_SEED")
    code, out = _run(capsys, "verify", "--root", root_a)
    assert code == 0, out
    assert "checked graph-coding: secret case seeds and judged cases" in out
    assert "not revealed" not in out and "another version of the case generator" not in out

    # a tampered seed is named
    ledger_a.write_text(json.dumps({**a, "seed": b["seed"]}, sort_keys=True,
                                   separators=(",", ":")) + "\n")
    code, out = _run(capsys, "verify", "--root", root_a)
    assert code == 1
    assert f"seed {b['seed']} is not the one the revealed secret gives its digest" in out
