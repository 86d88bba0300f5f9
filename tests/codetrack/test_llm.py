"""LLMs on the code track: scripted model over real HTTP -> visible-case repair -> hidden judge.

The model is a local OpenAI-compatible server (tests/helpers/llm.py's ScriptedLLM). Runs use
lc207 (course schedule), one practice case per published cell (8 visible cases), one hidden case
per cell and a 0.3 s CPU floor per case, so every run takes a few seconds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.codetrack.cases import (
    PRACTICE_SEED,
    CaseSet,
    default_cache_dir,
    default_set_path,
    seed_from_digest,
)
from evaluator.codetrack.judge import truncate
from evaluator.codetrack.llmrun.feedback import clean_traceback
from evaluator.codetrack.llmrun.prompting import (
    VARIANTS,
    get_code_variant,
    render_prompt,
    render_repair,
    template_hash,
)
from evaluator.codetrack.llmrun.repair import best_attempt
from evaluator.codetrack.problem import get_problem
from evaluator.ledger.store import Ledger
from tests.helpers.codetrack import KAHN, digest_seeded_root
from tests.helpers.llm import (
    API_KEY,
    ISOLATION,
    UNSANDBOXED_FLAGS,
    ScriptedLLM,
    answer,
    read_json,
)
from tests.helpers.paths import FIXTURES, REPO

MODEL = "acme/coder-1.5"
PARTICIPANT = "llm:acme-coder-1.5"

CORRECT = answer("Kahn's algorithm: all courses finish iff the graph is acyclic", KAHN)
ALWAYS_TRUE = answer("every schedule works", """
    class Solution:
        def canFinish(self, numCourses, prerequisites):
            return True
""")
INFINITE_LOOP = answer("think forever", """
    class Solution:
        def canFinish(self, numCourses, prerequisites):
            while True:
                pass
""")
NO_CODE = "<plan>\nUse a topological sort.\n</plan>\nI will not write the code.\n"


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GNNCB_CACHE", str(tmp_path / "cache"))
    # These runs test the loop and the hidden judge, not the seed's source: a board with no
    # committed case secret (the repository's commits one; its two-step judging is
    # tests/codetrack/test_llm_secret_cases.py's)
    monkeypatch.setenv("GNNCB_ROOT", str(digest_seeded_root(tmp_path)))
    monkeypatch.setenv("GNNCB_TEST_LLM_KEY", API_KEY)
    return tmp_path / "cache"


def run_args(root: Path, *extra: str, campaign: str = "adhoc") -> list[str]:
    return ["code", "llm", "run", "--model", MODEL, "--problems", "lc207",
            "--api-key-env", "GNNCB_TEST_LLM_KEY", "--runs", str(root / "runs"),
            "--campaign", campaign, "--visible-per-cell", "1", "--examples", "2",
            "--per-cell", "1", "--timeout-floor", "0.3", "--no-memory", "--jobs", "1",
            "--retries", "0", "--ledger", str(root / "ledger.jsonl"), *UNSANDBOXED_FLAGS,
            *extra]


def openai_args(root: Path, llm: ScriptedLLM, *extra: str, campaign: str = "adhoc") -> list[str]:
    return run_args(root, "--provider", "openai", "--base-url", llm.base_url, *extra,
                    campaign=campaign)


def run_folder(root: Path, campaign: str = "adhoc") -> Path:
    return root / "runs" / campaign / "acme_coder-1.5" / "code-lc207"


def visible_inputs() -> list[str]:
    """The visible cases' inputs as the feedback shows them (truncated JSON)."""
    problem = get_problem("lc207")
    cases = CaseSet(default_set_path("paper", PRACTICE_SEED, 1)).cases("lc207")
    return [truncate({n: c.args[n] for n in problem.arg_names}) for c in cases]


def hidden_inputs(seed: int) -> list[str]:
    """Every hidden case's input JSON, from the set the judge generated for that seed."""
    [folder] = [p for p in (default_cache_dir() / "cases").glob("leaderboard-*")
                if CaseSet(p).manifest["base_seed"] == seed]
    return [c.args_json() for c in CaseSet(folder).cases("lc207")]


