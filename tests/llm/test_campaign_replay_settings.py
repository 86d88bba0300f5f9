"""Replays replay: settings travel with the recordings, and a miss names what differs.

A campaign recorded with `--record DIR` writes DIR/campaign.json (prompt variant, repairs,
temperature, max tokens, seed, context budget, sandbox limits, the Python and library versions
its environment slot stated); `--provider replay --recordings DIR` reads them back for every
option not given, on the CLI and in the workflow (whose replay path passes none). The committed
campaign (recorded with --max-tokens 768 --context-tokens 32768, which the workflow never
passed) replays with no option at all; a changed setting or prompt slot is named in the error
instead of a bare "no recorded response ... message 1".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from evaluator.cli import main
from evaluator.llm.replay import DEFAULTS, explain_miss, read_settings, resolve
from tests.helpers.llm import (
    API_KEY,
    MAJORITY,
    NO_CODE,
    UNSANDBOXED_FLAGS,
    ScriptedLLM,
    as_recorded,
    in_repository,
    read_json,
    slots_commit,
)
from tests.helpers.paths import REPO

CAMPAIGN = REPO / "campaigns" / "qwen2.5-coder-0.5b-local"
RECORDINGS = CAMPAIGN / "gnn" / "recordings"
MODEL = "qwen2.5-coder-0.5b-instruct-1d9614"
GNN = ("gnn-cora", "park-gnn", "gnn-bace", "solubility", "mix-props")


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GNNCB_CACHE", str(tmp_path / "cache"))


# -- pure parts -----------------------------------------------------------------------------


def test_explicit_options_win_and_differences_are_named():
    recorded = {**DEFAULTS, "max_tokens": 768, "context_tokens": 32768, "repairs": 2}
    values, differs = resolve({"max_tokens": 768, "seed": None}, recorded)
    assert values["max_tokens"] == 768 and values["context_tokens"] == 32768
    assert values["repairs"] == 2 and values["seed"] is None
    assert differs == ["--seed/--no-seed none (recorded: 25)"]
    values, differs = resolve({}, None)
    assert values == DEFAULTS and differs == []


def _request(model: str, messages: list[str], **settings) -> dict:
    body = {"model": model, "temperature": 0.0, "max_tokens": 768, "seed": 25, **settings}
    roles = ["user", "assistant"]
    body["messages"] = [{"role": roles[i % 2], "content": m} for i, m in enumerate(messages)]
    return body


PROMPT = ("intro\n=== (1) README ===\nread me\n=== (2) REPOSITORY TREE ===\n./\n"
          "=== (5) ALLOWED LIBRARIES AND CONSTRAINTS ===\nPython 3.11.7\n- numpy 2.4.6\n")


def test_a_miss_names_the_setting_and_the_slot():
    records = [{"request_hash": "sha256:" + "a" * 64, "request": _request(MODEL, [PROMPT])}]
    changed = PROMPT.replace("numpy 2.4.6", "numpy 2.5.0")
    text = explain_miss(_request(MODEL, [changed], max_tokens=10000), records)
    assert "max_tokens 10000 sent, 768 recorded (--max-tokens)" in text
    assert "message 1, slot environment ((5) ALLOWED LIBRARIES AND CONSTRAINTS)" in text
    assert "'- numpy 2.5.0' here, '- numpy 2.4.6' recorded" in text
    assert "slot readme" not in text
    assert "no recording is for this model (recorded: " + MODEL in explain_miss(
        _request("other", [PROMPT]), records)
    longer = explain_miss(_request(MODEL, [PROMPT, "answer", "feedback"]), records)
    assert "3 messages sent, 1 in the closest recording" in longer


def test_committed_campaign_records_its_settings():
    for track, prompt in (("gnn", "frozen"), ("gnn-solver", "frozen-solver")):
        settings = read_settings(CAMPAIGN / track / "recordings")
        assert settings is not None
        assert (settings["max_tokens"], settings["context_tokens"]) == (768, 32768)
        assert (settings["prompt"], settings["repairs"]) == (prompt, 2)
        assert (settings["wall_seconds"], settings["cpu_seconds"]) == (300.0, 300.0)
        # every recorded request was sent with these decoding settings
        for path in (CAMPAIGN / track / "recordings").glob("sha256-*.json"):
            request = read_json(path)["request"]
            assert (request["temperature"], request["max_tokens"], request.get("seed")) == (
                settings["temperature"], settings["max_tokens"], settings["seed"])
            assert f"Python {settings['python']}. Libraries" in request["messages"][0]["content"]


# -- the committed campaign, replayed ------------------------------------------------------


def _replay(tmp_path: Path, *extra: str, competitions: tuple[str, ...] | None = None) -> int:
    if competitions is None:  # the repository's folders: the replay reads the recorded slots
        competitions = in_repository()
    return main(["llm", "campaign", "--models", MODEL, "--competitions", *competitions,
                 "--provider", "replay", "--strict-replay", "--recordings", str(RECORDINGS),
                 "--runs", str(tmp_path / "runs"), "--no-score", *extra, *UNSANDBOXED_FLAGS])


@pytest.mark.slow
def test_committed_campaign_replays_with_no_options(tmp_path: Path):
    assert _replay(tmp_path) == 0
    for slug in GNN:
        summary = read_json(tmp_path / "runs" / "adhoc" / MODEL / slug / "summary.json")
        committed = read_json(CAMPAIGN / "gnn" / "summaries" / f"{slug}.json")
        assert summary["status"] == "failed", (slug, summary.get("error"))
        assert summary["prompt_hash"] == committed["prompt_hash"], slug
        assert [a["replay_match"] for a in summary["attempt_log"]] == \
            ["exact"] * len(committed["attempt_log"]), slug
        for key in ("stop_reason", "attempts", "calls", "tokens_in", "tokens_out"):
            assert summary.get(key) == committed.get(key), (slug, key)


@pytest.mark.slow
@pytest.mark.parametrize(("option", "named"), [
    (["--max-tokens", "1024"], ["max_tokens 1024 sent, 768 recorded (--max-tokens)",
                                "--max-tokens 1024 (recorded: 768)"]),
    (["--cpu-seconds", "600"], ["slot environment ((5) ALLOWED LIBRARIES AND CONSTRAINTS)",
                                "CPU time: 10 minutes", "--cpu-seconds 600.0 (recorded: 300.0)"]),
    (["--prompt", "frozen-solver"], ["slot readme ((1) README)",
                                     "--prompt frozen-solver (recorded: frozen)"]),
])
def test_a_changed_setting_is_named_in_the_error(tmp_path: Path, option, named):
    assert _replay(tmp_path, *option, competitions=in_repository(("gnn-cora",))) == 2
    error = read_json(tmp_path / "runs" / "adhoc" / MODEL / "gnn-cora" / "summary.json")["error"]
    assert "no recorded response" in error and "message 1 " in error
    for text in named:
        assert text in error, error


@pytest.mark.slow
def test_a_changed_competition_names_the_slot(tmp_path: Path):
    """A folder outside git (nothing to read the recorded slots back from): the miss names
    the slot that differs."""
    folder = Path(as_recorded(tmp_path, ("gnn-cora",))[0])
    readme = folder / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nOne more line.\n",
                      encoding="utf-8")
    assert _replay(tmp_path, competitions=(str(folder),)) == 2
    error = read_json(tmp_path / "runs" / "adhoc" / MODEL / "gnn-cora" / "summary.json")["error"]
    assert "message 1, slot readme ((1) README)" in error and "One more line." in error
    assert "options differing" not in error  # no option was given: the folder differs


# -- the workflow's replay path ---------------------------------------------------------------


def _workflow_args(tmp_path: Path, **env: str) -> list[str]:
    """The `gnncb` arguments the run step of llm-campaign.yml builds, from its own script: the
    privileged call is replaced by printing the argument list (nothing else is changed)."""
    doc = yaml.safe_load((REPO / ".github" / "workflows" / "llm-campaign.yml").read_text())
    [step] = [s for s in doc["jobs"]["run"]["steps"] if "LLM_API_KEY" in s.get("env", {})]
    script = step["run"]
    call = next(line for line in script.splitlines() if line.strip().startswith("sudo "))
    script = script.replace(call, '          printf "%s\\n" "${args[@]}" > "$ARGS_OUT"')
    script = "\n".join(line for line in script.splitlines() if "chown" not in line)
    out = tmp_path / "args.txt"
    subprocess.run(["bash", "-c", script], check=True, cwd=tmp_path,
                   env={**os.environ, "ARGS_OUT": str(out), **env})
    return out.read_text().splitlines()


def test_workflow_replay_passes_no_protocol_options(tmp_path: Path):
    base = {"MODEL": MODEL, "COMPETITION": "gnn-cora", "CAMPAIGN": "c", "PROMPT": "frozen",
            "REPAIRS": "5", "WALL_SECONDS": "", "BASE_URL": "u", "RECORDINGS": "r"}
    replay = _workflow_args(tmp_path, PROVIDER="replay", **base)
    assert replay[replay.index("--recordings") + 1] == "r"
    for flag in ("--prompt", "--repairs", "--wall-seconds", "--max-tokens", "--record"):
        assert flag not in replay
    live = _workflow_args(tmp_path, PROVIDER="openai", **{**base, "WALL_SECONDS": "60"})
    assert live[live.index("--repairs") + 1] == "5" and "--recordings" not in live
    assert live[live.index("--record") + 1] == "runs/c/recordings"


def _workflow_replay(tmp_path: Path, checkout: Path) -> list[str]:
    """The run step's exact argument list (PROVIDER=replay, the committed recordings), run in
    `checkout` as the job runs it there, its runs folder and ledger moved to tmp_path."""
    args = _workflow_args(tmp_path, PROVIDER="replay", MODEL=MODEL, COMPETITION="gnn-cora",
                          CAMPAIGN="qwen-replay", PROMPT="frozen", REPAIRS="5",
                          WALL_SECONDS="", BASE_URL="https://api.openai.com/v1",
                          RECORDINGS="campaigns/qwen2.5-coder-0.5b-local/gnn/recordings")
    ledger = tmp_path / "ledger.jsonl"
    shutil.copy(checkout / "leaderboard" / "ledger.jsonl", ledger)
    moved = {"--runs": str(tmp_path / "runs"), "--ledger": str(ledger)}
    for i, arg in enumerate(args[:-1]):
        if arg in moved:
            args[i + 1] = moved[arg]
        elif arg in ("--competition", "--public-key", "--recordings"):
            args[i + 1] = str(checkout / args[i + 1])
    return [*args, *UNSANDBOXED_FLAGS]


def _clone(tmp_path: Path, *flags: str) -> Path:
    """A clone of this repository at its HEAD, as actions/checkout makes one."""
    dest = tmp_path / "checkout"
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "fetch", "-q", *flags, f"file://{REPO}", head],
                   check=True)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", head], check=True)
    return dest


def test_the_workflow_replay_checks_out_the_history() -> None:
    """The run job's checkout fetches every commit when replaying (the prompt slots are read
    back from the recorded one) and only the tip for a live run."""
    doc = yaml.safe_load((REPO / ".github" / "workflows" / "llm-campaign.yml").read_text())
    [checkout] = [s for s in doc["jobs"]["run"]["steps"]
                  if s.get("uses", "").startswith("actions/checkout@")]
    assert checkout["with"]["fetch-depth"] == "${{ inputs.provider == 'replay' && '0' || '1' }}"


@pytest.mark.slow
def test_workflow_replay_path_replays_the_committed_campaign(tmp_path: Path):
    """On a fresh clone with the history (fetch-depth 0), the committed campaign replays to its
    committed outcome: the README slot is read back from the commit campaign.json names, though
    the README changed since."""
    commit = slots_commit()
    checkout = _clone(tmp_path)
    changed = subprocess.run(["git", "-C", str(checkout), "diff", "--quiet", commit, "--",
                              "competitions/gnn-cora/README.md"], check=False)
    assert changed.returncode == 1  # the case this test is about: the README moved on
    assert main(_workflow_replay(tmp_path, checkout)) == 1  # the model's failure, as recorded
    summary = read_json(tmp_path / "runs" / "qwen-replay" / MODEL / "gnn-cora" / "summary.json")
    committed = read_json(CAMPAIGN / "gnn" / "summaries" / "gnn-cora.json")
    assert summary["status"] == committed["status"] == "failed"
    assert summary["prompt_hash"] == committed["prompt_hash"]
    assert [a["replay_match"] for a in summary["attempt_log"]] == ["exact", "exact"]


@pytest.mark.slow
def test_a_shallow_checkout_is_told_to_fetch_the_history(tmp_path: Path, capsys):
    commit = slots_commit()
    checkout = _clone(tmp_path, "--depth", "1")
    assert main(_workflow_replay(tmp_path, checkout)) == 2
    err = capsys.readouterr().err
    assert f"read at commit {commit[:12]}" in err and "fetch-depth: 0" in err, err
    assert not (tmp_path / "runs" / "qwen-replay").exists()  # refused before any request


# -- record -> replay without options ------------------------------------------------------


@pytest.mark.slow
def test_recording_writes_the_settings_a_replay_reads_back(keypair, demo_competition,
                                                           tmp_path, httpserver, monkeypatch):
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    llm = ScriptedLLM(httpserver, [NO_CODE, MAJORITY])
    recordings = tmp_path / "recordings"
    common = ["llm", "run", "--competition", str(demo_competition), "--model", "m",
              "--public-key", str(keypair["public_path"]), "--no-score", *UNSANDBOXED_FLAGS]
    assert main([*common, "--base-url", llm.base_url, "--api-key-env", "GNNCB_TEST_LLM_KEY",
                 "--record", str(recordings), "--runs", str(tmp_path / "live"),
                 "--max-tokens", "500", "--context-tokens", "9000", "--repairs", "1",
                 "--temperature", "0.5", "--seed", "7", "--wall-seconds", "60"]) == 0
    settings = json.loads((recordings / "campaign.json").read_text())["settings"]
    assert {k: settings[k] for k in ("max_tokens", "context_tokens", "repairs", "temperature",
                                     "seed", "wall_seconds")} == {
        "max_tokens": 500, "context_tokens": 9000, "repairs": 1, "temperature": 0.5,
        "seed": 7, "wall_seconds": 60.0}
    assert llm.requests[0]["max_tokens"] == 500
    assert main([*common, "--provider", "replay", "--strict-replay", "--recordings",
                 str(recordings), "--runs", str(tmp_path / "replay")]) == 0
    assert len(llm.requests) == 2  # offline
    summary = read_json(tmp_path / "replay" / "adhoc" / "m" / demo_competition.name
                        / "summary.json")
    assert summary["status"] == "sealed"
    assert [a["replay_match"] for a in summary["attempt_log"]] == ["exact", "exact"]
