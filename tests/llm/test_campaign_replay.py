"""The committed real-model campaign replays, without the model, to the committed results.

campaigns/qwen2.5-coder-0.5b-local/ holds what a real local model (Qwen2.5-Coder-0.5B-Instruct,
GGUF, served by llama-cpp-python on this machine kind; README there on provenance) answered:
the recordings of every exchange, the run summaries, and campaign.json with the exact command
options. Strict replay (`--strict-replay`: every request must hash to a recording, no
approximate turn match) re-runs the whole protocol — parsing, sandboxed execution, the visible
judge, repairs, the hidden judge — so these tests check that gnncb still sends byte-identical
requests and still reaches the same outcomes:

- code track: the ledger row is the committed `llm-api` row of leaderboard/ledger.jsonl, field
  for field (digest, hidden seed, per-problem passes, scores, declared protocol); only the two
  timestamps and the transport facts (provider "replay", no endpoint to verify) differ;
- GNN track: each competition's run ends as committed (status, stop reason, failure modes and
  parse status per attempt).

A prompt depends on the competition folder (README, competition.yaml, data), the problem
statement and its practice cases. When one of those changes on main, the very first request no
longer matches (the run ends in `error` before any attempt) and these tests FAIL, naming the
competitions or problems to re-record (campaigns/qwen2.5-coder-0.5b-local/README.md says how):
the committed rows and outcomes are only evidence while they replay.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.problem import get_problem
from evaluator.ledger.store import Ledger, active_submissions
from evaluator.llm.parse import parse_response
from tests.helpers.codetrack import digest_seeded_root
from tests.helpers.llm import UNSANDBOXED_FLAGS, in_repository, read_json
from tests.helpers.paths import REPO

CAMPAIGN = REPO / "campaigns" / "qwen2.5-coder-0.5b-local"
VOLATILE = ("scored_at", "submitted_at")

pytestmark = pytest.mark.slow


def campaign() -> dict:
    return read_json(CAMPAIGN / "campaign.json")


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GNNCB_CACHE", str(tmp_path / "cache"))


def committed_row(participant: str, digest: str) -> dict:
    """The committed row as the boards count it: audit lines applied (the 95% interval was
    added to this row by a `gnncb ledger rescore` line, as a replay computes it today)."""
    # (rows are read with the platform's identity namespaces: llm-x may read as llm:x)
    rows = [r for r in active_submissions(Ledger(REPO / "leaderboard" / "ledger.jsonl").rows())
            if r.get("digest") == digest and r.get("participant", "").replace(":", "-")
            == participant]
    assert rows, f"no active committed ledger row of {participant} with digest {digest}"
    return {k: v for k, v in rows[-1].items() if k != "rescored_at"}


@pytest.fixture()
def before_the_commitment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed code row was judged on digest-seeded cases, before graph-coding v1
    committed to a case secret (its row says `seed_source: digest`): it is reproduced on a
    board as it was then, with no commitment. A new run on the repository's board is judged
    on secret cases (tests/codetrack/test_llm_secret_cases.py)."""
    monkeypatch.setenv("GNNCB_ROOT", str(digest_seeded_root(tmp_path)))


@pytest.mark.usefixtures("before_the_commitment")
def test_code_track_replays_to_the_committed_ledger_row(tmp_path: Path):
    spec = campaign()["code"]
    ledger = tmp_path / "ledger.jsonl"
    args = ["code", "llm", "run", "--model", campaign()["model"], "--problems",
            ",".join(spec["problems"]), "--provider", "replay", "--strict-replay",
            "--recordings", str(CAMPAIGN / "code" / "recordings"), "--runs",
            str(tmp_path / "runs"), "--ledger", str(ledger), *spec["argv"],
            *UNSANDBOXED_FLAGS]
    code = main(args)
    runs = tmp_path / "runs" / spec["campaign"] / campaign()["model"]
    drifted = [p for p in spec["problems"] if drift(runs / f"code-{p}")]
    assert not drifted, (f"the prompts of {drifted} changed since recording: re-record them "
                         "(campaigns/qwen2.5-coder-0.5b-local/README.md)")
    assert code == 0
    [row] = Ledger(ledger).rows()
    expected = committed_row(spec["participant"], spec["digest"])
    assert row["entrant"] == "llm-api" and row["model"] == campaign()["model"]
    strip = {k: None for k in VOLATILE}
    # How the answers were obtained differs (a replay, no endpoint to verify): the facts
    # about the transport; everything about the results is identical.
    transport = ("provider", "caveats", "served_model_verified")
    assert row["declared"]["llm"]["provider"] == ["replay"]
    assert expected["declared"]["llm"]["provider"] == ["openai-compatible"]
    for r in (row, expected):
        r["declared"] = {**r["declared"], "llm": {k: v for k, v in r["declared"]["llm"].items()
                                                  if k not in transport}}
    assert {**as_committed(row), **strip} == {**expected, **strip}
    for problem in spec["problems"]:
        summary = read_json(tmp_path / "runs" / spec["campaign"] / campaign()["model"]
                            / f"code-{problem}" / "summary.json")
        assert all(a["replay_match"] == "exact" for a in summary["attempt_log"])
        committed = read_json(CAMPAIGN / "code" / "summaries" / f"{problem}.json")
        for key in ("status", "stop_reason", "visible_passed", "final_attempt", "calls"):
            assert summary.get(key) == committed.get(key), (problem, key)