def all_text(folder: Path) -> str:
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in folder.rglob("*")
                     if p.is_file())


# ------------------------------------------------------------------------------------------
# Prompts
# ------------------------------------------------------------------------------------------

EXAMPLE = [{"cell": "sparse/connected", "nodes": 21, "input": '{"n":21}', "expected": "3"}]


def test_template_hash_is_the_same_for_every_problem_and_names_the_wording(tmp_path: Path):
    problems = [get_problem(p) for p in ("lc207", "lc1192", "lc2097")]
    for variant in VARIANTS:
        prompts = [render_prompt(variant, p, EXAMPLE) for p in problems]
        assert {p.template_hash for p in prompts} == {template_hash(variant)}
        assert len({p.prompt_hash for p in prompts}) == len(problems)
        for problem, prompt in zip(problems, prompts, strict=True):
            assert problem.statement.strip() in prompt.text
            assert problem.signature.strip() in prompt.text
            assert problem.input_contract in prompt.text
            assert problem.id not in prompt.text  # never the upstream (LeetCode) id
            assert '{"n":21}' in prompt.text and "standard library only" in prompt.text
    vanilla, ssd = (get_code_variant(n) for n in ("vanilla", "ssd"))
    assert template_hash(vanilla) != template_hash(ssd)
    ssd_text = render_prompt(ssd, problems[0], EXAMPLE).text
    for part in ("Problem clarification", "Problem breakdown", "Solution formulation",
                 "Program implementation"):
        assert part in ssd_text and part not in render_prompt(vanilla, problems[0], EXAMPLE).text
    assert ssd_text.count("Cognitive step") == 4 and ssd_text.count("Action step") == 4

    # The hash covers the repair wording too: editing it is a new protocol.
    copy = tmp_path / "templates"
    shutil.copytree(REPO / "templates" / "prompts",
                    copy / "prompts")
    assert template_hash(vanilla, copy) == template_hash(vanilla)
    repair = copy / "prompts" / "code_repair_v1.md.j2"
    repair.write_text(repair.read_text().replace("Fix the program.", "Please fix it."))
    assert template_hash(vanilla, copy) != template_hash(vanilla)


def test_repair_turn_lists_the_failures_it_is_given():
    text = render_repair(get_code_variant("vanilla"), attempt=1, max_attempts=6,
                         outcome="passed 1 of 2 visible test cases; failed: wrong answer 1",
                         failures=[{"cell": "planar/cyclic", "verdict": "wrong answer",
                                    "input": '{"numCourses":3}', "expected": "false",
                                    "actual": "true", "detail": ""}])
    assert "attempt 1 of 6" in text and "Failed test case 1 (planar/cyclic graph)" in text
    assert 'input: {"numCourses":3}' in text
    assert "expected answer: false" in text and "your answer: true" in text
    assert "details:" not in text and "printed:" not in text


def test_tracebacks_keep_only_the_solution_frames():
    raw = (
        "Traceback (most recent call last):\n"
        '  File "/tmp/gnncb-judge-lc207-ph7re4vi/runner/worker.py", line 229, in _run_case\n'
        "    answer = getattr(cls(), method)(*args)\n"
        "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        '  File "/tmp/gnncb-judge-lc207-ph7re4vi/workspace/solution.py", line 3, in canFinish\n'
        "    return 1/0\n"
        "           ~^~\n"
        "ZeroDivisionError: division by zero\n")
    assert clean_traceback(raw) == (
        "Traceback (most recent call last):\n"
        '  File "solution.py", line 3, in canFinish\n'
        "    return 1/0\n"
        "           ~^~\n"
        "ZeroDivisionError: division by zero")


def test_the_final_solution_is_the_best_attempt_on_visible_cases():
    assert best_attempt([None, 3, 5, 5, 2]) == 4  # most passes, latest on a tie
    assert best_attempt([0, None]) == 1
    assert best_attempt([None, None]) is None


# ------------------------------------------------------------------------------------------
# Runs against a scripted OpenAI-compatible server
# ------------------------------------------------------------------------------------------


def test_correct_solution_first_try_lands_a_code_track_ledger_row(tmp_path, httpserver, capsys):
    llm = ScriptedLLM(httpserver, [CORRECT])
    assert main(openai_args(tmp_path, llm)) == 0
    out, err = capsys.readouterr()
    assert f"isolation: {ISOLATION.level}" in err
    assert f"{PARTICIPANT} (llm-api, {MODEL}): pass rate" in out
    assert len(llm.requests) == 1
    prompt = llm.requests[0]["messages"][0]["content"]
    problem = get_problem("lc207")
    assert problem.statement.strip() in prompt and "def canFinish" in prompt
    # the examples are visible (practice) cases, truncated
    shown = [line[len("input: "):] for line in prompt.splitlines() if line.startswith("input: ")]
    assert len(shown) == 2 and all(s in visible_inputs() or "more characters]" in s
                                   for s in shown)

    [row] = Ledger(tmp_path / "ledger.jsonl").rows()
    assert (row["slug"], row["entrant"], row["model"], row["participant"]) == (
        "graph-coding", "llm-api", MODEL, PARTICIPANT)
    assert row["seed"] == seed_from_digest(row["digest"])  # hidden set seeded by the code
    assert row["declared"]["seed_source"] == "digest"
    lc207 = row["per_problem"]["lc207"]
    assert lc207["passed"] == lc207["cases"] == 8
    llm_meta = row["declared"]["llm"]
    assert llm_meta["prompt_variant"] == "code_vanilla_v1"
    assert llm_meta["template_hash"] == template_hash(get_code_variant("vanilla"))
    assert llm_meta["repair_depth"] == {"lc207": 0} and llm_meta["tokens_out"] > 0

    run = run_folder(tmp_path)
    summary = read_json(run / "summary.json")
    assert summary["status"] == "scored" and summary["all_visible_passed"]
    assert summary["hidden"]["passed"] == summary["hidden"]["cases"] == 8
    assert summary["hidden"]["submission_digest"] == row["digest"]
    for name in ("prompt.md", "response.md", "plan.md", "solution.py", "attempt.json",
                 "visible.json"):
        assert (run / "attempt-1" / name).is_file(), name
    record = read_json(run / "attempt-1" / "attempt.json")
    assert record["visible_passed"] == record["visible_cases"] == 8
    assert record["visible_verdicts"]["pass"] == 8 and record["tokens_in"] > 0
    assert record["latency_seconds"] is not None and record["failure"] is None
    assert (run / "solution.py").read_text() == (run / "attempt-1" / "solution.py").read_text()
    submitted = run.parent / "code-submission"
    assert (submitted / "solutions" / "lc207.py").read_text() == (run / "solution.py").read_text()
    assert read_json(submitted / "row.json")["digest"] == row["digest"]
    assert API_KEY not in all_text(tmp_path / "runs")


@pytest.mark.slow
def test_wrong_solution_is_fixed_from_visible_failures_only(tmp_path, httpserver):
    llm = ScriptedLLM(httpserver, [ALWAYS_TRUE, CORRECT])
    assert main(openai_args(tmp_path, llm)) == 0
    first, second = llm.requests
    assert len(first["messages"]) == 1 and len(second["messages"]) == 3
    assert second["messages"][1] == {"role": "assistant", "content": ALWAYS_TRUE}
    feedback = second["messages"][2]["content"]
    assert "attempt 1 of 6" in feedback and "wrong answer" in feedback
    assert "expected answer: false" in feedback and "your answer: true" in feedback

    # every case in the feedback is a visible one; no hidden input appears in any request
    shown = [line[len("input: "):] for line in feedback.splitlines()
             if line.startswith("input: ")]
    visible = visible_inputs()
    assert 1 <= len(shown) <= 3 and all(s in visible for s in shown)
    [row] = Ledger(tmp_path / "ledger.jsonl").rows()
    sent = json.dumps(llm.requests)
    hidden = hidden_inputs(row["seed"])
    assert len(hidden) == 8 and not any(h[:120] in sent for h in hidden)
    assert "lc207" not in sent  # the upstream id is not shown, not even in case ids

    run = run_folder(tmp_path)
    assert (run / "attempt-1" / "feedback.md").read_text() == feedback
    summary = read_json(run / "summary.json")
    assert summary["repair_depth"] == 1 and summary["final_attempt"] == 2
    log = summary["attempt_log"]
    assert [a["visible_passed"] for a in log] == [
        log[0]["visible_verdicts"]["pass"], 8]
    assert log[0]["visible_passed"] < 8 and log[0]["failure"]["mode"] == "wrong_answer"
    assert row["per_problem"]["lc207"]["passed"] == 8