@pytest.mark.usefixtures("before_the_commitment")
def test_code_row_is_reproduced_from_the_recorded_answers(tmp_path: Path):
    """Without any replay of the conversation: each submitted problem's final answer is taken
    from its recording, parsed by today's parser, and judged by today's hidden judge (cases
    seeded by the solutions' digest): the committed ledger row comes out, field for field."""
    spec = campaign()["code"]
    recordings = [read_json(p) for p in (CAMPAIGN / "code" / "recordings").glob("*.json")]
    model_dir = tmp_path / campaign()["model"]
    for problem in spec["problems"]:
        summary = read_json(CAMPAIGN / "code" / "summaries" / f"{problem}.json")
        if summary["status"] not in ("sealed", "scored"):
            continue
        turns = 2 * summary["final_attempt"] - 1
        method = f"def {get_problem(problem).method}("
        [record] = [r for r in recordings if len(r["request"]["messages"]) == turns
                    and method in r["request"]["messages"][0]["content"]]
        parsed = parse_response(record["response"]["text"], record["response"]["finish_reason"])
        run = model_dir / f"code-{problem}"
        run.mkdir(parents=True)
        (run / "solution.py").write_text(parsed.code, encoding="utf-8")
        (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    ledger = tmp_path / "ledger.jsonl"
    assert main(["code", "llm", "score", "--runs", str(model_dir), "--problems",
                 ",".join(spec["problems"]), "--ledger", str(ledger), "--jobs", "1",
                 *UNSANDBOXED_FLAGS]) == 0
    [row] = Ledger(ledger).rows()
    expected = committed_row(spec["participant"], spec["digest"])
    strip = {k: None for k in VOLATILE}
    assert row["digest"] == spec["digest"]
    assert row["declared"]["seed_source"] == "digest" and "case_commitment" not in row
    assert {**as_committed(row), **strip} == {**expected, **strip}


def as_committed(row: dict) -> dict:
    """The row without what the platform added since the committed row was written: each
    problem's suite strength and failure structures (issue 27, derived from the judged cases,
    not from the model's answers) and the ledger chain's link (issue 26)."""
    per = {pid: {k: v for k, v in p.items() if k not in ("suite", "features")}
           for pid, p in row.get("per_problem", {}).items()}
    return {**{k: v for k, v in row.items() if k != "prev"}, "per_problem": per}


def drift(run: Path) -> bool:
    """The run's first request found no recording: its prompt is not the recorded one."""
    summary = read_json(run / "summary.json")
    return summary["status"] == "error" and not summary.get("attempt_log") and \
        "message 1 " in summary.get("error", "")


@pytest.mark.parametrize("track", ["gnn", "gnn-solver"])
def test_gnn_track_replays_to_the_committed_outcomes(tmp_path: Path, track: str):
    """Both prompt variants of the GNN track: the verbatim frozen prompt (`gnn`) and the one
    whose README slot keeps only what a solver needs (`gnn-solver`)."""
    spec = campaign()[track]
    args = ["llm", "campaign", "--models", campaign()["model"], "--competitions",
            *in_repository(tuple(spec["competitions"])), "--provider", "replay",
            "--strict-replay",
            "--recordings", str(CAMPAIGN / track / "recordings"), "--runs",
            str(tmp_path / "runs"), "--no-score", *spec["argv"], *UNSANDBOXED_FLAGS]
    code = main(args)
    runs = tmp_path / "runs" / spec["campaign"] / campaign()["model"]
    drifted = [c for c in spec["competitions"] if drift(runs / c)]
    assert not drifted, (f"the prompts of {drifted} changed since recording: re-record them "
                         "(campaigns/qwen2.5-coder-0.5b-local/README.md)")
    assert code == 0
    for slug in spec["competitions"]:
        committed = read_json(CAMPAIGN / track / "summaries" / f"{slug}.json")
        summary = read_json(runs / slug / "summary.json")
        assert summary["prompt_hash"] == committed["prompt_hash"], slug
        for key in ("stop_reason", "attempts", "calls", "tokens_in", "tokens_out"):
            assert summary.get(key) == committed.get(key), (slug, key)
        status = "sealed" if committed["status"] in ("sealed", "scored") else committed["status"]
        assert summary["status"] == status, slug
        keys = ("parse_status", "exit_reason", "valid", "repeat_of")
        assert [{k: a.get(k) for k in keys} for a in summary["attempt_log"]] == \
            [{k: a.get(k) for k in keys} for a in committed["attempt_log"]], slug
        modes = [(a.get("failure") or {}).get("mode") for a in summary["attempt_log"]]
        assert modes == [(a.get("failure") or {}).get("mode")
                         for a in committed["attempt_log"]], slug


def test_campaign_readme_names_the_weights_and_their_provenance():
    text = (CAMPAIGN / "README.md").read_text(encoding="utf-8")
    meta = campaign()
    assert meta["gguf_sha256"] in text and meta["package"] in text
    assert "provenance" in text.lower() and "unverified" in text.lower()
    assert json.dumps(meta)  # campaign.json is plain JSON