def test_answer_without_code_fails_without_a_ledger_row(tmp_path, httpserver, capsys):
    llm = ScriptedLLM(httpserver, [NO_CODE, NO_CODE])
    assert main(openai_args(tmp_path, llm, "--repairs", "1")) == 1
    turn = llm.requests[1]["messages"][2]["content"]
    assert "contained no runnable Python program (no <code> block" in turn
    summary = read_json(run_folder(tmp_path) / "summary.json")
    assert summary["status"] == "failed" and summary["attempts"] == 2
    assert [a["parse_status"] for a in summary["attempt_log"]] == ["missing_code"] * 2
    assert summary["failure"]["mode"] == "response_format"
    assert not (run_folder(tmp_path) / "attempt-1" / "solution.py").exists()  # nothing ran
    assert not (tmp_path / "ledger.jsonl").exists()
    assert "1 failed" in capsys.readouterr().out


@pytest.mark.slow
def test_infinite_loop_ends_as_timeouts_on_visible_and_hidden_cases(tmp_path, httpserver):
    llm = ScriptedLLM(httpserver, [INFINITE_LOOP])
    assert main(openai_args(tmp_path, llm, "--repairs", "0")) == 0
    summary = read_json(run_folder(tmp_path) / "summary.json")
    [attempt] = summary["attempt_log"]
    assert attempt["visible_verdicts"]["timeout"] == 8 and attempt["visible_passed"] == 0
    assert attempt["failure"]["mode"] == "timeout"
    # a program was written, so it is judged (and scores nothing) like any submission
    assert summary["status"] == "scored" and summary["hidden"]["verdicts"]["timeout"] == 8
    [row] = Ledger(tmp_path / "ledger.jsonl").rows()
    assert row["scores"]["passed"] == 0 and row["scores"]["pass_rate"] == 0.0


@pytest.mark.slow
def test_replay_reproduces_the_recorded_run_offline(tmp_path, httpserver, capsys):
    llm = ScriptedLLM(httpserver, [ALWAYS_TRUE, CORRECT])
    recordings = tmp_path / "recordings"
    live = tmp_path / "live"
    assert main(openai_args(live, llm, "--record", str(recordings))) == 0
    assert len(list(recordings.glob("sha256-*.json"))) == 2

    replay = tmp_path / "replay"
    assert main(run_args(replay, "--provider", "replay", "--recordings", str(recordings),
                         "--strict-replay")) == 0
    assert len(llm.requests) == 2  # the server was not asked again
    [a] = Ledger(live / "ledger.jsonl").rows()
    [b] = Ledger(replay / "ledger.jsonl").rows()
    for key in ("digest", "seed", "scores", "per_problem", "participant", "model", "entrant"):
        assert a[key] == b[key], key
    first, again = (read_json(run_folder(r) / "summary.json") for r in (live, replay))
    assert again["provider"] == "replay" and first["provider"] == "openai-compatible"
    assert again["prompt_hash"] == first["prompt_hash"]
    assert [x["replay_match"] for x in again["attempt_log"]] == ["exact", "exact"]
    strip = ("replay_match",)
    assert ([{k: v for k, v in x.items() if k not in strip} for x in again["attempt_log"]]
            == [{k: v for k, v in x.items() if k not in strip} for x in first["attempt_log"]])
    assert again["hidden"] == first["hidden"]

    # Resume: a finished problem is skipped, nothing is asked, the same row is not added twice.
    capsys.readouterr()
    assert main(run_args(replay, "--provider", "replay", "--recordings", str(recordings))) == 0
    out, err = capsys.readouterr()
    assert "already scored, skipped" in err and "nothing new recorded" in out
    assert len(Ledger(replay / "ledger.jsonl").rows()) == 1


# ------------------------------------------------------------------------------------------
# Real answers (Qwen2.5-Coder-0.5B, tests/fixtures/llm-recordings/qwen-code)
# ------------------------------------------------------------------------------------------

RECORDED = FIXTURES / "llm-recordings" / "qwen-code" / "recordings"


def recorded_text(prefix: str) -> str:
    [path] = RECORDED.glob(f"sha256-{prefix}*.json")
    return read_json(path)["response"]["text"]


def test_recorded_unloadable_answer_is_invalid_and_its_repeat_stops_the_loop(
        tmp_path, httpserver, capsys):
    """Qwen's lc207 answer uses `List` without importing it: the module cannot be loaded
    (0 cases pass, hidden or visible). It was the same program on every attempt."""
    llm = ScriptedLLM(httpserver, [recorded_text("6b243fb0"), recorded_text("ffce7404"),
                                   recorded_text("1a1734fe")])
    assert main(openai_args(tmp_path, llm)) == 1  # nothing valid to submit
    assert len(llm.requests) == 2  # the second answer repeated the first program
    summary = read_json(run_folder(tmp_path) / "summary.json")
    assert summary["status"] == "failed" and summary["valid"] is False
    assert summary["stop_reason"] == "repeated_answer"
    assert summary["failure"]["mode"] == "other_code_error"
    assert "NameError" in summary["failure"]["evidence"]
    assert "Solution.canFinish" in summary["failure"]["reason"]
    log = summary["attempt_log"]
    assert [a["valid_module"] for a in log] == [False, False] and log[1]["repeat_of"] == 1
    # the stray "<code> block:" prose was not taken for the program: the fence was
    first = read_json(run_folder(tmp_path) / "attempt-1" / "attempt.json")
    assert first["code_source"] == "fence" and first["load_error"]
    assert not (tmp_path / "ledger.jsonl").exists()
    assert "failed: no attempt gave a module that loads" in capsys.readouterr().err
    # the report counts it as invalid and shows every attempt's failure mode
    out = tmp_path / "report.json"
    assert main(["llm", "report", "--runs", str(tmp_path / "runs" / "adhoc"),
                 "--json", str(out)]) == 0
    markdown = capsys.readouterr().out
    report = read_json(out)
    [run] = report["runs"]
    assert (run["slug"], run["status"], run["stop_reason"]) == (
        "code-lc207", "failed", "repeated_answer")
    assert run["attempt_modes"] == "1:other_code_error 2:other_code_error(r)"
    [model] = report["models"].values()
    assert (model["pairs"], model["valid"], model["valid_rate"]) == (1, 0, 0.0)
    from evaluator.render.boards import md_escape

    assert "per attempt" in markdown
    assert md_escape("1:other_code_error 2:other_code_error(r)") in markdown


@pytest.mark.slow
def test_recorded_lc1971_answer_is_judged_valid_and_lands_a_row(tmp_path, httpserver, capsys):
    """Qwen's lc1971 BFS answer (code in a fence inside an unclosed <plan>) solves it."""
    llm = ScriptedLLM(httpserver, [recorded_text("7a066c0b")])
    args = openai_args(tmp_path, llm)
    args[args.index("lc207")] = "lc1971"
    assert main(args) == 0
    run = tmp_path / "runs" / "adhoc" / "acme_coder-1.5" / "code-lc1971"
    summary = read_json(run / "summary.json")
    assert summary["status"] == "scored" and summary["valid"] is True
    assert summary["hidden"]["passed"] == summary["hidden"]["cases"] > 0
    assert summary["decoding"]["max_tokens_applied"] == 10000
    [row] = Ledger(tmp_path / "ledger.jsonl").rows()
    assert row["per_problem"]["lc1971"]["passed"] == row["per_problem"]["lc1971"]["cases"]
